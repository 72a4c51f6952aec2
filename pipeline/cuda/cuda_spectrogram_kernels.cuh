// The device side of CudaSpectrogram (cuda_spectrogram.hpp): the per-block descriptor, sample
// conversion from every SampleFormat, and the kernels of both transform paths.
//
// Contents:
//   1. constants and the block descriptor
//   2. fetching one sample (history or raw block, converted on the device)
//   3. unfused paths: frame kernel (convert, detrend, window) and detect kernel, in float or
//      double (the double-precision spectrogram runs these only)
//   4. fused path: one kernel, our team FFT with the framing and the detector as its hooks
//   5. history kernel (both paths)
//   6. mel kernel (modes mel and mfcc, after either path)
//
// Frame f covers samples [f·hop, f·hop + nperseg). A block completes frames [f0, f1); frames
// are grouped by K for averaging, group g = frames [gK, gK+K). A group begun in an earlier
// block (or chunk) continues from the carry buffer; the carry is double-buffered by parity so
// that the CTA that reads the old running value never races the CTA that writes the new one.
#pragma once

#include <cstdint>

#include "fft/cuda/fft_team.cuh"
#include "pipeline/gpu_mel_rows.hpp"
#include "pipeline/cuda/native_samples.cuh"

namespace prism::cuda::device {

// ---- 1. constants and the block descriptor ------------------------------------------------

// Everything fixed for the life of an engine: how to read its samples, and the spectrogram's.
struct EngineConstants : NativeSamples {
  int nperseg = 0;
  int hop = 0;
  int nfft = 0;
  int columns = 0;
  int average = 1;
  int average_max = 0;  // 1: peak hold, 0: mean
  int detector = 0;         // a bin's value: 0 |X|², 1 |X|, 2 (|X|²)^half_power (= |X|^power)
  int decibels = 0;
  int detrend = 1;
  float decibel_multiplier = 10.0f;
  float decibel_floor = 1e-30f;
  unsigned chunk_frames = 1;      // frames per FFT batch (cufft path)
  int spectrum_stride = 0;        // complex values per frame in the spectrum buffer
  float half_power = 1.0f;        // detector 2 (unfused path only)
  double wide_half_power = 1.0;   // the same in double precision
};

// What varies per chunk; written by the host into pinned memory and copied before the chunk's
// work. The chunk's data and rows are named here, not as kernel arguments, so that one captured
// CUDA graph serves every chunk of the pools.
struct BlockDescriptor {
  const unsigned char* raw = nullptr;    // the chunk's samples, native format (device memory)
  void* rows = nullptr;                  // where the detector's rows go (device memory; float, or
                                         // double in double precision)
  unsigned long long block_first = 0;    // absolute index of the block's first sample
  unsigned long long block_samples = 0;
  unsigned long long first_frame = 0;    // f0
  unsigned long long end_frame = 0;      // f1
  unsigned long long history_first = 0;  // absolute index of the current history's sample 0
  unsigned long long next_history_first = 0;  // f1·hop: where the next history starts
  int history_parity = 0;  // current history: buffer [parity]; the next goes to [1-parity]
  int carry_parity = 0;    // running group value to read: carry [parity] (per chunk, see below)
  void* band_rows = nullptr;  // modes mel, mfcc: the chunk's rows, made from `rows` (as `rows`:
                              // float, or double in double precision)
};

// ---- 2. fetching one sample -------------------------------------------------------------------

// The complex type of a precision: float2 or double2.
template <typename Real>
struct ComplexOf;
template <>
struct ComplexOf<float> {
  using type = float2;
};
template <>
struct ComplexOf<double> {
  using type = double2;
};
template <typename Real>
using ComplexValue = typename ComplexOf<Real>::type;

// Sample `s` (absolute index) of the analysed channel: from the history when it precedes the
// block, else converted from the raw block.
__device__ __forceinline__ float2 fetch_sample(const EngineConstants& k, const BlockDescriptor& d,
                                               const unsigned char* raw, const float* history,
                                               unsigned long long s) {
  if (s < d.block_first) {
    const unsigned long long i = s - d.history_first;
    return k.complex_input ? make_float2(history[2 * i], history[2 * i + 1])
                           : make_float2(history[i], 0.0f);
  }
  return convert_sample(k, raw, s - d.block_first);
}

// The same in double precision (a history of doubles; the block converted as convert_to_double).
__device__ __forceinline__ double2 fetch_sample(const EngineConstants& k, const BlockDescriptor& d,
                                                const unsigned char* raw, const double* history,
                                                unsigned long long s) {
  if (s < d.block_first) {
    const unsigned long long i = s - d.history_first;
    return k.complex_input ? make_double2(history[2 * i], history[2 * i + 1]) : make_double2(history[i], 0.0);
  }
  return convert_sample_wide(k, raw, s - d.block_first);
}

// Sum of a double over the CTA (blockDim.x a multiple of 32, at most 1024); every thread gets it.
__device__ __forceinline__ double block_sum(double v, double* scratch32) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();  // scratch32 may still be read from a previous call
  if (lane == 0) scratch32[warp] = v;
  __syncthreads();
  const int warps = blockDim.x >> 5;
  double total = 0.0;
  for (int w = 0; w < warps; ++w) total += scratch32[w];  // fixed order: same on every thread
  return total;
}

// kGeneralPower: whether detector 2 can occur. The fused kernels leave it out (fused_path_supports):
// they are capped at 80 registers, and powf, inlined or called, made every mode of them spill.
template <bool kGeneralPower>
__device__ __forceinline__ float detect_value(const EngineConstants& k, float re, float im) {
  const float power = re * re + im * im;
  if (kGeneralPower && k.detector == 2) return powf(power, k.half_power);
  return k.detector ? sqrtf(power) : power;  // as a truth value: == 1 made the complex kernels spill
}

__device__ __forceinline__ float combine(const EngineConstants& k, float acc, float value) {
  return k.average_max ? (acc < value ? value : acc) : acc + value;
}

__device__ __forceinline__ float final_value(const EngineConstants& k, float acc, float scale) {
  float v = acc * scale;
  // multiplier·log10(x) as (multiplier·log10 2)·log2(x) on the special-function unit: its
  // absolute error (~1e-6 dB) is far below what a display or the CPU comparison resolves, and
  // the accurate log10f costs as much as the FFT's arithmetic per output.
  if (k.decibels && !isnan(v) && !isinf(v))
    v = (k.decibel_multiplier * 0.30102999566398120f) * __log2f(v < k.decibel_floor ? k.decibel_floor : v);
  return v;
}

// The same in double precision. The float versions above are kept apart: the fused kernels'
// register allocation shifts with any change to them.
template <bool kGeneralPower>
__device__ __forceinline__ double detect_value(const EngineConstants& k, double re, double im) {
  const double power = re * re + im * im;
  if (kGeneralPower && k.detector == 2) return pow(power, k.wide_half_power);
  return k.detector ? sqrt(power) : power;
}

__device__ __forceinline__ double combine(const EngineConstants& k, double acc, double value) {
  return k.average_max ? (acc < value ? value : acc) : acc + value;
}

// The accurate log10, as the CPU's double rows take, with the same (float) multiplier and floor.
__device__ __forceinline__ double final_value(const EngineConstants& k, double acc, double scale) {
  double v = acc * scale;
  const double floor = k.decibel_floor;
  if (k.decibels && !isnan(v) && !isinf(v))
    v = static_cast<double>(k.decibel_multiplier) * log10(v < floor ? floor : v);
  return v;
}

// The FFT bin shown in column `c`: complex input is centred (fftshift).
__device__ __forceinline__ int column_bin(const EngineConstants& k, int c) {
  return k.complex_input ? (c + k.nfft - k.nfft / 2) % k.nfft : c;
}

// ---- 3. unfused paths ----------------------------------------------------------------------------

// One CTA per frame of chunk `chunk`: the frame's samples, mean removed, windowed, zero-padded
// to nfft, into frames[local frame] (real: nfft values; complex: nfft interleaved pairs). Real
// is the precision of the history, window, frames and arithmetic.
template <typename Real>
__global__ void frame_kernel(EngineConstants k, const BlockDescriptor* descriptor, const Real* history_pair,
                             int history_values, const Real* window, Real* frames, unsigned chunk) {
  __shared__ double scratch[32];
  const BlockDescriptor d = *descriptor;
  const unsigned char* raw = d.raw;
  const unsigned long long local = static_cast<unsigned long long>(chunk) * k.chunk_frames + blockIdx.x;
  const unsigned long long f = d.first_frame + local;
  if (f >= d.end_frame) return;
  const Real* history = history_pair + d.history_parity * history_values;
  const unsigned long long start = f * static_cast<unsigned long long>(k.hop);
  Real mean_re = 0, mean_im = 0;
  if (k.detrend) {
    double sum_re = 0.0, sum_im = 0.0;
    for (int j = threadIdx.x; j < k.nperseg; j += blockDim.x) {
      const ComplexValue<Real> x = fetch_sample(k, d, raw, history, start + j);
      sum_re += x.x;
      sum_im += x.y;
    }
    sum_re = block_sum(sum_re, scratch);
    sum_im = block_sum(sum_im, scratch);
    mean_re = static_cast<Real>(sum_re / k.nperseg);
    mean_im = static_cast<Real>(sum_im / k.nperseg);
  }
  Real* out = frames + static_cast<unsigned long long>(blockIdx.x) * k.nfft * (k.complex_input ? 2 : 1);
  for (int j = threadIdx.x; j < k.nfft; j += blockDim.x) {
    ComplexValue<Real> v{0, 0};
    if (j < k.nperseg) {
      const ComplexValue<Real> x = fetch_sample(k, d, raw, history, start + j);
      const Real w = window[j];
      v = ComplexValue<Real>{(x.x - mean_re) * w, (x.y - mean_im) * w};
    }
    if (k.complex_input) {
      reinterpret_cast<ComplexValue<Real>*>(out)[j] = v;
    } else {
      out[j] = v.x;
    }
  }
}

// Grid (groups, column tiles): the groups of chunk `chunk`, their frames combined in frame
// order, complete groups scaled into rows (row = group - f0/K), an unfinished one into the carry.
template <typename Real>
__global__ void detect_kernel(EngineConstants k, const BlockDescriptor* descriptor,
                              const ComplexValue<Real>* spectrum, const Real* column_scale,
                              Real* carry_pair, unsigned chunk) {
  const BlockDescriptor d = *descriptor;
  Real* rows = static_cast<Real*>(d.rows);
  const unsigned long long c0 = d.first_frame + static_cast<unsigned long long>(chunk) * k.chunk_frames;
  if (c0 >= d.end_frame) return;
  const unsigned long long c1 = min(c0 + k.chunk_frames, d.end_frame);
  const unsigned long long K = k.average;
  const unsigned long long g = c0 / K + blockIdx.x;
  const unsigned long long group_first = g * K;
  if (group_first >= c1) return;
  const int col = blockIdx.y * blockDim.x + threadIdx.x;
  if (col >= k.columns) return;
  const unsigned long long first = max(group_first, c0);
  const unsigned long long end = min(group_first + K, c1);
  const int read_parity = d.carry_parity ^ static_cast<int>(chunk & 1u);
  Real acc = first > group_first ? carry_pair[read_parity * k.columns + col] : Real(0);
  const int bin = column_bin(k, col);
  for (unsigned long long f = first; f < end; ++f) {
    const ComplexValue<Real> x = spectrum[(f - c0) * k.spectrum_stride + bin];
    const Real v = detect_value<true>(k, x.x, x.y);
    acc = f == group_first ? v : combine(k, acc, v);
  }
  if (end == group_first + K)
    rows[(g - d.first_frame / K) * k.columns + col] = final_value(k, acc, column_scale[col]);
  else
    carry_pair[(read_parity ^ 1) * k.columns + col] = acc;
}

// ---- 4. fused path ----------------------------------------------------------------------------
// One kernel does a block's whole work: each team of threads (TeamFft, our Stockham stages with
// fusion hooks) takes one averaging group; for each of the group's frames in this block the
// prologue fetches the samples (history or raw block, converted from the native format),
// removes the mean and applies the window, straight into the FFT's registers; the epilogue
// detects each output and combines it into a per-thread running value, and only final rows (or
// the carry of an unfinished group) reach global memory. Real input of nfft = 2·kN runs as the
// kN-point complex FFT of sample pairs with the r2c post-processing fused in.

using fft::gpu::Cf;
using fft::gpu::TeamFft;

constexpr int kFusedCtaThreads = 256;

template <int kN>
__host__ __device__ constexpr int fused_teams() {
  return TeamFft<kN>::kThreads >= kFusedCtaThreads ? 1 : kFusedCtaThreads / TeamFft<kN>::kThreads;
}
template <int kN>
__host__ __device__ constexpr int fused_cta_threads() {
  return fused_teams<kN>() * TeamFft<kN>::kThreads;
}
// Per team: the FFT's planes, then the running values of the group's kN + 1 columns (kept in
// shared memory rather than registers: registers hold the transform, and a kernel that also
// kept the columns there would spill or run fewer CTAs).
template <int kN>
__host__ __device__ constexpr int fused_team_floats() {
  return TeamFft<kN>::kSharedFloats + ((kN + 2) | 1);
}
template <int kN>
__host__ __device__ constexpr int fused_shared_bytes() {
  return fused_teams<kN>() * fused_team_floats<kN>() * static_cast<int>(sizeof(float));
}

// Registers per thread are capped so that this many CTAs of 256 threads (proportionally fewer
// of larger CTAs) fit on a multiprocessor: 3 measured fastest for nfft 4096 (80 registers;
// 2 CTAs at 128 registers and 4 at 64, which spills, were 15 % slower).
#ifndef PRISM_FUSED_MIN_CTAS
#define PRISM_FUSED_MIN_CTAS 3
#endif
template <int kN>
__host__ __device__ constexpr int fused_min_ctas() {
  const int ctas = PRISM_FUSED_MIN_CTAS * kFusedCtaThreads / fused_cta_threads<kN>();
  return ctas > 0 ? ctas : 1;
}

template <int kN, bool kReal>
__global__ void __launch_bounds__(fused_cta_threads<kN>(), fused_min_ctas<kN>())
fused_kernel(EngineConstants k, const BlockDescriptor* descriptor,
             const float* history_pair, int history_values, const float* window,
             const Cf* stage_twiddles, const Cf* real_twiddles, const float* column_scale,
             float* carry_pair) {
  using Fft = TeamFft<kN>;
  constexpr int kTeams = fused_teams<kN>();
  constexpr int kSlots = kReal ? Fft::kRealOutputs : Fft::kOutputs;
  extern __shared__ float shared[];
  __shared__ double scratch[32];
  const BlockDescriptor d = *descriptor;
  if (d.first_frame >= d.end_frame) return;
  const unsigned char* raw = d.raw;
  float* rows = static_cast<float*>(d.rows);
  const unsigned long long K = k.average;
  const unsigned long long cta_group = d.first_frame / K + static_cast<unsigned long long>(blockIdx.x) * kTeams;
  if (cta_group * K >= d.end_frame) return;  // the same for every thread of the CTA
  // The frames within a group that some team of this CTA has here: [t_lo, t_hi). Every team
  // runs them all (the stages synchronise the CTA), computing only its own.
  unsigned long long t_lo = K, t_hi = 0;
  for (int t = 0; t < kTeams; ++t) {
    const unsigned long long gf = (cta_group + t) * K;
    if (gf >= d.end_frame) break;
    t_lo = min(t_lo, max(gf, d.first_frame) - gf);
    t_hi = max(t_hi, min(gf + K, d.end_frame) - gf);
  }
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const unsigned long long g = cta_group + team;
  const unsigned long long group_first = g * K;
  const unsigned long long first = max(group_first, d.first_frame);
  const unsigned long long end = min(group_first + K, d.end_frame);  // <= first: an idle team
  const float* history = history_pair + d.history_parity * history_values;
  float* team_shared = shared + team * fused_team_floats<kN>();
  const fft::gpu::TeamPlanes planes{team_shared, team_shared + Fft::kPlaneFloats};
  float* acc = team_shared + Fft::kSharedFloats;  // [column]: each thread its own columns
  const int nperseg = k.nperseg;
  const unsigned long long row = g - d.first_frame / K;
  // Column of slot `slot` (complex input is centred: fftshift); -1 where the slot is unused.
  auto column_of = [&](int slot) {
    if (kReal && slot == Fft::kOutputs && lane != 0) return -1;
    const int bin = kReal ? Fft::real_output_index(lane, slot) : Fft::output_index(lane, slot);
    return kReal ? bin : (bin ^ (kN / 2));
  };

  const int read_parity = d.carry_parity;
  if (first > group_first && first < end) {
#pragma unroll
    for (int slot = 0; slot < kSlots; ++slot) {
      const int col = column_of(slot);
      if (col >= 0) acc[col] = carry_pair[read_parity * k.columns + col];
    }
  }

  for (unsigned long long t = t_lo; t < t_hi; ++t) {
    const unsigned long long f = group_first + t;
    const bool valid = f >= first && f < end;
    const unsigned long long start = f * static_cast<unsigned long long>(k.hop);
    // Frames wholly inside the block of mono f32 / cf32 input read their samples straight
    // from the block as 8-byte pairs; any other frame fetches sample by sample (history, other
    // formats and channels, converted on the way).
    const bool in_block = start >= d.block_first;
    const bool direct = k.channels == 1 && in_block &&
                        (kReal ? k.format == f32 && (start - d.block_first) % 2 == 0 && nperseg % 2 == 0
                               : k.format == cf32);
    const float2* pairs = reinterpret_cast<const float2*>(raw) + (in_block ? (start - d.block_first) / (kReal ? 2 : 1) : 0);
    const int valid_pairs = kReal ? (nperseg + 1) / 2 : nperseg;
    Fft fft;
    fft.load(lane, [&](int i) {
      Cf x{0.0f, 0.0f};
      if (!valid || i >= valid_pairs) return x;
      if (direct) {
        const float2 v = pairs[i];
        return Cf{v.x, v.y};
      }
      if constexpr (kReal) {
        x.re = fetch_sample(k, d, raw, history, start + 2 * i).x;
        if (2 * i + 1 < nperseg) x.im = fetch_sample(k, d, raw, history, start + 2 * i + 1).x;
      } else {
        const float2 v = fetch_sample(k, d, raw, history, start + i);
        x = Cf{v.x, v.y};
      }
      return x;
    });
    float mean_re = 0.0f, mean_im = 0.0f;
    if (k.detrend) {
      double sum_re = 0.0, sum_im = 0.0;
      fft.for_each_input(lane, [&](int, Cf& x) {
        sum_re += x.re;
        sum_im += x.im;
      });
      if constexpr (kReal) {
        mean_re = mean_im = static_cast<float>(fft::gpu::team_sum<Fft::kThreads>(sum_re + sum_im, scratch) / nperseg);
      } else {
        mean_re = static_cast<float>(fft::gpu::team_sum<Fft::kThreads>(sum_re, scratch) / nperseg);
        mean_im = static_cast<float>(fft::gpu::team_sum<Fft::kThreads>(sum_im, scratch) / nperseg);
      }
    }
    // The window is zero from nperseg to nfft, which also zero-pads the detrended frame.
    fft.for_each_input(lane, [&](int i, Cf& x) {
      if constexpr (kReal) {
        const float2 w = reinterpret_cast<const float2*>(window)[i];
        x = Cf{(x.re - mean_re) * w.x, (x.im - mean_im) * w.y};
      } else {
        const float w = window[i];
        x = Cf{(x.re - mean_re) * w, (x.im - mean_im) * w};
      }
    });
    Cf X[kSlots];
    if constexpr (kReal) fft.run_real_into(planes, stage_twiddles, real_twiddles, lane, X);
    else fft.run_into(planes, stage_twiddles, lane, X);
    if (valid && K == 1) {  // the frame is its group: its row, directly
#pragma unroll
      for (int slot = 0; slot < kSlots; ++slot) {
        const int col = column_of(slot);
        if (col >= 0)
          rows[row * k.columns + col] = final_value(k, detect_value<false>(k, X[slot].re, X[slot].im), column_scale[col]);
      }
    } else if (valid) {
      const bool first_of_group = f == group_first;
#pragma unroll
      for (int slot = 0; slot < kSlots; ++slot) {
        const int col = column_of(slot);
        if (col < 0) continue;
        const float v = detect_value<false>(k, X[slot].re, X[slot].im);
        acc[col] = first_of_group ? v : combine(k, acc[col], v);
      }
    }
  }

  if (!(first < end) || K == 1) return;
  const bool complete = end == group_first + K;
#pragma unroll
  for (int slot = 0; slot < kSlots; ++slot) {
    const int col = column_of(slot);
    if (col < 0) continue;
    if (complete)
      rows[row * k.columns + col] = final_value(k, acc[col], column_scale[col]);
    else
      carry_pair[(read_parity ^ 1) * k.columns + col] = acc[col];
  }
}

// ---- 5. history kernel ----------------------------------------------------------------------

// The samples later frames still need, [next_history_first, block end), into the other history
// buffer (converted to the precision of Real; from the old history or the block).
template <typename Real>
__global__ void history_kernel(EngineConstants k, const BlockDescriptor* descriptor, Real* history_pair,
                               int history_values) {
  const BlockDescriptor d = *descriptor;
  const unsigned char* raw = d.raw;
  const unsigned long long block_end = d.block_first + d.block_samples;
  const unsigned long long count = block_end - d.next_history_first;
  const unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const Real* old_history = history_pair + d.history_parity * history_values;
  Real* new_history = history_pair + (d.history_parity ^ 1) * history_values;
  const ComplexValue<Real> v = fetch_sample(k, d, raw, old_history, d.next_history_first + t);
  if (k.complex_input) {
    new_history[2 * t] = v.x;
    new_history[2 * t + 1] = v.y;
  } else {
    new_history[t] = v.x;
  }
}

// ---- 6. mel kernel ----------------------------------------------------------------------------
// Modes mel and mfcc: the detector (either path; values of type Real, float or double) writes
// |X|^power of every bin, averaged and unscaled, into rows of their own; the mel kernel takes
// them to the chunk's rows (also of Real) with the functions of gpu_mel_rows.hpp, a CTA finishing
// rows_per_cta rows at a time: its threads share out the rows' bands, then (mfcc) each takes one
// coefficient of all the rows, from their bands' logarithms in shared memory, reading each weight
// of the cepstrum once. A chunk completes rows [f0/K, f1/K); the grid may be smaller than that,
// each CTA taking every gridDim.x-th group.

template <typename Real>
__global__ void mel_kernel(GpuMelRowArgs a, const BlockDescriptor* descriptor, unsigned long long average,
                           int rows_per_cta) {
  extern __shared__ double log_bands[];  // mode mfcc: [bands][rows_per_cta], 1 or kGpuMelRowsPerCta
  const BlockDescriptor d = *descriptor;
  const Real* detector_rows = static_cast<const Real*>(d.rows);
  Real* band_rows = static_cast<Real*>(d.band_rows);
  const unsigned long long rows = d.end_frame / average - d.first_frame / average;
  const int width = a.row_width();
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * rows_per_cta;
  // `first` is the same for every thread of the CTA, so the barriers below are reached by all.
  for (unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * rows_per_cta; first < rows;
       first += step) {
    const int count = static_cast<int>(min(static_cast<unsigned long long>(rows_per_cta), rows - first));
    const int items = (a.coefficients > 0 ? rows_per_cta : count) * a.bands;
    for (int item = threadIdx.x; item < items; item += blockDim.x) {  // item = r·bands + m
      const int r = item / a.bands, m = item - r * a.bands;
      const double v = r < count ? mel_band_value(a, detector_rows + (first + r) * a.bins, m) : 0.0;
      if (a.coefficients > 0) log_bands[m * rows_per_cta + r] = v;
      else band_rows[(first + r) * width + m] = static_cast<Real>(v);
    }
    if (a.coefficients == 0) continue;
    __syncthreads();
    for (int i = threadIdx.x; i < a.coefficients; i += blockDim.x) {
      double sums[kGpuMelRowsPerCta];
      if (rows_per_cta == kGpuMelRowsPerCta) cepstrum_values<kGpuMelRowsPerCta>(a, log_bands, count, i, sums);
      else cepstrum_values<1>(a, log_bands, count, i, sums);
#pragma unroll
      for (int r = 0; r < kGpuMelRowsPerCta; ++r)
        if (r < count) band_rows[(first + r) * width + i] = static_cast<Real>(sums[r]);
    }
    __syncthreads();  // the next rows' bands overwrite log_bands
  }
}

}  // namespace prism::cuda::device
