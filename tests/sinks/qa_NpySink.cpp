// Tests of NpySink: the .npy file (header, padding, data, written in batches), its reading by
// numpy, the JSON sidecar, and the life cycle (abort, interruption, errors of the output path).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "sinks/npy_sink.hpp"
#include "sinks/open_sink.hpp"
#include "sink_test_support.hpp"

namespace prism {
namespace {

using test::ScratchDir;

float value_at(std::uint64_t row, std::size_t column) {
  return static_cast<float>(row) * 1000.0f + static_cast<float>(column) + 0.25f;
}

std::vector<float> make_rows(std::uint64_t first, std::size_t count, std::size_t columns) {
  std::vector<float> rows(count * columns);
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t c = 0; c < columns; ++c) rows[r * columns + c] = value_at(first + r, c);
  return rows;
}

// Writes `batches` (row counts) of value_at() rows and finishes.
void write_batches(NpySink& sink, const SpectrumLayout& layout, const std::vector<std::size_t>& batches,
                   bool complete = true) {
  test::begin_rows(sink, layout);
  std::uint64_t row = 0;
  for (std::size_t count : batches) {
    const auto rows = make_rows(row, count, layout.columns);
    test::write_rows(sink, rows.data(), count, row, layout.columns);
    row += count;
  }
  sink.finish(complete);
}

struct ParsedNpy {
  int major = 0, minor = 0;
  std::size_t data_offset = 0;
  std::string dictionary;
  std::vector<float> values;
};

ParsedNpy parse_npy(const std::string& bytes) {
  ParsedNpy npy;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return npy;
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY", 6));
  npy.major = static_cast<unsigned char>(bytes[6]);
  npy.minor = static_cast<unsigned char>(bytes[7]);
  const std::size_t header_length =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  npy.data_offset = 10 + header_length;
  npy.dictionary = bytes.substr(10, header_length);
  const std::size_t data_bytes = bytes.size() - std::min(bytes.size(), npy.data_offset);
  npy.values.resize(data_bytes / 4);
  if (!npy.values.empty())
    std::memcpy(npy.values.data(), bytes.data() + npy.data_offset, npy.values.size() * 4);
  return npy;
}

TEST(NpySink, RowsWrittenInBatchesReadBackExactly) {
  ScratchDir dir;
  const auto layout = test::make_layout(9, 100.0);
  NpySink sink(dir.file("out.npy"));
  write_batches(sink, layout, {1, 7, 12, 0, 3});
  EXPECT_EQ(sink.items_written(), 23u);

  const ParsedNpy npy = parse_npy(test::read_file(dir.file("out.npy")));
  EXPECT_EQ(npy.major, 1);
  EXPECT_EQ(npy.minor, 0);
  EXPECT_EQ(npy.data_offset % 64, 0u) << "the NPY spec aligns the data to 64 bytes";
  EXPECT_EQ(npy.dictionary.back(), '\n');
  EXPECT_NE(npy.dictionary.find("'descr': '<f4'"), std::string::npos) << npy.dictionary;
  EXPECT_NE(npy.dictionary.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(npy.dictionary.find("'shape': (23, 9)"), std::string::npos) << npy.dictionary;
  ASSERT_EQ(npy.values.size(), 23u * 9u);
  for (std::uint64_t r = 0; r < 23; ++r)
    for (std::size_t c = 0; c < 9; ++c) ASSERT_EQ(npy.values[r * 9 + c], value_at(r, c));
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"out.json", "out.npy"}));
}

TEST(NpySink, HeaderHasRoomForTwentyDigitRowCounts) {
  for (std::size_t columns : {1u, 129u, 4097u, 1000000u}) {
    const std::string empty = NpySink::npy_header("<f4", 0, {columns});
    const std::string widest = NpySink::npy_header("<f4", 18446744073709551615ull, {columns}, empty.size());
    EXPECT_EQ(empty.size() % 64, 0u);
    EXPECT_EQ(widest.size(), empty.size());
    EXPECT_NE(widest.find("18446744073709551615, " + std::to_string(columns)), std::string::npos);
  }
}

TEST(NpySink, NumpyLoadsTheSameShapeAndValues) {
  const std::string python = PRISM_TEST_PYTHON;
  if (python.empty() || ::access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no python3";
  if (std::system((python + " -c 'import numpy' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "python3 has no numpy";
  ScratchDir dir;
  const auto layout = test::make_layout(33, 10.0);
  NpySink sink(dir.file("spectrogram.npy"));
  write_batches(sink, layout, {5, 50, 45});

  const std::string script =
      "import sys, numpy as np\n"
      "a = np.load(sys.argv[1])\n"
      "assert a.shape == (100, 33), a.shape\n"
      "assert a.dtype == np.dtype('<f4'), a.dtype\n"
      "assert a.flags['C_CONTIGUOUS']\n"
      "r, c = np.meshgrid(np.arange(100), np.arange(33), indexing='ij')\n"
      "expected = (r * 1000.0 + c + 0.25).astype(np.float32)\n"
      "assert np.array_equal(a, expected), np.abs(a - expected).max()\n";
  const std::string script_path = dir.file("check.py");
  FILE* f = std::fopen(script_path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(script.c_str(), f);
  std::fclose(f);
  const int status = std::system((python + " " + script_path + " " + dir.file("spectrogram.npy")).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "numpy disagrees with the file (see its output above)";
}

TEST(NpySink, SidecarDescribesTheRows) {
  ScratchDir dir;
  auto layout = test::make_layout(5, 250.0, /*decibels=*/true);
  layout.stream.center_frequency = 0.0;
  layout.stream.start_time = "2026-11-21T10:00:00Z";
  layout.stream.length = 123456;
  nlohmann::json parameters = nlohmann::json::parse(layout.parameters_json);
  parameters["detrend"] = "constant";
  layout.parameters_json = parameters.dump();
  NpySink sink(dir.file("run.v2.npy"));
  EXPECT_EQ(sink.sidecar_path(), dir.file("run.v2.json"));
  write_batches(sink, layout, {4, 3});

  const auto j = nlohmann::json::parse(test::read_file(dir.file("run.v2.json")));
  EXPECT_EQ(j["data"], "run.v2.npy");
  EXPECT_EQ(j["dtype"], "float32");
  EXPECT_EQ(j["shape"], nlohmann::json::array({7, 5}));
  EXPECT_EQ(j["rows"], 7);
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["quantity"], "power_spectral_density");
  EXPECT_EQ(j["unit"], layout.unit());
  EXPECT_EQ(j["decibels"], true);
  EXPECT_EQ(j["center_frequency"], 0.0);
  EXPECT_EQ(j["parameters"], parameters);
  EXPECT_EQ(j["input"]["format"], "f32");
  EXPECT_EQ(j["input"]["sample_rate"], layout.stream.sample_rate);
  EXPECT_EQ(j["input"]["channels"], 1);
  EXPECT_EQ(j["input"]["start_time"], "2026-11-21T10:00:00Z");
  EXPECT_EQ(j["input"]["length"], 123456);
  ASSERT_EQ(j["frequencies"].size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(j["frequencies"][i].get<double>(), layout.frequencies[i]);
  ASSERT_EQ(j["times"].size(), 7u);
  for (std::uint64_t r = 0; r < 7; ++r) EXPECT_EQ(j["times"][r].get<double>(), layout.row_time(r));
}

TEST(NpySink, SidecarPathReplacesTheExtension) {
  EXPECT_EQ(NpySink::sidecar_path_for("out.npy"), "out.json");
  EXPECT_EQ(NpySink::sidecar_path_for("dir.d/out"), "dir.d/out.json");
  EXPECT_EQ(NpySink::sidecar_path_for("a/b.c.npy"), "a/b.c.json");
  EXPECT_EQ(NpySink::sidecar_path_for("weird.json"), "weird.json.json");
}

TEST(NpySink, AbortLeavesNoFile) {
  ScratchDir dir;
  const auto layout = test::make_layout(9, 100.0);
  NpySink sink(dir.file("out.npy"));
  test::begin_rows(sink, layout);
  EXPECT_TRUE(test::exists(dir.file("out.npy.partial")));
  const auto rows = make_rows(0, 10, 9);
  test::write_rows(sink, rows.data(), 10, 0, 9);
  sink.abort();
  EXPECT_TRUE(dir.names().empty());
  sink.finish(true);  // after abort: nothing to commit, and no error
  EXPECT_TRUE(dir.names().empty());
}

TEST(NpySink, DestroyedWithoutFinishLeavesNoFile) {
  ScratchDir dir;
  {
    NpySink sink(dir.file("out.npy"));
    test::begin_rows(sink, test::make_layout(3, 1.0));
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(NpySink, InterruptedRunIsCommittedAsIncomplete) {
  ScratchDir dir;
  const auto layout = test::make_layout(4, 1.0);
  NpySink sink(dir.file("out.npy"));
  write_batches(sink, layout, {6}, /*complete=*/false);
  const auto j = nlohmann::json::parse(test::read_file(dir.file("out.json")));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["rows"], 6);
  const ParsedNpy npy = parse_npy(test::read_file(dir.file("out.npy")));
  EXPECT_NE(npy.dictionary.find("'shape': (6, 4)"), std::string::npos);
  EXPECT_EQ(npy.values.size(), 24u);
}

TEST(NpySink, NoRowsGiveAnEmptyArray) {
  ScratchDir dir;
  NpySink sink(dir.file("out.npy"));
  write_batches(sink, test::make_layout(4, 1.0), {});
  const ParsedNpy npy = parse_npy(test::read_file(dir.file("out.npy")));
  EXPECT_NE(npy.dictionary.find("'shape': (0, 4)"), std::string::npos);
  EXPECT_TRUE(npy.values.empty());
  const auto j = nlohmann::json::parse(test::read_file(dir.file("out.json")));
  EXPECT_TRUE(j["times"].empty());
}

TEST(NpySink, RowsOutOfOrderAreRefused) {
  ScratchDir dir;
  NpySink sink(dir.file("out.npy"));
  test::begin_rows(sink, test::make_layout(2, 1.0));
  const auto rows = make_rows(0, 2, 2);
  test::write_rows(sink, rows.data(), 2, 0, 2);
  EXPECT_THROW(test::write_rows(sink, rows.data(), 2, 5, 2), std::logic_error);
}

TEST(NpySink, MissingDirectoryIsAnInputError) {
  ScratchDir dir;
  const std::string path = dir.file("no/such/dir/out.npy");
  try {
    open_sink(path, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_NE(e.reason().find("does not exist"), std::string::npos) << e.what();
  }
  NpySink sink(path);
  EXPECT_THROW(test::begin_rows(sink, test::make_layout(2, 1.0)), InputError);
}

TEST(NpySink, DirectoryThatIsAFileIsAnInputError) {
  ScratchDir dir;
  std::FILE* f = std::fopen(dir.file("plain").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  EXPECT_THROW(open_sink(dir.file("plain/out.npy"), {}), InputError);
  EXPECT_THROW(open_sink(dir.path().string() + "/out.jpg", {}), UsageError);  // not an output prism knows
}

TEST(NpySink, UnwritableDirectoryIsAnInputError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere; permission bits do not apply";
  ScratchDir dir;
  const auto locked = dir.path() / "locked";
  std::filesystem::create_directory(locked);
  std::filesystem::permissions(locked, std::filesystem::perms::owner_read |
                                           std::filesystem::perms::owner_exec);
  EXPECT_THROW(open_sink((locked / "out.npy").string(), {}), InputError);
  NpySink sink((locked / "out.npy").string());
  EXPECT_THROW(test::begin_rows(sink, test::make_layout(2, 1.0)), InputError);
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

TEST(NpySink, DiskFullIsAnInputErrorAndLeavesNoFile) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  ScratchDir dir;
  // The partial file is a link to /dev/full, where every write fails with ENOSPC.
  ASSERT_EQ(::symlink("/dev/full", dir.file("out.npy.partial").c_str()), 0);
  const auto layout = test::make_layout(1025, 1.0);
  NpySink sink(dir.file("out.npy"));
  try {
    test::begin_rows(sink, layout);
    const auto rows = make_rows(0, 64, layout.columns);  // > the write buffer
    test::write_rows(sink, rows.data(), 64, 0, layout.columns);
    sink.finish(true);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), dir.file("out.npy"));
    EXPECT_NE(e.reason().find(std::strerror(ENOSPC)), std::string::npos) << e.what();
  }
  sink.abort();
  EXPECT_FALSE(test::exists(dir.file("out.npy")));
  EXPECT_FALSE(test::exists(dir.file("out.json")));
}

}  // namespace
}  // namespace prism
