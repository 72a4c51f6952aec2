// Host memory for block pools: page-aligned on the CPU, pinned (page-locked, through the CUDA
// runtime) when a GPU backend will copy from it. Allocated once per run, never on the hot path.
#pragma once

#include <cstddef>
#include <memory>

namespace prism {

enum class HostMemoryKind { page_aligned, cuda_pinned };

struct HostBufferDeleter {
  HostMemoryKind kind = HostMemoryKind::page_aligned;
  void operator()(std::byte* p) const noexcept;
};
using HostBuffer = std::unique_ptr<std::byte[], HostBufferDeleter>;

// Allocates `bytes` (rounded up to whole pages) of the given kind; throws std::runtime_error
// with the size and the reason when it cannot. cuda_pinned without CUDA support throws.
HostBuffer allocate_host(std::size_t bytes, HostMemoryKind kind);

// True when this build can pin host memory through CUDA.
bool pinned_memory_available();

}  // namespace prism
