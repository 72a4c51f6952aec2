// FIR filter design (filter_design.hpp): scipy 1.10's firwin / kaiserord / kaiser_beta /
// kaiser_atten, the complex band-pass, FilterDesignSpec, and the response figures.
//
// firwin follows scipy/signal/_fir_filter_design.py operation by operation (numpy's sinc,
// the order of the band sums, numpy's pairwise summation for the scale), so that the taps
// agree with scipy's to rounding; the windows come from window.hpp (symmetric).
//
// Contents:
//   1. helpers               numbers in messages, numpy's sinc and pairwise sum, exact phase
//   2. scipy's functions     firwin, kaiser_beta, kaiser_atten, kaiserord, complex_bandpass
//   3. the response          FFT grids (FFTW, double), response_at, group delay, figures
//   4. specifications        validate, the bands a design's figures use, design_filter
#include "pipeline/filter_design.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <numbers>
#include <utility>

#include "fft/fftw_planner_locks.hpp"
#include "pipeline/decimal_text.hpp"

namespace prism {
namespace {

// ---- 1. helpers ----------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& field, const std::string& reason) {
  throw FilterDesignError(field, reason);
}

// numpy.sinc: sin(πx)/(πx), 1 at 0.
double numpy_sinc(double x) {
  if (x == 0.0) return 1.0;
  const double y = std::numbers::pi * x;
  return std::sin(y) / y;
}

// numpy's pairwise summation (numpy/core/src/umath/loops_utils.h.src, pairwise_sum), so that
// firwin's scale factor is the very sum scipy divides by.
double numpy_pairwise_sum(const double* a, std::size_t n) {
  constexpr std::size_t kBlock = 128;
  if (n < 8) {
    double result = 0.0;
    for (std::size_t i = 0; i < n; ++i) result += a[i];
    return result;
  }
  if (n <= kBlock) {
    double r[8];
    for (int k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] += a[i + k];
    double result = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) result += a[i];
    return result;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_pairwise_sum(a, half) + numpy_pairwise_sum(a + half, n - half);
}

// e^(sign·j2π·ν·k) with ν·k reduced modulo 1 exactly (the product's rounding error recovered by
// fma), so that phases of long filters keep full precision.
std::complex<double> unit_phasor(double nu, double k, double sign) {
  const double product = nu * k;
  const double error = std::fma(nu, k, -product);
  const double cycles = (product - std::nearbyint(product)) + error;
  const double angle = sign * 2.0 * std::numbers::pi * cycles;
  return {std::cos(angle), std::sin(angle)};
}

bool is_odd(std::size_t n) { return (n & 1U) != 0; }

// ---- 3. the response (helpers used by section 2) -------------------------------------------

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

// H at k·fs/length for k = 0..length−1 (complex taps), k = 0..length/2 (real taps): the DFT of
// the taps folded modulo `length`, which samples their DTFT exactly.
std::vector<std::complex<double>> dft_grid(const FilterTaps& taps, std::size_t length) {
  const std::size_t m = taps.size();
  const int n = static_cast<int>(length);
  std::vector<std::complex<double>> out;
  if (!taps.is_complex) {
    const std::size_t bins = length / 2 + 1;
    std::unique_ptr<double, FftwFree> in(static_cast<double*>(fftw_malloc(sizeof(double) * length)));
    std::unique_ptr<fftw_complex, FftwFree> spectrum(
        static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * bins)));
    if (!in || !spectrum) throw std::bad_alloc();
    std::fill(in.get(), in.get() + length, 0.0);
    for (std::size_t i = 0; i < m; ++i) in.get()[i % length] += taps.real[i];
    fftw_plan plan;
    {
      std::lock_guard lock(fft::fftw_double_planner_mutex());
      plan = fftw_plan_dft_r2c_1d(n, in.get(), spectrum.get(), FFTW_ESTIMATE);
    }
    fftw_execute(plan);
    {
      std::lock_guard lock(fft::fftw_double_planner_mutex());
      fftw_destroy_plan(plan);
    }
    out.resize(bins);
    for (std::size_t k = 0; k < bins; ++k) out[k] = {spectrum.get()[k][0], spectrum.get()[k][1]};
    return out;
  }
  std::unique_ptr<fftw_complex, FftwFree> data(
      static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * length)));
  if (!data) throw std::bad_alloc();
  for (std::size_t k = 0; k < length; ++k) data.get()[k][0] = data.get()[k][1] = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    data.get()[i % length][0] += taps.complex[i].real();
    data.get()[i % length][1] += taps.complex[i].imag();
  }
  fftw_plan plan;
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    plan = fftw_plan_dft_1d(n, data.get(), data.get(), FFTW_FORWARD, FFTW_ESTIMATE);
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    fftw_destroy_plan(plan);
  }
  out.resize(length);
  for (std::size_t k = 0; k < length; ++k) out[k] = {data.get()[k][0], data.get()[k][1]};
  return out;
}

std::size_t next_power_of_two(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// A grid of at least `per_lobe` points per fs/M, between `smallest` and `largest` points.
std::size_t grid_length(std::size_t m, std::size_t per_lobe, std::size_t smallest,
                        std::size_t largest) {
  return std::clamp(next_power_of_two(per_lobe * std::max<std::size_t>(m, 1)), smallest, largest);
}

// Σ w[n]·e^(−j2πνn) and, when `weighted`, Σ n·w[n]·e^(−j2πνn), for taps given by `tap(n)`.
// The phasor advances by multiplication and is recomputed exactly every 256 taps (the
// accumulated rounding stays near 256 ulp).
template <typename Tap>
std::pair<std::complex<double>, std::complex<double>> dtft_sums(std::size_t m, double nu, Tap tap,
                                                                bool weighted) {
  constexpr std::size_t kAnchor = 256;
  const std::complex<double> step = unit_phasor(nu, 1.0, -1.0);
  std::complex<double> sum{0.0, 0.0};
  std::complex<double> moment{0.0, 0.0};
  std::complex<double> phasor{1.0, 0.0};
  for (std::size_t n = 0; n < m; ++n) {
    if (n % kAnchor == 0) phasor = unit_phasor(nu, static_cast<double>(n), -1.0);
    const std::complex<double> term = tap(n) * phasor;
    sum += term;
    if (weighted) moment += static_cast<double>(n) * term;
    phasor *= step;
  }
  return {sum, moment};
}

std::pair<std::complex<double>, std::complex<double>> dtft_sums(const FilterTaps& taps, double nu,
                                                                bool weighted) {
  if (taps.is_complex)
    return dtft_sums(taps.size(), nu, [&](std::size_t n) { return taps.complex[n]; }, weighted);
  return dtft_sums(taps.size(), nu, [&](std::size_t n) { return std::complex<double>(taps.real[n]); },
                   weighted);
}

// The distance (units of fs) from 0 to the first null of the spectrum of the symmetric window
// of length m: half the main lobe. fs/2 when there is none below fs/2.
double window_main_lobe_half_width(const WindowSpec& window, std::size_t m, double fs) {
  if (m < 2) return fs / 2;
  const FilterTaps w = FilterTaps::from_real(make_window(window, m, WindowSymmetry::symmetric));
  const std::size_t length = grid_length(m, 16, 4096, std::size_t{1} << 23);
  const std::vector<std::complex<double>> spectrum = dft_grid(w, length);
  for (std::size_t k = 1; k + 1 < spectrum.size(); ++k)
    if (std::abs(spectrum[k]) <= std::abs(spectrum[k - 1]) &&
        std::abs(spectrum[k]) <= std::abs(spectrum[k + 1]))
      return static_cast<double>(k) * fs / static_cast<double>(length);
  return fs / 2;
}

}  // namespace

// ---- 2. scipy's functions --------------------------------------------------------------------

double kaiser_beta(double a) {
  if (a > 50) return 0.1102 * (a - 8.7);
  if (a > 21) return 0.5842 * std::pow(a - 21, 0.4) + 0.07886 * (a - 21);
  return 0.0;
}

double kaiser_atten(std::size_t numtaps, double width) {
  return 2.285 * (static_cast<double>(numtaps) - 1) * std::numbers::pi * width + 7.95;
}

KaiserOrder kaiserord(double ripple_db, double width) {
  if (!std::isfinite(ripple_db))
    fail("ripple", "must be a finite number of dB; got " + shortest_decimal(ripple_db));
  const double a = std::abs(ripple_db);
  if (a < 8)
    fail("ripple", "must be at least 8 dB, where Kaiser's formula holds; got " + shortest_decimal(a));
  if (!std::isfinite(width) || width <= 0)
    fail("width", "must be a positive fraction of the Nyquist frequency; got " + shortest_decimal(width));
  const double numtaps = std::ceil((a - 7.95) / 2.285 / (std::numbers::pi * width) + 1);
  if (!(numtaps <= static_cast<double>(kMaxDesignTaps)))
    fail("width", "is too narrow for " + shortest_decimal(a) + " dB: Kaiser's formula asks for " +
                      shortest_decimal(numtaps) + " taps, more than the " +
                      std::to_string(kMaxDesignTaps) + " a design may have");
  return {static_cast<std::size_t>(numtaps), kaiser_beta(a)};
}

std::vector<double> firwin(std::size_t numtaps, const std::vector<double>& cutoff_hz,
                           const FirwinOptions& options) {
  const double fs = options.fs;
  if (!std::isfinite(fs) || fs <= 0) fail("fs", "must be a positive sample rate; got " + shortest_decimal(fs));
  if (numtaps < 1 || numtaps > kMaxDesignTaps)
    fail("numtaps", "must be 1.." + std::to_string(kMaxDesignTaps) + "; got " + std::to_string(numtaps));
  const double nyq = 0.5 * fs;
  if (cutoff_hz.empty()) fail("cutoff", "give at least one cutoff frequency");
  std::vector<double> cutoff(cutoff_hz.size());
  for (std::size_t i = 0; i < cutoff_hz.size(); ++i) {
    if (!std::isfinite(cutoff_hz[i]) || cutoff_hz[i] <= 0 || cutoff_hz[i] >= nyq)
      fail("cutoff", "each frequency must be greater than 0 and less than fs/2 = " + shortest_decimal(nyq) +
                         "; got " + shortest_decimal(cutoff_hz[i]));
    cutoff[i] = cutoff_hz[i] / nyq;
    if (i > 0 && cutoff[i] <= cutoff[i - 1])
      fail("cutoff", "the frequencies must be strictly increasing; got " + shortest_decimal(cutoff_hz[i - 1]) +
                         " then " + shortest_decimal(cutoff_hz[i]));
  }

  WindowSpec window = options.window;
  if (options.width) {
    const double width = *options.width;
    if (!std::isfinite(width) || width <= 0)
      fail("width", "must be a positive transition width; got " + shortest_decimal(width));
    window = {WindowKind::kaiser, kaiser_beta(kaiser_atten(numtaps, width / nyq))};
  }

  bool pass_zero = true;
  switch (options.pass_zero) {
    case PassZero::yes: pass_zero = true; break;
    case PassZero::no: pass_zero = false; break;
    case PassZero::lowpass:
    case PassZero::highpass:
      if (cutoff.size() != 1)
        fail("cutoff", std::string("a ") + (options.pass_zero == PassZero::lowpass ? "lowpass" : "highpass") +
                           " takes one cutoff frequency; got " + std::to_string(cutoff.size()));
      pass_zero = options.pass_zero == PassZero::lowpass;
      break;
    case PassZero::bandpass:
    case PassZero::bandstop:
      if (cutoff.size() < 2)
        fail("cutoff", std::string("a ") + (options.pass_zero == PassZero::bandpass ? "bandpass" : "bandstop") +
                           " takes at least two cutoff frequencies; got 1");
      pass_zero = options.pass_zero == PassZero::bandstop;
      break;
  }
  const bool pass_nyquist = is_odd(cutoff.size()) != pass_zero;
  if (pass_nyquist && !is_odd(numtaps))
    fail("numtaps", "must be odd: this filter passes fs/2, where a linear-phase filter with an even "
                    "number of taps is always 0; got " + std::to_string(numtaps));

  // Each pair of `edges` is one passband, normalised to the Nyquist frequency.
  std::vector<double> edges;
  if (pass_zero) edges.push_back(0.0);
  edges.insert(edges.end(), cutoff.begin(), cutoff.end());
  if (pass_nyquist) edges.push_back(1.0);

  const double alpha = 0.5 * (static_cast<double>(numtaps) - 1);
  std::vector<double> m(numtaps);
  for (std::size_t i = 0; i < numtaps; ++i) m[i] = static_cast<double>(i) - alpha;
  std::vector<double> h(numtaps, 0.0);
  for (std::size_t b = 0; b + 1 < edges.size(); b += 2) {
    const double left = edges[b];
    const double right = edges[b + 1];
    for (std::size_t i = 0; i < numtaps; ++i) h[i] += right * numpy_sinc(right * m[i]);
    for (std::size_t i = 0; i < numtaps; ++i) h[i] -= left * numpy_sinc(left * m[i]);
  }
  const std::vector<double> w = make_window(window, numtaps, WindowSymmetry::symmetric);
  for (std::size_t i = 0; i < numtaps; ++i) h[i] *= w[i];

  if (options.scale) {
    const double left = edges[0];
    const double right = edges[1];
    const double scale_frequency = left == 0.0 ? 0.0 : right == 1.0 ? 1.0 : 0.5 * (left + right);
    std::vector<double> weighted(numtaps);
    for (std::size_t i = 0; i < numtaps; ++i)
      weighted[i] = h[i] * std::cos(std::numbers::pi * m[i] * scale_frequency);
    const double s = numpy_pairwise_sum(weighted.data(), numtaps);
    if (s == 0.0 || !std::isfinite(s))
      fail("numtaps", "is too small for these bands: the response at the scaling frequency is " +
                          shortest_decimal(s) + "; give more taps");
    for (double& v : h) v /= s;
  }
  return h;
}

std::vector<std::complex<double>> complex_bandpass(std::size_t numtaps, double f_low, double f_high,
                                                   double fs, const WindowSpec& window,
                                                   std::optional<double> width, bool scale) {
  if (!std::isfinite(fs) || fs <= 0) fail("fs", "must be a positive sample rate; got " + shortest_decimal(fs));
  const double nyq = 0.5 * fs;
  if (!std::isfinite(f_low) || f_low < -nyq || f_low > nyq)
    fail("f_low", "must be within [-fs/2, fs/2] = [" + shortest_decimal(-nyq) + ", " + shortest_decimal(nyq) +
                      "]; got " + shortest_decimal(f_low));
  if (!std::isfinite(f_high) || f_high < -nyq || f_high > nyq)
    fail("f_high", "must be within [-fs/2, fs/2] = [" + shortest_decimal(-nyq) + ", " + shortest_decimal(nyq) +
                       "]; got " + shortest_decimal(f_high));
  if (!(f_low < f_high))
    fail("f_high", "must be above f_low; got " + shortest_decimal(f_low) + " then " + shortest_decimal(f_high));
  const double half_bandwidth = (f_high - f_low) / 2;
  if (half_bandwidth >= nyq)
    fail("f_high", "the band [" + shortest_decimal(f_low) + ", " + shortest_decimal(f_high) +
                       "] covers every frequency: f_high - f_low must be less than fs");

  FirwinOptions prototype_options;
  prototype_options.width = width;
  prototype_options.window = window;
  prototype_options.pass_zero = PassZero::lowpass;
  prototype_options.scale = scale;
  prototype_options.fs = fs;
  const std::vector<double> prototype = firwin(numtaps, {half_bandwidth}, prototype_options);

  const double nu = ((f_low + f_high) / 2) / fs;
  const double middle = 0.5 * (static_cast<double>(numtaps) - 1);
  std::vector<std::complex<double>> h(numtaps);
  for (std::size_t n = 0; n < numtaps; ++n)
    h[n] = prototype[n] * unit_phasor(nu, static_cast<double>(n) - middle, +1.0);
  return h;
}

// ---- 3. the response ---------------------------------------------------------------------------

FrequencyResponse freqz(const FilterTaps& taps, std::size_t points, bool whole, double fs) {
  if (points < 1) throw FilterDesignError("points", "must be at least 1");
  if (!std::isfinite(fs) || fs <= 0) fail("fs", "must be a positive sample rate; got " + shortest_decimal(fs));
  const std::size_t length = whole ? points : 2 * points;
  FrequencyResponse response;
  if (taps.is_complex || whole) {
    // A complex grid of the whole circle; real taps are widened for it.
    FilterTaps complex_taps = taps;
    if (!taps.is_complex) {
      complex_taps = FilterTaps::from_complex(
          std::vector<std::complex<double>>(taps.real.begin(), taps.real.end()));
    }
    response.values = dft_grid(complex_taps, length);
  } else {
    response.values = dft_grid(taps, length);
  }
  response.values.resize(points);
  response.frequencies.resize(points);
  for (std::size_t k = 0; k < points; ++k)
    response.frequencies[k] = static_cast<double>(k) * fs / static_cast<double>(length);
  return response;
}

std::complex<double> response_at(const FilterTaps& taps, double frequency, double fs) {
  return dtft_sums(taps, frequency / fs, false).first;
}

double group_delay_at(const FilterTaps& taps, double frequency, double fs) {
  const auto [sum, moment] = dtft_sums(taps, frequency / fs, true);
  if (std::abs(sum) == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return (moment / sum).real();
}

bool is_linear_phase(const FilterTaps& taps, double tolerance) {
  const std::size_t m = taps.size();
  double largest = 0.0;
  for (std::size_t i = 0; i < m; ++i) largest = std::max(largest, std::abs(taps[i]));
  const double limit = tolerance * largest;
  auto holds = [&](double sign) {
    for (std::size_t i = 0; i < m; ++i)
      if (std::abs(taps[m - 1 - i] - sign * std::conj(taps[i])) > limit) return false;
    return true;
  };
  return holds(1.0) || holds(-1.0);
}

namespace {

// The extremes of |H| over bands, on a grid refined by direct evaluation.
class ResponseSearch {
 public:
  ResponseSearch(const FilterTaps& taps, double fs) : taps_(taps), fs_(fs) {
    length_ = grid_length(taps.size(), 8, 8192, std::size_t{1} << 23);
    grid_ = dft_grid(taps, length_);
    magnitude_.resize(grid_.size());
    for (std::size_t k = 0; k < grid_.size(); ++k) magnitude_[k] = std::abs(grid_[k]);
  }

  // The largest (sign +1) or smallest (sign −1) |H| over [low, high].
  double extreme(const FrequencyBand& band, double sign) const {
    double best = sign * value_at(band.low);
    best = std::max(best, sign * value_at(band.high));
    const double step = fs_ / static_cast<double>(length_);
    const auto first = static_cast<long long>(std::ceil(band.low / step));
    const auto last = static_cast<long long>(std::floor(band.high / step));
    // Grid points in the band that are local extremes, the strongest refined.
    std::vector<std::pair<double, long long>> candidates;
    for (long long k = first; k <= last; ++k) {
      const double here = sign * grid_value(k);
      best = std::max(best, here);
      if (here >= sign * grid_value(k - 1) && here >= sign * grid_value(k + 1))
        candidates.emplace_back(here, k);
    }
    const std::size_t refined = std::min<std::size_t>(candidates.size(), 3);
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(refined),
                      candidates.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t c = 0; c < refined; ++c) {
      const double centre = static_cast<double>(candidates[c].second) * step;
      const double low = std::max(band.low, centre - step);
      const double high = std::min(band.high, centre + step);
      best = std::max(best, golden_section(low, high, sign));
    }
    return sign * best;
  }

 private:
  double value_at(double frequency) const { return std::abs(response_at(taps_, frequency, fs_)); }

  // |H| at grid index k, for any integer k (the response is periodic; real taps mirror).
  double grid_value(long long k) const {
    const auto length = static_cast<long long>(length_);
    long long index = ((k % length) + length) % length;
    if (!taps_.is_complex && index > length / 2) index = length - index;
    return magnitude_[static_cast<std::size_t>(index)];
  }

  // The largest sign·|H| on [low, high], |H| unimodal there.
  double golden_section(double low, double high, double sign) const {
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double a = low, b = high;
    double c = b - ratio * (b - a), d = a + ratio * (b - a);
    double fc = sign * value_at(c), fd = sign * value_at(d);
    for (int i = 0; i < 40 && b - a > 1e-12 * fs_; ++i) {
      if (fc > fd) {
        b = d;
        d = c;
        fd = fc;
        c = b - ratio * (b - a);
        fc = sign * value_at(c);
      } else {
        a = c;
        c = d;
        fc = fd;
        d = a + ratio * (b - a);
        fd = sign * value_at(d);
      }
    }
    return std::max(fc, fd);
  }

  const FilterTaps& taps_;
  double fs_;
  std::size_t length_ = 0;
  std::vector<std::complex<double>> grid_;
  std::vector<double> magnitude_;
};

double to_db(double magnitude) { return 20.0 * std::log10(magnitude); }

}  // namespace

ResponseFigures measure_response(const FilterTaps& taps, double fs,
                                 const std::vector<FrequencyBand>& passbands,
                                 const std::vector<FrequencyBand>& stopbands) {
  if (taps.empty()) throw FilterDesignError("taps", "there are none");
  if (!std::isfinite(fs) || fs <= 0) fail("fs", "must be a positive sample rate; got " + shortest_decimal(fs));
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const ResponseSearch search(taps, fs);
  ResponseFigures figures;
  figures.passband_min_db = figures.passband_max_db = figures.passband_ripple_db = kNaN;
  figures.stopband_attenuation_db = kNaN;
  if (!passbands.empty()) {
    double lowest = std::numeric_limits<double>::infinity();
    double highest = 0.0;
    for (const FrequencyBand& band : passbands) {
      lowest = std::min(lowest, search.extreme(band, -1.0));
      highest = std::max(highest, search.extreme(band, +1.0));
    }
    figures.passband_min_db = to_db(lowest);
    figures.passband_max_db = to_db(highest);
    figures.passband_ripple_db = figures.passband_max_db - figures.passband_min_db;
  }
  if (!stopbands.empty()) {
    double highest = 0.0;
    for (const FrequencyBand& band : stopbands) highest = std::max(highest, search.extreme(band, +1.0));
    figures.stopband_attenuation_db = -to_db(highest);
  }
  figures.linear_phase = is_linear_phase(taps);
  if (figures.linear_phase)
    figures.group_delay = 0.5 * (static_cast<double>(taps.size()) - 1);
  else if (!passbands.empty())
    figures.group_delay = group_delay_at(taps, 0.5 * (passbands[0].low + passbands[0].high), fs);
  else
    figures.group_delay = kNaN;
  return figures;
}

ResponseFigures measure_response(const FilterDesign& design) {
  return measure_response(design.taps, design.spec.sample_rate, design.passbands, design.stopbands);
}

// ---- 4. specifications ---------------------------------------------------------------------

std::string_view band_kind_name(BandKind kind) {
  switch (kind) {
    case BandKind::lowpass: return "lowpass";
    case BandKind::highpass: return "highpass";
    case BandKind::bandpass: return "bandpass";
    case BandKind::bandstop: return "bandstop";
    case BandKind::complex_bandpass: return "complex-bandpass";
  }
  return "?";
}

namespace {

constexpr double kMinAttenuation = 8.0;
constexpr double kMaxAttenuation = 300.0;

bool dc_passes(BandKind kind) { return kind == BandKind::lowpass || kind == BandKind::bandstop; }

// Whether a real design's last band reaches fs/2 (firwin's pass_nyquist).
bool passes_nyquist(const FilterDesignSpec& spec) {
  if (spec.band == BandKind::complex_bandpass) return false;
  return is_odd(spec.edges.size()) != dc_passes(spec.band);
}

PassZero pass_zero_of(BandKind kind) {
  switch (kind) {
    case BandKind::lowpass: return PassZero::lowpass;
    case BandKind::highpass: return PassZero::highpass;
    case BandKind::bandpass: return PassZero::bandpass;
    case BandKind::bandstop: return PassZero::bandstop;
    case BandKind::complex_bandpass: break;
  }
  return PassZero::lowpass;
}

void validate_edges(const FilterDesignSpec& spec) {
  const double nyq = spec.sample_rate / 2;
  const std::size_t count = spec.edges.size();
  const std::string kind(band_kind_name(spec.band));
  for (double edge : spec.edges)
    if (!std::isfinite(edge)) fail("edges", "must be finite numbers of Hz; got " + shortest_decimal(edge));
  if (spec.band == BandKind::complex_bandpass) {
    if (count != 2)
      fail("edges", "a complex-bandpass takes two edges, f_low < f_high; got " + std::to_string(count));
    const double low = spec.edges[0], high = spec.edges[1];
    for (double edge : spec.edges)
      if (edge < -nyq || edge > nyq)
        fail("edges", "each edge must be within [-" + shortest_decimal(nyq) + ", " + shortest_decimal(nyq) +
                          "] Hz (± half the sample rate); got " + shortest_decimal(edge));
    if (!(low < high))
      fail("edges", "the lower edge must be below the upper; got " + shortest_decimal(low) + " then " +
                        shortest_decimal(high));
    if (high - low >= spec.sample_rate)
      fail("edges", "the band must be narrower than the sample rate (" + shortest_decimal(spec.sample_rate) +
                        " Hz); got " + shortest_decimal(low) + " to " + shortest_decimal(high));
    return;
  }
  const bool one = spec.band == BandKind::lowpass || spec.band == BandKind::highpass;
  if (one && count != 1)
    fail("edges", "a " + kind + " takes one cutoff frequency; got " + std::to_string(count));
  if (!one && count < 2)
    fail("edges", "a " + kind + " takes two edges f1 < f2 (or more, for several bands); got " +
                      std::to_string(count));
  for (std::size_t i = 0; i < count; ++i) {
    if (spec.edges[i] <= 0 || spec.edges[i] >= nyq)
      fail("edges", "each frequency must be between 0 and " + shortest_decimal(nyq) +
                        " Hz (half the sample rate), exclusive; got " + shortest_decimal(spec.edges[i]));
    if (i > 0 && spec.edges[i] <= spec.edges[i - 1])
      fail("edges", "the frequencies must increase; got " + shortest_decimal(spec.edges[i - 1]) + " then " +
                        shortest_decimal(spec.edges[i]));
  }
}

// The figures' bands: the ideal passbands and stopbands with `half` Hz left out on each side of
// each edge (empty ones dropped).
void design_bands(FilterDesign& design, double half) {
  const FilterDesignSpec& spec = design.spec;
  auto add = [](std::vector<FrequencyBand>& bands, double low, double high) {
    if (low < high) bands.push_back({low, high});
  };
  if (spec.band == BandKind::complex_bandpass) {
    // The stopband runs from the upper edge up to the lower edge one period on; shown within
    // [-fs/2, fs/2] it is one piece or, where it crosses fs/2, two.
    const double low = spec.edges[0], high = spec.edges[1];
    const double fs = spec.sample_rate;
    add(design.passbands, low + half, high - half);
    const double stop_low = high + half, stop_high = low + fs - half;
    if (stop_low >= stop_high) return;
    if (stop_low >= fs / 2) {
      add(design.stopbands, stop_low - fs, stop_high - fs);
    } else if (stop_high <= fs / 2) {
      add(design.stopbands, stop_low, stop_high);
    } else {
      add(design.stopbands, -fs / 2, stop_high - fs);
      add(design.stopbands, stop_low, fs / 2);
    }
    return;
  }
  const double nyq = spec.sample_rate / 2;
  // Band boundaries from 0 to fs/2; band i passes when i is even and DC passes, or odd and not.
  std::vector<double> bounds{0.0};
  bounds.insert(bounds.end(), spec.edges.begin(), spec.edges.end());
  bounds.push_back(nyq);
  const bool first_passes = dc_passes(spec.band);
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const double low = i == 0 ? 0.0 : bounds[i] + half;
    const double high = i + 2 == bounds.size() ? nyq : bounds[i + 1] - half;
    const bool passes = (i % 2 == 0) == first_passes;
    add(passes ? design.passbands : design.stopbands, low, high);
  }
}

}  // namespace

void validate(const FilterDesignSpec& spec) {
  if (!std::isfinite(spec.sample_rate) || spec.sample_rate <= 0)
    fail("sample_rate", "must be a positive number of Hz; got " + shortest_decimal(spec.sample_rate));
  validate_edges(spec);
  const double nyq = spec.sample_rate / 2;
  if (spec.transition && (!std::isfinite(*spec.transition) || *spec.transition <= 0 ||
                          *spec.transition >= nyq))
    fail("transition", "must be between 0 and " + shortest_decimal(nyq) +
                           " Hz (half the sample rate), exclusive; got " + shortest_decimal(*spec.transition));
  if (spec.attenuation && (!std::isfinite(*spec.attenuation) || *spec.attenuation < kMinAttenuation ||
                           *spec.attenuation > kMaxAttenuation))
    fail("attenuation", "must be " + shortest_decimal(kMinAttenuation) + " to " + shortest_decimal(kMaxAttenuation) +
                            " dB (Kaiser's formula holds from 8 dB; doubles end near 300); got " +
                            shortest_decimal(*spec.attenuation));
  if (spec.numtaps) {
    if (spec.attenuation)
      fail("attenuation", spec.transition
                              ? "give numtaps, or transition and attenuation, not all three"
                              : "goes with transition (Kaiser's formula chooses numtaps from both), "
                                "not with numtaps");
    const std::size_t numtaps = *spec.numtaps;
    if (numtaps < 1 || numtaps > kMaxDesignTaps)
      fail("numtaps", "must be 1.." + std::to_string(kMaxDesignTaps) + "; got " + std::to_string(numtaps));
    if (passes_nyquist(spec) && !is_odd(numtaps))
      fail("numtaps", "must be odd for a filter that passes half the sample rate (a linear-phase filter "
                      "with an even number of taps is 0 there); got " + std::to_string(numtaps) +
                      ", try " + std::to_string(numtaps + 1));
  } else {
    if (!spec.transition && !spec.attenuation)
      fail("numtaps", "give numtaps, or transition and attenuation (Kaiser's formula)");
    if (!spec.transition) fail("transition", "give it with attenuation (or give numtaps)");
    if (!spec.attenuation) fail("attenuation", "give it with transition (or give numtaps)");
    // Kaiser's numtaps = (A − 7.95)/2.285/(π·W/nyq) + 1 must stay within kMaxDesignTaps (one
    // less where it is raised to odd).
    const double a = *spec.attenuation;
    const double numtaps = std::ceil((a - 7.95) / 2.285 / (std::numbers::pi * (*spec.transition / nyq)) + 1);
    const double largest = static_cast<double>(kMaxDesignTaps - (passes_nyquist(spec) ? 1 : 0));
    if (!(numtaps <= largest)) {
      const double narrowest = (a - 7.95) / 2.285 / std::numbers::pi / (largest - 1) * nyq;
      fail("transition", "is too narrow for " + shortest_decimal(a) + " dB: Kaiser's formula asks for " +
                             shortest_decimal(numtaps) + " taps, more than the " + std::to_string(kMaxDesignTaps) +
                             " a design may have; give at least " +
                             shortest_decimal(std::ceil(narrowest * 1.0001 * 1e6) / 1e6) + " Hz");
    }
  }
  if (spec.window && spec.transition)
    fail("window", "is Kaiser's, chosen from transition" +
                       std::string(spec.attenuation ? " and attenuation" : "") +
                       "; give numtaps alone to choose a window");
}

FilterDesign design_filter(const FilterDesignSpec& spec) {
  validate(spec);
  FilterDesign design;
  design.spec = spec;
  const double fs = spec.sample_rate;
  const double nyq = fs / 2;

  std::size_t numtaps = 0;
  if (spec.numtaps && spec.transition) {
    numtaps = *spec.numtaps;
    design.window = {WindowKind::kaiser, kaiser_beta(kaiser_atten(numtaps, *spec.transition / nyq))};
  } else if (spec.numtaps) {
    numtaps = *spec.numtaps;
    design.window = spec.window.value_or(WindowSpec{WindowKind::hamming});
  } else {
    const KaiserOrder order = kaiserord(*spec.attenuation, *spec.transition / nyq);
    numtaps = order.numtaps;
    if (passes_nyquist(spec) && !is_odd(numtaps)) ++numtaps;
    design.window = {WindowKind::kaiser, order.beta};
  }

  // The window is passed explicitly (rather than firwin's width) in every case: the same beta.
  try {
    if (spec.band == BandKind::complex_bandpass) {
      design.taps = FilterTaps::from_complex(
          complex_bandpass(numtaps, spec.edges[0], spec.edges[1], fs, design.window));
    } else {
      FirwinOptions options;
      options.window = design.window;
      options.pass_zero = pass_zero_of(spec.band);
      options.fs = fs;
      design.taps = FilterTaps::from_real(firwin(numtaps, spec.edges, options));
    }
  } catch (const FilterDesignError& e) {
    // Parameters validate() has checked cannot fail here but for the scale (too few taps).
    fail(e.field() == "numtaps" ? "numtaps" : "edges", e.reason());
  }

  if (spec.transition) {
    design.transition = *spec.transition;
  } else {
    design.transition = 2 * window_main_lobe_half_width(design.window, numtaps, fs);
    design.transition_from_window = true;
  }
  design_bands(design, design.transition / 2);
  design.group_delay = 0.5 * (static_cast<double>(numtaps) - 1);
  return design;
}

}  // namespace prism
