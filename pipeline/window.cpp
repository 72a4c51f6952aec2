// Window functions (window.hpp): names, parameters, parsing, and the windows of
// scipy.signal.get_window(window, n, fftbins=True or False), scipy 1.10.
//
// A periodic window of length n is scipy's symmetric window of length n+1 without its last
// value. The formulas follow scipy/signal/windows/_windows.py operation by operation (numpy's
// linspace and arange, x**2 as x*x, x**3.0 as pow), so that the values agree with scipy's
// within a few ulps; Kaiser's I0 comes from std::cyl_bessel_i instead of Cephes, chebwin's FFT
// from FFTW instead of pocketfft, and dpss's eigenvector from bisection and inverse iteration
// instead of LAPACK's stebz/stein, all agreeing to about 1e-13.
//
// Contents:
//   1. the table            names, aliases and parameters of every window
//   2. parsing / printing   parse_window, to_string, scipy_argument, window_problem
//   3. the windows          one function per formula, symmetric_window, make_window
#include "pipeline/window.hpp"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <string>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "fft/fftw_planner_locks.hpp"

namespace prism {
namespace {

// ---- 1. the table ------------------------------------------------------------------------

enum class ParameterRule {
  any,             // any finite number
  non_negative,    // >= 0
  positive,        // > 0
  unit_interval,   // in [0, 1]
  whole_positive,  // an integer >= 1
  center,          // a finite number or none (None)
  boolean,         // true/false (1/0)
};

struct ParameterInfo {
  std::string_view name;
  ParameterRule rule;
  bool has_default = false;
  double default_value = 0.0;
};

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

struct WindowInfo {
  WindowKind kind;
  std::string_view name;  // scipy's function name
  std::array<std::string_view, 5> aliases;
  std::array<ParameterInfo, 3> parameters;
  int parameter_count = 0;
  bool variadic = false;  // general_cosine: one or more coefficients
};

constexpr ParameterInfo P(std::string_view name, ParameterRule rule) { return {name, rule, false, 0.0}; }
constexpr ParameterInfo D(std::string_view name, ParameterRule rule, double value) {
  return {name, rule, true, value};
}

// Every name scipy's get_window accepts, scipy's function names, and a few common spellings.
const std::array<WindowInfo, 25> kWindows = {{
    {WindowKind::boxcar, "boxcar", {"box", "ones", "rect", "rectangular"}, {}, 0},
    {WindowKind::triang, "triang", {"triangle", "tri"}, {}, 0},
    {WindowKind::blackman, "blackman", {"black", "blk"}, {}, 0},
    {WindowKind::hamming, "hamming", {"hamm", "ham"}, {}, 0},
    {WindowKind::hann, "hann", {"han", "hanning"}, {}, 0},
    {WindowKind::bartlett, "bartlett", {"bart", "brt"}, {}, 0},
    {WindowKind::flattop, "flattop", {"flat", "flt", "flat top", "flat-top"}, {}, 0},
    {WindowKind::parzen, "parzen", {"parz", "par"}, {}, 0},
    {WindowKind::bohman, "bohman", {"bman", "bmn"}, {}, 0},
    {WindowKind::blackmanharris, "blackmanharris",
     {"blackharr", "bkh", "blackman-harris", "blackman_harris"}, {}, 0},
    {WindowKind::nuttall, "nuttall", {"nutl", "nut"}, {}, 0},
    {WindowKind::barthann, "barthann", {"brthan", "bth"}, {}, 0},
    {WindowKind::cosine, "cosine", {"halfcosine"}, {}, 0},
    {WindowKind::exponential, "exponential", {"poisson"},
     {D("center", ParameterRule::center, kNone), D("tau", ParameterRule::positive, 1.0)}, 2},
    {WindowKind::tukey, "tukey", {"tuk"}, {D("alpha", ParameterRule::unit_interval, 0.5)}, 1},
    {WindowKind::taylor, "taylor", {"taylorwin"},
     {D("nbar", ParameterRule::whole_positive, 4), D("sll", ParameterRule::positive, 30),
      D("norm", ParameterRule::boolean, 1)},
     3},
    {WindowKind::lanczos, "lanczos", {"sinc"}, {}, 0},
    {WindowKind::kaiser, "kaiser", {"ksr"}, {P("beta", ParameterRule::non_negative)}, 1},
    {WindowKind::kaiser_bessel_derived, "kaiser_bessel_derived", {"kbd", "kaiser bessel derived"},
     {P("beta", ParameterRule::non_negative)}, 1},
    {WindowKind::gaussian, "gaussian", {"gauss", "gss"}, {P("std", ParameterRule::positive)}, 1},
    {WindowKind::general_gaussian, "general_gaussian",
     {"general gaussian", "general gauss", "general_gauss", "ggs"},
     {P("p", ParameterRule::positive), P("sig", ParameterRule::positive)}, 2},
    {WindowKind::general_cosine, "general_cosine", {"general cosine"},
     {P("a", ParameterRule::any)}, 1, true},
    {WindowKind::general_hamming, "general_hamming", {"general hamming"},
     {P("alpha", ParameterRule::any)}, 1},
    {WindowKind::dpss, "dpss", {}, {P("NW", ParameterRule::positive)}, 1},
    {WindowKind::chebwin, "chebwin", {"cheb"}, {P("at", ParameterRule::any)}, 1},
}};

const WindowInfo& info_of(WindowKind kind) {
  for (const WindowInfo& w : kWindows)
    if (w.kind == kind) return w;
  return kWindows[0];
}

std::string lowercase_trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void window_error(const std::string& what) {
  throw UsageError(what + " (windows: " + window_names_help() + ")");
}

// What is wrong with `value` as parameter `p` of window `name`, or "".
std::string parameter_problem(std::string_view name, const ParameterInfo& p, double value) {
  const std::string which = "the " + std::string(p.name) + " of window '" + std::string(name) + "'";
  switch (p.rule) {
    case ParameterRule::center:
      if (std::isnan(value)) return "";
      [[fallthrough]];
    case ParameterRule::any:
      return std::isfinite(value) ? "" : which + " must be a finite number";
    case ParameterRule::non_negative:
      return std::isfinite(value) && value >= 0 ? "" : which + " must be >= 0 (got " + shortest_decimal(value) + ")";
    case ParameterRule::positive:
      return std::isfinite(value) && value > 0 ? "" : which + " must be > 0 (got " + shortest_decimal(value) + ")";
    case ParameterRule::unit_interval:
      return value >= 0 && value <= 1 ? "" : which + " must be in [0, 1] (got " + shortest_decimal(value) + ")";
    case ParameterRule::whole_positive:
      return value >= 1 && value <= 1e6 && value == std::floor(value)
                 ? ""
                 : which + " must be a whole number from 1 to 1000000 (got " + shortest_decimal(value) + ")";
    case ParameterRule::boolean:
      return value == 0 || value == 1 ? "" : which + " must be true or false";
  }
  return "";
}

std::string parameter_text(const ParameterInfo& p, double value) {
  if (p.rule == ParameterRule::center && std::isnan(value)) return "none";
  if (p.rule == ParameterRule::boolean) return value != 0 ? "true" : "false";
  return shortest_decimal(value);
}

// ---- 3. the windows ----------------------------------------------------------------------
//
// Each function makes scipy's symmetric window of length m >= 2 (sym=True); make_window makes
// the periodic window of length n from the symmetric one of length n+1.

// numpy.linspace(start, stop, m)[i]: i·step + start, the last value exactly stop.
double linspace_at(double start, double stop, std::size_t m, std::size_t i) {
  if (i + 1 == m) return stop;
  const double step = (stop - start) / static_cast<double>(m - 1);
  return static_cast<double>(i) * step + start;
}

// numpy.sinc: sin(πx)/(πx), 1 at 0.
double numpy_sinc(double x) {
  const double y = std::numbers::pi * (x == 0.0 ? 1.0e-20 : x);
  return std::sin(y) / y;
}

std::vector<double> general_cosine(std::size_t m, const std::vector<double>& a) {
  std::vector<double> w(m, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    for (std::size_t i = 0; i < m; ++i)
      w[i] += a[k] * std::cos(static_cast<double>(k) * linspace_at(-std::numbers::pi, std::numbers::pi, m, i));
  return w;
}

std::vector<double> triang(std::size_t m) {
  std::vector<double> w(m);
  const std::size_t half = (m + 1) / 2;
  const double md = static_cast<double>(m);
  for (std::size_t i = 0; i < half; ++i) {
    const double n = static_cast<double>(i + 1);
    w[i] = m % 2 == 0 ? (2 * n - 1.0) / md : 2 * n / (md + 1.0);
    w[m - 1 - i] = w[i];
  }
  return w;
}

std::vector<double> parzen(std::size_t m) {
  const double md = static_cast<double>(m);
  const double half = md / 2.0;
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double n = -(md - 1) / 2.0 + static_cast<double>(i);
    const double a = std::abs(n) / half;
    if (n < -(md - 1) / 4.0 || n > (md - 1) / 4.0) {
      w[i] = 2 * std::pow(1 - a, 3.0);
    } else {
      w[i] = 1 - 6 * (a * a) + 6 * std::pow(a, 3.0);
    }
  }
  return w;
}

std::vector<double> bohman(std::size_t m) {
  std::vector<double> w(m, 0.0);
  for (std::size_t i = 1; i + 1 < m; ++i) {
    const double fac = std::abs(linspace_at(-1.0, 1.0, m, i));
    w[i] = (1 - fac) * std::cos(std::numbers::pi * fac) + 1.0 / std::numbers::pi * std::sin(std::numbers::pi * fac);
  }
  return w;
}

std::vector<double> bartlett(std::size_t m) {
  const double m1 = static_cast<double>(m - 1);
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double n = static_cast<double>(i);
    w[i] = n <= m1 / 2.0 ? 2.0 * n / m1 : 2.0 - 2.0 * n / m1;
  }
  return w;
}

std::vector<double> tukey(std::size_t m, double alpha) {
  if (alpha <= 0) return std::vector<double>(m, 1.0);
  if (alpha >= 1.0) return general_cosine(m, {0.5, 1.0 - 0.5});
  const double m1 = static_cast<double>(m - 1);
  const auto width = static_cast<std::size_t>(std::floor(alpha * m1 / 2.0));
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double x = static_cast<double>(i);
    if (i <= width)
      w[i] = 0.5 * (1 + std::cos(std::numbers::pi * (-1 + 2.0 * x / alpha / m1)));
    else if (i < m - width - 1)
      w[i] = 1.0;
    else
      w[i] = 0.5 * (1 + std::cos(std::numbers::pi * (-2.0 / alpha + 1 + 2.0 * x / alpha / m1)));
  }
  return w;
}

std::vector<double> barthann(std::size_t m) {
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double fac = std::abs(static_cast<double>(i) / (static_cast<double>(m) - 1.0) - 0.5);
    w[i] = 0.62 - 0.48 * fac + 0.38 * std::cos(2 * std::numbers::pi * fac);
  }
  return w;
}

// The largest Kaiser beta: I0(700) = 1.5e302, within a double.
constexpr double kMaxKaiserBeta = 700;
// The largest Taylor nbar: its coefficients cost nbar² steps, and beyond some hundreds their
// products overflow (scipy's window is NaN at nbar 500).
constexpr double kMaxTaylorNbar = 300;

std::vector<double> kaiser(std::size_t m, double beta) {
  const double alpha = static_cast<double>(m - 1) / 2.0;
  const double denominator = std::cyl_bessel_i(0.0, beta);
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double r = (static_cast<double>(i) - alpha) / alpha;
    w[i] = std::cyl_bessel_i(0.0, beta * std::sqrt(1 - r * r)) / denominator;
  }
  return w;
}

std::vector<double> kaiser_bessel_derived(std::size_t m, double beta) {
  const std::vector<double> k = kaiser(m / 2 + 1, beta);
  std::vector<double> cumulative(k.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < k.size(); ++i) cumulative[i] = sum += k[i];
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m / 2; ++i) {
    w[i] = std::sqrt(cumulative[i] / cumulative.back());
    w[m - 1 - i] = w[i];
  }
  return w;
}

std::vector<double> gaussian(std::size_t m, double std_dev) {
  const double sig2 = 2 * std_dev * std_dev;
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double n = static_cast<double>(i) - (static_cast<double>(m) - 1.0) / 2.0;
    w[i] = std::exp(-(n * n) / sig2);
  }
  return w;
}

std::vector<double> general_gaussian(std::size_t m, double p, double sig) {
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double n = static_cast<double>(i) - (static_cast<double>(m) - 1.0) / 2.0;
    w[i] = std::exp(-0.5 * std::pow(std::abs(n / sig), 2 * p));
  }
  return w;
}

std::vector<double> cosine(std::size_t m) {
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i)
    w[i] = std::sin(std::numbers::pi / static_cast<double>(m) * (static_cast<double>(i) + 0.5));
  return w;
}

std::vector<double> exponential(std::size_t m, double center, double tau) {
  if (std::isnan(center)) center = static_cast<double>(m - 1) / 2;
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) w[i] = std::exp(-std::abs(static_cast<double>(i) - center) / tau);
  return w;
}

std::vector<double> taylor(std::size_t m, std::size_t nbar, double sll, bool norm) {
  const double b = std::pow(10.0, sll / 20);
  const double a = std::acosh(b) / std::numbers::pi;
  const double nb = static_cast<double>(nbar);
  const double s2 = nb * nb / (a * a + (nb - 0.5) * (nb - 0.5));
  std::vector<double> fm(nbar > 0 ? nbar - 1 : 0);
  for (std::size_t mi = 0; mi < fm.size(); ++mi) {
    const double mm = static_cast<double>(mi + 1);
    const double m2 = mm * mm;
    double numerator = mi % 2 == 0 ? 1.0 : -1.0;
    double product = 1.0;
    for (std::size_t j = 0; j < fm.size(); ++j) {
      const double mj = static_cast<double>(j + 1) - 0.5;
      product *= 1 - m2 / s2 / (a * a + mj * mj);
    }
    numerator *= product;
    double below = 1.0, above = 1.0;
    for (std::size_t j = 0; j < mi; ++j) below *= 1 - m2 / (static_cast<double>(j + 1) * static_cast<double>(j + 1));
    for (std::size_t j = mi + 1; j < fm.size(); ++j)
      above *= 1 - m2 / (static_cast<double>(j + 1) * static_cast<double>(j + 1));
    fm[mi] = numerator / (2 * below * above);
  }
  const double md = static_cast<double>(m);
  auto window_at = [&](double n) {
    double dot = 0.0;
    for (std::size_t j = 0; j < fm.size(); ++j)
      dot += fm[j] * std::cos(2 * std::numbers::pi * static_cast<double>(j + 1) * (n - md / 2.0 + 0.5) / md);
    return 1 + 2 * dot;
  };
  std::vector<double> w(m);
  for (std::size_t i = 0; i < m; ++i) w[i] = window_at(static_cast<double>(i));
  if (norm) {
    const double scale = 1.0 / window_at((md - 1) / 2);
    for (double& v : w) v *= scale;
  }
  return w;
}

std::vector<double> lanczos(std::size_t m) {
  const double md = static_cast<double>(m);
  // numpy.arange(start, m) of floats: start, start+1, ... below m.
  const double start = m % 2 == 0 ? md / 2 : (md + 1) / 2;
  std::vector<double> right;
  for (double n = start; n < md; n += 1.0) right.push_back(numpy_sinc(2.0 * n / (md - 1) - 1.0));
  std::vector<double> w(right.rbegin(), right.rend());
  if (m % 2 == 1) w.push_back(1.0);
  w.insert(w.end(), right.begin(), right.end());
  return w;
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

// The real part of the DFT of `values` (complex, length m), with FFTW in double precision.
std::vector<double> real_dft(const std::vector<std::array<double, 2>>& values) {
  const std::size_t m = values.size();
  std::unique_ptr<fftw_complex, FftwFree> data(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * m)));
  if (!data) throw std::bad_alloc();
  fftw_plan plan;
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    plan = fftw_plan_dft_1d(static_cast<int>(m), data.get(), data.get(), FFTW_FORWARD, FFTW_ESTIMATE);
  }
  for (std::size_t i = 0; i < m; ++i) {
    data.get()[i][0] = values[i][0];
    data.get()[i][1] = values[i][1];
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    fftw_destroy_plan(plan);
  }
  std::vector<double> out(m);
  for (std::size_t i = 0; i < m; ++i) out[i] = data.get()[i][0];
  return out;
}

std::vector<double> chebwin(std::size_t m, double at) {
  const double order = static_cast<double>(m) - 1.0;
  const double beta = std::cosh(1.0 / order * std::acosh(std::pow(10.0, std::abs(at) / 20.0)));
  std::vector<std::array<double, 2>> p(m);
  for (std::size_t k = 0; k < m; ++k) {
    const double x = beta * std::cos(std::numbers::pi * static_cast<double>(k) / static_cast<double>(m));
    double value;
    if (x > 1)
      value = std::cosh(order * std::acosh(x));
    else if (x < -1)
      value = (2 * static_cast<double>(m % 2) - 1) * std::cosh(order * std::acosh(-x));
    else
      value = std::cos(order * std::acos(x));
    p[k] = {value, 0.0};
  }
  std::vector<double> w;
  if (m % 2 == 1) {
    const std::vector<double> spectrum = real_dft(p);
    const std::size_t n = (m + 1) / 2;
    for (std::size_t i = n - 1; i >= 1; --i) w.push_back(spectrum[i]);
    w.insert(w.end(), spectrum.begin(), spectrum.begin() + static_cast<std::ptrdiff_t>(n));
  } else {
    for (std::size_t k = 0; k < m; ++k) {
      // p · exp(1j·π/M·k), as numpy multiplies a real by a complex exponential.
      const double angle = std::numbers::pi / static_cast<double>(m) * static_cast<double>(k);
      const double re = p[k][0];
      p[k] = {re * std::cos(angle), re * std::sin(angle)};
    }
    const std::vector<double> spectrum = real_dft(p);
    const std::size_t n = m / 2 + 1;
    for (std::size_t i = n - 1; i >= 1; --i) w.push_back(spectrum[i]);
    w.insert(w.end(), spectrum.begin() + 1, spectrum.begin() + static_cast<std::ptrdiff_t>(n));
  }
  const double peak = *std::max_element(w.begin(), w.end());
  for (double& v : w) v /= peak;
  return w;
}

// The eigenvector of the symmetric tridiagonal matrix (diagonal d, off-diagonal e) for its
// largest eigenvalue, of unit length: the eigenvalue by bisection on Sturm counts, the vector
// by inverse iteration (LU with partial pivoting), as LAPACK's stebz and stein do.
std::vector<double> top_eigenvector(const std::vector<double>& d, const std::vector<double>& e) {
  const std::size_t m = d.size();
  // Gershgorin bounds.
  double low = d[0], high = d[0];
  for (std::size_t i = 0; i < m; ++i) {
    const double radius = (i > 0 ? std::abs(e[i - 1]) : 0.0) + (i + 1 < m ? std::abs(e[i]) : 0.0);
    low = std::min(low, d[i] - radius);
    high = std::max(high, d[i] + radius);
  }
  const double scale = std::max(std::abs(low), std::abs(high));
  // Eigenvalues below x.
  auto count_below = [&](double x) {
    std::size_t count = 0;
    double q = d[0] - x;
    const double tiny = std::numeric_limits<double>::min();
    for (std::size_t i = 0;; ++i) {
      if (q == 0.0) q = -tiny;
      if (q < 0) ++count;
      if (i + 1 == m) break;
      q = (d[i + 1] - x) - e[i] * e[i] / q;
    }
    return count;
  };
  while (high - low > 2 * std::numeric_limits<double>::epsilon() * scale) {
    const double mid = low + (high - low) / 2;
    if (mid <= low || mid >= high) break;
    if (count_below(mid) == m) high = mid;  // every eigenvalue is below mid
    else low = mid;
  }
  const double lambda = low + (high - low) / 2;

  // (T − λI) = P·L·U with partial pivoting: U has two superdiagonals.
  std::vector<double> u0(m), u1(m, 0.0), u2(m, 0.0), l(m, 0.0);
  std::vector<bool> swapped(m, false);
  const double pivot_floor = std::numeric_limits<double>::epsilon() * scale;
  {
    double diag = d[0] - lambda;
    double upper = m > 1 ? e[0] : 0.0;
    for (std::size_t i = 0; i + 1 < m; ++i) {
      const double below = e[i];
      const double next_diag = d[i + 1] - lambda;
      const double next_upper = i + 2 < m ? e[i + 1] : 0.0;
      if (std::abs(below) > std::abs(diag)) {
        swapped[i] = true;
        u0[i] = below;
        u1[i] = next_diag;
        u2[i] = next_upper;
        const double factor = diag / below;
        l[i] = factor;
        diag = upper - factor * next_diag;
        upper = -factor * next_upper;
      } else {
        if (diag == 0.0) diag = pivot_floor;
        u0[i] = diag;
        u1[i] = upper;
        u2[i] = 0.0;
        const double factor = below / diag;
        l[i] = factor;
        diag = next_diag - factor * upper;
        upper = next_upper;
      }
    }
    u0[m - 1] = diag == 0.0 ? pivot_floor : diag;
  }
  std::vector<double> x(m, 1.0);
  for (int iteration = 0; iteration < 3; ++iteration) {
    // Forward: apply the row swaps and L.
    for (std::size_t i = 0; i + 1 < m; ++i) {
      if (swapped[i]) std::swap(x[i], x[i + 1]);
      x[i + 1] -= l[i] * x[i];
    }
    // Back substitution with U.
    for (std::size_t k = m; k-- > 0;) {
      double v = x[k];
      if (k + 1 < m) v -= u1[k] * x[k + 1];
      if (k + 2 < m) v -= u2[k] * x[k + 2];
      x[k] = v / u0[k];
    }
    double norm = 0.0;
    for (double v : x) norm += v * v;
    norm = std::sqrt(norm);
    for (double& v : x) v /= norm;
  }
  return x;
}

std::vector<double> dpss(std::size_t m, double nw) {
  const double md = static_cast<double>(m);
  const double w_half = nw / md;
  std::vector<double> d(m), e(m - 1);
  for (std::size_t i = 0; i < m; ++i) {
    const double t = (md - 1 - 2 * static_cast<double>(i)) / 2.0;
    d[i] = t * t * std::cos(2 * std::numbers::pi * w_half);
  }
  for (std::size_t i = 1; i < m; ++i) e[i - 1] = static_cast<double>(i) * (md - static_cast<double>(i)) / 2.0;
  std::vector<double> w = top_eigenvector(d, e);
  double sum = 0.0;
  for (double v : w) sum += v;
  if (sum < 0)
    for (double& v : w) v = -v;
  const double peak = *std::max_element(w.begin(), w.end());
  for (double& v : w) v /= peak;
  if (m % 2 == 0) {
    const double correction = md * md / (md * md + nw);
    for (double& v : w) v *= correction;
  }
  return w;
}

std::vector<double> symmetric_window(const WindowSpec& spec, std::size_t m) {
  const std::vector<double>& p = spec.parameters;
  switch (spec.kind) {
    case WindowKind::boxcar: return std::vector<double>(m, 1.0);
    case WindowKind::triang: return triang(m);
    case WindowKind::blackman: return general_cosine(m, {0.42, 0.5, 0.08});
    case WindowKind::hamming: return general_cosine(m, {0.54, 1.0 - 0.54});
    case WindowKind::hann: return general_cosine(m, {0.5, 1.0 - 0.5});
    case WindowKind::bartlett: return bartlett(m);
    case WindowKind::flattop:
      return general_cosine(m, {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368});
    case WindowKind::parzen: return parzen(m);
    case WindowKind::bohman: return bohman(m);
    case WindowKind::blackmanharris: return general_cosine(m, {0.35875, 0.48829, 0.14128, 0.01168});
    case WindowKind::nuttall: return general_cosine(m, {0.3635819, 0.4891775, 0.1365995, 0.0106411});
    case WindowKind::barthann: return barthann(m);
    case WindowKind::cosine: return cosine(m);
    case WindowKind::exponential: return exponential(m, p[0], p[1]);
    case WindowKind::tukey: return tukey(m, p[0]);
    case WindowKind::taylor: return taylor(m, static_cast<std::size_t>(p[0]), p[1], p[2] != 0);
    case WindowKind::lanczos: return lanczos(m);
    case WindowKind::kaiser: return kaiser(m, p[0]);
    case WindowKind::kaiser_bessel_derived: return kaiser_bessel_derived(m, p[0]);
    case WindowKind::gaussian: return gaussian(m, p[0]);
    case WindowKind::general_gaussian: return general_gaussian(m, p[0], p[1]);
    case WindowKind::general_cosine: return general_cosine(m, p);
    case WindowKind::general_hamming: return general_cosine(m, {p[0], 1.0 - p[0]});
    case WindowKind::dpss: return dpss(m, p[0]);
    case WindowKind::chebwin: return chebwin(m, p[0]);
  }
  return std::vector<double>(m, 1.0);
}

}  // namespace

// ---- 2. parsing / printing ---------------------------------------------------------------

std::string WindowSpec::to_string() const {
  const WindowInfo& info = info_of(kind);
  std::string text(info.name);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const ParameterInfo& p = info.parameters[std::min<std::size_t>(i, info.parameter_count > 0 ? info.parameter_count - 1 : 0)];
    text += ':';
    text += parameter_text(p, parameters[i]);
  }
  return text;
}

std::string WindowSpec::scipy_argument() const {
  const WindowInfo& info = info_of(kind);
  const std::string name = "'" + std::string(info.name == "kaiser_bessel_derived" ? "kbd" : info.name) + "'";
  if (parameters.empty()) return name;
  std::string args;
  if (kind == WindowKind::general_cosine) {
    args = "[";
    for (std::size_t i = 0; i < parameters.size(); ++i) args += (i ? ", " : "") + python_float(parameters[i]);
    args += "]";
  } else {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const ParameterInfo& p = info.parameters[i];
      std::string value;
      if (p.rule == ParameterRule::center && std::isnan(parameters[i])) value = "None";
      else if (p.rule == ParameterRule::boolean) value = parameters[i] != 0 ? "True" : "False";
      else if (p.rule == ParameterRule::whole_positive) value = shortest_decimal(parameters[i]);
      else value = python_float(parameters[i]);
      args += (i ? ", " : "") + value;
    }
  }
  return "(" + name + ", " + args + ")";
}

std::string window_names_help() {
  std::string text;
  for (const WindowInfo& w : kWindows) {
    if (!text.empty()) text += ", ";
    text += w.name;
    for (int i = 0; i < w.parameter_count; ++i) {
      const ParameterInfo& p = w.parameters[i];
      std::string name(p.name);
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      text += p.has_default ? "[:" + name : ":" + name;
      if (w.variadic) text += ":...";
    }
    for (int i = 0; i < w.parameter_count; ++i)
      if (w.parameters[i].has_default) text += "]";
  }
  return text;
}

WindowSpec parse_window(std::string_view text) {
  const std::string lowered = lowercase_trimmed(text);
  const std::size_t colon = lowered.find(':');
  const std::string name = lowercase_trimmed(std::string_view(lowered).substr(0, colon));
  const WindowInfo* found = nullptr;
  for (const WindowInfo& w : kWindows) {
    if (w.name == name) found = &w;
    for (std::string_view alias : w.aliases)
      if (!alias.empty() && alias == name) found = &w;
  }
  if (found == nullptr) window_error("unknown window '" + printable(text) + "'");
  const std::string canonical(found->name);

  std::vector<std::string> fields;
  if (colon != std::string::npos) {
    std::size_t start = colon + 1;
    for (;;) {
      const std::size_t next = lowered.find(':', start);
      fields.push_back(lowercase_trimmed(std::string_view(lowered).substr(start, next - start)));
      if (next == std::string::npos) break;
      start = next + 1;
    }
  }
  if (found->parameter_count == 0 && !fields.empty())
    window_error("window '" + canonical + "' takes no parameter (got '" + printable(text) + "')");
  if (!found->variadic && fields.size() > static_cast<std::size_t>(found->parameter_count))
    window_error("window '" + canonical + "' takes at most " + std::to_string(found->parameter_count) +
                 " parameters (got '" + printable(text) + "')");

  WindowSpec spec{found->kind};
  const std::size_t wanted = found->variadic ? std::max<std::size_t>(fields.size(), 1) : found->parameter_count;
  for (std::size_t i = 0; i < wanted; ++i) {
    const ParameterInfo& p = found->parameters[found->variadic ? 0 : i];
    if (i >= fields.size()) {
      if (!p.has_default)
        window_error("window '" + canonical + "' needs its " + std::string(p.name) + " parameter, e.g. " +
                     canonical + (found->kind == WindowKind::kaiser ? ":8.6" : found->kind == WindowKind::dpss ? ":3" : ":1"));
      spec.parameters.push_back(p.default_value);
      continue;
    }
    const std::string& field = fields[i];
    double value = 0.0;
    if (p.rule == ParameterRule::center && (field == "none" || field.empty())) {
      value = kNone;
    } else if (p.rule == ParameterRule::boolean && (field == "true" || field == "false")) {
      value = field == "true" ? 1.0 : 0.0;
    } else {
      const char* first = field.data();
      const char* last = first + field.size();
      auto [end, error] = std::from_chars(first, last, value);
      if (field.empty() || error != std::errc() || end != last || !std::isfinite(value))
        window_error("the " + std::string(p.name) + " of window '" + canonical + "' must be a number (got '" +
                     printable(text) + "')");
    }
    if (const std::string problem = parameter_problem(canonical, p, value); !problem.empty())
      window_error(problem + " in '" + printable(text) + "'");
    spec.parameters.push_back(value);
  }
  return spec;
}

std::string window_problem(const WindowSpec& spec, std::size_t n, WindowSymmetry symmetry) {
  const WindowInfo& info = info_of(spec.kind);
  const std::string name(info.name);
  const std::size_t count = spec.parameters.size();
  if (info.variadic ? count < 1 : count != static_cast<std::size_t>(info.parameter_count))
    return "window '" + name + "' takes " + std::to_string(info.parameter_count) + (info.variadic ? " or more" : "") +
           " parameters (got " + std::to_string(count) + ")";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string problem =
        parameter_problem(name, info.parameters[info.variadic ? 0 : i], spec.parameters[i]);
    if (!problem.empty()) return problem;
  }
  // I0(beta) overflows a double beyond beta ~713 (scipy's window is then NaN throughout), and
  // std::cyl_bessel_i throws for far larger ones: refused, whatever the length.
  if ((spec.kind == WindowKind::kaiser || spec.kind == WindowKind::kaiser_bessel_derived) &&
      spec.parameters[0] > kMaxKaiserBeta)
    return "the beta of window '" + std::string(info.name) + "' must be at most " + shortest_decimal(kMaxKaiserBeta) +
           " (I0(beta) overflows beyond; got " + shortest_decimal(spec.parameters[0]) + ")";
  // Taylor's coefficients cost nbar² steps; its useful nbar are a few to some tens.
  if (spec.kind == WindowKind::taylor && spec.parameters[0] > kMaxTaylorNbar)
    return "the nbar of window 'taylor' must be at most " + shortest_decimal(kMaxTaylorNbar) + " (got " +
           shortest_decimal(spec.parameters[0]) + ")";
  // In scipy's order: these two are refused whatever the length (a length of 1 too) ...
  if (spec.kind == WindowKind::exponential && symmetry == WindowSymmetry::symmetric &&
      !std::isnan(spec.parameters[0]))
    return "window 'exponential' takes no center when symmetric (as scipy: the center is the middle)";
  if (spec.kind == WindowKind::kaiser_bessel_derived && n % 2 != 0)
    return "window 'kaiser_bessel_derived' is defined for even lengths only (got " + std::to_string(n) + ")";
  // ... the others give ones for lengths 0 and 1 before looking at anything else.
  if (n <= 1) return "";
  if (spec.kind == WindowKind::dpss && !(spec.parameters[0] < static_cast<double>(n) / 2.0))
    return "the NW of window 'dpss' must be less than half the length " + std::to_string(n) + " (got " +
           shortest_decimal(spec.parameters[0]) + ")";
  return "";
}

std::vector<double> make_window(const WindowSpec& spec, std::size_t n, WindowSymmetry symmetry) {
  if (const std::string problem = window_problem(spec, n, symmetry); !problem.empty()) throw UsageError(problem);
  // scipy returns ones for lengths 0 and 1, before making any window.
  if (n <= 1) return std::vector<double>(n, 1.0);
  if (symmetry == WindowSymmetry::symmetric || spec.kind == WindowKind::kaiser_bessel_derived)
    return symmetric_window(spec, n);
  std::vector<double> w = symmetric_window(spec, n + 1);
  w.pop_back();
  return w;
}

}  // namespace prism
