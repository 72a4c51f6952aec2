// Why the CUDA runtime cannot be used (see cuda_status_text.hpp).
#include "fft/cuda_status_text.hpp"

namespace prism::fft {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cuda_unavailable_text(int status, int driver_version, int runtime_version, std::string_view runtime_text) {
  const std::string said = " (CUDA runtime: " + std::string(runtime_text) + ")";
  if (status == kCudaErrorInsufficientDriver) {
    if (driver_version <= 0) return "no NVIDIA driver is installed (libcuda.so.1 was not found)" + said;
    return "the NVIDIA driver supports CUDA " + cuda_version_text(driver_version) + ", this build needs CUDA " +
           cuda_version_text(runtime_version) + ": update the driver" + said;
  }
  if (status == kCudaErrorNoDevice) return "no CUDA device is present" + said;
  return std::string(runtime_text);
}

}  // namespace prism::fft
