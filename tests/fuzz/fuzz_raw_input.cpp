// Fuzz target: raw sample input (sources/raw_file.hpp, pipeline/format.hpp): the format name
// as --format gives it, the path whose extension may name the format, the rate, channels and
// centre frequency options (raw_stream_info), then the samples, read as a regular file (from
// some start offset) or as a stream through a pipe, in reads of varying size, and converted
// to float. A raw input must deliver every whole sample and, for a stream, report stray bytes
// at the end only after them. Any exception but UsageError (the options) and InputError (the
// data) is a failure, as is a crash or a sanitizer report.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/raw_file.hpp"

namespace {

// A pipe holds this much without a reader; the data written to one is cut to it.
constexpr std::size_t kPipeBytes = 65536;

int file_holding(const std::vector<std::uint8_t>& data) {
  const int fd = ::memfd_create("prism-fuzz-raw", MFD_CLOEXEC);
  if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()))
    std::abort();
  return fd;
}

int pipe_holding(const std::vector<std::uint8_t>& data) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) std::abort();
  if (::fcntl(ends[1], F_SETPIPE_SZ, static_cast<int>(kPipeBytes)) < 0) std::abort();
  if (!data.empty() && ::write(ends[1], data.data(), data.size()) != static_cast<ssize_t>(data.size()))
    std::abort();
  ::close(ends[1]);
  return ends[0];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* input, std::size_t size) {
  FuzzedDataProvider provider(input, size);
  const std::string format_text = provider.ConsumeRandomLengthString(16);
  const std::string path = provider.ConsumeRandomLengthString(32);
  prism::SourceOptions options;
  const auto format = prism::parse_format(format_text);
  if (format && prism::parse_format(prism::format_name(*format)) != format) __builtin_trap();
  if (provider.ConsumeBool()) options.format = format;
  if (provider.ConsumeBool())
    options.sample_rate = std::bit_cast<double>(provider.ConsumeIntegral<std::uint64_t>());
  options.channels = provider.ConsumeIntegral<unsigned>();
  if (provider.ConsumeBool()) options.channels = 1 + options.channels % 8;
  options.center_frequency = std::bit_cast<double>(provider.ConsumeIntegral<std::uint64_t>());
  if (provider.ConsumeBool()) options.center_frequency = 0;
  const bool stream = provider.ConsumeBool();
  std::size_t read_samples = provider.ConsumeIntegralInRange<std::size_t>(1, 300);
  const std::size_t start = provider.ConsumeIntegral<std::uint8_t>();
  std::vector<std::uint8_t> data = provider.ConsumeRemainingBytes<std::uint8_t>();
  if (stream && data.size() > kPipeBytes) data.resize(kPipeBytes);

  prism::StreamInfo info;
  try {
    info = prism::raw_stream_info(path, path, options);
  } catch (const prism::UsageError&) {
    return 0;
  }
  const std::size_t frame = info.frame_bytes();
  read_samples = std::min(read_samples, std::max<std::size_t>(1, 65536 / frame));  // small buffers
  const std::size_t offset = stream ? 0 : std::min(start, data.size());
  try {
    const int fd = stream ? pipe_holding(data) : file_holding(data);
    if (!stream && ::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0) std::abort();
    prism::RawSource source(fd, true, path, info);
    const std::size_t bytes = data.size() - offset;
    if (!stream && *source.info().length != bytes / frame) __builtin_trap();
    std::vector<std::byte> block(read_samples * frame);
    std::vector<float> converted(read_samples * frame / prism::component_bytes(info.format));
    std::uint64_t total = 0;
    bool stray_reported = false;
    while (true) {
      std::size_t got = 0;
      try {
        got = source.read(block.data(), read_samples);
      } catch (const prism::InputError&) {
        // Stray bytes of a stream: reported once, after every whole sample.
        if (!stream || stray_reported || bytes % frame == 0 || total != bytes / frame) __builtin_trap();
        stray_reported = true;
        continue;
      }
      if (got == 0) break;
      if (got > read_samples) __builtin_trap();
      prism::convert_to_float(info.format, block.data(), got * frame / prism::component_bytes(info.format),
                              converted.data());
      total += got;
    }
    if (total != bytes / frame) __builtin_trap();
    if (stream && (bytes % frame != 0) != stray_reported) __builtin_trap();
  } catch (const prism::InputError&) {
    // A regular file that is not a whole number of samples.
    if (stream || (data.size() - offset) % frame == 0) __builtin_trap();
  }
  return 0;
}
