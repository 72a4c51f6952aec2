// Host buffers for block pools: page-aligned (CPU) or pinned through the CUDA runtime.
#include "pipeline/host_memory.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "pipeline/gpu_runtime.hpp"

#if PRISM_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

namespace prism {

namespace {
std::size_t page_size() {
  const long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}
std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}
}  // namespace

void HostBufferDeleter::operator()(std::byte* p) const noexcept {
  if (p == nullptr) return;
#if PRISM_HAVE_CUDART
  if (kind == HostMemoryKind::cuda_pinned) {
    const auto lock = gpu::lock_device_wide_calls();
    cudaFreeHost(p);
    return;
  }
#endif
  std::free(p);
}

bool pinned_memory_available() {
#if PRISM_HAVE_CUDART
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
#else
  return false;
#endif
}

HostBuffer allocate_host(std::size_t bytes, HostMemoryKind kind) {
  const std::size_t page = page_size();
  const std::size_t rounded = (bytes + page - 1) / page * page;
  if (rounded == 0) throw std::runtime_error("cannot allocate an empty host buffer");
  if (kind == HostMemoryKind::cuda_pinned) {
#if PRISM_HAVE_CUDART
    void* p = nullptr;
    const auto lock = gpu::lock_device_wide_calls();
    const cudaError_t err = cudaHostAlloc(&p, rounded, cudaHostAllocDefault);
    if (err != cudaSuccess)
      throw std::runtime_error("cannot pin " + mib(rounded) + " of host memory: " +
                               cudaGetErrorString(err));
    return HostBuffer(static_cast<std::byte*>(p), HostBufferDeleter{kind});
#else
    throw std::runtime_error("pinned host memory needs a build with the CUDA runtime");
#endif
  }
  void* p = std::aligned_alloc(page, rounded);
  if (p == nullptr) throw std::runtime_error("out of memory allocating " + mib(rounded));
  return HostBuffer(static_cast<std::byte*>(p), HostBufferDeleter{kind});
}

}  // namespace prism
