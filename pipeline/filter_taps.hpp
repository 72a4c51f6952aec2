// FilterTaps: the coefficients of an FIR filter, real or complex, in double precision. What
// filter design (filter_design.hpp) makes and taps files (taps_file.hpp) hold; the filter
// stages cast them to their working precision.
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace prism {

struct FilterTaps {
  bool is_complex = false;
  std::vector<double> real;                   // the taps when !is_complex (complex is empty)
  std::vector<std::complex<double>> complex;  // the taps when is_complex (real is empty)

  static FilterTaps from_real(std::vector<double> taps) {
    FilterTaps t;
    t.real = std::move(taps);
    return t;
  }
  static FilterTaps from_complex(std::vector<std::complex<double>> taps) {
    FilterTaps t;
    t.is_complex = true;
    t.complex = std::move(taps);
    return t;
  }

  std::size_t size() const { return is_complex ? complex.size() : real.size(); }
  bool empty() const { return size() == 0; }
  std::complex<double> operator[](std::size_t i) const {
    return is_complex ? complex[i] : std::complex<double>(real[i], 0.0);
  }
};

}  // namespace prism
