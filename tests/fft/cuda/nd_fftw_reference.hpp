// The FFTW (double precision) reference of the multi-dimensional FFT tests that link FFTW's
// double library (the host chain's, qa_FftNdHost, and the device's, qa_FftCuda): fresh input in
// [-0.5, 0.5) rounded to float, and its transform by FFTW's rank-k plans in double. c2r takes the
// r2c of random real arrays (its result is defined for Hermitian input only; different
// algorithms differ on other input), whose c2r is the arrays times their element count.
#pragma once

#include <fftw3.h>

#include <cstddef>
#include <random>
#include <vector>

#include "fft/fft.hpp"

namespace prism::fft::test {

struct NdReference {
  std::vector<float> input;      // the batch's input, interleaved (re, im) for complex arrays
  std::vector<double> expected;  // its transform, the same layout as the output
};

inline NdReference nd_fftw_reference(const NdPlanSpec& spec, std::mt19937_64& rng) {
  std::vector<int> lengths(spec.shape.begin(), spec.shape.end());
  const int rank = static_cast<int>(lengths.size());
  const std::size_t elements = nd_array_elements(spec, false);
  const std::size_t half = nd_array_elements(spec, true);  // the last length halved, +1
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  NdReference r;
  std::vector<double> reals(elements);
  std::vector<fftw_complex> a(elements), b(elements);
  for (std::size_t array = 0; array < spec.batch; ++array) {
    switch (spec.transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse: {
        for (auto& v : a) {
          v[0] = static_cast<float>(uniform(rng));
          v[1] = static_cast<float>(uniform(rng));
          r.input.insert(r.input.end(), {static_cast<float>(v[0]), static_cast<float>(v[1])});
        }
        fftw_plan p = fftw_plan_dft(rank, lengths.data(), a.data(), b.data(),
                                    spec.transform == Transform::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD,
                                    FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
        for (const auto& v : b) r.expected.insert(r.expected.end(), {v[0], v[1]});
        break;
      }
      case Transform::r2c:
      case Transform::c2r: {
        for (double& v : reals) v = static_cast<float>(uniform(rng));
        fftw_plan p = fftw_plan_dft_r2c(rank, lengths.data(), reals.data(), b.data(), FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
        if (spec.transform == Transform::r2c) {
          r.input.insert(r.input.end(), reals.begin(), reals.end());
          for (std::size_t i = 0; i < half; ++i) r.expected.insert(r.expected.end(), {b[i][0], b[i][1]});
        } else {
          for (std::size_t i = 0; i < half; ++i)
            r.input.insert(r.input.end(), {static_cast<float>(b[i][0]), static_cast<float>(b[i][1])});
          for (double v : reals) r.expected.push_back(v * static_cast<double>(elements));
        }
        break;
      }
    }
  }
  return r;
}

}  // namespace prism::fft::test
