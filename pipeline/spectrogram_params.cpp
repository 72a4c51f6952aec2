// SpectrogramParams (spectrogram_params.hpp): range checks with messages that name the
// command-line option, and the names of the enumerations as the CLI and the sidecars write them.
#include "pipeline/spectrogram_params.hpp"

#include <string>

#include "pipeline/errors.hpp"

namespace prism {

void SpectrogramParams::validate() const {
  if (nperseg < 1)
    throw UsageError("--nperseg must be at least 1 (got " + std::to_string(nperseg) + ")");
  if (noverlap >= nperseg)
    throw UsageError("--noverlap (" + std::to_string(noverlap) +
                     ") must be less than --nperseg (" + std::to_string(nperseg) + ")");
  if (nfft < nperseg)
    throw UsageError("--nfft (" + std::to_string(nfft) + ") must be at least --nperseg (" +
                     std::to_string(nperseg) + ")");
  if (average < 1)
    throw UsageError("--average must be at least 1 (got " + std::to_string(average) + ")");
  if (window.kind == WindowKind::kaiser && !(window.parameter >= 0))
    throw UsageError("--window kaiser: beta must be >= 0 (got " + window.to_string() + ")");
  if (window.kind == WindowKind::tukey && !(window.parameter >= 0 && window.parameter <= 1))
    throw UsageError("--window tukey: alpha must be in [0, 1] (got " + window.to_string() + ")");
}

nlohmann::json SpectrogramParams::to_json() const {
  return nlohmann::json{
      {"window", window.to_string()},
      {"nperseg", nperseg},
      {"noverlap", noverlap},
      {"nfft", nfft},
      {"detrend", to_string(detrend)},
      {"scaling", to_string(scaling)},
      {"mode", to_string(mode)},
      {"decibels", decibels},
      {"average", average},
      {"average_kind", to_string(average_kind)},
      {"channel", channel},
      {"integer_scale", integer_scale == IntegerScale::unit ? "unit" : "raw"},
  };
}

ProcessorCounters spectrogram_counters(const SpectrogramParams& params, std::uint64_t samples_in,
                                       std::uint64_t frames) {
  ProcessorCounters c;
  c.samples_in = samples_in;
  c.frames = frames;
  c.rows_out = frames / params.average;
  c.frames_unaveraged = frames % params.average;
  const std::uint64_t covered = frames == 0 ? 0 : (frames - 1) * params.hop() + params.nperseg;
  c.tail_samples = samples_in > covered ? samples_in - covered : 0;
  return c;
}

std::size_t spectrogram_max_rows_per_block(const SpectrogramParams& params, std::size_t block_samples) {
  if (block_samples == 0) return 0;
  const std::size_t frames = (block_samples - 1) / params.hop() + 1;
  return (frames + params.average - 1) / params.average;
}

std::string to_string(Detrend d) {
  switch (d) {
    case Detrend::none: return "none";
    case Detrend::constant: return "constant";
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

}  // namespace prism
