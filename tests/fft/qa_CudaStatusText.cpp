// The words for a CUDA runtime that cannot be used: no driver, a driver too old, no device.
#include <gtest/gtest.h>

#include "fft/cuda_status_text.hpp"

namespace prism::fft {
namespace {

const char* kInsufficient = "CUDA driver version is insufficient for CUDA runtime version";

TEST(CudaStatusText, NoDriverIsNotAnOldDriver) {
  const std::string none = cuda_unavailable_text(kCudaErrorInsufficientDriver, 0, 12020, kInsufficient);
  EXPECT_EQ(none.rfind("no NVIDIA driver is installed", 0), 0u) << none;
  EXPECT_EQ(none.find("update"), std::string::npos) << none;
  const std::string old = cuda_unavailable_text(kCudaErrorInsufficientDriver, 11040, 12020, kInsufficient);
  EXPECT_EQ(old.rfind("the NVIDIA driver supports CUDA 11.4, this build needs CUDA 12.2: update the driver", 0), 0u)
      << old;
}

TEST(CudaStatusText, NoDeviceAndOthers) {
  EXPECT_EQ(cuda_unavailable_text(kCudaErrorNoDevice, 12020, 12020, "no CUDA-capable device is detected")
                .rfind("no CUDA device is present", 0),
            0u);
  EXPECT_EQ(cuda_unavailable_text(999, 12020, 12020, "unknown error"), "unknown error");
  EXPECT_EQ(cuda_version_text(12080), "12.8");
}

}  // namespace
}  // namespace prism::fft
