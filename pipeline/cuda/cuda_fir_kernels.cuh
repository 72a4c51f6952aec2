// The device side of CudaFir (cuda_fir.hpp): one kernel for a call's segments — load (native
// format converted; history before the chunk, zeros outside the input) → our team FFT → product
// with the filter's spectrum → the inverse transform (the forward transform of the conjugate,
// through the same team's shared memory) → the outputs FirSegmentMap::points names, counter-rotated
// by the shift → store — and the kernel that keeps the history for the next call. Where the plan
// folds the decimation (GpuFirPlan::fold = D), fir_fold_kernel: each team runs D forward
// transforms of N one after the other (of D segments, or packed of D pairs), folds each product
// onto N/D bins in shared memory, then splits into D teams of N/D that run the D inverse
// transforms side by side. A partitioned filter (GpuFirPlan::partitions = K > 1) runs three
// kernels: fir_forward_kernel (each segment's window transformed into a ring of spectra),
// fir_sum_kernel (Y_s = Σ_k X_{s−k}·H_k, bin by bin, folded onto N/D bins where the plan folds)
// and fir_inverse_kernel (the inverse transform, of N or N/D, and the same epilogue).
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
  int real_part = 0;  // a complex output stored as its real parts (f32): usb, lsb
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

// The window of segment s (first item `start`) into `fft`'s registers: inside the chunk, mono f32
// or cf32 straight from it; any other (history, zeros, other formats and channels) item by item,
// converted on the way; zeros for a team past the call's last segment (valid false).
template <class Fft>
__device__ __forceinline__ void fir_load_window(Fft& fft, const FirConstants& k, const FirLaunch& c,
                                                const float* history, long long start, bool valid, int lane) {
  const bool inside = valid && start >= static_cast<long long>(c.block_first) &&
                      static_cast<unsigned long long>(start) + Fft::kThreads * Fft::kOutputs <= c.valid_end &&
                      k.channels == 1;
  const unsigned long long offset_in_chunk = inside ? static_cast<unsigned long long>(start) - c.block_first : 0;
  if (inside && k.format == cf32) {
    const float2* pairs = reinterpret_cast<const float2*>(c.raw) + offset_in_chunk;
    fft.load(lane, [&](int i) {
      const float2 v = pairs[i];
      return Cf{v.x, v.y};
    });
  } else if (inside && k.format == f32) {
    const float* reals = reinterpret_cast<const float*>(c.raw) + offset_in_chunk;
    fft.load(lane, [&](int i) { return Cf{reals[i], 0.0f}; });
  } else {
    fft.load(lane, [&](int i) { return valid ? fir_item(k, c, history, start + i) : Cf{0.0f, 0.0f}; });
  }
}

// Packed (real input and real taps): segment s's window (first item `start`) as the real parts
// and segment s + 1's (from start + B) as the imaginary parts. With H the spectrum of real taps
// the inverse transform's real and imaginary parts are the two segments' convolutions, so one
// transform pair serves two segments. Both windows are the input's items (zeros from its end)
// whether or not the call stores both segments, so that a segment's partner is the same in every
// cutting; zeros for a team past the call's last segment (valid false).
template <class Fft>
__device__ __forceinline__ void fir_load_pair(Fft& fft, const FirConstants& k, const FirLaunch& c,
                                              const float* history, long long start, bool valid, int lane) {
  const int hop = static_cast<int>(k.map.hop);
  const bool inside = valid && k.format == f32 && k.channels == 1 &&
                      start >= static_cast<long long>(c.block_first) &&
                      static_cast<unsigned long long>(start) + hop + Fft::kThreads * Fft::kOutputs <= c.valid_end;
  if (inside) {
    const float* reals = reinterpret_cast<const float*>(c.raw) + (static_cast<unsigned long long>(start) - c.block_first);
    fft.load(lane, [&](int i) { return Cf{reals[i], reals[hop + i]}; });
  } else {
    fft.load(lane, [&](int i) {
      return valid ? Cf{fir_item(k, c, history, start + i).re, fir_item(k, c, history, start + hop + i).re}
                   : Cf{0.0f, 0.0f};
    });
  }
}

// conj(X·H) into the planes, for the inverse transform as the forward transform of the
// conjugate (1/N is in H).
template <class Fft>
__device__ __forceinline__ void fir_product_into(const fft::gpu::TeamPlanes& planes, const Cf (&x)[Fft::kOutputs],
                                                 const Cf* filter_spectrum, int lane) {
#pragma unroll
  for (int slot = 0; slot < Fft::kOutputs; ++slot) {
    const int b = Fft::output_index(lane, slot);
    const Cf h = filter_spectrum[b];
    const Cf y{x[slot].re * h.re - x[slot].im * h.im, x[slot].re * h.im + x[slot].im * h.re};
    planes.write(b, Cf{y.re, -y.im});
  }
}

// The shift's phase at a segment's first output, from the call's: the step over an item count
// below 2^53 in double, so the error stays near 1e-9 cycles. (1, 0) when not shifted.
__device__ __forceinline__ float2 fir_anchor(const FirConstants& k, const FirLaunch& c,
                                             unsigned long long first_output) {
  if (!k.shifted) return make_float2(1.0f, 0.0f);
  const double items = static_cast<double>(static_cast<long long>(first_output - k.map.first_output(c.first_segment)) *
                                            static_cast<long long>(k.map.decimation));
  double delta = items * k.step_cycles;
  delta -= floor(delta);
  double cycles = c.anchor_cycles + delta;
  cycles -= floor(cycles);
  double sine = 0.0, cosine = 0.0;
  sincospi(-2.0 * cycles, &sine, &cosine);
  return make_float2(static_cast<float>(cosine), static_cast<float>(sine));
}

// Output first_output + r of a segment from x, the inverse transform's point as the forward
// transform of the conjugate computed it: stored when the call writes it, counter-rotated by the
// shift.
__device__ __forceinline__ void fir_store(const FirConstants& k, const FirLaunch& c, const float2* output_phasors,
                                          float2 anchor, unsigned long long first_output, int r, Cf x) {
  const unsigned long long o = first_output + static_cast<unsigned long long>(r);
  if (o < c.out_first || o >= c.out_end) return;
  const float yr = x.re, yi = -x.im;
  const unsigned long long at = o - c.out_first;
  if (!k.complex_output) {
    c.out[at] = yr;
    return;
  }
  float2 v = make_float2(yr, yi);
  if (k.shifted) {
    const float2 t = output_phasors[r];
    const float pr = anchor.x * t.x - anchor.y * t.y, pi = anchor.x * t.y + anchor.y * t.x;
    v = make_float2(yr * pr - yi * pi, yr * pi + yi * pr);
  }
  if (k.real_part) {
    c.out[at] = v.x;
    return;
  }
  reinterpret_cast<float2*>(c.out)[at] = v;
}

// Segment s's outputs from the thread's points of the inverse transform (as the forward
// transform of the conjugate computed them): the ones FirSegmentMap::points names, every D-th.
// kSecond: the packed pair's second segment, the imaginary parts (the conjugate's negated).
template <class Fft, bool kSecond = false>
__device__ __forceinline__ void fir_store_segment(const FirConstants& k, const FirLaunch& c,
                                                  const float2* output_phasors, unsigned long long s,
                                                  const Cf (&x)[Fft::kOutputs], int lane) {
  const FirSegmentMap::Points points = k.map.points(s);
  const float2 anchor = fir_anchor(k, c, points.first_output);
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
    fir_store(k, c, output_phasors, anchor, points.first_output, r, kSecond ? Cf{-x[slot].im, 0.0f} : x[slot]);
  }
}

// Segments side by side, one team each (kPacked: one pair (2p, 2p + 1) per team, fir_load_pair,
// from the pair holding the call's first segment); every team of a CTA runs its transforms (the
// stages synchronise the CTA), the teams past the call's last segment on zeros, storing nothing.
template <int kN, bool kPacked = false>
__global__ void __launch_bounds__(fir_cta_threads<kN>(), fir_min_ctas<kN>())
fir_kernel(FirConstants k, FirLaunch c, const float* history_pair, const Cf* filter_spectrum,
           const Cf* stage_twiddles, const Cf* /*inverse_twiddles: fold kernels only*/,
           const float2* output_phasors) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = fir_teams<kN>();
  constexpr int kSegmentsPerTeam = kPacked ? 2 : 1;
  extern __shared__ float shared[];
  // Packed, the first pair may hold the segment before the call's first (a flush that starts
  // inside a pair): it is computed with its partner, as in any cutting, and not stored.
  const unsigned long long first_unit = c.first_segment / kSegmentsPerTeam;
  const unsigned long long cta_first =
      (first_unit + static_cast<unsigned long long>(blockIdx.x) * kTeams) * kSegmentsPerTeam;
  if (cta_first >= c.end_segment) return;  // the same for every thread of the CTA
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const unsigned long long s = cta_first + static_cast<unsigned long long>(team) * kSegmentsPerTeam;
  const bool valid = s < c.end_segment;
  const bool store_first = valid && s >= c.first_segment;
  const bool store_second = kPacked && s + 1 < c.end_segment;
  float* team_shared = shared + team * Fft::kSharedFloats;
  const fft::gpu::TeamPlanes planes{team_shared, team_shared + Fft::kPlaneFloats};
  const float* history = history_pair + static_cast<unsigned long long>(c.history_parity) * 2 * k.history_items;

  Fft forward;
  if constexpr (kPacked) fir_load_pair(forward, k, c, history, k.map.window_start(s), valid, lane);
  else fir_load_window(forward, k, c, history, k.map.window_start(s), valid, lane);
  Cf x[Fft::kOutputs];
  forward.run_into(planes, stage_twiddles, lane, x);
  __syncthreads();  // every thread has read the planes of the last stage
  fir_product_into<Fft>(planes, x, filter_spectrum, lane);
  __syncthreads();
  Fft inverse;
  inverse.load(lane, [&](int i) { return planes.read(i); });
  inverse.run_into(planes, stage_twiddles, lane, x);
  if (!valid) return;  // no synchronisation follows

  if (store_first) fir_store_segment<Fft>(k, c, output_phasors, s, x, lane);
  if (store_second) fir_store_segment<Fft, true>(k, c, output_phasors, s + 1, x, lane);
}

// Segment s's outputs from the thread's rows of a folded inverse transform (row r is point
// δ + D·r; the conjugate, as fir_store_segment's). kSecond: the packed pair's second segment.
template <class Inverse, bool kSecond = false>
__device__ __forceinline__ void fir_store_folded(const FirConstants& k, const FirLaunch& c,
                                                 const float2* output_phasors, unsigned long long s,
                                                 const Cf (&y)[Inverse::kOutputs], int sub_lane) {
  const FirSegmentMap::Points points = k.map.points(s);
  const float2 anchor = fir_anchor(k, c, points.first_output);
  const int first_row = static_cast<int>(k.map.folded_row(points.first_point));
#pragma unroll
  for (int slot = 0; slot < Inverse::kOutputs; ++slot) {
    const int r = Inverse::output_index(sub_lane, slot) - first_row;
    if (r < 0 || r >= static_cast<int>(points.count)) continue;
    fir_store(k, c, output_phasors, anchor, points.first_output, r, kSecond ? Cf{-y[slot].im, 0.0f} : y[slot]);
  }
}

// The fold kernel's shapes: a team of N runs D forward transforms, then D teams of L = N/D (the
// same elements per thread, so the threads split evenly) run the inverses. Shared memory per
// team: the planes of N (the D teams of L reuse them), then the D folded spectra (N complex).
template <int kN, int kD>
struct FirFold {
  using Forward = TeamFft<kN>;
  static constexpr int kL = kN / kD;
  using Inverse = TeamFft<kL>;
  static_assert(Inverse::kThreads * kD == Forward::kThreads, "the inverse teams split the forward team's threads");
  static_assert(kD * Inverse::kSharedFloats <= Forward::kSharedFloats, "the inverse teams' planes fit in the team's");
  static constexpr int kFoldsPerThread = kL / Forward::kThreads;
  static constexpr int kTeamFloats = Forward::kSharedFloats + 2 * kN;
};
template <int kN, int kD>
__host__ __device__ constexpr int fir_fold_shared_bytes() {
  return fir_teams<kN>() * FirFold<kN, kD>::kTeamFloats * static_cast<int>(sizeof(float));
}

// Decimation by kD in the frequency domain: kD transforms per team, transform j of segment
// group_first + j (kPacked: of the pair group_first + 2j, group_first + 2j + 1, fir_load_pair; the
// groups start on a pair, the first may hold the segment before the call's first, computed with
// its partner and not stored). Each product conj(X·H) (H rotated by δ on the host) is folded,
// Z[i] = Σ_q Y[i + q·L], into the team's folded spectra; then team j of L transforms Z_j, whose
// row r is the point δ + D·r of transform j's circular convolution (the conjugate, as in
// fir_kernel). Packed, the real parts are the pair's first segment's, the imaginary parts its
// second's: H rotated is still the spectrum of real taps (moved by δ), and the fold keeps every
// D-th point of each part.
template <int kN, int kD, bool kPacked = false>
__global__ void __launch_bounds__(fir_cta_threads<kN>(), fir_min_ctas<kN>())
fir_fold_kernel(FirConstants k, FirLaunch c, const float* history_pair, const Cf* filter_spectrum,
                const Cf* stage_twiddles, const Cf* inverse_twiddles, const float2* output_phasors) {
  using Fold = FirFold<kN, kD>;
  using Fft = typename Fold::Forward;
  using Inverse = typename Fold::Inverse;
  constexpr int kTeams = fir_teams<kN>();
  constexpr int kL = Fold::kL;
  constexpr int kSegmentsPerTransform = kPacked ? 2 : 1;
  extern __shared__ float shared[];
  const unsigned long long first_unit = c.first_segment / kSegmentsPerTransform;
  const unsigned long long cta_first =
      (first_unit + static_cast<unsigned long long>(blockIdx.x) * kTeams * kD) * kSegmentsPerTransform;
  if (cta_first >= c.end_segment) return;  // the same for every thread of the CTA
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const unsigned long long group_first =
      cta_first + static_cast<unsigned long long>(team) * kD * kSegmentsPerTransform;
  float* team_shared = shared + team * Fold::kTeamFloats;
  const fft::gpu::TeamPlanes planes{team_shared, team_shared + Fft::kPlaneFloats};
  Cf* folded = reinterpret_cast<Cf*>(team_shared + Fft::kSharedFloats);
  const float* history = history_pair + static_cast<unsigned long long>(c.history_parity) * 2 * k.history_items;

#pragma unroll 1
  for (int j = 0; j < kD; ++j) {
    const unsigned long long s = group_first + static_cast<unsigned long long>(j) * kSegmentsPerTransform;
    Fft forward;
    if constexpr (kPacked) fir_load_pair(forward, k, c, history, k.map.window_start(s), s < c.end_segment, lane);
    else fir_load_window(forward, k, c, history, k.map.window_start(s), s < c.end_segment, lane);
    Cf x[Fft::kOutputs];
    forward.run_into(planes, stage_twiddles, lane, x);  // its first barrier ends the last fold's reads
    __syncthreads();  // every thread has read the planes of the last stage
    fir_product_into<Fft>(planes, x, filter_spectrum, lane);
    __syncthreads();
#pragma unroll
    for (int f = 0; f < Fold::kFoldsPerThread; ++f) {
      const int bin = lane + f * Fft::kThreads;
      Cf z{0.0f, 0.0f};
#pragma unroll
      for (int q = 0; q < kD; ++q) {
        const Cf y = planes.read(bin + q * kL);
        z.re += y.re;
        z.im += y.im;
      }
      folded[j * kL + bin] = z;
    }
  }
  __syncthreads();  // every folded spectrum written

  const int sub = lane / Inverse::kThreads;
  const int sub_lane = lane - sub * Inverse::kThreads;
  Inverse inverse;
  inverse.load(sub_lane, [&](int i) { return folded[sub * kL + i]; });
  Cf y[Inverse::kOutputs];
  inverse.run_into(Inverse::planes(team_shared, sub), inverse_twiddles, sub_lane, y);
  const unsigned long long s = group_first + static_cast<unsigned long long>(sub) * kSegmentsPerTransform;
  if (s >= c.end_segment) return;  // no synchronisation follows

  if (s >= c.first_segment) fir_store_folded<Inverse>(k, c, output_phasors, s, y, sub_lane);
  if constexpr (kPacked) {
    if (s + 1 < c.end_segment) fir_store_folded<Inverse, true>(k, c, output_phasors, s + 1, y, sub_lane);
  }
}

// ---- partitioned filters ---------------------------------------------------------------------

// Where the partitioned kernels find the ring: segment j's spectrum (N complex, natural bin order)
// at slot j mod ring_segments.
struct FirSpectra {
  Cf* ring = nullptr;
  unsigned long long ring_segments = 0;
  unsigned long long n = 0;     // N
  unsigned long long bins = 0;  // L = N/fold, the bins of a segment's sum
  Cf* sums = nullptr;           // Y of the call's segments (folded onto L bins), first_segment + i at i·L
  int partitions = 1;
  int fold = 1;
  __device__ __forceinline__ Cf* spectrum(unsigned long long j) const { return ring + (j % ring_segments) * n; }
};

// The forward transforms of segments [forward_first, forward_end) into the ring.
template <int kN>
__global__ void __launch_bounds__(fir_cta_threads<kN>(), fir_min_ctas<kN>())
fir_forward_kernel(FirConstants k, FirLaunch c, const float* history_pair, const Cf* stage_twiddles,
                   FirSpectra spectra, unsigned long long forward_first, unsigned long long forward_end) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = fir_teams<kN>();
  extern __shared__ float shared[];
  const unsigned long long cta_first = forward_first + static_cast<unsigned long long>(blockIdx.x) * kTeams;
  if (cta_first >= forward_end) return;  // the same for every thread of the CTA
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const unsigned long long j = cta_first + team;
  const bool valid = j < forward_end;
  float* team_shared = shared + team * Fft::kSharedFloats;
  const fft::gpu::TeamPlanes planes{team_shared, team_shared + Fft::kPlaneFloats};
  const float* history = history_pair + static_cast<unsigned long long>(c.history_parity) * 2 * k.history_items;

  Fft forward;
  fir_load_window(forward, k, c, history, k.map.window_start(j), valid, lane);
  Cf x[Fft::kOutputs];
  forward.run_into(planes, stage_twiddles, lane, x);
  if (!valid) return;  // no synchronisation follows
  Cf* out = spectra.spectrum(j);
#pragma unroll
  for (int slot = 0; slot < Fft::kOutputs; ++slot) out[Fft::output_index(lane, slot)] = x[slot];
}

// Segments per thread of fir_sum_kernel: each spectrum it reads serves that many sums.
constexpr int kFirSumSegments = 8;
constexpr int kFirSumThreads = 256;

// One group of fir_sum_kernel: bin b of the sums of segments s0 .. s0 + kFirSumSegments − 1,
// folded: Z_s[b] = Σ_q Y_s[b + q·L] (L = N/fold; Y_s itself when fold is 1).
__device__ __forceinline__ void fir_sum_group(const FirLaunch& c, const FirSpectra& spectra, const Cf* filter_spectra,
                                              unsigned long long b, unsigned long long s0) {
  const unsigned long long n = spectra.n;
  Cf z[kFirSumSegments];
#pragma unroll
  for (int i = 0; i < kFirSumSegments; ++i) z[i] = Cf{0.0f, 0.0f};
#pragma unroll 1
  for (int q = 0; q < spectra.fold; ++q) {
    const unsigned long long bin = b + static_cast<unsigned long long>(q) * spectra.bins;
    Cf x[kFirSumSegments];
#pragma unroll
    for (int i = 0; i < kFirSumSegments; ++i) {
      const unsigned long long s = s0 + i;
      x[i] = s < c.end_segment ? spectra.spectrum(s)[bin] : Cf{0.0f, 0.0f};
    }
#pragma unroll 1
    for (int p = 0; p < spectra.partitions; ++p) {
      const Cf h = filter_spectra[static_cast<unsigned long long>(p) * n + bin];
#pragma unroll
      for (int i = 0; i < kFirSumSegments; ++i) {
        z[i].re += x[i].re * h.re - x[i].im * h.im;
        z[i].im += x[i].re * h.im + x[i].im * h.re;
      }
      // The window moves back one segment: X_{s0−p−1} enters at i = 0 (zero before segment 0).
#pragma unroll
      for (int i = kFirSumSegments - 1; i > 0; --i) x[i] = x[i - 1];
      if (p + 1 < spectra.partitions)
        x[0] = s0 >= static_cast<unsigned long long>(p) + 1 ? spectra.spectrum(s0 - p - 1)[bin] : Cf{0.0f, 0.0f};
    }
  }
#pragma unroll
  for (int i = 0; i < kFirSumSegments; ++i) {
    const unsigned long long s = s0 + i;
    if (s < c.end_segment) spectra.sums[(s - c.first_segment) * spectra.bins + b] = z[i];
  }
}

// Z_s[b] = Σ_q Σ_k X_{s−k}[b + q·L]·H_k[b + q·L] for the call's segments [first_segment,
// end_segment) and the L bins of their folded sums: a thread takes bin b of kFirSumSegments
// consecutive segments s0 + i, and walks k with the spectra X_{s0+i−k} in registers, each read
// once (the window moves by one segment per k). The groups of segments are blockIdx.y and every
// gridDim.y after it (a call may have more than 65535 groups).
__global__ void __launch_bounds__(kFirSumThreads)
fir_sum_kernel(FirLaunch c, FirSpectra spectra, const Cf* filter_spectra) {
  const unsigned long long b = static_cast<unsigned long long>(blockIdx.x) * kFirSumThreads + threadIdx.x;
  if (b >= spectra.bins) return;
  for (unsigned long long s0 = c.first_segment + static_cast<unsigned long long>(blockIdx.y) * kFirSumSegments;
       s0 < c.end_segment; s0 += static_cast<unsigned long long>(gridDim.y) * kFirSumSegments)
    fir_sum_group(c, spectra, filter_spectra, b, s0);
}

// The inverse transforms of the call's sums (the forward transform of the conjugate; 1/N is in
// H) and the segments' outputs, as fir_kernel's; kFolded: the sums folded onto kN = N/D bins,
// whose rows are the points δ + D·r (as fir_fold_kernel's).
template <int kN, bool kFolded = false>
__global__ void __launch_bounds__(fir_cta_threads<kN>(), fir_min_ctas<kN>())
fir_inverse_kernel(FirConstants k, FirLaunch c, FirSpectra spectra, const Cf* stage_twiddles,
                   const float2* output_phasors) {
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
  const Cf* sum = spectra.sums + (valid ? (s - c.first_segment) * static_cast<unsigned long long>(kN) : 0);

  Fft inverse;
  inverse.load(lane, [&](int i) {
    if (!valid) return Cf{0.0f, 0.0f};
    const Cf v = sum[i];
    return Cf{v.re, -v.im};
  });
  Cf x[Fft::kOutputs];
  inverse.run_into(planes, stage_twiddles, lane, x);
  if (!valid) return;  // no synchronisation follows
  if constexpr (kFolded) fir_store_folded<Fft>(k, c, output_phasors, s, x, lane);
  else fir_store_segment<Fft>(k, c, output_phasors, s, x, lane);
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
