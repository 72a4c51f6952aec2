// PortAudioSink (see portaudio_sink.hpp).
#include "sinks/portaudio_sink.hpp"

#include <cstring>

#include <portaudio.h>

#include "pipeline/errors.hpp"
#include "sources/portaudio_source.hpp"

namespace prism {

struct PortAudioSink::Impl {
  PortAudioSession session;
  PaStream* stream = nullptr;
};

PortAudioSink::PortAudioSink(std::string device, unsigned frames_per_buffer)
    : device_(std::move(device)), frames_per_buffer_(frames_per_buffer) {}

PortAudioSink::~PortAudioSink() { close(); }

void PortAudioSink::begin(const StreamInfo& info) {
  const std::string where = "audio:" + device_;
  if (info.format != SampleFormat::f32 && info.format != SampleFormat::i16)
    throw UsageError(where + ": audio playback takes real f32 or i16 samples, not " +
                     std::string(format_name(info.format)));
  impl_ = std::make_unique<Impl>();
  const int device = find_audio_device(device_, AudioDirection::output);
  const PaDeviceInfo* dev = Pa_GetDeviceInfo(device);
  if (static_cast<int>(info.channels) > dev->maxOutputChannels)
    throw InputError(where, "device [" + std::to_string(device) + "] " + dev->name + " has " +
                                std::to_string(dev->maxOutputChannels) + " output channel(s), the stream " +
                                std::to_string(info.channels));
  PaStreamParameters out{};
  out.device = device;
  out.channelCount = static_cast<int>(info.channels);
  out.sampleFormat = paFloat32;
  out.suggestedLatency = dev->defaultHighOutputLatency;
  const PaError err = Pa_OpenStream(&impl_->stream, nullptr, &out, info.sample_rate,
                                    frames_per_buffer_ ? frames_per_buffer_ : paFramesPerBufferUnspecified,
                                    paNoFlag, nullptr, nullptr);
  if (err != paNoError) {
    impl_->stream = nullptr;
    throw InputError(where, "cannot open device [" + std::to_string(device) + "] " + dev->name +
                                " for " + std::to_string(info.channels) + " channel(s) at " +
                                std::to_string(info.sample_rate) + " Hz: " + Pa_GetErrorText(err));
  }
  const PaError started = Pa_StartStream(impl_->stream);
  if (started != paNoError)
    throw InputError(where, std::string("cannot start playback: ") + Pa_GetErrorText(started));
  info_ = info;
  const PaHostApiInfo* api = Pa_GetHostApiInfo(dev->hostApi);
  description_ = "audio:[" + std::to_string(device) + "] " + dev->name + " (" + (api ? api->name : "?") + ")";
}

void PortAudioSink::write(const std::byte* data, std::size_t samples) {
  if (!impl_ || impl_->stream == nullptr) throw std::logic_error("PortAudioSink::write before begin");
  const std::size_t values = samples * info_.channels;
  const float* frames = reinterpret_cast<const float*>(data);
  if (info_.format == SampleFormat::i16) {
    converted_.resize(values);
    for (std::size_t i = 0; i < values; ++i) {
      std::int16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      converted_[i] = static_cast<float>(v) / 32768.0f;
    }
    frames = converted_.data();
  }
  const PaError err = Pa_WriteStream(impl_->stream, frames, static_cast<unsigned long>(samples));
  if (err == paOutputUnderflowed)
    ++underflows_;
  else if (err != paNoError)
    throw InputError("audio:" + device_, std::string("playback failed: ") + Pa_GetErrorText(err));
  written_ += samples;
}

void PortAudioSink::finish(bool) {
  if (impl_ && impl_->stream != nullptr) Pa_StopStream(impl_->stream);  // plays out what is queued
  close();
}

void PortAudioSink::abort() noexcept {
  if (impl_ && impl_->stream != nullptr) Pa_AbortStream(impl_->stream);
  close();
}

void PortAudioSink::close() noexcept {
  if (impl_ && impl_->stream != nullptr) {
    Pa_CloseStream(impl_->stream);
    impl_->stream = nullptr;
  }
  impl_.reset();
}

std::string PortAudioSink::describe() const {
  return description_.empty() ? "audio:" + device_ : description_;
}

}  // namespace prism
