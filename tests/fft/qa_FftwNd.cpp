// Tests of the CPU backend's multi-dimensional transforms (FftwNdPlan in fft/fftw_backend.cpp) and
// of the spec helpers (inline in fft/fft.hpp): every transform kind in single and double precision
// against a direct DFT along each axis (tests/fft/nd_reference.hpp), in 1, 2 and 3 dimensions with
// odd, even, prime and unit lengths; partial batches, inputs kept, unaligned arrays, bad specs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "fft/fft.hpp"
#include "tests/fft/nd_reference.hpp"

namespace prism::fft {
namespace {

using test::NdParam;

std::vector<NdParam> nd_params() {
  const std::vector<std::vector<std::size_t>> shapes = {{12}, {4, 6}, {5, 7}, {8, 9}, {1, 16}, {16, 1}, {17, 10},
                                                        {2, 3, 5}, {4, 4, 4}, {3, 1, 6}, {6, 5, 7}};
  std::vector<NdParam> params;
  for (const auto& shape : shapes)
    for (Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r})
      params.push_back({shape, t});
  return params;
}

// Runs `count` of the 3 arrays of the batch through the plan and checks them against the
// reference, the arrays past `count` untouched (poisoned with NaN) and the input kept.
template <typename Real>
void check_nd(Backend& backend, const NdParam& param, std::size_t count, double tolerance) {
  std::mt19937_64 rng(0x4e44 + param.shape.size());
  NdPlanSpec spec{param.shape, 3, param.transform};
  const test::NdCase c = test::make_nd_case(spec, rng);
  const std::vector<Real> input(c.input.begin(), c.input.end());
  const std::size_t in_reals = input.size() / spec.batch;
  const std::size_t out_reals = c.expected.size() / spec.batch;
  std::vector<Real> output(c.expected.size(), std::numeric_limits<Real>::quiet_NaN());
  std::unique_ptr<NdPlan> plan = backend.plan_nd(spec);
  plan->execute(input.data(), output.data(), count);
  for (std::size_t b = 0; b < count; ++b) {
    EXPECT_LE(test::relative_error(output.data() + b * out_reals, c.expected.data() + b * out_reals, out_reals),
              tolerance)
        << shape_text(spec.shape) << " array " << b;
  }
  for (std::size_t i = count * out_reals; i < output.size(); ++i) ASSERT_TRUE(std::isnan(output[i])) << i;
  EXPECT_EQ(std::memcmp(input.data(), std::vector<Real>(c.input.begin(), c.input.end()).data(),
                        input.size() * sizeof(Real)),
            0)
      << "input modified";
  EXPECT_EQ(in_reals, nd_input_elements(spec) * (spec.transform == Transform::r2c ? 1 : 2));
}

class FftwNd : public ::testing::TestWithParam<NdParam> {};

TEST_P(FftwNd, SinglePrecisionMatchesDirectDft) {
  auto backend = make_cpu_backend(Precision::float32);
  check_nd<float>(*backend, GetParam(), 3, 1e-6);
  check_nd<float>(*backend, GetParam(), 2, 1e-6);
}

TEST_P(FftwNd, DoublePrecisionMatchesDirectDft) {
  auto backend = make_cpu_backend(Precision::float64);
  check_nd<double>(*backend, GetParam(), 3, 1e-14);
  check_nd<double>(*backend, GetParam(), 1, 1e-14);
}

INSTANTIATE_TEST_SUITE_P(Shapes, FftwNd, ::testing::ValuesIn(nd_params()), test::nd_param_name<::testing::TestParamInfo<NdParam>>);

TEST(FftwNdPlan, UnalignedArraysAreCorrect) {
  auto backend = make_cpu_backend();
  for (Transform t : {Transform::c2c_forward, Transform::r2c, Transform::c2r}) {
    NdPlanSpec spec{{32, 16}, 2, t};
    std::mt19937_64 rng(7);
    const test::NdCase c = test::make_nd_case(spec, rng);
    // One float past a 64-byte boundary: not the alignment the plan was made for.
    std::vector<float> in_storage(c.input.size() + 16), out_storage(c.expected.size() + 16);
    float* in = in_storage.data() + 1;
    float* out = out_storage.data() + 1;
    std::copy(c.input.begin(), c.input.end(), in);
    backend->plan_nd(spec)->execute(in, out);
    EXPECT_LE(test::relative_error(out, c.expected.data(), c.expected.size()), 1e-6) << static_cast<int>(t);
  }
}

TEST(FftwNdPlan, ForwardThenInverseScalesByTheElements) {
  auto backend = make_cpu_backend(Precision::float64);
  const std::vector<std::size_t> shape = {6, 10, 9};
  std::mt19937_64 rng(3);
  const std::vector<double> x = test::random_reals(test::nd_elements(shape), rng);
  std::vector<double> spectrum(6 * 10 * (9 / 2 + 1) * 2), back(x.size());
  backend->plan_nd({shape, 1, Transform::r2c})->execute(x.data(), spectrum.data());
  backend->plan_nd({shape, 1, Transform::c2r})->execute(spectrum.data(), back.data());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back[i], x[i] * 540.0, 1e-11) << i;
}

TEST(FftwNdPlan, RefusesBadSpecsAndInPlace) {
  auto backend = make_cpu_backend();
  EXPECT_THROW(backend->plan_nd({{}, 1, Transform::c2c_forward}), std::invalid_argument);
  EXPECT_THROW(backend->plan_nd({{2, 2, 2, 2}, 1, Transform::c2c_forward}), std::invalid_argument);
  EXPECT_THROW(backend->plan_nd({{4, 0}, 1, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(backend->plan_nd({{4, 4}, 0, Transform::r2c}), std::invalid_argument);
  EXPECT_THROW(backend->plan_nd({{1u << 20, 1u << 20}, 1, Transform::c2c_forward}), std::invalid_argument);
  try {
    backend->plan_nd({{2, 3, 4, 5}, 1, Transform::c2c_forward});
    ADD_FAILURE() << "a 4-D shape was planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 3 dimensions, not 4"), std::string::npos) << e.what();
  }
  std::vector<float> data(64);
  auto plan = backend->plan_nd({{4, 8}, 1, Transform::c2c_forward});
  EXPECT_THROW(plan->execute(data.data(), data.data()), std::invalid_argument);
}

TEST(FftCommon, NdElementsAndShapeText) {
  EXPECT_EQ(nd_input_elements({{4, 6}, 2, Transform::r2c}), 24u);
  EXPECT_EQ(nd_output_elements({{4, 6}, 2, Transform::r2c}), 16u);
  EXPECT_EQ(nd_input_elements({{3, 5, 7}, 1, Transform::c2r}), 60u);
  EXPECT_EQ(nd_output_elements({{3, 5, 7}, 1, Transform::c2r}), 105u);
  EXPECT_EQ(nd_output_elements({{3, 5}, 1, Transform::c2c_inverse}), 15u);
  EXPECT_EQ(shape_text({256, 256, 64}), "256x256x64");
  EXPECT_NO_THROW(check_nd_spec({{1024, 1024}, 1, Transform::c2c_forward}, std::size_t{1} << 20));
  EXPECT_THROW(check_nd_spec({{1025, 1024}, 1, Transform::c2c_forward}, std::size_t{1} << 20), std::invalid_argument);
  using Shape = std::vector<std::size_t>;
  EXPECT_EQ(nd_effective_shape({{1, 128}, 1, Transform::c2c_forward}), Shape({128}));
  EXPECT_EQ(nd_effective_shape({{9, 1, 11}, 1, Transform::c2c_inverse}), Shape({9, 11}));
  EXPECT_EQ(nd_effective_shape({{1, 1}, 1, Transform::c2c_forward}), Shape({1}));
  EXPECT_EQ(nd_effective_shape({{12, 1}, 1, Transform::c2r}), Shape({12, 1}));
  EXPECT_EQ(nd_effective_shape({{1, 1, 9}, 1, Transform::r2c}), Shape({9}));
}

}  // namespace
}  // namespace prism::fft
