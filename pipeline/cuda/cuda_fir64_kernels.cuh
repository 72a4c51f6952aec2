// The device side of CudaFir in double precision (cuda_fir.hpp; GpuFirPlan::double_precision):
// a call's segments in five steps around an FP64 FFT plan (ours, fft/cuda/fft64_plan.hpp, which
// has no hooks to fuse them into, or cuFFT's) — gather each segment's window (history before the
// chunk, the chunk converted in double, zeros outside the input), the forward transforms, the
// product with the filter's spectrum, the inverse transforms, then the outputs FirSegmentMap
// names, each counter-rotated by the shift at its own exact phase (ExactPhaseTerms: the phase
// does not drift along a segment, as a product of phasors would at double's precision) — and the
// kernel that keeps the history for the next call.
#pragma once

#include <cuda_runtime.h>

#include "pipeline/cuda/native_samples.cuh"
#include "pipeline/exact_phase.hpp"
#include "pipeline/gpu_fir_plan.hpp"

namespace prism::cuda::device {

struct Fir64Constants : NativeSamples {
  FirSegmentMap map;
  int complex_output = 0;
  int real_part = 0;  // a complex output stored as its real parts (f64)
  int shifted = 0;
  ExactPhaseTerms phase;            // f/fs of the shift
  unsigned long long phase_first = 0;  // n0 + c: the absolute item index of output 0
};

// One call (FirCall) and where its data is.
struct Fir64Launch {
  const unsigned char* raw = nullptr;  // the chunk (native format, device memory)
  double* out = nullptr;               // its outputs (f64 or cf64)
  unsigned long long first_segment = 0, end_segment = 0;
  unsigned long long out_first = 0, out_end = 0;
  unsigned long long block_first = 0, block_end = 0;
  unsigned long long valid_end = 0;
  unsigned long long history_first = 0;  // absolute index of the current history's item 0
  unsigned long long keep_first = 0;     // the next history: items [keep_first, block_end)
  const double2* history = nullptr;      // the current history
  double2* next_history = nullptr;       // the other buffer
};

constexpr int kFir64Threads = 256;

// Item p (absolute index) of the input in double: zeros before 0 and from valid_end, the history
// before the chunk, the chunk converted from its native format.
__device__ __forceinline__ double2 fir64_item(const Fir64Constants& k, const Fir64Launch& c, long long p) {
  if (p < 0 || static_cast<unsigned long long>(p) >= c.valid_end) return make_double2(0.0, 0.0);
  const unsigned long long q = static_cast<unsigned long long>(p);
  if (q < c.block_first) return c.history[q - c.history_first];
  return convert_sample_wide(k, c.raw, q - c.block_first);
}

// Segment first_segment + y's window into row y of `windows` (N complex each); the rows of the
// call's segments are blockIdx.y and every gridDim.y after it.
__global__ void __launch_bounds__(kFir64Threads)
fir64_window_kernel(Fir64Constants k, Fir64Launch c, double2* windows) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kFir64Threads + threadIdx.x;
  if (i >= k.map.n) return;
  for (unsigned long long row = blockIdx.y; c.first_segment + row < c.end_segment; row += gridDim.y) {
    const long long start = k.map.window_start(c.first_segment + row);
    windows[row * k.map.n + i] = fir64_item(k, c, start + static_cast<long long>(i));
  }
}

// X·H in place for `rows` rows of N bins (1/N is in H).
__global__ void __launch_bounds__(kFir64Threads)
fir64_product_kernel(double2* spectra, const double2* filter_spectrum, unsigned long long n, unsigned long long rows) {
  const unsigned long long b = static_cast<unsigned long long>(blockIdx.x) * kFir64Threads + threadIdx.x;
  if (b >= n) return;
  const double2 h = filter_spectrum[b];
  for (unsigned long long row = blockIdx.y; row < rows; row += gridDim.y) {
    const double2 x = spectra[row * n + b];
    spectra[row * n + b] = make_double2(x.x * h.x - x.y * h.y, x.x * h.y + x.y * h.x);
  }
}

// exp(−j2π·frac(n·f/fs)), as ExactPhase::phasor(n, −1) computes it on the host (its integer
// remainder exactly; the division in double here, long double there).
__device__ __forceinline__ double2 fir64_phasor(const ExactPhaseTerms& t, unsigned long long n) {
  double cycles = t.cycles_in_double(n);
  if (cycles > 0.5) cycles -= 1.0;
  double sine = 0.0, cosine = 0.0;
  sincospi(-2.0 * cycles, &sine, &cosine);
  return make_double2(cosine, sine);
}

// The outputs of the call's segments from their inverse transforms (rows of `points`, one per
// segment, y as in fir64_window_kernel): point first_point + r·D of a row is output
// first_output + r, stored where the call writes it.
__global__ void __launch_bounds__(kFir64Threads)
fir64_store_kernel(Fir64Constants k, Fir64Launch c, const double2* points) {
  const unsigned r = blockIdx.x * kFir64Threads + threadIdx.x;
  for (unsigned long long row = blockIdx.y; c.first_segment + row < c.end_segment; row += gridDim.y) {
    const FirSegmentMap::Points p = k.map.points(c.first_segment + row);
    if (r >= p.count) continue;
    const unsigned long long o = p.first_output + r;
    if (o < c.out_first || o >= c.out_end) continue;
    double2 v = points[row * k.map.n + p.first_point + static_cast<unsigned long long>(r) * k.map.decimation];
    const unsigned long long at = o - c.out_first;
    if (!k.complex_output) {
      c.out[at] = v.x;
      continue;
    }
    if (k.shifted) {
      const double2 t = fir64_phasor(k.phase, k.phase_first + o * k.map.decimation);
      v = make_double2(v.x * t.x - v.y * t.y, v.x * t.y + v.y * t.x);
    }
    if (k.real_part) c.out[at] = v.x;
    else reinterpret_cast<double2*>(c.out)[at] = v;
  }
}

// The items the next call's segments read before its chunk, [keep_first, block_end), into the
// other history buffer (from the old history or the chunk, converted).
__global__ void __launch_bounds__(kFir64Threads) fir64_history_kernel(Fir64Constants k, Fir64Launch c) {
  const unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * kFir64Threads + threadIdx.x;
  if (t >= c.block_end - c.keep_first) return;
  c.next_history[t] = fir64_item(k, c, static_cast<long long>(c.keep_first + t));
}

}  // namespace prism::cuda::device
