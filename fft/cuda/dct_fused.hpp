// The GPU DCT's fused kernels (cuda_dct_fused.cuh): for power-of-two lengths from 128 to 8192,
// each type runs as one kernel, the steps before and after the FFT (dct_steps.hpp) as the
// prologue and the epilogue of a team FFT (fft_team.cuh), so the row goes through global memory
// once each way instead of three times. The other lengths take the three-launch path.
#pragma once

#include <vector>

#include "fft/cuda/dct_steps.hpp"

namespace prism::fft::gpu {

inline constexpr long long kDctFusedMinLength = 128;
inline constexpr long long kDctFusedMaxLength = 8192;

constexpr bool dct_fused_takes(DctAlgorithm algorithm, long long n) {
  return algorithm != DctAlgorithm::type4_padded && n >= kDctFusedMinLength && n <= kDctFusedMaxLength &&
         (n & (n - 1)) == 0;
}

// The stage twiddles of the fused kernel's team FFT of n / 2: in radix_list's order, or for type
// 3's c2r in rows_radix_list's real-inverse order at the team's elements per thread.
std::vector<Cf> dct_fused_stage_twiddles(DctAlgorithm algorithm, long long n);

// Launches the fused kernel of `args` (dct_fused_takes) over `rows` rows on `stream`
// (cudaStream_t). stage_twiddles: dct_fused_stage_twiddles; real_twiddles (types 2 and 3):
// unit_roots(n, n / 2 + 1). Returns the launch's cudaError_t as an int.
int launch_dct_type2_fused(const DctStepArgs& args, const Cf* stage_twiddles, const Cf* real_twiddles,
                           const float* in, float* out, long long rows, void* stream);
int launch_dct_type3_fused(const DctStepArgs& args, const Cf* stage_twiddles, const Cf* real_twiddles,
                           const float* in, float* out, long long rows, void* stream);
int launch_dct_type4_fused(const DctStepArgs& args, const Cf* stage_twiddles, const float* in, float* out,
                           long long rows, void* stream);

}  // namespace prism::fft::gpu
