// Dot products of float (or double) arrays whose order of summation is fixed by the code
// (eight interleaved partial sums, combined in a stated order), not by the compiler or the data's
// address: the same data give the same bits wherever they lie in memory. The streaming FIR sums
// of the resampler and the SSB demodulator rely on it for their chunk-independent output.
#pragma once

#include <cstddef>

namespace prism {

// lane[l] = Σ a[i]·b[i] over i ≡ l (mod 8), i < n, summed in increasing i.
template <typename Real>
struct EightLaneSums {
  Real lane[8];
};

template <typename Real>
inline EightLaneSums<Real> eight_lane_dot(const Real* a, const Real* b, std::size_t n) {
  EightLaneSums<Real> s{};
  const std::size_t whole = n - n % 8;
  for (std::size_t i = 0; i < whole; i += 8)
    for (std::size_t l = 0; l < 8; ++l) s.lane[l] += a[i + l] * b[i + l];
  for (std::size_t i = whole; i < n; ++i) s.lane[i - whole] += a[i] * b[i];
  return s;
}

// Σ a[i]·b[i], i < n.
template <typename Real>
inline Real fixed_order_dot(const Real* a, const Real* b, std::size_t n) {
  const EightLaneSums<Real> s = eight_lane_dot(a, b, n);
  return ((s.lane[0] + s.lane[1]) + (s.lane[2] + s.lane[3])) +
         ((s.lane[4] + s.lane[5]) + (s.lane[6] + s.lane[7]));
}

// Over interleaved pairs (n even): {Σ a[2i]·b[2i], Σ a[2i+1]·b[2i+1]}. With b a complex
// signal (re, im) and a real taps written twice (h, h), the complex sum Σ h·x.
template <typename Real>
struct PairSums {
  Real even;
  Real odd;
};

template <typename Real>
inline PairSums<Real> fixed_order_pair_dot(const Real* a, const Real* b, std::size_t n) {
  const EightLaneSums<Real> s = eight_lane_dot(a, b, n);
  return {(s.lane[0] + s.lane[2]) + (s.lane[4] + s.lane[6]),
          (s.lane[1] + s.lane[3]) + (s.lane[5] + s.lane[7])};
}

}  // namespace prism
