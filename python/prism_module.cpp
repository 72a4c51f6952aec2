// prism._prism: the C++ side of the Python module `prism` (python/prism/__init__.py gives it
// scipy's signatures). numpy arrays in and out; the GIL released while prism computes, taken back
// between blocks to check for signals, so that Ctrl-C raises KeyboardInterrupt in a long call;
// prism's errors become ValueError (a setting out of range) or RuntimeError with the same message.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <future>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <prism/prism.hpp>

namespace py = pybind11;

namespace {

// Items per block between two checks for signals: large enough that the check costs nothing,
// small enough that Ctrl-C is answered within a fraction of a second.
constexpr std::size_t kBlockItems = std::size_t{1} << 18;

void check_signals() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

prism::StageEnvironment environment_of(const std::string& backend) {
  prism::StageEnvironment environment;
  for (const auto kind : {prism::fft::BackendKind::automatic, prism::fft::BackendKind::cpu,
                          prism::fft::BackendKind::cuda, prism::fft::BackendKind::cufft})
    if (prism::fft::backend_name(kind) == backend) {
      environment.backend = kind;
      return environment;
    }
  throw prism::UsageError("backend: '" + backend + "' is not one of auto, cpu, cuda, cufft");
}

// Feeds `items` items (floats_per_item floats each) to `stage` in blocks, the GIL released
// during each; appends the outputs to `out`.
void feed_blocks(prism::StreamingStage& stage, const float* data, std::size_t items, std::size_t floats_per_item,
                 std::vector<float>& out) {
  for (std::size_t first = 0; first < items; first += kBlockItems) {
    const std::size_t n = std::min(kBlockItems, items - first);
    {
      py::gil_scoped_release release;
      stage.feed(data + first * floats_per_item, n, out);
    }
    check_signals();
  }
}

template <typename Real>
py::array_t<Real> to_array(std::vector<Real>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<Real>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<Real>*>(p); });
  return py::array_t<Real>(shape, owned->data(), free_when_done);
}

// The spectrogram of each row of x (rows × n real floats, or rows × n × 2 for complex) from
// sample `start` on: (frequencies, times, Sxx as rows × columns × segments, × 2 more for the
// complex values of mode 'complex'), the graph's numbers; times count from x's first sample.
py::tuple spectrogram(FloatArray x, bool is_complex, double fs, const std::string& window, std::size_t nperseg,
                      std::size_t noverlap, std::size_t nfft, const std::string& detrend,
                      const std::string& scaling, const std::string& mode,
                      std::optional<std::pair<double, double>> frequency_range, std::size_t start,
                      const std::string& backend) {
  prism::SpectrogramParams params;
  params.window = prism::parse_window(window);
  params.nperseg = nperseg;
  params.noverlap = noverlap;
  params.nfft = nfft;
  if (detrend == "constant") {
    params.detrend = prism::Detrend::constant;
  } else if (detrend == "linear") {
    params.detrend = prism::Detrend::linear;
  } else if (detrend == "none") {
    params.detrend = prism::Detrend::none;
  } else {
    throw prism::UsageError("detrend: '" + detrend + "' is not one of 'constant', 'linear', False");
  }
  params.scaling = scaling == "density" ? prism::Scaling::density : prism::Scaling::spectrum;
  params.mode = mode == "psd"         ? prism::SpectrumMode::psd
                : mode == "magnitude" ? prism::SpectrumMode::magnitude
                : mode == "complex"   ? prism::SpectrumMode::complex
                : mode == "angle"     ? prism::SpectrumMode::angle
                : mode == "phase"     ? prism::SpectrumMode::phase
                                      : throw prism::UsageError("mode: '" + mode +
                                                                "' is not one of psd, magnitude, complex, angle, phase");
  params.frequency_range = frequency_range;
  prism::StreamInfo info;
  info.format = is_complex ? prism::SampleFormat::cf32 : prism::SampleFormat::f32;
  info.sample_rate = fs;
  info.start_offset_s = static_cast<double>(start) / fs;  // the rows' times count from x's first sample
  const std::size_t width = is_complex ? 2 : 1;
  if (x.ndim() != 2) throw std::invalid_argument("x: expected rows × samples");
  const std::size_t rows = x.shape(0), all_items = x.shape(1) / width;
  if (start > all_items)
    throw prism::UsageError("start: sample " + std::to_string(start) + " is past the end of x (" +
                            std::to_string(all_items) + " samples)");
  const std::size_t items = all_items - start;
  prism::Spectrogram stage(params, info, environment_of(backend));
  const prism::SpectrumLayout& layout = stage.layout();
  const std::size_t columns = layout.columns;
  const std::size_t values = layout.complex_values ? 2 : 1;  // floats per value
  const std::size_t segments = items >= nperseg ? (items - nperseg) / params.hop() + 1 : 0;
  std::vector<float> result(rows * columns * segments * values);
  std::vector<float> row_major;
  for (std::size_t r = 0; r < rows; ++r) {
    row_major.clear();
    feed_blocks(stage, x.data(r, 0) + start * width, items, width, row_major);
    stage.flush(row_major);
    stage.reset();
    if (row_major.size() != segments * columns * values) throw std::logic_error("spectrogram: unexpected row count");
    // scipy's layout: frequency first, then time.
    float* out = result.data() + r * columns * segments * values;
    for (std::size_t s = 0; s < segments; ++s)
      for (std::size_t c = 0; c < columns; ++c)
        for (std::size_t k = 0; k < values; ++k)
          out[(c * segments + s) * values + k] = row_major[(s * columns + c) * values + k];
  }
  std::vector<double> times(segments);
  for (std::size_t s = 0; s < segments; ++s) times[s] = layout.row_time(s);
  std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns),
                                    static_cast<py::ssize_t>(segments)};
  if (values == 2) shape.push_back(2);
  return py::make_tuple(py::array_t<double>(layout.frequencies.size(), layout.frequencies.data()),
                        py::array_t<double>(times.size(), times.data()), to_array(std::move(result), shape));
}

prism::PassZero pass_zero_of(const std::string& text) {
  if (text == "true") return prism::PassZero::yes;
  if (text == "false") return prism::PassZero::no;
  if (text == "lowpass") return prism::PassZero::lowpass;
  if (text == "highpass") return prism::PassZero::highpass;
  if (text == "bandpass") return prism::PassZero::bandpass;
  if (text == "bandstop") return prism::PassZero::bandstop;
  throw std::invalid_argument("pass_zero: '" + text + "' is not one of True, False, lowpass, highpass, bandpass, bandstop");
}

std::vector<double> firwin(std::size_t numtaps, const std::vector<double>& cutoff, std::optional<double> width,
                           const std::string& window, const std::string& pass_zero, bool scale, double fs) {
  prism::FirwinOptions options;
  options.width = width;
  options.window = prism::parse_window(window);
  options.pass_zero = pass_zero_of(pass_zero);
  options.scale = scale;
  options.fs = fs;
  return prism::firwin(numtaps, cutoff, options);
}

// The streaming FIR filter (pipeline/fir_filter.hpp) over numpy arrays, in single or double
// precision (float32 or float64 values in and out).
class PyFirFilter {
 public:
  PyFirFilter(py::array taps, bool complex_input, std::size_t decimation, const std::string& align,
              std::optional<double> shift_hz, double fs, unsigned threads, const std::string& precision) {
    prism::FirSpec spec;
    if (taps.dtype().kind() == 'c') {
      auto t = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>::ensure(taps);
      spec.taps = prism::FilterTaps::from_complex({t.data(), t.data() + t.size()});
    } else {
      auto t = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(taps);
      if (!t) throw std::invalid_argument("taps: expected an array of numbers");
      spec.taps = prism::FilterTaps::from_real({t.data(), t.data() + t.size()});
    }
    if (align != "causal" && align != "same") throw std::invalid_argument("align: '" + align + "' is not one of causal, same");
    if (precision != "single" && precision != "double")
      throw std::invalid_argument("precision: '" + precision + "' is not one of single, double");
    spec.complex_input = complex_input;
    spec.decimation = decimation;
    spec.align = align == "same" ? prism::FirAlign::same : prism::FirAlign::causal;
    spec.shift_hz = shift_hz;
    spec.sample_rate = fs;
    spec.threads = threads;
    spec.double_precision = precision == "double";
    filter_ = std::make_unique<prism::FirFilter>(spec);
  }
  bool complex_output() const { return filter_->complex_output(); }
  bool double_precision() const { return filter_->double_precision(); }

  template <typename Real>
  py::array_t<Real> feed(py::array_t<Real, py::array::c_style | py::array::forcecast> x) {
    const std::size_t in_width = filter_->complex_input() ? 2 : 1, out_width = complex_output() ? 2 : 1;
    const std::size_t items = x.size() / in_width;
    std::vector<Real> out(filter_->max_output(std::min(items, kBlockItems)) * out_width);
    std::vector<Real> result;
    for (std::size_t first = 0; first < items; first += kBlockItems) {
      const std::size_t n = std::min(kBlockItems, items - first);
      std::size_t made = 0;
      {
        py::gil_scoped_release release;
        made = filter_->process(x.data() + first * in_width, n, out.data());
      }
      result.insert(result.end(), out.begin(), out.begin() + made * out_width);
      check_signals();
    }
    return to_array(std::move(result), {static_cast<py::ssize_t>(result.size())});
  }
  template <typename Real>
  py::array_t<Real> flush() {
    const std::size_t out_width = complex_output() ? 2 : 1;
    std::vector<Real> result, out(4096 * out_width);
    while (true) {
      const std::size_t made = filter_->flush(out.data(), 4096);
      if (made == 0) break;
      result.insert(result.end(), out.begin(), out.begin() + made * out_width);
    }
    return to_array(std::move(result), {static_cast<py::ssize_t>(result.size())});
  }
  void reset() { filter_->reset(); }

 private:
  std::unique_ptr<prism::FirFilter> filter_;
};

py::array_t<float> resample_poly(FloatArray x, bool is_complex, std::uint64_t up, std::uint64_t down,
                                 std::vector<double> taps) {
  prism::ResamplerSpec spec;
  spec.up = up;
  spec.down = down;
  spec.complex_input = is_complex;
  spec.taps = std::move(taps);
  prism::Resampler resampler(spec);
  const std::size_t width = is_complex ? 2 : 1, items = x.size() / width;
  std::vector<float> result(resampler.max_output(items) * width + 8 * width);
  std::size_t made = 0;
  for (std::size_t first = 0; first < items; first += kBlockItems) {
    const std::size_t n = std::min(kBlockItems, items - first);
    {
      py::gil_scoped_release release;
      made += resampler.process(x.data() + first * width, n, result.data() + made * width);
    }
    check_signals();
  }
  {
    py::gil_scoped_release release;
    while (true) {
      const std::size_t more = resampler.flush(result.data() + made * width, (result.size() / width) - made);
      if (more == 0) break;
      made += more;
    }
  }
  result.resize(made * width);
  return to_array(std::move(result), {static_cast<py::ssize_t>(made * width)});
}

// Any stage of the registry as a streaming object (prism.Stage / prism.Spectrogram).
class PyStage {
 public:
  PyStage(const std::string& spec, double fs, bool complex_input, const std::string& backend)
      : complex_(complex_input) {
    prism::StreamInfo info;
    info.format = complex_input ? prism::SampleFormat::cf32 : prism::SampleFormat::f32;
    info.sample_rate = fs;
    stage_ = std::make_unique<prism::StreamingStage>(spec, info, environment_of(backend));
  }
  std::size_t floats_per_item() const { return stage_->floats_per_item(); }
  bool rows() const { return stage_->output().kind == prism::PortKind::rows; }
  py::array_t<float> shaped(std::vector<float>&& values) const {
    const auto per = static_cast<py::ssize_t>(floats_per_item());
    const auto n = static_cast<py::ssize_t>(values.size());
    if (rows()) return to_array(std::move(values), {n / per, per});
    return to_array(std::move(values), {n});
  }
  py::array_t<float> feed(FloatArray x) {
    std::vector<float> out;
    feed_blocks(*stage_, x.data(), x.size() / (complex_ ? 2 : 1), complex_ ? 2 : 1, out);
    return shaped(std::move(out));
  }
  py::array_t<float> flush() {
    std::vector<float> out;
    stage_->flush(out);
    return shaped(std::move(out));
  }
  void reset() { stage_->reset(); }
  std::size_t max_output(std::size_t n) const { return stage_->max_output(n); }
  // Values of one output item: a row's columns, or one sample; complex_values: each value is a
  // complex64 (two floats).
  std::size_t values_per_item() const { return rows() ? stage_->output().rows.columns : 1; }
  bool complex_values() const { return floats_per_item() == 2 * values_per_item(); }
  // Device memory as integer addresses and the stream as its handle (__cuda_array_interface__'s);
  // the Python side checks the arrays' types and sizes.
  std::size_t feed_device(std::uintptr_t items, std::size_t n, std::uintptr_t out, std::uintptr_t stream) {
    py::gil_scoped_release release;
    return stage_->feed_device(reinterpret_cast<const void*>(items), n, reinterpret_cast<float*>(out),
                               reinterpret_cast<prism::gpu::Stream>(stream));
  }
  std::size_t flush_device(std::uintptr_t out, std::size_t capacity, std::uintptr_t stream) {
    py::gil_scoped_release release;
    return stage_->flush_device(reinterpret_cast<float*>(out), capacity, reinterpret_cast<prism::gpu::Stream>(stream));
  }
  std::string describe() const { return stage_->describe(); }
  std::vector<double> frequencies() const {
    return rows() ? stage_->output().rows.frequencies : std::vector<double>{};
  }
  double output_rate() const { return stage_->output().item_rate(); }

 private:
  bool complex_;
  std::unique_ptr<prism::StreamingStage> stage_;
};

// Runs `work` on a thread of its own with the GIL released; every 50 ms the GIL is taken back
// to check for signals, and on Ctrl-C `stop` is requested, the work awaited, and
// KeyboardInterrupt raised.
template <typename Result>
Result run_interruptible(std::function<Result()> work, prism::StopToken& stop) {
  std::packaged_task<Result()> task(std::move(work));
  std::future<Result> result = task.get_future();
  std::thread thread(std::move(task));
  while (true) {
    bool done = false;
    {
      py::gil_scoped_release release;
      done = result.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (done) break;
    if (PyErr_CheckSignals() != 0) {
      stop.request_stop();
      {
        py::gil_scoped_release release;
        thread.join();
      }
      throw py::error_already_set();
    }
  }
  thread.join();
  return result.get();
}

// The input's keyword arguments beyond format, rate and channels (prism.open and prism.run pass
// those that are not None): the centre frequency and the SDR settings, as the command line's
// --center-frequency, --gain, --antenna, --sdr-channel, --sdr-stream-args and --open-timeout.
template <typename T>
T setting_as(const std::string& key, const py::handle& value, const char* what) {
  // pybind11 would take True as 1 (gain=True as 1 dB, sdr_open_timeout=False as "for ever").
  if (!py::isinstance<py::bool_>(value)) {
    try {
      return value.cast<T>();
    } catch (const py::cast_error&) {
    }
  }
  throw py::type_error(key + " must be " + what + ", not " + std::string(py::repr(value)));
}

double finite_setting(const std::string& key, const py::handle& value, bool at_least_zero) {
  const double v = setting_as<double>(key, value, "a number");
  if (!std::isfinite(v) || (at_least_zero && v < 0))
    throw prism::UsageError(key + " must be a finite number" + (at_least_zero ? " of 0 or more" : ""));
  return v;
}

void apply_input_settings(prism::SourceOptions& options, const py::dict& settings) {
  for (const auto& [key_object, value] : settings) {
    const std::string key = py::str(key_object);
    if (key == "center_frequency") {  // finite: open_source's check
      options.center_frequency = setting_as<double>(key, value, "a number");
    } else if (key == "gain") {
      options.gain = finite_setting(key, value, false);
    } else if (key == "antenna") {
      options.antenna = setting_as<std::string>(key, value, "a string");
    } else if (key == "sdr_channel") {
      const long long channel = setting_as<long long>(key, value, "a whole number");
      if (channel < 0) throw prism::UsageError("sdr_channel must be 0 or more");
      options.sdr_channel = static_cast<std::size_t>(channel);
    } else if (key == "sdr_stream_args") {
      options.sdr_stream_args = setting_as<std::string>(key, value, "a string");
    } else if (key == "sdr_open_timeout") {
      options.sdr_open_timeout_s = finite_setting(key, value, true);
    } else {
      throw prism::UsageError("'" + key + "' is not an input setting");
    }
  }
}

prism::SourceOptions source_options(std::optional<std::string> format, std::optional<double> rate, unsigned channels,
                                    const py::dict& settings) {
  prism::SourceOptions options;
  if (format) {
    const auto stored = prism::parse_stored_format(*format);
    if (!stored) throw prism::UsageError("format: '" + *format + "' is not one of " + prism::format_names_help());
    options.format = stored->format;
    options.big_endian = stored->big_endian;
  }
  options.sample_rate = rate;
  options.channels = channels;
  apply_input_settings(options, settings);
  // Messages name this module's arguments (rate=, sdr_open_timeout=), not the fields.
  options.field_namer = [](std::string_view key) {
    if (key == "sample_rate") return std::string("rate");
    if (key == "sdr_open_timeout_s") return std::string("sdr_open_timeout");
    return std::string(key);
  };
  // As the command line reads a recording cut short: up to its last whole sample, with a
  // warning on stderr (the read runs on a thread of its own, away from the interpreter).
  options.truncation.strict = false;
  options.truncation.warn = [](const std::string& text) { std::fprintf(stderr, "prism: warning: %s\n", text.c_str()); };
  return options;
}

// Opens the input away from the interpreter, as the run itself: a device that takes its time
// (an SDR's driver, a stream's first message) leaves Python running, and Ctrl-C ends the wait.
std::unique_ptr<prism::Source> open_interruptible(const std::string& input, prism::SourceOptions options,
                                                  prism::StopToken& stop) {
  options.opening.stop = &stop;
  return run_interruptible<std::unique_ptr<prism::Source>>([&] { return prism::open_source(input, options); }, stop);
}

py::dict stream_dict(const prism::StreamInfo& info) {
  py::dict d;
  d["format"] = std::string(prism::format_name(info.format));
  d["sample_rate"] = info.sample_rate;
  d["channels"] = info.channels;
  d["center_frequency"] = info.center_frequency;
  d["start_time"] = info.start_time;
  d["length"] = info.length ? py::cast(*info.length) : py::none();
  return d;
}

// prism.run: input -> stages -> outputs (paths) and, when collect, the last node's items.
// Returns (summary JSON text, collected bytes, description of the collected items).
py::tuple run(const std::string& input, const std::vector<std::string>& stages, const std::vector<std::string>& outputs,
              bool collect, std::optional<std::string> format, std::optional<double> rate, unsigned channels,
              const py::dict& settings, std::optional<std::uint64_t> max_samples, const std::string& backend) {
  // Refused before the input is opened, not when the second output cannot be renamed into place.
  if (const std::optional<prism::OutputClash> clash = prism::find_output_clash(outputs))
    throw prism::UsageError("outputs: '" + clash->first + "' and '" + clash->second + "' both write " +
                            clash->file + "; give each output its own name");
  prism::StopToken stop;
  prism::Graph graph;
  prism::Graph::Node last =
      graph.add_source(open_interruptible(input, source_options(format, rate, channels, settings), stop));
  prism::PortKind kind = prism::PortKind::samples;
  bool on_gpu = false;  // where the last stage leaves its output (auto keeps light stages there, as prism run)
  for (const std::string& spec : stages) {
    prism::StageEnvironment environment = environment_of(backend);
    environment.input_on_gpu = on_gpu;
    prism::MadeStage made = prism::make_stage(prism::parse_stage_spec(spec), environment);
    kind = made.stage->output_kind();
    on_gpu = made.stage->output_domain().on_device();
    const prism::Graph::Node node = graph.add_stage(std::move(made.stage));
    graph.connect(last, node);
    last = node;
  }
  for (const std::string& path : outputs) graph.connect(last, graph.add_sink(prism::open_sink(path)));
  std::vector<std::byte> collected;
  prism::PortDescription collected_description;
  std::unique_ptr<prism::CallbackSink> sink;
  if (collect) {
    sink = std::make_unique<prism::CallbackSink>(
        kind, prism::CallbackSink::Functions{
                  .on_begin = [&](const prism::PortDescription& d) { collected_description = d; },
                  .on_chunk =
                      [&](const prism::Chunk& c) { collected.insert(collected.end(), c.data, c.data + c.bytes()); },
              });
    graph.connect(last, graph.add_sink(*sink));
  }
  if (outputs.empty() && !collect) throw prism::UsageError("outputs: give at least one output, or collect");
  prism::RunConfig config;
  config.max_samples = max_samples;
  const prism::RunReport report =
      run_interruptible<prism::RunReport>([&] { return graph.run(config, stop); }, stop);
  if (report.outcome == prism::RunOutcome::failed) throw std::runtime_error(report.error);
  py::dict description;
  if (collect) {
    if (collected_description.kind == prism::PortKind::rows) {
      description["kind"] = "rows";
      description["columns"] = collected_description.rows.columns;
      description["complex"] = collected_description.rows.complex_values;
      description["double"] = collected_description.rows.double_values;
      description["frequencies"] = collected_description.rows.frequencies;
    } else {
      description = stream_dict(collected_description.samples);
      description["kind"] = "samples";
    }
  }
  return py::make_tuple(prism::run_summary_json(report),
                        py::bytes(reinterpret_cast<const char*>(collected.data()), collected.size()), description);
}

// prism.open: the description of an input and all its samples (native format, as bytes).
py::tuple open_input(const std::string& input, std::optional<std::string> format, std::optional<double> rate,
                     unsigned channels, const py::dict& settings, std::optional<std::uint64_t> max_samples) {
  prism::StopToken stop;
  std::unique_ptr<prism::Source> source =
      open_interruptible(input, source_options(format, rate, channels, settings), stop);
  const prism::StreamInfo info = source->info();
  if (info.live && !max_samples) throw prism::UsageError("max_samples: a live input needs it (it never ends)");
  const std::size_t frame = info.frame_bytes();
  std::vector<std::byte> data;
  std::vector<std::byte> block(65536 * frame);
  std::uint64_t total = 0;
  run_interruptible<int>(
      [&] {
        while (!stop.stop_requested() && (!max_samples || total < *max_samples)) {
          std::size_t want = 65536;
          if (max_samples) want = static_cast<std::size_t>(std::min<std::uint64_t>(want, *max_samples - total));
          const std::size_t n = source->read(block.data(), want);
          if (n == 0) break;
          data.insert(data.end(), block.begin(), block.begin() + n * frame);
          total += n;
        }
        return 0;
      },
      stop);
  return py::make_tuple(stream_dict(info), py::bytes(reinterpret_cast<const char*>(data.data()), data.size()));
}

}  // namespace

PYBIND11_MODULE(_prism, m) {
  m.doc() = "prism's C++ core; use the package `prism`";
  m.attr("__version__") = prism::kVersion;
  py::register_exception<prism::UsageError>(m, "UsageError", PyExc_ValueError);
  py::register_exception<prism::FilterDesignError>(m, "FilterDesignError", PyExc_ValueError);
  m.def("spectrogram", &spectrogram);
  m.def("firwin", &firwin);
  m.def("resample_poly", &resample_poly);
  m.def("run", &run);
  m.def("open", &open_input);
  py::class_<PyFirFilter>(m, "FirFilter")
      .def(py::init<py::array, bool, std::size_t, const std::string&, std::optional<double>, double, unsigned,
                    const std::string&>())
      .def_property_readonly("complex_output", &PyFirFilter::complex_output)
      .def_property_readonly("double_precision", &PyFirFilter::double_precision)
      .def("feed", &PyFirFilter::feed<float>)
      .def("feed64", &PyFirFilter::feed<double>)
      .def("flush", &PyFirFilter::flush<float>)
      .def("flush64", &PyFirFilter::flush<double>)
      .def("reset", &PyFirFilter::reset);
  py::class_<PyStage>(m, "Stage")
      .def(py::init<const std::string&, double, bool, const std::string&>())
      .def("feed", &PyStage::feed)
      .def("flush", &PyStage::flush)
      .def("reset", &PyStage::reset)
      .def("describe", &PyStage::describe)
      .def("max_output", &PyStage::max_output)
      .def("feed_device", &PyStage::feed_device)
      .def("flush_device", &PyStage::flush_device)
      .def_property_readonly("rows", &PyStage::rows)
      .def_property_readonly("values_per_item", &PyStage::values_per_item)
      .def_property_readonly("complex_values", &PyStage::complex_values)
      .def_property_readonly("frequencies", &PyStage::frequencies)
      .def_property_readonly("output_rate", &PyStage::output_rate);
}
