// The four-step kernel of our CUDA FFT: the column and row passes of a four-step over powers of
// two, and the real rows and columns of 500 (FourStepPassDesc, fft_pass.hpp), each column or row
// computed by one TeamFft (fft_team.cuh) of n/16 threads (50 for 500),
// four_step_teams(kind, n) of them side by side in a block. The pass
// kernel (fft_pass_kernel.cuh) runs these passes too, deciding per element what this kernel
// fixes at compile time (the stages, the thread map, the conjugations, the twiddle); here the
// first stage's inputs come straight from global memory into registers and the last stage's
// outputs go straight back (the addresses of four_step_in_offset / four_step_out_offset); the
// real rows of an r2c exchange Z with their mirror rows through shared memory first, the real
// columns of a c2r X with their mirror columns before the first stage. On
// the H200, c2c 2^16 took 0.533 ms on this kernel, 0.702 on the pass kernel, cuFFT 0.591
// (bench/RESULTS.md "Four-step kernel against the pass kernel", with the twiddle layout of
// twiddle_grid). Where four_step_prefetch says so (the plain row passes), a block first asks L2 for
// the rows of the block a quarter of a wave later; where four_step_twiddles_evict_last does (c2c's
// and r2c's columns), the column pass reads its twiddles marked to stay in L2.
#pragma once

#include <cuda_runtime.h>

#include "fft/cuda/fft_pass.hpp"
#include "fft/cuda/fft_prefetch.cuh"
#include "fft/cuda/fft_team.cuh"

namespace prism::fft::gpu {

// Block `block`'s outer index and the first of its kTeams transforms (the group's).
template <int kTeams>
__device__ __forceinline__ void four_step_block_origin(const FourStepPassDesc& d, long long block,
                                                       long long& outer, int& group_first) {
  const long long groups = d.inner_count / kTeams;
  outer = block / groups;
  group_first = static_cast<int>(block - outer * groups) * kTeams;
}

// Asks L2 for the input of block `block` of a plain row pass (nothing past the grid): lane 0 of
// each team the team's row.
template <int kN, FourStepKind kKind, FourStepShape kShape>
__device__ __forceinline__ void four_step_prefetch_rows(const FourStepPassDesc& d, const void* src, long long block) {
  static_assert(kKind == FourStepKind::rows || kKind == FourStepKind::rows_inverse, "plain row passes only");
  constexpr int kTeams = four_step_teams(kKind, kN);
  constexpr FourStepStrides kStrides = four_step_strides(kKind, kN, kShape);
  static_assert(kStrides.in_elem == 1, "a row pass reads whole rows");
  if (block >= gridDim.x || threadIdx.x >= kTeams) return;
  long long outer;
  int group_first;
  four_step_block_origin<kTeams>(d, block, outer, group_first);
  const long long row = group_first + static_cast<int>(threadIdx.x);
  prefetch_into_l2(static_cast<const Cf*>(src) + outer * d.in_outer + row * kStrides.in_inner, kN * sizeof(Cf));
}

// Block blockIdx.x: outer index blockIdx.x / (inner_count / kTeams), transforms kTeams x that
// group (kTeams = four_step_teams(kKind, kN)). Blocks of up to 1024 threads at 64 registers, as the
// rows kernel (the decimal teams' blocks of 400 two per multiprocessor, four_step_launch_blocks).
// The strides are compile-time constants (four_step_strides of kKind and kShape), so that the
// addresses of a thread's elements differ by constants and take no registers of their own; but
// the decimal passes' other side (FourStepShape::decimal: d.other_side), the stride of the real
// rows' stores and of the real columns' loads and stores. Every pass at 64 registers: c2r's
// real columns of 512 took 128 (one block per multiprocessor) while their exchange spilled 88
// bytes per thread; with four_step_real_slot's
// (36 bytes) two blocks of 512 threads ran c2r 2^19 in 0.757 ms instead of 0.826 and 2^20 in
// 0.765 instead of 0.837 on the H200 (bench/RESULTS.md "Four-step kernel: c2r's pre-processing in
// the column pass").
template <int kN, FourStepKind kKind, FourStepShape kShape>
__global__ void __launch_bounds__(four_step_launch_threads(kN), four_step_launch_blocks(kN))
    fft_four_step_kernel(const FourStepPassDesc d, const void* src, void* dst) {
  extern __shared__ float shared[];
  using Team = TeamFft<kN, false, rows_team_elements(kN), four_step_derive_twiddles(kKind, kN)>;
  constexpr bool kColumns = four_step_columns(kKind);
  constexpr bool kReal = kKind == FourStepKind::rows_real || kKind == FourStepKind::columns_real;
  constexpr bool kConjIn = kKind == FourStepKind::columns_inverse;
  constexpr bool kConjOut = kKind == FourStepKind::rows_inverse;
  constexpr bool kRunTimeSide = kShape == FourStepShape::decimal;
  const FourStepStrides strides = four_step_strides_of(
      kKind, kN, kRunTimeSide ? d.other_side : four_step_other_side(kKind, kN, kShape));
  constexpr int kTeams = four_step_teams(kKind, kN);
  // The count of the real rows or columns: n1 of the row passes, n2 of the column passes.
  const int paired = kColumns ? strides.in_elem : strides.out_elem;
  // The team-major map throughout, but for the row pass's loads and first stage.
  int team;
  int lane;
  four_step_team_major(static_cast<int>(threadIdx.x), kTeams, team, lane);
  int first_team = team;
  int first_lane = lane;
  if constexpr (!kColumns) four_step_lane_major(static_cast<int>(threadIdx.x), Team::kThreads, first_team, first_lane);
  long long outer;
  int group_first;
  four_step_block_origin<kTeams>(d, blockIdx.x, outer, group_first);
  // Only in the kernels that prefetch, as in the rows kernel.
  if constexpr (four_step_prefetch(kN, kKind)) {
    if (d.prefetch_ahead > 0) four_step_prefetch_rows<kN, kKind, kShape>(d, src, blockIdx.x + d.prefetch_ahead);
  }
  // The transform of a team: the next of the group, or for real rows a row or its mirror.
  const auto inner_of = [&](int t) {
    return kReal ? four_step_real_row(group_first, t, kTeams, paired) : group_first + t;
  };
  const int inner = inner_of(team);
  const Cf* x = static_cast<const Cf*>(src) + outer * d.in_outer + inner_of(first_team) * strides.in_inner;
  Cf* y = static_cast<Cf*>(dst) + outer * d.out_outer + inner * strides.out_inner;
  constexpr int kTeamFloats = four_step_team_floats(kN, kTeams);
  const auto planes_of = [&](int t) {
    return TeamPlanes{shared + t * kTeamFloats, shared + (kTeams + t) * kTeamFloats};
  };
  const TeamPlanes planes = planes_of(team);
  Team fft;
  fft.load(first_lane, [&](int i) {
    const Cf v = x[i * strides.in_elem];
    return kConjIn ? conj(v) : v;
  });
  if constexpr (kReal && kColumns) {
    // X of the column through the team's planes to the partner column's team
    // (four_step_real_slot), then the half-length inverse's input conj(2Z).
    constexpr int R = Team::kFirstRadix;
    constexpr int B = Team::kFirstButterflies;
#pragma unroll
    for (int q = 0; q < Team::kFirstPerThread; ++q) {
      const int j = Team::first_butterfly(lane, q);
#pragma unroll
      for (int r = 0; r < R; ++r) planes.write_slot(four_step_real_slot(inner, j + r * B), fft.v[q][r]);
    }
    __syncthreads();
    const TeamPlanes partner = planes_of(four_step_real_partner_team(team, inner, kTeams, paired));
#pragma unroll
    for (int q = 0; q < Team::kFirstPerThread; ++q) {
      const int j = Team::first_butterfly(lane, q);
      const Cf w_even = four_step_real_twiddle(d.real_tw, inner, j, paired);
      const Cf w_odd = four_step_real_twiddle(d.real_tw, inner, j + B, paired);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        Cf x_k = fft.v[q][r];
        Cf x_mirror = partner.read_slot(four_step_real_mirror_slot(kN, j + r * B));
        if (r == 0 && j == 0 && inner == 0) {  // X[0] pairs with X[h]; both imaginary parts ignored
          x_mirror = x[kN * paired];
          x_k.im = 0.0f;
          x_mirror.im = 0.0f;
        }
        fft.v[q][r] = conj(c2r_pre_value(x_k, x_mirror, real_butterfly_twiddle_of<R>(w_even, w_odd, r)));
      }
    }
  }
  if constexpr (kReal && !kColumns) {
    // Z of the row through the team's planes to the partner row's team (four_step_real_slot),
    // then X.
    constexpr int R = Team::kLastRadix;
    constexpr int B = Team::kLastButterflies;
    Cf z[Team::kOutputs];
    fft.run_remapped_into(planes_of(first_team), first_lane, planes, d.stage_tw, lane, z);
    __syncthreads();  // every thread has read the planes of the last stage
#pragma unroll
    for (int q = 0; q < Team::kLastPerThread; ++q) {
      const int j = Team::last_butterfly(lane, q, false);
#pragma unroll
      for (int r = 0; r < R; ++r) planes.write_slot(four_step_real_slot(inner, j + r * B), z[q * R + r]);
    }
    __syncthreads();
    const TeamPlanes partner = planes_of(four_step_real_partner_team(team, inner, kTeams, paired));
#pragma unroll
    for (int q = 0; q < Team::kLastPerThread; ++q) {
      const int j = Team::last_butterfly(lane, q, false);
      const Cf w_even = four_step_real_twiddle(d.real_tw, inner, j, paired);
      const Cf w_odd = four_step_real_twiddle(d.real_tw, inner, j + B, paired);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int k = j + r * B;
        Cf z_mirror = partner.read_slot(four_step_real_mirror_slot(kN, k));
        if (r == 0 && j == 0 && inner == 0) z_mirror = z[q * R];  // Z[0] pairs with itself
        y[k * strides.out_elem] =
            r2c_post_value(z[q * R + r], z_mirror, real_butterfly_twiddle_of<R>(w_even, w_odd, r));
      }
    }
    if (inner == 0 && lane == 0) {  // X[h] from Z[0] (slot 0 of lane 0 is k = 0)
      y[kN * strides.out_elem] = r2c_post_value(z[0], z[0], four_step_real_twiddle(d.real_tw, 0, kN, paired));
    }
    return;
  }
  // The column passes' twiddles (pass_twiddle, four_step_twiddle_split): split, a thread's
  // outputs are k = lane + kThreads * high (output_index), so the low factor is the thread's own,
  // read with slot 0 (high 0; read before the stages, it held registers through them and the
  // columns of 512 and 1024 spilled more), and the high factor a compile-time row of each slot.
  constexpr bool kSplitTwiddles =
      kColumns && four_step_twiddle_split(kN, four_step_other_side(kKind, kN, kShape)) != kN;
  const auto pass_twiddle = [&](long long i) {
    if constexpr (four_step_twiddles_evict_last(kKind)) return load_table_evict_last(d.pass_tw, i);
    return load_table(d.pass_tw, i);
  };
  Cf w_lane{1.0f, 0.0f};
  fft.run_remapped(planes_of(first_team), first_lane, planes, d.stage_tw, lane, [&](int slot, int k, Cf v) {
    if constexpr (kColumns && !kSplitTwiddles) v = cmul(v, pass_twiddle(k * strides.out_elem + inner));
    if constexpr (kSplitTwiddles) {
      const int high = Team::output_index(0, slot) / Team::kThreads;
      if (high == 0) {
        w_lane = pass_twiddle(lane * strides.out_elem + inner);
        v = cmul(v, w_lane);
      } else {
        const int row = twiddle_high_row(Team::kThreads, high);
        v = cmul(v, cmul(w_lane, pass_twiddle(row * strides.out_elem + inner)));
      }
    }
    y[k * strides.out_elem] = kConjOut ? conj(v) : v;
  });
}

}  // namespace prism::fft::gpu
