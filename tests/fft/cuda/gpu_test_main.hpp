// For the main() of the GPU test binaries of fft/cuda: they skip (ctest SKIP_RETURN_CODE 77),
// saying why, where no CUDA device is usable.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

namespace prism::fft::test {

// 0 when a CUDA device is usable; otherwise prints "<name>: skipped: <reason>" and returns 77.
inline int skip_without_device(const char* name) {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status == cudaSuccess && devices > 0) return 0;
  std::printf("%s: skipped: %s\n", name, status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device");
  return 77;
}

}  // namespace prism::fft::test
