// The device side of CudaFir (cuda_fir.hpp): one kernel for a call's segments — load (native
// format converted; history before the chunk, zeros outside the input) → our team FFT → product
// with the filter's spectrum → the inverse transform (the forward transform of the conjugate,
// through the same team's shared memory) → the outputs FirSegmentMap::points names, counter-rotated
// by the shift → store — and the kernel that keeps the history for the next call.
#pragma once

#include "fft/cuda/fft_team.cuh"
#include "pipeline/cuda/native_samples.cuh"
#include "pipeline/gpu_fir_plan.hpp"

namespace prism::cuda::device {

using fft::gpu::Cf;
using fft::gpu::TeamFft;

struct FirConstants : NativeSamples {
  FirSegmentMap map;
  int complex_output = 0;
  int shifted = 0;
  double step_cycles = 0.0;             // frac(f/fs)
  unsigned long long history_items = 0;  // capacity of one history buffer, complex items
};

// One call (FirCall), plus where its data is and the shift's phase at its first segment.
struct FirLaunch {
  const unsigned char* raw = nullptr;  // the chunk (native format, device memory)
  float* out = nullptr;                // its outputs (f32 or cf32)
  unsigned long long first_segment = 0, end_segment = 0;
  unsigned long long out_first = 0, out_end = 0;
  unsigned long long block_first = 0;
  unsigned long long valid_end = 0;
  unsigned long long history_first = 0;  // absolute index of the current history's item 0
  unsigned long long keep_first = 0;     // the next history: items [keep_first, block end)
  unsigned long long block_end = 0;
  double anchor_cycles = 0.0;  // the phase of first_segment's first output (shifted)
  int history_parity = 0;      // current history: buffer [parity]; the next goes to [1 - parity]
};

constexpr int kFirCtaThreads = 256;

template <int kN>
__host__ __device__ constexpr int fir_teams() {
  return TeamFft<kN>::kThreads >= kFirCtaThreads ? 1 : kFirCtaThreads / TeamFft<kN>::kThreads;
}
template <int kN>
__host__ __device__ constexpr int fir_cta_threads() {
  return fir_teams<kN>() * TeamFft<kN>::kThreads;
}
template <int kN>
__host__ __device__ constexpr int fir_shared_bytes() {
  return fir_teams<kN>() * TeamFft<kN>::kSharedFloats * static_cast<int>(sizeof(float));
}
// As the fused spectrogram kernel: registers capped so that three CTAs of 256 threads fit.
template <int kN>
__host__ __device__ constexpr int fir_min_ctas() {
  const int ctas = 3 * kFirCtaThreads / fir_cta_threads<kN>();
  return ctas > 0 ? ctas : 1;
}

// Item p (absolute index) of the input as a complex value: zeros before 0 and from valid_end,
// the history before the chunk, the chunk converted from its native format.
__device__ __forceinline__ Cf fir_item(const FirConstants& k, const FirLaunch& c, const float* history,
                                       long long p) {
  if (p < 0 || static_cast<unsigned long long>(p) >= c.valid_end) return Cf{0.0f, 0.0f};
  const unsigned long long q = static_cast<unsigned long long>(p);
  if (q < c.block_first) {
    const unsigned long long i = q - c.history_first;
    return Cf{history[2 * i], history[2 * i + 1]};
  }
  const float2 v = convert_sample(k, c.raw, q - c.block_first);
  return Cf{v.x, v.y};
}

// Segments side by side, one team each; every team of a CTA runs its transforms (the stages
// synchronise the CTA), the teams past the call's last segment on zeros, storing nothing.
template <int kN>
__global__ void __launch_bounds__(fir_cta_threads<kN>(), fir_min_ctas<kN>())
fir_kernel(FirConstants k, FirLaunch c, const float* history_pair, const Cf* filter_spectrum,
           const Cf* stage_twiddles, const float2* output_phasors) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = fir_teams<kN>();
  extern __shared__ float shared[];
  const unsigned long long cta_first = c.first_segment + static_cast<unsigned long long>(blockIdx.x) * kTeams;
  if (cta_first >= c.end_segment) return;  // the same for every thread of the CTA
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const unsigned long long s = cta_first + team;
  const bool valid = s < c.end_segment;
  float* team_shared = shared + team * Fft::kSharedFloats;
  const fft::gpu::TeamPlanes planes{team_shared, team_shared + Fft::kPlaneFloats};
  const float* history = history_pair + static_cast<unsigned long long>(c.history_parity) * 2 * k.history_items;
  const long long start = k.map.window_start(s);

  // A window inside the chunk of mono f32 or cf32 input is read straight from it; any other
  // (history, zeros, other formats and channels) item by item, converted on the way.
  const bool inside = valid && start >= static_cast<long long>(c.block_first) &&
                      static_cast<unsigned long long>(start) + kN <= c.valid_end && k.channels == 1;
  const unsigned long long offset_in_chunk = inside ? static_cast<unsigned long long>(start) - c.block_first : 0;
  Fft forward;
  if (inside && k.format == cf32) {
    const float2* pairs = reinterpret_cast<const float2*>(c.raw) + offset_in_chunk;
    forward.load(lane, [&](int i) {
      const float2 v = pairs[i];
      return Cf{v.x, v.y};
    });
  } else if (inside && k.format == f32) {
    const float* reals = reinterpret_cast<const float*>(c.raw) + offset_in_chunk;
    forward.load(lane, [&](int i) { return Cf{reals[i], 0.0f}; });
  } else {
    forward.load(lane, [&](int i) { return valid ? fir_item(k, c, history, start + i) : Cf{0.0f, 0.0f}; });
  }
  Cf x[Fft::kOutputs];
  forward.run_into(planes, stage_twiddles, lane, x);
  // conj(X·H) into the planes: the inverse transform is conj(FFT(conj(Y))) (1/N is in H).
  __syncthreads();  // every thread has read the planes of the last stage
#pragma unroll
  for (int slot = 0; slot < Fft::kOutputs; ++slot) {
    const int b = Fft::output_index(lane, slot);
    const Cf h = filter_spectrum[b];
    const Cf y{x[slot].re * h.re - x[slot].im * h.im, x[slot].re * h.im + x[slot].im * h.re};
    planes.write(b, Cf{y.re, -y.im});
  }
  __syncthreads();
  Fft inverse;
  inverse.load(lane, [&](int i) { return planes.read(i); });
  inverse.run_into(planes, stage_twiddles, lane, x);
  if (!valid) return;  // no synchronisation follows

  const FirSegmentMap::Points points = k.map.points(s);
  const unsigned long long first_output = points.first_output;
  float anchor_re = 1.0f, anchor_im = 0.0f;
  if (k.shifted) {
    // The phase of the segment's first output from the call's: the step over an item count
    // below 2^53 in double, so the error stays near 1e-9 cycles.
    const double items = static_cast<double>(static_cast<long long>(first_output - k.map.first_output(c.first_segment)) *
                                              static_cast<long long>(k.map.decimation));
    double delta = items * k.step_cycles;
    delta -= floor(delta);
    double cycles = c.anchor_cycles + delta;
    cycles -= floor(cycles);
    double sine = 0.0, cosine = 0.0;
    sincospi(-2.0 * cycles, &sine, &cosine);
    anchor_re = static_cast<float>(cosine);
    anchor_im = static_cast<float>(sine);
  }
  const int decimation = static_cast<int>(k.map.decimation);
#pragma unroll
  for (int slot = 0; slot < Fft::kOutputs; ++slot) {
    const int rel = Fft::output_index(lane, slot) - static_cast<int>(points.first_point);
    if (rel < 0) continue;
    int r = rel;
    if (decimation > 1) {
      r = rel / decimation;
      if (r * decimation != rel) continue;
    }
    if (r >= static_cast<int>(points.count)) continue;
    const unsigned long long o = first_output + static_cast<unsigned long long>(r);
    if (o < c.out_first || o >= c.out_end) continue;
    const float yr = x[slot].re, yi = -x[slot].im;
    const unsigned long long at = o - c.out_first;
    if (!k.complex_output) {
      c.out[at] = yr;
      continue;
    }
    float2 v = make_float2(yr, yi);
    if (k.shifted) {
      const float2 t = output_phasors[r];
      const float pr = anchor_re * t.x - anchor_im * t.y, pi = anchor_re * t.y + anchor_im * t.x;
      v = make_float2(yr * pr - yi * pi, yr * pi + yi * pr);
    }
    reinterpret_cast<float2*>(c.out)[at] = v;
  }
}

// The items the next call's segments read before its chunk, [keep_first, block_end), into the
// other history buffer (from the old history or the chunk, converted).
__global__ void fir_history_kernel(FirConstants k, FirLaunch c, float* history_pair) {
  const unsigned long long count = c.block_end - c.keep_first;
  const unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const float* old_history = history_pair + static_cast<unsigned long long>(c.history_parity) * 2 * k.history_items;
  float* new_history = history_pair + static_cast<unsigned long long>(c.history_parity ^ 1) * 2 * k.history_items;
  const Cf v = fir_item(k, c, old_history, static_cast<long long>(c.keep_first + t));
  new_history[2 * t] = v.re;
  new_history[2 * t + 1] = v.im;
}

}  // namespace prism::cuda::device
