// PartialFile and the output-path check (see output_file.hpp).
#include "sinks/output_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/errors.hpp"

namespace prism {
namespace {

// Large enough that a sink writing one short row at a time does not make a system call per
// row, small enough to be irrelevant next to the rows themselves.
constexpr std::size_t kBufferCapacity = 64 * 1024;

}  // namespace

PartialFile::PartialFile(std::string final_path)
    : final_path_(std::move(final_path)), partial_path_(final_path_ + ".partial") {}

PartialFile::~PartialFile() {
  if (!published_) discard();
}

void PartialFile::fail(const std::string& what, int error_number) const {
  throw InputError(final_path_, what + std::strerror(error_number));
}

void PartialFile::open() {
  if (fd_ >= 0) return;
  fd_ = ::open(partial_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int error_number = errno;
    throw InputError(final_path_, "cannot create " + partial_path_ + ": " +
                                      std::strerror(error_number));
  }
  created_ = true;
  published_ = false;
  size_ = 0;
  buffer_.clear();
  buffer_.reserve(kBufferCapacity);
}

// Every write names its offset (pwrite): appends and rewrites mix without the descriptor's
// position having to follow them.
void PartialFile::write_all(std::uint64_t offset, const unsigned char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed: ", errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void PartialFile::flush_buffer() {
  if (buffer_.empty()) return;
  try {
    write_all(size_ - buffer_.size(), buffer_.data(), buffer_.size());
  } catch (...) {
    buffer_.clear();  // so that close() after a failed write does not try them again
    throw;
  }
  buffer_.clear();
}

void PartialFile::write(const void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(final_path_, "write to a file that is not open");
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (buffer_.size() + size > kBufferCapacity) flush_buffer();
  if (size >= kBufferCapacity) {
    write_all(size_, bytes, size);  // large writes skip the buffer
  } else {
    buffer_.insert(buffer_.end(), bytes, bytes + size);
  }
  size_ += size;
}

void PartialFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(final_path_, "write to a file that is not open");
  flush_buffer();
  write_all(offset, static_cast<const unsigned char*>(data), size);
  size_ = std::max<std::uint64_t>(size_, offset + size);
}

std::size_t PartialFile::read_at(std::uint64_t offset, void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(final_path_, "read from a file that is not open");
  flush_buffer();
  auto* p = static_cast<unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("read back failed: ", errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

void PartialFile::close() {
  if (fd_ < 0) return;
  try {
    flush_buffer();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  const int fd = fd_;
  fd_ = -1;
  // close() reports errors of delayed writes (e.g. on network file systems).
  if (::close(fd) != 0 && errno != EINTR) fail("close failed: ", errno);
}

void PartialFile::publish() {
  if (fd_ >= 0) close();
  if (!created_) throw InputError(final_path_, "nothing was written");
  if (std::rename(partial_path_.c_str(), final_path_.c_str()) != 0) {
    const int error_number = errno;
    throw InputError(final_path_, "cannot rename " + partial_path_ + " into place: " +
                                      std::strerror(error_number));
  }
  created_ = false;
  published_ = true;
}

void PartialFile::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  buffer_.clear();
  if (created_) {
    ::unlink(partial_path_.c_str());
    created_ = false;
  }
}

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(path, "empty output path");
  std::error_code ec;
  const fs::path target(path);
  if (fs::is_directory(target, ec))
    throw InputError(path, "is a directory, not a file name");
  fs::path directory = target.parent_path();
  if (directory.empty()) directory = ".";
  const auto status = fs::status(directory, ec);
  if (ec || !fs::exists(status)) {
    throw InputError(path, "output directory " + directory.string() + " does not exist");
  }
  if (!fs::is_directory(status))
    throw InputError(path, directory.string() + " is not a directory");
  // access() asks the kernel with the process's real credentials, which also covers read-only
  // mounts (EROFS) that the permission bits do not show.
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    const int error_number = errno;
    throw InputError(path, "output directory " + directory.string() + " is not writable: " +
                               std::strerror(error_number));
  }
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  PartialFile file(path);
  file.open();
  file.write(contents.data(), contents.size());
  file.commit();
}

}  // namespace prism
