// Tests of the CPU FFT backend (fft/fftw_backend.cpp) and the backend-independent helpers
// (fft/fft_common.cpp). Every transform kind is compared with a direct DFT in double
// precision, over sizes that include primes, odd and even lengths; the accuracy figure is the
// relative L2 error ‖out − ref‖ / ‖ref‖.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "fft/fft.hpp"
#include "pipeline/errors.hpp"

namespace prism::fft {
namespace {

using cd = std::complex<double>;

constexpr double kMaxRelativeError = 1e-5;

// Direct DFT with the twiddle index j·k reduced mod n in integers, so the reference itself
// keeps the accuracy of its type (double, or long double for the FP64 tests) for large n.
template <typename Real>
std::vector<std::complex<Real>> direct_dft(const std::vector<std::complex<Real>>& x, int sign) {
  const std::size_t n = x.size();
  const Real pi = static_cast<Real>(3.141592653589793238462643383279502884L);
  std::vector<std::complex<Real>> twiddle(n);
  for (std::size_t i = 0; i < n; ++i)
    twiddle[i] = std::polar(Real(1), static_cast<Real>(sign) * 2 * pi * static_cast<Real>(i) / static_cast<Real>(n));
  std::vector<std::complex<Real>> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::complex<Real> sum = 0;
    std::size_t index = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum += x[j] * twiddle[index];
      index += k;
      if (index >= n) index -= n;
    }
    out[k] = sum;
  }
  return out;
}

// The real inverse of n/2+1 complex values, as FFTW defines c2r: the spectrum is taken as
// Hermitian, so the imaginary parts of bin 0 (and of bin n/2 for even n) do not matter.
std::vector<double> direct_c2r(const std::vector<cd>& half, std::size_t n) {
  std::vector<cd> full(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (k <= n / 2) full[k] = half[k];
    else full[k] = std::conj(half[n - k]);
  }
  full[0] = full[0].real();
  if (n % 2 == 0) full[n / 2] = full[n / 2].real();
  std::vector<cd> y = direct_dft(full, +1);
  std::vector<double> out(n);
  for (std::size_t j = 0; j < n; ++j) out[j] = y[j].real();
  return out;
}

double relative_error(const float* out, const double* ref, std::size_t count) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < count; ++i) {
    err += (out[i] - ref[i]) * (out[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return norm == 0 ? std::sqrt(err) : std::sqrt(err / norm);
}

std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<double> flatten(const std::vector<cd>& v) {
  std::vector<double> out;
  for (const cd& c : v) {
    out.push_back(c.real());
    out.push_back(c.imag());
  }
  return out;
}

// Floats per row for the spec's input and output.
std::size_t in_floats(const PlanSpec& s) {
  return input_row_elements(s) * (s.transform == Transform::r2c ? 1 : 2);
}
std::size_t out_floats(const PlanSpec& s) {
  return output_row_elements(s) * (s.transform == Transform::c2r ? 1 : 2);
}

// The reference output of one row (as floats, interleaved for complex output).
std::vector<double> reference_row(const PlanSpec& s, const float* in) {
  const std::size_t n = s.n;
  switch (s.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse: {
      std::vector<cd> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = cd(in[2 * i], in[2 * i + 1]);
      return flatten(direct_dft(x, s.transform == Transform::c2c_forward ? -1 : +1));
    }
    case Transform::r2c: {
      std::vector<cd> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = in[i];
      std::vector<cd> y = direct_dft(x, -1);
      y.resize(n / 2 + 1);
      return flatten(y);
    }
    case Transform::c2r: {
      std::vector<cd> half(n / 2 + 1);
      for (std::size_t i = 0; i < half.size(); ++i) half[i] = cd(in[2 * i], in[2 * i + 1]);
      return direct_c2r(half, n);
    }
  }
  return {};
}

struct Case {
  std::size_t n;
  Transform transform;
  bool in_place;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const char* kind[] = {"c2c_forward", "c2c_inverse", "r2c", "c2r"};
  return std::string(kind[static_cast<int>(info.param.transform)]) + "_n" +
         std::to_string(info.param.n) + (info.param.in_place ? "_inplace" : "");
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  // Primes, odd and even lengths; even real lengths n = 2m both with m odd (6, 30, 254, 4094)
  // and m even, since the real transforms of even length pair bins k and m-k.
  const std::size_t sizes[] = {1,   2,   3,    4,    5,    6,    7,    8,    12,   16,
                               17,  30,  31,   64,   97,   100,  128,  254,  255,  256,
                               257, 509, 1000, 1024, 1920, 2048, 4094, 4096, 4099, 10007};
  for (Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c,
                      Transform::c2r})
    for (std::size_t n : sizes) {
      cases.push_back({n, t, false});
      if (n == 16 || n == 255 || n == 1024) cases.push_back({n, t, true});
    }
  return cases;
}

class FftwAccuracy : public testing::TestWithParam<Case> {};

// A batch of transforms, with count < batch: the rows computed match the direct DFT, the
// rows beyond count are not written, and an out-of-place input is left as it was.
TEST_P(FftwAccuracy, MatchesDirectDft) {
  const Case c = GetParam();
  PlanSpec spec;
  spec.n = c.n;
  spec.batch = c.n <= 1024 ? 4 : 2;
  spec.transform = c.transform;
  spec.in_place = c.in_place;
  const std::size_t count = spec.batch - 1;
  auto backend = make_cpu_backend();
  auto plan = backend->plan(spec);
  ASSERT_EQ(plan->spec().n, c.n);

  const std::size_t in_row = in_floats(spec), out_row = out_floats(spec);
  std::vector<float> input = random_floats(in_row * spec.batch, static_cast<unsigned>(c.n));
  const std::vector<float> original = input;
  constexpr float kSentinel = 12345.0f;
  std::vector<float> output(out_row * spec.batch, kSentinel);
  float* out = c.in_place ? input.data() : output.data();
  plan->execute(input.data(), out, count);

  for (std::size_t row = 0; row < count; ++row) {
    const std::vector<double> ref = reference_row(spec, original.data() + row * in_row);
    // In-place real rows are padded; compare only the transform's values.
    const std::size_t values = spec.transform == Transform::c2r ? c.n : ref.size();
    EXPECT_LT(relative_error(out + row * out_row, ref.data(), values), kMaxRelativeError)
        << "row " << row;
  }
  if (!c.in_place) {
    for (std::size_t i = count * out_row; i < output.size(); ++i)
      ASSERT_EQ(output[i], kSentinel) << "wrote beyond count at " << i;
    EXPECT_EQ(0, std::memcmp(input.data(), original.data(), input.size() * sizeof(float)))
        << "the input was modified";
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, FftwAccuracy, testing::ValuesIn(all_cases()), case_name);

// ---- double precision (make_cpu_backend(Precision::float64)) ----------------------------

using cld = std::complex<long double>;

// One row's reference in long double, as reals (interleaved for complex output).
std::vector<long double> reference_row_long(const PlanSpec& s, const double* in) {
  const std::size_t n = s.n;
  std::vector<cld> x(n);
  std::vector<long double> out;
  switch (s.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse:
    case Transform::r2c: {
      const bool complex_input = s.transform != Transform::r2c;
      for (std::size_t i = 0; i < n; ++i)
        x[i] = complex_input ? cld(in[2 * i], in[2 * i + 1]) : cld(in[i], 0.0L);
      std::vector<cld> y = direct_dft(x, s.transform == Transform::c2c_inverse ? +1 : -1);
      if (s.transform == Transform::r2c) y.resize(n / 2 + 1);
      for (const cld& c : y) {
        out.push_back(c.real());
        out.push_back(c.imag());
      }
      return out;
    }
    case Transform::c2r: {
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t h = k <= n / 2 ? k : n - k;
        const cld v(in[2 * h], in[2 * h + 1]);
        x[k] = k <= n / 2 ? v : std::conj(v);
      }
      x[0] = x[0].real();
      if (n % 2 == 0) x[n / 2] = x[n / 2].real();
      for (const cld& c : direct_dft(x, +1)) out.push_back(c.real());
      return out;
    }
  }
  return out;
}

class FftwDoubleAccuracy : public testing::TestWithParam<Case> {};

// Double rows against the long-double DFT: relative L2 error below 1e-14 (FFTW's is ~1e-16),
// rows beyond count left alone, the input of an out-of-place plan left as it was.
TEST_P(FftwDoubleAccuracy, MatchesLongDoubleDft) {
  const Case c = GetParam();
  PlanSpec spec{c.n, 3, c.transform, c.in_place};
  auto backend = make_cpu_backend(Precision::float64);
  EXPECT_EQ(backend->precision(), Precision::float64);
  auto plan = backend->plan(spec);
  const std::size_t in_row = in_floats(spec), out_row = out_floats(spec);
  std::mt19937_64 rng(c.n);
  std::uniform_real_distribution<double> dist(-0.5, 0.5);
  std::vector<double> input(in_row * spec.batch);
  for (double& v : input) v = dist(rng);
  const std::vector<double> original = input;
  constexpr double kSentinel = 12345.0;
  std::vector<double> output(out_row * spec.batch, kSentinel);
  double* out = c.in_place ? input.data() : output.data();
  const std::size_t count = 2;
  plan->execute(input.data(), out, count);
  for (std::size_t row = 0; row < count; ++row) {
    const std::vector<long double> ref = reference_row_long(spec, original.data() + row * in_row);
    const std::size_t values = spec.transform == Transform::c2r ? c.n : ref.size();
    long double err = 0, norm = 0;
    for (std::size_t i = 0; i < values; ++i) {
      const long double d = out[row * out_row + i] - ref[i];
      err += d * d;
      norm += ref[i] * ref[i];
    }
    EXPECT_LT(std::sqrt(static_cast<double>(err / norm)), 1e-14) << "row " << row;
  }
  if (!c.in_place) {
    for (std::size_t i = count * out_row; i < output.size(); ++i) ASSERT_EQ(output[i], kSentinel) << i;
    EXPECT_EQ(input, original) << "the input was modified";
  }
}

std::vector<Case> double_cases() {
  std::vector<Case> cases;
  for (Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r})
    for (std::size_t n : {1, 2, 3, 6, 7, 16, 30, 97, 254, 255, 256, 1000, 1024, 4094, 4099}) {
      cases.push_back({n, t, false});
      if (n == 255 || n == 1024) cases.push_back({n, t, true});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Sizes, FftwDoubleAccuracy, testing::ValuesIn(double_cases()), case_name);

TEST(FftwBackend, DescribesItsPrecision) {
  EXPECT_NE(make_cpu_backend()->describe().find("single precision"), std::string::npos);
  EXPECT_NE(make_cpu_backend(Precision::float64)->describe().find("double precision"), std::string::npos);
  EXPECT_EQ(make_cpu_backend()->precision(), Precision::float32);
}

TEST(FftwBackend, ForwardThenInverseScalesByN) {
  auto backend = make_cpu_backend();
  const std::size_t n = 360;
  auto forward = backend->plan({n, 1, Transform::r2c, false});
  auto inverse = backend->plan({n, 1, Transform::c2r, false});
  std::vector<float> x = random_floats(n, 7), spectrum(2 * (n / 2 + 1)), y(n);
  forward->execute(x.data(), spectrum.data());
  inverse->execute(spectrum.data(), y.data());
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(y[i] / n, x[i], 1e-6);
}

// Rows whose start is not 16-byte aligned (a buffer offset by one float, and odd row
// lengths) are transformed correctly through the unaligned plan.
TEST(FftwBackend, UnalignedBuffersAreCorrect) {
  auto backend = make_cpu_backend();
  for (Transform t : {Transform::c2c_forward, Transform::r2c, Transform::c2r}) {
    for (std::size_t n : {64u, 63u, 250u}) {
      PlanSpec spec{n, 5, t, false};
      auto plan = backend->plan(spec);
      const std::size_t in_row = in_floats(spec), out_row = out_floats(spec);
      std::vector<float> in_storage = random_floats(in_row * spec.batch + 3, 11);
      std::vector<float> out_storage(out_row * spec.batch + 3);
      for (std::size_t offset : {1u, 2u, 3u}) {
        const float* in = in_storage.data() + offset;
        float* out = out_storage.data() + (offset % 2);
        plan->execute(in, out);
        for (std::size_t row = 0; row < spec.batch; ++row) {
          const std::vector<double> ref = reference_row(spec, in + row * in_row);
          EXPECT_LT(relative_error(out + row * out_row, ref.data(), ref.size()),
                    kMaxRelativeError)
              << "n " << n << " offset " << offset << " row " << row;
        }
      }
    }
  }
}

// Plans are made with FFTW_ESTIMATE: two plans of one spec give bit-identical output.
TEST(FftwBackend, IdenticalInputGivesIdenticalOutput) {
  auto backend = make_cpu_backend();
  PlanSpec spec{1000, 3, Transform::r2c, false};
  auto a = backend->plan(spec);
  auto b = make_cpu_backend()->plan(spec);
  std::vector<float> in = random_floats(spec.n * spec.batch, 3);
  std::vector<float> out_a(out_floats(spec) * spec.batch), out_b(out_a.size());
  a->execute(in.data(), out_a.data());
  b->execute(in.data(), out_b.data());
  EXPECT_EQ(0, std::memcmp(out_a.data(), out_b.data(), out_a.size() * sizeof(float)));
}

// One plan executed from two threads at once on disjoint buffers gives what it gives alone.
TEST(FftwBackend, ExecuteFromTwoThreads) {
  auto backend = make_cpu_backend();
  PlanSpec spec{512, 8, Transform::c2c_forward, false};
  auto plan = backend->plan(spec);
  const std::size_t floats = 2 * spec.n * spec.batch;
  std::vector<float> in[2] = {random_floats(floats, 1), random_floats(floats, 2)};
  std::vector<float> expected[2] = {std::vector<float>(floats), std::vector<float>(floats)};
  for (int i = 0; i < 2; ++i) plan->execute(in[i].data(), expected[i].data());

  bool identical[2] = {true, true};
  auto work = [&](int i) {
    std::vector<float> out(floats);
    for (int repeat = 0; repeat < 300; ++repeat) {
      plan->execute(in[i].data(), out.data());
      if (std::memcmp(out.data(), expected[i].data(), floats * sizeof(float)) != 0)
        identical[i] = false;
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_TRUE(identical[0]);
  EXPECT_TRUE(identical[1]);
}

TEST(FftwBackend, PlanningFromSeveralThreads) {
  auto backend = make_cpu_backend();
  std::vector<std::thread> threads;
  bool ok[4] = {};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t n = 8; n < 200; n += 7) {
        auto plan = backend->plan({n + t, 2, Transform::r2c, false});
        if (plan == nullptr) return;
      }
      ok[t] = true;
    });
  for (auto& t : threads) t.join();
  for (bool b : ok) EXPECT_TRUE(b);
}

TEST(FftwBackend, RejectsBadSpecs) {
  auto backend = make_cpu_backend();
  EXPECT_THROW(backend->plan({0, 1, Transform::c2c_forward, false}), std::invalid_argument);
  EXPECT_THROW(backend->plan({8, 0, Transform::c2c_forward, false}), std::invalid_argument);
  auto in_place = backend->plan({8, 1, Transform::c2c_forward, true});
  std::vector<float> a(16), b(16);
  EXPECT_THROW(in_place->execute(a.data(), b.data()), std::invalid_argument);
}

TEST(FftwBackend, Describes) {
  auto backend = make_cpu_backend();
  EXPECT_EQ(backend->kind(), BackendKind::cpu);
  EXPECT_FALSE(backend->device_memory());
  EXPECT_NE(backend->describe().find("FFTW 3."), std::string::npos) << backend->describe();
  EXPECT_NE(backend->describe().find("single precision"), std::string::npos);
}

TEST(FftCommon, RowElements) {
  EXPECT_EQ(input_row_elements({10, 1, Transform::c2c_forward, false}), 10u);
  EXPECT_EQ(output_row_elements({10, 1, Transform::c2c_inverse, true}), 10u);
  EXPECT_EQ(input_row_elements({10, 1, Transform::r2c, false}), 10u);
  EXPECT_EQ(input_row_elements({10, 1, Transform::r2c, true}), 12u);
  EXPECT_EQ(output_row_elements({10, 1, Transform::r2c, false}), 6u);
  EXPECT_EQ(input_row_elements({11, 1, Transform::c2r, false}), 6u);
  EXPECT_EQ(output_row_elements({11, 1, Transform::c2r, false}), 11u);
  EXPECT_EQ(output_row_elements({11, 1, Transform::c2r, true}), 12u);
}

TEST(FftCommon, BackendNames) {
  for (BackendKind k :
       {BackendKind::cpu, BackendKind::cuda, BackendKind::cufft, BackendKind::automatic})
    EXPECT_EQ(parse_backend(backend_name(k)), k);
  EXPECT_EQ(backend_name(BackendKind::automatic), "auto");
  try {
    parse_backend("gpu");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown --backend 'gpu' (choose cpu, cuda, cufft, auto)");
  }
}

TEST(FftCommon, Availability) {
  EXPECT_TRUE(backend_availability(BackendKind::cpu).available);
  EXPECT_EQ(resolve_backend(BackendKind::cpu), BackendKind::cpu);
  for (BackendKind gpu : {BackendKind::cuda, BackendKind::cufft}) {
    const Availability a = backend_availability(gpu);
    if (a.available) {
      EXPECT_EQ(resolve_backend(gpu), gpu);
    } else {
      // The reason alone ("prism devices" prints "not available: " before it).
      EXPECT_FALSE(a.reason.empty());
      EXPECT_NE(a.reason.rfind("not available", 0), 0u) << a.reason;
      try {
        resolve_backend(gpu);
        ADD_FAILURE() << "resolve_backend took an unavailable backend";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), std::string(backend_name(gpu)) + " is not available: " + a.reason);
      }
    }
  }
  const BackendKind automatic = resolve_backend(BackendKind::automatic);
  const bool any_gpu = backend_availability(BackendKind::cuda).available ||
                       backend_availability(BackendKind::cufft).available;
  EXPECT_EQ(automatic == BackendKind::cpu, !any_gpu);
}

}  // namespace
}  // namespace prism::fft
