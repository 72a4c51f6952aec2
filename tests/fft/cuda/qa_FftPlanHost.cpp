// CPU-only checks of our CUDA FFT's plans: factorisation, Stockham index maps, the Bluestein
// chirp index, and every plan shape run by the host executor (the same passes, tables and
// butterflies as the kernels) against FFTW in double precision. Runs in CI without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <fftw3.h>

#include "fft/cuda/fft_host_executor.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "tests/fft/cuda/fft_reference.hpp"

namespace prism::fft {
namespace {

using gpu::PlanLayout;

constexpr double kHostTolerance = 1e-6;

// Runs one plan on the host executor with poisoned output and returns the worst relative L2
// error over the rows.
double host_error(const PlanSpec& spec, std::mt19937_64& rng, std::string* algorithm = nullptr,
                  const gpu::PlannerOptions& options = {}) {
  const PlanLayout layout = gpu::make_plan_layout(spec, options);
  if (algorithm) *algorithm = layout.algorithm;
  const long long in_floats = test::input_row_floats(spec);
  const long long out_floats = test::output_row_floats(spec);
  std::vector<float> input = test::make_input(spec, in_floats, spec.batch, rng);
  const std::vector<float> pristine = input;
  std::vector<float> output;
  const float* result = nullptr;
  if (spec.in_place) {
    EXPECT_EQ(in_floats, out_floats);
    gpu::execute_on_host(layout, input.data(), input.data(), spec.batch);
    result = input.data();
  } else {
    output.assign(static_cast<std::size_t>(out_floats) * spec.batch,
                  std::numeric_limits<float>::quiet_NaN());
    gpu::execute_on_host(layout, input.data(), output.data(), spec.batch);
    result = output.data();
    EXPECT_EQ(input, pristine) << "input modified, n=" << spec.n;
  }
  double worst = 0.0;
  for (std::size_t row = 0; row < spec.batch; ++row) {
    const std::vector<double> ref =
        test::reference_row(spec, pristine.data() + row * static_cast<std::size_t>(in_floats));
    test::ErrorSum sum;
    sum.add(result + row * static_cast<std::size_t>(out_floats), ref);
    worst = std::max(worst, sum.relative());
  }
  return worst;
}

constexpr Transform kAllTransforms[] = {Transform::c2c_forward, Transform::c2c_inverse,
                                        Transform::r2c, Transform::c2r};

TEST(FftPlanHost, FactorisationCoversSmoothLengths) {
  const std::vector<int> primes = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29,  31,  37,  41,  43,  47, 53,
                                    59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127};
  std::set<int> allowed = {4, 8, 9, 10, 15, 16, 21};
  allowed.insert(primes.begin(), primes.end());
  int radices[gpu::kMaxStages];
  for (long long n = 1; n <= 200000; ++n) {
    const int count = gpu::factorize(n, radices, gpu::kMaxStages);
    long long m = n;
    for (long long p : primes) {
      while (m % p == 0) m /= p;
    }
    if (m != 1) {
      EXPECT_EQ(count, -1) << n;
      continue;
    }
    ASSERT_GE(count, 0) << n;
    long long product = 1;
    int twos = 0;
    for (int i = 0; i < count; ++i) {
      EXPECT_TRUE(allowed.count(radices[i])) << n;
      product *= radices[i];
      if (radices[i] == 2) ++twos;
    }
    EXPECT_EQ(product, n);
    EXPECT_LE(twos, 1) << n;
  }
}

// A prime stage computes its items kPrimeItemsPerThread to a thread and no more
// (device_prime_stage): every pass with one has threads for all of its block's items, and fits
// a block. Each length up to 4096 with a prime stage and four-steps with one in either half, in
// every kind, at the default blocking and at the most transforms per block.
TEST(FftPlanHost, PrimeStageThreadsCoverTheirItems) {
  std::vector<std::size_t> lengths = {101 * 8192, 37 * 16384, 127 * 8192, 113 * 127, 61 * 4096 * 3};
  for (std::size_t n = 2; n <= 4096; ++n) {
    if (gpu::prime_stage_count(static_cast<long long>(n)) > 0) lengths.push_back(n);
  }
  int passes = 0;
  for (const std::size_t n : lengths) {
    for (Transform t : kAllTransforms) {
      for (int elements : {0, 1 << 16}) {
        gpu::PlannerOptions options;
        if (elements != 0) options.single_elements_per_block = elements;
        const PlanLayout layout = gpu::make_plan_layout({n, 3, t, false}, options);
        for (const auto& step : layout.steps) {
          if (step.kind != gpu::Step::Kind::fft_pass) continue;
          const gpu::PassDesc& p = step.pass;
          for (int s = 0; s < p.num_stages; ++s) {
            const int radix = p.stages[s].radix;
            if (!gpu::is_prime_stage_radix(radix)) continue;
            ++passes;
            const long long items = static_cast<long long>(p.per_block) * (p.n / radix) * gpu::prime_stage_groups(radix);
            ASSERT_GE(static_cast<long long>(p.threads) * gpu::kPrimeItemsPerThread, items)
                << test::transform_name(t) << " n=" << n << " pass " << p.n << ": " << layout.algorithm;
            ASSERT_LE(p.threads, gpu::kMaxThreadsPerBlock) << n;
          }
        }
      }
    }
  }
  EXPECT_GT(passes, 5000);
}

// The run-time stage loop (device_stages, lengths without a compiled kernel) has no stage of
// radix 15 or 21, and its 3s go two to a radix-9 stage (at most one radix 3 left), but for
// exactly three; compiled lengths take 15 and 21 where they save a stage, and no 9.
TEST(FftPlanHost, PairedOddRadicesOnlyInCompiledKernels) {
  int radices[gpu::kMaxStages];
  for (long long n = 1; n <= 200000; ++n) {
    const int count = gpu::factorize(n, radices, gpu::kMaxStages);
    if (gpu::has_compiled_kernel(n)) {
      for (int i = 0; i < count; ++i) EXPECT_NE(radices[i], 9) << n;
      continue;
    }
    const auto threes = std::count(radices, radices + std::max(count, 0), 3);
    EXPECT_TRUE(threes <= 1 || (threes == 3 && std::count(radices, radices + count, 9) == 0)) << n;
    for (int i = 0; i < count; ++i) {
      EXPECT_TRUE(radices[i] != 15 && radices[i] != 21) << n;
    }
  }
  const auto radix_string = [](long long n) {
    const gpu::RadixList list = gpu::radix_list(n);
    std::string text;
    for (int i = 0; i < list.count; ++i) {
      if (i > 0) text += 'x';
      text += std::to_string(list.radix[i]);
    }
    return text;
  };
  EXPECT_EQ(radix_string(240), "16x15");
  EXPECT_EQ(radix_string(1920), "16x8x15");
  EXPECT_EQ(radix_string(7680), "8x8x8x15");
  EXPECT_EQ(radix_string(4095), "15x21x13");
  EXPECT_EQ(radix_string(480), "16x10x3");      // the 5 went to a ten
  EXPECT_EQ(radix_string(15360), "16x8x8x3x5");  // a radix-15 stage: 1024 threads a transform
  EXPECT_EQ(radix_string(45), "9x5");           // no compiled kernel
  EXPECT_EQ(radix_string(243), "9x9x3");
  EXPECT_EQ(radix_string(1080), "8x3x3x3x5");
  EXPECT_EQ(radix_string(119), "7x17");
  EXPECT_EQ(radix_string(4352), "16x16x17");
}

// Every butterfly against the R-point DFT in double precision.
TEST(FftPlanHost, ButterfliesAreDfts) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  const auto check = [&](auto radix_constant) {
    constexpr int R = decltype(radix_constant)::value;
    gpu::Cf v[R];
    std::vector<std::complex<double>> x(R);
    for (int i = 0; i < R; ++i) {
      v[i] = gpu::Cf{uniform(rng), uniform(rng)};
      x[static_cast<std::size_t>(i)] = {v[i].re, v[i].im};
    }
    gpu::Butterfly<R>::run(v);
    double error = 0.0;
    double norm = 0.0;
    for (int k = 0; k < R; ++k) {
      std::complex<double> sum = 0.0;
      for (int i = 0; i < R; ++i) {
        sum += x[static_cast<std::size_t>(i)] * std::polar(1.0, -2.0 * M_PI * i * k / R);
      }
      error += std::norm(std::complex<double>(v[k].re, v[k].im) - sum);
      norm += std::norm(sum);
    }
    EXPECT_LT(std::sqrt(error / norm), 1e-6) << "radix " << R;
  };
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 3>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 5>{});
  check(std::integral_constant<int, 7>{});
  check(std::integral_constant<int, 8>{});
  check(std::integral_constant<int, 9>{});
  check(std::integral_constant<int, 10>{});
  check(std::integral_constant<int, 11>{});
  check(std::integral_constant<int, 13>{});
  check(std::integral_constant<int, 15>{});
  check(std::integral_constant<int, 16>{});
  check(std::integral_constant<int, 17>{});
  check(std::integral_constant<int, 19>{});
  check(std::integral_constant<int, 21>{});
  check(std::integral_constant<int, 23>{});
  check(std::integral_constant<int, 29>{});
  check(std::integral_constant<int, 31>{});
}

// The run-time stage loop divides by RuntimeDivisor: element and butterfly indices of one block
// (below 2^15: a block holds at most kMaxSharedBytesPerBlock / 8 elements) by lengths up to
// 2^15, and the bound of its comment, x * d <= 2^32, at its edge.
TEST(FftPlanHost, RuntimeDivisorMatchesDivision) {
  static_assert(gpu::kMaxSharedBytesPerBlock / 8 < (1 << 15));
  for (int d = 1; d <= (1 << 15); ++d) {
    const gpu::RuntimeDivisor divisor(d);
    int q = 0;
    int r = 0;
    for (int x = 0; x < (1 << 15); ++x) {
      if (divisor.quotient(x) != q || divisor.remainder(x) != r) {
        FAIL() << x << " / " << d << ": " << divisor.quotient(x) << " remainder " << divisor.remainder(x);
      }
      if (++r == d) {
        r = 0;
        ++q;
      }
    }
    const long long edge = (1ll << 32) / d;  // the largest x with x * d <= 2^32
    for (long long x = std::max(0ll, edge - 64); x <= std::min(edge, static_cast<long long>(INT_MAX)); ++x) {
      ASSERT_EQ(divisor.quotient(static_cast<int>(x)), x / d) << x << " / " << d;
    }
  }
}

// FFTW's single-precision transform of one row (c2c forward or r2c) into `out`.
void fftw_float_row(const PlanSpec& spec, const float* in, float* out) {
  const int n = static_cast<int>(spec.n);
  if (spec.transform == Transform::r2c) {
    std::vector<float> a(in, in + n);
    fftwf_plan plan = fftwf_plan_dft_r2c_1d(n, a.data(), reinterpret_cast<fftwf_complex*>(out), FFTW_ESTIMATE);
    fftwf_execute(plan);
    fftwf_destroy_plan(plan);
  } else {
    std::vector<float> a(in, in + 2 * n);
    fftwf_plan plan = fftwf_plan_dft_1d(n, reinterpret_cast<fftwf_complex*>(a.data()),
                                        reinterpret_cast<fftwf_complex*>(out), FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_execute(plan);
    fftwf_destroy_plan(plan);
  }
}

// The prime stage sums its terms in blocks (kPrimeSumBlock). At lengths whose error is mostly
// the prime stage's, that keeps the host executor's error (FFTW double the reference) well below
// FFTW's own single-precision transform's on the same rows: 0.45-0.58x here, where the terms
// added one by one gave 0.68-1.0x.
TEST(FftPlanHost, PrimeStageSumsInBlocks) {
  const std::tuple<std::size_t, Transform, int> cases[] = {
      {127, Transform::c2c_forward, 64}, {127, Transform::r2c, 64},
      {61 * 67, Transform::c2c_forward, 4}, {113 * 127, Transform::c2c_forward, 2}};
  std::mt19937_64 rng(127);
  for (const auto& [n, transform, rows] : cases) {
    const PlanSpec spec{n, 1, transform, false};
    const PlanLayout layout = gpu::make_plan_layout(spec);
    ASSERT_GT(gpu::prime_stage_count(static_cast<long long>(n)), 0) << n << ": " << layout.algorithm;
    const long long in_floats = test::input_row_floats(spec);
    const long long out_floats = test::output_row_floats(spec);
    test::ErrorSum ours;
    test::ErrorSum fftw_float;
    for (int row = 0; row < rows; ++row) {
      const std::vector<float> input = test::make_input(spec, in_floats, 1, rng);
      const std::vector<double> ref = test::reference_row(spec, input.data());
      std::vector<float> out(static_cast<std::size_t>(out_floats), std::numeric_limits<float>::quiet_NaN());
      gpu::execute_on_host(layout, input.data(), out.data(), 1);
      ours.add(out.data(), ref);
      fftw_float_row(spec, input.data(), out.data());
      fftw_float.add(out.data(), ref);
    }
    const double ratio = ours.relative() / fftw_float.relative();
    EXPECT_LE(ratio, 0.64) << test::transform_name(transform) << " n=" << n << " " << layout.algorithm
                           << ": " << ours.relative() << " against FFTW float's " << fftw_float.relative();
    std::printf("prime stage %-12s n=%-6zu %.3g, FFTW float %.3g (%.2fx)  %s\n", test::transform_name(transform), n,
                ours.relative(), fftw_float.relative(), ratio, layout.algorithm.c_str());
  }
}

TEST(FftPlanHost, StockhamStagesArePermutationsEndingInNaturalOrder) {
  for (int n : {2, 12, 64, 360, 1000, 4096, 4095, 6561, 15015, 16384}) {
    int radices[gpu::kMaxStages];
    const int count = gpu::factorize(n, radices, gpu::kMaxStages);
    ASSERT_GT(count, 0);
    int ns = 1;
    const int table_size = gpu::stage_twiddle_offset(radices, count);
    for (int s = 0; s < count; ++s) {
      gpu::StageDesc st{radices[s], ns, gpu::stage_twiddle_offset(radices, s)};
      std::vector<int> hits(static_cast<std::size_t>(n), 0);
      std::vector<int> read(static_cast<std::size_t>(n), 0);
      for (int j = 0; j < n / st.radix; ++j) {
        for (int r = 0; r < st.radix; ++r) {
          ++hits[static_cast<std::size_t>(gpu::stage_output_index(st, j, r))];
          ++read[static_cast<std::size_t>(gpu::stage_input_index(n / st.radix, j, r))];
          if (s > 0) {
            EXPECT_LT(gpu::stage_twiddle_index(st, j, r), table_size);
            // Neighbouring butterflies read neighbouring entries (coalesced warp loads).
            if ((j + 1) % ns != 0 && j + 1 < n / st.radix) {
              EXPECT_EQ(gpu::stage_twiddle_index(st, j + 1, r),
                        gpu::stage_twiddle_index(st, j, r) + 1);
            }
          }
        }
      }
      EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << n;
      EXPECT_TRUE(std::all_of(read.begin(), read.end(), [](int h) { return h == 1; })) << n;
      ns *= radices[s];
    }
  }
}

// Butterfly j of stage st with the twiddles as products (stage_compute's kDerivedTwiddles), with the table's entries of the inputs
// that are not powers of two poisoned, against stage_compute on the clean table: the twiddles
// formed as products agree to float rounding and the poisoned entries are never read.
template <int R>
double derived_stage_error(const gpu::StageDesc& st, int n, int j, const std::vector<gpu::Cf>& clean,
                           const std::vector<gpu::Cf>& poisoned, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  std::vector<gpu::Cf> data(static_cast<std::size_t>(n));
  for (gpu::Cf& x : data) x = gpu::Cf{uniform(rng), uniform(rng)};
  const auto read = [&](int i) { return data[static_cast<std::size_t>(i)]; };
  gpu::Cf expected[R];
  gpu::Cf derived[R];
  gpu::stage_compute<R>(st, n, j, clean.data(), read, expected);
  gpu::stage_compute<R, true>(st, n, j, poisoned.data(), read, derived);
  double diff = 0.0;
  double norm = 0.0;
  for (int r = 0; r < R; ++r) {
    diff += std::norm(std::complex<double>(derived[r].re - expected[r].re, derived[r].im - expected[r].im));
    norm += std::norm(std::complex<double>(expected[r].re, expected[r].im));
  }
  return std::sqrt(diff / norm);
}

TEST(FftPlanHost, DerivedStageTwiddles) {
  std::mt19937_64 rng(17);
  struct Team {
    int n;
    gpu::RowsKind kind;
    int elements;
  };
  for (const Team& t : {Team{2048, gpu::RowsKind::real_forward, gpu::kElementsPerThread},
                        Team{8192, gpu::RowsKind::real_inverse, gpu::kWideTeamElements},
                        Team{8192, gpu::RowsKind::real_forward, gpu::kElementsPerThread},
                        Team{16384, gpu::RowsKind::forward, gpu::kElementsPerThread},
                        Team{16384, gpu::RowsKind::real_inverse, gpu::kElementsPerThread},
                        Team{500, gpu::RowsKind::real_forward, gpu::kDecimalTeamElements},
                        Team{1000, gpu::RowsKind::forward, gpu::kDecimalTeamElements},
                        Team{4000, gpu::RowsKind::real_inverse, gpu::kDecimalTeamElements}}) {
    ASSERT_TRUE(gpu::rows_derive_twiddles(t.n, t.kind, t.elements)) << t.n;
    const gpu::RadixList list = gpu::rows_radix_list(t.kind, t.n, t.elements);
    const std::vector<gpu::Cf> clean = gpu::stage_twiddle_table(list.radix, list.count);
    std::vector<gpu::Cf> poisoned = clean;
    int ns = list.radix[0];
    for (int s = 1; s < list.count; ++s) {
      const int radix = list.radix[s];
      const gpu::StageDesc st{radix, ns, gpu::stage_twiddle_offset(list.radix, s)};
      for (int r = 0; r < radix; ++r) {
        if ((r & (r - 1)) == 0) continue;
        for (int k = 0; k < ns; ++k) {
          poisoned[static_cast<std::size_t>(gpu::stage_twiddle_index_at(st, k, r))] =
              gpu::Cf{std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
        }
      }
      double worst = 0.0;
      for (int j = 0; j < t.n / radix; j += 1 + t.n / radix / 97) {
        double e = 0.0;
        switch (radix) {
          case 2: e = derived_stage_error<2>(st, t.n, j, clean, poisoned, rng); break;
          case 4: e = derived_stage_error<4>(st, t.n, j, clean, poisoned, rng); break;
          case 5: e = derived_stage_error<5>(st, t.n, j, clean, poisoned, rng); break;
          case 8: e = derived_stage_error<8>(st, t.n, j, clean, poisoned, rng); break;
          case 10: e = derived_stage_error<10>(st, t.n, j, clean, poisoned, rng); break;
          case 16: e = derived_stage_error<16>(st, t.n, j, clean, poisoned, rng); break;
          default: FAIL() << "radix " << radix << " of " << t.n;
        }
        ASSERT_FALSE(std::isnan(e)) << t.n << " stage " << s << " butterfly " << j << ": a poisoned entry read";
        worst = std::max(worst, e);
      }
      EXPECT_LE(worst, 5e-7) << t.n << " stage " << s << " radix " << radix;
      if (radix > 2) {
        EXPECT_GT(worst, 0.0) << t.n << " stage " << s << ": products that round exactly as the table";
      }
      ns *= radix;
    }
  }
}

TEST(FftPlanHost, ChirpIndexIsExactForLargeLengths) {
  for (unsigned long long n : {1000003ull, 134217727ull}) {
    for (unsigned long long j : {0ull, 1ull, 12345ull, n / 2, n - 1}) {
      const unsigned __int128 exact = (static_cast<unsigned __int128>(j) * j) % (2 * n);
      EXPECT_EQ(gpu::chirp_index(j, n), static_cast<unsigned long long>(exact));
    }
  }
}

TEST(FftPlanHost, AlgorithmChoice) {
  EXPECT_NE(gpu::make_plan_layout({4096, 1, Transform::c2c_forward, false}).algorithm.find("stockham"),
            std::string::npos);
  EXPECT_NE(gpu::make_plan_layout({1 << 20, 1, Transform::c2c_forward, false}).algorithm.find("four-step"),
            std::string::npos);
  EXPECT_NE(gpu::make_plan_layout({4097, 1, Transform::c2c_forward, false}).algorithm.find("one pass"),
            std::string::npos);
  EXPECT_NE(gpu::make_plan_layout({65537, 1, Transform::c2c_forward, false}).algorithm.find("three passes"),
            std::string::npos);
  EXPECT_THROW(gpu::make_plan_layout({0, 1, Transform::c2c_forward, false}), std::invalid_argument);
  // Prime factors 17 to 31: Stockham stages in the run-time loop (unrolled butterflies), one
  // pass or a four-step; 37 to 127 likewise (prime stages), or Bluestein where
  // PlannerOptions::prime_stages = 0 asks; from 131 up, Bluestein.
  gpu::PlannerOptions no_prime;
  no_prime.prime_stages = 0;
  for (Transform t : kAllTransforms) {
    for (std::size_t n : {119u, 2 * 119u, 4352u, 31u * 29u * 16u}) {
      const std::string algorithm = gpu::make_plan_layout({n, 1, t, false}).algorithm;
      EXPECT_EQ(algorithm.find("bluestein"), std::string::npos)
          << test::transform_name(t) << " n=" << n << ": " << algorithm;
    }
    for (std::size_t n : {148u, 37u * 41u, 127u * 32u, 113u * 127u, 101u * 8192u}) {
      const std::string algorithm = gpu::make_plan_layout({n, 1, t, false}).algorithm;
      EXPECT_EQ(algorithm.find("bluestein"), std::string::npos)
          << test::transform_name(t) << " n=" << n << ": " << algorithm;
      EXPECT_NE(gpu::make_plan_layout({n, 1, t, false}, no_prime).algorithm.find("bluestein"), std::string::npos)
          << test::transform_name(t) << " n=" << n;
    }
    EXPECT_NE(gpu::make_plan_layout({4 * 131, 1, t, false}).algorithm.find("bluestein"), std::string::npos)
        << test::transform_name(t);
  }
  EXPECT_EQ(gpu::prime_stage_count(113 * 127 * 4), 2);
  EXPECT_EQ(gpu::prime_stage_count(17 * 31), 0);
  EXPECT_EQ(gpu::prime_stage_count(131 * 37), 0);  // a prime factor above 127: Bluestein
  EXPECT_NE(gpu::make_plan_layout({23u * 16384u, 1, Transform::c2c_forward, false}).algorithm.find("four-step"),
            std::string::npos);
  EXPECT_NE(gpu::make_plan_layout({127u * 8192u, 1, Transform::c2c_forward, false}).algorithm.find("four-step"),
            std::string::npos);
  EXPECT_FALSE(gpu::is_direct_length(131 * 4));
  EXPECT_TRUE(gpu::is_direct_length(37 * 4));
  EXPECT_FALSE(gpu::is_direct_length(37 * 4, no_prime));
  EXPECT_TRUE(gpu::is_direct_length(17 * 19 * 23, no_prime));
  gpu::PlannerOptions bad;
  bad.prime_stages = -1;
  EXPECT_THROW(gpu::make_plan_layout({148, 1, Transform::c2c_forward, false}, bad), std::invalid_argument);
  EXPECT_EQ(gpu::bluestein_length_problem(100, 17 * 16), "a length with a prime factor above 13");
}

// The compiled kernels: each length is a single pass, and the planner picks them for the halves
// of four-step splits and for Bluestein convolutions where the cost rule says so.
// c2r through the full length (PlannerOptions::full_length_c2r): by the planner's rule at the
// lengths of full_length_c2r_rule, where its error is that of the real part alone, below the half
// length's or the pair's on the same input; wherever it can with 1 (compiled lengths and those of
// the run-time loop, even and odd, in and out of place, batches of one row and of many); never
// with -1; and not where the length is no single pass or takes Bluestein.
TEST(FftPlanHost, FullLengthC2r) {
  gpu::PlannerOptions always;
  always.full_length_c2r = 1;
  gpu::PlannerOptions never;
  never.full_length_c2r = -1;
  for (const std::size_t n : {135u, 162u, 243u, 1080u}) {
    const PlanSpec spec{n, std::max<std::size_t>(8, 32768 / n), Transform::c2r, false};
    EXPECT_TRUE(gpu::full_length_c2r_rule(static_cast<long long>(n)));
    const PlanLayout full = gpu::make_plan_layout(spec);
    EXPECT_NE(full.algorithm.find("real of the full length"), std::string::npos) << n << " " << full.algorithm;
    EXPECT_FALSE(full.paired_rows) << n;
    const PlanLayout half = gpu::make_plan_layout(spec, never);
    EXPECT_EQ(half.algorithm.find("real of the full length"), std::string::npos) << n << " " << half.algorithm;
    // The whole batch's error, on one input.
    std::mt19937_64 rng(n);
    const long long in_floats = test::input_row_floats(spec);
    const long long out_floats = test::output_row_floats(spec);
    const std::vector<float> input = test::make_input(spec, in_floats, spec.batch, rng);
    test::ErrorSum errors[2];
    for (int variant = 0; variant < 2; ++variant) {
      std::vector<float> output(static_cast<std::size_t>(out_floats) * spec.batch,
                                std::numeric_limits<float>::quiet_NaN());
      gpu::execute_on_host(variant == 0 ? full : half, input.data(), output.data(), spec.batch);
      for (std::size_t row = 0; row < spec.batch; ++row) {
        errors[variant].add(output.data() + row * static_cast<std::size_t>(out_floats),
                            test::reference_row(spec, input.data() + row * static_cast<std::size_t>(in_floats)));
      }
    }
    EXPECT_LT(errors[0].relative(), 0.9 * errors[1].relative())
        << n << ": full length " << errors[0].relative() << ", " << half.algorithm << " " << errors[1].relative();
  }
  std::mt19937_64 rng(1080);
  int index = 0;
  for (const std::size_t n : {100u, 162u, 250u, 1000u, 2000u, 45u * 4u, 17u * 2u * 9u, 37u * 4u, 135u, 4095u}) {
    for (const unsigned batch : {1u, 5u}) {
      const PlanSpec spec{n, batch, Transform::c2r, ++index % 2 == 0};
      std::string algorithm;
      EXPECT_LE(host_error(spec, rng, &algorithm, always), kHostTolerance) << n << " " << algorithm;
      EXPECT_NE(algorithm.find("real of the full length"), std::string::npos) << n << " " << algorithm;
    }
  }
  // No single pass (2^17), Bluestein (2 * 131), a half length of Bluestein (2 * 2 * 131): the
  // plans they had.
  for (const std::size_t n : {131072u, 262u, 524u}) {
    EXPECT_FALSE(gpu::can_take_full_length_c2r(static_cast<long long>(n), always)) << n;
    EXPECT_EQ(gpu::make_plan_layout({n, 3, Transform::c2r, false}, always).algorithm,
              gpu::make_plan_layout({n, 3, Transform::c2r, false}, never).algorithm);
  }
  EXPECT_FALSE(gpu::full_length_c2r_rule(1024));
  gpu::PlannerOptions bad;
  bad.full_length_c2r = 2;
  EXPECT_THROW(gpu::make_plan_layout({1080, 1, Transform::c2r, false}, bad), std::invalid_argument);
}

TEST(FftPlanHost, PlannerPrefersCompiledKernels) {
  for (int i = 0; i < gpu::kCompiledLengthCount; ++i) {
    const int n = gpu::kCompiledLengths[i];
    if (i > 0) {
      EXPECT_LT(gpu::kCompiledLengths[i - 1], n) << "kCompiledLengths sorted, unique";
    }
    EXPECT_TRUE(gpu::has_compiled_kernel(n));
    gpu::PlannerOptions fft_only;
    fft_only.direct_dft = -1;  // 4, 8, 16: the direct DFT by the planner's rule
    const auto layout = gpu::make_plan_layout({static_cast<std::size_t>(n), 1,
                                               Transform::c2c_forward, false}, fft_only);
    ASSERT_EQ(layout.steps.size(), 1u) << n << ": " << layout.algorithm;
    EXPECT_EQ(layout.steps[0].pass.n, n);
  }
  EXPECT_FALSE(gpu::has_compiled_kernel(1001));
  const auto pass_lengths = [](std::size_t n, Transform t, const gpu::PlannerOptions& options = {}) {
    std::vector<int> lengths;
    for (const auto& step : gpu::make_plan_layout({n, 1, t, false}, options).steps) {
      if (step.kind == gpu::Step::Kind::fft_pass) lengths.push_back(step.pass.n);
    }
    return lengths;
  };
  // 48000 = 200 x 240; its real halves 24000 = 48 x 500 (r2c) and 500 x 48 (c2r), the decimal
  // real rows and columns of the four-step kernel; 100000's half 50000 = 200 x 250 (100 rows of
  // 500 do not fill blocks of 8) rather than the more balanced 200 x 250.
  EXPECT_EQ(pass_lengths(48000, Transform::c2c_forward), (std::vector<int>{200, 240}));
  EXPECT_EQ(pass_lengths(48000, Transform::r2c), (std::vector<int>{48, 500}));
  EXPECT_EQ(pass_lengths(48000, Transform::c2r), (std::vector<int>{500, 48}));
  EXPECT_EQ(pass_lengths(100000, Transform::c2r), (std::vector<int>{200, 250}));
  // Bluestein: 4097 in one pass of 8192 = 2n - 2; 4099 in one of 12288 = 16x16x16x3, the
  // cheapest of the estimate (not the smaller 9216 = 16x8x8x3x3, nor 8232 = 8x3x7x7x7 without a
  // kernel); 10007 over 20480 = 128 x 160 and, without Rader, 65537 over 131072 = 256 x 512 in
  // three passes. Rader: 65537 over 65536 = 256 x 256.
  gpu::PlannerOptions no_rader;
  no_rader.rader = -1;
  EXPECT_EQ(pass_lengths(4097, Transform::c2c_forward), (std::vector<int>{8192}));
  EXPECT_EQ(pass_lengths(4099, Transform::c2c_forward), (std::vector<int>{12288}));
  EXPECT_EQ(pass_lengths(10007, Transform::c2c_forward), (std::vector<int>{128, 160, 128}));
  EXPECT_EQ(pass_lengths(65537, Transform::c2c_forward, no_rader), (std::vector<int>{256, 512, 256}));
  EXPECT_EQ(pass_lengths(65537, Transform::c2c_forward), (std::vector<int>{256, 256, 256}));
  // Without a compiled split the balanced one stays: 44100 = 210 x 210.
  EXPECT_EQ(pass_lengths(44100, Transform::c2c_forward), (std::vector<int>{210, 210}));
}

// Bluestein's convolution length: the estimate's candidates (one pass where a block holds
// 2n - 2, else three), the first the default plan's, every one of them planned and computed
// right when the options ask for it; lengths the planner cannot use are refused with the reason.
TEST(FftPlanHost, BluesteinLengths) {
  // Every compiled length a Bluestein convolution can take (n >= 17: m >= 33) has a measured
  // estimate, below 40 ps per element (a length without one costs kRunTimeLoopCost times that).
  for (const int m : gpu::kCompiledLengths) {
    if (m < 33) continue;
    EXPECT_LT(gpu::bluestein_pass_cost(m), 40LL * m) << m;
  }
  gpu::PlannerOptions fft_only;
  fft_only.direct_dft = -1;
  fft_only.rader = -1;  // 65537 takes Rader by default
  for (const long long n : {131LL, 1031LL, 2053LL, 4097LL, 8191LL, 8209LL, 65537LL}) {
    SCOPED_TRACE(n);
    const std::vector<long long> lengths = gpu::bluestein_lengths(n, 100);
    ASSERT_FALSE(lengths.empty());
    EXPECT_EQ(gpu::make_plan_layout({static_cast<std::size_t>(n), 1, Transform::c2c_forward, false}, fft_only)
                  .bluestein_length,
              lengths.front());
    EXPECT_EQ(std::set<long long>(lengths.begin(), lengths.end()).size(), lengths.size());
    for (const long long m : lengths) {
      EXPECT_GE(m, gpu::bluestein_min_length(n));
      EXPECT_EQ(m <= gpu::kMaxSinglePass, n <= 8192) << m;
    }
    // Cheapest first: one pass by the measured estimate.
    if (n <= 8192) {
      for (std::size_t i = 1; i < lengths.size(); ++i) {
        EXPECT_LE(gpu::bluestein_pass_cost(lengths[i - 1]), gpu::bluestein_pass_cost(lengths[i]));
      }
    }
  }

  std::mt19937_64 rng(4097);
  for (const long long n : {131LL, 1031LL, 4097LL, 10007LL}) {
    for (const long long m : gpu::bluestein_lengths(n, 3)) {
      gpu::PlannerOptions options = fft_only;
      options.bluestein_length = static_cast<int>(m);
      for (const Transform t : kAllTransforms) {
        const PlanSpec spec{static_cast<std::size_t>(n), 2, t, false};
        EXPECT_EQ(gpu::make_plan_layout(spec, options).bluestein_length, m);
        std::string algorithm;
        EXPECT_LE(host_error(spec, rng, &algorithm, options), kHostTolerance)
            << test::transform_name(t) << " n=" << n << " " << algorithm;
        EXPECT_NE(algorithm.find("bluestein m=" + std::to_string(m)), std::string::npos) << algorithm;
      }
    }
  }

  const auto refusal = [](std::size_t n, int m) {
    gpu::PlannerOptions options;
    options.bluestein_length = m;
    try {
      gpu::make_plan_layout({n, 1, Transform::c2c_forward, false}, options);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("planned");
  };
  EXPECT_EQ(refusal(4097, 8190), "bluestein: convolution length 8190 for n = 4097 is below 2n - 2 = 8192");
  EXPECT_EQ(refusal(10007, 17 * 2048),
            "bluestein: convolution length 34816 for n = 10007 is a length with a prime factor above 13");
  EXPECT_EQ(refusal(10007, 1 << 29),
            "bluestein: convolution length 536870912 for n = 10007 is neither one block's length nor a "
            "length with a four-step split");
  // Lengths without Bluestein ignore it.
  gpu::PlannerOptions options;
  options.bluestein_length = 12288;
  EXPECT_EQ(gpu::make_plan_layout({4096, 1, Transform::c2c_forward, false}, options).algorithm,
            gpu::make_plan_layout({4096, 1, Transform::c2c_forward, false}).algorithm);
  EXPECT_EQ(gpu::make_plan_layout({4096, 1, Transform::c2c_forward, false}, options).bluestein_length, 0);
}

// The shortest convolution, m = 2n - 2: the kernel's taps at offsets n - 1 and -(n - 1) share
// one index, and are equal. Every kind, batches of one and three, in and out of place, at lengths
// whose 2n - 2 has compiled kernels (one pass: 577, 1153, 2049, 4097; three passes: 65537 with
// Rader off), against the double-precision reference; one point less is refused.
TEST(FftPlanHost, BluesteinShortestConvolution) {
  EXPECT_EQ(gpu::bluestein_min_length(4097), 8192);
  EXPECT_EQ(gpu::bluestein_lengths(4097, 1), (std::vector<long long>{8192}));
  EXPECT_EQ(gpu::make_plan_layout({4097, 1, Transform::c2c_forward, false}).algorithm.find("bluestein m=8192 (one pass)"),
            0u);
  gpu::PlannerOptions no_rader;
  no_rader.rader = -1;
  std::mt19937_64 rng(8192);
  for (const long long n : {577LL, 1153LL, 2049LL, 4097LL, 65537LL}) {
    gpu::PlannerOptions options = no_rader;
    options.bluestein_length = static_cast<int>(gpu::bluestein_min_length(n));
    for (const Transform t : kAllTransforms) {
      for (const std::size_t batch : {std::size_t{1}, std::size_t{3}}) {
        const PlanSpec spec{static_cast<std::size_t>(n), batch, t, batch == 3};
        std::string algorithm;
        EXPECT_LE(host_error(spec, rng, &algorithm, options), kHostTolerance)
            << test::transform_name(t) << " n=" << n << " batch " << batch << " " << algorithm;
        EXPECT_EQ(algorithm.find("bluestein m=" + std::to_string(gpu::bluestein_min_length(n))), 0u)
            << algorithm;
      }
    }
    EXPECT_EQ(gpu::bluestein_length_problem(n, gpu::bluestein_min_length(n) - 1),
              "below 2n - 2 = " + std::to_string(gpu::bluestein_min_length(n)));
  }
}

// The one-pass Bluestein kernel's registers between its two FFTs (bluestein_held_elements):
// where every stage gives each of the block's threads E elements, thread t's butterflies of the
// last stage output, and those of the first stage take, exactly the elements t + T s (T = m / E
// threads), element s at q + (E / R) r of its array for input or output r of butterfly group q,
// by the stages' own index maps. 12288 = 16x16x16x3 (five radix-3 butterflies, 15 elements, to
// a thread) cannot.
TEST(FftPlanHost, BluesteinHeldElements) {
  int eligible = 0;
  for (const int m : gpu::kCompiledLengths) {
    const int e = gpu::bluestein_held_elements(m);
    if (e == 0) continue;
    ++eligible;
    SCOPED_TRACE(m);
    const int threads = m / e;
    EXPECT_EQ(gpu::compiled_transform_threads(m), threads);
    const gpu::RadixList list = gpu::radix_list(m);
    const int first = list.radix[0];
    const int last = list.radix[list.count - 1];
    const gpu::StageDesc last_stage{last, m / last, 0};
    for (int t = 0; t < threads; ++t) {
      std::vector<int> first_inputs(static_cast<std::size_t>(e), -1);
      std::vector<int> last_outputs(static_cast<std::size_t>(e), -1);
      for (int q = 0; q < e / first; ++q) {
        for (int r = 0; r < first; ++r) {
          first_inputs[static_cast<std::size_t>(q + e / first * r)] =
              gpu::stage_input_index(m / first, t + q * threads, r);
        }
      }
      for (int q = 0; q < e / last; ++q) {
        for (int r = 0; r < last; ++r) {
          last_outputs[static_cast<std::size_t>(q + e / last * r)] =
              gpu::stage_output_index(last_stage, t + q * threads, r);
        }
      }
      for (int s = 0; s < e; ++s) {
        ASSERT_EQ(first_inputs[static_cast<std::size_t>(s)], t + threads * s) << "t " << t;
        ASSERT_EQ(last_outputs[static_cast<std::size_t>(s)], t + threads * s) << "t " << t;
      }
    }
  }
  EXPECT_EQ(gpu::bluestein_held_elements(8192), 16);
  EXPECT_EQ(gpu::bluestein_held_elements(12288), 0);
  EXPECT_EQ(gpu::bluestein_held_elements(2048), 0);  // below kSingleElementsPerBlock
  EXPECT_EQ(eligible, 3);                             // 4096, 8192, 16384
  // The planner gives such a one-pass convolution a block of its own, of m / E threads, even
  // where the options ask for more elements per block (the CUDA backend refuses other blocks);
  // shorter ones (257, 509, 1021 over 512, 1024, 2048) share blocks as before.
  gpu::PlannerOptions wide_blocks;
  wide_blocks.single_elements_per_block = 16384;
  for (const long long n : {257LL, 509LL, 1021LL, 2049LL, 4093LL, 4097LL, 8191LL}) {
    for (const gpu::PlannerOptions& options : {gpu::PlannerOptions{}, wide_blocks}) {
      const gpu::PlanLayout layout =
          gpu::make_plan_layout({static_cast<std::size_t>(n), 4, Transform::c2c_forward, false}, options);
      ASSERT_EQ(layout.steps.size(), 1u) << n << " " << layout.algorithm;
      const gpu::PassDesc& p = layout.steps[0].pass;
      ASSERT_EQ(gpu::bluestein_pass_of(p), gpu::BluesteinPass::one_pass) << n;
      const int e = gpu::bluestein_held_elements(p.n);
      EXPECT_EQ(e > 0, n > 2000) << n << " m " << p.n;
      if (e > 0) {
        EXPECT_EQ(p.per_block, 1) << n;
        EXPECT_EQ(p.threads, p.n / e) << n;
      } else {
        EXPECT_GT(p.per_block, 1) << n;
      }
    }
  }
}

// The launch contract of every pass: a kernel's thread i takes butterflies i, i + threads, ...
// of each stage, as many as its per-thread count (butterflies_per_thread: that of the compiled
// kernel or of the run-time loop), so the planner's thread count must cover all
// per_block * n / R butterflies of every stage, in whole warps, within 1024 threads. A shortfall
// would leave butterflies undone on the device while the host executor, which has no threads,
// still passed.
TEST(FftPlanHost, ThreadsCoverEveryButterfly) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 2; n <= 4096; ++n) lengths.push_back(n);
  for (int n : gpu::kCompiledLengths) lengths.push_back(static_cast<std::size_t>(n));
  for (std::size_t n : {10007, 44100, 48000, 65537, 1 << 20}) lengths.push_back(n);
  std::size_t passes = 0;
  for (std::size_t n : lengths) {
    for (Transform t : {Transform::c2c_forward, Transform::r2c, Transform::c2r}) {
      if (t != Transform::c2c_forward && n % 2 != 0 && n > 64) continue;  // the paired path: sampled
      for (const auto& step : gpu::make_plan_layout({n, 3, t, false}).steps) {
        if (step.kind != gpu::Step::Kind::fft_pass) continue;
        const gpu::PassDesc& p = step.pass;
        ++passes;
        ASSERT_LE(p.threads, gpu::kMaxThreadsPerBlock) << n;
        if (p.real_step == gpu::RealStep::r2c_post_rows || p.real_step == gpu::RealStep::c2r_pre_columns) {
          // The four-step kernel's real rows and columns: its teams (the decimal ones in blocks of 400).
          const gpu::FourStepKind kind = p.real_step == gpu::RealStep::r2c_post_rows ? gpu::FourStepKind::rows_real
                                                                                      : gpu::FourStepKind::columns_real;
          ASSERT_EQ(p.threads, gpu::four_step_teams(kind, p.n) * gpu::four_step_team_threads(p.n)) << n;
        } else {
          ASSERT_EQ(p.threads % 32, 0) << n;
        }
        for (int s = 0; s < p.num_stages; ++s) {
          const int radix = p.stages[s].radix;
          const long long per_thread = gpu::butterflies_per_thread(radix, p.n);
          ASSERT_GE(p.threads * per_thread, static_cast<long long>(p.per_block) * p.n / radix)
              << "n " << n << ", pass of " << p.n << ", radix " << radix << ", " << p.per_block
              << " per block, " << p.threads << " threads";
        }
      }
    }
  }
  EXPECT_GT(passes, 4000u);
}

// The one-pass Bluestein kernel's registers (bluestein_kernel_registers): never fewer than 64,
// as many blocks of one transform resident as at 64, room for a block of as many transforms as
// 1024 threads hold; compiled_transform_threads is the planner's block of one transform. Every
// one-pass Bluestein plan, also with many transforms per block asked for, launches blocks that
// the kernel's registers hold.
TEST(FftPlanHost, BluesteinKernelRegisters) {
  EXPECT_EQ(gpu::resident_warps(64), 32);
  EXPECT_EQ(gpu::resident_warps(72), 28);
  EXPECT_EQ(gpu::resident_warps(88), 20);
  for (int m : gpu::kCompiledLengths) {
    const int warps = gpu::compiled_transform_threads(m) / 32;
    const int registers = gpu::bluestein_kernel_registers(m);
    EXPECT_GE(registers, 64) << m;
    EXPECT_EQ(registers % 8, 0) << m;
    EXPECT_GE(gpu::resident_warps(registers) / warps, gpu::resident_warps(64) / warps)
        << m << ": fewer blocks resident than at 64 registers";
    EXPECT_LE(gpu::kMaxThreadsPerBlock / 32 / warps * warps, gpu::resident_warps(registers)) << m;
  }
  EXPECT_EQ(gpu::compiled_transform_threads(12288), 832);
  EXPECT_EQ(gpu::bluestein_kernel_registers(12288), 72);  // one block of 26 warps either way
  EXPECT_EQ(gpu::bluestein_kernel_registers(10240), 80);  // 22 warps: 88 would hold 20
  EXPECT_EQ(gpu::bluestein_kernel_registers(6400), 72);   // two blocks of 14 warps
  EXPECT_EQ(gpu::bluestein_kernel_registers(4608), 64);   // three blocks of 10 warps
  std::size_t one_pass = 0;
  for (std::size_t n : {131, 139, 251, 257, 509, 1031, 2053, 3001, 4097, 5003, 6007, 8191}) {
    for (Transform t : {Transform::c2c_forward, Transform::r2c, Transform::c2r}) {
      for (long long m : gpu::bluestein_lengths(static_cast<long long>(n), 6)) {
        for (int elements : {0, 1 << 16}) {
          gpu::PlannerOptions options;
          options.bluestein_length = static_cast<int>(m);
          if (elements != 0) options.single_elements_per_block = elements;
          const PlanLayout layout = gpu::make_plan_layout({n, 3, t, false}, options);
          for (const auto& step : layout.steps) {
            const gpu::PassDesc& p = step.pass;
            // (Lengths without a compiled kernel run the run-time pass kernel, 64 registers.)
            if (step.kind != gpu::Step::Kind::fft_pass ||
                gpu::bluestein_pass_of(p) != gpu::BluesteinPass::one_pass) {
              continue;
            }
            ++one_pass;
            if (p.per_block == 1) {
              EXPECT_EQ(p.threads, gpu::compiled_transform_threads(p.n)) << "m " << p.n;
            }
            EXPECT_LE(p.threads / 32, gpu::resident_warps(gpu::bluestein_kernel_registers(p.n)))
                << "n " << n << ", m " << p.n << ", " << p.per_block << " per block";
          }
        }
      }
    }
  }
  EXPECT_GT(one_pass, 300u);
}

// Which passes the Bluestein kernel takes (bluestein_pass_of): every pass of a Bluestein plan of
// a compiled length, by its place (one pass; columns in, rows, columns out of three), for c2c
// either way, r2c and c2r (paired rows), in and out of place, and what the planner picks for
// larger lengths; no pass of another algorithm (single pass, paired rows, four-step, real
// rows). The register limit of its blocks (configure_block) holds for every one of them.
TEST(FftPlanHost, BluesteinPasses) {
  using gpu::BluesteinPass;
  std::size_t counted[gpu::kBluesteinPasses] = {};
  gpu::PlannerOptions no_rader;  // 65537 takes Rader by default
  no_rader.rader = -1;
  for (std::size_t n : {4097, 6007, 10007, 20011, 65537, 131101, 1000003}) {
    for (Transform t :
         {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r}) {
      for (bool in_place : {false, true}) {
        const PlanLayout layout = gpu::make_plan_layout({n, 3, t, in_place}, no_rader);
        ASSERT_NE(layout.algorithm.find("bluestein"), std::string::npos) << n;
        const bool three = layout.algorithm.find("three passes") != std::string::npos;
        int pass = 0;
        for (const auto& step : layout.steps) {
          if (step.kind != gpu::Step::Kind::fft_pass) continue;
          const gpu::PassDesc& p = step.pass;
          const BluesteinPass expected =
              !gpu::has_compiled_kernel(p.n) ? BluesteinPass::none
              : three ? static_cast<BluesteinPass>(1 + pass)
                      : BluesteinPass::one_pass;
          EXPECT_EQ(gpu::bluestein_pass_of(p), expected)
              << "n " << n << " " << layout.algorithm << ", pass " << pass << " of length " << p.n;
          if (expected != BluesteinPass::none) {
            ++counted[static_cast<int>(expected)];
            EXPECT_LE(p.threads / 32,
                      gpu::resident_warps(gpu::bluestein_pass_registers(p.n, expected)));
          }
          ++pass;
        }
        EXPECT_EQ(pass, three ? 3 : 1) << n << " " << layout.algorithm;
      }
    }
  }
  for (int k = 0; k < gpu::kBluesteinPasses; ++k) EXPECT_GT(counted[k], 0u) << "pass kind " << k;
  for (std::size_t n : {64, 1000, 4095, 4096, 48000, 65536, 1 << 20, 100000}) {
    for (Transform t : {Transform::c2c_forward, Transform::r2c, Transform::c2r}) {
      const PlanLayout layout = gpu::make_plan_layout({n, 3, t, false}, gpu::PlannerOptions{});
      for (const auto& step : layout.steps) {
        if (step.kind != gpu::Step::Kind::fft_pass) continue;
        EXPECT_EQ(gpu::bluestein_pass_of(step.pass), BluesteinPass::none)
            << n << " " << layout.algorithm << ", pass of " << step.pass.n;
      }
    }
  }
}

// Rader's algorithm (prime n, a convolution of length n - 1): the primitive root, which lengths
// can take it and which the rule gives it, its passes on the Bluestein kernel's three variants
// with the X[0] step between the first two and the gather of the outputs last, and its results (the host executor, against FFTW in
// double precision, every output written) at primes that take it by default and by the option.
TEST(FftPlanHost, Rader) {
  for (long long p : {3, 5, 7, 11, 257, 641, 12289, 40961, 65537}) {
    const long long g = gpu::primitive_root(p);
    std::set<long long> powers;
    long long power = 1;
    for (long long q = 0; q < p - 1; ++q) {
      powers.insert(power);
      power = power * g % p;
    }
    EXPECT_EQ(static_cast<long long>(powers.size()), p - 1) << p << ": g = " << g;
    EXPECT_EQ(*powers.begin(), 1);
    EXPECT_EQ(*powers.rbegin(), p - 1);
  }
  EXPECT_EQ(gpu::primitive_root(65537), 3);
  EXPECT_EQ(gpu::primitive_root(7), 3);
  EXPECT_THROW(gpu::primitive_root(65536), std::invalid_argument);

  for (long long n : {257, 641, 769, 12289, 18433, 40961, 65537, 786433}) {
    EXPECT_TRUE(gpu::can_take_rader(n)) << n;
  }
  // Not prime; a direct length (radix 127); n - 1 with a prime factor above 13.
  for (long long n : {4097, 65536, 127, 10007, 20011, 1000003}) EXPECT_FALSE(gpu::can_take_rader(n)) << n;
  // The rule: where Bluestein takes three passes (2n - 2 beyond one block).
  for (long long n : {257, 641, 7681}) EXPECT_FALSE(gpu::rader_rule(n)) << n;
  for (long long n : {12289, 18433, 40961, 65537, 786433}) EXPECT_TRUE(gpu::rader_rule(n)) << n;

  const PlanSpec spec{65537, 3, Transform::c2c_forward, false};
  EXPECT_EQ(gpu::make_plan_layout(spec).algorithm.find("rader m=65536 (256x256, three passes)"), 0u);
  gpu::PlannerOptions never;
  never.rader = -1;
  EXPECT_EQ(gpu::make_plan_layout(spec, never).algorithm.find("bluestein"), 0u);
  gpu::PlannerOptions bluestein_length;
  bluestein_length.bluestein_length = 147456;
  EXPECT_EQ(gpu::make_plan_layout(spec, bluestein_length).algorithm.find("bluestein m=147456"), 0u);
  gpu::PlannerOptions always;
  always.rader = 1;
  EXPECT_EQ(gpu::make_plan_layout({257, 1, Transform::c2c_forward, false}, always).algorithm,
            "rader m=256 (16x16, three passes) [16 | 16 | 16]");
  EXPECT_EQ(gpu::make_plan_layout({10007, 1, Transform::c2c_forward, false}, always).algorithm.find("bluestein"), 0u);
  gpu::PlannerOptions bad;
  bad.rader = 2;
  EXPECT_THROW(gpu::make_plan_layout(spec, bad), std::invalid_argument);

  using gpu::BluesteinPass;
  for (Transform t : kAllTransforms) {
    for (bool in_place : {false, true}) {
      const PlanLayout layout = gpu::make_plan_layout({65537, 3, t, in_place});
      ASSERT_EQ(layout.algorithm.find("rader"), 0u) << layout.algorithm;
      std::vector<gpu::Step::Kind> kinds;
      std::vector<BluesteinPass> passes;
      for (const auto& step : layout.steps) {
        kinds.push_back(step.kind);
        if (step.kind == gpu::Step::Kind::fft_pass) passes.push_back(gpu::bluestein_pass_of(step.pass));
      }
      ASSERT_GE(kinds.size(), 5u);
      EXPECT_EQ(kinds[1], gpu::Step::Kind::rader_dc) << test::transform_name(t);
      EXPECT_EQ(kinds[4], gpu::Step::Kind::rader_gather) << test::transform_name(t);
      // Paired r2c rows: the split in the gather, no pass and no buffer of their own.
      EXPECT_EQ(kinds.size(), 5u) << test::transform_name(t);
      EXPECT_EQ(layout.pair_spectra_row, 0) << test::transform_name(t);
      EXPECT_EQ(passes, (std::vector<BluesteinPass>{BluesteinPass::columns_in, BluesteinPass::rows,
                                                    BluesteinPass::columns_out}))
          << test::transform_name(t) << (in_place ? " in place" : "");
    }
  }

  std::mt19937_64 rng(65537);
  for (Transform t : kAllTransforms) {
    for (std::size_t n : {257, 641, 12289, 65537}) {
      for (std::size_t batch : {1, 3}) {
        for (bool in_place : {false, true}) {
          const PlanSpec case_spec{n, batch, t, in_place};
          std::string algorithm;
          const double err = host_error(case_spec, rng, &algorithm, always);
          ASSERT_EQ(algorithm.find("rader"), 0u) << n << ": " << algorithm;
          EXPECT_LE(err, kHostTolerance) << test::transform_name(t) << " n=" << n << " batch " << batch
                                         << (in_place ? " in place" : "");
        }
      }
    }
  }
}

// Which passes the rows kernel takes (rows_pass_of): the single pass of every power of two from
// 32 to 16384, c2c either way and as the half length of r2c / c2r, in and out of place, with the
// row distances of the contiguous layout; nothing else (shorter and longer lengths, other
// radices, four-step, Bluestein and paired passes), since the rows kernel knows only plain rows.
// The c2c single passes of the other compiled lengths are plain rows passes too
// (fft_plain_rows_kernel).
TEST(FftPlanHost, RowsPasses) {
  struct Expected {
    Transform transform;
    gpu::RowsKind kind;
  };
  for (std::size_t n = gpu::kRowsMinLength; n <= gpu::kRowsMaxLength; n *= 2) {
    for (const Expected e : {Expected{Transform::c2c_forward, gpu::RowsKind::forward},
                             Expected{Transform::c2c_inverse, gpu::RowsKind::inverse},
                             Expected{Transform::r2c, gpu::RowsKind::real_forward},
                             Expected{Transform::c2r, gpu::RowsKind::real_inverse}}) {
      const bool real = e.transform == Transform::r2c || e.transform == Transform::c2r;
      for (const bool in_place : {false, true}) {
        const PlanSpec spec{real ? 2 * n : n, 5, e.transform, in_place};
        const PlanLayout layout = gpu::make_plan_layout(spec);
        ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
        gpu::RowsPassDesc d;
        ASSERT_TRUE(gpu::rows_pass_of(layout.steps[0].pass, d))
            << test::transform_name(e.transform) << " n=" << spec.n;
        EXPECT_EQ(d.n, static_cast<int>(n));
        EXPECT_EQ(d.kind, e.kind) << test::transform_name(e.transform) << " n=" << spec.n;
        // Complex elements between rows: real rows are read and written as pairs.
        const long long in_row = layout.in_row / (e.transform == Transform::r2c ? 2 : 1);
        const long long out_row = layout.out_row / (e.transform == Transform::c2r ? 2 : 1);
        EXPECT_EQ(d.in_dist, in_row) << test::transform_name(e.transform) << " n=" << spec.n;
        EXPECT_EQ(d.out_dist, out_row) << test::transform_name(e.transform) << " n=" << spec.n;
        EXPECT_LE(gpu::rows_shared_bytes(d.n, d.kind), 227 * 1024);
        EXPECT_LE(gpu::rows_block_threads(d.n, d.kind), gpu::kMaxThreadsPerBlock);
      }
    }
  }
  const auto any_rows_pass = [](const PlanSpec& spec) {
    for (const auto& step : gpu::make_plan_layout(spec).steps) {
      gpu::RowsPassDesc d;
      if (step.kind == gpu::Step::Kind::fft_pass && gpu::rows_pass_of(step.pass, d)) return true;
    }
    return false;
  };
  for (const PlanSpec& spec : {PlanSpec{16, 4, Transform::c2c_forward, false},
                               PlanSpec{32, 4, Transform::r2c, false},  // half length 16
                               PlanSpec{8000, 4, Transform::c2c_forward, false},
                               PlanSpec{1920, 4, Transform::r2c, false},
                               PlanSpec{32768, 2, Transform::c2c_forward, false},
                               PlanSpec{65536, 2, Transform::r2c, false},
                               PlanSpec{65536, 2, Transform::c2r, false},
                               PlanSpec{4097, 2, Transform::c2c_forward, false},
                               PlanSpec{4095, 4, Transform::r2c, false}}) {
    EXPECT_FALSE(any_rows_pass(spec)) << test::transform_name(spec.transform) << " n=" << spec.n;
  }
  // The other compiled lengths' single passes run on the plain rows kernel (but the decimal
  // lengths', which by the planner's rule take the rows kernel's decimal teams):
  // c2c both ways, and r2c and c2r of twice the length where the first stage has 16 butterflies
  // or more.
  int plain = 0;
  int plain_real = 0;
  for (const int n : gpu::kCompiledLengths) {
    const bool pow2_rows = gpu::is_power_of_two(n) && n >= gpu::kRowsMinLength;
    const bool wide_first_stage = n / gpu::radix_list(n).radix[0] >= 16;
    for (const Expected e : {Expected{Transform::c2c_forward, gpu::RowsKind::forward},
                             Expected{Transform::c2c_inverse, gpu::RowsKind::inverse},
                             Expected{Transform::r2c, gpu::RowsKind::real_forward},
                             Expected{Transform::c2r, gpu::RowsKind::real_inverse}}) {
      const bool real = e.transform == Transform::r2c || e.transform == Transform::c2r;
      const bool by_rows_kernel = pow2_rows || gpu::has_decimal_rows_kernel(n);
      const std::size_t length = static_cast<std::size_t>(real ? 2 * n : n);
      gpu::PlannerOptions fft_only;
      fft_only.direct_dft = -1;  // the shortest: the direct DFT by the planner's rule
      const PlanLayout layout = gpu::make_plan_layout({length, 3, e.transform, n % 3 == 0}, fft_only);
      ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
      gpu::RowsPassDesc d;
      ASSERT_TRUE(gpu::plain_rows_pass(layout.steps[0].pass, d)) << test::transform_name(e.transform) << " " << length;
      EXPECT_EQ(d.kind, e.kind) << length;
      EXPECT_EQ(d.n, n);
      EXPECT_EQ(d.in_dist, layout.in_row / (e.transform == Transform::r2c ? 2 : 1)) << length;
      EXPECT_EQ(d.out_dist, layout.out_row / (e.transform == Transform::c2r ? 2 : 1)) << length;
      EXPECT_EQ(gpu::rows_pass_of(layout.steps[0].pass, d), by_rows_kernel) << n;
      const bool plain_kernel = gpu::has_plain_rows_kernel(n, e.kind);
      EXPECT_EQ(plain_kernel, !pow2_rows && (!real || wide_first_stage))
          << test::transform_name(e.transform) << " " << length;
      (real ? plain_real : plain) += plain_kernel ? 1 : 0;
    }
  }
  EXPECT_GT(plain, 100);
  EXPECT_GT(plain_real, 80);
  // r2c / c2r 1000 and 1920 (halves 500 = 10x10x5 and 960 = 8x8x3x5) take it, halves of a
  // narrow first stage (48 = 16x3: three butterflies) do not.
  EXPECT_TRUE(gpu::has_plain_rows_kernel(500, gpu::RowsKind::real_forward));
  EXPECT_TRUE(gpu::has_plain_rows_kernel(960, gpu::RowsKind::real_inverse));
  EXPECT_FALSE(gpu::has_plain_rows_kernel(48, gpu::RowsKind::real_forward));
  EXPECT_FALSE(gpu::has_plain_rows_kernel(1024, gpu::RowsKind::forward));
  EXPECT_FALSE(gpu::has_plain_rows_kernel(4097, gpu::RowsKind::forward));
  // Four-step and Bluestein passes are no plain rows passes.
  for (const std::size_t n : {48000u, 4097u, 10007u}) {
    for (const auto& step : gpu::make_plan_layout({n, 2, Transform::c2c_forward, false}).steps) {
      gpu::RowsPassDesc d;
      EXPECT_FALSE(gpu::plain_rows_pass(step.pass, d)) << n;
    }
  }
}

// The plain rows kernel's registers keep the resident blocks of the planner's default blocking
// that 64 allow (56 where 64 hold one block and 56 two), and a tuned plan's block that they do
// not hold runs on the pass kernel.
TEST(FftPlanHost, PlainRowsKernelRegisters) {
  EXPECT_EQ(gpu::registers_holding(27), 72);  // 28 warps at 72, 24 at 80
  EXPECT_EQ(gpu::registers_holding(32), 64);
  EXPECT_EQ(gpu::registers_holding(20), 96);
  // 4 rows of 10x10x10: 400 radix-10 butterflies, one to a thread.
  EXPECT_EQ(gpu::plain_rows_block_threads(1000), 416);
  // One row of 8x8x5x5x5: 1600 radix-5 butterflies, 3 to a thread.
  EXPECT_EQ(gpu::plain_rows_block_threads(8000), 544);
  EXPECT_EQ(gpu::plain_rows_kernel_registers(1000), 72);   // 2 blocks of 13 warps either way
  EXPECT_EQ(gpu::plain_rows_kernel_registers(8000), 56);   // 2 blocks of 17 warps instead of 1
  EXPECT_EQ(gpu::plain_rows_kernel_registers(1920), 64);   // 72 would hold 3 blocks of 8 warps, not 4
  EXPECT_EQ(gpu::plain_rows_kernel_registers(16000), 64);  // one block of 32 warps
  // The plain rows kernel's plans (the decimal lengths take decimal teams by the planner's rule,
  // the shortest the direct DFT).
  gpu::PlannerOptions plain_rows;
  plain_rows.rows_elements_per_thread = gpu::kElementsPerThread;
  plain_rows.direct_dft = -1;
  int checked = 0;
  for (const int n : gpu::kCompiledLengths) {
    if (!gpu::has_plain_rows_kernel(n, gpu::RowsKind::forward)) continue;
    const int registers = gpu::plain_rows_kernel_registers(n);
    EXPECT_EQ(registers % 8, 0) << n;
    EXPECT_GE(registers, 56) << n;
    EXPECT_LE(registers, 128) << n;
    const int warps = gpu::plain_rows_block_threads(n) / 32;
    EXPECT_GE(gpu::resident_warps(registers) / warps, gpu::resident_warps(64) / warps) << n;
    if (registers >= 64 && registers < 128) {  // the most that keep them
      EXPECT_LT(gpu::resident_warps(registers + 8) / warps, gpu::resident_warps(64) / warps) << n;
    }
    for (const Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r}) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      const std::size_t length = static_cast<std::size_t>(real ? 2 * n : n);
      const PlanLayout layout = gpu::make_plan_layout({length, 1000, t, false}, plain_rows);
      ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
      const gpu::PassDesc& p = layout.steps[0].pass;
      gpu::RowsPassDesc d;
      ASSERT_TRUE(gpu::plain_rows_pass(p, d)) << length;
      if (gpu::has_plain_rows_kernel(n, d.kind)) {
        EXPECT_EQ(p.threads, gpu::plain_rows_block_threads(n)) << test::transform_name(t) << " " << length;
      } else if (t == Transform::c2r && n % 2 == 0) {
        // Rows of n + 1 values of X loaded before the stages: two at a time (16-byte aligned).
        EXPECT_EQ(p.per_block % 2, 0) << length;
      }
      EXPECT_EQ(gpu::plain_rows_kernel_takes(p, d.kind), gpu::has_plain_rows_kernel(n, d.kind)) << length;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
  // 16384 elements per block: 1000 takes 10 rows in 1024 threads, more than 72 registers hold.
  gpu::PlannerOptions wide;
  wide.single_elements_per_block = 16384;
  const PlanLayout layout = gpu::make_plan_layout({1000, 1000, Transform::c2c_forward, false}, wide);
  const gpu::PassDesc& p = layout.steps[0].pass;
  gpu::RowsPassDesc d;
  ASSERT_TRUE(gpu::plain_rows_pass(p, d));
  EXPECT_EQ(p.threads, 1024);
  EXPECT_FALSE(gpu::plain_rows_kernel_takes(p, d.kind));
}

// Paired butterflies (paired_butterfly) take every butterfly of a stage exactly once where each
// thread's count pairs up (even), and not otherwise (a decimal team's five radix-2 butterflies
// of 4000 took some twice).
TEST(FftPlanHost, PairedButterfliesNeedAnEvenCount) {
  for (const int threads : {3, 4, 32, 400}) {
    for (int per_thread = 1; per_thread <= 16; ++per_thread) {
      const int butterflies = threads * per_thread;
      std::vector<int> taken(static_cast<std::size_t>(butterflies), 0);
      for (int lane = 0; lane < threads; ++lane) {
        for (int q = 0; q < per_thread; ++q) {
          const int j = gpu::paired_butterfly(lane, q, threads, per_thread, butterflies, true);
          ASSERT_GE(j, 0);
          ASSERT_LT(j, butterflies);
          ++taken[static_cast<std::size_t>(j)];
        }
      }
      const bool each_once = std::count(taken.begin(), taken.end(), 1) == butterflies;
      EXPECT_EQ(each_once, gpu::butterflies_pair_up(per_thread)) << threads << " threads, " << per_thread;
    }
  }
}

// c2r's rows passes below 16384 run their last radix first where it is 8 or less
// (rows_radix_list), and the first stage's butterflies in partner pairs (paired_butterfly, as
// TeamFft<n, true> loads them): every butterfly taken once, and the mirror kN - i of each input
// i in the same thread where TeamFft::load_real_inverse looks for it. The other kinds keep
// radix_list's order; a pass in another order is no rows pass.
TEST(FftPlanHost, RowsRealInverseOrder) {
  int paired = 0;
  for (int n = gpu::kRowsMinLength; n <= gpu::kRowsMaxLength; n *= 2) {
    const gpu::RadixList standard = gpu::radix_list(n);
    const gpu::RadixList list = gpu::rows_radix_list(gpu::RowsKind::real_inverse, n);
    for (const gpu::RowsKind kind :
         {gpu::RowsKind::forward, gpu::RowsKind::inverse, gpu::RowsKind::real_forward}) {
      EXPECT_TRUE(gpu::same_radices(gpu::rows_radix_list(kind, n), standard)) << n;
    }
    std::vector<int> expected(standard.radix, standard.radix + standard.count);
    if (expected.back() <= 8 && n < gpu::kRowsMaxLength) {
      std::rotate(expected.rbegin(), expected.rbegin() + 1, expected.rend());
    }
    if (n == 256) expected = {4, 8, 8};  // instead of 16x16, which has no radix to pair
    EXPECT_EQ(std::vector<int>(list.radix, list.radix + list.count), expected) << n;

    const PlanLayout layout =
        gpu::make_plan_layout({static_cast<std::size_t>(2 * n), 3, Transform::c2r, false});
    ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
    const gpu::PassDesc& pass = layout.steps[0].pass;
    EXPECT_TRUE(gpu::same_radices(gpu::pass_radices(pass), list)) << n;
    gpu::RowsPassDesc d;
    EXPECT_TRUE(gpu::rows_pass_of(pass, d)) << n;
    gpu::PassDesc other_order = pass;
    if (!gpu::same_radices(list, standard)) {
      other_order.num_stages = standard.count;
      for (int s = 0; s < standard.count; ++s) other_order.stages[s].radix = standard.radix[s];
      EXPECT_FALSE(gpu::rows_pass_of(other_order, d)) << n;
    }

    for (const int elements : {gpu::kElementsPerThread, gpu::kWideTeamElements}) {
      if (elements == gpu::kWideTeamElements && !gpu::has_wide_rows_kernel(n)) continue;
      const int radix = list.radix[0];
      const int per_thread = elements / radix;
      if (!gpu::butterflies_pair_up(per_thread)) continue;  // TeamFft<n, true, elements>::kPairedFirst
      ++paired;
      const int threads = gpu::team_threads(n, elements);
      const int butterflies = n / radix;
      const int half = per_thread / 2;
      const auto butterfly = [&](int lane, int q) {
        return gpu::paired_butterfly(lane, q, threads, per_thread, butterflies, true);
      };
      std::vector<int> taken(static_cast<std::size_t>(butterflies), 0);
      for (int lane = 0; lane < threads; ++lane) {
        for (int q = 0; q < per_thread; ++q) ++taken[static_cast<std::size_t>(butterfly(lane, q))];
        for (int q = 0; q < half; ++q) {
          const bool zero = lane == 0 && q == 0;
          const int j = butterfly(lane, q);
          const int j2 = butterfly(lane, q + half);
          for (int r = 0; r < radix; ++r) {
            const int i = j + r * butterflies;
            const int mirror = zero ? (r == 0 ? n : j + (radix - r) % radix * butterflies)
                                    : j2 + (radix - 1 - r) * butterflies;
            EXPECT_EQ(mirror, n - i) << "n " << n << " lane " << lane << " q " << q << " r " << r;
            const int i2 = j2 + r * butterflies;
            const int mirror2 = (zero ? j2 : j) + (radix - 1 - r) * butterflies;
            EXPECT_EQ(mirror2, n - i2) << "n " << n << " lane " << lane << " q " << q + half
                                       << " r " << r;
          }
        }
      }
      EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), butterflies) << n << " at " << elements;
    }
  }
  // At 16 per thread all but 4096 = 16x16x16 and 16384; the wide teams of 8192 too.
  EXPECT_EQ(paired, 9);
}

// The c2c single passes of lengths without teams of `elements` per thread, planned with the
// option asking for them: at the planner's rule (16 per thread), `marker` not in the algorithm;
// and such a pass asking for that width is no rows pass.
void expect_width_ignored(int elements, std::initializer_list<std::size_t> lengths, const std::string& marker) {
  gpu::PlannerOptions options;
  options.rows_elements_per_thread = elements;
  for (const std::size_t n : lengths) {
    const PlanLayout other = gpu::make_plan_layout({n, 3, Transform::c2c_forward, false}, options);
    ASSERT_EQ(other.steps.size(), 1u) << other.algorithm;
    EXPECT_EQ(other.steps[0].pass.rows_elements_per_thread, gpu::kElementsPerThread) << n;
    EXPECT_EQ(other.algorithm.find(marker), std::string::npos) << other.algorithm;
    gpu::PassDesc asking = other.steps[0].pass;
    asking.rows_elements_per_thread = elements;
    gpu::RowsPassDesc d;
    EXPECT_FALSE(gpu::rows_pass_of(asking, d)) << n;
  }
}

// Rows with wide teams (kWideTeamElements per thread): single passes of 8192 (c2c, and the
// halves of r2c and c2r 16384) at the planner's rule (32 for c2r, 16 for the others) or either
// width the options ask for, each a rows pass at that width with its block of 8192 / elements
// threads; other lengths ignore the option, and a width without kernels is an error.
TEST(FftPlanHost, WideRowsTeams) {
  const std::size_t half_or_n = gpu::kWideRowsLength;
  for (const Transform t : kAllTransforms) {
    const bool real = t == Transform::r2c || t == Transform::c2r;
    const int rule = t == Transform::c2r ? gpu::kWideTeamElements : gpu::kElementsPerThread;
    for (const int asked : {0, 16, 32}) {
      gpu::PlannerOptions options;
      options.rows_elements_per_thread = asked;
      for (const bool in_place : {false, true}) {
        const PlanLayout layout =
            gpu::make_plan_layout({real ? 2 * half_or_n : half_or_n, 3, t, in_place}, options);
        ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
        const int expected = asked == 0 ? rule : asked;
        gpu::RowsPassDesc d;
        ASSERT_TRUE(gpu::rows_pass_of(layout.steps[0].pass, d)) << layout.algorithm;
        EXPECT_EQ(d.elements_per_thread, expected) << layout.algorithm;
        EXPECT_EQ(gpu::rows_block_threads(d.n, d.kind, d.elements_per_thread),
                  static_cast<int>(half_or_n) / expected);
        EXPECT_EQ(gpu::launch_shared_bytes(layout.steps[0]), gpu::rows_shared_bytes(d.n, d.kind));
        EXPECT_NE(layout.algorithm.find(", " + std::to_string(expected) + " per thread"), std::string::npos)
            << layout.algorithm;
      }
    }
  }
  EXPECT_EQ(gpu::default_rows_elements_per_thread(8192, gpu::RowsKind::real_inverse), gpu::kWideTeamElements);
  EXPECT_EQ(gpu::default_rows_elements_per_thread(8192, gpu::RowsKind::forward), gpu::kElementsPerThread);
  EXPECT_EQ(gpu::default_rows_elements_per_thread(16384, gpu::RowsKind::real_inverse), gpu::kElementsPerThread);
  expect_width_ignored(gpu::kWideTeamElements, {4096, 16384}, "per thread");
  gpu::PlannerOptions unknown;
  unknown.rows_elements_per_thread = 24;
  try {
    gpu::make_plan_layout({8192, 3, Transform::c2c_forward, false}, unknown);
    ADD_FAILURE() << "rows_elements_per_thread 24 was planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rows_elements_per_thread 24"), std::string::npos) << e.what();
  }
}

// Rows with decimal teams (kDecimalTeamElements per thread): the single passes of 500, 1000, 2000
// and 4000 (c2c either way, and the halves of r2c / c2r 1000 to 8000), in and out of place, are
// rows passes of 8, 4, 2 or 1 rows in 400 threads, in decimal_radix_list's stages (500 and 1000:
// radix_list's; 2000: 10x10x10x2 for 16x5x5x5, 4000: 10x10x10x2x2 for 16x10x5x5), by the
// planner's rule and where the options ask for them, and plain rows passes in radix_list's
// stages on fft_plain_rows_kernel where the options ask for 16 per thread (c2r's halves too);
// other lengths ignore the option, and no other width makes a decimal rows pass.
TEST(FftPlanHost, DecimalRowsTeams) {
  gpu::PlannerOptions decimal;
  decimal.rows_elements_per_thread = gpu::kDecimalTeamElements;
  gpu::PlannerOptions plain_rows;
  plain_rows.rows_elements_per_thread = gpu::kElementsPerThread;
  for (const std::size_t half_or_n : {std::size_t{500}, std::size_t{1000}, std::size_t{2000}, std::size_t{4000}}) {
    const int n = static_cast<int>(half_or_n);
    EXPECT_TRUE(gpu::has_decimal_rows_kernel(n));
    EXPECT_FALSE(gpu::has_rows_kernel(n));
    EXPECT_EQ(gpu::rows_team_elements(n), gpu::kDecimalTeamElements);
    const gpu::RadixList stages = gpu::decimal_radix_list(n);
    int product = 1;
    for (int s = 0; s < stages.count; ++s) product *= stages.radix[s];
    EXPECT_EQ(product, n);
    EXPECT_EQ(stages.count, n == 4000 ? 5 : n == 2000 ? 4 : 3) << n;
    EXPECT_TRUE(gpu::every_radix_divides(stages, gpu::kDecimalTeamElements)) << n;
    EXPECT_EQ(gpu::same_radices(stages, gpu::radix_list(n)), n <= 1000) << n;
    EXPECT_EQ(gpu::every_radix_divides(gpu::radix_list(n), gpu::kDecimalTeamElements), n <= 1000) << n;
    EXPECT_FALSE(gpu::every_radix_divides(gpu::radix_list(n), gpu::kElementsPerThread)) << n;
    for (const gpu::RowsKind kind : {gpu::RowsKind::forward, gpu::RowsKind::inverse, gpu::RowsKind::real_forward,
                                     gpu::RowsKind::real_inverse}) {
      EXPECT_TRUE(gpu::same_radices(gpu::rows_radix_list(kind, n), gpu::radix_list(n))) << n;
      EXPECT_TRUE(gpu::same_radices(gpu::rows_radix_list(kind, n, gpu::kDecimalTeamElements), stages)) << n;
    }
    for (const Transform t : kAllTransforms) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      for (const bool in_place : {false, true}) {
        const PlanSpec spec{real ? 2 * half_or_n : half_or_n, 7, t, in_place};
        SCOPED_TRACE(test::transform_name(t) + std::string(" n=") + std::to_string(spec.n) +
                     (in_place ? " in place" : ""));
        // The planner's rule (default_rows_elements_per_thread) and the option alike.
        for (const gpu::PlannerOptions& options : {gpu::PlannerOptions{}, decimal}) {
          const PlanLayout layout = gpu::make_plan_layout(spec, options);
          ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
          gpu::RowsPassDesc d;
          ASSERT_TRUE(gpu::rows_pass_of(layout.steps[0].pass, d)) << layout.algorithm;
          EXPECT_EQ(d.n, n);
          EXPECT_EQ(d.elements_per_thread, gpu::kDecimalTeamElements);
          EXPECT_EQ(gpu::rows_per_block(n, d.kind, d.elements_per_thread), 4000 / n);
          EXPECT_TRUE(gpu::same_radices(gpu::pass_radices(layout.steps[0].pass), stages));
          EXPECT_EQ(gpu::rows_block_threads(n, d.kind, d.elements_per_thread), 400);
          EXPECT_EQ(gpu::launch_shared_bytes(layout.steps[0]), gpu::rows_shared_bytes(n, d.kind, d.elements_per_thread));
          EXPECT_NE(layout.algorithm.find(", 10 per thread"), std::string::npos) << layout.algorithm;
        }

        const PlanLayout layout = gpu::make_plan_layout(spec, decimal);
        const PlanLayout plain = gpu::make_plan_layout(spec, plain_rows);
        ASSERT_EQ(plain.steps.size(), 1u) << plain.algorithm;
        gpu::RowsPassDesc plain_desc;
        EXPECT_FALSE(gpu::rows_pass_of(plain.steps[0].pass, plain_desc));
        ASSERT_TRUE(gpu::plain_rows_pass(plain.steps[0].pass, plain_desc));
        gpu::RowsPassDesc d;
        ASSERT_TRUE(gpu::rows_pass_of(layout.steps[0].pass, d));
        EXPECT_EQ(plain_desc.kind, d.kind);
        EXPECT_TRUE(gpu::plain_rows_kernel_takes(plain.steps[0].pass, plain_desc.kind));
        EXPECT_TRUE(gpu::same_radices(gpu::pass_radices(plain.steps[0].pass), gpu::radix_list(n)));
        EXPECT_EQ(plain.algorithm.find("per thread"), std::string::npos) << plain.algorithm;
      }
    }
  }
  for (const gpu::RowsKind kind : {gpu::RowsKind::forward, gpu::RowsKind::inverse, gpu::RowsKind::real_forward,
                                   gpu::RowsKind::real_inverse}) {
    EXPECT_EQ(gpu::default_rows_elements_per_thread(500, kind), gpu::kDecimalTeamElements);
    EXPECT_EQ(gpu::default_rows_elements_per_thread(1000, kind), gpu::kDecimalTeamElements);
    EXPECT_EQ(gpu::default_rows_elements_per_thread(2000, kind), gpu::kDecimalTeamElements);
    EXPECT_EQ(gpu::default_rows_elements_per_thread(4000, kind), gpu::kDecimalTeamElements);
    EXPECT_EQ(gpu::default_rows_elements_per_thread(8000, kind), gpu::kElementsPerThread);
  }
  expect_width_ignored(gpu::kDecimalTeamElements, {8000, 4096, 8192}, ", 10 per thread");
  gpu::PassDesc thousand = gpu::make_plan_layout({1000, 3, Transform::c2c_forward, false}).steps[0].pass;
  for (const int elements : {gpu::kElementsPerThread, gpu::kWideTeamElements}) {
    thousand.rows_elements_per_thread = elements;
    gpu::RowsPassDesc d;
    EXPECT_FALSE(gpu::rows_pass_of(thousand, d)) << elements;
  }
}

// The shared memory each step's kernel is launched with (the backend launches with
// launch_shared_bytes, and runs a plan on cuFFT where the device allows less than its largest):
// the kernel the backend chooses for the pass, never above what the planner plans for, none for
// the element-wise steps.
TEST(FftPlanHost, LaunchSharedMemory) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 2; n <= 4096; ++n) lengths.push_back(n);
  for (std::size_t n = 8192; n <= (1u << 24); n *= 2) lengths.push_back(n);
  for (const std::size_t n : {9216u, 10007u, 48000u, 65537u, 1000000u}) lengths.push_back(n);
  int four_step = 0;
  int rows = 0;
  int element_wise = 0;
  for (const std::size_t n : lengths) {
    for (const Transform t : kAllTransforms) {
      const PlanLayout layout = gpu::make_plan_layout({n, 3, t, false});
      long long most = 0;
      for (const auto& step : layout.steps) {
        const long long bytes = gpu::launch_shared_bytes(step);
        most = std::max(most, bytes);
        ASSERT_LE(bytes, gpu::kMaxSharedBytesPerBlock) << n << " " << layout.algorithm;
        if (step.kind == gpu::Step::Kind::real_rows || step.kind == gpu::Step::Kind::pair_split) {
          EXPECT_EQ(bytes, 0) << layout.algorithm;
          ++element_wise;
          continue;
        }
        if (step.kind != gpu::Step::Kind::fft_pass) continue;
        const gpu::PassDesc& p = step.pass;
        gpu::FourStepPassDesc d;
        gpu::RowsPassDesc r;
        if (gpu::four_step_pass_of(p, d, gpu::kMaxSharedBytesPerBlock)) {
          EXPECT_EQ(bytes, gpu::four_step_shared_bytes(d.n, gpu::four_step_teams(d.kind, d.n)));
          ++four_step;
        } else if (gpu::rows_pass_of(p, r)) {
          EXPECT_EQ(bytes, gpu::rows_shared_bytes(r.n, r.kind, r.elements_per_thread));
          ++rows;
        } else {
          EXPECT_EQ(bytes, 2LL * p.per_block * p.smem_stride * static_cast<long long>(sizeof(float)));
        }
        // Both planes of every transform the block holds.
        EXPECT_GE(bytes, 2LL * p.n * static_cast<long long>(sizeof(float))) << layout.algorithm;
      }
      EXPECT_EQ(gpu::max_launch_shared_bytes(layout), most);
    }
  }
  EXPECT_GT(four_step, 0);
  EXPECT_GT(rows, 0);
  EXPECT_GT(element_wise, 0);
  // A single pass of 16384 holds its planes in about 131 KB: more than a V100 allows (96 KB).
  const PlanLayout single = gpu::make_plan_layout({16384, 2, Transform::c2c_forward, false});
  EXPECT_GT(gpu::max_launch_shared_bytes(single), 96 * 1024);
}

// The column and row passes of four-steps over powers of two run on the four-step kernel: which
// passes it takes, its kinds and shapes, that its compile-time strides address every element
// where the pass's layouts do, and that its thread maps cover every team and lane once and its
// shared planes do not collide in the banks.
TEST(FftPlanHost, FourStepPasses) {
  constexpr long long kMaxShared = 227 * 1024;
  int taken = 0;
  for (std::size_t n = 1u << 15; n <= (1u << 24); n *= 2) {
    for (const Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c,
                              Transform::c2r}) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      const long long complex_n = static_cast<long long>(real ? n / 2 : n);
      // r2c 2^24: its real rows would be 2048 long, so the plain four-step runs into a buffer
      // of its own and a real rows pass follows (four_step_real).
      const bool real_rows_pass = t == Transform::r2c && n == (1u << 24);
      const PlanLayout layout = gpu::make_plan_layout({n, 3, t, t == Transform::c2c_inverse});
      std::vector<gpu::FourStepKind> kinds;
      for (const auto& step : layout.steps) {
        if (step.kind != gpu::Step::Kind::fft_pass) continue;
        const gpu::PassDesc& p = step.pass;
        gpu::FourStepPassDesc d;
        if (!gpu::four_step_pass_of(p, d, kMaxShared)) continue;
        kinds.push_back(d.kind);
        EXPECT_EQ(d.n, p.n);
        const bool columns = gpu::four_step_columns(d.kind);
        // Columns: n1 = d.n, n2 = inner_count; rows the other way round.
        const long long n1 = columns ? d.n : p.inner_count;
        const long long n2 = columns ? p.inner_count : d.n;
        EXPECT_EQ(n1 * n2, complex_n) << layout.algorithm;
        const gpu::FourStepShape shape = n2 == n1       ? gpu::FourStepShape::square
                                         : n2 == 2 * n1 ? gpu::FourStepShape::wide
                                         : n1 == 2 * n2 ? gpu::FourStepShape::tall
                                         : n2 == 4 * n1 ? gpu::FourStepShape::wide4
                                         : n2 == 8 * n1 ? gpu::FourStepShape::wide8
                                                        : gpu::FourStepShape::tall4;
        EXPECT_EQ(d.shape, shape) << layout.algorithm;
        EXPECT_TRUE(n2 == n1 || n2 == 2 * n1 || n1 == 2 * n2 || n1 == 4 * n2 || n2 == 4 * n1 || n2 == 8 * n1)
            << layout.algorithm;
        EXPECT_TRUE(gpu::has_four_step_shape(d.kind, d.n, d.shape)) << layout.algorithm;
        // Columns four times the rows' length only for r2c's half lengths 2^18 and 2^22
        // (four_step_real); rows four or eight times the columns' length exactly where
        // short_columns_length gives the columns (c2c and c2r's half lengths, not r2c's).
        EXPECT_EQ(n1 == 4 * n2, t == Transform::r2c && (complex_n == (1LL << 18) || complex_n == (1LL << 22)))
            << layout.algorithm;
        const int short_columns =
            t == Transform::r2c ? 0 : gpu::short_columns_length(complex_n, t == Transform::c2r);
        EXPECT_EQ(n2 >= 4 * n1, short_columns != 0) << layout.algorithm;
        if (short_columns != 0) {
          EXPECT_EQ(n1, short_columns) << layout.algorithm;
        }
        // r2c's half lengths split tall rather than wide (the real rows the shorter side).
        EXPECT_TRUE(t == Transform::r2c && !real_rows_pass ? n1 >= n2 : n1 <= n2) << layout.algorithm;
        const int teams = gpu::four_step_teams(d.kind, d.n);
        EXPECT_EQ(p.per_block, teams);
        EXPECT_LE(teams * gpu::team_threads(d.n), gpu::kMaxThreadsPerBlock);
        EXPECT_EQ(p.inner_count % teams, 0);
        EXPECT_LE(gpu::four_step_shared_bytes(d.n, teams), kMaxShared);
        // Every element's address, outer indices 0 and 2.
        for (const long long outer : {0LL, 2LL}) {
          for (int inner = 0; inner < p.inner_count; inner += columns ? 7 : 1) {
            for (int i = 0; i < d.n; ++i) {
              ASSERT_EQ(gpu::four_step_in_offset(d, outer, inner, i),
                        outer * p.in.outer_dist + inner * p.in.inner_dist + i * p.in.elem_stride)
                  << layout.algorithm;
              ASSERT_EQ(gpu::four_step_out_offset(d, outer, inner, i),
                        outer * p.out.outer_dist + inner * p.out.inner_dist + i * p.out.elem_stride)
                  << layout.algorithm;
            }
          }
        }
      }
      // The half-length c2c of real transforms too (r2c 32768 is one pass of 16384). c2c
      // inverse conjugates on load and store; c2r's pre-processing pass has conjugated already;
      // r2c's row pass does the post-processing and c2r's column pass the pre-processing, with
      // no pass of their own.
      std::vector<gpu::FourStepKind> expected{gpu::FourStepKind::columns, gpu::FourStepKind::rows};
      if (t == Transform::c2c_inverse) expected[0] = gpu::FourStepKind::columns_inverse;
      if (t == Transform::c2c_inverse || t == Transform::c2r) expected[1] = gpu::FourStepKind::rows_inverse;
      if (t == Transform::r2c && !real_rows_pass) expected[1] = gpu::FourStepKind::rows_real;
      // c2r fuses at every length here (columns up to 2048, has_real_columns_pass).
      if (t == Transform::c2r) expected[0] = gpu::FourStepKind::columns_real;
      if (real && n == (1u << 15)) expected.clear();
      EXPECT_EQ(kinds, expected) << test::transform_name(t) << " n=" << n << ": " << layout.algorithm;
      if (real_rows_pass) {
        ASSERT_EQ(layout.steps.size(), 3u) << layout.algorithm;
        const gpu::Step& rows = layout.steps.back();
        EXPECT_EQ(rows.kind, gpu::Step::Kind::real_rows) << layout.algorithm;
        EXPECT_EQ(rows.src, gpu::BufferRef::pair_spectra);
        EXPECT_EQ(rows.dst, gpu::BufferRef::output);
        EXPECT_EQ(rows.rows.in_row_dist, complex_n);
        EXPECT_EQ(rows.rows.out_row_dist, complex_n + 1);
        EXPECT_EQ(layout.steps[1].dst, gpu::BufferRef::pair_spectra);
      } else if (real && n > (1u << 15)) {
        EXPECT_EQ(layout.steps.size(), 2u) << layout.algorithm;
        EXPECT_EQ(layout.steps.front().pass.real_step,
                  t == Transform::c2r ? gpu::RealStep::c2r_pre_columns : gpu::RealStep::none)
            << layout.algorithm;
        EXPECT_EQ(layout.steps.back().pass.real_step,
                  t == Transform::r2c ? gpu::RealStep::r2c_post_rows : gpu::RealStep::none)
            << layout.algorithm;
      }
      taken += static_cast<int>(kinds.size());
    }
  }
  EXPECT_EQ(taken, (10 * 2 + 9 * 2) * 2);
  // In-place r2c: input rows of n/2 + 1 complex values, not 32-byte aligned, so the column
  // pass stays on the pass kernel; the real row pass reads the aligned scratch.
  {
    const PlanLayout layout = gpu::make_plan_layout({1u << 17, 2, Transform::r2c, true});
    ASSERT_EQ(layout.steps.size(), 2u) << layout.algorithm;
    gpu::FourStepPassDesc d;
    EXPECT_FALSE(gpu::four_step_pass_of(layout.steps[0].pass, d, kMaxShared));
    ASSERT_TRUE(gpu::four_step_pass_of(layout.steps[1].pass, d, kMaxShared));
    EXPECT_EQ(d.kind, gpu::FourStepKind::rows_real);
  }
  // Not taken: halves of other lengths, Bluestein's passes (chirps), paired real rows, halves
  // beyond kFourStepMaxLength, and block sizes the tuning mode chose instead of the default.
  const auto any_four_step_pass = [&](const PlanSpec& spec, const gpu::PlannerOptions& options) {
    for (const auto& step : gpu::make_plan_layout(spec, options).steps) {
      gpu::FourStepPassDesc d;
      if (step.kind == gpu::Step::Kind::fft_pass && gpu::four_step_pass_of(step.pass, d, kMaxShared)) {
        return true;
      }
    }
    return false;
  };
  for (const PlanSpec& spec : {PlanSpec{48000, 2, Transform::c2c_forward, false},
                               PlanSpec{10007, 2, Transform::c2c_forward, false},
                               PlanSpec{65537, 2, Transform::r2c, false},
                               PlanSpec{59049, 2, Transform::r2c, false},
                               PlanSpec{16384, 2, Transform::c2c_forward, false}}) {
    EXPECT_FALSE(any_four_step_pass(spec, {})) << test::transform_name(spec.transform) << " n=" << spec.n;
  }
  // Four-steps of other lengths keep the planner's blocking (8192 elements per block).
  for (const std::size_t n : {48000u, 1000000u}) {
    const PlanLayout layout = gpu::make_plan_layout({n, 2, Transform::c2c_forward, false});
    for (const auto& step : layout.steps) {
      EXPECT_LE(step.pass.per_block * static_cast<long long>(step.pass.n), 8192) << layout.algorithm;
    }
  }
  gpu::PlannerOptions other_blocks;
  other_blocks.column_elements_per_block = 16384;
  other_blocks.row_elements_per_block = 16384;
  EXPECT_FALSE(any_four_step_pass({1u << 16, 2, Transform::c2c_forward, false}, other_blocks));

  // The thread maps: every (team, lane) once. Team major: a warp holds min(teams, 32) teams on
  // neighbouring threads (neighbouring columns in memory), their lanes touching neighbouring
  // elements (lane i reads i) in 32 distinct banks. Lane major: neighbouring lanes of a team on
  // neighbouring threads.
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::columns, 512), 16);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::columns, 1024), 16);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::columns, 2048), 8);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::columns, 4096), 4);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::rows, 2048), 4);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::rows_real, 128), 64);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::rows_real, 256), 64);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::rows_real, 1024), 16);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::rows_real, 2048), 8);
  for (int n = gpu::kFourStepMinLength; n <= gpu::kFourStepMaxLength; n *= 2) {
    for (const int teams : {gpu::four_step_teams(n), gpu::four_step_teams(gpu::FourStepKind::columns, n),
                            gpu::four_step_teams(gpu::FourStepKind::rows_real, n)}) {
      const int threads = gpu::team_threads(n);
      const int team_floats = gpu::four_step_team_floats(n, teams);
      EXPECT_GE(team_floats, gpu::smem_pad(n - 1) + 1);
      std::set<std::pair<int, int>> team_major;
      std::set<std::pair<int, int>> lane_major;
      for (int warp = 0; warp < teams * threads / 32; ++warp) {
        std::set<int> banks;
        for (int w = 0; w < 32; ++w) {
          const int tid = warp * 32 + w;
          int team;
          int lane;
          gpu::four_step_team_major(tid, teams, team, lane);
          ASSERT_TRUE(team >= 0 && team < teams && lane >= 0 && lane < threads) << n;
          team_major.emplace(team, lane);
          EXPECT_EQ(team, (warp * 32 + w) % teams) << n;
          banks.insert((team * team_floats + gpu::smem_pad(lane)) % 32);
          gpu::four_step_lane_major(tid, threads, team, lane);
          ASSERT_TRUE(team >= 0 && team < teams && lane >= 0 && lane < threads) << n;
          lane_major.emplace(team, lane);
          if (w > 0 && lane > 0) {
            int previous_team;
            int previous_lane;
            gpu::four_step_lane_major(tid - 1, threads, previous_team, previous_lane);
            EXPECT_EQ(previous_team, team) << n;
            EXPECT_EQ(previous_lane, lane - 1) << n;
          }
        }
        EXPECT_EQ(banks.size(), 32u) << "n=" << n << " warp " << warp;
      }
      EXPECT_EQ(team_major.size(), static_cast<std::size_t>(teams * threads)) << n;
      EXPECT_EQ(lane_major.size(), static_cast<std::size_t>(teams * threads)) << n;
    }
  }
}

// The four-step twiddles in two factors (twiddle_grid, pass_twiddle) and where the planner
// splits them (four_step_twiddle_split).
TEST(FftPlanHost, FourStepTwiddlesInTwoFactors) {
  // pass_twiddle over twiddle_grid's table: exp(-2 pi i inner k / n) for every k and inner, for
  // splits that divide the count, that do not, and the whole grid (split = count).
  struct Case {
    long long n, count, inner_count, split;
  };
  for (const Case c : {Case{4096, 64, 64, 4}, Case{4096, 64, 64, 64}, Case{6000, 40, 150, 7},
                       Case{1 << 20, 1024, 1024, 64}, Case{1 << 22, 4096, 1024, 256}}) {
    const std::vector<gpu::Cf> table = gpu::twiddle_grid(c.n, c.count, c.inner_count, c.split);
    const long long highs = (c.count + c.split - 1) / c.split;
    ASSERT_EQ(static_cast<long long>(table.size()), (c.split + highs - 1) * c.inner_count);
    double worst = 0;
    for (long long k = 0; k < c.count; ++k) {
      for (long long inner = 0; inner < c.inner_count; inner += 1 + c.inner_count / 97) {
        const gpu::Cf w = gpu::pass_twiddle(table.data(), static_cast<int>(c.split), c.inner_count,
                                            static_cast<int>(k), inner);
        const double angle = -2.0 * M_PI * static_cast<double>((inner * k) % c.n) / static_cast<double>(c.n);
        worst = std::max(worst, std::abs(std::complex<double>(w.re, w.im) - std::polar(1.0, angle)));
      }
    }
    // Two roots rounded to float and their product: a few float epsilons at most.
    EXPECT_LT(worst, 2.5e-7) << c.n << " " << c.count << "x" << c.inner_count << " split " << c.split;
  }
  // Kernels compiled for lengths below 1024 leave the two-factor case out (may_split_twiddles),
  // so shorter passes never split, however large the grid.
  EXPECT_EQ(gpu::four_step_twiddle_split(512, 1 << 13), 512);
  EXPECT_EQ(gpu::four_step_twiddle_split(1024, 1 << 10), 1024);
  EXPECT_EQ(gpu::four_step_twiddle_split(1024, 1 << 11), 64);
  EXPECT_EQ(gpu::four_step_twiddle_split(1536, 1 << 11), 1536);
  for (int n = gpu::kFourStepMinLength; n <= gpu::kFourStepMaxLength; n *= 2) {
    EXPECT_EQ(gpu::may_split_twiddles(n), gpu::four_step_twiddle_split(n, 1 << 16) != n) << n;
  }
  EXPECT_THROW(gpu::twiddle_grid(64, 8, 8, 0), std::invalid_argument);
  EXPECT_THROW(gpu::twiddle_grid(64, 8, 8, 9), std::invalid_argument);
  // The planner splits the four-step column passes of lengths with a four-step kernel at the
  // kernel's team threads where the grid exceeds 2^20 values (four_step_pass_of requires the
  // kernel's split), others not at all.
  struct Planned {
    std::size_t n;
    int split;
  };
  for (const Planned c : {Planned{1 << 20, 0}, Planned{1 << 21, 1024 / 16}, Planned{1 << 24, 4096 / 16},
                          Planned{48000 * 64, 0}}) {
    const PlanLayout layout = gpu::make_plan_layout({c.n, 2, Transform::c2c_forward, false});
    ASSERT_EQ(layout.steps.size(), 2u) << layout.algorithm;
    const gpu::PassDesc& columns = layout.steps[0].pass;
    EXPECT_EQ(columns.pass_tw_split, c.split == 0 ? columns.n : c.split) << layout.algorithm;
    EXPECT_EQ(columns.pass_tw_split, gpu::four_step_twiddle_split(columns.n, columns.inner_count));
  }
}

// The real rows pass's twiddles in two factors (real_rows_twiddles, real_rows_twiddle):
// w_{2h}^k for every k <= h, the table about 2 sqrt(h) values, the plans' rows passes using it.
TEST(FftPlanHost, RealRowsTwiddlesInTwoFactors) {
  for (const long long h : {1LL, 2LL, 3LL, 7LL, 48LL, 63LL, 64LL, 65LL, 50000LL, (1LL << 20) - 1, 1LL << 20,
                            (1LL << 24) + 3}) {
    const int bits = gpu::real_rows_low_bits(h);
    // The smallest power of two whose square covers the h + 1 values.
    EXPECT_GE(1LL << (2 * bits), h + 1) << h;
    if (bits > 0) {
      EXPECT_LT(1LL << (2 * bits - 2), h + 1) << h;
    }
    const std::vector<gpu::Cf> table = gpu::real_rows_twiddles(h, bits);
    ASSERT_EQ(static_cast<long long>(table.size()), (1LL << bits) + (h >> bits) + 1) << h;
    gpu::RealRowsDesc r;
    r.h = static_cast<int>(h);
    r.real_tw = table.data();
    r.tw_low_bits = bits;
    double worst = 0;
    for (long long k = 0; k <= h; k += 1 + h / 100003) {
      const gpu::Cf w = gpu::real_rows_twiddle(r, static_cast<int>(k));
      const double angle = -M_PI * static_cast<double>(k) / static_cast<double>(h);
      worst = std::max(worst, std::abs(std::complex<double>(w.re, w.im) - std::polar(1.0, angle)));
    }
    // The last k too, where the high factor is the table's last entry.
    const gpu::Cf last = gpu::real_rows_twiddle(r, static_cast<int>(h));
    worst = std::max(worst, std::abs(std::complex<double>(last.re, last.im) - std::complex<double>(-1.0, 0.0)));
    // Two roots rounded to float and their product: a few float epsilons at most.
    EXPECT_LT(worst, 2.5e-7) << h;
  }
  // The plans' real rows passes (r2c 2^24 and 2^25 after their half lengths, c2r 2^25 before)
  // carry such tables, of the sizes above.
  for (const PlanSpec spec : {PlanSpec{1u << 24, 1, Transform::r2c, false}, PlanSpec{1u << 25, 1, Transform::r2c, false},
                              PlanSpec{1u << 25, 1, Transform::c2r, false}}) {
    const PlanLayout layout = gpu::make_plan_layout(spec);
    int found = 0;
    for (const auto& step : layout.steps) {
      if (step.kind != gpu::Step::Kind::real_rows) continue;
      ++found;
      const long long h = static_cast<long long>(spec.n / 2);
      EXPECT_EQ(step.rows.h, h);
      EXPECT_EQ(step.rows.tw_low_bits, gpu::real_rows_low_bits(h));
      ASSERT_GE(step.real_tw, 0);
      EXPECT_EQ(layout.tables[static_cast<std::size_t>(step.real_tw)].size(),
                gpu::real_rows_twiddles(h, step.rows.tw_low_bits).size());
    }
    EXPECT_EQ(found, 1) << layout.algorithm;
  }
}

// r2c over a four-step half length h = n1 x n2: the row pass's blocks hold rows r and their
// mirrors (n1 - r) mod n1, every row once, the partner team's element four_step_real_mirror
// holding Z[h - k] (c2r's column pass the same over the n2 columns); the plans, run block by
// block by the host executor, against FFTW; with blockings of the tuning mode, the separate
// real rows pass instead.
TEST(FftPlanHost, FourStepRealRows) {
  // Lines (rows, or columns of the c2r) of `length` elements, `count` of them, h = count x
  // length, `teams` per block.
  const auto check_pairs = [](int count, int length, int teams) {
    const long long h = static_cast<long long>(count) * length;
    std::vector<int> seen(static_cast<std::size_t>(count), 0);
    for (int group_first = 0; group_first < count; group_first += teams) {
      for (int t = 0; t < teams; ++t) {
        const int line = gpu::four_step_real_row(group_first, t, teams, count);
        ASSERT_TRUE(line >= 0 && line < count) << count << "x" << length;
        ++seen[static_cast<std::size_t>(line)];
        // Both halves of the block take runs of neighbouring lines (but for line count/2).
        if (t % (teams / 2) > 0 && group_first > 0) {
          EXPECT_EQ(gpu::four_step_real_row(group_first, t - 1, teams, count), line - 1);
        }
        const int partner_team = gpu::four_step_real_partner_team(t, line, teams, count);
        const int partner = gpu::four_step_real_row(group_first, partner_team, teams, count);
        EXPECT_EQ(partner, (count - line) % count) << count << "x" << length << " line " << line;
        for (int k = 0; k < length; ++k) {
          const long long mirror = partner + static_cast<long long>(count) * gpu::four_step_real_mirror(line, k, length);
          ASSERT_EQ((line + static_cast<long long>(count) * k + mirror) % h, 0)
              << count << "x" << length << " line " << line << " k " << k;
        }
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), count) << count << "x" << length;
  };
  for (int n = gpu::kFourStepMinLength; n <= gpu::kFourStepMaxLength; n *= 2) {
    const int row_teams = gpu::four_step_teams(gpu::FourStepKind::rows_real, n);
    const int column_teams = gpu::four_step_teams(gpu::FourStepKind::columns_real, n);
    EXPECT_EQ(row_teams, std::min(64, gpu::kMaxThreadsPerBlock / gpu::team_threads(n)));
    EXPECT_LE(column_teams * gpu::team_threads(n), gpu::kMaxThreadsPerBlock);
    // c2r's column pass takes the pre-processing for columns of up to 2048: blocks of 512
    // threads (1024 at 2048), at least 8 columns.
    EXPECT_EQ(gpu::has_real_columns_pass(n), n <= 2048) << n;
    if (gpu::has_real_columns_pass(n)) {
      const int threads = n < 2048 ? 512 : 1024;
      EXPECT_EQ(column_teams * gpu::team_threads(n), threads) << n;
      EXPECT_EQ(column_teams, std::max(std::min(16, threads / gpu::team_threads(n)), gpu::four_step_teams(n))) << n;
    }
    for (const int count : {n / 2, n, 2 * n, 4 * n}) check_pairs(count, n, row_teams);  // rows of n2 = n
    for (const int count : {n, 2 * n}) check_pairs(count, n, column_teams);             // columns of n1 = n
  }
  // The exchange of the real rows and columns: the mirror of element e sits at the same slot of
  // the partner's plane for every line (but line 0's element 0, which pairs with itself or
  // X[h]), and the twiddles from two per butterfly of radix R are the table's within float
  // rounding. Lines of length n, `count` of them.
  const auto check_exchange = [](int n, int count, int radix) {
    const long long h = static_cast<long long>(n) * count;
    const int butterflies = n / radix;
    std::vector<gpu::Cf> table(static_cast<std::size_t>(count + n + 1));  // four_step_real_twiddle's
    for (int k = 0; k <= count + n; ++k) {
      const double turns = (k < count ? k : static_cast<double>(count) * (k - count)) / (2.0 * static_cast<double>(h));
      table[static_cast<std::size_t>(k)] = gpu::Cf{static_cast<float>(std::cos(2 * M_PI * turns)),
                                                   static_cast<float>(-std::sin(2 * M_PI * turns))};
    }
    double worst = 0.0;
    for (int line = 0; line < count; ++line) {
      const int partner = (count - line) % count;
      for (int e = 0; e < n; ++e) {
        const int mirror = gpu::four_step_real_mirror(line, e, n);
        if (line != 0 || e != 0) {
          ASSERT_EQ(gpu::four_step_real_slot(partner, mirror), gpu::four_step_real_mirror_slot(n, e))
              << n << " line " << line << " e " << e;
        }
        const int j = e % butterflies;
        const int r = e / butterflies;
        const gpu::Cf w_even = gpu::four_step_real_twiddle(table.data(), line, j, count);
        const gpu::Cf w_odd = gpu::four_step_real_twiddle(table.data(), line, j + butterflies, count);
        const gpu::Cf w = gpu::real_butterfly_twiddle(radix, w_even, w_odd, r);
        const double angle = -M_PI * static_cast<double>(line + static_cast<long long>(count) * e) / static_cast<double>(h);
        worst = std::max(worst, std::hypot(w.re - std::cos(angle), w.im - std::sin(angle)));
      }
    }
    EXPECT_LT(gpu::four_step_real_mirror_slot(n, 0), gpu::team_plane_floats(n)) << n;
    EXPECT_LT(worst, 3e-7) << n << " x " << count;
  };
  // Whole rows (one line: TeamFft's real post- and pre-processing) of other radices, odd ones too.
  for (const auto& [length, radix] : {std::pair{96, 3}, std::pair{500, 5}, std::pair{112, 7}, std::pair{64, 4},
                                      std::pair{2, 2}}) {
    const int n = length;  // a variable, not a binding: lambdas capture it (clang 14)
    const int butterflies = n / radix;
    double worst = 0.0;
    const auto w_of = [&](int k) {
      const double angle = -M_PI * k / n;
      return gpu::Cf{static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
    };
    for (int k = 0; k < n; ++k) {
      const int j = k % butterflies;
      const int r = k / butterflies;
      const gpu::Cf w_even = w_of(j);
      const gpu::Cf w_odd = w_of(j + butterflies);
      const gpu::Cf w = gpu::real_butterfly_twiddle(radix, w_even, w_odd, r);
      const double angle = -M_PI * k / n;
      worst = std::max(worst, std::hypot(w.re - std::cos(angle), w.im - std::sin(angle)));
    }
    EXPECT_LT(worst, 3e-7) << n << " radix " << radix;
  }
  EXPECT_TRUE(gpu::has_unit_roots(10));  // the first stage of the decimal real columns of 500
  EXPECT_FALSE(gpu::has_unit_roots(15));
  EXPECT_FALSE(gpu::has_unit_roots(21));
  for (int n = gpu::kFourStepMinLength; n <= gpu::kFourStepMaxLength; n *= 2) {
    const gpu::RadixList radices = gpu::radix_list(n);
    check_exchange(n, n / 2, radices.radix[radices.count - 1]);  // rows, the last stage's butterflies
    check_exchange(n, 2 * n, radices.radix[radices.count - 1]);
    if (gpu::has_real_columns_pass(n)) check_exchange(n, 2 * n, radices.radix[0]);  // columns, the first's
  }
  std::mt19937_64 rng(31);
  for (const std::size_t n : {1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23}) {
    for (const bool in_place : {false, true}) {
      for (const Transform t : {Transform::r2c, Transform::c2r}) {
        const PlanSpec spec{n, 3, t, in_place};
        std::string algorithm;
        EXPECT_LE(host_error(spec, rng, &algorithm), kHostTolerance) << n << " " << algorithm;
        EXPECT_NE(algorithm.find(t == Transform::r2c ? "post-processing in the row pass"
                                                     : "pre-processing in the column pass"),
                  std::string::npos)
            << algorithm;
      }
    }
  }
  // The decimal real rows (rows of 500, has_decimal_four_step_kernel): over any count of rows
  // that their blocks divide, the half length n1 x 500 with n1 a compiled length.
  const int decimal_teams = gpu::four_step_teams(gpu::FourStepKind::rows_real, 500);
  EXPECT_EQ(decimal_teams * gpu::four_step_team_threads(500), 400);
  EXPECT_EQ(gpu::four_step_launch_threads(500), 400);
  for (const int count : {16, 48, 96, 192}) check_pairs(count, 500, decimal_teams);
  check_exchange(500, 48, 5);   // rows: the last stage's radix
  check_exchange(500, 96, 5);
  check_exchange(500, 48, 10);  // columns: the first's
  check_exchange(500, 1000, 10);
  EXPECT_EQ(gpu::four_step_teams(gpu::FourStepKind::columns_real, 500), decimal_teams);
  EXPECT_TRUE(gpu::has_real_columns_pass(500));
  EXPECT_FALSE(gpu::has_decimal_four_step_kernel(1000));  // eight teams of 100 threads: 800
  for (const std::size_t n : {48000u, 96000u, 1000000u}) {
    for (const bool in_place : {false, true}) {
      for (const Transform t : {Transform::r2c, Transform::c2r}) {
        const bool r2c = t == Transform::r2c;
        const PlanSpec spec{n, n < 1000000 ? 3u : 1u, t, in_place};
        const PlanLayout decimal = gpu::make_plan_layout(spec, {});
        const std::string lines = std::to_string(n / 1000);
        EXPECT_EQ(decimal.algorithm.rfind(r2c ? "four-step " + lines + "x500, real via half length, post-processing in the row pass"
                                              : "four-step 500x" + lines + ", real via half length, pre-processing in the column pass",
                                          0),
                  0u)
            << decimal.algorithm;
        const gpu::Step& real_pass = r2c ? decimal.steps.back() : decimal.steps.front();
        gpu::FourStepPassDesc d;
        ASSERT_TRUE(gpu::four_step_pass_of(real_pass.pass, d, gpu::kMaxSharedBytesPerBlock)) << decimal.algorithm;
        EXPECT_EQ(d.kind, r2c ? gpu::FourStepKind::rows_real : gpu::FourStepKind::columns_real);
        EXPECT_EQ(d.shape, gpu::FourStepShape::decimal);
        EXPECT_EQ(d.other_side, static_cast<int>(n / 1000));
        EXPECT_EQ(real_pass.pass.threads, 400);
        std::string algorithm;
        EXPECT_LE(host_error(spec, rng, &algorithm), kHostTolerance) << n << " " << algorithm;
      }
    }
  }
  // 100000: its half length's rows (100 of 500) do not fill blocks of 8, so the passes of the
  // half length and a real rows pass, as before.
  const PlanLayout undivided = gpu::make_plan_layout(PlanSpec{100000, 3, Transform::r2c, false}, {});
  EXPECT_EQ(undivided.algorithm.find("x500"), std::string::npos) << undivided.algorithm;
  EXPECT_EQ(undivided.steps.back().kind, gpu::Step::Kind::real_rows) << undivided.algorithm;
  const PlanLayout undivided_c2r = gpu::make_plan_layout(PlanSpec{100000, 3, Transform::c2r, false}, {});
  EXPECT_EQ(undivided_c2r.steps.front().kind, gpu::Step::Kind::real_rows) << undivided_c2r.algorithm;
  gpu::PlannerOptions other_blocks;
  other_blocks.row_elements_per_block = 16384;
  other_blocks.column_elements_per_block = 4096;
  const PlanSpec r2c{1u << 16, 3, Transform::r2c, false};
  PlanLayout layout = gpu::make_plan_layout(r2c, other_blocks);
  EXPECT_EQ(layout.steps.back().kind, gpu::Step::Kind::real_rows) << layout.algorithm;
  EXPECT_LE(host_error(r2c, rng, nullptr, other_blocks), kHostTolerance) << layout.algorithm;
  const PlanSpec c2r{1u << 16, 3, Transform::c2r, false};
  layout = gpu::make_plan_layout(c2r, other_blocks);
  EXPECT_EQ(layout.steps.front().kind, gpu::Step::Kind::real_rows) << layout.algorithm;
  EXPECT_LE(host_error(c2r, rng, nullptr, other_blocks), kHostTolerance) << layout.algorithm;
}

// r2c and c2r of lengths without the half-length path take two real rows per complex transform,
// in every algorithm (Stockham, Bluestein in one block and in three passes, four-step; r2c
// splits the pairs' spectra in the store of one pass or in a split pass). Odd and even batches,
// in and out of place, and an execution of fewer rows than the plan's batch: the rows not asked
// for are not written.
TEST(FftPlanHost, PairedRealRows) {
  std::mt19937_64 rng(77);
  for (const Transform t : {Transform::r2c, Transform::c2r}) {
    for (const std::size_t n : {45u, 63u, 67u, 4095u, 4097u, 10007u, 59049u}) {
      for (const unsigned batch : {3u, 4u}) {
        for (const bool in_place : {false, true}) {
          const PlanSpec spec{n, batch, t, in_place};
          const PlanLayout layout = gpu::make_plan_layout(spec);
          EXPECT_TRUE(layout.paired_rows) << layout.algorithm;
          EXPECT_NE(layout.algorithm.find("two real rows"), std::string::npos) << layout.algorithm;
          const bool split_pass = t == Transform::r2c && n >= 10007;
          EXPECT_EQ(layout.steps.back().kind == gpu::Step::Kind::pair_split, split_pass)
              << layout.algorithm;
          EXPECT_LE(host_error(spec, rng), kHostTolerance)
              << test::transform_name(t) << " n=" << n << " batch=" << batch
              << (in_place ? " in place " : " ") << layout.algorithm;
        }
        // Fewer rows than the batch: the last row of the output stays poisoned.
        const PlanSpec spec{n, batch, t, false};
        const PlanLayout layout = gpu::make_plan_layout(spec);
        const long long in_floats = test::input_row_floats(spec);
        const long long out_floats = test::output_row_floats(spec);
        const std::vector<float> input = test::make_input(spec, in_floats, batch, rng);
        std::vector<float> output(static_cast<std::size_t>(out_floats) * batch,
                                  std::numeric_limits<float>::quiet_NaN());
        gpu::execute_on_host(layout, input.data(), output.data(), batch - 1);
        for (unsigned row = 0; row + 1 < batch; ++row) {
          test::ErrorSum sum;
          sum.add(output.data() + row * out_floats,
                  test::reference_row(spec, input.data() + row * in_floats));
          EXPECT_LE(sum.relative(), kHostTolerance) << "n=" << n << " row " << row;
        }
        const auto last = output.begin() + (batch - 1) * out_floats;
        EXPECT_TRUE(std::all_of(last, output.end(), [](float v) { return std::isnan(v); }))
            << test::transform_name(t) << " n=" << n << ": row " << batch - 1 << " written";
      }
    }
  }
}

// Cluster passes (2^15 ... 2^17, and the half lengths of real transforms of twice that), when
// the options ask for them: the shape follows the preferred block length where n / M is a
// cluster size.
TEST(FftPlanHost, ClusterPasses) {
  std::mt19937_64 rng(2026);
  for (const int preferred : {8192, 16384}) {
    gpu::PlannerOptions options;
    options.cluster_block_length = preferred;
    for (const Transform t : kAllTransforms) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      for (const long long half_or_n : {1ll << 15, 1ll << 16, 1ll << 17}) {
        const long long m = half_or_n / preferred <= 8 ? preferred : 16384;
        const std::string shape =
            "cluster " + std::to_string(half_or_n / m) + "x" + std::to_string(m);
        for (const bool in_place : {false, true}) {
          const PlanSpec spec{static_cast<std::size_t>(real ? 2 * half_or_n : half_or_n), 2, t, in_place};
          const PlanLayout layout = gpu::make_plan_layout(spec, options);
          ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
          EXPECT_EQ(layout.algorithm.rfind(shape, 0), 0u) << layout.algorithm << ", expected " << shape;
          std::string algorithm;
          EXPECT_LE(host_error(spec, rng, &algorithm, options), kHostTolerance)
              << test::transform_name(t) << " n=" << spec.n << (in_place ? " in place " : " ")
              << algorithm;
        }
      }
    }
  }
  // Off by default; lengths beyond 8 blocks or with no cluster size as n / M keep the four-step.
  EXPECT_EQ(gpu::make_plan_layout({1 << 16, 1, Transform::c2c_forward, false}).algorithm.rfind("four-step", 0), 0u);
  gpu::PlannerOptions on;
  on.cluster_block_length = 16384;
  EXPECT_EQ(gpu::make_plan_layout({1 << 18, 1, Transform::c2c_forward, false}, on).algorithm.rfind("four-step", 0), 0u);
  EXPECT_EQ(gpu::make_plan_layout({3 * 65536, 2, Transform::r2c, false}, on).algorithm.rfind("four-step", 0), 0u);
}

// The row-per-thread direct kernel's division of a value index by a row's length: exact for
// every index its copy loops reach (below 2^16) and every divisor up to a row's most values.
TEST(FftPlanHost, DirectRowsSmallDivisor) {
  for (unsigned d = 1; d <= 2 * gpu::kMaxDirectThreadLength + 2; ++d) {
    const gpu::SmallDivisor divisor(d);
    for (unsigned c = 0; c < (1u << 16); ++c) ASSERT_EQ(divisor.quotient(c), c / d) << c << " / " << d;
  }
  for (unsigned d : {1000u, 4099u, 65535u}) {
    const gpu::SmallDivisor divisor(d);
    for (unsigned c = 0; c < (1u << 16); ++c) ASSERT_EQ(divisor.quotient(c), c / d) << c << " / " << d;
  }
}

// The direct DFT at every length it takes, every kind, in and out of place: sums in double and
// one rounding to float, so no row's relative error is above the float unit roundoff 2^-24
// (every FFT in float of these lengths but the shortest is, in some row). And the lengths the
// planner's rule gives it, the option's overrides, and a partial batch.
TEST(FftPlanHost, DirectDft) {
  constexpr double kUnitRoundoff = 5.9604644775390625e-08;  // 2^-24
  std::mt19937_64 rng(61);
  gpu::PlannerOptions on;
  on.direct_dft = 1;
  int lengths = 0;
  for (Transform t : kAllTransforms) {
    const bool real = t == Transform::r2c || t == Transform::c2r;
    for (std::size_t n = t == Transform::c2r ? 2 : 1; n <= 2 * gpu::kMaxDirectLength + 2; ++n) {
      const int h = gpu::direct_dft_length(static_cast<long long>(n), real);
      const PlanSpec spec{n, 5, t, n % 3 == 2};
      const PlanLayout layout = gpu::make_plan_layout(spec, on);
      if (h == 0) {
        EXPECT_NE(layout.steps[0].kind, gpu::Step::Kind::direct_dft) << test::transform_name(t) << " n=" << n;
        continue;
      }
      EXPECT_EQ(h, real && n % 2 == 0 ? static_cast<int>(n / 2) : static_cast<int>(n));
      ASSERT_EQ(layout.steps.size(), 1u);
      ASSERT_EQ(layout.steps[0].kind, gpu::Step::Kind::direct_dft);
      EXPECT_EQ(layout.algorithm.rfind("direct DFT in double", 0), 0u) << layout.algorithm;
      const gpu::DirectDftDesc& d = layout.steps[0].direct;
      if (gpu::direct_thread_rows(h)) {
        EXPECT_EQ(d.rows_per_block, gpu::kDirectRowThreads);
        const int stride = gpu::direct_thread_row_stride(d);
        EXPECT_EQ(stride % 4, 2);
        EXPECT_GE(stride, std::max(gpu::direct_in_floats(d), gpu::direct_out_floats(d)));
      } else {
        EXPECT_LE(d.rows_per_block * gpu::direct_pairs(h), gpu::kDirectPairsPerBlock);
      }
      EXPECT_LE(gpu::launch_shared_bytes(layout.steps[0]), 48 * 1024);  // no opt-in needed
      const double err = host_error(spec, rng, nullptr, on);
      EXPECT_LE(err, kUnitRoundoff) << test::transform_name(t) << " n=" << n << (spec.in_place ? " in place" : "");
      ++lengths;
    }
  }
  EXPECT_EQ(lengths, 64 + 64 + 96 + 95);  // c2c both ways; r2c 64 even, 32 odd; c2r from 2

  // The rule: lengths with a prime factor above 13 (else Bluestein or a stage of radix
  // 17..31), the complex length of real rows of even n being half of it, smooth lengths up to 30
  // but where the FFT was faster,
  // and longer ones where the FFT was less accurate than cuFFT or the direct DFT faster.
  for (const auto& [n, t, direct] : {std::tuple{17, Transform::c2c_forward, true},
                                     std::tuple{61, Transform::c2c_inverse, true},
                                     std::tuple{62, Transform::c2r, true},    // odd half, 31
                                     std::tuple{122, Transform::r2c, true},   // half 61
                                     std::tuple{23, Transform::r2c, true},    // odd, 23
                                     std::tuple{3, Transform::c2c_forward, true},
                                     std::tuple{16, Transform::c2c_forward, true},
                                     std::tuple{30, Transform::c2r, true},
                                     std::tuple{27, Transform::r2c, true},
                                     std::tuple{2, Transform::c2c_inverse, false},  // the FFT faster
                                     std::tuple{24, Transform::c2c_forward, false},
                                     std::tuple{8, Transform::r2c, false},
                                     std::tuple{16, Transform::c2r, true},  // the row per thread faster
                                     std::tuple{11, Transform::c2c_inverse, true},
                                     std::tuple{32, Transform::c2c_forward, false},  // above 30
                                     std::tuple{32, Transform::r2c, true},  // the FFT less accurate
                                     std::tuple{108, Transform::r2c, true},  // the direct DFT faster
                                     std::tuple{110, Transform::r2c, false},
                                     std::tuple{110, Transform::c2r, true},
                                     std::tuple{112, Transform::c2r, false},
                                     std::tuple{60, Transform::c2c_forward, false},
                                     std::tuple{64, Transform::c2r, false},
                                     std::tuple{67, Transform::c2c_forward, false},  // above 64
                                     std::tuple{134, Transform::r2c, false},         // half 67
                                     std::tuple{127, Transform::c2r, false}}) {      // odd, above 64
    const PlanSpec spec{static_cast<std::size_t>(n), 1, t, false};
    EXPECT_EQ(gpu::direct_dft_rule(n, t), direct) << test::transform_name(t) << " n=" << n;
    EXPECT_EQ(gpu::make_plan_layout(spec).steps[0].kind == gpu::Step::Kind::direct_dft, direct)
        << test::transform_name(t) << " n=" << n << ": " << gpu::make_plan_layout(spec).algorithm;
  }
  gpu::PlannerOptions off;
  off.direct_dft = -1;
  EXPECT_EQ(gpu::make_plan_layout({61, 1, Transform::c2c_forward, false}, off).algorithm.find("stockham"), 0u);
  EXPECT_EQ(gpu::make_plan_layout({16, 1, Transform::c2c_forward, false}, off).algorithm.find("stockham"), 0u);
  EXPECT_EQ(gpu::make_plan_layout({64, 1, Transform::c2c_forward, false}, on).steps[0].kind,
            gpu::Step::Kind::direct_dft);
  gpu::PlannerOptions bad;
  bad.direct_dft = 2;
  EXPECT_THROW(gpu::make_plan_layout({16, 1, Transform::c2c_forward, false}, bad), std::invalid_argument);

  // The first rows of a batch: those rows right, the rest of the output not written.
  for (Transform t : kAllTransforms) {
    const PlanSpec spec{46, 7, t, false};
    const PlanLayout layout = gpu::make_plan_layout(spec);
    ASSERT_EQ(layout.steps[0].kind, gpu::Step::Kind::direct_dft) << layout.algorithm;
    const long long in_floats = test::input_row_floats(spec);
    const long long out_floats = test::output_row_floats(spec);
    const std::vector<float> input = test::make_input(spec, in_floats, spec.batch, rng);
    std::vector<float> output(static_cast<std::size_t>(out_floats) * spec.batch, std::numeric_limits<float>::quiet_NaN());
    gpu::execute_on_host(layout, input.data(), output.data(), 3);
    for (std::size_t row = 0; row < 3; ++row) {
      test::ErrorSum e;
      e.add(output.data() + row * out_floats, test::reference_row(spec, input.data() + row * in_floats));
      EXPECT_LE(e.relative(), kUnitRoundoff) << test::transform_name(t) << " row " << row;
    }
    EXPECT_TRUE(std::all_of(output.begin() + 3 * out_floats, output.end(), [](float v) { return std::isnan(v); }))
        << test::transform_name(t) << ": rows beyond 3 written";
  }
}

class FftPlanHostSweep : public ::testing::TestWithParam<Transform> {};

// Every length 1..4096; every eighth length with two rows per batch, every sixteenth in place.
TEST_P(FftPlanHostSweep, AllLengthsUpTo4096) {
  const Transform transform = GetParam();
  std::mt19937_64 rng(4096 + static_cast<int>(transform));
  double worst = 0.0;
  for (std::size_t n = transform == Transform::c2r ? 2 : 1; n <= 4096; ++n) {
    PlanSpec spec{n, n % 8 == 3 ? 2u : 1u, transform, n % 16 == 5};
    const double err = host_error(spec, rng);
    worst = std::max(worst, err);
    ASSERT_LE(err, kHostTolerance) << test::transform_name(transform) << " n=" << n
                                   << (spec.in_place ? " in place" : "");
  }
  std::printf("worst host-executor error, n <= 4096, %-12s %.3g\n",
              test::transform_name(transform), worst);
}

// Every length 1..4096 with a prime stage (radix 37 to 127) planned without them
// (PlannerOptions::prime_stages = 0: Bluestein, which the sweep above does not take for them):
// every fifth with two rows per batch, every seventh in place.
TEST_P(FftPlanHostSweep, BluesteinForPrimeStageLengths) {
  const Transform transform = GetParam();
  const bool real = transform == Transform::r2c || transform == Transform::c2r;
  std::mt19937_64 rng(37 + static_cast<int>(transform));
  gpu::PlannerOptions options;
  options.prime_stages = 0;
  double worst = 0.0;
  int count = 0;
  for (std::size_t n = 2; n <= 4096; ++n) {
    if (gpu::prime_stage_count(static_cast<long long>(n)) == 0) continue;
    if (gpu::direct_dft_length(static_cast<long long>(n), real) > 0) continue;  // the direct DFT
    PlanSpec spec{n, n % 5 == 3 ? 2u : 1u, transform, n % 7 == 5};
    std::string algorithm;
    const double err = host_error(spec, rng, &algorithm, options);
    worst = std::max(worst, err);
    ++count;
    ASSERT_NE(algorithm.find("bluestein"), std::string::npos) << n << ": " << algorithm;
    ASSERT_LE(err, kHostTolerance) << test::transform_name(transform) << " n=" << n
                                   << (spec.in_place ? " in place " : " ") << algorithm;
  }
  EXPECT_GT(count, 500);
  std::printf("worst host-executor error, Bluestein for %d prime-stage lengths <= 4096, %-12s %.3g\n", count,
              test::transform_name(transform), worst);
}

// Every prime 131..2^18 that Rader's algorithm can take (PlannerOptions::rader = 1; the rule
// gives it those above 8192): every fifth with two rows per batch, every seventh in place.
TEST_P(FftPlanHostSweep, RaderForPrimes) {
  const Transform transform = GetParam();
  std::mt19937_64 rng(131 + static_cast<int>(transform));
  gpu::PlannerOptions options;
  options.rader = 1;
  double worst = 0.0;
  int count = 0;
  for (std::size_t n = 131; n <= (1u << 18); n += 2) {
    if (!gpu::can_take_rader(static_cast<long long>(n))) continue;
    PlanSpec spec{n, count % 5 == 3 ? 2u : 1u, transform, count % 7 == 5};
    std::string algorithm;
    const double err = host_error(spec, rng, &algorithm, options);
    worst = std::max(worst, err);
    ++count;
    ASSERT_EQ(algorithm.find("rader"), 0u) << n << ": " << algorithm;
    ASSERT_LE(err, kHostTolerance) << test::transform_name(transform) << " n=" << n
                                   << (spec.in_place ? " in place " : " ") << algorithm;
  }
  EXPECT_GT(count, 40);
  std::printf("worst host-executor error, Rader for %d primes <= 2^18, %-12s %.3g\n", count,
              test::transform_name(transform), worst);
}

// 150 random lengths (log-uniform in 4097 .. 2^18), plus lengths that pick each multi-pass
// plan shape (four-step, Bluestein in one and in three passes, Rader, real rows pass, split pass, a
// four-step with stages of radix 17 to 31, one with a prime stage).
TEST_P(FftPlanHostSweep, LargerLengths) {
  const Transform transform = GetParam();
  std::mt19937_64 rng(20261121 + static_cast<int>(transform));
  std::vector<std::size_t> sizes = {16384, 16385, 32768, 65536, 65537, 1 << 17, 1 << 18, 48000, 10007,
                                    3 * 3 * 5 * 7 * 11 * 13 * 2, 131071, 1 << 20, 1000003,
                                    17 * 19 * 23 * 29 * 2, 31 * 16384, 101 * 8192};
  std::uniform_real_distribution<double> log_size(std::log(4097.0), std::log(262144.0));
  for (int i = 0; i < 150; ++i) sizes.push_back(static_cast<std::size_t>(std::exp(log_size(rng))));
  double worst = 0.0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // Every third with two rows: paired real rows (r2c, c2r) through every multi-pass shape.
    PlanSpec spec{sizes[i], i % 3 == 1 ? 2u : 1u, transform, i % 7 == 3};
    std::string algorithm;
    const double err = host_error(spec, rng, &algorithm);
    worst = std::max(worst, err);
    ASSERT_LE(err, kHostTolerance) << test::transform_name(spec.transform) << " n=" << spec.n
                                   << (spec.in_place ? " in place " : " ") << algorithm;
  }
  std::printf("worst host-executor error, n > 4096,  %-12s %.3g\n",
              test::transform_name(transform), worst);
}

// The tuning mode's four-step splits (PlannerOptions::four_step_columns): every split with compiled
// sides of these lengths computes the transform, alternately in and out of place, one row or three
// (an odd real length: rows in pairs). The lengths reach the rows-then-transpose step (2^19 with
// columns of 32 and 64), r2c's post-processing in the transpose (2^21 with 64 and 128) and odd
// real transforms (511875 = 125 x 4095).
TEST_P(FftPlanHostSweep, FourStepSplits) {
  const Transform transform = GetParam();
  std::mt19937_64 rng(20261204 + static_cast<int>(transform));
  int planned = 0;
  for (std::size_t n : {std::size_t{1} << 16, std::size_t{48000}, std::size_t{98304}, std::size_t{1} << 19,
                        std::size_t{511875}, std::size_t{1} << 21}) {
    const long long complex_length = gpu::planner_complex_length(PlanSpec{n, 1, transform});
    for (int columns : gpu::four_step_column_candidates(complex_length)) {
      if (n == std::size_t{1} << 21 && columns != 64 && columns != 128) continue;  // host time
      gpu::PlannerOptions options;
      options.four_step_columns = columns;
      ++planned;
      const PlanSpec spec{n, planned % 3 == 0 ? 3u : 1u, transform, planned % 2 == 0};
      std::string algorithm;
      const double err = host_error(spec, rng, &algorithm, options);
      const std::string split = "four-step " + std::to_string(columns) + "x" + std::to_string(complex_length / columns);
      EXPECT_NE(algorithm.find(split), std::string::npos) << algorithm << ", asked for " << split;
      ASSERT_LE(err, kHostTolerance) << test::transform_name(transform) << " n=" << n << " batch=" << spec.batch
                                     << (spec.in_place ? " in place " : " ") << algorithm;
    }
  }
  EXPECT_GE(planned, 30);
}

INSTANTIATE_TEST_SUITE_P(AllTransforms, FftPlanHostSweep, ::testing::ValuesIn(kAllTransforms),
                         [](const auto& info) { return std::string(test::transform_name(info.param)); });

// Very large lengths through the four-step path (c2c 4096 x 4096, r2c 2048 x 4096).
TEST(FftPlanHost, FourStepSixteenMillion) {
  std::mt19937_64 rng(24);
  const double err = host_error(PlanSpec{1u << 24, 1, Transform::c2c_forward, false}, rng);
  EXPECT_LE(err, kHostTolerance);
  std::printf("host-executor error, n = 2^24 c2c_forward %.3g\n", err);
  // r2c 2^24: the half length's four-step into its own buffer, then the real rows pass.
  const double real_err = host_error(PlanSpec{1u << 24, 1, Transform::r2c, false}, rng);
  EXPECT_LE(real_err, kHostTolerance);
  std::printf("host-executor error, n = 2^24 r2c %.3g\n", real_err);
}

// Four-steps whose rows are longer than the four-step kernel takes (c2c 2^25 = 2048 x 16384,
// 2^26 = 4096 x 16384, 5 x 2^23 = 5120 x 8192, and the half lengths of r2c and c2r 2^26 and of
// r2c 2^27, the longest planned): the column pass, the rows in place in the scratch on the rows
// kernel (n1 rows per transform), then the transpose step into the output, conjugated for
// inverse transforms; r2c's transpose forms X itself (r2c_post). The host executor runs c2c
// 2^25 both ways (two rows out of place, one in place), r2c and c2r 2^26 against FFTW.
TEST(FftPlanHost, RowsThenTranspose) {
  struct Case {
    std::size_t n;
    Transform transform;
    long long n1;
    long long n2;
  };
  for (const Case& c : {Case{1u << 25, Transform::c2c_forward, 2048, 16384}, Case{1u << 25, Transform::c2c_inverse, 2048, 16384},
                        Case{1u << 26, Transform::c2c_forward, 4096, 16384}, Case{1u << 26, Transform::r2c, 2048, 16384},
                        Case{1u << 26, Transform::c2r, 2048, 16384}, Case{5u << 23, Transform::c2c_forward, 5120, 8192},
                        Case{1u << 27, Transform::r2c, 4096, 16384}}) {
    const PlanSpec spec{c.n, 2, c.transform, false};
    const PlanLayout layout = gpu::make_plan_layout(spec);
    EXPECT_NE(layout.algorithm.find("rows then transpose"), std::string::npos) << layout.algorithm;
    const auto transpose = std::find_if(layout.steps.begin(), layout.steps.end(),
                                        [](const gpu::Step& s) { return s.kind == gpu::Step::Kind::transpose; });
    ASSERT_NE(transpose, layout.steps.end()) << layout.algorithm;
    ASSERT_NE(transpose, layout.steps.begin());
    const gpu::Step& rows = *(transpose - 1);
    const gpu::Step& columns = *(transpose - 2);
    EXPECT_EQ(columns.pass.n, c.n1);
    EXPECT_EQ(columns.pass.inner_count, c.n2);
    EXPECT_EQ(columns.dst, gpu::BufferRef::scratch);
    // c2r forms its half length's input in the column pass (the real columns of 2048), ahead of
    // which nothing runs; r2c's post-processing runs in the transpose, the last step.
    const bool c2r = c.transform == Transform::c2r;
    const bool r2c = c.transform == Transform::r2c;
    EXPECT_EQ(columns.pass.real_step, c2r ? gpu::RealStep::c2r_pre_columns : gpu::RealStep::none) << layout.algorithm;
    EXPECT_EQ(transpose - layout.steps.begin(), 2) << layout.algorithm;
    EXPECT_EQ(layout.steps.size(), 3u) << layout.algorithm;
    EXPECT_EQ(layout.algorithm.find("post-processing in the transpose") != std::string::npos, r2c) << layout.algorithm;
    // The columns of 4096 and 2048 on the four-step kernel, next to 16384 of them (those of 5120
    // on the pass kernel).
    gpu::FourStepPassDesc columns_desc;
    const bool four_step_columns = c.n1 == 4096 || c.n1 == 2048;
    EXPECT_EQ(gpu::four_step_pass_of(columns.pass, columns_desc, 227 * 1024), four_step_columns) << layout.algorithm;
    if (four_step_columns) {
      EXPECT_EQ(columns_desc.shape, c.n1 == 4096 ? gpu::FourStepShape::wide4 : gpu::FourStepShape::wide8);
      EXPECT_EQ(columns_desc.other_side, c.n2);
    }
    // The rows: plain, in place in the scratch, on the rows kernel.
    EXPECT_EQ(rows.pass.n, c.n2);
    EXPECT_EQ(rows.batch_rows, c.n1);
    EXPECT_TRUE(rows.pass.inner_is_batch);
    EXPECT_EQ(rows.pass.in.inner_dist, c.n2);
    EXPECT_EQ(rows.pass.out.inner_dist, c.n2);
    EXPECT_EQ(rows.src, gpu::BufferRef::scratch);
    EXPECT_EQ(rows.dst, gpu::BufferRef::scratch);
    gpu::RowsPassDesc d;
    EXPECT_TRUE(gpu::rows_pass_of(rows.pass, d)) << layout.algorithm;
    EXPECT_EQ(d.kind, gpu::RowsKind::forward);
    const gpu::TransposeDesc& t = transpose->transpose;
    EXPECT_EQ(t.rows, c.n1);
    EXPECT_EQ(t.columns, c.n2);
    EXPECT_EQ(t.in_dist, c.n1 * c.n2);
    EXPECT_EQ(t.rows % gpu::kTransposeTile, 0);
    EXPECT_EQ(t.columns % gpu::kTransposeTile, 0);
    EXPECT_EQ(t.conj, c.transform == Transform::c2c_inverse || c.transform == Transform::c2r) << layout.algorithm;
    EXPECT_EQ(t.r2c_post, r2c) << layout.algorithm;
    EXPECT_EQ(transpose->real_tw >= 0, r2c) << layout.algorithm;
    EXPECT_EQ(t.out_dist, c.n1 * c.n2 + (r2c ? 1 : 0)) << layout.algorithm;  // rows of h + 1 for r2c
    EXPECT_EQ(transpose->src, gpu::BufferRef::scratch);
    EXPECT_EQ(transpose->dst, gpu::BufferRef::output);
    EXPECT_EQ(gpu::transpose_out_offset(t, 1, 3, 5), t.out_dist + 3 + 5 * c.n1);
    EXPECT_EQ(gpu::launch_shared_bytes(*transpose), 0);
  }
  std::mt19937_64 rng(25);
  for (const PlanSpec& spec : {PlanSpec{1u << 25, 2, Transform::c2c_forward, false},
                               PlanSpec{1u << 25, 1, Transform::c2c_inverse, true},
                               PlanSpec{1u << 26, 1, Transform::r2c, false},
                               PlanSpec{1u << 26, 1, Transform::c2r, false}}) {
    std::string algorithm;
    const double err = host_error(spec, rng, &algorithm);
    EXPECT_LE(err, kHostTolerance) << algorithm;
    std::printf("host-executor error, n = 2^%d %s%s %.3g\n", std::countr_zero(spec.n),
                test::transform_name(spec.transform), spec.in_place ? " in place" : "", err);
  }
}

// The transpose step's r2c post-processing (TransposeDesc::r2c_post): the mirror of element k of
// row r is Z[h - (r + rows k)] (Z[0] for itself); the tiles of the first half of the rows and
// their mirror tiles take every tile once, and every mirror of a tile's elements but row 0's lies
// in the other tile of its pair read with the row after it, where transpose_in_mirror_tile says.
TEST(FftPlanHost, TransposeR2cMirrorsAndTilePairs) {
  constexpr int T = gpu::kTransposeTile;
  gpu::TransposeDesc d;
  d.rows = 128;
  d.columns = 96;
  d.r2c_post = true;
  const long long h = d.rows * d.columns;
  for (long long r = 0; r < d.rows; ++r) {
    for (long long k = 0; k < d.columns; ++k) {
      long long mirror_r = -1;
      long long mirror_k = -1;
      gpu::transpose_mirror(d, r, k, mirror_r, mirror_k);
      ASSERT_GE(mirror_r, 0);
      ASSERT_LT(mirror_r, d.rows);
      ASSERT_GE(mirror_k, 0);
      ASSERT_LT(mirror_k, d.columns);
      const long long index = r + d.rows * k;
      EXPECT_EQ(mirror_r + d.rows * mirror_k, index == 0 ? 0 : h - index) << "r " << r << " k " << k;
    }
  }
  std::vector<int> taken(static_cast<std::size_t>(h / (T * T)), 0);
  const auto take = [&](long long r0, long long k0) { ++taken[static_cast<std::size_t>(r0 / T * (d.columns / T) + k0 / T)]; };
  // Whether the mirror of every element (i, j) of the tile at (r0, k0) but row 0's is element
  // (transpose_in_mirror_tile(i), T - 1 - j) of the tile at (other_r0, other_k0).
  const auto mirrors_in = [&](long long r0, long long k0, long long other_r0, long long other_k0) {
    for (int i = 0; i < T; ++i) {
      for (int j = 0; j < T; ++j) {
        if (r0 + i == 0) continue;
        long long mirror_r = -1;
        long long mirror_k = -1;
        gpu::transpose_mirror(d, r0 + i, k0 + j, mirror_r, mirror_k);
        if (mirror_r != other_r0 + gpu::transpose_in_mirror_tile(i) || mirror_k != other_k0 + T - 1 - j) return false;
      }
    }
    return true;
  };
  for (long long r0 = 0; r0 < d.rows / 2; r0 += T) {
    for (long long k0 = 0; k0 < d.columns; k0 += T) {
      long long mirror_r0 = -1;
      long long mirror_k0 = -1;
      gpu::transpose_mirror_tile(d, r0, k0, mirror_r0, mirror_k0);
      EXPECT_GE(mirror_r0, d.rows / 2);
      EXPECT_LT(mirror_r0, d.rows);
      EXPECT_EQ(mirror_r0 % T, 0);
      EXPECT_EQ(mirror_k0 % T, 0);
      take(r0, k0);
      take(mirror_r0, mirror_k0);
      EXPECT_TRUE(mirrors_in(r0, k0, mirror_r0, mirror_k0)) << "tile " << r0 << ", " << k0;
      EXPECT_TRUE(mirrors_in(mirror_r0, mirror_k0, r0, k0)) << "mirror of tile " << r0 << ", " << k0;
    }
  }
  EXPECT_TRUE(std::all_of(taken.begin(), taken.end(), [](int n) { return n == 1; }));
}

}  // namespace
}  // namespace prism::fft
