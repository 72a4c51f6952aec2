// torchaudio's mel filterbank (mel_filterbank.hpp), in double.
#include "pipeline/mel_filterbank.hpp"

#include <algorithm>
#include <cmath>

namespace prism {
namespace {

// Slaney's scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above (27 mels per
// factor 6.4).
constexpr double kSlaneyHzPerMel = 200.0 / 3.0;
constexpr double kSlaneyLogStartHz = 1000.0;
constexpr double kSlaneyLogStartMel = kSlaneyLogStartHz / kSlaneyHzPerMel;
const double kSlaneyLogStep = std::log(6.4) / 27.0;

// numpy / torch linspace(start, stop, count)[i].
double linspace(double start, double stop, std::size_t count, std::size_t i) {
  if (count == 1) return start;
  return start + (stop - start) * static_cast<double>(i) / static_cast<double>(count - 1);
}

}  // namespace

double hz_to_mel(double hz, MelScale scale) {
  if (scale == MelScale::htk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz >= kSlaneyLogStartHz) return kSlaneyLogStartMel + std::log(hz / kSlaneyLogStartHz) / kSlaneyLogStep;
  return hz / kSlaneyHzPerMel;
}

double mel_to_hz(double mel, MelScale scale) {
  if (scale == MelScale::htk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel >= kSlaneyLogStartMel) return kSlaneyLogStartHz * std::exp(kSlaneyLogStep * (mel - kSlaneyLogStartMel));
  return kSlaneyHzPerMel * mel;
}

MelFilterbank make_mel_filterbank(std::size_t n_fft, double sample_rate, std::size_t n_mels, double f_min,
                                  double f_max, MelScale scale, MelNorm norm) {
  MelFilterbank fb;
  fb.bins = n_fft / 2 + 1;
  fb.bands = n_mels;
  // torchaudio: all_freqs = linspace(0, sample_rate // 2, n_freqs).
  const double top_bin_hz = std::floor(sample_rate / 2.0);
  std::vector<double> bin_hz(fb.bins);
  for (std::size_t k = 0; k < fb.bins; ++k) bin_hz[k] = linspace(0.0, top_bin_hz, fb.bins, k);
  const double m_min = hz_to_mel(f_min, scale);
  const double m_max = hz_to_mel(f_max, scale);
  std::vector<double> points(n_mels + 2);
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = mel_to_hz(linspace(m_min, m_max, n_mels + 2, i), scale);
  fb.centres.assign(points.begin() + 1, points.end() - 1);
  fb.first.resize(n_mels);
  fb.weights.resize(n_mels);
  for (std::size_t m = 0; m < n_mels; ++m) {
    const double lower = points[m], centre = points[m + 1], upper = points[m + 2];
    const double area = norm == MelNorm::slaney ? 2.0 / (upper - lower) : 1.0;
    std::vector<double> row(fb.bins);
    for (std::size_t k = 0; k < fb.bins; ++k) {
      // max(0, min(down, up)) as torchaudio's _create_triangular_filterbank.
      const double down = (bin_hz[k] - lower) / (centre - lower);
      const double up = (upper - bin_hz[k]) / (upper - centre);
      row[k] = std::max(0.0, std::min(down, up)) * area;
    }
    std::size_t begin = 0;
    while (begin < fb.bins && row[begin] == 0.0) ++begin;
    std::size_t end = fb.bins;
    while (end > begin && row[end - 1] == 0.0) --end;
    fb.first[m] = begin;
    fb.weights[m].assign(row.begin() + static_cast<std::ptrdiff_t>(begin), row.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return fb;
}

namespace {

template <typename Real>
void apply_bands(const MelFilterbank& fb, const Real* power, double* out) {
  for (std::size_t m = 0; m < fb.bands; ++m) {
    const double* w = fb.weights[m].data();
    const Real* p = power + fb.first[m];
    double sum = 0.0;
    for (std::size_t i = 0; i < fb.weights[m].size(); ++i) sum += w[i] * static_cast<double>(p[i]);
    out[m] = sum;
  }
}

}  // namespace

void MelFilterbank::apply(const float* power, double* out) const { apply_bands(*this, power, out); }
void MelFilterbank::apply(const double* power, double* out) const { apply_bands(*this, power, out); }

double MelFilterbank::weight(std::size_t bin, std::size_t band) const {
  if (bin < first[band] || bin >= first[band] + weights[band].size()) return 0.0;
  return weights[band][bin - first[band]];
}

std::string to_string(MelScale s) { return s == MelScale::htk ? "htk" : "slaney"; }
std::string to_string(MelNorm n) { return n == MelNorm::slaney ? "slaney" : "none"; }

}  // namespace prism
