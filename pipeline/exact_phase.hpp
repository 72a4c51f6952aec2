// ExactPhase: the phase frac(n·f/fs) of a frequency shift at an integer item index n, exact
// for every n < 2^64, and the phasors exp(±j2π·n·f/fs) built from it.
//
// Why: a phase computed as double(n)·f/fs loses n·2^-53 cycles (8e-6 rad at n = 2^36, a
// part in 10^4 at 2^40), and a fixed-point increment rounded to 2^-64 cycles drifts by n·2^-64
// (a whole cycle by 2^63). A stream's item index grows without bound, so the phase is computed
// from n itself, exactly: f and fs are doubles, so f/fs = ±(a/b)·2^e with odd integers
// a, b < 2^53, and frac(n·f/fs) is ((n·a·2^e) mod b)/b (e >= 0) or ((n·a) mod b·2^−e)/(b·2^−e)
// (e < 0), in 128-bit integer arithmetic. Only the final division rounds (to double).
#pragma once

#include <complex>
#include <cstdint>

namespace prism {

class ExactPhase {
 public:
  // f: the frequency (any finite value, negative too); fs: the sample rate (> 0, finite).
  ExactPhase(double f, double fs);

  // frac(n·f/fs) in [0, 1).
  double cycles(std::uint64_t n) const;
  // exp(sign·j2π·n·f/fs), sign = +1 or −1, in double precision.
  std::complex<double> phasor(std::uint64_t n, int sign) const;

 private:
  enum class Kind { zero, modular, rational, tiny };
  Kind kind_ = Kind::zero;
  bool negative_ = false;
  std::uint64_t a_ = 0;                // odd numerator
  unsigned __int128 denominator_ = 1;  // b, or b·2^−e
  std::uint64_t multiplier_ = 0;       // modular: (a·2^e) mod b
  int exponent_ = 0;                   // tiny: e (< 0)
};

// x = mantissa·2^exponent with an odd integer mantissa (x > 0, finite): the exact binary form
// of a double, which the mixer's phase and the resampler's rational rates reduce with.
void odd_mantissa(double x, std::uint64_t& mantissa, int& exponent);

}  // namespace prism
