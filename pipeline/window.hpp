// Window functions as scipy.signal.get_window makes them (scipy 1.10): every window it knows,
// with its parameters, periodic ("DFT-even", fftbins=True, the default, for spectral analysis)
// or symmetric (fftbins=False, for FIR filter design as scipy.signal.firwin uses them). The
// spectrogram stages (CPU and CUDA) and filter design all take their windows from here.
// Values are computed in double precision.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace prism {

// scipy's window functions, by their names in scipy.signal.windows.
enum class WindowKind {
  boxcar, triang, blackman, hamming, hann, bartlett, flattop, parzen, bohman, blackmanharris,
  nuttall, barthann, cosine, exponential, tukey, taylor, lanczos, kaiser, kaiser_bessel_derived,
  gaussian, general_gaussian, general_cosine, general_hamming, dpss, chebwin,
};

struct WindowSpec {
  WindowKind kind = WindowKind::hann;
  // The parameters after the name in scipy's get_window tuple, in its order, every one given
  // (parse_window fills the defaults): kaiser (beta), tukey (alpha), gaussian (std),
  // general_gaussian (p, sig), general_hamming (alpha), general_cosine (a0, a1, ...),
  // exponential (center, tau; a NaN center is None), taylor (nbar, sll, norm as 1 or 0),
  // kaiser_bessel_derived (beta), dpss (NW), chebwin (at). Empty for the others.
  std::vector<double> parameters;

  WindowSpec() = default;
  WindowSpec(WindowKind k, std::vector<double> p = {}) : kind(k), parameters(std::move(p)) {}
  WindowSpec(WindowKind k, double p) : kind(k), parameters{p} {}

  // The text parse_window reads back: "hann", "kaiser:8.6", "taylor:4:30:true",
  // "exponential:none:2".
  std::string to_string() const;
  // The argument that gives this window to scipy.signal.get_window, as Python:
  // "'hann'", "('kaiser', 8.6)", "('general_cosine', [0.5, 0.5])".
  std::string scipy_argument() const;
  // Written out, not defaulted: the CUDA sources that include this header are C++17.
  bool operator==(const WindowSpec& other) const {
    return kind == other.kind && parameters == other.parameters;
  }
};

// Parses "NAME" or "NAME:P1:P2...", the parameters in the order of scipy's get_window tuple
// (kaiser:8.6, tukey:0.25, taylor:4:30, general_cosine:0.5:0.5, exponential:none:2).
// Parameters left out take scipy's defaults where it has them (tukey 0.5; exponential center
// None, tau 1; taylor nbar 4, sll 30, norm true); the others are required. Accepts scipy's names
// and aliases (hanning, rect, kbd, gauss, cheb, ...). Throws UsageError that says what is wrong
// and lists the windows.
WindowSpec parse_window(std::string_view text);

enum class WindowSymmetry {
  periodic,   // scipy.signal.get_window(spec, n, fftbins=True): spectral analysis
  symmetric,  // scipy.signal.get_window(spec, n, fftbins=False): FIR design (firwin)
};

// What is wrong with making `spec` at length n, or "" when nothing is: a parameter out of its
// range, dpss's NW not below n/2, an odd length for kaiser_bessel_derived, exponential's center
// for a symmetric window.
std::string window_problem(const WindowSpec& spec, std::size_t n, WindowSymmetry symmetry);

// The window of length n (0 gives an empty window, 1 gives [1], as scipy). Throws UsageError
// with window_problem()'s text when the spec cannot make this window.
//
// kaiser_bessel_derived is symmetric only (scipy defines no periodic form and raises for
// fftbins=True): asked for periodic, it gives the symmetric window, which is what
// scipy.signal.spectrogram(window=kaiser_bessel_derived(nperseg, beta)) uses.
std::vector<double> make_window(const WindowSpec& spec, std::size_t n,
                                WindowSymmetry symmetry = WindowSymmetry::periodic);

// The list of window names and their parameters, for --help and messages.
std::string window_names_help();

}  // namespace prism
