// SampleSink: where time-domain samples go (a SigMF recording, a WAV/FLAC file, audio
// playback). Same life cycle as RowSink: begin, write in order, then finish or abort; files are
// written under a temporary name and renamed into place on finish().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pipeline/stream_info.hpp"

namespace prism {

class SampleSink {
 public:
  virtual ~SampleSink() = default;
  // Opens the output for a stream described by `info` (its format is what write() receives).
  // Throws InputError (path and reason) when it cannot be created, UsageError when the
  // output format cannot hold this stream (e.g. complex samples into WAV).
  virtual void begin(const StreamInfo& info) = 0;
  // `samples` samples per channel, interleaved, in info.format.
  virtual void write(const std::byte* data, std::size_t samples) = 0;
  // complete=false: interrupted; commit what arrived, marked incomplete where possible.
  virtual void finish(bool complete) = 0;
  virtual void abort() noexcept = 0;
  virtual std::uint64_t samples_written() const = 0;
  virtual std::string describe() const = 0;
};

}  // namespace prism
