// The fused DCT kernels (dct_fused.hpp): one row per team of a TeamFft of half the DCT's length,
// teams side by side up to 256 threads a CTA. Type 2: the gather as the prologue of the real
// transform of n (its complex pairs (v[2i], v[2i+1])), the twiddle as the epilogue of X[0..n/2].
// Type 3: the twiddle as the prologue of the c2r of n, the scatter as its epilogue. Type 4: the
// pair-and-twiddle as the prologue of the complex transform of n/2, the twiddle and split as its
// epilogue.
#pragma once

#include <cuda_runtime.h>

#include "fft/cuda/dct_fused.hpp"
#include "fft/cuda/fft_team.cuh"

namespace prism::fft::gpu {

template <int kN, bool kRealInverse = false>
__host__ __device__ constexpr int dct_fused_teams() {
  using Fft = TeamFft<kN, kRealInverse>;
  return Fft::kThreads >= 256 ? 1 : 256 / Fft::kThreads;
}

// A CTA's rows staged through shared memory, each team's row where its planes are (they hold at
// least the row's 2·kN floats), copied by the whole CTA at consecutive addresses: the steps'
// gathers and scatters (stride 2 or 4, and reversed) then touch shared memory, not global. Rows
// past the last are zeros in, not stored out.
template <class Fft, int kTeams, int kLength>
__device__ __forceinline__ void stage_rows_in(const float* in, long long first_row, long long rows, float* shared) {
  static_assert(Fft::kSharedFloats >= kLength, "a team's planes hold its row");
  for (int index = static_cast<int>(threadIdx.x); index < kTeams * kLength; index += kTeams * Fft::kThreads) {
    const int team = index / kLength;
    const int i = index - team * kLength;
    const long long row = first_row + team;
    shared[team * Fft::kSharedFloats + i] = row < rows ? in[row * kLength + i] : 0.0f;
  }
  __syncthreads();
}

template <class Fft, int kTeams, int kLength>
__device__ __forceinline__ void stage_rows_out(float* out, long long first_row, long long rows, const float* shared) {
  __syncthreads();
  for (int index = static_cast<int>(threadIdx.x); index < kTeams * kLength; index += kTeams * Fft::kThreads) {
    const int team = index / kLength;
    const int i = index - team * kLength;
    const long long row = first_row + team;
    if (row < rows) out[row * kLength + i] = shared[team * Fft::kSharedFloats + i];
  }
}

// Type 2 of 2·kN: the real transform of 2·kN; its input pairs (v[2i], v[2i+1]) gathered from the
// row, its outputs X[0..kN] twiddled to k and 2·kN - k in global memory. The row is read from
// global memory through L1, but for the smallest teams from the row staged in shared memory:
// measured on the H200, staging took 0.71 ms against 0.80 at n = 128 and 0.47-0.53 against
// 0.40-0.42 at 256-8192.
template <int kN>
__global__ void __launch_bounds__(dct_fused_teams<kN>() * TeamFft<kN>::kThreads)
    dct_type2_fused_kernel(DctStepArgs args, const Cf* stage_twiddles, const Cf* real_twiddles, const float* in,
                           float* out, long long rows) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = dct_fused_teams<kN>();
  constexpr bool kStaged = kN <= 64;
  extern __shared__ float shared[];
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const long long first_row = static_cast<long long>(blockIdx.x) * kTeams;
  const long long row = first_row + team;
  const bool live = row < rows;  // idle teams still take part in the CTA's barriers
  if constexpr (kStaged) stage_rows_in<Fft, kTeams, 2 * kN>(in, first_row, rows, shared);
  const float* x = kStaged ? shared + team * Fft::kSharedFloats : in + (live ? row : 0) * 2ll * kN;
  float* y = out + row * 2ll * kN;
  Fft fft;
  fft.load(lane, [&](int i) {
    return Cf{dct_type2_input(x, 2 * kN, 2 * i), dct_type2_input(x, 2 * kN, 2 * i + 1)};
  });
  // The stages synchronise before their first write to the planes, after every load above.
  fft.run_real(Fft::planes(shared, team), stage_twiddles, real_twiddles, lane, [&](int, int k, Cf v) {
    if (live) dct_type2_store(v, y, args, k);
  });
}

// Type 3 of 2·kN: the c2r of 2·kN through TeamFft<kN, true> from the staged row's spectrum; its
// output pair k, conj(v[2k], v[2k+1]), scattered into the staged row and copied out (against
// the scatter straight to global memory, 1024-4096 took 0.67 ms instead of 0.72 on the H200).
template <int kN>
__global__ void __launch_bounds__(dct_fused_teams<kN, true>() * TeamFft<kN, true>::kThreads)
    dct_type3_fused_kernel(DctStepArgs args, const Cf* stage_twiddles, const Cf* real_twiddles, const float* in,
                           float* out, long long rows) {
  using Fft = TeamFft<kN, true>;
  constexpr int kTeams = dct_fused_teams<kN, true>();
  extern __shared__ float shared[];
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const long long first_row = static_cast<long long>(blockIdx.x) * kTeams;
  stage_rows_in<Fft, kTeams, 2 * kN>(in, first_row, rows, shared);
  float* row_shared = shared + team * Fft::kSharedFloats;
  Fft fft;
  fft.load_real_inverse(lane, [&](int k) { return dct_type3_spectrum(row_shared, args, k); }, real_twiddles);
  Cf v[Fft::kOutputs];
  fft.run_into(Fft::planes(shared, team), stage_twiddles, lane, v);
  __syncthreads();  // every team is done with its planes
#pragma unroll
  for (int slot = 0; slot < Fft::kOutputs; ++slot) {
    const int k = Fft::output_index(lane, slot);
    dct_type3_place(v[slot].re, row_shared, 2 * kN, 2 * k);
    dct_type3_place(-v[slot].im, row_shared, 2 * kN, 2 * k + 1);
  }
  stage_rows_out<Fft, kTeams, 2 * kN>(out, first_row, rows, shared);
}

// Type 4 of 2·kN: the complex transform of kN; its input pairs (x[2j], x[n-1-2j]) and its split
// outputs y[2k], y[n-1-2k] straight from and to global memory, but up to n = 512 through the row
// staged in shared memory: measured on the H200, staging took 0.59 and 0.52 ms against 0.98 and
// 0.72 at n = 128 and 256, and 0.58-0.59 against 0.43-0.47 at 1024-8192 (512: staged only).
template <int kN>
__global__ void __launch_bounds__(dct_fused_teams<kN>() * TeamFft<kN>::kThreads)
    dct_type4_fused_kernel(DctStepArgs args, const Cf* stage_twiddles, const float* in, float* out, long long rows) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = dct_fused_teams<kN>();
  constexpr bool kStaged = kN <= 256;
  extern __shared__ float shared[];
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const long long first_row = static_cast<long long>(blockIdx.x) * kTeams;
  const long long row = first_row + team;
  const bool live = row < rows;
  if constexpr (kStaged) {
    stage_rows_in<Fft, kTeams, 2 * kN>(in, first_row, rows, shared);
    float* row_shared = shared + team * Fft::kSharedFloats;
    Fft fft;
    fft.load(lane, [&](int j) { return dct_type4_half_input(row_shared, args, j); });
    Cf z[Fft::kOutputs];
    fft.run_into(Fft::planes(shared, team), stage_twiddles, lane, z);
    __syncthreads();  // every team is done with its planes
#pragma unroll
    for (int slot = 0; slot < Fft::kOutputs; ++slot) {
      dct_type4_half_store(z[slot], row_shared, args, Fft::output_index(lane, slot));
    }
    stage_rows_out<Fft, kTeams, 2 * kN>(out, first_row, rows, shared);
  } else {
    const float* x = in + (live ? row : 0) * 2ll * kN;
    float* y = out + row * 2ll * kN;
    Fft fft;
    fft.load(lane, [&](int j) { return dct_type4_half_input(x, args, j); });
    fft.run(Fft::planes(shared, team), stage_twiddles, lane, [&](int, int k, Cf v) {
      if (live) dct_type4_half_store(v, y, args, k);
    });
  }
}

template <class Kernel, int kN, bool kRealInverse = false, class... Args>
int launch_dct_fused(Kernel kernel, long long rows, void* stream, Args... args) {
  using Fft = TeamFft<kN, kRealInverse>;
  constexpr int kTeams = dct_fused_teams<kN, kRealInverse>();
  const int shared = kTeams * Fft::kSharedFloats * static_cast<int>(sizeof(float));
  if (shared > 48 * 1024) {
    const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
    if (status != cudaSuccess) return static_cast<int>(status);
  }
  const auto ctas = static_cast<unsigned>((rows + kTeams - 1) / kTeams);
  kernel<<<ctas, kTeams * Fft::kThreads, shared, static_cast<cudaStream_t>(stream)>>>(args..., rows);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace prism::fft::gpu
