// L2 hints for the rows and four-step kernels of our CUDA FFT: prefetching, where a block asks for
// the input of a block that starts a little later, so that DRAM keeps reading while the
// multiprocessors run their stages (rows_prefetch, four_step_prefetch in fft_pass.hpp); and table
// loads that ask L2 to keep the table (four_step_twiddles_evict_last).
#pragma once

#include <cuda_runtime.h>

#include "fft/cuda/fft_complex.hpp"
#include "fft/cuda/fft_pass.hpp"

namespace prism::fft::gpu {

// Asks L2 to fetch [begin, begin + bytes) (its 16-byte-aligned part) without waiting for it: a
// hint, on sm_90 and later (cp.async.bulk.prefetch), the lines marked to be evicted last (a
// whole wave ahead, c2c 1024 took 17 % more so, 24 % more unmarked); nothing on earlier devices.
__device__ __forceinline__ void prefetch_into_l2(const void* begin, long long bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto address = static_cast<unsigned long long>(__cvta_generic_to_global(begin));
  const unsigned long long first = (address + 15) & ~15ull;
  const unsigned long long last = (address + static_cast<unsigned long long>(bytes)) & ~15ull;
  if (last > first) {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(first),
                 "r"(static_cast<unsigned>(last - first)), "l"(policy)
                 : "memory");
  }
#else
  (void)begin;
  (void)bytes;
#endif
}

// load_table's read of table[i], the line marked to be evicted from L2 last (sm_80 and later;
// load_table elsewhere), so that a table read again by every transform of a batch stays in L2
// while the data streams past it.
__device__ __forceinline__ Cf load_table_evict_last(const Cf* table, long long i) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float re;
  float im;
  asm("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(re), "=f"(im) : "l"(table + i), "l"(policy));
  return Cf{re, im};
#else
  return load_table(table, i);
#endif
}

}  // namespace prism::fft::gpu
