// ExactPhase: the phase frac(n·f/fs) of a frequency shift at an integer item index n, exact
// for every n < 2^64, and the phasors exp(±j2π·n·f/fs) built from it.
//
// Why: a phase computed as double(n)·f/fs loses n·2^-53 cycles (8e-6 rad at n = 2^36, a
// part in 10^4 at 2^40), and a fixed-point increment rounded to 2^-64 cycles drifts by n·2^-64
// (a whole cycle by 2^63). A stream's item index grows without bound, so the phase is computed
// from n itself, exactly: f and fs are doubles, so f/fs = ±(a/b)·2^e with odd integers
// a, b < 2^53, and frac(n·f/fs) is ((n·a·2^e) mod b)/b (e >= 0) or ((n·a) mod b·2^−e)/(b·2^−e)
// (e < 0), in 128-bit integer arithmetic. Only the final division rounds (to double).
// ExactPhaseTerms holds those integers and the remainder's arithmetic for the host and for CUDA
// kernels (the GPU fir in double takes every output's phase from it).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>

#if defined(__CUDACC__)
#define PRISM_EXACT_PHASE_HD __host__ __device__ __forceinline__
#else
#define PRISM_EXACT_PHASE_HD inline
#endif

namespace prism {

// f/fs in integers: frac(n·f/fs) is remainder(n)/denominator (tiny: remainder(n)/denominator·2^exponent),
// taken as 1 − that when negative and not 0.
struct ExactPhaseTerms {
  enum Kind : int { zero, modular, rational, tiny };
  int kind = zero;
  int negative = 0;
  std::uint64_t a = 0;                 // odd numerator
  unsigned __int128 denominator = 1;   // b, or b·2^−e
  std::uint64_t multiplier = 0;        // modular: (a·2^e) mod b
  int exponent = 0;                    // tiny: e (< 0)

  PRISM_EXACT_PHASE_HD unsigned __int128 remainder(std::uint64_t n) const {
    switch (kind) {
      case modular: {
        const auto b = static_cast<std::uint64_t>(denominator);
        return static_cast<unsigned __int128>(n % b) * multiplier % b;
      }
      case rational: return static_cast<unsigned __int128>(n) * a % denominator;
      case tiny: return static_cast<unsigned __int128>(n) * a;
      default: return 0;
    }
  }
  // frac(n·f/fs) with the division in double, where long double is not at hand (CUDA kernels):
  // within two ulps of ExactPhase::cycles.
  PRISM_EXACT_PHASE_HD double cycles_in_double(std::uint64_t n) const {
    if (kind == zero) return 0.0;
    double c = to_double(remainder(n)) / to_double(denominator);
    if (kind == tiny) c = ldexp(c, exponent);
    if (negative && c != 0.0) c = 1.0 - c;
    return c < 1.0 ? c : 0.0;
  }
  static PRISM_EXACT_PHASE_HD double to_double(unsigned __int128 v) {
    return static_cast<double>(static_cast<std::uint64_t>(v >> 64)) * 18446744073709551616.0 +
           static_cast<double>(static_cast<std::uint64_t>(v));
  }
};

class ExactPhase {
 public:
  // f: the frequency (any finite value, negative too); fs: the sample rate (> 0, finite).
  ExactPhase(double f, double fs);

  // frac(n·f/fs) in [0, 1).
  double cycles(std::uint64_t n) const;
  // exp(sign·j2π·n·f/fs), sign = +1 or −1, in double precision.
  std::complex<double> phasor(std::uint64_t n, int sign) const;
  const ExactPhaseTerms& terms() const { return terms_; }

 private:
  ExactPhaseTerms terms_;
};

// x = mantissa·2^exponent with an odd integer mantissa (x > 0, finite): the exact binary form
// of a double, which the mixer's phase and the resampler's rational rates reduce with.
void odd_mantissa(double x, std::uint64_t& mantissa, int& exponent);

}  // namespace prism
