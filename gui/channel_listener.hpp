// ChannelListener: the viewer's channel as a sink of the engine's graph. It takes the input's
// samples beside the spectrogram, runs them through a ChannelReceiver (shift, channel filter and
// decimation, demodulator, volume, resampling to the audio rate) and plays the audio through
// PortAudio (the default output device, at its default rate), and records on request: the audio
// to WAV and the channel's I/Q (cf32 at the channel rate, centred on the carrier) to SigMF, side
// by side under one name, prism-channel-<carrier Hz>-<local time>.{wav,sigmf-meta,sigmf-data},
// in the working folder. A recording holds one channel: a new carrier (or a chain at other
// rates) ends it, and new files start while recording is still asked for; a new bandwidth or
// demodulation at the same carrier and rates goes on in the same files.
//
// It lives as long as the engine, across the graph's runs (a new FFT size, a seek): the audio
// device stays open and the receiver keeps its state while the input and the channel are the
// same. begin() of a run on another input drops the receiver and ends a recording.
//
// Requests (listen on/off, the channel, volume, mute, squelch, recording) come from the render
// thread at any time; the sink thread takes the newest one before its next chunk. A new band at
// the same rates and demodulation replaces the running receiver's taps (ChannelReceiver::
// retune: exact, no gap); another demodulation, or a band that changes the rates, builds a new
// receiver there; volume, squelch and mute act on the running one. The audio is never waited for: what the device's ring has no room
// for (the input paced faster than the device, or a device that stalls) is dropped and counted,
// so that the spectra never wait on the sound.
//
// The channel's filter runs where the spectra are computed (set_gpu_device): on a GPU backend on
// its device, else on the CPU (ChannelReceiver).
//
// Errors (a channel that does not fit the input, no audio device, a recording that cannot be
// written, a GPU that fails) are kept in the status for the panel; they never end the graph's
// run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "channel_receiver.hpp"
#include "../pipeline/stage.hpp"

namespace prism::view {

struct ListenRequest {
  bool on = false;
  ChannelSettings channel;  // carrier in baseband Hz
  unsigned input_channel = 0;  // which channel of a multi-channel input
  bool mute = false;        // the audio goes on as silence (the recording keeps the sound)
  bool record = false;      // recording while set; each start makes new files
};

struct ListenStatus {
  bool on = false;              // a receiver is running
  std::string description;      // ChannelReceiver::describe(), and the device
  std::string error;            // why nothing is heard (empty when all is well)
  double level_db = -INFINITY;  // the channel's power, dB re full scale
  bool squelched = false;
  double audio_rate = 0;
  std::uint64_t audio_samples = 0;  // made by the receivers, since the start
  std::uint64_t dropped = 0;        // audio samples the device's ring had no room for
  std::uint64_t underflows = 0;     // times the device ran dry while listening
  std::uint64_t host_xruns = 0;     // the audio system's own glitches
  std::uint64_t receivers_built = 0;  // a receiver built for a channel
  std::uint64_t taps_replaced = 0;    // a new band by new taps in the running receiver
  std::string recording;            // the WAV being written; empty when not recording
  std::string iq_recording;         // the SigMF (.sigmf-meta) being written beside it
  std::uint64_t recorded_samples = 0;     // audio samples in the WAV
  std::uint64_t iq_recorded_samples = 0;  // I/Q samples in the SigMF
  std::vector<std::string> recordings;  // the files finished so far (WAV and .sigmf-meta)
};

class ChannelListener final : public Sink {
 public:
  ChannelListener();
  ~ChannelListener() override;

  void request(const ListenRequest& request);  // any thread
  ListenStatus status() const;                 // any thread
  // The input is paused on purpose: the device running dry is no underflow then.
  void set_idle(bool idle);
  // Where the channel's filter runs (ChannelReceiver): on this CUDA device, or the CPU
  // (nullopt). Set before a run, as the spectra's backend; a change builds a new receiver.
  void set_gpu_device(std::optional<int> device);

  bool accepts(PortKind kind) const override { return kind == PortKind::samples; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool) override {}
  void abort() noexcept override {}
  std::uint64_t items_written() const override { return items_; }
  std::string describe() const override { return "the viewer's channel"; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint64_t items_ = 0;
};

}  // namespace prism::view
