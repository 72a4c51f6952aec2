// The rows kernel of our CUDA FFT: a single pass over plain batched rows of a power-of-two
// length or a decimal one (RowsPassDesc, fft_pass.hpp), each row computed by one TeamFft
// (fft_team.cuh) of n/16 threads, n/32 (wide teams, kWideTeamElements) for rows of 8192, n/10
// (kDecimalTeamElements) for rows of 500, 1000, 2000 and 4000. The pass kernel
// (fft_pass_kernel.cuh) serves every layout of the planner and decides at run time what this
// kernel fixes at compile time (strides, the thread-to-butterfly map, partial blocks at every
// stage, load and store kinds); the first stage's inputs come straight from global memory into
// registers and the last stage's outputs go straight back. On the H200,
// c2c 512 to 4096 took 0.264-0.270 ms on this kernel, 0.295-0.310 on the pass kernel, cuFFT
// 0.261-0.266 (bench/RESULTS.md "Rows kernel against the pass kernel"). The stages, twiddle tables
// and real-FFT steps are the pass kernel's (the same functions); c2r runs its stages in
// rows_radix_list's order and reads each X once (TeamFft::load_real_inverse). Where rows_prefetch
// says so, each team first asks L2 for the input of a row that starts a quarter of a wave of blocks
// later. Where rows_input_bypasses_l1 says so, the input is read past L1 so that the stage twiddles
// stay there; where rows_derive_twiddles says so, the team reads fewer twiddles and forms the rest
// as products.
#pragma once

#include <cuda_runtime.h>

#include "fft/cuda/fft_pass.hpp"
#include "fft/cuda/fft_prefetch.cuh"
#include "fft/cuda/fft_team.cuh"

namespace prism::fft::gpu {

// A row's input element; where rows_input_bypasses_l1 says so, read without allocating its line
// in L1 (each is read once), so that the stage twiddles read through L1 (75 KB at 8192) stay.
template <bool kBypassL1>
__device__ __forceinline__ Cf load_row_element(const Cf* p) {
  if constexpr (kBypassL1) {
    Cf v;
    asm("ld.global.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(v.re), "=f"(v.im) : "l"(p));
    return v;
  } else {
    return *p;
  }
}

// Rows blockIdx.x * rows_per_block(kN, kKind, kE) + team of `rows`, in blocks of
// rows_block_threads, teams of kE elements per thread. Blocks of 256 threads or fewer ask for 768
// threads per multiprocessor (80 registers each): fewer spills, and against 1024 threads at 64
// registers c2c 64-4096 took up to 6 % less, r2c 1024-8192 3-10 % less (bench/RESULTS.md "Rows
// kernel: block size and registers"); c2r too but for halves 256 and 2048 (c2r 512, 4096), 6 %
// slower at 768, which keep 1024. Larger blocks (one row of 8192 or 16384) ask for as many as 64
// registers allow: at 128 the rows of 8192 had one block per multiprocessor and c2c 8192 took 0.394
// ms instead of 0.319; fewer than 64 registers spilled (c2c 256-4096 at 48 or 40: 0.37-0.65 ms
// instead of 0.26). Wide teams (kWideTeamElements, rows of 8192) ask for two blocks of 256 threads,
// 128 registers: at three (80 registers) they spilled and c2c 8192 took 0.508 ms instead of 0.318.
// Decimal teams (blocks of 400 threads) ask for three blocks, 48 registers (8 bytes spilled in
// r2c): at two (72 registers) c2c 500 took 0.325 ms instead of 0.285, r2c 1000 0.404 instead of
// 0.375 and r2c 2000 0.423 instead of 0.378 (bench/RESULTS.md "Decimal teams: three blocks per
// multiprocessor"); the rows of 2000 and 4000 too.
template <int kN, RowsKind kKind, int kE>
constexpr int rows_min_blocks() {
  constexpr int threads = rows_block_threads(kN, kKind, kE);
  if (kE == kDecimalTeamElements) return 3;
  if (kE != kElementsPerThread) return 2;
  if (threads > 256) return kMaxThreadsPerBlock / threads;
  const bool at_64_registers = kKind == RowsKind::real_inverse && (kN == 256 || kN == 2048);
  return (at_64_registers ? 1024 : 768) / threads;
}
template <int kN, RowsKind kKind, int kE = rows_team_elements(kN)>
__global__ void __launch_bounds__(rows_block_threads(kN, kKind, kE), (rows_min_blocks<kN, kKind, kE>()))
    fft_rows_kernel(const RowsPassDesc d, const void* src, void* dst, long long rows) {
  extern __shared__ float shared[];
  using Team = TeamFft<kN, kKind == RowsKind::real_inverse, kE, rows_derive_twiddles(kN, kKind, kE)>;
  const int team = static_cast<int>(threadIdx.x) / Team::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Team::kThreads;
  const long long row = static_cast<long long>(blockIdx.x) * rows_per_block(kN, kKind, kE) + team;
  // Teams past the last row run the stages on zeros (the stages synchronise the whole block)
  // and store nothing.
  const bool live = row < rows;
  constexpr bool kBypassL1 = rows_input_bypasses_l1(kN, kKind, kE);
  const Cf* x = static_cast<const Cf*>(src) + row * d.in_dist;
  Cf* y = static_cast<Cf*>(dst) + row * d.out_dist;
  // Only in the kernels that prefetch: with the test compiled in and not taken, c2r 128-2048,
  // 8192, 32768 and 1000 took 5-13 % more (bench/RESULTS.md "Rows kernel: prefetching a later row
  // into L2").
  if constexpr (rows_prefetch(kN, kKind)) {
    if (lane == 0 && d.prefetch_ahead > 0 && row + d.prefetch_ahead < rows) {
      constexpr long long kInputBytes = (kKind == RowsKind::real_inverse ? kN + 1 : kN) * sizeof(Cf);
      prefetch_into_l2(x + d.prefetch_ahead * d.in_dist, kInputBytes);
    }
  }
  const TeamPlanes planes = Team::planes(shared, team);
  Team fft;
  if constexpr (kKind == RowsKind::real_inverse) {
    fft.load_real_inverse(
        lane, [&](int i) { return live ? load_row_element<kBypassL1>(x + i) : Cf{0.0f, 0.0f}; }, d.real_tw);
    fft.run(planes, d.stage_tw, lane, [&](int, int k, Cf v) {
      if (live) y[k] = conj(v);
    });
  } else if constexpr (kKind == RowsKind::real_forward) {
    fft.load(lane, [&](int i) { return live ? load_row_element<kBypassL1>(x + i) : Cf{0.0f, 0.0f}; });
    fft.run_real(planes, d.stage_tw, d.real_tw, lane, [&](int, int k, Cf v) {
      if (live) y[k] = v;
    });
  } else {
    constexpr bool kInverse = kKind == RowsKind::inverse;
    fft.load(lane, [&](int i) {
      if (!live) return Cf{0.0f, 0.0f};
      const Cf v = load_row_element<kBypassL1>(x + i);
      return kInverse ? conj(v) : v;
    });
    fft.run(planes, d.stage_tw, lane, [&](int, int k, Cf v) {
      if (live) y[k] = kInverse ? conj(v) : v;
    });
  }
}

}  // namespace prism::fft::gpu
