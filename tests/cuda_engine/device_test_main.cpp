// main() of the GPU stages' tests: exits 77 (ctest SKIP) when no usable CUDA device is present,
// before any test runs; otherwise names the device and runs the tests.
#include <gtest/gtest.h>

#include <cstdio>

#include "pipeline/cuda/cuda_spectrogram.hpp"

int main(int argc, char** argv) {
  const prism::cuda::DeviceInfo device = prism::cuda::probe_device(0);
  if (!device.usable) {
    std::printf("SKIP: %s\n", device.reason.c_str());
    return 77;
  }
  std::printf("device: %s\n", device.describe().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
