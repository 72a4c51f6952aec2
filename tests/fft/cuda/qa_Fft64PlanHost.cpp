// The double-precision planner (fft/cuda/fft64_plan.hpp) and its layouts run by the host
// executor, against a long-double FFT: every transform kind, in and out of place, one pass and
// the four-step (forced at short lengths by a small shared-memory limit), several rows with
// NaN-poisoned outputs; and the lengths the planner refuses, with their reasons.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fft/cuda/fft64_plan.hpp"
#include "tests/fft/cuda/fft64_reference.hpp"

namespace prism::fft::gpu {
namespace {

using test::fp64_input_row_doubles;
using test::fp64_output_row_doubles;

constexpr Transform kTransforms[] = {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r};


// Runs spec's layout at the shared-memory limit on the host over `batch` rows (more than a block
// holds for the short lengths, and a last block part full) and returns the error.
double error_of(PlanSpec spec, long long max_shared_bytes, std::string* algorithm = nullptr, std::size_t batch = 3) {
  spec.batch = batch;
  const Fp64Layout layout = make_fp64_layout(spec, max_shared_bytes);
  if (algorithm) *algorithm = layout.algorithm;
  std::mt19937_64 rng(spec.n * 8 + static_cast<int>(spec.transform) * 2 + spec.in_place);
  const std::vector<double> input = test::fp64_random_input(spec, spec.batch, rng);
  std::vector<double> output;
  if (spec.in_place) {
    output = input;  // the rows of an in-place transform are the input's
    execute_fp64_on_host(layout, output.data(), output.data(), spec.batch);
  } else {
    output.assign(fp64_output_row_doubles(spec) * spec.batch, std::numeric_limits<double>::quiet_NaN());
    execute_fp64_on_host(layout, input.data(), output.data(), spec.batch);
  }
  return test::fp64_relative_error(spec, input.data(), output.data(), spec.batch);
}


TEST(Fft64PlanHost, OnePassMatchesTheLongDoubleFftAtEverySmoothLengthTo4096) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 1; n <= 130; ++n) lengths.push_back(n);
  for (std::size_t n : {143, 169, 192, 210, 243, 256, 343, 500, 625, 1000, 1001, 1024, 1331, 2048, 2310, 2401, 4096})
    lengths.push_back(n);
  int checked = 0;
  for (std::size_t n : lengths) {
    const PlanSpec probe{n, 1, Transform::c2c_forward, false};
    std::size_t rest = n;
    for (std::size_t radix : {2, 3, 5, 7, 11, 13})
      while (rest % radix == 0) rest /= radix;
    // Taken exactly where no prime factor above 13 remains.
    ASSERT_EQ(fp64_plan_problem(probe).empty(), rest == 1) << "n=" << n << ": " << fp64_plan_problem(probe);
    if (rest != 1) continue;
    for (Transform t : kTransforms) {
      for (bool in_place : {false, true}) {
        std::string algorithm;
        const double error = error_of({n, 1, t, in_place}, kMaxSharedBytesPerBlock, &algorithm, n <= 16 ? 300 : 3);
        EXPECT_LE(error, test::fp64_error_bound(n)) << test::transform_name(t) << " n=" << n << (in_place ? " in place " : " ") << algorithm;
        EXPECT_EQ(algorithm.rfind("fp64 stockham", 0), 0u) << algorithm;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * (74 + 17));  // the 74 smooth lengths to 130 and the 17 others
}

TEST(Fft64PlanHost, FourStepMatchesTheLongDoubleFft) {
  // 1 KiB of shared memory holds one transform of 31 points: everything longer takes two passes.
  const long long small_shared = 16 * (2 * 31 + 1);
  ASSERT_EQ(fp64_max_pass_length(small_shared), 31);
  for (std::size_t n : {33, 64, 96, 100, 128, 243, 297, 384, 625, 702}) {
    ASSERT_EQ(fp64_plan_problem({n, 1, Transform::c2c_forward, false}, small_shared), "") << n;
    for (Transform t : kTransforms) {
      for (bool in_place : {false, true}) {
        std::string algorithm;
        const double error = error_of({n, 1, t, in_place}, small_shared, &algorithm, 5);
        EXPECT_LE(error, test::fp64_error_bound(n)) << test::transform_name(t) << " n=" << n << (in_place ? " in place " : " ") << algorithm;
        EXPECT_EQ(algorithm.rfind("fp64 four-step", 0), 0u) << algorithm;
      }
    }
  }
  // At the planner's own limit: above 7263 points.
  // A c2r of even length takes the inverse of half its length: four-step above twice 7263.
  for (std::size_t n : {8192u, 10000u, 3u * 3u * 1024u, 14641u, 32768u, 2u * 7260u}) {
    for (Transform t : {Transform::c2c_forward, Transform::c2r}) {
      std::string algorithm;
      EXPECT_LE(error_of({n, 1, t, false}, kMaxSharedBytesPerBlock, &algorithm), test::fp64_error_bound(n))
          << test::transform_name(t) << " n=" << n << " " << algorithm;
      const bool half = t == Transform::c2r && n % 2 == 0;
      const bool four_step = (half ? n / 2 : n) > 7263;
      EXPECT_EQ(algorithm.rfind(four_step ? "fp64 four-step" : "fp64 stockham", 0), 0u) << algorithm;
      EXPECT_EQ(algorithm.find("c2r as the inverse of half its length") != std::string::npos, half) << algorithm;
    }
  }
}

// A c2r of even length N from 4096 up runs the inverse of length N/2 (Fp64Load::hermitian_half):
// the layouts' texts say so, odd lengths and shorter ones in one pass keep the full length, and
// the imaginary parts of bins 0 and N/2 are ignored as the full-length transform ignores them (a
// c2r's output is the real part of the inverse of the Hermitian extension).
TEST(Fft64PlanHost, AC2rOfEvenLengthRunsTheInverseOfHalfItsLength) {
  EXPECT_EQ(make_fp64_layout({4096, 2, Transform::c2r, false}).algorithm,
            "fp64 stockham 8x8x8x4, c2r as the inverse of half its length");
  EXPECT_EQ(make_fp64_layout({6000, 2, Transform::c2r, true}).algorithm,
            "fp64 stockham 8x3x5x5x5, c2r as the inverse of half its length");
  EXPECT_EQ(make_fp64_layout({4000, 2, Transform::c2r, false}).algorithm, "fp64 stockham 8x4x5x5x5");
  EXPECT_EQ(make_fp64_layout({1u << 20, 2, Transform::c2r, false}).algorithm,
            "fp64 four-step 512x1024 (8x8x8, 8x8x4x4), c2r as the inverse of half its length");
  EXPECT_EQ(make_fp64_layout({1001, 2, Transform::c2r, false}).algorithm, "fp64 stockham 7x11x13");
  // Where only half the length has a plan: 1800 has no split into two factors of at most 31, 900
  // has (30x30). At the real limit, 2^25 likewise (2^24 is 4096x4096).
  const long long small_shared = 16 * (2 * 31 + 1);
  EXPECT_EQ(fp64_plan_problem({1800, 1, Transform::c2c_inverse, false}, small_shared),
            "length 1800 has no split into two factors of at most 31");
  std::string algorithm;
  EXPECT_LE(error_of({1800, 1, Transform::c2r, false}, small_shared, &algorithm), test::fp64_error_bound(1800));
  EXPECT_EQ(algorithm, "fp64 four-step 30x30 (2x3x5, 2x3x5), c2r as the inverse of half its length");
  EXPECT_EQ(fp64_plan_problem({1u << 25, 1, Transform::c2r, false}), "");
  EXPECT_EQ(fp64_plan_problem({1u << 25, 1, Transform::r2c, false}),
            "length 33554432 has no split into two factors of at most 7263");
  for (std::size_t n : {2u, 4u, 6u, 8u, 30u, 1000u, 4096u, 6000u, 3u * 3u * 1024u, 20000u, 1001u}) {
    const PlanSpec spec{n, 3, Transform::c2r, false};
    std::mt19937_64 rng(n);
    std::vector<double> input = test::fp64_random_input(spec, spec.batch, rng);
    const Fp64Layout layout = make_fp64_layout(spec);
    const std::size_t out_row = fp64_output_row_doubles(spec);
    std::vector<double> expected(out_row * spec.batch, std::numeric_limits<double>::quiet_NaN());
    execute_fp64_on_host(layout, input.data(), expected.data(), spec.batch);
    ASSERT_LE(test::fp64_relative_error(spec, input.data(), expected.data(), spec.batch), test::fp64_error_bound(n)) << n;
    const std::size_t in_row = fp64_input_row_doubles(spec);
    for (std::size_t r = 0; r < spec.batch; ++r) {
      input[r * in_row + 1] = 0.25;
      if (n % 2 == 0) input[r * in_row + n + 1] = -0.375;
    }
    std::vector<double> output(out_row * spec.batch, std::numeric_limits<double>::quiet_NaN());
    execute_fp64_on_host(layout, input.data(), output.data(), spec.batch);
    for (std::size_t i = 0; i < output.size(); ++i) ASSERT_EQ(output[i], expected[i]) << "n=" << n << " at " << i;
  }
}

TEST(Fft64PlanHost, TheFourStepSplitsEvenlyAndTheTablesAreAccurate) {
  const Fp64Layout layout = make_fp64_layout({1u << 20, 1, Transform::c2c_forward, false});
  EXPECT_EQ(layout.algorithm, "fp64 four-step 1024x1024 (8x8x4x4, 8x8x4x4)");
  ASSERT_EQ(layout.steps.size(), 2u);
  EXPECT_EQ(layout.scratch_elements, 1 << 20);
  // Every root of both passes' tables is within one rounding of the exact value, and the
  // four-step twiddle (two factors) within three at every 997th index.
  for (const Fp64Step& step : layout.steps) {
    for (long long m = 0; m < 1024; ++m) {
      const Cd w = layout.table[static_cast<std::size_t>(step.roots + m)];
      const long double angle = -2.0L * std::numbers::pi_v<long double> * m / 1024;
      EXPECT_LE(std::abs(w.re - std::cos(angle)), 1.2e-16L);
      EXPECT_LE(std::abs(w.im - std::sin(angle)), 1.2e-16L);
    }
  }
  const Fp64Step& columns = layout.steps[0];
  ASSERT_EQ(columns.pass.twiddle_n, 1 << 20);
  for (long long m = 0; m < (1 << 20); m += 997) {
    const Cd w = fp64_four_step_twiddle(columns.pass, layout.table.data() + columns.coarse,
                                        layout.table.data() + columns.fine, m);
    const long double angle = -2.0L * std::numbers::pi_v<long double> * m / (1 << 20);
    EXPECT_LE(std::abs(w.re - std::cos(angle)), 3.4e-16L) << m;
    EXPECT_LE(std::abs(w.im - std::sin(angle)), 3.4e-16L) << m;
  }
}

TEST(Fft64PlanHost, APowerOfTwoTakesRadixEightStagesAndFoursForTheRest) {
  const std::pair<std::size_t, const char*> expected[] = {
      {2, "2"},         {4, "4"},           {8, "8"},          {16, "4x4"},     {32, "8x4"},
      {64, "8x8"},      {128, "8x4x4"},     {4096, "8x8x8x8"}, {2048, "8x8x8x4"}, {1000, "8x5x5x5"},
      {6, "2x3"},       {24, "8x3"},        {48, "4x4x3"},     {1, "1"}};
  for (const auto& [n, radices] : expected)
    EXPECT_EQ(make_fp64_layout({n, 1, Transform::c2c_forward, false}).algorithm, std::string("fp64 stockham ") + radices)
        << n;
  // A thread per butterfly of the stage with the most: 512 threads for 4096 points in one block,
  // in one plane of shared memory (64 KiB and a pair).
  const Fp64PassDesc pass = make_fp64_layout({4096, 1, Transform::c2c_forward, false}).steps.at(0).pass;
  EXPECT_EQ(pass.threads_per_transform, 512);
  EXPECT_EQ(pass.per_block, 1);
  EXPECT_TRUE(pass.one_plane);
  EXPECT_EQ(fp64_shared_bytes(pass), 16 * 4097);
  // One plane only for a power of two of one transform a block whose two planes would leave one
  // block a multiprocessor, with no thread holding two butterflies a stage.
  auto one_plane = [](std::size_t n, long long shared = kMaxSharedBytesPerBlock) {
    return make_fp64_layout({n, 1, Transform::c2c_forward, false}, shared).steps.at(0).pass.one_plane;
  };
  EXPECT_FALSE(one_plane(256));
  EXPECT_FALSE(one_plane(512));   // eight transforms a block: 131 KiB in two planes, but not one transform
  EXPECT_FALSE(one_plane(2048));  // two planes of 2048: 64 KiB, three blocks
  EXPECT_TRUE(one_plane(2048, 100 * 1024));
  EXPECT_FALSE(one_plane(6144, 200 * 1024));  // 8x8x8x4x3, one a block: not a power of two
  // 2^24's passes of 4096 side by side: in one plane three transforms would fit a block, 170
  // threads each, fewer than a stage's 512 butterflies, so they keep two planes.
  for (const Fp64Step& step : make_fp64_layout({1u << 24, 1, Transform::c2c_forward, false}).steps) {
    EXPECT_EQ(step.pass.length, 4096);
    EXPECT_FALSE(step.pass.one_plane);
    EXPECT_EQ(step.pass.per_block, 1);
  }
  const Fp64Layout four_step = make_fp64_layout({1u << 20, 1, Transform::c2c_forward, false});
  for (const Fp64Step& step : four_step.steps) {
    // 1024 points (8x8x4x4) side by side, several transforms a block: not one plane.
    EXPECT_FALSE(step.pass.one_plane);
    EXPECT_LE(step.pass.per_block * step.pass.threads_per_transform, kFp64BlockThreads);
    EXPECT_LE(fp64_shared_bytes(step.pass), kMaxSharedBytesPerBlock);
  }
}

// Runs spec's layout on the host over `batch` rows of `input` into an output one row longer than
// the batch, poisoned with NaN, and returns it.
std::vector<double> host_output_with_a_row_beyond(PlanSpec spec, const std::vector<double>& input) {
  const Fp64Layout layout = make_fp64_layout(spec);
  std::vector<double> output(fp64_output_row_doubles(spec) * (spec.batch + 1), std::numeric_limits<double>::quiet_NaN());
  execute_fp64_on_host(layout, input.data(), output.data(), spec.batch);
  return output;
}

TEST(Fft64PlanHost, AnR2cInOnePassTakesTwoRowsPerTransformAndAnOddLastRowAlone) {
  for (std::size_t n : {1u, 2u, 7u, 30u, 256u, 1000u, 4096u}) {
    for (std::size_t batch : {1u, 2u, 5u}) {
      for (bool in_place : {false, true}) {
        const PlanSpec spec{n, batch, Transform::r2c, in_place};
        std::string algorithm;
        EXPECT_LE(error_of(spec, kMaxSharedBytesPerBlock, &algorithm, batch), test::fp64_error_bound(n))
            << "n=" << n << " batch " << batch << (in_place ? " in place" : "");
        EXPECT_NE(algorithm.find(", two real rows per transform"), std::string::npos) << algorithm;
      }
      // The row after the batch, which the last transform's partner would be, stays unwritten.
      const PlanSpec spec{n, batch, Transform::r2c, false};
      std::mt19937_64 rng(n + batch);
      const std::vector<double> input = test::fp64_random_input(spec, batch, rng);
      const std::vector<double> output = host_output_with_a_row_beyond(spec, input);
      for (std::size_t i = fp64_output_row_doubles(spec) * batch; i < output.size(); ++i)
        ASSERT_TRUE(std::isnan(output[i])) << n << " " << i;
    }
  }
  // The c2r is not paired (it takes half its length instead), nor is the four-step.
  EXPECT_EQ(make_fp64_layout({4096, 2, Transform::c2r, false}).algorithm.find("two real rows"), std::string::npos);
  EXPECT_EQ(make_fp64_layout({8192, 2, Transform::r2c, false}).algorithm.find("two real rows"), std::string::npos);
}

TEST(Fft64PlanHost, RefusesWhatItDoesNotTakeAndSaysWhy) {
  EXPECT_EQ(fp64_plan_problem({17, 1, Transform::c2c_forward, false}), "length 17 has the prime factor 17, above 13");
  EXPECT_EQ(fp64_plan_problem({4097, 1, Transform::r2c, false}), "length 4097 has the prime factor 17, above 13");
  EXPECT_EQ(fp64_plan_problem({10007, 1, Transform::c2c_forward, false}),
            "length 10007 has the prime factor 10007, above 13");
  EXPECT_EQ(fp64_plan_problem({1u << 25, 1, Transform::c2c_forward, false}),
            "length 33554432 has no split into two factors of at most 7263");
  EXPECT_EQ(fp64_plan_problem({1u << 24, 1, Transform::c2c_forward, false}), "");
  EXPECT_EQ(fp64_plan_problem({1, 1, Transform::c2r, false}), "");
  EXPECT_EQ(fp64_plan_problem({0, 1, Transform::c2c_forward, false}), "length 0");
  EXPECT_EQ(fp64_plan_problem({8, 0, Transform::c2c_forward, false}), "batch 0");
  // The first factor above 13 is the one named.
  EXPECT_EQ(fp64_plan_problem({11 * 13 * 53, 1, Transform::c2c_forward, false}),
            "length 7579 has the prime factor 53, above 13");
  // A smooth length whose factors do not fit two passes of 31 points.
  EXPECT_EQ(fp64_plan_problem({1000, 1, Transform::c2c_forward, false}, 16 * 63),
            "length 1000 has no split into two factors of at most 31");
  EXPECT_THROW(make_fp64_layout({17, 1, Transform::c2c_forward, false}), std::invalid_argument);
}

}  // namespace
}  // namespace prism::fft::gpu
