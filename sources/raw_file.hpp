// Raw binary samples: headerless files (rtl_sdr's .cu8, GNU Radio's .cfile, ...) and stdin.
// Nothing in the data says what it is, so the format comes from --format or the file's
// extension, the rate from --rate (no default: a guessed rate silently mislabels every axis),
// the channel count and centre frequency from their options.
//
// A regular file (also when it is stdin) has a known length. A pipe, terminal or socket is read
// until it ends; interrupt() makes a waiting read return. Input that ends in the middle of a
// sample goes to the TruncationPolicy (open_source.hpp): its whole samples are the input, or,
// strict, it is an error (for a stream, once the whole samples before it have been delivered).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/source.hpp"
#include "pipeline/stream_info.hpp"
#include "sources/input_file.hpp"
#include "sources/open_source.hpp"

namespace prism {

// The extensions that name a raw file's format: raw_format_from_extension (pipeline/format.hpp).

// The StreamInfo of raw input `display_name` from the options, the format falling back to the
// extension of `path`. Throws UsageError: "--rate is required for raw input <name>",
// "--format is required ...", and for out-of-range values.
StreamInfo raw_stream_info(const std::string& display_name, std::string_view path,
                           const SourceOptions& options);

class RawSource final : public Source {
 public:
  // Opens the raw file at `path`. Throws InputError (missing, directory, unreadable, not a
  // whole number of samples) and UsageError (see raw_stream_info).
  static std::unique_ptr<RawSource> open_file(const std::string& path,
                                              const SourceOptions& options);

  // Reads stdin (the input "-"); "stdin" in messages. Does not take ownership of fd 0.
  static std::unique_ptr<RawSource> open_stdin(const SourceOptions& options);

  // Reads samples described by `info` from `fd`, named `name` in messages. A regular file is
  // read from its current position to its end (that is its length); anything else is read as
  // a stream. Closes fd on destruction when `owns_fd`.
  // A partial sample at the end is handled by `truncation`.
  // `big_endian`: the components are stored big-endian and swapped after each read.
  RawSource(int fd, bool owns_fd, std::string name, StreamInfo info, TruncationPolicy truncation = {},
            bool big_endian = false);
  ~RawSource() override;
  RawSource(const RawSource&) = delete;
  RawSource& operator=(const RawSource&) = delete;

  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  bool start_at(std::uint64_t sample) override;
  void interrupt() override { interrupted_.store(true, std::memory_order_relaxed); }
  std::string describe() const override { return name_; }

  // Labels the stream with a centre frequency. Call before the run starts.
  void set_center_frequency(double hz) { info_.center_frequency = hz; }

  // Bytes of the input (regular files: from the start position), nullopt for streams.
  std::optional<std::uint64_t> size_bytes() const;

 private:
  // read() of the bytes as stored.
  std::size_t read_stored(std::byte* dst, std::size_t max_samples);
  // Reads up to `bytes` (whole frames) from a stream; returns whole samples read.
  std::size_t read_stream(std::byte* dst, std::size_t bytes);
  // Waits until fd is readable or interrupt() was called; false when interrupted.
  bool wait_readable();

  int fd_ = -1;
  bool owns_fd_ = false;
  std::string name_;
  StreamInfo info_;
  bool regular_ = false;
  std::uint64_t remaining_bytes_ = 0;  // regular files: bytes still to read
  std::uint64_t total_bytes_ = 0;      // regular files: bytes from the start position
  std::uint64_t start_offset_ = 0;     // regular files: where the samples start
  std::unique_ptr<ParallelFileReader> reader_;  // regular files
  // Streams: bytes of a sample cut by interrupt(), put in front of the next read.
  std::vector<std::byte> carry_;
  std::size_t carry_bytes_ = 0;
  // Streams: stray bytes found at the end, reported after the whole samples went out.
  std::size_t stray_bytes_at_end_ = 0;
  TruncationPolicy truncation_policy_;  // for a partial sample at the end
  bool ended_ = false;
  bool big_endian_ = false;
  std::atomic<bool> interrupted_{false};
};

}  // namespace prism
