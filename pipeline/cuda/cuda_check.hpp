// check_cuda: the one way prism's CUDA code turns a failed runtime call into an exception —
// CudaError "call: reason (cudaErrorName, device N)", with the non-sticky error cleared so that
// clean-up calls can still run. For .cu and .cpp files that use the CUDA runtime.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>

#include "pipeline/gpu_runtime.hpp"

namespace prism::cuda {

// `call` is a view so that checks on per-block paths build no string unless they fail.
// After a call that succeeded, PRISM_CUDA_FAULT may still make it fail (gpu::injected_fault).
inline void check_cuda(cudaError_t status, std::string_view call, int device) {
  std::string fault;
  if (status == cudaSuccess) {
    fault = gpu::injected_fault(call);
    if (fault.empty()) return;
    status = cudaErrorLaunchFailure;
  }
  cudaGetLastError();
  throw CudaError(std::string(call) + ": " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) +
                  ", device " + std::to_string(device) + ")" + (fault.empty() ? "" : " (" + fault + ")"));
}

}  // namespace prism::cuda
