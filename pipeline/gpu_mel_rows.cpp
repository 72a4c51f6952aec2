// The host half of the GPU's modes mel and mfcc (gpu_mel_rows.hpp): the tables a device uploads.
#include "pipeline/gpu_mel_rows.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "pipeline/mel_filterbank.hpp"

namespace prism {

std::vector<double> mfcc_dct_matrix(std::size_t n_mfcc, std::size_t n_mels) {
  if (n_mels == 0 || n_mfcc > n_mels) throw std::invalid_argument("mfcc_dct_matrix: n_mfcc must be 1..n_mels");
  constexpr double kPi = 3.14159265358979323846;
  std::vector<double> matrix(n_mfcc * n_mels);
  const double n = static_cast<double>(n_mels);
  for (std::size_t i = 0; i < n_mfcc; ++i) {
    // ortho: √(2/N) for every coefficient but the first, √(1/N) for it.
    const double scale = i == 0 ? std::sqrt(1.0 / n) : std::sqrt(2.0 / n);
    for (std::size_t m = 0; m < n_mels; ++m)
      matrix[m * n_mfcc + i] = scale * std::cos(kPi / n * (static_cast<double>(m) + 0.5) * static_cast<double>(i));
  }
  return matrix;
}

GpuMelTables make_gpu_mel_tables(const StreamInfo& stream, const SpectrogramParams& given) {
  const SpectrogramParams params = given.resolved();
  if (!params.is_mel()) throw std::invalid_argument("make_gpu_mel_tables: the mode is neither mel nor mfcc");
  const MelFilterbank bank = spectrogram_mel_filterbank(stream, params);
  constexpr auto kIntMax = static_cast<std::size_t>(std::numeric_limits<int>::max());
  GpuMelTables t;
  t.band_first.reserve(bank.bands);
  t.band_start.reserve(bank.bands + 1);
  t.band_start.push_back(0);
  for (std::size_t m = 0; m < bank.bands; ++m) {
    t.band_first.push_back(static_cast<int>(bank.first[m]));
    t.weights.insert(t.weights.end(), bank.weights[m].begin(), bank.weights[m].end());
    if (t.weights.size() > kIntMax) throw std::invalid_argument("make_gpu_mel_tables: too many filterbank weights");
    t.band_start.push_back(static_cast<int>(t.weights.size()));
  }
  GpuMelRowArgs& a = t.args;
  a.bins = static_cast<int>(bank.bins);
  a.bands = static_cast<int>(bank.bands);
  if (params.mode == SpectrumMode::mfcc) {
    a.coefficients = static_cast<int>(params.n_mfcc);
    a.log_mels = params.log_mels ? 1 : 0;
    t.cepstrum = mfcc_dct_matrix(params.n_mfcc, params.n_mels);
  } else {
    a.decibels = params.decibels ? 1 : 0;
    const DecibelScale db = spectrogram_decibels(params);
    a.decibel_multiplier = db.multiplier;  // CpuSpectrogram's constants, as it rounds them
    a.decibel_floor = db.floor;
  }
  return t;
}

}  // namespace prism
