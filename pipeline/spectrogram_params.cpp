// SpectrogramParams (spectrogram_params.hpp): the settings' declarations, range checks with
// messages that name the setting as it was written, and the names of the enumerations as the CLI
// and the sidecars write them.
#include "pipeline/spectrogram_params.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/window.hpp"

namespace prism {

SpectrogramParams SpectrogramParams::resolved() const {
  SpectrogramParams p = *this;
  if (p.noverlap == kUnset) p.noverlap = p.nperseg / 8;
  if (p.nfft == kUnset) p.nfft = p.nperseg;
  return p;
}

void SpectrogramParams::validate(const KeyNamer& name) const {
  if (noverlap == kUnset || nfft == kUnset) {
    resolved().validate(name);
    return;
  }
  if (nperseg < 1) throw UsageError(name("nperseg") + " must be at least 1 (got " + std::to_string(nperseg) + ")");
  if (noverlap >= nperseg)
    throw UsageError(name("noverlap") + " (" + std::to_string(noverlap) + ") must be less than " + name("nperseg") +
                     " (" + std::to_string(nperseg) + ")");
  if (nfft < nperseg)
    throw UsageError(name("nfft") + " (" + std::to_string(nfft) + ") must be at least " + name("nperseg") + " (" +
                     std::to_string(nperseg) + ")");
  if (average < 1) throw UsageError(name("average") + " must be at least 1 (got " + std::to_string(average) + ")");
  if (keeps_phase() && average > 1)
    throw UsageError(name("mode") + " " + to_string(mode) + " cannot be averaged over frames (" + name("average") +
                     " " + std::to_string(average) + ")");
  if (keeps_phase() && decibels)
    throw UsageError(name("mode") + " " + to_string(mode) + " has no dB form (" + name("db") + ")");
  if (const std::string problem = window_problem(window, nperseg, WindowSymmetry::periodic); !problem.empty())
    throw UsageError(name("window") + ": " + problem + " (" + name("nperseg") + " " + std::to_string(nperseg) + ")");
  if (!is_mel()) return;
  auto number = [](double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  if (n_mels < 1) throw UsageError(name("n_mels") + " must be at least 1 (got " + std::to_string(n_mels) + ")");
  if (!(power > 0)) throw UsageError(name("power") + " must be positive (got " + number(power) + ")");
  if (!(f_min >= 0)) throw UsageError(name("f_min") + " must be at least 0 Hz (got " + number(f_min) + ")");
  if (f_max && !(f_min < *f_max))
    throw UsageError(name("f_min") + " (" + number(f_min) + " Hz) must be below " + name("f_max") + " (" +
                     number(*f_max) + " Hz)");
  if (frequency_range)
    throw UsageError(name("frequency_range") + " does not apply to " + name("mode") + " " + to_string(mode) +
                     ": its bands are chosen by " + name("f_min") + " and " + name("f_max"));
  if (mode != SpectrumMode::mfcc) return;
  if (n_mfcc < 1 || n_mfcc > n_mels)
    throw UsageError(name("n_mfcc") + " (" + std::to_string(n_mfcc) + ") must be from 1 to " + name("n_mels") + " (" +
                     std::to_string(n_mels) + "): the cepstrum has one coefficient per mel band");
  if (decibels)
    throw UsageError(name("mode") + " mfcc is taken from the mel energies in dB already (" + name("db") +
                     " does not apply; " + name("log_mels") + " takes their natural log instead)");
}

// Segment lengths up to 2^24 samples: every buffer sized from them stays far below memory.
constexpr double kMaxSegment = 16777216;

const std::vector<Setting>& spectrogram_settings() {
  static const std::vector<Setting> settings = {
      text_setting("window", "tukey:0.25", "NAME[:P]", "window: " + window_names_help() +
                       "; parameters left out take scipy's defaults (tukey alone is tukey:0.5, as "
                       "scipy.signal.get_window)"),
      integer_setting("nperseg", "256", 1, kMaxSegment, "N", "samples per segment (frame)"),
      integer_setting("noverlap", "", 0, kMaxSegment - 1, "N", "samples shared by consecutive segments, < nperseg")
          .default_depends("nperseg/8"),
      integer_setting("nfft", "", 1, kMaxSegment, "N", "FFT length >= nperseg; segments are zero-padded")
          .default_depends("nperseg"),
      choice_setting("detrend", "constant", {"none", "constant", "linear"},
                     "remove each segment's mean (constant), its least-squares line (linear; CPU backend "
                     "only) or nothing (none)"),
      choice_setting("scaling", "density", {"density", "spectrum"}, "density (V**2/Hz) or spectrum (V**2)"),
      choice_setting("mode", "psd", {"psd", "magnitude", "complex", "angle", "phase", "mel", "mfcc"},
                     "psd (power), magnitude (|X|), complex (X, to .npy as complex64), angle (arg X, rad), phase "
                     "(angle unwrapped along frequency), mel (torchaudio's MelSpectrogram: mel bands of |X|**power) or "
                     "mfcc (torchaudio's MFCC: DCT-II ortho of the mel bands in dB); complex, angle and phase: no db, "
                     "no average, CPU backend"),
      flag_setting("db", "output in dB: 10*log10(power), 20*log10(magnitude), floored at -300 dB; mode mel: "
                         "(20/power)*log10, floored at 1e-10 (torchaudio's AmplitudeToDB without top_db)"),
      text_setting("average", "1", "K[:mean|max]", "K consecutive frames per output row, by mean or max (peak hold)"),
      text_setting("frequency_range", "", "LO:HI",
                   "keep only the bins from LO to HI Hz (baseband, as the rows' frequencies; within the input's "
                   "band; CPU backend only)"),
      integer_setting("channel", "0", 0, 65535, "C", "channel of a multi-channel input (0-based)"),
      choice_setting("integer_scale", "unit", {"unit", "raw"},
                     "integer samples as unit: scaled to [-1, 1), or raw: the stored values, as numpy sees them"),
      choice_setting("precision", "single", {"single", "double"},
                     "single (float32 rows, the FFT in single precision) or double (float64 rows, the samples, "
                     "the FFT and the rows in double precision)"),
      integer_setting("n_mels", "128", 1, 65536, "N",
                      "mode mel, mfcc: mel bands (filters) per row (mfcc on a GPU: at most 8192)"),
      number_setting("f_min", "0", 0, 1e12, "HZ", "mode mel, mfcc: the lowest band's lower edge"),
      number_setting("f_max", "", 0, 1e12, "HZ",
                     "mode mel, mfcc: the highest band's upper edge, at most fs/2; default the sample rate halved "
                     "and rounded down, as torchaudio")
          .default_depends("fs//2"),
      choice_setting("mel_scale", "htk", {"htk", "slaney"},
                     "mode mel, mfcc: Hz to mel as htk (2595*log10(1 + f/700)) or slaney (linear below 1 kHz, "
                     "logarithmic above)"),
      choice_setting("mel_norm", "none", {"none", "slaney"},
                     "mode mel, mfcc: triangles of peak 1 (none) or of unit area (slaney: divided by half their "
                     "width in Hz)"),
      number_setting("power", "2", 0, 1e6, "P",
                     "mode mel, mfcc: the bands sum |X|**P of the unscaled DFT (2: power, 1: magnitude); scaling "
                     "does not apply"),
      integer_setting("n_mfcc", "40", 1, 65536, "N", "mode mfcc: cepstral coefficients kept per row, <= n_mels"),
      flag_setting("log_mels", "mode mfcc: the natural log ln(mel + 1e-6) of the mel energies rather than "
                               "10*log10(max(mel, 1e-10))"),
  };
  return settings;
}

SpectrogramParams spectrogram_params_from(const SettingValues& values) {
  SpectrogramParams p;
  try {
    p.window = parse_window(values.text("window"));
  } catch (const UsageError& e) {
    throw UsageError(values.name("window") + ": " + e.what());
  }
  p.nperseg = static_cast<std::size_t>(values.integer("nperseg"));
  p.noverlap = static_cast<std::size_t>(values.integer_if_set("noverlap").value_or(static_cast<std::int64_t>(p.nperseg / 8)));
  p.nfft = static_cast<std::size_t>(values.integer_if_set("nfft").value_or(static_cast<std::int64_t>(p.nperseg)));
  const std::string detrend = values.text("detrend");
  p.detrend = detrend == "none" ? Detrend::none : detrend == "linear" ? Detrend::linear : Detrend::constant;
  p.scaling = values.text("scaling") == "spectrum" ? Scaling::spectrum : Scaling::density;
  const std::string& mode = values.text("mode");
  p.mode = mode == "magnitude" ? SpectrumMode::magnitude
           : mode == "complex" ? SpectrumMode::complex
           : mode == "angle"   ? SpectrumMode::angle
           : mode == "phase"   ? SpectrumMode::phase
           : mode == "mel"     ? SpectrumMode::mel
           : mode == "mfcc"    ? SpectrumMode::mfcc
                               : SpectrumMode::psd;
  p.decibels = values.flag("db");
  const std::string& average = values.text("average");
  const std::size_t colon = average.find(':');
  const std::optional<std::int64_t> k = parse_integer(average.substr(0, colon));
  if (!k || *k < 1 || *k > 1 << 24)
    throw UsageError(values.name("average") + ": '" + printable(average) +
                     "': expected K[:mean|max] with K from 1 to 16777216, e.g. 8:max");
  p.average = static_cast<std::size_t>(*k);
  if (colon != std::string::npos) {
    const std::string kind = average.substr(colon + 1);
    if (kind == "mean") p.average_kind = AverageKind::mean;
    else if (kind == "max") p.average_kind = AverageKind::max;
    else throw UsageError(values.name("average") + ": '" + printable(average) + "': the kind must be mean or max");
  }
  if (const std::string& range = values.text("frequency_range"); !range.empty()) {
    const std::size_t colon = range.find(':');
    const std::optional<double> low = colon == std::string::npos ? std::nullopt : parse_number(range.substr(0, colon));
    const std::optional<double> high = colon == std::string::npos ? std::nullopt : parse_number(range.substr(colon + 1));
    if (!low || !high)
      throw UsageError(values.name("frequency_range") + " '" + printable(range) +
                       "': expected LO:HI in Hz, e.g. 0:4000 or -100e3:100e3");
    if (!(*low < *high))
      throw UsageError(values.name("frequency_range") + " '" + printable(range) + "': LO must be less than HI");
    p.frequency_range = std::make_pair(*low, *high);
  }
  p.channel = static_cast<unsigned>(values.integer("channel"));
  p.integer_scale = values.text("integer_scale") == "raw" ? IntegerScale::raw : IntegerScale::unit;
  p.double_precision = values.text("precision") == "double";
  p.n_mels = static_cast<std::size_t>(values.integer("n_mels"));
  p.f_min = values.number("f_min");
  p.f_max = values.number_if_set("f_max");
  p.mel_scale = values.text("mel_scale") == "slaney" ? MelScale::slaney : MelScale::htk;
  p.mel_norm = values.text("mel_norm") == "slaney" ? MelNorm::slaney : MelNorm::none;
  p.power = values.number("power");
  p.n_mfcc = static_cast<std::size_t>(values.integer("n_mfcc"));
  p.log_mels = values.flag("log_mels");
  // Settings that the chosen mode would silently ignore are refused.
  const std::vector<std::string> mel_keys = {"n_mels", "f_min", "f_max", "mel_scale", "mel_norm", "power"};
  const std::vector<std::string> mfcc_keys = {"n_mfcc", "log_mels"};
  for (const std::string& key : mel_keys)
    if (!p.is_mel() && values.given(key))
      throw UsageError(values.name(key) + " applies to " + values.name("mode") + " mel and mfcc only (" +
                       values.name("mode") + " is " + mode + ")");
  for (const std::string& key : mfcc_keys)
    if (p.mode != SpectrumMode::mfcc && values.given(key))
      throw UsageError(values.name(key) + " applies to " + values.name("mode") + " mfcc only (" +
                       values.name("mode") + " is " + mode + ")");
  if (p.is_mel() && values.given("scaling"))
    throw UsageError(values.name("scaling") + " does not apply to " + values.name("mode") + " " + mode +
                     ": its bands sum |X|**power of the unscaled DFT, as torchaudio's Spectrogram(normalized=False)");
  p.validate(values.namer());
  return p;
}

namespace {

// The parameters as the sidecars write them (SpectrumLayout::parameters_json).
nlohmann::json parameters_object(const SpectrogramParams& p) {
  return nlohmann::json{
      {"window", p.window.to_string()},
      {"nperseg", p.nperseg},
      {"noverlap", p.noverlap},
      {"nfft", p.nfft},
      {"detrend", to_string(p.detrend)},
      {"scaling", to_string(p.scaling)},
      {"mode", to_string(p.mode)},
      {"decibels", p.decibels},
      {"average", p.average},
      {"average_kind", to_string(p.average_kind)},
      {"frequency_range", p.frequency_range ? nlohmann::json::array({p.frequency_range->first, p.frequency_range->second})
                                            : nlohmann::json(nullptr)},
      {"channel", p.channel},
      {"integer_scale", p.integer_scale == IntegerScale::unit ? "unit" : "raw"},
      {"precision", p.double_precision ? "double" : "single"},
  };
}

// Modes mel and mfcc: their own parameters, with f_max resolved for the stream.
void add_mel_parameters(nlohmann::json& parameters, const SpectrogramParams& p, double sample_rate) {
  parameters["scaling"] = nullptr;
  parameters["n_mels"] = p.n_mels;
  parameters["f_min"] = p.f_min;
  parameters["f_max"] = p.mel_f_max(sample_rate);
  parameters["mel_scale"] = to_string(p.mel_scale);
  parameters["mel_norm"] = to_string(p.mel_norm);
  parameters["power"] = p.power;
  if (p.mode == SpectrumMode::mfcc) {
    parameters["n_mfcc"] = p.n_mfcc;
    parameters["log_mels"] = p.log_mels;
    parameters["dct"] = "type 2, norm ortho";
  }
}

}  // namespace

StageCounters spectrogram_counters(const SpectrogramParams& params, std::uint64_t samples_in, std::uint64_t frames) {
  StageCounters c;
  c.items_in = samples_in;
  c.items_out = frames / params.average;
  const std::uint64_t covered = frames == 0 ? 0 : (frames - 1) * params.hop() + params.nperseg;
  c.extras = {{"frames", frames},
              {"tail samples", samples_in > covered ? samples_in - covered : 0},
              {"frames unaveraged", frames % params.average}};
  return c;
}

std::size_t spectrogram_max_rows_per_block(const SpectrogramParams& params, std::size_t block_samples) {
  if (block_samples == 0) return 0;
  const std::size_t frames = (block_samples - 1) / params.hop() + 1;
  return (frames + params.average - 1) / params.average;
}

namespace {

// numpy's rfftfreq / fftfreq (centred for complex input) of column j.
double bin_frequency(bool complex_input, std::size_t nfft, double bin_width, std::size_t j) {
  const auto index = complex_input ? static_cast<std::int64_t>(j) - static_cast<std::int64_t>(nfft / 2)
                                   : static_cast<std::int64_t>(j);
  return static_cast<double>(index) * bin_width;
}

}  // namespace

void check_mel_stream(const StreamInfo& stream, const SpectrogramParams& params, const KeyNamer& name) {
  if (!params.is_mel()) return;
  if (is_complex(stream.format))
    throw UsageError(name("mode") + " " + to_string(params.mode) + " needs real input (the input is " +
                     std::string(format_name(stream.format)) + "; a mel scale has no negative frequencies)");
  const double nyquist = stream.sample_rate / 2.0;
  const double f_max = params.mel_f_max(stream.sample_rate);
  std::ostringstream hz;
  hz << nyquist;
  if (f_max > nyquist) {
    std::ostringstream given;
    given << f_max;
    throw UsageError(name("f_max") + " (" + given.str() + " Hz) is above half the sample rate (" + hz.str() + " Hz)");
  }
  if (!(params.f_min < f_max)) {
    std::ostringstream given, top;
    given << params.f_min;
    top << f_max;
    throw UsageError(name("f_min") + " (" + given.str() + " Hz) must be below " + name("f_max") + " (" + top.str() +
                     " Hz)");
  }
}

MelFilterbank spectrogram_mel_filterbank(const StreamInfo& stream, const SpectrogramParams& given) {
  const SpectrogramParams params = given.resolved();
  return make_mel_filterbank(params.nfft, stream.sample_rate, params.n_mels, params.f_min,
                             params.mel_f_max(stream.sample_rate), params.mel_scale, params.mel_norm);
}

ColumnRange spectrogram_column_range(const StreamInfo& stream, const SpectrogramParams& given, const KeyNamer& name) {
  const SpectrogramParams params = given.resolved();
  const bool complex_input = is_complex(stream.format);
  const std::size_t columns = complex_input ? params.nfft : params.nfft / 2 + 1;
  if (!params.frequency_range || params.is_mel()) return {0, columns};
  const double fs = stream.sample_rate;
  const double bin_width = 1.0 / (static_cast<double>(params.nfft) * (1.0 / fs));
  const auto [low, high] = *params.frequency_range;
  const double band_low = complex_input ? -fs / 2 : 0.0;
  const double band_high = fs / 2;
  auto hz = [](double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  const std::string range = name("frequency_range") + " " + hz(low) + ":" + hz(high);
  if (low < band_low || high > band_high)
    throw UsageError(range + " leaves the input's band, " + hz(band_low) + " to " + hz(band_high) + " Hz (" +
                     (complex_input ? "complex" : "real") + " input at " + hz(fs) + " Hz; frequencies are baseband)");
  ColumnRange kept{columns, 0};
  for (std::size_t j = 0; j < columns; ++j) {
    const double f = bin_frequency(complex_input, params.nfft, bin_width, j);
    if (f < low || f > high) continue;
    if (kept.count == 0) kept.first = j;
    ++kept.count;
  }
  if (kept.count == 0)
    throw UsageError(range + " holds no frequency bin (bins are " + hz(bin_width) + " Hz apart)");
  return kept;
}

SpectrumLayout spectrogram_layout(const StreamInfo& stream, const SpectrogramParams& given) {
  const SpectrogramParams params = given.resolved();
  SpectrumLayout layout;
  const bool complex_input = is_complex(stream.format);
  const double fs = stream.sample_rate;
  const std::size_t nfft = params.nfft;
  // numpy's rfftfreq / fftfreq: index · 1/(n·d) with d = 1/fs.
  const double bin_width = 1.0 / (static_cast<double>(nfft) * (1.0 / fs));
  const ColumnRange kept = spectrogram_column_range(stream, params);
  layout.columns = kept.count;
  layout.frequencies.resize(kept.count);
  for (std::size_t j = 0; j < kept.count; ++j) layout.frequencies[j] = bin_frequency(complex_input, nfft, bin_width, kept.first + j);
  // scipy's t: frame centres (nperseg/2 + f·hop)/fs; an averaged row sits at the mean of its
  // frames' centres.
  const double k = static_cast<double>(params.average);
  const double h = static_cast<double>(params.hop());
  layout.first_row_time =
      stream.start_offset_s + (static_cast<double>(params.nperseg) / 2.0 + (k - 1.0) * h / 2.0) / fs;
  layout.row_interval = k * h / fs;
  const bool density = params.scaling == Scaling::density;
  switch (params.mode) {
    case SpectrumMode::psd:
      layout.quantity = density ? SpectrumQuantity::power_spectral_density : SpectrumQuantity::power_spectrum;
      break;
    case SpectrumMode::magnitude:
      layout.quantity = density ? SpectrumQuantity::magnitude_density : SpectrumQuantity::magnitude_spectrum;
      break;
    case SpectrumMode::complex:
      layout.quantity = density ? SpectrumQuantity::complex_density : SpectrumQuantity::complex_spectrum;
      layout.complex_values = true;
      break;
    case SpectrumMode::angle: layout.quantity = SpectrumQuantity::angle; break;
    case SpectrumMode::phase: layout.quantity = SpectrumQuantity::phase; break;
    case SpectrumMode::mel: layout.quantity = SpectrumQuantity::mel; break;
    case SpectrumMode::mfcc:
      layout.quantity = params.log_mels ? SpectrumQuantity::mfcc_of_log : SpectrumQuantity::mfcc_of_decibels;
      break;
  }
  layout.decibels = params.decibels;
  const bool full_scale = is_float(stream.format) ? stream.float_full_scale : params.integer_scale == IntegerScale::unit;
  if (full_scale && (params.mode == SpectrumMode::psd || params.mode == SpectrumMode::magnitude)) {
    // A tone of amplitude A at a bin centre gives |X| = A·Σw (complex exp) or A·Σw/2 on each
    // side (real sine); the rows scale |X|² by 1/(Σw)² (spectrum) or 1/(fs·Σw²) (density), and
    // one-sided psd rows double it (scipy's _spectral_helper). Zero padding (nfft) and averaging
    // leave a steady tone's bin unchanged.
    const std::vector<double> w = make_window(params.window, params.nperseg);
    double sum = 0.0, sum_squares = 0.0;
    for (double v : w) {
      sum += v;
      sum_squares += v * v;
    }
    const double scale = density ? 1.0 / (fs * sum_squares) : 1.0 / (sum * sum);
    const double coherent = sum * sum * scale;  // |X|² · scale of a unit complex tone
    layout.full_scale_power =
        complex_input ? coherent : coherent * 0.25 * (params.mode == SpectrumMode::psd ? 2.0 : 1.0);
  }
  layout.double_values = params.double_precision;
  layout.stream = stream;
  nlohmann::json parameters = parameters_object(params);
  if (params.is_mel()) {
    add_mel_parameters(parameters, params, fs);
    layout.power = params.power;
    if (params.mode == SpectrumMode::mel) {
      layout.column_axis = ColumnAxis::mel_band;
      layout.frequencies = spectrogram_mel_filterbank(stream, params).centres;
    } else {
      layout.column_axis = ColumnAxis::cepstral_coefficient;
      layout.frequencies.clear();
    }
    layout.columns = params.mode == SpectrumMode::mel ? params.n_mels : params.n_mfcc;
  }
  parameters["hop"] = params.hop();
  parameters["sides"] = complex_input ? "twosided-centred" : "onesided";
  parameters["sample_rate"] = fs;
  layout.parameters_json = parameters.dump();
  return layout;
}

std::vector<double> spectrogram_column_scales_double(const StreamInfo& stream, const SpectrogramParams& given,
                                                     const std::vector<double>& window) {
  const SpectrogramParams params = given.resolved();
  const bool complex_input = is_complex(stream.format);
  const std::size_t columns = complex_input ? params.nfft : params.nfft / 2 + 1;
  double sum = 0, sum_squares = 0;
  for (double v : window) {
    sum += v;
    sum_squares += v * v;
  }
  const double fs = stream.sample_rate;
  double scale = params.scaling == Scaling::density ? 1.0 / (fs * sum_squares) : 1.0 / (sum * sum);
  // Every mode but psd scales X itself, by the root (scipy's mode 'stft'), and doubles nothing.
  const bool magnitude = params.mode != SpectrumMode::psd;
  if (magnitude) scale = std::sqrt(scale);
  const double averaging =
      params.average_kind == AverageKind::mean ? 1.0 / static_cast<double>(params.average) : 1.0;
  // The mel modes take torchaudio's unscaled |X|^power, on both sides alike.
  if (params.is_mel()) return std::vector<double>(columns, averaging);
  std::vector<double> result(columns, scale * averaging);
  // A one-sided psd doubles every bin that has a negative-frequency twin.
  if (!complex_input && !magnitude) {
    const std::size_t last_doubled = params.nfft % 2 == 1 ? columns - 1 : columns - 2;
    for (std::size_t c = 1; c <= last_doubled && c < columns; ++c)
      result[c] = 2.0 * scale * averaging;
  }
  return result;
}

std::vector<float> spectrogram_column_scales(const StreamInfo& stream, const SpectrogramParams& params,
                                             const std::vector<double>& window) {
  const std::vector<double> exact = spectrogram_column_scales_double(stream, params, window);
  return std::vector<float>(exact.begin(), exact.end());
}

DecibelScale spectrogram_decibels(const SpectrogramParams& params) {
  // torchaudio's AmplitudeToDB: amin 1e-10 whatever the stype; (20/power)·log10 is its power
  // (power 2) and magnitude (power 1) forms.
  if (params.is_mel()) return {static_cast<float>(20.0 / params.power), 1e-10f};
  const bool magnitude = params.mode == SpectrumMode::magnitude;
  return {magnitude ? 20.0f : 10.0f,
          static_cast<float>(magnitude ? std::sqrt(kDecibelFloorPower) : kDecibelFloorPower)};
}

std::string to_string(Detrend d) {
  switch (d) {
    case Detrend::none: return "none";
    case Detrend::constant: return "constant";
    case Detrend::linear: return "linear";
  }
  return "?";
}

std::string to_string(Scaling s) {
  switch (s) {
    case Scaling::density: return "density";
    case Scaling::spectrum: return "spectrum";
  }
  return "?";
}

std::string to_string(SpectrumMode m) {
  switch (m) {
    case SpectrumMode::psd: return "psd";
    case SpectrumMode::magnitude: return "magnitude";
    case SpectrumMode::complex: return "complex";
    case SpectrumMode::angle: return "angle";
    case SpectrumMode::phase: return "phase";
    case SpectrumMode::mel: return "mel";
    case SpectrumMode::mfcc: return "mfcc";
  }
  return "?";
}

std::string to_string(AverageKind a) {
  switch (a) {
    case AverageKind::mean: return "mean";
    case AverageKind::max: return "max";
  }
  return "?";
}

std::string spectrogram_cpu_only_setting(const SpectrogramParams& params, const KeyNamer& name) {
  if (params.detrend == Detrend::linear) return name("detrend") + " linear";
  if (params.keeps_phase()) return name("mode") + " " + to_string(params.mode);
  if (params.mode == SpectrumMode::mfcc && params.n_mels > kGpuMfccMaxBands)
    return name("mode") + " mfcc of more than " + std::to_string(kGpuMfccMaxBands) + " bands (" + name("n_mels") + " " +
           std::to_string(params.n_mels) + ")";
  if (params.frequency_range) return name("frequency_range");
  return "";
}

}  // namespace prism
