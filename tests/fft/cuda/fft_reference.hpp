// Double-precision reference transforms (FFTW, double) and the accuracy measure shared by the
// host-executor tests and the GPU tests of our CUDA FFT: relative L2 error ||out - ref|| / ||ref||.
#pragma once

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

#include "fft/cuda/fft_plan.hpp"
#include "fft/fft.hpp"

namespace prism::fft::test {

// Floats of one input / output row of spec in the contiguous layout (real rows count floats,
// complex rows two per element).
inline long long input_row_floats(const PlanSpec& spec) {
  const long long len = gpu::input_row_length(spec);
  return spec.transform == Transform::r2c ? len : 2 * len;
}
inline long long output_row_floats(const PlanSpec& spec) {
  const long long len = gpu::output_row_length(spec);
  return spec.transform == Transform::c2r ? len : 2 * len;
}

// Uniform random floats in [-0.5, 0.5): never zeros, which would hide unwritten outputs.
inline void fill_random(std::vector<float>& data, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  for (auto& x : data) x = dist(rng);
}

// Input floats for `rows` transforms in the layout of fft.hpp; for c2r the imaginary parts of
// X[0] (and X[n/2] for even n) are zeroed so that the spectrum is a valid Hermitian half.
inline std::vector<float> make_input(const PlanSpec& spec, long long in_row_floats,
                                     std::size_t rows, std::mt19937_64& rng) {
  std::vector<float> data(static_cast<std::size_t>(in_row_floats) * rows);
  fill_random(data, rng);
  if (spec.transform == Transform::c2r) {
    const std::size_t n = spec.n;
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = data.data() + r * static_cast<std::size_t>(in_row_floats);
      row[1] = 0.0f;
      if (n % 2 == 0) row[2 * (n / 2) + 1] = 0.0f;
    }
  }
  if (spec.transform == Transform::r2c && spec.in_place) {
    // Padding floats of in-place real rows are not part of the input.
    for (std::size_t r = 0; r < rows; ++r) {
      for (long long i = static_cast<long long>(spec.n); i < in_row_floats; ++i) {
        data[r * static_cast<std::size_t>(in_row_floats) + static_cast<std::size_t>(i)] = 0.0f;
      }
    }
  }
  return data;
}

// Reference output of one row (as doubles, complex interleaved or real) and its element count.
inline std::vector<double> reference_row(const PlanSpec& spec, const float* in) {
  const int n = static_cast<int>(spec.n);
  std::vector<double> out;
  switch (spec.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse: {
      std::vector<fftw_complex> a(static_cast<std::size_t>(n));
      std::vector<fftw_complex> b(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        a[static_cast<std::size_t>(i)][0] = in[2 * i];
        a[static_cast<std::size_t>(i)][1] = in[2 * i + 1];
      }
      fftw_plan plan = fftw_plan_dft_1d(
          n, a.data(), b.data(),
          spec.transform == Transform::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
      fftw_execute(plan);
      fftw_destroy_plan(plan);
      out.resize(2 * static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        out[2 * static_cast<std::size_t>(i)] = b[static_cast<std::size_t>(i)][0];
        out[2 * static_cast<std::size_t>(i) + 1] = b[static_cast<std::size_t>(i)][1];
      }
      break;
    }
    case Transform::r2c: {
      std::vector<double> a(static_cast<std::size_t>(n));
      std::vector<fftw_complex> b(static_cast<std::size_t>(n / 2 + 1));
      for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = in[i];
      fftw_plan plan = fftw_plan_dft_r2c_1d(n, a.data(), b.data(), FFTW_ESTIMATE);
      fftw_execute(plan);
      fftw_destroy_plan(plan);
      out.resize(2 * static_cast<std::size_t>(n / 2 + 1));
      for (int i = 0; i <= n / 2; ++i) {
        out[2 * static_cast<std::size_t>(i)] = b[static_cast<std::size_t>(i)][0];
        out[2 * static_cast<std::size_t>(i) + 1] = b[static_cast<std::size_t>(i)][1];
      }
      break;
    }
    case Transform::c2r: {
      std::vector<fftw_complex> a(static_cast<std::size_t>(n / 2 + 1));
      out.resize(static_cast<std::size_t>(n));
      for (int i = 0; i <= n / 2; ++i) {
        a[static_cast<std::size_t>(i)][0] = in[2 * i];
        a[static_cast<std::size_t>(i)][1] = in[2 * i + 1];
      }
      fftw_plan plan = fftw_plan_dft_c2r_1d(n, a.data(), out.data(), FFTW_ESTIMATE);
      fftw_execute(plan);
      fftw_destroy_plan(plan);
      break;
    }
  }
  return out;
}

// Floats of one output row that carry results (the padding of in-place real rows excluded).
inline std::size_t output_result_floats(const PlanSpec& spec) {
  switch (spec.transform) {
    case Transform::r2c: return 2 * (spec.n / 2 + 1);
    case Transform::c2r: return spec.n;
    default: return 2 * spec.n;
  }
}

struct ErrorSum {
  double diff2 = 0.0;
  double ref2 = 0.0;
  bool all_finite = true;
  void add(const float* out, const std::vector<double>& ref) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (!std::isfinite(out[i])) all_finite = false;
      const double d = static_cast<double>(out[i]) - ref[i];
      diff2 += d * d;
      ref2 += ref[i] * ref[i];
    }
  }
  double relative() const {
    if (!all_finite) return INFINITY;
    return ref2 > 0.0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  }
};

inline const char* transform_name(Transform t) {
  switch (t) {
    case Transform::c2c_forward: return "c2c_forward";
    case Transform::c2c_inverse: return "c2c_inverse";
    case Transform::r2c: return "r2c";
    case Transform::c2r: return "c2r";
  }
  return "?";
}

}  // namespace prism::fft::test
