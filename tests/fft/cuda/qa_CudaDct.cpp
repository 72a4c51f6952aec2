// GPU checks of CudaDct (fft/cuda/cuda_dct.hpp): every type and norm over lengths odd and even up
// to 2^20 (the fused kernels' and the steps'), fresh random input in [-0.5, 0.5) per case, output
// poisoned with NaN, relative L2 error per row against CpuDct in double precision; rows past one
// CTA and past the grid's y limit; a partial batch leaves the other rows alone; the input is not
// modified. Exits with 77 (ctest SKIP) when no device is usable.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "fft/cuda/cuda_dct.hpp"
#include "tests/fft/cuda/dct_reference.hpp"
#include "tests/fft/cuda/gpu_test_main.hpp"

namespace prism::fft {
namespace {

constexpr double kTolerance = 1e-6;  // float rounding of the FFT; a wrong step is far above

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

// Device rows of floats, poisoned with NaN (all bits set) on creation.
struct DeviceRows {
  explicit DeviceRows(std::size_t count) : count(count) {
    EXPECT_EQ(cudaMalloc(&data, count * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemset(data, 0xff, count * sizeof(float)), cudaSuccess);
  }
  ~DeviceRows() { cudaFree(data); }
  std::vector<float> download() const {
    std::vector<float> host(count);
    EXPECT_EQ(cudaMemcpy(host.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  float* data = nullptr;
  std::size_t count;
};

// Runs `count` rows of spec on the device and checks them; returns the worst error.
double check_on_device(const DctSpec& spec, std::size_t count, std::mt19937_64& rng) {
  const std::vector<float> input = test::dct_input(spec.n * spec.batch, rng);
  DeviceRows in(input.size());
  DeviceRows out(input.size());
  EXPECT_EQ(cudaMemcpy(in.data, input.data(), input.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  CudaDct dct(spec);
  dct.execute(in.data, out.data, count);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> output = out.download();
  EXPECT_EQ(in.download(), input) << "input modified, " << dct.describe();
  const std::vector<double> ref = test::dct_reference(spec, input, count);
  double worst = 0.0;
  for (std::size_t row = 0; row < count; ++row) {
    const double error = test::dct_row_error(output.data() + row * spec.n, ref.data() + row * spec.n, spec.n);
    EXPECT_LE(error, kTolerance) << dct.describe() << " row " << row;
    worst = std::max(worst, error);
  }
  for (std::size_t i = count * spec.n; i < output.size(); ++i) {
    if (!std::isnan(output[i])) {
      ADD_FAILURE() << dct.describe() << ": element " << i << " beyond the " << count << " rows was written";
      break;
    }
  }
  return worst;
}

TEST(CudaDct, EveryTypeAndNormAgainstDoublePrecision) {
  std::mt19937_64 rng(20261204);
  for (const DctType type : {DctType::type2, DctType::type3, DctType::type4}) {
    double worst = 0.0;
    // Powers of two 128 to 8192: the fused kernels (dct_fused.hpp); the rest, the steps.
    for (const std::size_t n : {1, 2, 3, 5, 8, 13, 40, 64, 97, 128, 255, 256, 512, 1000, 1009, 1024, 2048, 4095,
                                4096, 4097, 8192, 10007, 16384, 48000, 65536, 1 << 20}) {
      for (const DctNorm norm : {DctNorm::backward, DctNorm::ortho, DctNorm::forward}) {
        const std::size_t batch = n >= 65536 ? 2 : 5;
        worst = std::max(worst, check_on_device({.n = n, .batch = batch, .type = type, .norm = norm}, batch, rng));
      }
    }
    std::printf("DCT type %d: worst relative L2 error %.2e\n", static_cast<int>(type), worst);
  }
}

TEST(CudaDct, PartialBatchLeavesTheOtherRowsAlone) {
  std::mt19937_64 rng(7);
  for (const DctType type : {DctType::type2, DctType::type3, DctType::type4})
    for (const std::size_t n : {12, 4096, 4097}) check_on_device({.n = n, .batch = 7, .type = type}, 3, rng);
}

// Rows past a fused kernel's first CTA (up to 64 teams of one row each, the last CTA partly idle)
// and past the 65535 rows of the three-launch path's grid (its kernels loop over the rest).
TEST(CudaDct, RowsBeyondOneBlockAndBeyondTheGrid) {
  std::mt19937_64 rng(11);
  for (const DctType type : {DctType::type2, DctType::type3, DctType::type4}) {
    for (const std::size_t n : {128, 512, 1024}) check_on_device({.n = n, .batch = 203, .type = type}, 203, rng);
    check_on_device({.n = 3, .batch = 70001, .type = type}, 70001, rng);
  }
}

TEST(CudaDct, SaysWhatItRuns) {
  const CudaDct dct({.n = 4096, .batch = 2, .type = DctType::type2, .norm = DctNorm::ortho});
  EXPECT_EQ(dct.describe(), "DCT-II n=4096 norm=ortho (one kernel: gather, r2c of n, twiddle)");
  const CudaDct steps({.n = 4095, .type = DctType::type2});
  EXPECT_EQ(steps.describe(), "DCT-II n=4095 norm=backward (gather, r2c of n, twiddle)");
  EXPECT_GT(dct.device_bytes(), 2 * 4096 * sizeof(float));
  EXPECT_THROW(CudaDct({.n = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace prism::fft

int main(int argc, char** argv) {
  if (const int skip = prism::fft::test::skip_without_device("qa_CudaDct")) return skip;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
