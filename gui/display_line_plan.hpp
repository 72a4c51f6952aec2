// Display lines from spectra, the rules both makers follow (the CPU sink of view_engine.cpp and
// the GPU stage of gui/cuda), so that they make the same lines:
//   reduce   column c of a line covers the spectrum bins [first_bin(c), first_bin(c+1)) and
//            shows their maximum (a one-bin tone never disappears between columns);
//   thin     a spectrum closes a line when the elapsed spectra × lines per second reach one
//            line's worth (the first spectrum closes one at once);
//   average  a line is the mean linear power of the spectra since the previous line, then an
//            exponential average across lines: alpha = 1 − exp(−span / tau), span = the line's
//            spectra × their interval (alpha = 1 for the first line or tau = 0); shown in dB.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>

#include "fft/cuda/fft_complex.hpp"  // PRISM_HD

namespace prism::view {

// The first spectrum bin of display column c, with `columns` columns over `bins` bins (host
// and device code).
PRISM_HD std::size_t first_bin_of_column(std::size_t c, std::size_t columns, std::size_t bins) {
  return (c * bins + columns - 1) / columns;
}

// A line's dB from its averaged linear power (-300 dB for nothing at all, as the spectra's dB).
PRISM_HD float line_decibels(double power) { return static_cast<float>(10.0 * log10(fmax(power, 1e-30))); }

class LinePlanner {
 public:
  explicit LinePlanner(double spectrum_interval_s) : interval_s_(spectrum_interval_s) {}

  struct Line {
    std::size_t spectra = 0;  // spectra averaged into it
    double alpha = 1.0;       // its weight in the running average
  };

  // One more spectrum; the line it closes, if it closes one.
  std::optional<Line> add_spectrum(double lines_per_second, double averaging_s) {
    ++spectra_in_line_;
    credit_ += interval_s_ * lines_per_second;
    if (credit_ < 1.0) return std::nullopt;
    credit_ = std::min(credit_ - 1.0, 1.0);
    Line line;
    line.spectra = spectra_in_line_;
    const double span_s = static_cast<double>(spectra_in_line_) * interval_s_;
    line.alpha = (averaging_s > 0 && have_average_) ? 1.0 - std::exp(-span_s / averaging_s) : 1.0;
    have_average_ = true;
    spectra_in_line_ = 0;
    return line;
  }

 private:
  double interval_s_;
  double credit_ = 1.0;  // the first spectrum makes a line at once
  std::size_t spectra_in_line_ = 0;
  bool have_average_ = false;
};

}  // namespace prism::view
