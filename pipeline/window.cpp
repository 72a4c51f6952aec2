// Window functions (window.hpp): names, parsing, and the windows of
// scipy.signal.get_window(name, n, fftbins=True or False), scipy 1.10.
//
// A periodic window of length n is scipy's symmetric window of length n+1 without its last
// value. The formulas below follow scipy/signal/windows/_windows.py operation by operation
// (including numpy.linspace's way of making the angles), so that the values agree with
// scipy's within an ulp (numpy's cos and libm's may round differently); Kaiser's I0 comes
// from std::cyl_bessel_i instead of Cephes, and agrees to about 1e-15.
//
// Contents:
//   1. names and aliases    the table that parse_window and window_names_help share
//   2. parsing / printing   parse_window, WindowSpec::to_string
//   3. the windows          general_cosine, tukey, kaiser, symmetric_window, make_window
#include "pipeline/window.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>

#include "pipeline/errors.hpp"

namespace prism {
namespace {

// ---- 1. names and aliases ----------------------------------------------------------------

struct WindowName {
  std::string_view name;
  WindowKind kind;
};

// The canonical name of each kind comes first; the rest are scipy's aliases and common
// spellings.
constexpr std::array kWindowNames = {
    WindowName{"boxcar", WindowKind::boxcar},
    WindowName{"box", WindowKind::boxcar},
    WindowName{"ones", WindowKind::boxcar},
    WindowName{"rect", WindowKind::boxcar},
    WindowName{"rectangular", WindowKind::boxcar},
    WindowName{"hann", WindowKind::hann},
    WindowName{"han", WindowKind::hann},
    WindowName{"hanning", WindowKind::hann},
    WindowName{"hamming", WindowKind::hamming},
    WindowName{"hamm", WindowKind::hamming},
    WindowName{"ham", WindowKind::hamming},
    WindowName{"blackman", WindowKind::blackman},
    WindowName{"black", WindowKind::blackman},
    WindowName{"blk", WindowKind::blackman},
    WindowName{"blackmanharris", WindowKind::blackmanharris},
    WindowName{"blackharr", WindowKind::blackmanharris},
    WindowName{"bkh", WindowKind::blackmanharris},
    WindowName{"blackman-harris", WindowKind::blackmanharris},
    WindowName{"blackman_harris", WindowKind::blackmanharris},
    WindowName{"flattop", WindowKind::flattop},
    WindowName{"flat", WindowKind::flattop},
    WindowName{"flt", WindowKind::flattop},
    WindowName{"flat top", WindowKind::flattop},
    WindowName{"flat-top", WindowKind::flattop},
    WindowName{"flat_top", WindowKind::flattop},
    WindowName{"kaiser", WindowKind::kaiser},
    WindowName{"ksr", WindowKind::kaiser},
    WindowName{"tukey", WindowKind::tukey},
    WindowName{"tuk", WindowKind::tukey},
};

std::string_view canonical_name(WindowKind kind) {
  for (const WindowName& entry : kWindowNames)
    if (entry.kind == kind) return entry.name;
  return "?";
}

bool takes_parameter(WindowKind kind) {
  return kind == WindowKind::kaiser || kind == WindowKind::tukey;
}

constexpr double kTukeyDefaultAlpha = 0.5;  // scipy.signal.windows.tukey's default

std::string lowercase_trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Shortest text that reads back as the same double ("0.25", "8.6").
std::string shortest_decimal(double value) {
  std::array<char, 64> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

[[noreturn]] void window_error(const std::string& what) {
  throw UsageError(what + " (known windows: " + window_names_help() + ")");
}

// ---- 3. the windows ----------------------------------------------------------------------
//
// Each function makes scipy's symmetric window of length m (sym=True); the periodic window of
// length n is the symmetric one of length n+1 without its last value (make_window).

// scipy's general_cosine(M, a, sym=True): w = Σ_k a[k]·cos(k·fac), fac = linspace(-π, π, M).
// numpy's linspace makes fac[i] = i·step + (-π) with step = 2π/(M-1), and its last value π.
std::vector<double> general_cosine(std::size_t m, std::initializer_list<double> a) {
  const double start = -std::numbers::pi;
  const double stop = std::numbers::pi;
  const double step = (stop - start) / static_cast<double>(m - 1);
  std::vector<double> w(m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    const double fac = i + 1 == m ? stop : static_cast<double>(i) * step + start;
    double sum = 0.0;
    double k = 0.0;
    for (double coefficient : a) {
      sum += coefficient * std::cos(k * fac);
      k += 1.0;
    }
    w[i] = sum;
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

std::vector<double> symmetric_window(const WindowSpec& spec, std::size_t m) {
  switch (spec.kind) {
    case WindowKind::boxcar: return std::vector<double>(m, 1.0);
    case WindowKind::hann: return general_cosine(m, {0.5, 1.0 - 0.5});
    case WindowKind::hamming: return general_cosine(m, {0.54, 1.0 - 0.54});
    case WindowKind::blackman: return general_cosine(m, {0.42, 0.50, 0.08});
    case WindowKind::blackmanharris:
      return general_cosine(m, {0.35875, 0.48829, 0.14128, 0.01168});
    case WindowKind::flattop:
      return general_cosine(m, {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368});
    case WindowKind::kaiser: return kaiser(m, spec.parameter);
    case WindowKind::tukey: return tukey(m, spec.parameter);
  }
  return std::vector<double>(m, 1.0);
}

}  // namespace

// ---- 2. parsing / printing ---------------------------------------------------------------

std::string WindowSpec::to_string() const {
  std::string text(canonical_name(kind));
  if (takes_parameter(kind)) {
    text += ':';
    text += shortest_decimal(parameter);
  }
  return text;
}

std::string window_names_help() {
  return "boxcar (rect, rectangular, ones), hann (hanning), hamming, blackman, "
         "blackmanharris (blackman-harris), flattop (flat top), kaiser:BETA (BETA >= 0, "
         "e.g. kaiser:8.6), tukey[:ALPHA] (ALPHA in [0, 1], default 0.5)";
}

WindowSpec parse_window(std::string_view text) {
  const std::string lowered = lowercase_trimmed(text);
  const std::size_t colon = lowered.find(':');
  const std::string name = lowercase_trimmed(std::string_view(lowered).substr(0, colon));
  const bool has_parameter = colon != std::string::npos;
  const std::string parameter_text =
      has_parameter ? lowercase_trimmed(std::string_view(lowered).substr(colon + 1)) : "";

  const auto entry = std::find_if(kWindowNames.begin(), kWindowNames.end(),
                                  [&](const WindowName& e) { return e.name == name; });
  if (entry == kWindowNames.end()) window_error("unknown window '" + std::string(text) + "'");

  WindowSpec spec{entry->kind, 0.0};
  const std::string canonical(canonical_name(spec.kind));
  if (!takes_parameter(spec.kind)) {
    if (has_parameter)
      window_error("window '" + canonical + "' takes no parameter (got '" + std::string(text) +
                   "')");
    return spec;
  }
  if (!has_parameter) {
    if (spec.kind == WindowKind::kaiser)
      window_error("window 'kaiser' needs its beta parameter, e.g. kaiser:8.6");
    spec.parameter = kTukeyDefaultAlpha;
    return spec;
  }

  double value = 0.0;
  const char* first = parameter_text.data();
  const char* last = first + parameter_text.size();
  auto [end, error] = std::from_chars(first, last, value);
  if (parameter_text.empty() || error != std::errc() || end != last || !std::isfinite(value))
    window_error("the parameter of window '" + canonical + "' must be a number (got '" +
                 std::string(text) + "')");
  if (spec.kind == WindowKind::kaiser && value < 0)
    window_error("the beta of window 'kaiser' must be >= 0 (got '" + std::string(text) + "')");
  if (spec.kind == WindowKind::tukey && (value < 0 || value > 1))
    window_error("the alpha of window 'tukey' must be in [0, 1] (got '" + std::string(text) +
                 "')");
  spec.parameter = value;
  return spec;
}

std::vector<double> make_window(const WindowSpec& spec, std::size_t n, WindowSymmetry symmetry) {
  // scipy returns ones for lengths 0 and 1, before making any window.
  if (n <= 1) return std::vector<double>(n, 1.0);
  if (symmetry == WindowSymmetry::symmetric) return symmetric_window(spec, n);
  std::vector<double> w = symmetric_window(spec, n + 1);
  w.pop_back();
  return w;
}

}  // namespace prism
