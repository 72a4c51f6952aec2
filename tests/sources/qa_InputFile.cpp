// qa_InputFile: the parallel range reader of the file sources (sources/input_file.hpp) — parts
// read by several threads land where a single pread would put them, for ranges of every size
// around the part boundaries and at any offset; a range past the end comes back short, counted
// up to the first short part; a read error names the file. Run under ThreadSanitizer too.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "sources/input_file.hpp"

namespace prism {
namespace {

class ParallelFileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/prism-qa-input-XXXXXX";
    fd_ = ::mkstemp(name);
    ASSERT_GE(fd_, 0);
    path_ = name;
    std::mt19937 rng(7);
    data_.resize(3 * 1024 * 1024 + 12345);
    for (auto& b : data_) b = static_cast<std::byte>(rng());
    ASSERT_EQ(::write(fd_, data_.data(), data_.size()), static_cast<ssize_t>(data_.size()));
  }
  void TearDown() override {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  int fd_ = -1;
  std::string path_;
  std::vector<std::byte> data_;
};

TEST_F(ParallelFileReaderTest, PartsLandWhereOneReadWouldPutThem) {
  ParallelFileReader reader(fd_, path_, 4, 64 * 1024);
  const std::size_t sizes[] = {1, 4095, 64 * 1024, 128 * 1024 - 1, 128 * 1024, 256 * 1024 + 3,
                               1024 * 1024, data_.size()};
  const std::uint64_t offsets[] = {0, 1, 4096, 77777};
  for (std::size_t size : sizes) {
    for (std::uint64_t offset : offsets) {
      if (offset + size > data_.size()) continue;
      std::vector<std::byte> out(size, std::byte{0xee});
      ASSERT_EQ(reader.read_at(out.data(), size, offset), size) << size << " at " << offset;
      ASSERT_TRUE(std::equal(out.begin(), out.end(), data_.begin() + static_cast<std::ptrdiff_t>(offset)))
          << size << " bytes at " << offset;
    }
  }
}

TEST_F(ParallelFileReaderTest, ARangePastTheEndComesBackShort) {
  ParallelFileReader reader(fd_, path_, 3, 64 * 1024);
  const std::uint64_t offset = data_.size() - 100000;
  std::vector<std::byte> out(1024 * 1024);
  EXPECT_EQ(reader.read_at(out.data(), out.size(), offset), 100000u);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 100000, data_.end() - 100000));
  EXPECT_EQ(reader.read_at(out.data(), out.size(), data_.size()), 0u);
}

TEST_F(ParallelFileReaderTest, ManyReadsInARowReuseTheWorkers) {
  ParallelFileReader reader(fd_, path_, 4, 16 * 1024);
  std::vector<std::byte> out(200 * 1024);
  for (std::uint64_t offset = 0; offset + out.size() <= data_.size(); offset += 100 * 1024) {
    ASSERT_EQ(reader.read_at(out.data(), out.size(), offset), out.size());
    ASSERT_TRUE(std::equal(out.begin(), out.end(), data_.begin() + static_cast<std::ptrdiff_t>(offset)));
  }
}

TEST(ParallelFileReader, AReadErrorNamesTheFile) {
  const int fd = ::open("/tmp", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ParallelFileReader reader(fd, "/tmp (a directory)", 4, 4096);
  std::vector<std::byte> out(64 * 1024);
  try {
    reader.read_at(out.data(), out.size(), 0);
    ADD_FAILURE() << "reading a directory did not fail";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp (a directory)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  }
  ::close(fd);
}

}  // namespace
}  // namespace prism
