// CPU-only checks of our CUDA backend's multi-dimensional transforms: the steps of
// fft/cuda/fft_nd_layout.hpp (the very list the device runs: row steps, columns passes, and the
// transposes' chain where an axis takes no columns pass) executed on the host, through the host
// executor of the planner's layouts, against FFTW's rank-k transforms in double
// (tests/fft/cuda/nd_fftw_reference.hpp); and the steps' shape: which buffers each step reads
// and writes, and the steps themselves. Runs in CI without a GPU; qa_FftCuda runs the same
// transforms on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "fft/cuda/fft_nd_layout.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "tests/fft/cuda/nd_fftw_reference.hpp"
#include "tests/fft/nd_reference.hpp"

namespace prism::fft {
namespace {

constexpr double kTolerance = 2e-6;  // float rounding of the row transforms; a wrong step is far above

using test::NdParam;

// Row lengths that take each of the planner's 1-D algorithms: single Stockham passes (48, 64, 96,
// 256, 1000 and 4096 real via their half lengths), the direct DFT (3, 5, 7, 9, 11, 17, 31), one-pass
// Bluestein (4097; 257 real, two rows per transform, an odd count of rows with 3 arrays of 3),
// three-pass Bluestein (100003), Rader (12289), four-step (131072); and unit lengths. Column
// lengths that take a columns pass (2 to 4096; blocks holding part of their group's columns:
// 4096 x 8, two blocks of 4, and 40 x 999, blocks of 204 and a last one of 183) and lengths that take the
// transposes' chain instead, forward, inverse and c2r, in 2-D and 3-D: Bluestein (257, 4097), 17
// (a prime above the radices) and 16384 (one column per block).
std::vector<NdParam> nd_params() {
  using T = Transform;
  return {{{64, 64, 64}, T::c2c_forward}, {{1, 128}, T::c2c_forward},    {{128, 1}, T::c2c_forward},
          {{31, 48}, T::c2c_forward},     {{3, 5, 7}, T::c2c_forward},    {{96, 80}, T::c2c_inverse},
          {{2, 3, 1000}, T::c2c_inverse}, {{4097}, T::c2c_inverse},       {{2, 12289}, T::c2c_forward},
          {{2, 131072}, T::c2c_inverse},  {{2, 100003}, T::c2c_forward},  {{257, 6}, T::c2c_forward},
          {{4096, 8}, T::c2c_inverse},    {{16384, 2}, T::c2c_forward},   {{256, 256}, T::r2c},
          {{17, 1000}, T::r2c},           {{5, 9, 11}, T::r2c},           {{2, 2, 4096}, T::r2c},
          {{1, 1, 9}, T::r2c},            {{3, 257}, T::r2c},             {{3, 257, 8}, T::r2c},
          {{256, 256}, T::c2r},           {{17, 1000}, T::c2r},           {{5, 9, 11}, T::c2r},
          {{12, 1}, T::c2r},              {{1, 1, 9}, T::c2r},            {{7, 6}, T::c2r},
          {{4, 3, 16}, T::c2r},           {{3, 257}, T::c2r},             {{4097, 4}, T::c2r},
          {{17, 3, 5}, T::c2c_inverse},   {{5, 17, 6}, T::c2r},           {{40, 999}, T::c2c_forward}};
}

class FftNdHost : public ::testing::TestWithParam<NdParam> {};

TEST_P(FftNdHost, ChainMatchesFftw) {
  const NdParam& param = GetParam();
  const NdPlanSpec spec{param.shape, 3, param.transform};
  std::mt19937_64 rng(0x4e44 + nd_array_elements(spec, false));
  const test::NdReference r = test::nd_fftw_reference(spec, rng);
  const std::size_t out_reals = r.expected.size() / spec.batch;
  const std::vector<float> input = r.input;
  const gpu::NdLayout layout = gpu::make_nd_layout(spec);
  for (std::size_t count : {std::size_t{3}, std::size_t{2}, std::size_t{0}}) {
    std::vector<float> output(r.expected.size(), std::numeric_limits<float>::quiet_NaN());
    gpu::execute_nd_on_host(layout, input.data(), output.data(), count);
    for (std::size_t b = 0; b < count; ++b) {
      EXPECT_LE(test::relative_error(output.data() + b * out_reals, r.expected.data() + b * out_reals, out_reals),
                kTolerance)
          << layout.algorithm << ", array " << b;
    }
    for (std::size_t i = count * out_reals; i < output.size(); ++i)
      ASSERT_TRUE(std::isnan(output[i])) << "past the arrays asked for: " << i;
  }
  EXPECT_EQ(input, r.input) << "input modified";
}

INSTANTIATE_TEST_SUITE_P(Shapes, FftNdHost, ::testing::ValuesIn(nd_params()), test::nd_param_name<::testing::TestParamInfo<NdParam>>);

// Each step reads what the one before wrote (the first the input), never writes what it reads
// nor the input, and the last writes the output; c2r writes its real output only at the end;
// the scratch arrays hold what is written into them.
TEST(FftNdLayout, BuffersFollowTheChain) {
  for (const NdParam& param : nd_params()) {
    const gpu::NdLayout layout = gpu::make_nd_layout({param.shape, 2, param.transform});
    ASSERT_FALSE(layout.steps.empty());
    gpu::NdBuffer previous = gpu::NdBuffer::input;
    for (std::size_t j = 0; j < layout.steps.size(); ++j) {
      const gpu::NdStep& step = layout.steps[j];
      const bool last = j + 1 == layout.steps.size();
      EXPECT_EQ(step.from, previous) << layout.algorithm << " step " << j;
      EXPECT_NE(step.to, step.from) << layout.algorithm << " step " << j;
      EXPECT_NE(step.to, gpu::NdBuffer::input) << layout.algorithm << " step " << j;
      if (last) {
        EXPECT_EQ(step.to, gpu::NdBuffer::output) << layout.algorithm;
      } else if (param.transform == Transform::c2r) {
        EXPECT_NE(step.to, gpu::NdBuffer::output) << layout.algorithm;
      }
      // A scratch array holds all a step writes into it (complex elements, the whole batch).
      if (step.to == gpu::NdBuffer::scratch0 || step.to == gpu::NdBuffer::scratch1) {
        EXPECT_GE(layout.scratch_arrays, step.to == gpu::NdBuffer::scratch1 ? 2 : 1) << layout.algorithm;
        long long written = gpu::output_row_length(step.rows) * static_cast<long long>(step.rows.batch);
        if (step.kind == gpu::NdStep::Kind::transpose)
          written = step.rows_per_array * step.columns * static_cast<long long>(layout.spec.batch);
        if (step.kind == gpu::NdStep::Kind::columns)
          written = static_cast<long long>(step.rows.n) * step.columns * static_cast<long long>(step.rows.batch);
        EXPECT_LE(written, layout.scratch_elements) << layout.algorithm << " step " << j;
      }
      previous = step.to;
    }
  }
}

TEST(FftNdLayout, StepsOfEachKind) {
  gpu::NdLayout layout = gpu::make_nd_layout({{4, 6}, 5, Transform::r2c});
  EXPECT_EQ(layout.algorithm, "rows 6 r2c, columns 4 c2c_forward x 4");
  EXPECT_EQ(layout.steps[0].rows.batch, 20u);  // 4 rows of each of 5 arrays
  EXPECT_EQ(layout.steps[1].rows.batch, 5u);   // one group of 4 columns in each array
  EXPECT_EQ(layout.scratch_arrays, 1);
  EXPECT_EQ(layout.scratch_elements, 5 * 4 * 4);

  // c2r: the columns first, the real rows last.
  layout = gpu::make_nd_layout({{8, 3, 10}, 1, Transform::c2r});
  EXPECT_EQ(layout.algorithm, "columns 8 c2c_inverse x 18, columns 3 c2c_inverse x 6, rows 10 c2r");
  EXPECT_EQ(layout.steps[1].rows.batch, 8u);  // the middle axis: a group per index of the first
  EXPECT_EQ(layout.scratch_arrays, 2);
  EXPECT_EQ(layout.scratch_elements, 8 * 3 * 6);

  layout = gpu::make_nd_layout({{2, 3, 4}, 1, Transform::c2c_forward});
  EXPECT_EQ(layout.algorithm, "rows 4 c2c_forward, columns 3 c2c_forward x 4, columns 2 c2c_forward x 12");

  // An axis without a columns pass (257: Bluestein) takes the transposes' chain for the whole
  // array; so do all axes where the device's shared memory holds no block of columns.
  layout = gpu::make_nd_layout({{257, 6}, 1, Transform::c2c_forward});
  EXPECT_EQ(layout.algorithm, "rows 6 c2c_forward, transpose 257x6, rows 257 c2c_forward, transpose 6x257");
  layout = gpu::make_nd_layout({{3, 257, 8}, 1, Transform::c2r});
  EXPECT_EQ(layout.algorithm,
            "transpose 771x5, rows 257 c2c_inverse, transpose 15x257, rows 3 c2c_inverse, transpose 1285x3, rows 8 c2r");
  layout = gpu::make_nd_layout({{64, 64}, 1, Transform::c2c_forward}, 1024);
  EXPECT_EQ(layout.algorithm, "rows 64 c2c_forward, transpose 64x64, rows 64 c2c_forward, transpose 64x64");
  layout = gpu::make_nd_layout({{64, 64}, 1, Transform::c2c_forward});
  EXPECT_EQ(layout.algorithm, "rows 64 c2c_forward, columns 64 c2c_forward x 64");

  // One dimension, or unit lengths (dropped): the rows go straight to the output.
  layout = gpu::make_nd_layout({{4096}, 2, Transform::c2c_inverse});
  EXPECT_EQ(layout.algorithm, "rows 4096 c2c_inverse");
  EXPECT_EQ(layout.steps[0].from, gpu::NdBuffer::input);
  EXPECT_EQ(layout.steps[0].to, gpu::NdBuffer::output);
  EXPECT_EQ(layout.scratch_arrays, 0);
  layout = gpu::make_nd_layout({{1, 128}, 1, Transform::c2c_forward});
  EXPECT_EQ(layout.algorithm, "rows 128 c2c_forward");
  layout = gpu::make_nd_layout({{9, 1, 11}, 1, Transform::c2c_forward});
  EXPECT_EQ(layout.algorithm, "rows 11 c2c_forward, columns 9 c2c_forward x 11");
  // r2c and c2r keep a unit last length: it is their real axis.
  layout = gpu::make_nd_layout({{12, 1}, 1, Transform::c2r});
  EXPECT_EQ(layout.algorithm, "columns 12 c2c_inverse x 1, rows 1 c2r");
}

// Which columns one pass takes, and its blocks: at least kMinColumnsPerBlock neighbouring columns
// (every column where there are fewer), side by side in memory.
TEST(FftNdLayout, ColumnsPass) {
  EXPECT_TRUE(gpu::columns_pass_fits(4096, 4096, gpu::kMaxSharedBytesPerBlock));
  EXPECT_TRUE(gpu::columns_pass_fits(4096, 3, gpu::kMaxSharedBytesPerBlock));
  EXPECT_FALSE(gpu::columns_pass_fits(16384, 4096, gpu::kMaxSharedBytesPerBlock));  // one column per block
  EXPECT_FALSE(gpu::columns_pass_fits(4096, 4096, 64 * 1024));                      // 4 columns need 131 KB
  EXPECT_FALSE(gpu::columns_pass_fits(257, 64, gpu::kMaxSharedBytesPerBlock));      // Bluestein
  EXPECT_FALSE(gpu::columns_pass_fits(32768, 64, gpu::kMaxSharedBytesPerBlock));    // beyond one block
  for (const long long n : {2LL, 12LL, 64LL, 1000LL, 4096LL}) {
    const gpu::PlanLayout layout = gpu::make_columns_layout({n, 100, 3, true});
    ASSERT_EQ(layout.steps.size(), 1u) << n;
    const gpu::PassDesc& p = layout.steps[0].pass;
    EXPECT_GE(p.per_block, gpu::kMinColumnsPerBlock) << n;
    EXPECT_FALSE(p.inner_is_batch) << n;
    EXPECT_EQ(p.inner_count, 100) << n;
    EXPECT_EQ(p.in.elem_stride, 100) << n;
    EXPECT_EQ(p.in.inner_dist, 1) << n;
    EXPECT_EQ(p.in.outer_dist, n * 100) << n;
    EXPECT_EQ(p.out.elem_stride, 100) << n;
    EXPECT_TRUE(p.load_conj_raw && p.store_conj_final) << n;  // the inverse as conj(FFT(conj x))
    EXPECT_EQ(layout.spec.batch, 3u) << n;
  }
  EXPECT_THROW(gpu::make_columns_layout({16384, 4096, 1, false}), std::invalid_argument);
  EXPECT_THROW(gpu::make_columns_layout({257, 4, 1, false}), std::invalid_argument);
  EXPECT_THROW(gpu::make_columns_layout({64, 0, 1, false}), std::invalid_argument);
}

TEST(FftNdLayout, RefusesBadSpecs) {
  EXPECT_THROW(gpu::make_nd_layout({{}, 1, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(gpu::make_nd_layout({{2, 2, 2, 2}, 1, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(gpu::make_nd_layout({{64, 0}, 1, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(gpu::make_nd_layout({{64, 64}, 0, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(gpu::make_nd_layout({{1u << 16, 1u << 16}, 1, Transform::c2c_forward}), std::invalid_argument);
  // 2^31 elements are within the array limit, but no 1-D plan takes a row of 2^31.
  EXPECT_THROW(gpu::make_nd_layout({{std::size_t{1} << 31}, 1, Transform::c2c_forward}), std::invalid_argument);
}

TEST(FftNdLayout, TransposeOnHost) {
  // Two 2 x 3 matrices.
  std::vector<gpu::Cf> in, out(12);
  for (int i = 0; i < 12; ++i) in.push_back({static_cast<float>(i), static_cast<float>(-i)});
  gpu::transpose_on_host(in.data(), out.data(), 2, 2, 3);
  const float expected[] = {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(out[i].re, expected[i]) << i;
    EXPECT_EQ(out[i].im, -expected[i]) << i;
  }
}

}  // namespace
}  // namespace prism::fft
