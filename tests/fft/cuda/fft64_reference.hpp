// The reference of the double-precision FFT tests: a mixed-radix FFT in long double (each prime
// factor's DFT directly, with one table of the roots of the full length), its rows in the layout
// of fft.hpp, and the relative L2 error of double outputs against it. Long double carries 11
// more bits than double, so its error is far below what the tests measure.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

#include "fft/cuda/fft_plan.hpp"
#include "fft/fft.hpp"

namespace prism::fft::test {

using cld = std::complex<long double>;

// out[k] = Σ_j x[j·stride]·root^(j·k·scale) over n points, root = exp(sign·2πi/N) from `roots`
// (N entries), scale = N / n.
inline void long_double_fft(const cld* x, std::size_t n, std::size_t stride, const std::vector<cld>& roots,
                            cld* out) {
  const std::size_t big = roots.size();
  std::size_t p = 2;
  while (p * p <= n && n % p != 0) ++p;
  if (p * p > n) p = n;  // n is prime (or 1): its DFT directly
  const std::size_t m = n / p;
  const std::size_t scale = big / n;
  if (m == 1) {
    for (std::size_t k = 0; k < n; ++k) {
      cld sum = 0;
      for (std::size_t j = 0; j < n; ++j) sum += x[j * stride] * roots[(j * k % n) * scale];
      out[k] = sum;
    }
    return;
  }
  // The p interleaved sub-sequences x[r + p·i], each transformed over m points.
  std::vector<cld> sub(n);
  for (std::size_t r = 0; r < p; ++r) long_double_fft(x + r * stride, m, stride * p, roots, sub.data() + r * m);
  for (std::size_t k = 0; k < n; ++k) {
    cld sum = 0;
    for (std::size_t r = 0; r < p; ++r) sum += sub[r * m + k % m] * roots[(r * k % n) * scale];
    out[k] = sum;
  }
}

// exp(sign·2πi·j/n), j < n.
// (C++17: the CUDA sources that include this have no <numbers>.)
inline std::vector<cld> long_double_roots(std::size_t n, int sign) {
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<cld> roots(n);
  for (std::size_t j = 0; j < n; ++j)
    roots[j] = std::polar(1.0L, sign * 2 * pi * static_cast<long double>(j) / static_cast<long double>(n));
  return roots;
}

// One row's reference (reals; complex interleaved) from a row of doubles in the layout of spec.
inline std::vector<long double> fp64_reference_row(const PlanSpec& spec, const double* in) {
  const std::size_t n = spec.n;
  std::vector<cld> x(n), y(n);
  const bool inverse = spec.transform == Transform::c2c_inverse || spec.transform == Transform::c2r;
  for (std::size_t i = 0; i < n; ++i) {
    switch (spec.transform) {
      case Transform::r2c: x[i] = cld(in[i], 0.0L); break;
      case Transform::c2r: {
        const std::size_t h = i <= n / 2 ? i : n - i;
        const cld v(in[2 * h], in[2 * h + 1]);
        x[i] = i <= n / 2 ? v : std::conj(v);
        break;
      }
      default: x[i] = cld(in[2 * i], in[2 * i + 1]);
    }
  }
  long_double_fft(x.data(), n, 1, long_double_roots(n, inverse ? +1 : -1), y.data());
  std::vector<long double> out;
  if (spec.transform == Transform::c2r) {
    for (const cld& v : y) out.push_back(v.real());
    return out;
  }
  const std::size_t count = spec.transform == Transform::r2c ? n / 2 + 1 : n;
  for (std::size_t k = 0; k < count; ++k) {
    out.push_back(y[k].real());
    out.push_back(y[k].imag());
  }
  return out;
}

// Doubles of one input / output row (complex rows two per element).
inline std::size_t fp64_input_row_doubles(const PlanSpec& spec) {
  const auto length = static_cast<std::size_t>(gpu::input_row_length(spec));
  return spec.transform == Transform::r2c ? length : 2 * length;
}
inline std::size_t fp64_output_row_doubles(const PlanSpec& spec) {
  const auto length = static_cast<std::size_t>(gpu::output_row_length(spec));
  return spec.transform == Transform::c2r ? length : 2 * length;
}

// Random input rows in [-0.5, 0.5); a c2r's bins 0 and n/2 real (a valid Hermitian half), an
// in-place r2c's padding zero.
inline std::vector<double> fp64_random_input(const PlanSpec& spec, std::size_t rows, std::mt19937_64& rng) {
  const std::size_t row = fp64_input_row_doubles(spec);
  std::vector<double> data(row * rows);
  std::uniform_real_distribution<double> dist(-0.5, 0.5);
  for (double& v : data) v = dist(rng);
  for (std::size_t r = 0; r < rows; ++r) {
    double* x = data.data() + r * row;
    if (spec.transform == Transform::c2r) {
      x[1] = 0.0;
      if (spec.n % 2 == 0) x[2 * (spec.n / 2) + 1] = 0.0;
    }
    if (spec.transform == Transform::r2c)
      for (std::size_t i = spec.n; i < row; ++i) x[i] = 0.0;
  }
  return data;
}

// Relative L2 error of `rows` output rows against the reference of their input rows; infinite
// where an output is not finite (an unwritten NaN-poisoned value).
inline double fp64_relative_error(const PlanSpec& spec, const double* in, const double* out, std::size_t rows) {
  long double diff2 = 0, ref2 = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<long double> ref = fp64_reference_row(spec, in + r * fp64_input_row_doubles(spec));
    const double* row = out + r * fp64_output_row_doubles(spec);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (!std::isfinite(row[i])) return INFINITY;
      diff2 += (row[i] - ref[i]) * (row[i] - ref[i]);
      ref2 += ref[i] * ref[i];
    }
  }
  return static_cast<double>(std::sqrt(diff2 / (ref2 > 0 ? ref2 : 1)));
}

// The bound the double-precision tests hold a transform of length n to (relative L2 error): a
// few units of 2^-53 per stage.
inline double fp64_error_bound(std::size_t n) { return 2e-16 * (2.0 + std::log2(static_cast<double>(n))); }

inline const char* transform_name(Transform t) {
  switch (t) {
    case Transform::c2c_forward: return "c2c_forward";
    case Transform::c2c_inverse: return "c2c_inverse";
    case Transform::r2c: return "r2c";
    default: return "c2r";
  }
}

}  // namespace prism::fft::test
