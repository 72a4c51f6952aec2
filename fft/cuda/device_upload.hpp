// Host-to-device copies of the FFT's and the DCT's tables, which the plans' kernels read on
// whatever stream the caller executes them on, as soon as plan creation returns. cudaMemcpy from pageable memory returns once the data is staged for
// DMA, before it has landed in device memory (CUDA Runtime API, "API synchronization behavior"),
// and kernels on non-blocking streams are not ordered after the default stream's copy: without
// the wait below such a kernel can read a table that is still arriving.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace prism::fft::gpu {

// Copies `bytes` from host memory to device memory and returns once they are in device memory.
inline cudaError_t upload_to_device(void* device, const void* host, std::size_t bytes) {
  const cudaError_t copied = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  if (copied != cudaSuccess) return copied;
  return cudaStreamSynchronize(nullptr);
}

}  // namespace prism::fft::gpu
