// ViewEngine (see view_engine.hpp). Sections: PlaybackSource (pacing, pause, seek, loop) ·
// DisplayRowSink (reduce, average, thin, push) · DeviceLineSink · the engine thread.
#include "gui/view_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/display_line_plan.hpp"
#if PRISM_HAVE_CUDA
#include "gui/cuda/gpu_display_lines.hpp"
#endif
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/spectrogram_params.hpp"

namespace prism::view {

namespace {

using Clock = std::chrono::steady_clock;

// ---- PlaybackSource ----------------------------------------------------------------------------
// Wraps the input. Live inputs and rows computed elsewhere pass straight through (their device
// or their sender sets the pace); files and the generator are paced to the wall clock times the
// speed.
class PlaybackSource final : public SourceWrapper {
 public:
  explicit PlaybackSource(ViewEngine::SourceFactory open) : SourceWrapper(open()), open_(std::move(open)) {
    info_ = inner_->info();
    output_ = inner_->output();
  }

  const StreamInfo& info() const override { return info_; }
  PortDescription output() const override { return output_; }
  // A live view stays current: what it is late for is dropped and counted, even where the
  // input would queue for it (a tagged ZeroMQ SUB), rather than shown later and later.
  bool overruns_when_late() const override { return info_.live; }

  void interrupt() override {
    interrupts_.fetch_add(1, std::memory_order_acq_rel);
    inner_->interrupt();
  }

  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    if (info_.live || output_.kind == PortKind::rows) {
      const std::size_t n = inner_->read(dst, max_samples);
      position_ += n;
      return n;
    }
    const std::uint64_t interrupts_at_entry = interrupts_.load(std::memory_order_acquire);
    while (true) {
      if (interrupts_.load(std::memory_order_acquire) != interrupts_at_entry) return 0;
      const double speed = speed_.load(std::memory_order_relaxed);
      const bool paused = paused_.load(std::memory_order_relaxed);
      if (paused || speed != pace_speed_) rebase(speed);
      if (paused) {
        const std::uint64_t preview = preview_.load(std::memory_order_relaxed);
        if (preview == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        const std::size_t n = inner_->read(dst, std::min<std::uint64_t>(max_samples, preview));
        preview_.store(preview - std::min<std::uint64_t>(n, preview), std::memory_order_relaxed);
        position_ += n;
        return n;
      }
      std::size_t allowed = max_samples;
      if (speed > 0) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - pace_start_).count();
        const double due = static_cast<double>(pace_position_) + elapsed * info_.sample_rate * speed;
        const double ahead = static_cast<double>(position_.load(std::memory_order_relaxed)) - due;
        if (ahead >= 0) {
          const double wait_s = std::min(0.005, (ahead + 1) / (info_.sample_rate * speed));
          std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
          continue;
        }
        allowed = static_cast<std::size_t>(std::min<double>(static_cast<double>(max_samples), std::ceil(-ahead)));
      }
      const std::size_t n = inner_->read(dst, std::max<std::size_t>(allowed, 1));
      position_ += n;
      return n;
    }
  }

  // Between pipeline runs only (the engine thread): reopen and read up to `sample`.
  void seek(std::uint64_t sample) {
    inner_ = open_();
    position_ = 0;
    std::vector<std::byte> scratch(std::size_t{1} << 20);
    const std::size_t chunk = scratch.size() / std::max<std::size_t>(info_.frame_bytes(), 1);
    while (position_ < sample) {
      const std::size_t n = inner_->read(scratch.data(), std::min<std::uint64_t>(chunk, sample - position_.load()));
      if (n == 0) break;
      position_ += n;
    }
    rebase(speed_.load());
  }

  std::uint64_t position() const { return position_.load(std::memory_order_relaxed); }
  void set_speed(double speed) { speed_.store(speed, std::memory_order_relaxed); }
  void set_paused(bool paused) {
    if (!paused) preview_.store(0, std::memory_order_relaxed);
    paused_.store(paused, std::memory_order_relaxed);
  }
  // While paused, read() still delivers this many samples (then waits again): after a seek while
  // paused the display shows the new position instead of keeping the old one.
  void preview_while_paused(std::uint64_t samples) {
    preview_.store(paused() ? samples : 0, std::memory_order_relaxed);
  }
  bool paused() const { return paused_.load(std::memory_order_relaxed); }

 private:
  void rebase(double speed) {
    pace_speed_ = speed;
    pace_start_ = Clock::now();
    pace_position_ = position_.load(std::memory_order_relaxed);
  }

  ViewEngine::SourceFactory open_;
  StreamInfo info_;
  PortDescription output_;
  std::atomic<std::uint64_t> interrupts_{0};
  std::atomic<double> speed_{1.0};
  std::atomic<bool> paused_{false};
  std::atomic<std::uint64_t> preview_{0};  // samples read() delivers while paused
  std::atomic<std::uint64_t> position_{0};  // samples per channel read; the UI shows it
  // Pacing state, touched by the source thread only (and by seek between runs).
  double pace_speed_ = -1;
  Clock::time_point pace_start_ = Clock::now();
  std::uint64_t pace_position_ = 0;
};

// ---- DisplayRowSink ----------------------------------------------------------------------------
// The CPU's display lines (display_line_plan.hpp), on the graph's sink thread: spectra arrive
// in linear power (the viewer's own), or as the layout says (rows computed elsewhere: in dB, or
// magnitudes), and lines leave in dB.
class DisplayRowSink final : public Sink {
 public:
  DisplayRowSink(std::shared_ptr<DisplaySession> session, double time_offset_s,
                 const std::atomic<double>& lines_per_second, const std::atomic<double>& averaging_s,
                 std::atomic<std::uint64_t>& spectra)
      : session_(std::move(session)), time_offset_s_(time_offset_s), lines_per_second_(lines_per_second),
        averaging_s_(averaging_s), spectra_(spectra) {}

  bool accepts(PortKind kind) const override { return kind == PortKind::rows; }
  void begin(const PortDescription& input) override {
    const SpectrumLayout& layout = input.rows;
    layout_ = layout;
    planner_.emplace(layout.row_interval);
    const std::size_t bins = layout.columns, columns = session_->format.columns;
    first_bin_.resize(columns + 1);
    for (std::size_t c = 0; c <= columns; ++c) first_bin_[c] = first_bin_of_column(c, columns, bins);
    sum_.assign(columns, 0.0);
    average_.assign(columns, 0.0);
    line_.assign(columns, 0.0f);
  }

  void write(const Chunk& chunk) override {
    const float* rows = chunk.as<float>();
    const std::size_t count = chunk.items;
    const std::uint64_t first_row = chunk.first_item;
    const std::size_t bins = layout_.columns, columns = sum_.size();
    for (std::size_t r = 0; r < count; ++r) {
      const float* row = rows + r * bins;
      for (std::size_t c = 0; c < columns; ++c)
        sum_[c] += power(*std::max_element(row + first_bin_[c], row + first_bin_[c + 1]));
      ++rows_written_;
      spectra_.fetch_add(1, std::memory_order_relaxed);
      const auto line = planner_->add_spectrum(lines_per_second_.load(std::memory_order_relaxed),
                                               averaging_s_.load(std::memory_order_relaxed));
      if (!line) continue;
      for (std::size_t c = 0; c < columns; ++c) {
        const double mean = sum_[c] / static_cast<double>(line->spectra);
        average_[c] += line->alpha * (mean - average_[c]);
        line_[c] = line_decibels(average_[c]);
        sum_[c] = 0.0;
      }
      LineTag tag;
      tag.line = lines_made_++;
      session_->queue.push(line_.data(), time_offset_s_ + layout_.row_time(first_row + r), tag);
    }
  }

  void finish(bool) override {}
  void abort() noexcept override {}
  std::uint64_t items_written() const override { return rows_written_; }
  std::string describe() const override { return "the viewer"; }

 private:
  // A row's value as linear power (the largest value is the largest power in every form).
  double power(float value) const {
    if (layout_.decibels) return std::pow(10.0, static_cast<double>(value) / 10.0);  // 20·log10(m) = 10·log10(m²)
    return layout_.is_power() ? static_cast<double>(value) : static_cast<double>(value) * value;
  }

  std::shared_ptr<DisplaySession> session_;
  double time_offset_s_;
  const std::atomic<double>& lines_per_second_;
  const std::atomic<double>& averaging_s_;
  std::atomic<std::uint64_t>& spectra_;
  SpectrumLayout layout_;
  std::optional<LinePlanner> planner_;
  std::vector<std::size_t> first_bin_;
  std::vector<double> sum_, average_;
  std::vector<float> line_;
  std::uint64_t rows_written_ = 0, lines_made_ = 0;
};

#if PRISM_HAVE_CUDA
// ---- DeviceLineSink ----------------------------------------------------------------------------
// On a GPU backend the display lines are made on the device (GpuDisplayLines) and reach this
// sink through the graph's copy to the host: they go to the queue as they are, with their time
// and their place in the device ring.
class DeviceLineSink final : public Sink {
 public:
  DeviceLineSink(std::shared_ptr<DisplaySession> session, GpuDisplayLines& lines, double time_offset_s,
                 std::atomic<std::uint64_t>& spectra)
      : session_(std::move(session)), lines_(lines), time_offset_s_(time_offset_s), spectra_(spectra) {}

  bool accepts(PortKind kind) const override { return kind == PortKind::rows; }
  void begin(const PortDescription&) override {}

  void write(const Chunk& chunk) override {
    const float* rows = chunk.as<float>();
    const std::size_t count = chunk.items;
    const std::size_t columns = session_->format.columns;
    for (std::size_t r = 0; r < count; ++r) {
      const auto info = lines_.take_line_info();
      if (!info) throw std::logic_error("the GPU display lines stage handed out a line it did not make");
      spectra_.fetch_add(info->spectra, std::memory_order_relaxed);
      session_->queue.push(rows + r * columns, time_offset_s_ + info->time_s, info->tag);
      ++rows_written_;
    }
  }

  void finish(bool) override {}
  void abort() noexcept override {}
  std::uint64_t items_written() const override { return rows_written_; }
  std::string describe() const override { return "the viewer (lines made on the GPU)"; }

 private:
  std::shared_ptr<DisplaySession> session_;
  GpuDisplayLines& lines_;
  double time_offset_s_;
  std::atomic<std::uint64_t>& spectra_;
  std::uint64_t rows_written_ = 0;
};
#endif

}  // namespace

// ---- the engine ----------------------------------------------------------------------------------

struct ViewEngine::Impl {
  std::unique_ptr<PlaybackSource> source;
  ChannelListener listener;  // outlives the runs; after `thread` is joined, it goes
  std::size_t max_columns = 0;
  StageEnvironment processing;
  std::optional<double> live_stall_timeout_s;

  mutable std::mutex mutex;  // guards the fields below it; held briefly, never during a run
  ViewSettings settings;
  std::optional<double> seek_request_s;
  SessionStart seek_reason = SessionStart::seek;  // of seek_request_s: a seek or a loop
  bool restart_requested = false;
  std::shared_ptr<DisplaySession> session;
  std::string processor_description;
  std::string error;
  StopToken* current_stop = nullptr;

  std::atomic<double> lines_per_second{50};
  std::atomic<double> averaging_s{0};
  std::atomic<bool> quit{false};
  std::atomic<bool> ended{false};
  std::atomic<std::uint64_t> samples_before_run{0}, samples_in_run{0};
  std::atomic<std::uint64_t> pipeline_dropped_before_run{0}, pipeline_dropped_in_run{0};
  std::atomic<std::uint64_t> spectra{0};
  std::atomic<std::uint64_t> skipped_before_session{0};
  std::atomic<std::uint64_t> generation{0};
  std::thread thread;

  bool recording = false;  // guarded by `mutex`

  void run();
  // The listener's request from `settings` (under `mutex`).
  void request_listening();
  void request_restart() {
    restart_requested = true;
    if (current_stop != nullptr) current_stop->request_stop();
  }
};

ViewEngine::ViewEngine(SourceFactory open, const ViewSettings& settings, std::size_t max_display_columns,
                       const StageEnvironment& processing, std::optional<double> live_stall_timeout_s)
    : impl_(std::make_unique<Impl>()) {
  impl_->processing = processing;
  impl_->live_stall_timeout_s = live_stall_timeout_s;
  impl_->source = std::make_unique<PlaybackSource>(std::move(open));
  impl_->max_columns = std::max<std::size_t>(max_display_columns, 16);
  impl_->settings = settings;
  impl_->lines_per_second = settings.lines_per_second;
  impl_->averaging_s = settings.averaging_s;
  impl_->source->set_speed(settings.speed);
  impl_->request_listening();
  impl_->thread = std::thread([this] { impl_->run(); });
}

ViewEngine::~ViewEngine() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->quit = true;
    if (impl_->current_stop != nullptr) impl_->current_stop->request_stop();
  }
  impl_->thread.join();
}

const StreamInfo& ViewEngine::stream() const { return impl_->source->info(); }

void ViewEngine::apply(const ViewSettings& settings) {
  std::lock_guard lock(impl_->mutex);
  const bool restart = settings.processing_differs(impl_->settings);
  const bool loop_switched_on = settings.loop && !impl_->settings.loop;
  impl_->settings = settings;
  impl_->lines_per_second = settings.lines_per_second;
  impl_->averaging_s = settings.averaging_s;
  impl_->source->set_speed(settings.speed);
  if (restart) impl_->request_restart();
  impl_->request_listening();
  if (loop_switched_on && impl_->ended) {
    impl_->seek_request_s = 0.0;
    impl_->seek_reason = SessionStart::loop;
  }
}

void ViewEngine::set_paused(bool paused) {
  impl_->source->set_paused(paused);
  impl_->listener.set_idle(paused);
}

void ViewEngine::set_recording(bool recording) {
  std::lock_guard lock(impl_->mutex);
  impl_->recording = recording;
  impl_->request_listening();
}

bool ViewEngine::recording() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->recording;
}

void ViewEngine::Impl::request_listening() {
  const StreamInfo& info = source->info();
  ListenRequest r;
  r.on = settings.listen;
  r.channel.demodulation = parse_demodulation(settings.demodulator).value_or(Demodulation::am);
  // Unset: the band's middle (0 Hz for complex input, fs/4 for real).
  r.channel.carrier_hz = settings.listen_hz ? *settings.listen_hz - info.center_frequency
                                            : (is_complex(info.format) ? 0.0 : info.sample_rate / 4);
  r.channel.bandwidth_hz = settings.listen_bandwidth_hz;
  r.channel.squelch_db = settings.squelch_db;
  r.channel.volume_db = settings.volume_db;
  r.input_channel = std::min(settings.channel, info.channels - 1);
  r.mute = settings.mute;
  r.record = recording && settings.listen;
  listener.request(r);
}
bool ViewEngine::paused() const { return impl_->source->paused(); }

void ViewEngine::seek(double seconds) {
  if (impl_->source->info().live) return;
  std::lock_guard lock(impl_->mutex);
  impl_->seek_request_s = std::max(0.0, seconds);
  impl_->seek_reason = SessionStart::seek;
  impl_->request_restart();
}

std::shared_ptr<DisplaySession> ViewEngine::session() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->session;
}

EngineStatus ViewEngine::status() const {
  EngineStatus s;
  const Impl& e = *impl_;
  const StreamInfo& info = e.source->info();
  s.samples_received = e.samples_before_run + e.samples_in_run;
  s.spectra_computed = e.spectra;
  s.overrun_samples = e.pipeline_dropped_before_run + e.pipeline_dropped_in_run + e.source->dropped_samples();
  s.device_overflows = e.source->overflows_of_unknown_length();
  s.live = info.live;
  s.ended = e.ended;
  s.source = e.source->describe();
  s.listen = e.listener.status();
  if (info.length) s.duration_s = static_cast<double>(*info.length) / info.sample_rate;
  std::lock_guard lock(e.mutex);
  s.display_rows_skipped = e.skipped_before_session + (e.session ? e.session->queue.skipped() : 0);
  const PortDescription produced = e.source->output();
  s.rows = produced.kind == PortKind::rows;
  s.position_s = produced.kind == PortKind::rows
                     ? static_cast<double>(e.source->position()) * produced.rows.row_interval
                     : static_cast<double>(e.source->position()) / info.sample_rate;
  s.processor = e.processor_description;
  s.error = e.error;
  return s;
}

// A processing parameter of rows computed elsewhere, from their layout (`fallback` when the
// sender did not say).
template <typename T>
T layout_parameter(const SpectrumLayout& layout, const char* key, T fallback) {
  const nlohmann::json parameters = nlohmann::json::parse(layout.parameters_json, nullptr, false);
  if (!parameters.is_object() || !parameters.contains(key)) return fallback;
  const nlohmann::json& value = parameters[key];
  if constexpr (std::is_same_v<T, std::string>) {
    return value.is_string() ? value.get<std::string>() : fallback;
  } else {
    return value.is_number_unsigned() ? value.get<T>() : fallback;
  }
}

void ViewEngine::Impl::run() {
  const StreamInfo info = source->info();
  // Rows computed elsewhere (a zmq: stream of a prism spectrogram): shown as they come, without
  // a spectrogram of the viewer's own; its FFT settings and the channel listened to do not
  // apply (there are no samples).
  const PortDescription produced = source->output();
  const bool rows_in = produced.kind == PortKind::rows;
  bool first_run = true;
  while (!quit) {
    ViewSettings snapshot;
    std::optional<double> seek_to;
    SessionStart started_by = SessionStart::settings;
    {
      std::lock_guard lock(mutex);
      snapshot = settings;
      seek_to = seek_request_s;
      if (seek_to) started_by = seek_reason;
      if (first_run) started_by = SessionStart::first;
      seek_request_s.reset();
      restart_requested = false;
    }
    if (seek_to) {
      const double length_s = info.length ? static_cast<double>(*info.length) / info.sample_rate
                                          : std::numeric_limits<double>::infinity();
      source->seek(static_cast<std::uint64_t>(std::min(*seek_to, length_s) * info.sample_rate));
      ended = false;
    }
    if (ended) {  // a file that ended without loop: wait for a seek or for loop to be switched on
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }

    SpectrogramParams params;
    params.window = parse_window(snapshot.window);
    params.nperseg = params.nfft = snapshot.fft_size;
    params.noverlap = std::min<std::size_t>(static_cast<std::size_t>(std::llround(snapshot.overlap * snapshot.fft_size)),
                                            snapshot.fft_size - 1);
    params.detrend = Detrend::none;  // a viewer shows DC as it is
    params.decibels = false;  // lines are averaged in linear power, then shown in dB
    params.channel = std::min(snapshot.channel, info.channels - 1);

    const double block_seconds = snapshot.speed == 0 ? 0.05 : 0.01;
    const std::size_t block_samples = std::clamp<std::size_t>(
        static_cast<std::size_t>(info.sample_rate * block_seconds), 256, std::size_t{1} << 18);
    // Sought while paused: one frame and two lines' worth of samples, so that a display line of
    // the new position appears.
    if (seek_to) {
      const double line_samples = info.sample_rate / std::max(1.0, snapshot.lines_per_second);
      source->preview_while_paused(snapshot.fft_size +
                                   static_cast<std::uint64_t>(std::ceil(2 * line_samples)));
    }
    // The CPU backend shares the cores with the render thread: it takes all but one.
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    StageEnvironment environment = processing;
    environment.cpu_threads = hardware > 2 ? hardware - 1 : 1;
    MadeStage made;
    Graph graph;
    RunConfig config;
    config.field_namer = processing.field_namer;  // the same caller names both
    // Rows computed elsewhere: up to 64 rows (and 4 MiB) a chunk, as the graph sizes a chunk
    // of rows by the floats of block_samples, so that a burst (the first messages a subscriber
    // gets at once) finds room.
    config.block_samples =
        rows_in ? produced.rows.columns * std::clamp<std::size_t>((std::size_t{1} << 20) /
                                                                      std::max<std::size_t>(produced.rows.columns, 1),
                                                                  1, 64)
                : block_samples;
    config.block_count = info.live ? 8 : 4;
    if (info.live) config.stall_timeout_s = live_stall_timeout_s.value_or(default_stall_timeout_s(*source));
    Stage* spectrogram = nullptr;
    std::unique_ptr<Stage> gpu_lines_stage;
#if PRISM_HAVE_CUDA
    GpuDisplayLines* gpu_lines = nullptr;
#endif
    try {
      if (!rows_in) {
        made = make_spectrogram_stage(params, environment);
        spectrogram = made.stage.get();
        // On a GPU backend the display lines are made on the device, by a stage of their own.
#if PRISM_HAVE_CUDA
        if (spectrogram->input_domain().on_device()) {
          const std::size_t ring_lines = 2 * (static_cast<std::size_t>(snapshot.lines_per_second) + 16);
          auto lines = std::make_unique<GpuDisplayLines>(spectrogram->input_domain().device, max_columns, ring_lines,
                                                         lines_per_second, averaging_s);
          gpu_lines = lines.get();
          gpu_lines_stage = std::move(lines);
        }
#endif
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex);
      error = std::string("cannot set up the spectrogram: ") + e.what();
      ended = true;
      continue;
    }
    const Graph::Node input = graph.add_source(*source);
    Graph::Node spectrogram_node = input;
    if (!rows_in) {
      spectrogram_node = graph.add_stage(std::move(made.stage));
      graph.connect(input, spectrogram_node);
    }
    Graph::Node lines_node = spectrogram_node;
    if (gpu_lines_stage) {
      lines_node = graph.add_stage(std::move(gpu_lines_stage));
      graph.connect(spectrogram_node, lines_node);
    }
    const SpectrumLayout layout = rows_in ? produced.rows : spectrogram_layout(info, params);

    DisplayFormat format;
    format.generation = ++generation;
    format.started_by = started_by;
    format.fft_bins = layout.columns;
    format.columns = std::min(layout.columns, max_columns);
    const std::size_t fft_size = rows_in ? layout_parameter<std::size_t>(layout, "nfft", layout.columns) : params.nfft;
    const double bin_width = layout.columns > 1 ? layout.frequencies[1] - layout.frequencies[0]
                                                : info.sample_rate / static_cast<double>(std::max<std::size_t>(fft_size, 1));
    format.frequency_low = layout.frequencies.front() - bin_width / 2;
    format.frequency_high = layout.frequencies.back() + bin_width / 2;
    format.center_frequency = info.center_frequency;
    format.sample_rate = info.sample_rate;
    format.fft_size = fft_size;
    if (rows_in) {
      const auto nperseg = layout_parameter<std::size_t>(layout, "nperseg", 0);
      format.fft_rate = layout.row_interval > 0 ? 1.0 / layout.row_interval : 0.0;
      format.window = layout_parameter<std::string>(layout, "window", "");
      format.overlap = nperseg > 0 ? static_cast<double>(layout_parameter<std::size_t>(layout, "noverlap", 0)) /
                                         static_cast<double>(nperseg)
                                   : 0.0;
      format.channel = layout_parameter<unsigned>(layout, "channel", 0);
    } else {
      format.fft_rate = info.sample_rate / static_cast<double>(params.hop());
      format.window = params.window.to_string();
      format.overlap = static_cast<double>(params.noverlap) / static_cast<double>(params.nperseg);
      format.channel = params.channel;
    }
    format.channels = info.channels;
    SpectrumLayout shown = layout;
    shown.decibels = true;
    format.unit = shown.unit();
    // Room for about a second of lines, within 64 MiB.
    const std::size_t capacity = std::clamp<std::size_t>(
        (std::size_t{16} << 20) / std::max<std::size_t>(format.columns, 1), 16,
        std::max<std::size_t>(16, static_cast<std::size_t>(snapshot.lines_per_second) + 16));
    auto next_session = std::make_shared<DisplaySession>(format, capacity);

    const double time_offset_s = rows_in ? static_cast<double>(source->position()) * layout.row_interval
                                         : static_cast<double>(source->position()) / info.sample_rate;
    std::unique_ptr<Sink> sink;
#if PRISM_HAVE_CUDA
    if (gpu_lines != nullptr) sink = std::make_unique<DeviceLineSink>(next_session, *gpu_lines, time_offset_s, spectra);
#endif
    if (!sink) sink = std::make_unique<DisplayRowSink>(next_session, time_offset_s, lines_per_second, averaging_s, spectra);
    graph.connect(lines_node, graph.add_sink(std::move(sink)));
    if (!rows_in) {
      // The channel's filter runs beside the spectra: on their GPU, or the CPU.
      const MemoryDomain spectra_domain = spectrogram->input_domain();
      listener.set_gpu_device(spectra_domain.on_device() ? std::optional<int>(spectra_domain.device) : std::nullopt);
      graph.connect(input, graph.add_sink(listener));
    }
    config.on_progress = [this](const ProgressUpdate& u) {
      samples_in_run.store(u.samples_done, std::memory_order_relaxed);
      pipeline_dropped_in_run.store(u.samples_dropped, std::memory_order_relaxed);
    };
    try {
      graph.configure(config);
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex);
      error = std::string("cannot set up the spectrogram: ") + e.what();
      ended = true;
      continue;
    }
#if PRISM_HAVE_CUDA
    if (gpu_lines != nullptr) next_session->device_lines = gpu_lines->ring();
#endif
    StopToken stop;
    {
      std::lock_guard lock(mutex);
      if (session) skipped_before_session += session->queue.skipped();
      session = next_session;
      processor_description =
          rows_in ? "rows computed by the sender (" + std::to_string(layout.columns) + " bins)"
                  : spectrogram->describe() + (made.note.empty() ? "" : " (" + made.note + ")") +
                        (lines_node != spectrogram_node ? "; display lines made on the GPU" : "");
      error.clear();
      if (quit || restart_requested) continue;
      current_stop = &stop;
      first_run = false;
    }
    const std::uint64_t source_dropped_before = source->dropped_samples();
    const RunReport report = graph.run(config, stop);
    {
      std::lock_guard lock(mutex);
      current_stop = nullptr;
      samples_before_run += report.samples_read;
      samples_in_run = 0;
      const std::uint64_t source_dropped = source->dropped_samples() - source_dropped_before;
      pipeline_dropped_before_run += report.samples_dropped - std::min(report.samples_dropped, source_dropped);
      pipeline_dropped_in_run = 0;
      if (report.outcome == RunOutcome::failed) {
        error = report.error;
        ended = true;
      } else if (report.outcome == RunOutcome::completed) {
        // The input ended by itself: loop from the start, unless a seek asked for meanwhile
        // (it may have stopped this run as the input ended) takes the playback elsewhere.
        if (!seek_request_s) {
          if (settings.loop && !info.live) {
            seek_request_s = 0.0;
            seek_reason = SessionStart::loop;
          } else {
            ended = true;
          }
        }
      }
    }
  }
}

}  // namespace prism::view
