// PortAudioSource and the audio device helpers (see portaudio_source.hpp).
#include "sources/portaudio_source.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include <portaudio.h>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "sources/live_ring.hpp"
#include "sources/driver_call.hpp"
#include "sources/quiet_stderr.hpp"

namespace prism {

namespace {

// A started stream without a callback for this long has lost its device: every device calls
// back many times a second.
constexpr auto kHungStreamAfter = std::chrono::seconds(2);

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string device_list_text(AudioDirection direction) {
  std::ostringstream out;
  bool any = false;
  for (const AudioDeviceEntry& d : list_audio_devices()) {
    const int channels = direction == AudioDirection::input ? d.max_input_channels : d.max_output_channels;
    if (channels <= 0) continue;
    out << (any ? ", " : "") << "[" << d.index << "] " << d.name << " (" << d.host_api << ")";
    any = true;
  }
  return any ? out.str() : std::string("none");
}

}  // namespace

PortAudioSession::PortAudioSession() {
  // PortAudio lists the devices of every host API as it starts, JACK's among them (a client
  // opened and closed: see driver_call.hpp).
  const PaError err = call_driver("audio", "starting PortAudio (listing the audio devices)", DriverDeadline{},
                                  [] { return Pa_Initialize(); });
  if (err != paNoError) throw InputError("audio", std::string("PortAudio cannot start: ") + Pa_GetErrorText(err));
}

PortAudioSession::~PortAudioSession() {
  if (abandoned_) return;
  // Pa_Terminate closes the JACK host API's client: the close that can deadlock in libjack.
  try {
    call_driver("audio", "stopping PortAudio", DriverDeadline{}, [] { Pa_Terminate(); });
  } catch (const std::exception&) {
  }
}

std::vector<AudioDeviceEntry> list_audio_devices() {
  std::vector<AudioDeviceEntry> devices;
  const int count = Pa_GetDeviceCount();
  const PaDeviceIndex default_in = Pa_GetDefaultInputDevice();
  const PaDeviceIndex default_out = Pa_GetDefaultOutputDevice();
  for (int i = 0; i < count; ++i) {
    const PaDeviceInfo* info = Pa_GetDeviceInfo(i);
    if (info == nullptr) continue;
    const PaHostApiInfo* api = Pa_GetHostApiInfo(info->hostApi);
    devices.push_back({i, info->name ? info->name : "?", api ? api->name : "?",
                       info->maxInputChannels, info->maxOutputChannels, info->defaultSampleRate,
                       i == default_in, i == default_out});
  }
  return devices;
}

std::string audio_device_spec(std::string_view selector) {
  return selector.empty() ? std::string("audio (default device)") : "audio:" + std::string(selector);
}

bool is_audio_input(std::string_view input) {
  return input == "audio" || input.substr(0, 6) == "audio:";
}

int find_audio_device(std::string_view selector, AudioDirection direction) {
  const bool want_input = direction == AudioDirection::input;
  const std::string where = audio_device_spec(selector);
  const std::vector<AudioDeviceEntry> devices = list_audio_devices();
  auto usable = [&](const AudioDeviceEntry& d) {
    return (want_input ? d.max_input_channels : d.max_output_channels) > 0;
  };
  const char* what = want_input ? "input" : "output";

  if (selector.empty()) {
    // A running JACK server is the user's explicit choice of audio system: prefer it.
    const PaHostApiIndex jack = Pa_HostApiTypeIdToHostApiIndex(paJACK);
    if (jack >= 0) {
      const PaHostApiInfo* api = Pa_GetHostApiInfo(jack);
      const PaDeviceIndex d = want_input ? api->defaultInputDevice : api->defaultOutputDevice;
      if (d >= 0) return d;
    }
    const PaDeviceIndex d = want_input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
    if (d >= 0) return d;
    for (const auto& entry : devices)
      if (usable(entry)) return entry.index;
    throw InputError(where, std::string("no audio ") + what + " device found (PortAudio sees: " +
                                device_list_text(direction) + ")");
  }

  const std::string text(selector);
  if (std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    const int index = std::stoi(text);
    for (const auto& entry : devices) {
      if (entry.index != index) continue;
      if (!usable(entry))
        throw InputError(where, "device [" + text + "] " + entry.name + " has no " + what +
                                    " channels (" + what + " devices: " + device_list_text(direction) + ")");
      return index;
    }
    throw InputError(where, "there is no audio device with index " + text + " (" + what +
                                " devices: " + device_list_text(direction) + ")");
  }
  const std::string wanted = lower(text);
  for (const auto& entry : devices)
    if (usable(entry) && lower(entry.name).find(wanted) != std::string::npos) return entry.index;
  throw InputError(where, std::string("no audio ") + what + " device has '" + text +
                              "' in its name (" + what + " devices: " + device_list_text(direction) + ")");
}

// ---- the input stream ------------------------------------------------------------------------

struct PortAudioSource::Impl {
  PortAudioSession session;
  PaStream* stream = nullptr;
  // Started by the first read(), so that nothing piles up in the ring while the caller gets
  // ready (the viewer opens its window between opening the source and reading it). Only the
  // reading thread touches it; reads never overlap.
  bool started = false;
  std::string description;
  std::string where;        // audio_device_spec of the selector, for errors
  std::string device_text;  // "[3] system"

  std::unique_ptr<LiveRing> ring;  // the callback writes, read() reads
  std::atomic<std::uint64_t> overflow_frames{0};
  std::atomic<std::uint64_t> captured_frames{0};
  std::atomic<std::uint64_t> input_overflows{0};  // paInputOverflow flags seen
  // When the callback last ran (steady clock ticks): a started stream whose callbacks stopped
  // has lost its device or its server (a JACK server that died).
  std::atomic<std::chrono::steady_clock::rep> last_callback{0};

  static int callback(const void* input, void*, unsigned long frames,
                      const PaStreamCallbackTimeInfo*, PaStreamCallbackFlags flags, void* user) {
    auto* self = static_cast<Impl*>(user);
    self->last_callback.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                              std::memory_order_relaxed);
    self->captured_frames.fetch_add(frames, std::memory_order_relaxed);
    // The host dropped data before us; PortAudio does not say how much.
    if (flags & paInputOverflow) self->input_overflows.fetch_add(1, std::memory_order_relaxed);
    if (input == nullptr) return paContinue;
    // No room: this whole callback's worth is dropped, counted.
    if (!self->ring->write(input, frames)) self->overflow_frames.fetch_add(frames, std::memory_order_relaxed);
    return paContinue;
  }
};

PortAudioSource::PortAudioSource(const PortAudioInputOptions& options) : impl_(std::make_unique<Impl>()) {
  const std::string where = audio_device_spec(options.device);
  const int device = find_audio_device(options.device, AudioDirection::input);
  const PaDeviceInfo* dev = Pa_GetDeviceInfo(device);
  const PaHostApiInfo* api = Pa_GetHostApiInfo(dev->hostApi);
  const unsigned channels = options.channels != 0
                                ? options.channels
                                : static_cast<unsigned>(std::min(2, dev->maxInputChannels));
  if (static_cast<int>(channels) > dev->maxInputChannels)
    throw InputError(where, "device [" + std::to_string(device) + "] " + dev->name + " has " +
                                std::to_string(dev->maxInputChannels) + " input channel(s), " +
                                std::to_string(channels) + " requested");
  const double rate = options.sample_rate > 0 ? options.sample_rate : dev->defaultSampleRate;
  if (!(rate > 0)) throw InputError(where, "the device reports no sample rate; give " + options.rate_name);

  PaStreamParameters in{};
  in.device = device;
  in.channelCount = static_cast<int>(channels);
  in.sampleFormat = paFloat32;
  in.suggestedLatency = dev->defaultLowInputLatency;
  const PaError supported = Pa_IsFormatSupported(&in, nullptr, rate);
  if (supported != paFormatIsSupported)
    throw InputError(where, "device [" + std::to_string(device) + "] " + dev->name + " does not take " +
                                std::to_string(channels) + " channel(s) at " + number_text(rate) +
                                " Hz: " + Pa_GetErrorText(supported));

  const auto ring_frames = static_cast<std::size_t>(std::max(1.0, options.ring_seconds) * rate);
  impl_->ring = std::make_unique<LiveRing>(ring_frames, channels * sizeof(float));
  const unsigned long block = options.block_frames != 0 ? options.block_frames : paFramesPerBufferUnspecified;
  PaError err = with_quiet_stderr([&] {
    return Pa_OpenStream(&impl_->stream, &in, nullptr, rate, block, paNoFlag, &Impl::callback, impl_.get());
  });
  if (err != paNoError)
    throw InputError(where, std::string("cannot open device [") + std::to_string(device) + "] " +
                                dev->name + ": " + Pa_GetErrorText(err));
  impl_->where = where;
  impl_->device_text = std::string("[") + std::to_string(device) + "] " + dev->name;

  info_.format = SampleFormat::f32;
  info_.float_full_scale = true;  // PortAudio's float samples: ±1.0 is full scale
  info_.sample_rate = rate;
  info_.channels = channels;
  info_.live = true;
  info_.center_frequency = options.center_frequency;
  impl_->description = "audio:[" + std::to_string(device) + "] " + dev->name + " (" +
                       (api ? api->name : "?") + "), " + std::to_string(channels) + " ch @ " +
                       number_text(rate) + " Hz";
}

PortAudioSource::~PortAudioSource() {
  if (impl_->stream == nullptr) return;
  if (impl_->started) {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point last{Clock::duration(impl_->last_callback.load(std::memory_order_relaxed))};
    if (Clock::now() - last > kHungStreamAfter) {
      // The device stopped calling back (its JACK server died): stopping or closing the stream
      // would wait for a callback that never comes. Leave it, and the state its callback may
      // still touch, to the end of the process, reachable (not a leak).
      static std::mutex abandoned_mutex;
      static std::vector<std::unique_ptr<Impl>> abandoned;
      std::lock_guard<std::mutex> lock(abandoned_mutex);
      impl_->session.abandon();
      abandoned.push_back(std::move(impl_));
      return;
    }
    Pa_StopStream(impl_->stream);
  }
  Pa_CloseStream(impl_->stream);
}

std::size_t PortAudioSource::read(std::byte* dst, std::size_t max_samples) {
  Impl& s = *impl_;
  if (!s.started) {
    const PaError err = Pa_StartStream(s.stream);
    if (err != paNoError)
      throw InputError(s.where, "cannot start device " + s.device_text + ": " + Pa_GetErrorText(err));
    s.started = true;
  }
  return s.ring->read(dst, max_samples, [] {});
}

void PortAudioSource::interrupt() { impl_->ring->interrupt(); }

std::uint64_t PortAudioSource::dropped_samples() const {
  return impl_->overflow_frames.load(std::memory_order_relaxed);
}

std::uint64_t PortAudioSource::overflows_of_unknown_length() const {
  return impl_->input_overflows.load(std::memory_order_relaxed);
}

std::uint64_t PortAudioSource::samples_captured() const {
  return impl_->captured_frames.load(std::memory_order_relaxed);
}

std::string PortAudioSource::describe() const { return impl_->description; }

}  // namespace prism
