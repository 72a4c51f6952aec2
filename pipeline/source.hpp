// Source: where samples come from (a file, the generator, stdin, an audio device, an SDR, a
// network stream). A source knows nothing of FFTs: it fills buffers with samples in its native
// format and says what they are (StreamInfo); a network stream may carry rows computed
// elsewhere instead (output()). Sources live in sources/; one file and one registration line
// each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "port.hpp"
#include "stream_info.hpp"

namespace prism {

class Source {
 public:
  virtual ~Source() = default;

  // What the stream holds. Valid from construction on; never changes during a run.
  virtual const StreamInfo& info() const = 0;
  // What its items are: samples as info() says (the default), or rows (a stream of spectra
  // computed elsewhere; their layout's stream is info()). read() counts these items.
  virtual PortDescription output() const { return PortDescription::of_samples(info()); }
  // Whether what it delivered cannot be read again (a device, a network stream): a run that it
  // fails keeps its outputs, marked incomplete. Live sources do.
  virtual bool delivers_once() const { return info().live; }
  // Whether items are lost while the run is late to read: a device goes on capturing into a
  // buffer of its own, which overflows. The run then never waits for a free chunk: it reads into
  // scratch and counts an overrun (live sources, the default). A live network input whose sender
  // queues for it (a ZeroMQ SUB: hwm= messages queue, then the publisher drops them, which the
  // offsets count, or waits, with subscribers=N) says false: the run waits for a chunk, as for a
  // file, and ZeroMQ's queue absorbs the delay.
  virtual bool overruns_when_late() const { return info().live; }
  // Whether it fails by itself after a wait of its own choosing without data (a network
  // input's timeout=): the default stall timeout of a live input is then not put over it.
  virtual bool has_own_timeout() const { return false; }

  // Reads up to `max_samples` samples per channel into `dst` (room for
  // max_samples * info().frame_bytes() bytes), interleaved by channel, native format,
  // little-endian. Returns how many were read; 0 means the input has ended. File sources fill
  // the buffer completely except at the end of input. Blocks until data is there (a live
  // source: until its device delivers). Throws InputError (path and reason) on bad input.
  virtual std::size_t read(std::byte* dst, std::size_t max_samples) = 0;

  // Moves to sample `sample` (per channel, from the start; below info().length) before the
  // first read, without reading what lies before it. False when the source cannot (a stream, a
  // device, the generator): the caller reads and discards instead.
  virtual bool start_at(std::uint64_t /*sample*/) { return false; }

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

// A source over another (a later start, a check on the first read, pacing): what it does not
// override is the inner source's, except start_at (positions are the wrapper's own).
class SourceWrapper : public Source {
 public:
  explicit SourceWrapper(std::unique_ptr<Source> inner) : inner_(std::move(inner)) {}
  const StreamInfo& info() const override { return inner_->info(); }
  PortDescription output() const override { return inner_->output(); }
  bool delivers_once() const override { return inner_->delivers_once(); }
  bool has_own_timeout() const override { return inner_->has_own_timeout(); }
  bool overruns_when_late() const override { return inner_->overruns_when_late(); }
  std::size_t read(std::byte* dst, std::size_t max_samples) override { return inner_->read(dst, max_samples); }
  void interrupt() override { inner_->interrupt(); }
  std::uint64_t dropped_samples() const override { return inner_->dropped_samples(); }
  std::uint64_t overflows_of_unknown_length() const override { return inner_->overflows_of_unknown_length(); }
  std::string describe() const override { return inner_->describe(); }

 protected:
  std::unique_ptr<Source> inner_;
};

// The stall timeout of a live input when the command line sets none (--stall-timeout): long
// enough for any device to deliver its first samples (an SDR's start can take seconds), short
// enough that a hung device does not hold a capture for long.
inline constexpr double kDefaultLiveStallTimeout_s = 10.0;

// How long a call into a device's driver may take while the device is listed, opened, set up or
// closed, when nothing says otherwise (sources/driver_call.hpp): some devices load firmware or
// an FPGA image when opened, which takes seconds.
inline constexpr double kDefaultDriverTimeout_s = 30.0;

// The stall timeout of a run of `source` when none is set: kDefaultLiveStallTimeout_s for a
// live input without a timeout of its own (Source::has_own_timeout), 0 (none) otherwise.
inline double default_stall_timeout_s(const Source& source) {
  return source.info().live && !source.has_own_timeout() ? kDefaultLiveStallTimeout_s : 0.0;
}

}  // namespace prism
