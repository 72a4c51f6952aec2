// ExactPhase (exact_phase.hpp): frac(n·f/fs) in integer arithmetic.
#include "pipeline/exact_phase.hpp"

#include <bit>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace prism {
namespace {

using u128 = unsigned __int128;

// 2^e mod m, m >= 1.
std::uint64_t power_of_two_mod(int e, std::uint64_t m) {
  u128 result = 1 % m, base = 2 % m;
  for (; e > 0; e >>= 1) {
    if (e & 1) result = result * base % m;
    base = base * base % m;
  }
  return static_cast<std::uint64_t>(result);
}

}  // namespace

// x = mantissa·2^exponent with an odd integer mantissa (x > 0, finite).
void odd_mantissa(double x, std::uint64_t& mantissa, int& exponent) {
  int e = 0;
  const double m = std::frexp(x, &e);  // x = m·2^e, m in [0.5, 1)
  mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
  exponent = e - 53;
  const int zeros = std::countr_zero(mantissa);
  mantissa >>= zeros;
  exponent += zeros;
}

ExactPhase::ExactPhase(double f, double fs) {
  if (!std::isfinite(f) || !std::isfinite(fs) || !(fs > 0))
    throw std::invalid_argument("ExactPhase: the frequency must be finite and the rate positive");
  if (f == 0) return;
  ExactPhaseTerms& t = terms_;
  t.negative = f < 0 ? 1 : 0;
  std::uint64_t a = 0, b = 0;
  int ea = 0, eb = 0;
  odd_mantissa(std::fabs(f), a, ea);
  odd_mantissa(fs, b, eb);
  const std::uint64_t g = std::gcd(a, b);
  a /= g;
  b /= g;
  const int e = ea - eb;  // f/fs = (a/b)·2^e
  t.a = a;
  if (e >= 0) {
    // n·a·2^e mod b: all of it reduced mod b (< 2^53).
    t.kind = ExactPhaseTerms::modular;
    t.denominator = b;
    t.multiplier = static_cast<std::uint64_t>(static_cast<u128>(a % b) * power_of_two_mod(e, b) % b);
  } else if (std::bit_width(b) + (-e) <= 127) {
    // (n·a) mod (b·2^−e); n·a < 2^117.
    t.kind = ExactPhaseTerms::rational;
    t.denominator = static_cast<u128>(b) << (-e);
  } else {
    // b·2^−e >= 2^127 > n·a: the fraction is n·a/b·2^e itself.
    t.kind = ExactPhaseTerms::tiny;
    t.denominator = b;
    t.exponent = e;
  }
}

double ExactPhase::cycles(std::uint64_t n) const {
  const ExactPhaseTerms& t = terms_;
  if (t.kind == ExactPhaseTerms::zero) return 0.0;
  long double fraction = static_cast<long double>(t.remainder(n)) / static_cast<long double>(t.denominator);
  if (t.kind == ExactPhaseTerms::tiny) fraction = std::ldexp(fraction, t.exponent);
  if (t.negative && fraction != 0) fraction = 1.0L - fraction;
  const double d = static_cast<double>(fraction);
  return d < 1.0 ? d : 0.0;
}

std::complex<double> ExactPhase::phasor(std::uint64_t n, int sign) const {
  // The angle in (−π, π]: cycles above one half are taken as negative.
  double c = cycles(n);
  if (c > 0.5) c -= 1.0;
  const double angle = static_cast<double>(sign) * 2.0 * std::numbers::pi * c;
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace prism
