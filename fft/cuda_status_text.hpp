// Why the CUDA runtime cannot be used, in words a user can act on. The CUDA runtime says
// "CUDA driver version is insufficient for CUDA runtime version" both when no NVIDIA driver is
// installed and when the installed one is too old; its version queries tell the two apart
// (cudaDriverGetVersion gives 0 without a driver). Plain C++ so that it is tested without a
// GPU; the CUDA code passes it what the runtime returned.
#pragma once

#include <string>
#include <string_view>

namespace prism::fft {

// The cudaError_t values it tells apart (the CUDA runtime's, stable across versions).
inline constexpr int kCudaErrorInsufficientDriver = 35;
inline constexpr int kCudaErrorNoDevice = 100;

// status: what cudaGetDeviceCount returned; driver_version, runtime_version: what
// cudaDriverGetVersion and cudaRuntimeGetVersion gave (1000 * major + 10 * minor; 0: none);
// runtime_text: cudaGetErrorString(status). E.g. "no NVIDIA driver is installed (...)", "the
// NVIDIA driver supports CUDA 11.4, this build needs CUDA 12.2 or a newer driver (...)".
std::string cuda_unavailable_text(int status, int driver_version, int runtime_version, std::string_view runtime_text);

// 12020 -> "12.2".
std::string cuda_version_text(int version);

}  // namespace prism::fft
