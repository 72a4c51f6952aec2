// Tests of the CPU DCT's interface (fft/dct.hpp): argument checks, norm names, partial batches
// and rows of any alignment. Its values are compared with scipy.fft.dct by test_dct_vs_scipy.py.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "fft/dct.hpp"
#include "pipeline/errors.hpp"

namespace prism::fft {
namespace {

// scipy's type-2 'backward' DCT, directly.
std::vector<double> direct_dct2(const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      y[k] += 2.0 * x[j] * std::cos(std::numbers::pi * static_cast<double>(k * (2 * j + 1)) /
                                    (2.0 * static_cast<double>(n)));
  return y;
}

TEST(CpuDct, RefusesEmptyLengthAndBatch) {
  EXPECT_THROW(CpuDct<float>(DctSpec{0, 1, DctType::type2, DctNorm::ortho}), std::invalid_argument);
  EXPECT_THROW(CpuDct<double>(DctSpec{8, 0, DctType::type2, DctNorm::ortho}), std::invalid_argument);
}

TEST(CpuDct, NormNamesAreScipys) {
  EXPECT_EQ(parse_dct_norm("backward"), DctNorm::backward);
  EXPECT_EQ(parse_dct_norm("ortho"), DctNorm::ortho);
  EXPECT_EQ(parse_dct_norm("forward"), DctNorm::forward);
  try {
    parse_dct_norm("orthonormal");
    FAIL() << "an unknown norm was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("orthonormal"), std::string::npos) << e.what();
  }
}

TEST(CpuDct, PartialBatchLeavesTheOtherRowsAlone) {
  const std::size_t n = 12;
  CpuDct<double> dct(DctSpec{n, 3, DctType::type2, DctNorm::backward});
  std::vector<double> in(3 * n);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37 * static_cast<double>(i));
  std::vector<double> out(3 * n, -7.0);
  dct.execute(in.data(), out.data(), 2);
  for (std::size_t row = 0; row < 2; ++row) {
    const std::vector<double> x(in.begin() + row * n, in.begin() + (row + 1) * n);
    const std::vector<double> want = direct_dct2(x);
    for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(out[row * n + k], want[k], 1e-12);
  }
  for (std::size_t k = 2 * n; k < 3 * n; ++k) EXPECT_EQ(out[k], -7.0);
}

// Rows that start one float past the planned alignment take the unaligned plan; the values agree.
TEST(CpuDct, RowsOfAnyAlignmentGiveTheSameValues) {
  const std::size_t n = 64;
  CpuDct<float> dct(DctSpec{n, 1, DctType::type4, DctNorm::ortho});
  std::vector<float> in(n + 1), out_aligned(n), out_shifted(n + 1);
  for (std::size_t i = 0; i <= n; ++i) in[i] = std::cos(0.11f * static_cast<float>(i * i));
  std::vector<float> aligned_in(in.begin() + 1, in.end());
  dct.execute(aligned_in.data(), out_aligned.data());
  dct.execute(in.data() + 1, out_shifted.data() + 1);
  for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(out_shifted[k + 1], out_aligned[k], 1e-5f);
}

}  // namespace
}  // namespace prism::fft
