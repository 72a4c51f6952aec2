// Raw binary samples from files and stdin (see raw_file.hpp).
#include "sources/raw_file.hpp"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"

namespace prism {

namespace {

// How long a stream read waits in poll() before it looks at the interrupt flag again: the
// longest a stop waits on a silent pipe.
constexpr int kPollInterval_ms = 50;

// The most channels an interleaved raw stream may claim; more is a typo, not a recording.
constexpr unsigned kMaxChannels = 65536;

}  // namespace

StreamInfo raw_stream_info(const std::string& display_name, std::string_view path,
                           const SourceOptions& options) {
  StreamInfo info;
  if (options.format) {
    info.format = *options.format;
  } else if (const auto from_extension = raw_format_from_extension(path)) {
    info.format = *from_extension;
  } else {
    throw UsageError(options.name("format") + " is required for raw input " + display_name +
                     " (or an extension that names it: " + raw_extensions_help() + ")");
  }
  if (!options.sample_rate) throw UsageError(options.name("sample_rate") + " is required for raw input " + display_name);
  if (!(*options.sample_rate > 0.0) || !std::isfinite(*options.sample_rate))
    throw UsageError(options.name("sample_rate") + " must be a number of Hz > 0 (got " +
                     number_text(*options.sample_rate) + ") for raw input " + display_name);
  if (options.channels < 1 || options.channels > kMaxChannels)
    throw UsageError(options.name("channels") + " must be between 1 and " + std::to_string(kMaxChannels) +
                     " (got " + std::to_string(options.channels) + ")");
  if (!std::isfinite(options.center_frequency))
    throw UsageError(options.name("center_frequency") + " must be a finite number of Hz");
  info.sample_rate = *options.sample_rate;
  info.channels = options.channels;
  info.center_frequency = options.center_frequency;
  info.live = false;
  return info;
}

std::unique_ptr<RawSource> RawSource::open_file(const std::string& path,
                                                const SourceOptions& options) {
  // Options first: a missing --rate is the user's first problem, whatever the file holds.
  StreamInfo info = raw_stream_info(path, path, options);
  OpenedInput input = open_input_file(path);
  return std::make_unique<RawSource>(input.fd.release(), true, path, info, options.truncation,
                                     options.big_endian);
}

std::unique_ptr<RawSource> RawSource::open_stdin(const SourceOptions& options) {
  StreamInfo info = raw_stream_info("- (stdin)", "", options);
  return std::make_unique<RawSource>(STDIN_FILENO, false, "stdin", info, options.truncation,
                                     options.big_endian);
}

RawSource::RawSource(int fd, bool owns_fd, std::string name, StreamInfo info, TruncationPolicy truncation,
                     bool big_endian)
    : fd_(fd), owns_fd_(owns_fd), name_(std::move(name)), info_(std::move(info)),
      truncation_policy_(std::move(truncation)), big_endian_(big_endian) {
  // Own the descriptor from here on, so a throw below does not leak it.
  FileDescriptor guard(owns_fd_ ? fd_ : -1);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw InputError(name_, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(name_, "is a directory, not a file");
  regular_ = S_ISREG(st.st_mode);
  const std::size_t frame = info_.frame_bytes();
  if (regular_) {
    const off_t position = ::lseek(fd_, 0, SEEK_CUR);
    const std::uint64_t start = position > 0 ? static_cast<std::uint64_t>(position) : 0;
    const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    start_offset_ = start;
    total_bytes_ = size > start ? size - start : 0;
    if (total_bytes_ % frame != 0) {  // the whole samples are the input (see TruncationPolicy)
      truncation_policy_.apply(name_, not_whole_samples_reason(total_bytes_, frame, info_.channels,
                                                               format_name(info_.format)));
      total_bytes_ -= total_bytes_ % frame;
    }
    remaining_bytes_ = total_bytes_;
    info_.length = total_bytes_ / frame;
    reader_ = std::make_unique<ParallelFileReader>(fd_, name_);
  } else {
    info_.length.reset();
    carry_.resize(frame);
  }
  guard.release();
}

RawSource::~RawSource() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

std::optional<std::uint64_t> RawSource::size_bytes() const {
  if (!regular_) return std::nullopt;
  return total_bytes_;
}

std::size_t RawSource::read(std::byte* dst, std::size_t max_samples) {
  const std::size_t samples = read_stored(dst, max_samples);
  if (big_endian_) {
    const std::size_t width = component_bytes(info_.format);
    swap_byte_order(dst, samples * info_.frame_bytes() / width, width);
  }
  return samples;
}

std::size_t RawSource::read_stored(std::byte* dst, std::size_t max_samples) {
  const std::size_t frame = info_.frame_bytes();
  const std::size_t samples = std::min(max_samples, std::numeric_limits<std::size_t>::max() / frame);
  const std::size_t wanted = samples * frame;
  if (!regular_) return read_stream(dst, wanted);

  const std::size_t bytes =
      static_cast<std::size_t>(std::min<std::uint64_t>(wanted, remaining_bytes_));
  if (bytes == 0) return 0;
  const std::size_t got = reader_->read_at(dst, bytes, start_offset_ + (total_bytes_ - remaining_bytes_));
  if (got != bytes)
    throw InputError(name_, "ended after " + std::to_string(total_bytes_ - remaining_bytes_ + got) +
                                " bytes, " + std::to_string(total_bytes_) +
                                " expected (did the file shrink while it was read?)");
  remaining_bytes_ -= got;
  return got / frame;
}

bool RawSource::start_at(std::uint64_t sample) {
  if (!regular_) return false;
  const std::uint64_t skipped = std::min<std::uint64_t>(sample, total_bytes_ / info_.frame_bytes()) * info_.frame_bytes();
  remaining_bytes_ = total_bytes_ - skipped;
  return true;
}

bool RawSource::wait_readable() {
  pollfd pfd{fd_, POLLIN, 0};
  while (!interrupted_.load(std::memory_order_relaxed)) {
    const int ready = ::poll(&pfd, 1, kPollInterval_ms);
    if (ready > 0) return true;  // data, end of input (POLLHUP) or an error: read() tells which
    if (ready < 0 && errno != EINTR) throw InputError(name_, std::strerror(errno));
  }
  return false;
}

std::size_t RawSource::read_stream(std::byte* dst, std::size_t bytes) {
  const std::size_t frame = info_.frame_bytes();
  if (ended_) {
    if (stray_bytes_at_end_ != 0) {
      const std::size_t stray = stray_bytes_at_end_;
      stray_bytes_at_end_ = 0;
      truncation_policy_.apply(name_, "input ended in the middle of a sample (" + std::to_string(stray) +
                                          " stray bytes)");
    }
    return 0;
  }
  if (bytes == 0) return 0;

  std::size_t have = std::min(carry_bytes_, bytes);
  std::memcpy(dst, carry_.data(), have);
  carry_bytes_ = 0;

  while (have < bytes) {
    if (!wait_readable()) break;
    const ssize_t got = ::read(fd_, dst + have, std::min<std::size_t>(bytes - have, 0x7ffff000));
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw InputError(name_, std::strerror(errno));
    }
    if (got == 0) {
      ended_ = true;
      break;
    }
    have += static_cast<std::size_t>(got);
  }

  const std::size_t partial = have % frame;
  if (partial != 0) {
    if (ended_) {
      stray_bytes_at_end_ = partial;
      // Nothing whole to hand out first: report at once rather than after a read of 0.
      if (have < frame) return read_stream(dst, bytes);
    } else {
      std::memcpy(carry_.data(), dst + have - partial, partial);
      carry_bytes_ = partial;
    }
  }
  return have / frame;
}

}  // namespace prism
