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
      choice_setting("mode", "psd", {"psd", "magnitude", "complex", "angle", "phase"},
                     "psd (power), magnitude (|X|), complex (X, to .npy as complex64), angle (arg X, rad) or phase "
                     "(angle unwrapped along frequency); complex, angle and phase: CPU backend, no db, no average"),
      flag_setting("db", "output in dB: 10*log10(power), 20*log10(magnitude), floored at -300 dB"),
      text_setting("average", "1", "K[:mean|max]", "K consecutive frames per output row, by mean or max (peak hold)"),
      text_setting("frequency_range", "", "LO:HI",
                   "keep only the bins from LO to HI Hz (baseband, as the rows' frequencies; within the input's "
                   "band; CPU backend only)"),
      integer_setting("channel", "0", 0, 65535, "C", "channel of a multi-channel input (0-based)"),
      choice_setting("integer_scale", "unit", {"unit", "raw"},
                     "integer samples as unit: scaled to [-1, 1), or raw: the stored values, as numpy sees them"),
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
  };
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

ColumnRange spectrogram_column_range(const StreamInfo& stream, const SpectrogramParams& given, const KeyNamer& name) {
  const SpectrogramParams params = given.resolved();
  const bool complex_input = is_complex(stream.format);
  const std::size_t columns = complex_input ? params.nfft : params.nfft / 2 + 1;
  if (!params.frequency_range) return {0, columns};
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
  layout.stream = stream;
  nlohmann::json parameters = parameters_object(params);
  parameters["hop"] = params.hop();
  parameters["sides"] = complex_input ? "twosided-centred" : "onesided";
  parameters["sample_rate"] = fs;
  layout.parameters_json = parameters.dump();
  return layout;
}

std::vector<float> spectrogram_column_scales(const StreamInfo& stream, const SpectrogramParams& given,
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
  std::vector<float> result(columns, static_cast<float>(scale * averaging));
  // A one-sided psd doubles every bin that has a negative-frequency twin.
  if (!complex_input && !magnitude) {
    const std::size_t last_doubled = params.nfft % 2 == 1 ? columns - 1 : columns - 2;
    for (std::size_t c = 1; c <= last_doubled && c < columns; ++c)
      result[c] = static_cast<float>(2.0 * scale * averaging);
  }
  return result;
}

DecibelScale spectrogram_decibels(const SpectrogramParams& params) {
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
  if (params.frequency_range) return name("frequency_range");
  return "";
}

}  // namespace prism
