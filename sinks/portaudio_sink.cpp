// PortAudioSink (see portaudio_sink.hpp): the ring, the device callback, pacing and draining.
#include "sinks/portaudio_sink.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include <portaudio.h>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "sources/portaudio_source.hpp"

namespace prism {

namespace {

using Clock = std::chrono::steady_clock;
// A device that takes nothing for this long is gone (JACK server stopped, device unplugged).
constexpr auto kStallLimit = std::chrono::seconds(2);

}  // namespace

struct PortAudioSink::Impl {
  PortAudioSession session;
  PaStream* stream = nullptr;
  bool started = false;
  std::size_t channels = 1;

  // The ring: write() fills it, the callback empties it. Positions count floats since the start
  // and only grow; each side owns one of them.
  std::vector<float> ring;
  std::atomic<std::uint64_t> write_position{0};
  std::atomic<std::uint64_t> read_position{0};
  // Set by finish(): the ring running dry now is the end of the sound, not an underflow.
  std::atomic<bool> draining{false};
  // Set while the producer pauses on purpose (set_idle): the ring running dry is no underflow.
  std::atomic<bool> idle{false};
  std::atomic<std::uint64_t> underflows{0};
  std::atomic<std::uint64_t> host_underflows{0};

  static int callback(const void*, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*,
                      PaStreamCallbackFlags flags, void* user) {
    auto* self = static_cast<Impl*>(user);
    auto* out = static_cast<float*>(output);
    const std::size_t wanted = frames * self->channels;
    const std::uint64_t r = self->read_position.load(std::memory_order_relaxed);
    const std::uint64_t w = self->write_position.load(std::memory_order_acquire);
    // Whole frames only: write() may have stored part of a frame so far, and taking it would
    // shift every later frame's channels.
    const std::size_t available = static_cast<std::size_t>((w - r) / self->channels * self->channels);
    const std::size_t n = std::min(wanted, available);
    const std::size_t capacity = self->ring.size();
    const std::size_t start = r % capacity;
    const std::size_t first = std::min(n, capacity - start);
    std::memcpy(out, self->ring.data() + start, first * sizeof(float));
    if (first < n) std::memcpy(out + first, self->ring.data(), (n - first) * sizeof(float));
    if (n < wanted) std::fill(out + n, out + wanted, 0.0f);
    self->read_position.store(r + n, std::memory_order_release);
    if (n < wanted && !self->draining.load(std::memory_order_acquire) && !self->idle.load(std::memory_order_relaxed))
      self->underflows.fetch_add(1, std::memory_order_relaxed);
    if ((flags & paOutputUnderflow) != 0) self->host_underflows.fetch_add(1, std::memory_order_relaxed);
    return paContinue;
  }
};

PortAudioSink::PortAudioSink(std::string device, unsigned frames_per_buffer, double ring_seconds, WhenFull when_full)
    : device_(std::move(device)), frames_per_buffer_(frames_per_buffer), ring_seconds_(ring_seconds),
      when_full_(when_full) {}

PortAudioSink::~PortAudioSink() { close(); }

void PortAudioSink::begin(const PortDescription& input) {
  const StreamInfo& info = input.samples;
  const std::string where = audio_device_spec(device_);
  if (is_complex(info.format))
    throw UsageError(where + ": audio playback takes real samples, not " + std::string(format_name(info.format)));
  impl_ = std::make_unique<Impl>();
  const int device = find_audio_device(device_, AudioDirection::output);
  const PaDeviceInfo* dev = Pa_GetDeviceInfo(device);
  if (static_cast<int>(info.channels) > dev->maxOutputChannels)
    throw InputError(where, "device [" + std::to_string(device) + "] " + dev->name + " has " +
                                std::to_string(dev->maxOutputChannels) + " output channel(s), the stream " +
                                std::to_string(info.channels));
  impl_->channels = info.channels;
  const std::size_t ring_frames = std::max<std::size_t>(
      {static_cast<std::size_t>(ring_seconds_ * info.sample_rate), std::size_t{8} * frames_per_buffer_, 4096});
  impl_->ring.assign(ring_frames * info.channels, 0.0f);

  PaStreamParameters out{};
  out.device = device;
  out.channelCount = static_cast<int>(info.channels);
  out.sampleFormat = paFloat32;
  out.suggestedLatency = dev->defaultHighOutputLatency;
  const PaError err = Pa_OpenStream(&impl_->stream, nullptr, &out, info.sample_rate,
                                    frames_per_buffer_ ? frames_per_buffer_ : paFramesPerBufferUnspecified,
                                    paNoFlag, &Impl::callback, impl_.get());
  if (err != paNoError) {
    impl_->stream = nullptr;
    throw InputError(where, "cannot open device [" + std::to_string(device) + "] " + dev->name +
                                " for " + std::to_string(info.channels) + " channel(s) at " +
                                number_text(info.sample_rate) + " Hz: " + Pa_GetErrorText(err));
  }
  info_ = info;
  const PaHostApiInfo* api = Pa_GetHostApiInfo(dev->hostApi);
  description_ = "audio:[" + std::to_string(device) + "] " + dev->name + " (" + (api ? api->name : "?") + ")";
}

void PortAudioSink::start_stream() {
  const PaError started = Pa_StartStream(impl_->stream);
  if (started != paNoError)
    throw InputError(audio_device_spec(device_),
                     std::string("cannot start playback: ") + Pa_GetErrorText(started));
  impl_->started = true;
}

void PortAudioSink::wait_for_room_or_drain(std::uint64_t position) {
  std::uint64_t last_read = impl_->read_position.load(std::memory_order_acquire);
  auto last_progress = Clock::now();
  while (true) {
    const std::uint64_t r = impl_->read_position.load(std::memory_order_acquire);
    if (r >= position) return;
    const auto now = Clock::now();
    if (r != last_read) {
      last_read = r;
      last_progress = now;
    } else if (now - last_progress > kStallLimit) {
      throw InputError(audio_device_spec(device_), "the device stopped taking samples (" +
                                                std::string(Pa_IsStreamActive(impl_->stream) == 1 ? "stream active"
                                                                                                 : "stream stopped") +
                                                ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void PortAudioSink::write(const Chunk& chunk) {
  const std::byte* data = chunk.data;
  const std::size_t samples = chunk.items;
  if (!impl_ || impl_->stream == nullptr) throw std::logic_error("PortAudioSink::write before begin");
  const std::size_t values = samples * info_.channels;
  const float* floats = reinterpret_cast<const float*>(data);
  if (info_.format != SampleFormat::f32) {
    // Integers (sound files' PCM travels as stored) scaled to [-1, 1) as format.hpp scales them.
    converted_.resize(values);
    convert_to_float(info_.format, data, values, converted_.data());
    floats = converted_.data();
  }
  Impl& s = *impl_;
  const std::size_t capacity = s.ring.size();
  if (when_full_ == WhenFull::drop) {
    write_or_drop(floats, samples);
    return;
  }
  std::size_t done = 0;
  while (done < values) {
    const std::uint64_t w = s.write_position.load(std::memory_order_relaxed);
    const std::uint64_t r = s.read_position.load(std::memory_order_acquire);
    const std::size_t room = capacity - static_cast<std::size_t>(w - r);
    if (room == 0) {
      if (!s.started) {
        start_stream();  // the ring is full: enough queued that playback starts without a gap
        continue;
      }
      wait_for_room_or_drain(w - capacity + capacity / 4);  // a quarter free, not a sample at a time
      continue;
    }
    const std::size_t n = std::min(room, values - done);
    const std::size_t start = w % capacity;
    const std::size_t first = std::min(n, capacity - start);
    std::memcpy(s.ring.data() + start, floats + done, first * sizeof(float));
    if (first < n) std::memcpy(s.ring.data(), floats + done + first, (n - first) * sizeof(float));
    s.write_position.store(w + n, std::memory_order_release);
    done += n;
  }
  written_ += samples;
}

void PortAudioSink::write_or_drop(const float* floats, std::size_t frames) {
  Impl& s = *impl_;
  const std::size_t capacity = s.ring.size();
  const std::uint64_t w = s.write_position.load(std::memory_order_relaxed);
  const std::uint64_t r = s.read_position.load(std::memory_order_acquire);
  const std::size_t room_frames = (capacity - static_cast<std::size_t>(w - r)) / s.channels;
  const std::size_t kept = std::min(room_frames, frames);
  const std::size_t n = kept * s.channels;
  const std::size_t start = w % capacity;
  const std::size_t first = std::min(n, capacity - start);
  std::memcpy(s.ring.data() + start, floats, first * sizeof(float));
  if (first < n) std::memcpy(s.ring.data(), floats + first, (n - first) * sizeof(float));
  s.write_position.store(w + n, std::memory_order_release);
  written_ += kept;
  dropped_.fetch_add(frames - kept, std::memory_order_relaxed);
  // Half a ring queued: room both ways for the producer's clock and the device's to drift.
  if (!s.started && w + n >= capacity / 2) start_stream();
}

void PortAudioSink::finish(bool) {
  if (!impl_ || impl_->stream == nullptr) return;
  impl_->draining.store(true, std::memory_order_release);
  const std::uint64_t end = impl_->write_position.load(std::memory_order_relaxed);
  if (end > 0) {
    try {
      if (!impl_->started) start_stream();  // a sound shorter than the ring
      wait_for_room_or_drain(end);
    } catch (...) {
      abort();
      throw;
    }
  }
  if (impl_->started) Pa_StopStream(impl_->stream);  // returns once the host has played its buffers
  close();
}

void PortAudioSink::abort() noexcept {
  if (impl_ && impl_->stream != nullptr && impl_->started) Pa_AbortStream(impl_->stream);
  close();
}

void PortAudioSink::close() noexcept {
  if (impl_ && impl_->stream != nullptr) {
    Pa_CloseStream(impl_->stream);
    impl_->stream = nullptr;
  }
  // The counters outlive the stream: the summary reads them after finish().
}

std::uint64_t PortAudioSink::underflows() const {
  return impl_ ? impl_->underflows.load(std::memory_order_relaxed) : 0;
}

std::uint64_t PortAudioSink::host_underflows() const {
  return impl_ ? impl_->host_underflows.load(std::memory_order_relaxed) : 0;
}

std::uint64_t PortAudioSink::frames_played() const {
  return impl_ ? impl_->read_position.load(std::memory_order_relaxed) / impl_->channels : 0;
}

void PortAudioSink::set_idle(bool idle) {
  if (impl_) impl_->idle.store(idle, std::memory_order_relaxed);
}

std::vector<Counter> PortAudioSink::extras() const {
  std::vector<Counter> counters = {{"underflows", underflows()}, {"host xruns", host_underflows()}};
  if (when_full_ == WhenFull::drop) counters.push_back({"dropped", dropped()});
  return counters;
}

double PortAudioSink::default_rate(const std::string& device) {
  PortAudioSession session;
  return Pa_GetDeviceInfo(find_audio_device(device, AudioDirection::output))->defaultSampleRate;
}

std::string PortAudioSink::describe() const {
  return description_.empty() ? "audio:" + device_ : description_;
}

}  // namespace prism
