// CPU-only checks of the GPU DCT (fft/cuda/cuda_dct.hpp): its recipe's steps (dct_steps.hpp, the
// code the kernels run) around the host executor of the FFT plan the planner makes for it (the
// device may run a tuned blocking of it from the wisdom file), against CpuDct in double
// precision, for every type and norm over lengths odd and even, short and long.
// Runs in CI without a GPU; qa_CudaDct runs the same comparison on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/cuda/dct_steps.hpp"
#include "fft/cuda/fft_host_executor.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "tests/fft/cuda/dct_reference.hpp"

namespace prism::fft {
namespace {

constexpr double kTolerance = 1e-6;  // float rounding of the FFT; a wrong step is far above

// Runs the first `count` rows of a recipe on the host (output poisoned with NaN) and returns
// its output, batch rows.
std::vector<float> run_on_host(const DctSpec& spec, const std::vector<float>& input, std::size_t count) {
  const gpu::DctRecipe recipe = gpu::make_dct_recipe(spec);
  const gpu::DctStepArgs args =
      gpu::dct_step_args(recipe, recipe.pre_twiddles.data(), recipe.post_twiddles.data());
  const auto in_bytes = static_cast<std::size_t>(recipe.fft_input_row_bytes);
  const auto out_bytes = static_cast<std::size_t>(recipe.fft_output_row_bytes);
  // float storage keeps Cf's alignment; NaN-poisoned so that an item a step misses shows.
  std::vector<float> fft_in(in_bytes / sizeof(float) * spec.batch, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> fft_out(out_bytes / sizeof(float) * spec.batch, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> output(spec.n * spec.batch, std::numeric_limits<float>::quiet_NaN());
  auto* fft_in_bytes = reinterpret_cast<char*>(fft_in.data());
  auto* fft_out_bytes = reinterpret_cast<char*>(fft_out.data());
  for (std::size_t row = 0; row < count; ++row)
    for (long long item = 0; item < recipe.pre_items; ++item)
      gpu::dct_pre_step(args, input.data() + row * spec.n, fft_in_bytes + row * in_bytes, item);
  gpu::execute_on_host(gpu::make_plan_layout(recipe.fft), fft_in.data(), fft_out.data(), count);
  for (std::size_t row = 0; row < count; ++row)
    for (long long item = 0; item < recipe.post_items; ++item)
      gpu::dct_post_step(args, fft_out_bytes + row * out_bytes, output.data() + row * spec.n, item);
  return output;
}

TEST(DctHost, EveryTypeAndNormAgainstDoublePrecision) {
  std::mt19937_64 rng(20261204);
  for (const std::size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 31, 40, 64, 97, 100, 128, 255, 256, 1000,
                              1009, 2048, 4095, 4096, 4097, 10007}) {
    for (const DctType type : {DctType::type2, DctType::type3, DctType::type4}) {
      for (const DctNorm norm : {DctNorm::backward, DctNorm::ortho, DctNorm::forward}) {
        const DctSpec spec{.n = n, .batch = 3, .type = type, .norm = norm};
        const std::vector<float> input = test::dct_input(n * spec.batch, rng);
        const std::vector<float> output = run_on_host(spec, input, spec.batch);
        const std::vector<double> ref = test::dct_reference(spec, input, spec.batch);
        for (std::size_t row = 0; row < spec.batch; ++row) {
          const double error = test::dct_row_error(output.data() + row * n, ref.data() + row * n, n);
          EXPECT_LE(error, kTolerance) << "type " << static_cast<int>(type) << " norm " << dct_norm_name(norm)
                                       << " n=" << n << " row " << row;
        }
      }
    }
  }
}

TEST(DctHost, PartialBatchLeavesTheOtherRowsAlone) {
  std::mt19937_64 rng(7);
  for (const DctType type : {DctType::type2, DctType::type3, DctType::type4}) {
    const DctSpec spec{.n = 12, .batch = 4, .type = type, .norm = DctNorm::ortho};
    const std::vector<float> input = test::dct_input(spec.n * spec.batch, rng);
    const std::vector<float> output = run_on_host(spec, input, 2);
    const std::vector<double> ref = test::dct_reference(spec, input, 2);
    for (std::size_t row = 0; row < 2; ++row)
      EXPECT_LE(test::dct_row_error(output.data() + row * spec.n, ref.data() + row * spec.n, spec.n), kTolerance);
    for (std::size_t i = 2 * spec.n; i < output.size(); ++i) EXPECT_TRUE(std::isnan(output[i])) << i;
  }
}

// The fused type 3 places v[m] where the three-launch path's scatter reads it from: the two maps
// must be one bijection seen from both sides.
TEST(DctHost, ReorderingIsABijectionAndPlaceInvertsScatter) {
  for (long long n = 1; n <= 300; ++n) {
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (long long m = 0; m < n; ++m) {
      const long long i = gpu::dct_reorder_source(n, m);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      ++hits[static_cast<std::size_t>(i)];
      EXPECT_EQ(gpu::dct_reorder_position(n, i), m) << "n=" << n;
      v[static_cast<std::size_t>(m)] = static_cast<float>(m);
    }
    for (const int h : hits) ASSERT_EQ(h, 1) << "n=" << n;
    std::vector<float> scattered(v.size());
    std::vector<float> placed(v.size(), -1.0f);
    for (long long i = 0; i < n; ++i) gpu::dct_type3_scatter(v.data(), scattered.data(), n, i);
    for (long long m = 0; m < n; ++m) gpu::dct_type3_place(v[static_cast<std::size_t>(m)], placed.data(), n, m);
    EXPECT_EQ(placed, scattered) << "n=" << n;
  }
}

TEST(DctHost, RecipeNamesItsFftAndRefusesBadSpecs) {
  const gpu::DctRecipe two = gpu::make_dct_recipe({.n = 4096, .batch = 2, .type = DctType::type2});
  EXPECT_EQ(two.fft.transform, Transform::r2c);
  EXPECT_EQ(two.fft.n, 4096u);
  EXPECT_EQ(two.fft.batch, 2u);
  const gpu::DctRecipe three = gpu::make_dct_recipe({.n = 4096, .type = DctType::type3});
  EXPECT_EQ(three.fft.transform, Transform::c2r);
  const gpu::DctRecipe four_even = gpu::make_dct_recipe({.n = 4096, .type = DctType::type4});
  EXPECT_EQ(four_even.fft.transform, Transform::c2c_forward);
  EXPECT_EQ(four_even.fft.n, 2048u);
  const gpu::DctRecipe four_odd = gpu::make_dct_recipe({.n = 4095, .type = DctType::type4});
  EXPECT_EQ(four_odd.fft.n, 8190u);

  EXPECT_THROW(gpu::make_dct_recipe({.n = 0}), std::invalid_argument);
  EXPECT_THROW(gpu::make_dct_recipe({.n = 8, .batch = 0}), std::invalid_argument);
  try {
    gpu::make_dct_recipe({.n = static_cast<std::size_t>(gpu::kMaxPlannedLength)});
    ADD_FAILURE() << "a length beyond the planner was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(std::to_string(gpu::kMaxPlannedLength)), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace prism::fft
