// Tests of raw sample input (sources/raw_file.hpp): files in every format, the format from the
// extension or the options, reads that fill the buffer, lengths that are not whole samples,
// and streams (stdin) through a pipe: slow writers, input ending mid-sample, interrupt().
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"
#include "sources/raw_file.hpp"
#include "tests/sources/source_test_support.hpp"

namespace prism {
namespace {

using test::error_message;
using test::read_all;
using test::ScratchDir;
using test::write_file;

std::vector<std::byte> counting_bytes(std::size_t n) {
  std::vector<std::byte> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = std::byte(static_cast<unsigned char>(i * 7 + 3));
  return bytes;
}

SourceOptions with_rate(double rate) {
  SourceOptions options;
  options.sample_rate = rate;
  return options;
}

TEST(RawSource, FormatComesFromTheExtension) {
  const std::pair<const char*, SampleFormat> cases[] = {
      {"a.cf32", SampleFormat::cf32}, {"a.cfile", SampleFormat::cf32},
      {"a.fc32", SampleFormat::cf32}, {"a.cs16", SampleFormat::ci16},
      {"a.ci16", SampleFormat::ci16}, {"a.sc16", SampleFormat::ci16},
      {"a.cs8", SampleFormat::ci8},   {"a.ci8", SampleFormat::ci8},
      {"a.cu8", SampleFormat::cu8},   {"a.f32", SampleFormat::f32},
      {"a.s16", SampleFormat::i16},   {"a.i16", SampleFormat::i16},
      {"A.CU8", SampleFormat::cu8},   {"a.cf64", SampleFormat::cf64},
      {"a.fc64", SampleFormat::cf64}, {"a.f64", SampleFormat::f64},
  };
  ScratchDir dir;
  const auto data = counting_bytes(8 * 12);
  for (const auto& [name, format] : cases) {
    SCOPED_TRACE(name);
    EXPECT_EQ(raw_format_from_extension(name), format);
    write_file(dir.file(name), data);
    auto source = RawSource::open_file(dir.file(name), with_rate(1e6));
    EXPECT_EQ(source->info().format, format);
    EXPECT_EQ(source->info().sample_rate, 1e6);
    EXPECT_EQ(source->info().length, data.size() / sample_bytes(format));
    EXPECT_EQ(read_all(*source, 5), data);
  }
  EXPECT_FALSE(raw_format_from_extension("a.bin").has_value());
  EXPECT_FALSE(raw_format_from_extension("cf32").has_value());
  EXPECT_FALSE(raw_format_from_extension("dir.cf32/file").has_value());
}

TEST(RawSource, FormatOptionWinsOverExtensionAndOptionsAreApplied) {
  ScratchDir dir;
  write_file(dir.file("x.cf32"), counting_bytes(96));
  SourceOptions options = with_rate(250e3);
  options.format = SampleFormat::cu8;
  options.channels = 3;
  options.center_frequency = 100e6;
  auto source = RawSource::open_file(dir.file("x.cf32"), options);
  EXPECT_EQ(source->info().format, SampleFormat::cu8);
  EXPECT_EQ(source->info().channels, 3u);
  EXPECT_EQ(source->info().frame_bytes(), 6u);
  EXPECT_EQ(source->info().length, 16u);
  EXPECT_EQ(source->info().center_frequency, 100e6);
  EXPECT_EQ(source->size_bytes(), 96u);
}

TEST(RawSource, ReadsFillTheBufferUntilTheEnd) {
  ScratchDir dir;
  const auto data = counting_bytes(10000 * 4);
  write_file(dir.file("x.ci16"), data);
  auto source = RawSource::open_file(dir.file("x.ci16"), with_rate(1e6));
  std::vector<std::byte> buffer(4096 * 4);
  EXPECT_EQ(source->read(buffer.data(), 4096), 4096u);
  EXPECT_EQ(std::memcmp(buffer.data(), data.data(), buffer.size()), 0);
  EXPECT_EQ(source->read(buffer.data(), 4096), 4096u);
  EXPECT_EQ(source->read(buffer.data(), 4096), 1808u);
  EXPECT_EQ(std::memcmp(buffer.data(), data.data() + 8192 * 4, 1808 * 4), 0);
  EXPECT_EQ(source->read(buffer.data(), 4096), 0u);
}

// A read of no samples converts nothing: the empty buffers' null pointers never reach memcpy
// (UBSan reports that; the generator's fuzz target found it).
TEST(RawSource, ConvertingNoSamplesTouchesNoBuffer) {
  for (SampleFormat format : kAllFormats) {
    std::vector<std::byte> none;
    std::vector<float> out;
    convert_to_float(format, none.data(), 0, out.data());
    convert_to_float(format, none.data(), 0, out.data(), IntegerScale::raw);
  }
}

TEST(RawSource, MissingRateOrFormatIsAUsageError) {
  ScratchDir dir;
  write_file(dir.file("x.cf32"), counting_bytes(8));
  write_file(dir.file("x.bin"), counting_bytes(8));
  const std::string no_rate =
      error_message<UsageError>([&] { RawSource::open_file(dir.file("x.cf32"), {}); });
  EXPECT_EQ(no_rate, "sample_rate is required for raw input " + dir.file("x.cf32"));

  const std::string no_format =
      error_message<UsageError>([&] { RawSource::open_file(dir.file("x.bin"), with_rate(1e3)); });
  EXPECT_CONTAINS(no_format, "format is required for raw input " + dir.file("x.bin"));
  EXPECT_CONTAINS(no_format, ".cfile");

  EXPECT_CONTAINS(error_message<UsageError>([&] { RawSource::open_file(dir.file("x.cf32"), with_rate(-1)); }),
                  "sample_rate must be");
  SourceOptions no_channels = with_rate(1e3);
  no_channels.channels = 0;
  EXPECT_CONTAINS(error_message<UsageError>([&] { RawSource::open_file(dir.file("x.cf32"), no_channels); }),
                  "channels must be");
  SourceOptions format_only;
  format_only.format = SampleFormat::cu8;
  EXPECT_CONTAINS(error_message<UsageError>([&] { RawSource::open_stdin(format_only); }),
                  "sample_rate is required for raw input -");
}

TEST(RawSource, LengthNotAWholeNumberOfSamplesIsAnInputError) {
  ScratchDir dir;
  write_file(dir.file("x.cf32"), counting_bytes(8 * 5 + 3));
  const std::string message =
      error_message<InputError>([&] { RawSource::open_file(dir.file("x.cf32"), with_rate(1e3)); });
  EXPECT_CONTAINS(message, dir.file("x.cf32") + ": ");
  EXPECT_CONTAINS(message, "43 bytes is not a whole number of samples");
  EXPECT_CONTAINS(message, "8 bytes per sample");
  EXPECT_CONTAINS(message, "3 stray bytes");
}

TEST(RawSource, MissingDirectoryAndUnreadablePathsAreNamed) {
  ScratchDir dir;
  const std::string missing =
      error_message<InputError>([&] { RawSource::open_file(dir.file("none.cf32"), with_rate(1e3)); });
  EXPECT_EQ(missing, dir.file("none.cf32") + ": no such file");

  std::filesystem::create_directory(dir.file("d.cf32"));
  const std::string directory =
      error_message<InputError>([&] { RawSource::open_file(dir.file("d.cf32"), with_rate(1e3)); });
  EXPECT_EQ(directory, dir.file("d.cf32") + ": is a directory, not a file");

  // /proc/self/mem opens, but reading its first page fails with EIO (it is not mapped).
  SourceOptions options = with_rate(1e3);
  options.format = SampleFormat::u8;
  const std::string unreadable =
      error_message<InputError>([&] { RawSource::open_file("/proc/self/mem", options); });
  EXPECT_EQ(unreadable, "/proc/self/mem: Input/output error");
}

// A pipe whose write end a test feeds from another thread.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    close_write();
    if (read_end >= 0) ::close(read_end);
  }
  void close_write() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
  // The source takes the read end.
  int take_read() {
    const int fd = read_end;
    read_end = -1;
    return fd;
  }
};

StreamInfo stream_info(SampleFormat format, unsigned channels = 1) {
  StreamInfo info;
  info.format = format;
  info.sample_rate = 1e6;
  info.channels = channels;
  return info;
}

TEST(RawSource, StreamReadsFillTheBufferFromASlowWriter) {
  Pipe pipe;
  const auto data = counting_bytes(8 * 1000 + 8 * 3);  // 1003 cf32 samples
  std::thread writer([&] {
    // Pieces of 5 bytes cut samples in the middle: the source must put them back together.
    for (std::size_t i = 0; i < data.size(); i += 5) {
      const std::size_t n = std::min<std::size_t>(5, data.size() - i);
      ASSERT_EQ(::write(pipe.write_end, data.data() + i, n), static_cast<ssize_t>(n));
      if (i % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    pipe.close_write();
  });
  RawSource source(pipe.take_read(), true, "stdin", stream_info(SampleFormat::cf32));
  EXPECT_FALSE(source.info().length.has_value());
  std::vector<std::byte> buffer(8 * 500);
  std::vector<std::byte> got;
  std::vector<std::size_t> counts;
  while (const std::size_t n = source.read(buffer.data(), 500)) {
    counts.push_back(n);
    got.insert(got.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n * 8));
  }
  writer.join();
  EXPECT_EQ(counts, (std::vector<std::size_t>{500, 500, 3}));
  EXPECT_EQ(got, data);
}

TEST(RawSource, StreamEndingMidSampleIsReportedAfterTheWholeSamples) {
  Pipe pipe;
  const auto data = counting_bytes(4 * 10 + 3);  // ci16: 10 samples and 3 stray bytes
  ASSERT_EQ(::write(pipe.write_end, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  pipe.close_write();
  RawSource source(pipe.take_read(), true, "stdin", stream_info(SampleFormat::ci16));
  std::vector<std::byte> buffer(4 * 100);
  EXPECT_EQ(source.read(buffer.data(), 100), 10u);
  EXPECT_EQ(std::memcmp(buffer.data(), data.data(), 40), 0);
  const std::string message = error_message<InputError>([&] { source.read(buffer.data(), 100); });
  EXPECT_EQ(message, "stdin: input ended in the middle of a sample (3 stray bytes)");
}

TEST(RawSource, StreamWithOnlyAPartialSampleFailsAtOnce) {
  Pipe pipe;
  ASSERT_EQ(::write(pipe.write_end, "abc", 3), 3);
  pipe.close_write();
  RawSource source(pipe.take_read(), true, "stdin", stream_info(SampleFormat::cf32));
  std::vector<std::byte> buffer(8 * 4);
  EXPECT_EQ(error_message<InputError>([&] { source.read(buffer.data(), 4); }),
            "stdin: input ended in the middle of a sample (3 stray bytes)");
}

TEST(RawSource, InterruptMakesAWaitingReadReturn) {
  Pipe pipe;  // nothing is ever written; the write end stays open, so reads would wait forever
  RawSource source(pipe.take_read(), true, "stdin", stream_info(SampleFormat::cf32));
  // Half a sample arrives: it must not come out as a sample.
  ASSERT_EQ(::write(pipe.write_end, "1234", 4), 4);
  std::size_t got = 99;
  const auto start = std::chrono::steady_clock::now();
  std::thread reader([&] {
    std::vector<std::byte> buffer(8 * 16);
    got = source.read(buffer.data(), 16);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  source.interrupt();
  reader.join();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got, 0u);
  EXPECT_GE(waited, std::chrono::milliseconds(150));
  EXPECT_LT(waited, std::chrono::seconds(2));
}

TEST(RawSource, RegularFileOnAnFdHasItsLengthFromThePosition) {
  ScratchDir dir;
  const auto data = counting_bytes(100);
  write_file(dir.file("x"), data);
  const int fd = ::open(dir.file("x").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::lseek(fd, 20, SEEK_SET), 20);  // like stdin redirected from a file, part read
  RawSource source(fd, true, "stdin", stream_info(SampleFormat::ci16));
  EXPECT_EQ(source.info().length, 20u);
  EXPECT_EQ(read_all(source, 7), std::vector<std::byte>(data.begin() + 20, data.end()));

  const int odd = ::open(dir.file("x").c_str(), O_RDONLY);
  ASSERT_EQ(::lseek(odd, 21, SEEK_SET), 21);
  const std::string message = error_message<InputError>(
      [&] { RawSource s(odd, true, "stdin", stream_info(SampleFormat::ci16)); });
  EXPECT_CONTAINS(message, "stdin: 79 bytes is not a whole number of samples");
}

TEST(RawSource, OpenSourceTakesRawFilesAndStdin) {
  ScratchDir dir;
  write_file(dir.file("x.cu8"), counting_bytes(64));
  EXPECT_EQ(source_kind_name(dir.file("x.cu8")), "raw");
  EXPECT_EQ(source_kind_name("-"), "stdin");
  auto source = open_source(dir.file("x.cu8"), with_rate(2.4e6));
  EXPECT_EQ(source->info().format, SampleFormat::cu8);
  EXPECT_EQ(source->info().length, 32u);
  EXPECT_EQ(source->describe(), dir.file("x.cu8"));

  SourceOptions stdin_options = with_rate(1e3);
  stdin_options.format = SampleFormat::cf32;
  auto in = open_source("-", stdin_options);
  EXPECT_EQ(in->describe(), "stdin");
  EXPECT_NE(dynamic_cast<RawSource*>(in.get()), nullptr);
  const nlohmann::json d = describe_input(dir.file("x.cu8"), with_rate(2.4e6));
  EXPECT_EQ(d["container"], "raw");
  EXPECT_EQ(d["file_size"], 64);
  EXPECT_EQ(d["length_samples"], 32);
}

}  // namespace
}  // namespace prism
