// The four-step kernel of our CUDA FFT: the column and row passes of a four-step over powers of
// two (FourStepPassDesc, fft_pass.hpp), each column or row computed by one TeamFft
// (fft_team.cuh) of n/16 threads, four_step_teams(n) of them side by side in a block. The pass
// kernel (fft_pass_kernel.cuh) runs these passes too, deciding per element what this kernel
// fixes at compile time (the stages, the thread map, the conjugations, the twiddle); here the
// first stage's inputs come straight from global memory into registers and the last stage's
// outputs go straight back (the addresses of four_step_in_offset / four_step_out_offset). On
// the H200, c2c 2^16 took 0.533 ms on this kernel, 0.702 on the pass kernel, cuFFT 0.591
// (bench/RESULTS.md, ninth run, with the twiddle layout of twiddle_grid).
#pragma once

#include <cuda_runtime.h>

#include "fft/cuda/fft_pass.hpp"
#include "fft/cuda/fft_team.cuh"

namespace prism::fft::gpu {

// Block blockIdx.x: outer index blockIdx.x / (inner_count / kTeams), transforms kTeams x that
// group (kTeams = four_step_teams(kN)). Blocks of up to 1024 threads at 64 registers, as the
// rows kernel. The strides are compile-time constants (four_step_strides of kKind and kWide), so that the addresses of a
// thread's elements differ by constants and take no registers of their own.
template <int kN, FourStepKind kKind, bool kWide>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    fft_four_step_kernel(const FourStepPassDesc d, const void* src, void* dst) {
  extern __shared__ float shared[];
  using Team = TeamFft<kN>;
  constexpr bool kColumns = kKind == FourStepKind::columns || kKind == FourStepKind::columns_inverse;
  constexpr bool kConjIn = kKind == FourStepKind::columns_inverse;
  constexpr bool kConjOut = kKind == FourStepKind::rows_inverse;
  constexpr FourStepStrides kStrides = four_step_strides(kKind, kN, kWide);
  constexpr int kTeams = four_step_teams(kN);
  // The team-major map throughout, but for the row pass's loads and first stage.
  int team;
  int lane;
  four_step_team_major(static_cast<int>(threadIdx.x), kTeams, team, lane);
  int first_team = team;
  int first_lane = lane;
  if constexpr (!kColumns) four_step_lane_major(static_cast<int>(threadIdx.x), Team::kThreads, first_team, first_lane);
  const long long groups = d.inner_count / kTeams;
  const long long outer = blockIdx.x / groups;
  const int group_first = static_cast<int>(blockIdx.x - outer * groups) * kTeams;
  const int inner = group_first + team;
  const Cf* x = static_cast<const Cf*>(src) + outer * d.in_outer + (group_first + first_team) * kStrides.in_inner;
  Cf* y = static_cast<Cf*>(dst) + outer * d.out_outer + inner * kStrides.out_inner;
  constexpr int kTeamFloats = four_step_team_floats(kN, kTeams);
  const TeamPlanes planes{shared + team * kTeamFloats, shared + (kTeams + team) * kTeamFloats};
  const TeamPlanes first_planes{shared + first_team * kTeamFloats, shared + (kTeams + first_team) * kTeamFloats};
  Team fft;
  fft.load(first_lane, [&](int i) {
    const Cf v = x[i * kStrides.in_elem];
    return kConjIn ? conj(v) : v;
  });
  fft.run_remapped(first_planes, first_lane, planes, d.stage_tw, lane, [&](int, int k, Cf v) {
    if constexpr (kColumns) v = cmul(v, load_table(d.pass_tw, k * kStrides.out_elem + inner));
    y[k * kStrides.out_elem] = kConjOut ? conj(v) : v;
  });
}

}  // namespace prism::fft::gpu
