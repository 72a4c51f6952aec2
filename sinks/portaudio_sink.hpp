// PortAudioSink: audio playback through PortAudio, a sink of samples (`prism generate ... -o
// audio:`). It takes real samples of any format (integers scaled as format.hpp scales them) at
// any rate and channel count the device accepts.
//
// Output spec: "audio:" (default output; JACK's when a JACK server runs), "audio:NAME" (name
// fragment) or "audio:INDEX", as for input (sources/portaudio_source.hpp).
//
// Callback mode, not PortAudio's blocking API: PortAudio 19.6's JACK blocking layer assumes two
// channels per frame whatever the stream has, so a mono Pa_WriteStream through JACK reads past
// the caller's buffer and writes past its own (heap corruption). Here write() converts to float
// and puts the samples into a single-producer single-consumer ring, waiting while the ring is
// full, so the caller is paced by the device at real time. PortAudio's callback takes them out on
// its real-time thread, never locking or allocating; when the ring runs dry before finish() it
// plays silence and counts an underflow. The stream starts once the ring is full (or at finish()
// for short sounds), so playback does not begin with an underflow.
//
// Underflows (the device ran dry because write() came late) are counted, not fatal; so are the
// xruns the audio system reports of its own (PortAudio's output underflow flag: with JACK, any
// client anywhere missing a cycle). A device that stops taking samples for 2 s is an error.
//
// A producer that must never be held up (the viewer's channel, paced by its input) opens the
// sink with WhenFull::drop: write() then keeps what fits in the ring and counts the rest as
// dropped (whole frames), never waiting, and the device starts once the ring is half full, so
// that it has room both ways for the two clocks' drift. set_idle() tells it that the producer
// pauses on purpose (a paused file): the ring running dry then is no underflow.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/stage.hpp"

namespace prism {

class PortAudioSink final : public Sink {
 public:
  // What write() does when the ring has no room (see above).
  enum class WhenFull { wait, drop };

  // device: "" (default), a name fragment or an index. frames_per_buffer: 0 = PortAudio's choice.
  // ring_seconds: how much audio write() may queue ahead of the device.
  explicit PortAudioSink(std::string device, unsigned frames_per_buffer = 0, double ring_seconds = 0.25,
                         WhenFull when_full = WhenFull::wait);
  ~PortAudioSink() override;
  PortAudioSink(const PortAudioSink&) = delete;
  PortAudioSink& operator=(const PortAudioSink&) = delete;

  // Opens the stream (started by the first write that fills the ring). Throws InputError
  // ("audio:NAME: reason") when the device is missing or refuses the stream; UsageError for
  // complex or 8-bit formats.
  bool accepts(PortKind kind) const override { return kind == PortKind::samples; }
  void begin(const PortDescription& input) override;
  // Waits while the ring is full (WhenFull::drop: drops instead). Throws InputError when the
  // device stops taking samples.
  void write(const Chunk& chunk) override;
  // Lets the queued audio play out, then closes the stream.
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return written_; }
  // "underflows" and "host xruns" (below), and "dropped" with WhenFull::drop.
  std::vector<Counter> extras() const override;
  std::string describe() const override;

  // Times the device ran dry before the end because prism's ring was empty (silence played in
  // between): write() came late.
  std::uint64_t underflows() const;
  // Callbacks that came with PortAudio's output underflow flag: the host audio system missed a
  // deadline (an ALSA underrun, a JACK xrun), whoever's fault it was.
  std::uint64_t host_underflows() const;
  // WhenFull::drop: frames write() had no room for.
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  // The stream's rate (after begin()).
  double sample_rate() const { return info_.sample_rate; }
  // Frames the device has taken so far (silence it played for want of samples not included).
  std::uint64_t frames_played() const;
  // While idle the ring running dry is not an underflow (the producer pauses on purpose). Any
  // thread; before begin() it does nothing.
  void set_idle(bool idle);

  // The default sample rate of the output device `device` names ("" = the default device):
  // with JACK, the server's rate. Throws InputError as begin() does.
  static double default_rate(const std::string& device);

 private:
  void start_stream();
  // WhenFull::drop's write: what fits, the rest counted.
  void write_or_drop(const float* floats, std::size_t frames);
  // Waits until the callback has taken everything up to `position` (floats), or throws when it
  // makes no progress for 2 s.
  void wait_for_room_or_drain(std::uint64_t position);
  void close() noexcept;

  std::string device_;
  unsigned frames_per_buffer_ = 0;
  double ring_seconds_ = 0.25;
  WhenFull when_full_ = WhenFull::wait;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StreamInfo info_;
  std::vector<float> converted_;
  std::uint64_t written_ = 0;
  std::atomic<std::uint64_t> dropped_{0};
  std::string description_;
};

}  // namespace prism
