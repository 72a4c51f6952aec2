// The sample stages (see sample_stages.hpp). Sections: the stage around an engine · the engines'
// adapters · each stage's settings and planner (fir, shift, resample, the demodulators, gain).
#include "pipeline/sample_stages.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "pipeline/demodulators.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/gpu_fir_plan.hpp"
#include "pipeline/format.hpp"
#include "pipeline/mixer.hpp"
#include "pipeline/resampler.hpp"
#include "pipeline/taps_file.hpp"
#include "pipeline/gpu_channel_plan.hpp"
#if PRISM_HAVE_CUDA
#include "pipeline/cuda/cuda_channel.hpp"
#include "pipeline/cuda/cuda_fir.hpp"
#endif

namespace prism {

// ---- the stage around an engine ------------------------------------------------------------------

SampleEngineStage::SampleEngineStage(std::string name, unsigned channel, Planner planner, KeyNamer name_setting)
    : name_(std::move(name)), channel_(channel), planner_(std::move(planner)), name_setting_(std::move(name_setting)) {}

SampleEngineStage::~SampleEngineStage() = default;

std::string SampleEngineStage::describe() const { return active_ ? active_->describe() : "cpu: " + name_; }

PortDescription SampleEngineStage::configure(const PortDescription& input, std::size_t max_input_items) {
  input_ = input.samples;
  if (channel_ >= input_.channels)
    throw UsageError(name_setting_("channel") + " " + std::to_string(channel_) + " is out of range: the input has " +
                     std::to_string(input_.channels) + " channel(s)");
  StreamInfo floats = input_;
  floats.format = float_format(is_complex(input_.format));
  floats.channels = 1;
  floats.float_full_scale = input_.floats_have_full_scale();  // dBFS downstream
  EnginePlan plan = planner_(floats);
  engine_ = std::move(plan.engine);
  double_engine_ = std::move(plan.double_engine);
  active_ = double_engine_ ? static_cast<SampleEngineBase*>(double_engine_.get()) : engine_.get();
  const SampleFormat engine_format = float_format(is_complex(input_.format), double_engine_ != nullptr);
  const bool direct = input_.format == engine_format && input_.channels == 1;
  const std::size_t components = direct ? 0 : max_input_items * components_per_sample(input_.format);
  floats_.assign(double_engine_ ? 0 : components, 0.0f);
  doubles_.assign(double_engine_ ? components : 0, 0.0);
  gathered_.assign(input_.channels > 1 ? max_input_items * sample_bytes(input_.format) : 0, std::byte{0});
  return PortDescription::of_samples(plan.output);
}

std::size_t SampleEngineStage::max_output(std::size_t input_items) const { return active_->max_output(input_items); }

// The chunk's channel handed to the engine: as it is when it is already the engine's format and
// alone, else gathered from its frames and converted into `converted`.
template <typename Real>
std::size_t SampleEngineStage::run(SampleEngine<Real>& engine, std::vector<Real>& converted, const Chunk& input,
                                   Chunk& output) {
  const std::size_t n = input.items;
  if (converted.empty()) return engine.process(input.as<Real>(), n, output.as<Real>());
  const std::byte* native = input.data;
  if (!gathered_.empty()) {  // the channel's samples, side by side
    const std::size_t frame = input_.frame_bytes(), bytes = sample_bytes(input_.format);
    const std::byte* from = input.data + channel_ * bytes;
    for (std::size_t i = 0; i < n; ++i) std::memcpy(gathered_.data() + i * bytes, from + i * frame, bytes);
    native = gathered_.data();
  }
  const std::size_t components = n * components_per_sample(input_.format);
  if constexpr (std::is_same_v<Real, double>)
    convert_to_double(input_.format, native, components, converted.data());
  else
    convert_to_float(input_.format, native, components, converted.data());
  return engine.process(converted.data(), n, output.as<Real>());
}

std::size_t SampleEngineStage::process(const Chunk& input, Chunk& output) {
  return double_engine_ ? run(*double_engine_, doubles_, input, output) : run(*engine_, floats_, input, output);
}

std::size_t SampleEngineStage::flush(Chunk& output) {
  if (double_engine_) return double_engine_->flush(output.as<double>(), output.capacity);
  return engine_->flush(output.as<float>(), output.capacity);
}

void SampleEngineStage::reset() {
  if (active_) active_->reset();
}

StageCounters SampleEngineStage::counters() const {
  if (!active_) return {};
  const StreamCounters c = active_->counters();
  return {c.items_in, c.items_out, active_->extras()};
}

// ---- the engines' adapters -----------------------------------------------------------------------

namespace {

template <typename Engine, typename Real = float>
class Adapter final : public SampleEngine<Real> {
 public:
  Adapter(std::unique_ptr<Engine> engine, std::string description)
      : engine_(std::move(engine)), description_(std::move(description)) {}
  std::size_t max_output(std::size_t n) const override { return engine_->max_output(n); }
  std::size_t process(const Real* in, std::size_t n, Real* out) override { return engine_->process(in, n, out); }
  std::size_t flush(Real* out, std::size_t capacity) override { return engine_->flush(out, capacity); }
  void reset() override { engine_->reset(); }
  StreamCounters counters() const override {
    const auto c = engine_->counters();
    return {c.items_in, c.items_out};
  }
  std::string describe() const override { return description_; }
  std::vector<Counter> extras() const override {
    if constexpr (std::is_same_v<Engine, FirFilter>) return {{"segments", engine_->counters().segments}};
    return {};
  }
  Engine& engine() { return *engine_; }

 private:
  std::unique_ptr<Engine> engine_;
  std::string description_;
};

template <typename Engine, typename Real = float>
std::unique_ptr<SampleEngine<Real>> adapt(std::unique_ptr<Engine> engine, std::string description) {
  return std::make_unique<Adapter<Engine, Real>>(std::move(engine), std::move(description));
}

std::string hz_text(double hz) { return number_text(hz) + " Hz"; }

// An engine's or a design's error ("field: reason") told with the setting's name as the user
// wrote it, where the field is one of the stage's settings.
[[noreturn]] void rethrow_named(const UsageError& e, const SettingValues& values,
                                const std::vector<std::pair<std::string, std::string>>& fields) {
  const std::string what = e.what();
  for (const auto& [field, key] : fields) {
    if (what.rfind(field + ": ", 0) == 0 || what.rfind(field + "=", 0) == 0)
      throw UsageError(values.name(key) + what.substr(field.size()));
  }
  throw UsageError(values.about(what));
}

// "F1:F2" in Hz; UsageError naming the setting.
std::vector<double> parse_edges(const SettingValues& values, const std::string& key) {
  const std::string& text = values.text(key);
  const std::size_t colon = text.find(':');
  const std::optional<double> a = colon == std::string::npos ? std::nullopt : parse_number(text.substr(0, colon));
  const std::optional<double> b = colon == std::string::npos ? std::nullopt : parse_number(text.substr(colon + 1));
  if (!a || !b) throw UsageError(values.name(key) + ": '" + printable(text) + "' is not F1:F2 in Hz (e.g. 300:3400)");
  return {*a, *b};
}

unsigned channel_of(const SettingValues& values) { return static_cast<unsigned>(values.integer("channel")); }

Setting channel_setting() {
  return integer_setting("channel", "0", 0, 65535, "C", "channel of a multi-channel input (0-based)");
}

Setting precision_setting(const char* where_double_runs) {
  return choice_setting("precision", "single", {"single", "double"},
                        std::string("single: float32 arithmetic, f32/cf32 out; double: float64 throughout (") +
                            where_double_runs + "), f64/cf64 out");
}
Setting precision_setting() { return precision_setting("CPU backend"); }

// precision=double of shift, resample, gain and the demodulators runs on the CPU (their GPU forms
// compute in float): a usage error naming the setting on backend cuda or cufft; on automatic, a
// note where a GPU would have been taken. (The fir has a GPU form in double.)
void place_double_on_cpu(const std::string& stage, const SettingValues& values, const StageEnvironment& environment,
                         MadeStage& made) {
#if PRISM_HAVE_CUDA
  const fft::BackendKind requested = environment.backend;
  if (requested == fft::BackendKind::cuda || requested == fft::BackendKind::cufft)
    throw UsageError(values.name("precision") + "=double: the " + environment.backend_named(requested) + " " + stage +
                     " computes in single precision; double runs on the cpu backend");
  if (requested == fft::BackendKind::automatic && fft::backend_availability(fft::BackendKind::cufft).available)
    made.note = environment.backend_named(fft::BackendKind::automatic) + ": the GPU " + stage +
                " computes in single precision; " + values.name("precision") + "=double runs on the CPU backend";
#else
  (void)stage;
  (void)values;
  (void)made;
  require_backend(environment);  // automatic gives the CPU; cuda/cufft throw the reason
#endif
}

std::uint64_t divided_length(std::uint64_t length, std::uint64_t up, std::uint64_t down) {
  return (length * up + down - 1) / down;
}

// ---- fir ---------------------------------------------------------------------------------------

const std::vector<std::string> kBandKeys = {"lowpass", "highpass", "bandpass", "bandstop", "complex_bandpass"};

std::vector<Setting> fir_settings() {
  return {
      number_setting("lowpass", "", 0, INFINITY, "F", "low-pass: passes 0..F Hz"),
      number_setting("highpass", "", 0, INFINITY, "F", "high-pass: passes F Hz..rate/2"),
      text_setting("bandpass", "", "F1:F2", "band-pass: passes F1..F2 Hz"),
      text_setting("bandstop", "", "F1:F2", "band-stop: stops F1..F2 Hz"),
      text_setting("complex_bandpass", "", "F1:F2",
                   "complex band-pass: passes F1..F2 Hz of a complex signal only (either may be negative)"),
      text_setting("taps", "", "FILE", "taps from a file instead of a design: .npy, .txt or .json (prism design writes them)"),
      integer_setting("numtaps", "", 1, static_cast<double>(kMaxDesignTaps), "N",
                      "number of taps (with window, or with transition: firwin's width)"),
      number_setting("transition", "", 0, INFINITY, "W", "transition width around each edge, Hz"),
      number_setting("attenuation", "", 8, 300, "DB",
                     "stopband attenuation to reach with transition (Kaiser's formula chooses numtaps), dB"),
      text_setting("window", "", "NAME[:P]", "window of a numtaps design (default hamming, firwin's)"),
      number_setting("shift", "", -INFINITY, INFINITY, "HZ",
                     "shift by -HZ before filtering: the signal at +HZ comes to 0 Hz (the centre frequency moves by HZ)"),
      integer_setting("decimate", "1", 1, static_cast<double>(kMaxDecimation), "D",
                      "keep every D-th output (computed only those); the rate is divided by D"),
      choice_setting("align", "causal", {"causal", "same"},
                     "causal: lfilter(h, 1, x)[::D]; same: the group delay removed, oaconvolve(x, h, 'same')[::D]"),
      integer_setting("fft_length", "0", 0, static_cast<double>(kMaxFftLength), "N",
                      "FFT length (0: the cost model's choice)"),
      precision_setting("CPU backend, or a GPU with cuda or cufft"),
      channel_setting(),
  };
}

MadeStage make_fir(const SettingValues& values, const StageEnvironment& environment) {
  std::vector<std::string> given;
  for (const std::string& key : kBandKeys)
    if (values.given(key)) given.push_back(key);
  if (values.given("taps")) given.push_back("taps");
  if (given.size() != 1) {
    std::vector<std::string> keys = kBandKeys;
    keys.push_back("taps");
    throw UsageError(values.about(given.empty() ? "give the filter with one of " + values.spelled(keys)
                                                : "give one filter, not " + values.spelled({given[0], given[1]})));
  }
  const std::string band_key = given.front();
  std::optional<FilterTaps> file_taps;
  FilterDesignSpec design;
  if (band_key == "taps") {
    for (const char* key : {"numtaps", "transition", "attenuation", "window"})
      if (values.given(key)) throw UsageError(values.name(key) + ": taps come from the file; designs only take it");
    file_taps = read_taps_file(values.text("taps"));
  } else {
    if (band_key == "lowpass") design.band = BandKind::lowpass;
    if (band_key == "highpass") design.band = BandKind::highpass;
    if (band_key == "bandpass") design.band = BandKind::bandpass;
    if (band_key == "bandstop") design.band = BandKind::bandstop;
    if (band_key == "complex_bandpass") design.band = BandKind::complex_bandpass;
    if (band_key == "lowpass" || band_key == "highpass") design.edges = {values.number(band_key)};
    else design.edges = parse_edges(values, band_key);
    if (values.given("numtaps")) design.numtaps = static_cast<std::size_t>(values.integer("numtaps"));
    if (values.given("transition")) design.transition = values.number("transition");
    if (values.given("attenuation")) design.attenuation = values.number("attenuation");
    if (values.given("window")) {
      try {
        design.window = parse_window(values.text("window"));
      } catch (const UsageError& e) {
        throw UsageError(values.name("window") + ": " + e.what());
      }
    }
    if (!design.numtaps && !(design.transition && design.attenuation))
      throw UsageError(values.name("numtaps") + ": give numtaps=N, or transition=W and attenuation=DB");
  }
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"edges", band_key}, {"numtaps", "numtaps"}, {"transition", "transition"},   {"attenuation", "attenuation"},
      {"window", "window"}, {"taps", "taps"},      {"decimate", "decimate"},       {"shift", "shift"},
      {"fft_length", "fft_length"}, {"sample_rate", band_key}};
  const std::optional<double> shift = values.number_if_set("shift");
  const auto decimation = static_cast<std::size_t>(values.integer("decimate"));
  const FirAlign align = values.text("align") == "same" ? FirAlign::same : FirAlign::causal;
  const auto fft_length = static_cast<std::size_t>(values.integer("fft_length"));
  const bool double_precision = values.text("precision") == "double";
  const unsigned threads = environment.cpu_threads;
  // The filter for an input and what comes out: the same on either backend.
  auto design_for = [=](const StreamInfo& input) {
    FirSpec spec;
    if (file_taps) {
      spec.taps = *file_taps;
    } else {
      FilterDesignSpec with_rate = design;
      with_rate.sample_rate = input.sample_rate;
      spec.taps = design_filter(with_rate).taps;
    }
    spec.complex_input = is_complex(input.format);
    spec.sample_rate = input.sample_rate;
    spec.shift_hz = shift;
    spec.decimation = decimation;
    spec.align = align;
    spec.fft_length = fft_length;
    spec.threads = threads;
    spec.double_precision = double_precision;
    StreamInfo output = input;
    const bool complex_output = spec.complex_input || spec.taps.is_complex || shift;
    output.format = float_format(complex_output, double_precision);
    output.float_full_scale = input.floats_have_full_scale();
    output.sample_rate = input.sample_rate / static_cast<double>(decimation);
    if (shift) output.shift_frequencies(*shift);
    if (input.length) output.length = divided_length(*input.length, 1, decimation);
    return std::make_pair(spec, output);
  };
  MadeStage made;
#if PRISM_HAVE_CUDA
  fft::BackendKind requested = environment.backend;
  if (requested == fft::BackendKind::automatic && !fft::backend_availability(fft::BackendKind::cufft).available)
    requested = fft::BackendKind::cpu;
  if (requested == fft::BackendKind::automatic && double_precision) {
    // Not measured against the CPU's double filter yet: auto keeps it there, and names the choice.
    requested = fft::BackendKind::cpu;
    made.note = environment.backend_named(fft::BackendKind::automatic) + ": the fir in double runs on the CPU backend (" +
                environment.backend_named(fft::BackendKind::cuda) + " or " +
                environment.backend_named(fft::BackendKind::cufft) + " takes the GPU)";
  }
  if (requested == fft::BackendKind::automatic) {
    // The GPU takes any tap count (partitioned beyond kGpuFirMaxUnpartitionedAutoTaps) and the FFT
    // lengths gpu_fir_takes_fft_length names; where the tap count waits for the input's rate
    // (transition=, attenuation=) auto keeps the CPU.
    const std::optional<std::size_t> taps =
        file_taps ? std::optional<std::size_t>(file_taps->size()) : design.numtaps;
    const bool fits = taps && (fft_length == 0 || gpu_fir_takes_fft_length(fft_length));
    if (!fits) {
      requested = fft::BackendKind::cpu;
      made.note = environment.backend_named(fft::BackendKind::automatic) + ": " +
                  std::string(taps ? "the GPU fir takes FFT lengths that are powers of two from " +
                                         std::to_string(kGpuFirMinFftLength) + " to " +
                                         std::to_string(kGpuFirMaxFftLength)
                                   : std::string("the fir's tap count depends on the input's rate")) +
                  "; it runs on the CPU backend";
    }
  }
  if (requested != fft::BackendKind::cpu) {
    // In double precision --backend cufft takes cuFFT's double plans for the transforms, cuda our
    // FP64 FFT.
    const bool cufft_double = requested == fft::BackendKind::cufft;
    auto gpu_planner = [=](const StreamInfo& input) {
      try {
        auto [spec, output] = design_for(input);
        check_fir_spec(spec);  // here, so that its errors name the settings as the CPU's do
        cuda::CudaFir::Design design{spec, output};
        design.cufft_double = cufft_double;
        return design;
      } catch (const UsageError& e) {
        rethrow_named(e, values, fields);
      }
    };
    const auto make_gpu = [&] {
      return std::make_unique<cuda::CudaFir>(channel_of(values), gpu_planner, environment.device, values.namer());
    };
    if (made_on_gpu(made, requested, environment, make_gpu)) return made;
  }
#else
  require_backend(environment);  // automatic gives the CPU; cuda/cufft throw the reason
#endif
  auto planner = [=](const StreamInfo& input) {
    try {
      auto [spec, output] = design_for(input);
      auto filter = std::make_unique<FirFilter>(spec);
      EnginePlan plan;
      plan.output = output;
      std::string text = filter->describe();
      if (spec.double_precision) plan.double_engine = adapt<FirFilter, double>(std::move(filter), std::move(text));
      else plan.engine = adapt(std::move(filter), std::move(text));
      return plan;
    } catch (const UsageError& e) {
      rethrow_named(e, values, fields);
    }
  };
  made.stage = std::make_unique<SampleEngineStage>("fir", channel_of(values), planner, values.namer());
  return made;
}

// ---- the channel stages' backends ------------------------------------------------------------------

// A channel stage's engine for an input, what it outputs and how the CPU's form describes itself.
template <typename Engine>
struct ChannelEngine {
  std::unique_ptr<Engine> engine;
  StreamInfo output;
  std::string text;
};

// shift, resample, gain and the demodulators: with precision=double (where the stage has it:
// `make64` given), on the CPU in double; else on the GPU (CudaChannel, planned from the same
// engine) unless the backend is cpu (make_stage gives these the CPU on automatic unless their
// input is on the GPU) or automatic finds no GPU; else on the CPU.
template <typename Engine, typename MakeDouble = std::nullptr_t>
MadeStage channel_stage(const std::string& name, const SettingValues& values, const StageEnvironment& environment,
                        std::function<ChannelEngine<Engine>(const StreamInfo&)> make,
                        std::function<GpuChannelPlan(const Engine&)> gpu_plan, MakeDouble make64 = nullptr) {
  MadeStage made;
  if constexpr (!std::is_null_pointer_v<MakeDouble>) {
    if (values.text("precision") == "double") {
      place_double_on_cpu(name, values, environment, made);
      auto planner = [make64](const StreamInfo& input) {
        auto m = make64(input);
        using Engine64 = typename decltype(m.engine)::element_type;
        EnginePlan plan;
        plan.output = m.output;
        plan.double_engine = adapt<Engine64, double>(std::move(m.engine), "cpu: " + m.text + ", in double precision");
        return plan;
      };
      made.stage = std::make_unique<SampleEngineStage>(name, channel_of(values), planner, values.namer());
      return made;
    }
  }
#if PRISM_HAVE_CUDA
  const fft::BackendKind requested = environment.backend;
  const bool on_gpu = requested == fft::BackendKind::automatic
                          ? fft::backend_availability(fft::BackendKind::cufft).available
                          : requested != fft::BackendKind::cpu;
  if (on_gpu) {
    auto planner = [make, gpu_plan](const StreamInfo& input) {
      ChannelEngine<Engine> m = make(input);
      return cuda::CudaChannel::Design{gpu_plan(*m.engine), m.output};
    };
    const auto make_gpu = [&] {
      return std::make_unique<cuda::CudaChannel>(name, channel_of(values), planner, environment.device, values.namer());
    };
    if (made_on_gpu(made, requested, environment, make_gpu)) return made;
  }
#else
  (void)gpu_plan;
  require_backend(environment);  // automatic gives the CPU; cuda/cufft throw the reason
#endif
  auto planner = [make](const StreamInfo& input) {
    ChannelEngine<Engine> m = make(input);
    EnginePlan plan;
    plan.output = m.output;
    plan.engine = adapt(std::move(m.engine), "cpu: " + m.text);
    return plan;
  };
  made.stage = std::make_unique<SampleEngineStage>(name, channel_of(values), planner, values.namer());
  return made;
}

// ---- shift -------------------------------------------------------------------------------------

MadeStage make_shift(const SettingValues& values, const StageEnvironment& environment) {
  if (!values.given("frequency")) throw UsageError(values.name("frequency") + ": give the shift in Hz (shift:-250e3)");
  const double frequency = values.number("frequency");
  auto make_in = [=](bool double_precision) {
    return [=](const StreamInfo& input) {
      try {
        MixerSpec spec;
        spec.frequency_hz = frequency;
        spec.sample_rate = input.sample_rate;
        spec.complex_input = is_complex(input.format);
        ChannelEngine<Mixer> m{std::make_unique<Mixer>(spec), input, "shift by " + hz_text(-frequency) + " (exact phase)"};
        m.output.format = float_format(true, double_precision);  // complex, whatever the input
        m.output.shift_frequencies(frequency);
        return m;
      } catch (const UsageError& e) {
        rethrow_named(e, values, {{"frequency_hz", "frequency"}, {"sample_rate", "frequency"}});
      }
    };
  };
  return channel_stage<Mixer>(
      "shift", values, environment, make_in(false), [](const Mixer& mixer) { return gpu_shift_plan(mixer); },
      make_in(true));
}

// ---- resample ----------------------------------------------------------------------------------

MadeStage make_resample(const SettingValues& values, const StageEnvironment& environment) {
  const bool by_rate = values.given("rate");
  if (by_rate == (values.given("up") || values.given("down")))
    throw UsageError(values.name("rate") + ": give the output rate (resample:48000), or up and down, not both");
  const std::optional<double> rate = values.number_if_set("rate");
  const auto up = static_cast<std::uint64_t>(values.integer("up"));
  const auto down = static_cast<std::uint64_t>(values.integer("down"));
  auto make_for = [=]<typename Real>(const StreamInfo& input) {
    try {
      ResamplerSpec spec;
      if (rate) {
        const ResampleRatio ratio = resample_ratio(input.sample_rate, *rate);
        spec.up = ratio.up;
        spec.down = ratio.down;
      } else {
        spec.up = up;
        spec.down = down;
      }
      spec.complex_input = is_complex(input.format);
      auto resampler = std::make_unique<BasicResampler<Real>>(spec);
      StreamInfo output = input;
      output.sample_rate = input.sample_rate * static_cast<double>(resampler->up()) / static_cast<double>(resampler->down());
      if (input.length) output.length = divided_length(*input.length, resampler->up(), resampler->down());
      output.format = float_format(spec.complex_input, std::is_same_v<Real, double>);
      std::string text = "resample by " + std::to_string(resampler->up()) + "/" + std::to_string(resampler->down()) +
                         " (polyphase, " + std::to_string(resampler->taps().size()) +
                         " taps, scipy.signal.resample_poly's)";
      return ChannelEngine<BasicResampler<Real>>{std::move(resampler), output, std::move(text)};
    } catch (const UsageError& e) {
      rethrow_named(e, values, {{"output_rate", "rate"}, {"input_rate", "rate"}, {"up", "up"}, {"down", "down"}});
    }
  };
  std::function<ChannelEngine<Resampler>(const StreamInfo&)> make = [make_for](const StreamInfo& input) {
    return make_for.template operator()<float>(input);
  };
  auto make64 = [make_for](const StreamInfo& input) { return make_for.template operator()<double>(input); };
  return channel_stage<Resampler>(
      "resample", values, environment, make, [](const Resampler& r) { return gpu_resample_plan(r); }, make64);
}

// ---- the demodulators ----------------------------------------------------------------------------

std::vector<Setting> demodulator_settings(DemodulatorKind kind) {
  std::vector<Setting> s;
  switch (kind) {
    case DemodulatorKind::am:
      s.push_back(number_setting("dc_corner", "20", 0, INFINITY, "HZ",
                                 "corner of the high-pass that removes the carrier's DC, Hz (0: none)"));
      break;
    case DemodulatorKind::fm:
      s.push_back(choice_setting("band", "narrow", {"narrow", "wide"},
                                 "narrow (5 kHz deviation, no de-emphasis) or wide (75 kHz, 50 us: broadcast)"));
      s.push_back(number_setting("deviation", "", 0, INFINITY, "HZ", "frequency deviation that gives full scale, Hz")
                      .default_depends("5000 narrow, 75000 wide"));
      s.push_back(number_setting("deemphasis", "", 0, INFINITY, "US", "de-emphasis time constant, us (0: none; 50 or 75)")
                      .default_depends("0 narrow, 50 wide"));
      break;
    case DemodulatorKind::usb:
    case DemodulatorKind::lsb:
      s.push_back(number_setting("low", "300", 0, INFINITY, "HZ", "audio band's low edge, Hz"));
      s.push_back(number_setting("high", "3000", 0, INFINITY, "HZ", "audio band's high edge, Hz"));
      s.push_back(number_setting("transition", "200", 0, INFINITY, "HZ", "sideband filter's transition, Hz"));
      s.push_back(number_setting("attenuation", "60", 20, 300, "DB", "sideband filter's attenuation, dB"));
      break;
    case DemodulatorKind::cw:
      s.push_back(number_setting("bfo", "700", -INFINITY, INFINITY, "HZ", "beat frequency: the tone's pitch, Hz"));
      break;
  }
  return s;
}

StageKind demodulator_kind(DemodulatorKind kind, std::string summary, std::string positional = {}) {
  StageKind k;
  k.name = std::string(demodulator_name(kind));
  k.summary = std::move(summary);
  k.input = PortKind::samples;
  k.output = PortKind::samples;
  k.settings = demodulator_settings(kind);
  k.settings.push_back(channel_setting());
  k.positional = std::move(positional);
  k.gpu_kernel = true;
  k.gpu_after_gpu_only = true;
  k.make = [kind, name = k.name](const SettingValues& values, const StageEnvironment& environment) {
    DemodulatorSpec spec;
    spec.kind = kind;
    switch (kind) {
      case DemodulatorKind::am: spec.dc_corner_hz = values.number("dc_corner"); break;
      case DemodulatorKind::fm:
        spec.fm_bandwidth = values.text("band") == "wide" ? FmBandwidth::wide : FmBandwidth::narrow;
        spec.deviation_hz = values.number_if_set("deviation");
        spec.deemphasis_us = values.number_if_set("deemphasis");
        break;
      case DemodulatorKind::usb:
      case DemodulatorKind::lsb:
        spec.low_hz = values.number("low");
        spec.high_hz = values.number("high");
        spec.transition_hz = values.number("transition");
        spec.attenuation_db = values.number("attenuation");
        break;
      case DemodulatorKind::cw: spec.bfo_hz = values.number("bfo"); break;
    }
    std::function<ChannelEngine<Demodulator>(const StreamInfo&)> make = [=](const StreamInfo& input) {
      if (!is_complex(input.format))
        throw UsageError(name + " takes complex (I/Q) baseband samples; this input is real");
      try {
        DemodulatorSpec with_rate = spec;
        with_rate.sample_rate = input.sample_rate;
        ChannelEngine<Demodulator> m{std::make_unique<Demodulator>(with_rate), input, name + " demodulator"};
        m.output.format = SampleFormat::f32;
        m.output.center_frequency = 0.0;  // audio
        m.output.float_full_scale = false;  // a demodulator's audio has no full scale of the input's
        m.output.retunes.clear();
        m.output.annotations.clear();
        return m;
      } catch (const UsageError& e) {
        rethrow_named(e, values,
                      {{"dc_corner_hz", "dc_corner"}, {"deviation_hz", "deviation"}, {"deemphasis_us", "deemphasis"},
                       {"low_hz", "low"}, {"high_hz", "high"}, {"transition_hz", "transition"},
                       {"attenuation_db", "attenuation"}, {"bfo_hz", "bfo"}});
      }
    };
    return channel_stage<Demodulator>(name, values, environment, make,
                                      [](const Demodulator& d) { return gpu_demodulator_plan(d); });
  };
  return k;
}

// ---- gain --------------------------------------------------------------------------------------

MadeStage make_gain(const SettingValues& values, const StageEnvironment& environment) {
  if (values.given("db") == values.given("linear"))
    throw UsageError(values.name("db") + ": give the gain in dB (gain:6) or as a factor (gain:linear=0.5), one of them");
  GainSpec spec;
  spec.decibels = values.given("db");
  spec.value = spec.decibels ? values.number("db") : values.number("linear");
  auto make_in = [=](bool double_precision) {
    return [=](const StreamInfo& input) {
      try {
        GainSpec with_input = spec;
        with_input.complex_input = is_complex(input.format);
        auto gain = std::make_unique<Gain>(with_input);
        char text[96];
        std::snprintf(text, sizeof text, "gain x%g", gain->factor());
        ChannelEngine<Gain> m{std::move(gain), input, text};
        m.output.format = float_format(with_input.complex_input, double_precision);
        return m;
      } catch (const UsageError& e) {
        rethrow_named(e, values, {{"value", spec.decibels ? "db" : "linear"}});
      }
    };
  };
  return channel_stage<Gain>(
      "gain", values, environment, make_in(false), [](const Gain& g) { return gpu_gain_plan(g); }, make_in(true));
}

}  // namespace

std::vector<StageKind> sample_stage_kinds() {
  std::vector<StageKind> kinds;
  StageKind fir;
  fir.name = "fir";
  fir.summary =
      "FIR filter by FFT convolution (overlap-save), with exact state across chunks: taps designed as "
      "scipy.signal.firwin/kaiserord or read from a file, a shift before it, decimation inside it";
  fir.settings = fir_settings();
  fir.gpu_kernel = true;
  fir.make = make_fir;
  kinds.push_back(fir);

  StageKind shift;
  shift.name = "shift";
  shift.summary = "frequency shift x[n]*exp(-j2*pi*f*n/fs), phase continuous: the signal at +f comes to 0 Hz";
  shift.settings = {number_setting("frequency", "", -INFINITY, INFINITY, "HZ", "the shift f, Hz"), precision_setting(),
                    channel_setting()};
  shift.positional = "frequency";
  shift.make = make_shift;
  shift.gpu_kernel = true;
  shift.gpu_after_gpu_only = true;
  kinds.push_back(shift);

  StageKind resample;
  resample.name = "resample";
  resample.summary = "rational resampling up/down, polyphase, as scipy.signal.resample_poly";
  resample.settings = {number_setting("rate", "", 0, INFINITY, "HZ", "output rate, Hz (up/down from the two rates)"),
                       integer_setting("up", "1", 1, static_cast<double>(kMaxResampleTerm), "U", "upsampling factor"),
                       integer_setting("down", "1", 1, static_cast<double>(kMaxResampleTerm), "D", "downsampling factor"),
                       precision_setting(), channel_setting()};
  resample.positional = "rate";
  resample.make = make_resample;
  resample.gpu_kernel = true;
  resample.gpu_after_gpu_only = true;
  kinds.push_back(resample);

  kinds.push_back(demodulator_kind(DemodulatorKind::am, "AM demodulator: the envelope |x|, DC removed"));
  kinds.push_back(demodulator_kind(DemodulatorKind::fm, "FM demodulator: quadrature discriminator, de-emphasis", "band"));
  kinds.push_back(demodulator_kind(DemodulatorKind::usb, "upper sideband: complex band-pass, then the real part"));
  kinds.push_back(demodulator_kind(DemodulatorKind::lsb, "lower sideband: complex band-pass, then the real part"));
  kinds.push_back(demodulator_kind(DemodulatorKind::cw, "CW: a beat frequency oscillator, then the real part"));

  StageKind gain;
  gain.name = "gain";
  gain.summary = "a gain in dB or as a linear factor";
  gain.settings = {number_setting("db", "", -INFINITY, INFINITY, "DB", "gain in dB (an amplitude factor 10^(dB/20))"),
                   number_setting("linear", "", -INFINITY, INFINITY, "G", "gain as a factor"), precision_setting(),
                   channel_setting()};
  gain.positional = "db";
  gain.make = make_gain;
  gain.gpu_kernel = true;
  gain.gpu_after_gpu_only = true;
  kinds.push_back(gain);
  for (StageKind& k : kinds) {
    k.input = PortKind::samples;
    k.output = PortKind::samples;
  }
  return kinds;
}

}  // namespace prism
