// The reference of the GPU DCT's tests: CpuDct in double precision (itself checked against
// scipy.fft.dct by fft.DctVsScipy) on the float input, and the relative L2 error of a row.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "fft/dct.hpp"

namespace prism::fft::test {

// Fresh input in [-0.5, 0.5), never zeros.
inline std::vector<float> dct_input(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

// `rows` rows of spec.n from `input`, transformed in double precision.
inline std::vector<double> dct_reference(const DctSpec& spec, const std::vector<float>& input, std::size_t rows) {
  DctSpec one = spec;
  one.batch = rows;
  const CpuDct<double> dct(one);
  std::vector<double> in(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(rows * spec.n));
  std::vector<double> out(in.size());
  dct.execute(in.data(), out.data(), rows);
  return out;
}

// ‖got − ref‖ / ‖ref‖ over row `row` (NaN stays NaN, so a row never written fails).
inline double dct_row_error(const float* got, const double* ref, std::size_t n) {
  double diff = 0.0;
  double norm = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff) / std::sqrt(norm > 0.0 ? norm : 1.0);
}

}  // namespace prism::fft::test
