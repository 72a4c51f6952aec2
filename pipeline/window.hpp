// Window functions as scipy.signal.get_window makes them: periodic ("DFT-even", fftbins=True,
// the default, for spectral analysis) or symmetric (fftbins=False, for FIR filter design).
// Values are computed in double precision.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace prism {

enum class WindowKind { boxcar, hann, hamming, blackman, blackmanharris, flattop, kaiser, tukey };

struct WindowSpec {
  WindowKind kind = WindowKind::hann;
  double parameter = 0.0;  // kaiser: beta (>= 0); tukey: alpha in [0, 1]; unused otherwise

  // "hann", "kaiser:8.6", "tukey:0.25".
  std::string to_string() const;
};

// Parses "NAME" or "NAME:PARAM" (kaiser needs beta, tukey takes alpha, default 0.5 as scipy).
// Also accepts scipy's aliases: hanning, rect/rectangular/ones, blackman-harris, flat top.
// Throws UsageError that lists the known windows when the name or the parameter is wrong.
WindowSpec parse_window(std::string_view text);

enum class WindowSymmetry {
  periodic,   // scipy.signal.get_window(spec, n, fftbins=True): spectral analysis
  symmetric,  // scipy.signal.get_window(spec, n, fftbins=False): FIR design (firwin)
};

// The window of length n (0 gives an empty window, 1 gives [1], as scipy).
std::vector<double> make_window(const WindowSpec& spec, std::size_t n,
                                WindowSymmetry symmetry = WindowSymmetry::periodic);

// The list of window names for --help.
std::string window_names_help();

}  // namespace prism
