// PortAudioSource: live input from an audio device through PortAudio (ALSA, JACK, PulseAudio,
// whatever host APIs the PortAudio build has). Also the audio device helpers shared by the
// playback sink and `prism devices`: opening PortAudio quietly, finding a device by name or
// index, listing devices.
//
// Input spec (the CLI's INPUT argument):
//   audio:          the default input device (JACK's when a JACK server runs, since someone
//                   who started one wants it; else PortAudio's default; else the first device
//                   with inputs)
//   audio:NAME      the first input device whose name contains NAME (case-insensitive), e.g.
//                   audio:system (JACK) or audio:pulse
//   audio:INDEX     the device with that index in `prism devices`
//
// Threads: PortAudio calls the stream callback on its own (real-time) thread. The callback only
// copies samples into a single-producer single-consumer ring and counts what did not fit
// (overflow); it never locks or allocates. read() takes samples out of the ring on the
// pipeline's source thread and waits (polling in 1 ms steps) while the ring is empty.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/source.hpp"
#include "pipeline/stream_info.hpp"

namespace prism {

// Holds PortAudio initialised while it lives (Pa_Initialize counts nested calls). The probing
// noise some host APIs (ALSA, JACK) print on stderr while initialising is suppressed.
class PortAudioSession {
 public:
  PortAudioSession();  // throws InputError("audio", reason) when PortAudio cannot start
  ~PortAudioSession();
  // Leaves PortAudio initialised at destruction: Pa_Terminate closes the open streams, and the
  // close of a stream whose device hung waits for ever.
  void abandon() { abandoned_ = true; }
  PortAudioSession(const PortAudioSession&) = delete;
  PortAudioSession& operator=(const PortAudioSession&) = delete;

 private:
  bool abandoned_ = false;
};

struct AudioDeviceEntry {
  int index = -1;
  std::string name;
  std::string host_api;
  int max_input_channels = 0;
  int max_output_channels = 0;
  double default_sample_rate = 0;
  bool default_input = false;
  bool default_output = false;
};

// Every device PortAudio sees (needs a live PortAudioSession).
std::vector<AudioDeviceEntry> list_audio_devices();

enum class AudioDirection { input, output };

// The device `selector` names ("" = default, a name fragment, or an index), for `direction`.
// Throws InputError(audio_device_spec(selector), reason) listing the usable devices when none
// matches.
int find_audio_device(std::string_view selector, AudioDirection direction);

// How messages name the device `selector` picks: "audio:NAME" (or INDEX), "audio (default
// device)" for "" (rather than "audio:", which reads as "audio:: reason" in front of a reason).
std::string audio_device_spec(std::string_view selector);

// True for "audio" and "audio:...": the inputs this source takes.
bool is_audio_input(std::string_view input);

struct PortAudioInputOptions {
  std::string device;          // "" (default), a name fragment or an index
  double sample_rate = 0;      // Hz; 0 = the device's default rate
  unsigned channels = 0;       // 0 = min(2, the device's input channels)
  unsigned block_frames = 0;   // frames per callback; 0 = PortAudio's choice
  double center_frequency = 0; // Hz the samples are labelled with (an SDR's IQ through a sound card)
  double ring_seconds = 2.0;   // ring size: how long read() may fall behind before overflow
  std::string rate_name = "sample_rate";  // the rate as messages name it (--rate on the command line)
};

class PortAudioSource final : public Source {
 public:
  // Opens the input stream; the first read() starts it. Throws InputError ("audio:NAME:
  // reason") when the device is missing or refuses the rate/channel count (read() throws one
  // when the device will not start).
  explicit PortAudioSource(const PortAudioInputOptions& options);
  ~PortAudioSource() override;
  PortAudioSource(const PortAudioSource&) = delete;
  PortAudioSource& operator=(const PortAudioSource&) = delete;

  const StreamInfo& info() const override { return info_; }
  // Returns as soon as some samples are there (at most max_samples), 0 only after interrupt().
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  // Makes a read() that is waiting now return 0. A later read() waits again (the viewer
  // restarts its pipeline on the same source when the FFT size changes).
  void interrupt() override;
  // Samples per channel the callback could not store because the ring was full.
  std::uint64_t dropped_samples() const override;
  // Input overflows the host API reported (paInputOverflow): samples lost before the callback.
  std::uint64_t overflows_of_unknown_length() const override;
  // "audio:[3] system (JACK Audio Connection Kit), 2 ch @ 48000 Hz"
  std::string describe() const override;

  // Samples per channel the device delivered (stored or dropped).
  std::uint64_t samples_captured() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StreamInfo info_;
};

}  // namespace prism
