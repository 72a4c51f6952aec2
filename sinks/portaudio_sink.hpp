// PortAudioSink: audio playback through PortAudio, as a SampleSink. It takes f32, i16 or real
// generator output of any rate the device accepts, converts to float and writes with PortAudio's
// blocking API (the sink's thread waits for the device, which paces the caller at real time).
//
// Output spec: "audio:" (default output; JACK's when a JACK server runs), "audio:NAME" (name
// fragment) or "audio:INDEX", as for input (sources/portaudio_source.hpp).
//
// Underflows (the device ran dry because write() came late) are counted, not fatal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/sample_sink.hpp"

namespace prism {

class PortAudioSink final : public SampleSink {
 public:
  // device: "" (default), a name fragment or an index. frames_per_buffer: 0 = PortAudio's choice.
  explicit PortAudioSink(std::string device, unsigned frames_per_buffer = 0);
  ~PortAudioSink() override;
  PortAudioSink(const PortAudioSink&) = delete;
  PortAudioSink& operator=(const PortAudioSink&) = delete;

  // Opens and starts the stream. Throws InputError ("audio:NAME: reason") when the device is
  // missing or refuses the stream; UsageError for complex or 8-bit formats.
  void begin(const StreamInfo& info) override;
  void write(const std::byte* data, std::size_t samples) override;
  // Lets the queued audio play out, then closes the stream.
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t samples_written() const override { return written_; }
  std::string describe() const override;

  // Times the device ran dry between writes (PortAudio's output underflow reports).
  std::uint64_t underflows() const { return underflows_; }

 private:
  void close() noexcept;

  std::string device_;
  unsigned frames_per_buffer_ = 0;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StreamInfo info_;
  std::vector<float> converted_;
  std::uint64_t written_ = 0;
  std::uint64_t underflows_ = 0;
  std::string description_;
};

}  // namespace prism
