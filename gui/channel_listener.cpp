// ChannelListener (see channel_listener.hpp): requests, the receiver, the audio device and the
// recording, on the graph's sink thread.
#include "gui/channel_listener.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <future>

#include "pipeline/errors.hpp"
#include "pipeline/port.hpp"
#if PRISM_HAVE_PORTAUDIO
#include "sinks/portaudio_sink.hpp"
#endif
#if PRISM_HAVE_SNDFILE
#include "sinks/sndfile_writer.hpp"
#include "sinks/sigmf_writer.hpp"
#endif

namespace prism::view {

namespace {

// Input frames per ChannelReceiver::process() call (its buffers are sized for this many).
constexpr std::size_t kPieceFrames = std::size_t{1} << 15;
// The device's ring: room for the input's and the device's clocks to drift apart, and for the
// sink thread's jitter (the ring starts playing once half full).
constexpr double kAudioRingSeconds = 0.5;
// The audio rate when no device is open (a recording without a device).
constexpr double kFallbackAudioRate = 48000.0;

bool same_channel(const ChannelSettings& a, const ChannelSettings& b) {
  return a.demodulation == b.demodulation && a.carrier_hz == b.carrier_hz && a.bandwidth_hz == b.bandwidth_hz;
}

bool same_input(const StreamInfo& a, const StreamInfo& b) {
  return a.format == b.format && a.sample_rate == b.sample_rate && a.channels == b.channels &&
         a.center_frequency == b.center_frequency;
}

// prism-channel-<carrier Hz>-<local time> in the working folder, with none of the recording's
// files (.wav, .sigmf-meta, .sigmf-data, or their .partial) taken.
std::string recording_base(double carrier_hz) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  char base[128];
  std::snprintf(base, sizeof base, "prism-channel-%.0fHz-%s", carrier_hz, stamp);
  const auto taken = [](const std::string& name) {
    for (const char* extension : {".wav", ".sigmf-meta", ".sigmf-data"})
      for (const char* partial : {"", ".partial"})
        if (std::filesystem::exists(name + extension + partial)) return true;
    return false;
  };
  std::string name = base;
  for (int n = 2; taken(name); ++n) name = std::string(base) + "-" + std::to_string(n);
  return name;
}

Chunk float_chunk(const float* data, std::size_t n) {
  Chunk c;
  c.data = reinterpret_cast<std::byte*>(const_cast<float*>(data));
  c.items = c.capacity = n;
  c.item_bytes = sizeof(float);
  return c;
}

}  // namespace

struct ChannelListener::Impl {
  mutable std::mutex mutex;  // guards the fields up to `published`
  ListenRequest pending;
  std::uint64_t pending_generation = 0;
  ListenStatus published;
  std::atomic<bool> idle{false};

  // The sink thread's own state.
  std::uint64_t taken_generation = 0;
  ListenRequest current;
  std::optional<StreamInfo> input;
  std::optional<int> gpu_device;
  bool gpu_failed = false;  // the filter failed on gpu_device: the CPU's from then on
  std::unique_ptr<ChannelReceiver> receiver;
  std::string receiver_error;
  double audio_rate = 0;
  std::string audio_error;
  std::string audio_description;
#if PRISM_HAVE_PORTAUDIO
  std::unique_ptr<PortAudioSink> audio;  // set and reset under `mutex` (set_idle reads it)
  // The device being opened on a thread of its own: opening (PortAudio's start-up, a JACK
  // client's) takes a second or more, and the sink thread must not stall meanwhile, or the input
  // queued behind it would arrive as a burst the ring could not hold.
  std::future<std::unique_ptr<PortAudioSink>> opening;
#endif
  std::unique_ptr<Sink> recorder, iq_recorder;
  std::string recording_path, iq_recording_path, record_error;
  StreamInfo recording_iq, recording_audio;  // what the files were begun with
  std::uint64_t recorded = 0, iq_recorded = 0;
  std::vector<std::string> recordings;
  std::uint64_t audio_samples = 0;
  std::uint64_t retunes = 0, rebuilds = 0;
  std::vector<float> silence;

  void take_request();
  void open_audio();
  void close_audio();
  void build_receiver();
  void start_recording();
  void stop_recording();
  void fail_recording(const std::exception& e);
  void record(const ChannelReceiver::Output& out);
  void play(const float* audio, std::size_t n);
  void publish();
};

void ChannelListener::Impl::take_request() {
  ListenRequest next;
  {
    std::lock_guard lock(mutex);
    if (pending_generation == taken_generation) return;
    taken_generation = pending_generation;
    next = pending;
  }
  if (!next.on) {
    stop_recording();
    close_audio();
    receiver.reset();
    receiver_error.clear();
    audio_error.clear();
  } else {
    if (!current.on) audio_error.clear();  // switched on again: try the device again
    // A new band at the same rates and demodulation: the running receiver's taps are replaced
    // (no gap, no start-up); anything else gets a new receiver.
    if (receiver && next.input_channel != current.input_channel) {
      receiver.reset();
      stop_recording();
    }
    if (receiver && !same_channel(receiver->settings(), next.channel)) {
      bool retuned = false;
      if (receiver->settings().demodulation == next.channel.demodulation) {
        try {
          retuned = receiver->retune(next.channel);
        } catch (const std::exception&) {
          // Does not fit the input: the new receiver's construction reports it.
        }
      }
      if (retuned) ++retunes;
      else receiver.reset();
    }
    if (!same_channel(current.channel, next.channel)) receiver_error.clear();
    if (receiver) {
      receiver->set_volume_db(next.channel.volume_db);
      receiver->set_squelch_db(next.channel.squelch_db);
    }
    if (!next.record) stop_recording();
    if (next.record && !current.record) record_error.clear();
  }
  current = next;
}

void ChannelListener::Impl::open_audio() {
#if PRISM_HAVE_PORTAUDIO
  if (audio || !audio_error.empty()) return;
  if (!opening.valid()) {
    opening = std::async(std::launch::async, [] {
      const double rate = PortAudioSink::default_rate("");
      auto sink = std::make_unique<PortAudioSink>("", 0, kAudioRingSeconds, PortAudioSink::WhenFull::drop);
      StreamInfo info;
      info.format = SampleFormat::f32;
      info.sample_rate = rate;
      info.channels = 1;
      info.live = true;
      sink->begin(PortDescription::of_samples(info));
      return sink;
    });
  }
  if (opening.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  try {
    auto sink = opening.get();
    sink->set_idle(idle.load());
    audio_description = sink->describe();
    audio_rate = sink->sample_rate();
    std::lock_guard lock(mutex);
    audio = std::move(sink);
  } catch (const std::exception& e) {
    audio_error = std::string("no audio output: ") + e.what();
  }
#else
  if (audio_error.empty()) audio_error = "no audio output: this prism was built without PortAudio";
#endif
  if (!audio_error.empty() && audio_rate == 0) audio_rate = kFallbackAudioRate;
}

void ChannelListener::Impl::close_audio() {
#if PRISM_HAVE_PORTAUDIO
  if (opening.valid()) opening.wait();  // then dropped: the device it opened closes with it
  opening = {};
  std::unique_ptr<PortAudioSink> closing;
  {
    std::lock_guard lock(mutex);
    closing = std::move(audio);
  }
  if (closing) closing->abort();
#endif
  audio_rate = 0;
}

void ChannelListener::Impl::build_receiver() {
  if (receiver || !receiver_error.empty() || !input || audio_rate == 0) return;  // rate: the device's
  const unsigned channel = std::min(current.input_channel, input->channels - 1);
  try {
    receiver =
        std::make_unique<ChannelReceiver>(current.channel, *input, channel, audio_rate, kPieceFrames,
                                          gpu_failed ? std::nullopt : gpu_device);
    ++rebuilds;
  } catch (const std::exception& e) {
    receiver_error = e.what();
  }
}

void ChannelListener::Impl::start_recording() {
  // The files describe one channel: a receiver whose I/Q or audio differs (another carrier,
  // other rates) ends them, and new ones begin.
  if (recorder && receiver) {
    const StreamInfo iq = receiver->iq_info(), audio = receiver->audio_info();
    if (iq.center_frequency != recording_iq.center_frequency || iq.sample_rate != recording_iq.sample_rate ||
        audio.sample_rate != recording_audio.sample_rate)
      stop_recording();
  }
  if (recorder || iq_recorder || !record_error.empty() || !receiver) return;
#if PRISM_HAVE_SNDFILE
  const std::string base = recording_base(receiver->iq_info().center_frequency);
  try {
    auto audio_writer = std::make_unique<SndfileWriter>(base + ".wav");
    audio_writer->begin(PortDescription::of_samples(receiver->audio_info()));
    auto iq_writer = std::make_unique<SigmfWriter>(base + ".sigmf-meta");
    iq_writer->begin(PortDescription::of_samples(receiver->iq_info()));
    recorder = std::move(audio_writer);
    iq_recorder = std::move(iq_writer);
    recording_iq = receiver->iq_info();
    recording_audio = receiver->audio_info();
    recording_path = base + ".wav";
    iq_recording_path = base + ".sigmf-meta";
    recorded = iq_recorded = 0;
  } catch (const std::exception& e) {
    record_error = std::string("cannot record: ") + e.what();  // a writer not kept removes its file
  }
#else
  record_error = "cannot record: this prism was built without libsndfile";
#endif
}

void ChannelListener::Impl::stop_recording() {
  if (!recorder) return;
  try {
    recorder->finish(true);
    recordings.push_back(recording_path);
    iq_recorder->finish(true);
    recordings.push_back(iq_recording_path);
  } catch (const std::exception& e) {
    // The WAV failed: the I/Q beside it is dropped too (fail_recording). The I/Q failed: the
    // WAV, finished, is whole and stays listed.
    fail_recording(e);
    return;
  }
  recorder.reset();
  iq_recorder.reset();
  recording_path.clear();
  iq_recording_path.clear();
}

// A write, or the WAV's finish, failed: what is unfinished is removed (a writer destroyed
// unfinished removes its file), and the error stays until recording is asked for again.
void ChannelListener::Impl::fail_recording(const std::exception& e) {
  record_error = std::string("the recording failed: ") + e.what();
  recorder.reset();
  iq_recorder.reset();
  recording_path.clear();
  iq_recording_path.clear();
}

void ChannelListener::Impl::record(const ChannelReceiver::Output& out) {
  if (!recorder) return;
  try {
    if (out.audio_items > 0) recorder->write(float_chunk(out.audio, out.audio_items));
    if (out.iq_items > 0) {
      Chunk iq = float_chunk(out.iq, 2 * out.iq_items);
      iq.items = iq.capacity = out.iq_items;
      iq.item_bytes = 2 * sizeof(float);
      iq_recorder->write(iq);
    }
    recorded += out.audio_items;
    iq_recorded += out.iq_items;
  } catch (const std::exception& e) {
    fail_recording(e);
  }
}

void ChannelListener::Impl::play(const float* samples, std::size_t n) {
  if (n == 0) return;
  audio_samples += n;
#if PRISM_HAVE_PORTAUDIO
  if (!audio) return;
  if (current.mute) {
    if (silence.size() < n) silence.assign(n, 0.0f);
    samples = silence.data();
  }
  try {
    audio->write(float_chunk(samples, n));
  } catch (const std::exception& e) {
    audio_error = std::string("the audio output failed: ") + e.what();
    close_audio();
  }
#endif
}

void ChannelListener::Impl::publish() {
  std::lock_guard lock(mutex);
  ListenStatus& s = published;
  s.on = receiver != nullptr;
  s.description = receiver ? receiver->describe() : std::string();
  if (receiver && !audio_description.empty()) s.description += " -> " + audio_description;
  s.error = !receiver_error.empty() ? receiver_error : !audio_error.empty() ? audio_error : record_error;
  s.level_db = receiver ? receiver->level_db() : -INFINITY;
  s.squelched = receiver && receiver->squelched();
  s.audio_rate = audio_rate;
  s.audio_samples = audio_samples;
#if PRISM_HAVE_PORTAUDIO
  if (audio) {
    s.dropped = audio->dropped();
    s.underflows = audio->underflows();
    s.host_xruns = audio->host_underflows();
  }
#endif
  s.receivers_built = rebuilds;
  s.taps_replaced = retunes;
  s.recording = recording_path;
  s.iq_recording = iq_recording_path;
  s.recorded_samples = recorded;
  s.iq_recorded_samples = iq_recorded;
  s.recordings = recordings;
}

ChannelListener::ChannelListener() : impl_(std::make_unique<Impl>()) {}

ChannelListener::~ChannelListener() {
  impl_->stop_recording();
  impl_->close_audio();
}

void ChannelListener::request(const ListenRequest& request) {
  std::lock_guard lock(impl_->mutex);
  impl_->pending = request;
  ++impl_->pending_generation;
}

ListenStatus ChannelListener::status() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->published;
}

void ChannelListener::set_idle(bool idle) {
  impl_->idle.store(idle);
#if PRISM_HAVE_PORTAUDIO
  std::lock_guard lock(impl_->mutex);
  if (impl_->audio) impl_->audio->set_idle(idle);
#endif
}

void ChannelListener::set_gpu_device(std::optional<int> device) {
  Impl& s = *impl_;  // before a run: the sink thread is not running
  if (device == s.gpu_device) return;
  s.gpu_device = device;
  s.gpu_failed = false;
  s.receiver.reset();
  s.stop_recording();
  s.publish();
}

void ChannelListener::begin(const PortDescription& input) {
  Impl& s = *impl_;
  if (s.input && !same_input(*s.input, input.samples)) {
    s.receiver.reset();
    s.stop_recording();
  }
  s.input = input.samples;
  s.receiver_error.clear();
}

void ChannelListener::write(const Chunk& chunk) {
  Impl& s = *impl_;
  items_ += chunk.items;
  s.take_request();
  if (s.current.on) {
    s.open_audio();
    s.build_receiver();
    if (s.current.record) s.start_recording();  // or on in new files: see start_recording
    if (s.receiver) {
      const std::size_t frame = s.input->frame_bytes();
      try {
        for (std::size_t done = 0; done < chunk.items;) {
          const std::size_t n = std::min(kPieceFrames, chunk.items - done);
          const ChannelReceiver::Output out = s.receiver->process(chunk.data + done * frame, n);
          s.record(out);
          s.play(out.audio, out.audio_items);
          done += n;
        }
      } catch (const std::exception& e) {
        // A device that fails mid-run: the channel stops with the reason, the spectra go on, and
        // the next receiver (a new channel or run) filters on the CPU.
        s.receiver_error = std::string("the channel failed: ") + e.what();
        if (s.receiver->filter_on_gpu()) s.gpu_failed = true;
        s.receiver.reset();
        s.stop_recording();
      }
    }
  }
  s.publish();
}

}  // namespace prism::view
