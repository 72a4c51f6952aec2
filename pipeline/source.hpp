// Source: where samples come from (a file, the generator, stdin, an audio device, an SDR).
// A source knows nothing of FFTs: it fills buffers with samples in its native format and
// says what they are (StreamInfo). Sources live in sources/; one file and one registration
// line each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "stream_info.hpp"

namespace prism {

class Source {
 public:
  virtual ~Source() = default;

  // What the stream holds. Valid from construction on; never changes during a run.
  virtual const StreamInfo& info() const = 0;

  // Reads up to `max_samples` samples per channel into `dst` (room for
  // max_samples * info().frame_bytes() bytes), interleaved by channel, native format,
  // little-endian. Returns how many were read; 0 means the input has ended. File sources fill
  // the buffer completely except at the end of input. Blocks until data is there (a live
  // source: until its device delivers). Throws InputError (path and reason) on bad input.
  virtual std::size_t read(std::byte* dst, std::size_t max_samples) = 0;

  // Asks a read() that is waiting (on a device or a pipe) to return soon; called from
  // another thread when the run stops. Sources whose reads never wait long ignore it.
  virtual void interrupt() {}

  // Samples the source itself had to drop before they reached read() (a live device whose
  // ring overflowed). The pipeline adds the ones it drops when no block is free.
  virtual std::uint64_t dropped_samples() const { return 0; }

  // Times the device reported losing samples without saying how many (an SDR driver's overflow
  // without time stamps, PortAudio's input overflow flag). Not in dropped_samples(): a count of
  // samples there would be a guess.
  virtual std::uint64_t overflows_of_unknown_length() const { return 0; }

  // A short name for messages and the run summary: the path, "generator", "stdin", ...
  virtual std::string describe() const = 0;
};

}  // namespace prism
