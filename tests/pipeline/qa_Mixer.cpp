// Tests of Mixer (pipeline/mixer.hpp):
//   1. accuracy     against a long-double reference whose phase is exact (the frequency split
//                   into pieces whose products with n are exact, reduced by fmodl), from n = 0
//                   to 2^45; against an exact integer phase at 2^62 and just below 2^64: every
//                   output within the float rounding of the exact value
//   2. streaming    chunks of 1, 2, 3, 7, 64, 1000 and more than the input give the bits of one
//                   call; a mixer started at first_index = k continues one that has seen k
//                   items; reset; in place; real input equals complex input with zero
//                   imaginary parts
//   3. double       the double overloads: within 2e-15·|x| of the exact value on input a float
//                   cannot hold, the float path their output rounded once, and bit-identical
//                   however the input is cut
//   4. errors       each names its field
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/mixer.hpp"
#include "tests/pipeline/streaming_harness.hpp"

namespace prism {
namespace {

using test::run_in_chunks;
using test::same_bits;

std::vector<float> complex_noise(std::size_t items, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<float> x(2 * items);
  for (float& v : x) v = noise(rng);
  return x;
}

std::vector<float> mix(const MixerSpec& spec, const std::vector<float>& x) {
  Mixer m(spec);
  std::vector<float> y(2 * (x.size() / (spec.complex_input ? 2 : 1)));
  m.process(x.data(), y.size() / 2, y.data());
  return y;
}

// ---- 1. accuracy ---------------------------------------------------------------------------

// frac(n·f/fs) for n < 2^46, to about 1e-18 cycles: f = f1 + f2 + f3 with at most 18
// significant bits each, so n·fi is exact in long double (64-bit mantissa) and fmodl(·, fs)
// is exact; only the final sum and division round.
long double reference_cycles(std::uint64_t n, double f, double fs) {
  auto leading_bits = [](double v, int bits) {
    if (v == 0) return 0.0;
    int e = 0;
    const double m = std::frexp(v, &e);
    return std::ldexp(std::trunc(std::ldexp(m, bits)), e - bits);
  };
  const double f1 = leading_bits(f, 18);
  const double f2 = leading_bits(f - f1, 18);
  const double f3 = (f - f1) - f2;
  const long double N = static_cast<long double>(n), FS = fs;
  const long double sum = std::fmod(N * f1, FS) + std::fmod(N * f2, FS) + std::fmod(N * f3, FS);
  long double c = std::fmod(sum, FS) / FS;
  if (c < 0) c += 1;
  return c;
}

// Each part of y within half an ulp of the exact x·exp(−j2π·cycles) (plus 1e-12·|x| for the
// double-precision arithmetic before the rounding). Returns the largest |y − exact|/|x|.
double expect_exact_shift(const std::vector<float>& x, const std::vector<float>& y,
                          std::uint64_t first_index, const auto& cycles_of) {
  double worst = 0;
  for (std::size_t i = 0; i < x.size() / 2; ++i) {
    const long double c = cycles_of(first_index + i);
    const long double angle = -2 * std::numbers::pi_v<long double> * c;
    const long double pr = std::cos(angle), pi = std::sin(angle);
    const long double xr = x[2 * i], xi = x[2 * i + 1];
    const long double rr = xr * pr - xi * pi, ri = xr * pi + xi * pr;
    const long double magnitude = std::hypot(xr, xi);
    const long double tol_r = std::ldexp(std::fabs(rr), -24) + 1e-12L * magnitude;
    const long double tol_i = std::ldexp(std::fabs(ri), -24) + 1e-12L * magnitude;
    const long double er = std::fabs(y[2 * i] - rr), ei = std::fabs(y[2 * i + 1] - ri);
    worst = std::max(worst, static_cast<double>(std::hypot(er, ei) / magnitude));
    if (er > tol_r || ei > tol_i) {
      ADD_FAILURE() << "item " << first_index + i << ": (" << y[2 * i] << ", " << y[2 * i + 1]
                    << ") against (" << static_cast<double>(rr) << ", " << static_cast<double>(ri)
                    << ")";
      return worst;
    }
  }
  return worst;
}

TEST(Mixer, ExactAgainstLongDoubleAtLargeIndices) {
  const double fs = 2.4e6;
  double worst = 0;
  for (double f : {1000.1, -12345.678, 0.3 * fs, 123456.789, -fs / 2, 1e-3})
    for (std::uint64_t first : {std::uint64_t{0}, (std::uint64_t{1} << 36) - 700,
                                (std::uint64_t{1} << 40) + 12345, std::uint64_t{1} << 45}) {
      SCOPED_TRACE("f " + std::to_string(f) + ", first index " + std::to_string(first));
      const std::vector<float> x = complex_noise(3000, 11);
      const std::vector<float> y = mix({f, fs, true, first}, x);
      worst = std::max(worst, expect_exact_shift(x, y, first, [&](std::uint64_t n) {
                         return reference_cycles(n, f, fs);
                       }));
    }
  std::printf("largest |y - exact| / |x|: %.3g\n", worst);
}

TEST(Mixer, ExactNearTheEndOfTheIndexRange) {
  // f/fs = 200001/4800000 exactly: the phase is an integer residue.
  const double f = 100000.5, fs = 2.4e6;
  auto exact = [](std::uint64_t n) {
    const unsigned __int128 r = static_cast<unsigned __int128>(n % 4800000) * 200001 % 4800000;
    return static_cast<long double>(r) / 4800000.0L;
  };
  for (std::uint64_t first :
       {std::uint64_t{0}, (std::uint64_t{1} << 62) + 12345, std::uint64_t(-3001)}) {
    SCOPED_TRACE("first index " + std::to_string(first));
    const std::vector<float> x = complex_noise(3000, 5);
    expect_exact_shift(x, mix({f, fs, true, first}, x), first, exact);
  }
}

// A tone at g comes out at g − f, and f = 0 changes nothing.
TEST(Mixer, MovesAToneAndZeroShiftIsTheIdentity) {
  const double fs = 48000, g = 5000, f = 3000;
  std::vector<float> x(2 * 4800);
  for (std::size_t n = 0; n < x.size() / 2; ++n) {
    x[2 * n] = static_cast<float>(std::cos(2 * std::numbers::pi * g * n / fs));
    x[2 * n + 1] = static_cast<float>(std::sin(2 * std::numbers::pi * g * n / fs));
  }
  const std::vector<float> y = mix({f, fs, true, 0}, x);
  for (std::size_t n = 0; n < y.size() / 2; n += 97) {
    const double angle = 2 * std::numbers::pi * (g - f) * n / fs;
    EXPECT_NEAR(y[2 * n], std::cos(angle), 1e-6);
    EXPECT_NEAR(y[2 * n + 1], std::sin(angle), 1e-6);
  }
  EXPECT_TRUE(same_bits(mix({0.0, fs, true, 123456789}, x), x));
}

// ---- 2. streaming --------------------------------------------------------------------------

TEST(Mixer, OutputDoesNotDependOnTheChunking) {
  for (bool complex_input : {true, false}) {
    const std::size_t items = 5000;  // several 1024-item phasor blocks
    std::vector<float> x = complex_noise(items, 2);
    if (!complex_input) x.resize(items);
    const MixerSpec spec{-7777.7, 48000, complex_input, (std::uint64_t{1} << 40) - 1500};
    const std::size_t width = complex_input ? 2 : 1;
    Mixer whole_mixer(spec);
    const std::vector<float> whole = run_in_chunks(whole_mixer, x, width, 2, items);
    ASSERT_EQ(whole.size(), 2 * items);
    for (std::size_t chunk : test::exactness_chunks(items)) {
      Mixer m(spec);
      EXPECT_TRUE(same_bits(run_in_chunks(m, x, width, 2, chunk), whole)) << "chunks of " << chunk;
      m.reset();
      EXPECT_EQ(m.next_index(), spec.first_index);
      EXPECT_TRUE(same_bits(run_in_chunks(m, x, width, 2, chunk), whole)) << "after reset";
    }
    // A mixer that starts at first_index + 1234 continues the first one exactly.
    MixerSpec later = spec;
    later.first_index += 1234;
    const std::vector<float> tail(x.begin() + 1234 * width, x.end());
    const std::vector<float> expected(whole.begin() + 2 * 1234, whole.end());
    EXPECT_TRUE(same_bits(mix(later, tail), expected));
    if (complex_input) {  // in place
      Mixer m(spec);
      std::vector<float> buffer = x;
      m.process(buffer.data(), items, buffer.data());
      EXPECT_TRUE(same_bits(buffer, whole)) << "in place";
    }
  }
}

TEST(Mixer, RealInputIsComplexWithZeroImaginaryParts) {
  const std::size_t items = 3000;
  std::vector<float> real = complex_noise(items, 9);
  real.resize(items);
  std::vector<float> as_complex(2 * items, 0.0f);
  for (std::size_t n = 0; n < items; ++n) as_complex[2 * n] = real[n];
  const std::vector<float> a = mix({1234.5, 8000, false, 77}, real);
  const std::vector<float> b = mix({1234.5, 8000, true, 77}, as_complex);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
}

// ---- 3. double ----------------------------------------------------------------------------

TEST(Mixer, InDoubleTheShiftIsNotRoundedToFloat) {
  const double fs = 2.4e6;
  std::mt19937 rng(21);
  std::normal_distribution<double> noise(0.0, 1.0);
  const std::size_t items = 3000;
  std::vector<double> x(2 * items);
  for (double& v : x) v = noise(rng);
  double worst = 0;
  for (double f : {1000.1, -12345.678, 0.3 * fs, -fs / 2})
    for (std::uint64_t first : {std::uint64_t{0}, (std::uint64_t{1} << 40) + 12345}) {
      SCOPED_TRACE("f " + std::to_string(f) + ", first index " + std::to_string(first));
      Mixer mixer({f, fs, true, first});
      std::vector<double> y(2 * items);
      ASSERT_EQ(mixer.process(x.data(), items, y.data()), items);
      for (std::size_t i = 0; i < items; ++i) {
        const long double angle = -2 * std::numbers::pi_v<long double> * reference_cycles(first + i, f, fs);
        const long double pr = std::cos(angle), pi = std::sin(angle);
        const long double xr = x[2 * i], xi = x[2 * i + 1];
        const long double er = y[2 * i] - (xr * pr - xi * pi), ei = y[2 * i + 1] - (xr * pi + xi * pr);
        worst = std::max(worst, static_cast<double>(std::hypot(er, ei) / std::hypot(xr, xi)));
      }
    }
  EXPECT_LT(worst, 2e-15) << "a float result would be about 3e-8 off";
  std::printf("largest |y - exact| / |x| in double: %.3g\n", worst);
}

TEST(Mixer, TheFloatShiftIsTheDoubleShiftRoundedOnce) {
  for (bool complex_input : {true, false}) {
    const std::size_t items = 5000, width = complex_input ? 2 : 1;
    std::vector<float> x = complex_noise(items, 4);
    x.resize(items * width);
    const std::vector<double> wide(x.begin(), x.end());
    const MixerSpec spec{-7777.7, 48000, complex_input, (std::uint64_t{1} << 40) - 1500};
    Mixer single(spec), twice(spec);
    const std::vector<float> y = run_in_chunks(single, x, width, 2, items);
    const std::vector<double> whole = run_in_chunks(twice, wide, width, 2, items);
    ASSERT_EQ(whole.size(), y.size());
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(static_cast<float>(whole[i]), y[i]) << i;
    for (std::size_t chunk : test::exactness_chunks(items)) {
      Mixer m(spec);
      EXPECT_TRUE(same_bits(run_in_chunks(m, wide, width, 2, chunk), whole)) << "chunks of " << chunk;
    }
  }
}

// ---- 4. errors -----------------------------------------------------------------------------

void expect_usage_error(const MixerSpec& spec, const std::string& starts_with) {
  try {
    Mixer m(spec);
    ADD_FAILURE() << "no error, expected " << starts_with;
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(starts_with, 0), 0u) << e.what();
  }
}

TEST(Mixer, ErrorsNameTheField) {
  expect_usage_error({100, 0, true, 0}, "sample_rate=0 is out of range");
  expect_usage_error({100, -48000, true, 0}, "sample_rate=-48000 is out of range");
  expect_usage_error({100, std::numeric_limits<double>::infinity(), true, 0},
                     "sample_rate=inf is out of range");
  expect_usage_error({std::nan(""), 48000, true, 0}, "frequency_hz=nan is out of range");
  expect_usage_error(
      {24000.5, 48000, true, 0},
      "frequency_hz=24000.5 is out of range: a shift is a finite number of Hz within "
      "±sample_rate/2 (±24000)");
  EXPECT_NO_THROW(Mixer({-24000, 48000, false, 0}));
  Mixer m({1000, 48000, true, 0});
  float out[2];
  EXPECT_EQ(m.process(nullptr, 0, out), 0u);
  EXPECT_EQ(m.flush(out, 1), 0u);
  EXPECT_EQ(m.max_output(17), 17u);
}

}  // namespace
}  // namespace prism
