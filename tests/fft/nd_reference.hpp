// References for the multi-dimensional FFT tests (CPU backend, host executor, device): the
// transform as a direct DFT along each axis in turn, in double or long double, and the inputs.
// c2r takes only the spectra of real arrays (an r2c of this reference), as its result is defined
// for Hermitian input only and different algorithms differ on other input.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "fft/fft.hpp"

namespace prism::fft::test {

template <typename Real>
using NdComplex = std::vector<std::complex<Real>>;

// A parameter of the shape sweeps: shape and transform, printed and named as "4x6_r2c".
struct NdParam {
  std::vector<std::size_t> shape;
  Transform transform;
};
inline const char* nd_transform_name(Transform t) {
  static const char* names[] = {"c2c_forward", "c2c_inverse", "r2c", "c2r"};
  return names[static_cast<int>(t)];
}
inline void PrintTo(const NdParam& param, std::ostream* os) {
  *os << shape_text(param.shape) << " " << nd_transform_name(param.transform);
}
// For INSTANTIATE_TEST_SUITE_P (any TestParamInfo<NdParam>).
template <typename Info>
std::string nd_param_name(const Info& info) {
  return shape_text(info.param.shape) + "_" + nd_transform_name(info.param.transform);
}

// Transforms one array of the shape along `axis` in place, by a direct DFT of each line (the
// twiddle index reduced modulo the length in integers, as the 1-D tests' reference).
template <typename Real>
void dft_along_axis(NdComplex<Real>& a, const std::vector<std::size_t>& shape, std::size_t axis, int sign) {
  const Real pi = static_cast<Real>(3.141592653589793238462643383279502884L);
  const std::size_t n = shape[axis];
  std::size_t inner = 1;
  for (std::size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  const std::size_t outer = a.size() / (n * inner);
  NdComplex<Real> roots(n), line(n);
  for (std::size_t i = 0; i < n; ++i)
    roots[i] = std::polar(Real(1), static_cast<Real>(sign) * 2 * pi * static_cast<Real>(i) / static_cast<Real>(n));
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t in = 0; in < inner; ++in) {
      const std::size_t base = o * n * inner + in;
      for (std::size_t k = 0; k < n; ++k) {
        std::complex<Real> sum = 0;
        std::size_t index = 0;
        for (std::size_t j = 0; j < n; ++j) {
          sum += a[base + j * inner] * roots[index];
          index += k;
          if (index >= n) index -= n;
        }
        line[k] = sum;
      }
      for (std::size_t k = 0; k < n; ++k) a[base + k * inner] = line[k];
    }
  }
}

// The c2c transform of one array (sign -1 forward, +1 inverse), unnormalised.
template <typename Real>
NdComplex<Real> nd_dft(NdComplex<Real> a, const std::vector<std::size_t>& shape, int sign) {
  for (std::size_t axis = 0; axis < shape.size(); ++axis) dft_along_axis(a, shape, axis, sign);
  return a;
}

// The r2c of one real array: its c2c, the last axis cut to L/2+1.
template <typename Real>
NdComplex<Real> nd_r2c(const std::vector<Real>& x, const std::vector<std::size_t>& shape) {
  const NdComplex<Real> full = nd_dft(NdComplex<Real>(x.begin(), x.end()), shape, -1);
  const std::size_t last = shape.back(), half = last / 2 + 1;
  NdComplex<Real> out(full.size() / last * half);
  for (std::size_t line = 0; line < full.size() / last; ++line)
    for (std::size_t k = 0; k < half; ++k) out[line * half + k] = full[line * last + k];
  return out;
}

inline std::size_t nd_elements(const std::vector<std::size_t>& shape) {
  std::size_t count = 1;
  for (std::size_t length : shape) count *= length;
  return count;
}

// Fresh reals uniform in [-1, 1).
inline std::vector<double> random_reals(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> x(count);
  for (double& v : x) v = uniform(rng);
  return x;
}

// One batch's input and its expected output, both in double, in the interleaved layout of
// fft.hpp (complex values as (re, im) pairs): c2c random complex; r2c random reals; c2r the r2c
// of random reals, whose c2r is the reals times the number of elements.
struct NdCase {
  std::vector<double> input;
  std::vector<double> expected;
};

inline NdCase make_nd_case(const NdPlanSpec& spec, std::mt19937_64& rng) {
  NdCase c;
  const std::size_t elements = nd_elements(spec.shape);
  for (std::size_t b = 0; b < spec.batch; ++b) {
    switch (spec.transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse: {
        const std::vector<double> parts = random_reals(2 * elements, rng);
        NdComplex<double> x(elements);
        for (std::size_t i = 0; i < elements; ++i) x[i] = {parts[2 * i], parts[2 * i + 1]};
        const NdComplex<double> y = nd_dft(x, spec.shape, spec.transform == Transform::c2c_forward ? -1 : +1);
        c.input.insert(c.input.end(), parts.begin(), parts.end());
        for (const auto& v : y) c.expected.insert(c.expected.end(), {v.real(), v.imag()});
        break;
      }
      case Transform::r2c: {
        const std::vector<double> x = random_reals(elements, rng);
        c.input.insert(c.input.end(), x.begin(), x.end());
        for (const auto& v : nd_r2c(x, spec.shape)) c.expected.insert(c.expected.end(), {v.real(), v.imag()});
        break;
      }
      case Transform::c2r: {
        const std::vector<double> x = random_reals(elements, rng);
        for (const auto& v : nd_r2c(x, spec.shape)) c.input.insert(c.input.end(), {v.real(), v.imag()});
        for (double v : x) c.expected.push_back(v * static_cast<double>(elements));
        break;
      }
    }
  }
  return c;
}

// ‖out − ref‖ / ‖ref‖ over `count` values.
template <typename Real>
double relative_error(const Real* out, const double* ref, std::size_t count) {
  long double error = 0, norm = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const long double d = static_cast<long double>(out[i]) - ref[i];
    error += d * d;
    norm += static_cast<long double>(ref[i]) * ref[i];
  }
  return norm == 0 ? static_cast<double>(std::sqrt(error)) : static_cast<double>(std::sqrt(error / norm));
}

}  // namespace prism::fft::test
