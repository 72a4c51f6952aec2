// The host half of the FIR filter on a GPU (pipeline/cuda/cuda_fir.hpp), in plain C++ so that
// the CPU tests hold it to FirFilter without a device (tests/pipeline/qa_GpuFirPlan.cpp runs
// this plan and schedule through a host model of the kernels):
//   GpuFirPlan      the FFT length, the partitions, the filter's spectra and the shift's output
//                   phasors;
//   FirSegmentMap   which output a point of a segment's inverse transform is (compiled for the
//                   host and the device: the kernels' epilogues call it);
//   GpuFirSchedule  which segments a call computes, which outputs it writes and which input the
//                   device keeps for the next call.
//
// The filter is FirFilter's (fir_filter.hpp: same outputs, alignment, shift and decimation),
// computed as overlap-save with one complex FFT of length N per segment of B new items. Short
// filters are one spectrum: the forward transform, the product and the inverse transform (a
// forward transform of the conjugate) run in one kernel on our team FFT (fft/cuda/fft_team.cuh),
// which takes power-of-two lengths up to 16384. Longer filters (or an explicit FFT length
// shorter than the taps) are uniformly partitioned, as FirFilter's: K partitions of P = B = N/2
// taps, spectra H_k; segment s's spectrum is Y_s = Σ_k X_{s−k}·H_k, X_j the forward transform of
// segment j's window (zero for j < 0), so three kernels run per call: the forward transforms
// into a ring of spectra on the device, the sums of products, the inverse transforms. Real input
// with real taps and no shift, one spectrum (folded or not), takes two segments per transform
// (`packed`); elsewhere real input is transformed as complex (imaginary parts zero). Decimation
// by D = 2, 4 or 8 is done in the frequency domain where the GPU has the lengths ("fold", as
// FirFilter's): B a multiple of D, the spectrum rotated by δ = c mod D and folded onto L = N/D
// bins, whose inverse transform of length L is the segment's points δ + D·r. One spectrum at N
// from kGpuFirFoldLengthMin to kGpuFirFoldLengthMax: each team runs D forward transforms of N
// (packed: of two segments each) and D inverse transforms of L side by side (fold kernels for D
// up to kGpuFirFoldDecimationMax). Partitioned, L at least kGpuFirMinFftLength: the sums of
// products are folded as they are summed, and the inverse kernel transforms L bins. Any other
// decimation keeps every D-th point of the inverse transform of N.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fir_filter.hpp"
#include "exact_phase.hpp"

#if defined(__CUDACC__)
#define PRISM_FIR_HD __host__ __device__ __forceinline__
#else
#define PRISM_FIR_HD inline
#endif

namespace prism {

inline constexpr std::size_t kGpuFirMinFftLength = 256;
// The lengths the automatic choice takes for one spectrum. Shorter transforms (teams of 16 to 32
// threads) ran at half the rate per item on the H200 (bench/RESULTS.md, "The FIR filter on the
// GPU"); at 16384 the team FFT spills to a stack frame.
inline constexpr std::size_t kGpuFirMinAutoFftLength = 1024;
inline constexpr std::size_t kGpuFirMaxAutoFftLength = 8192;
inline constexpr std::size_t kGpuFirMaxFftLength = 16384;
// In double precision (FirSpec::double_precision) one spectrum is computed per segment by CUDA
// kernels around an FP64 FFT (ours, fft/cuda/fft64_plan.hpp, or cuFFT's double plans with
// --backend cufft): the windows gathered (converted in double),
// the forward transforms, the product, the inverse transforms, the outputs stored (each
// counter-rotated by its own exact phase). N: fft_length when set (from the capacity M up to
// kGpuFir64MaxFftLength, any length), else the smallest power of two of at least 4M and
// kGpuFir64MinAutoFftLength; no fold, no partitions, no packing.
inline constexpr std::size_t kGpuFir64MinAutoFftLength = 4096;
inline constexpr std::size_t kGpuFir64MaxFftLength = std::size_t{1} << 24;
// The most taps the GPU filter takes in double, with or without fft_length (at the automatic
// length, one spectrum of at most kGpuFir64MaxFftLength, the hop is then at least half of it).
inline constexpr std::size_t kGpuFir64MaxTaps = kGpuFir64MaxFftLength / 2;
// Whether the GPU filter in double takes `taps` taps (the capacity) at an fft_length of n (0: its
// own choice).
inline constexpr bool gpu_fir64_takes(std::size_t taps, std::size_t n) {
  return taps <= kGpuFir64MaxTaps && (n == 0 || (n >= taps && n >= 2 && n <= kGpuFir64MaxFftLength));
}
// Whether the GPU filter takes an explicit fft_length of n: a power of two from
// kGpuFirMinFftLength to kGpuFirMaxFftLength (plan_gpu_fir refuses others; auto keeps them on
// the CPU).
inline constexpr bool gpu_fir_takes_fft_length(std::size_t n) {
  return n >= kGpuFirMinFftLength && n <= kGpuFirMaxFftLength && (n & (n - 1)) == 0;
}
// The automatic choice partitions filters beyond kGpuFirMaxUnpartitionedAutoTaps: at FFT length
// kGpuFirShortPartitionsFftLength up to kGpuFirShortPartitionsMaxTaps taps, at the longest length
// beyond (up to FirFilter's kMaxTaps). On the H200 (bench/RESULTS.md, "The FIR filter on the
// GPU") a segment's transforms cost least per item at N = 4096 and each partition adds about
// the same per item at any N, while one spectrum at N = 16384 (8191 taps) ran at half the rate
// of four partitions at 4096.
inline constexpr std::size_t kGpuFirMaxUnpartitionedAutoTaps = 2048;
inline constexpr std::size_t kGpuFirShortPartitionsFftLength = 4096;
inline constexpr std::size_t kGpuFirShortPartitionsMaxTaps = 16384;
// Where one spectrum folds the decimation: the lengths whose fold kernel's shared memory (the
// team's planes and its D folded spectra, N complex) still lets three CTAs share a
// multiprocessor. (A partitioned filter folds where N/D is at least kGpuFirMinFftLength.)
inline constexpr std::size_t kGpuFirFoldLengthMin = 1024;
inline constexpr std::size_t kGpuFirFoldLengthMax = 4096;
inline constexpr std::size_t kGpuFirFoldDecimationMax = 8;

// One automatic choice: a transform length and whether the decimation folds into it.
struct GpuFirChoice {
  std::size_t fft_length = 0;
  bool fold = false;
};

// The automatic choices for M taps decimated by D where one spectrum serves (M up to
// kGpuFirMaxUnpartitionedAutoTaps; longer filters have the one partitioned choice above), the
// fastest first on a device that a call fills. On the H200 (bench/RESULTS.md, "The FFT length
// of one spectrum") a segment's two transforms cost about the same per point from 2048 to 8192
// (a quarter more at 1024), so the longest transform, whose hop loses the fewest points to the
// overlap, ran fastest: 8192 gave 63 taps 1.4x the rate of 1024. Folding D = 2, 4 or 8 into
// inverse transforms of N/D at N = 4096 ran 1.5 to 2.1x the unfolded 8192 (complex input), so:
//   - D of 2, 4 or 8: folded at N = 4096, 2048, 1024 while N >= 2M (a hop of at least half N);
//   - then unfolded at N = 8192, 4096, ... down to the smallest power of two of at least 4M
//     (and kGpuFirMinAutoFftLength).
// Real input and taps without a shift take two segments per transform, folded or not
// (GpuFirPlan::packed), which leaves the order as it is.
std::vector<GpuFirChoice> gpu_fir_auto_choices(std::size_t taps, std::size_t decimation);

// Output k is full[t], t = c + k·D (c: 0 causal, (M−1)//2 same). Segment s holds full[s·B ..
// s·B + B): the points N−B .. N−1 of its circular convolution, whose window is the input items
// [s·B + B − N, s·B + B).
struct FirSegmentMap {
  static constexpr unsigned long long kNone = ~0ull;
  unsigned long long n = 0;           // N
  unsigned long long hop = 0;         // B
  unsigned long long decimation = 1;  // D
  unsigned long long offset = 0;      // c

  // How many outputs have t < `t`.
  PRISM_FIR_HD unsigned long long outputs_before(unsigned long long t) const {
    return t > offset ? (t - offset + decimation - 1) / decimation : 0;
  }
  // The first output of segment s (its outputs are [first_output(s), first_output(s + 1))).
  PRISM_FIR_HD unsigned long long first_output(unsigned long long s) const { return outputs_before(s * hop); }
  // The absolute index of the first item of segment s's window (negative: zeros before the input).
  PRISM_FIR_HD long long window_start(unsigned long long s) const {
    return static_cast<long long>(s * hop + hop) - static_cast<long long>(n);
  }
  // The points of segment s's circular convolution that are outputs: points first_point +
  // r·D for r < count are the outputs first_output + r (what the kernel's epilogue walks, in
  // 32-bit arithmetic relative to the segment).
  struct Points {
    unsigned long long first_output = 0;
    unsigned first_point = 0;
    unsigned count = 0;
  };
  PRISM_FIR_HD Points points(unsigned long long s) const {
    Points p;
    p.first_output = first_output(s);
    p.count = static_cast<unsigned>(first_output(s + 1) - p.first_output);
    if (p.count > 0) p.first_point = static_cast<unsigned>(offset + p.first_output * decimation + n - s * hop - hop);
    return p;
  }
  // With a fold of D (D divides N and B): the row of the inverse transform of N/D that holds
  // point `first_point` (points δ + D·r at row r; δ = c mod D = first_point mod D).
  PRISM_FIR_HD unsigned folded_row(unsigned first_point) const {
    return first_point / static_cast<unsigned>(decimation);
  }
  // The output that point `i` (0 .. N−1) of segment s's circular convolution is, or kNone.
  PRISM_FIR_HD unsigned long long output_of(unsigned long long s, unsigned long long i) const {
    if (i + hop < n) return kNone;
    const unsigned long long t = s * hop + hop - n + i;
    if (t < offset) return kNone;
    const unsigned long long u = t - offset;
    if (u % decimation != 0) return kNone;
    return u / decimation;
  }
};

struct GpuFirPlan {
  FirSegmentMap map;
  // D when the decimation is folded into an inverse transform of N/D (then the spectrum is
  // rotated by exp(+2πi·b·δ/N), δ = c mod D), else 1.
  unsigned long long fold = 1;
  bool complex_input = false;
  bool complex_output = false;
  // One spectrum (folded or not), real input and real taps without a shift: two segments per
  // transform, the pairs (2p, 2p + 1) by their absolute index, 2p's window as the real parts and
  // 2p + 1's as the imaginary parts; the inverse's real parts are 2p's outputs, its imaginary
  // parts 2p + 1's. A segment is computed with the same partner whatever the cutting (so its
  // outputs' bits do not depend on it): process() calls end on a pair's end (GpuFirSchedule), a
  // flush's first pair may start one segment before its first.
  bool packed = false;
  bool shifted = false;
  // Computed in double (kernels of cuda_fir.cu's double path): filter_spectrum64 holds the
  // spectrum, filter_spectrum and output_phasors are empty.
  bool double_precision = false;
  std::size_t taps = 0;           // the taps set now
  bool complex_taps = false;
  // The most taps set_taps takes: FirSpec::max_taps, else the taps' count. The geometry (N, B,
  // the partitions, the offset c) follows it, so a switch keeps every buffer and the history.
  std::size_t taps_capacity = 0;
  std::size_t partition_taps = 0;  // the capacity's taps per partition (B partitioned, else all)
  bool same_alignment = false;
  std::uint64_t first_index = 0;  // n0 of FirSpec (the shift's phase)
  // K: 1, or the partitions of B = N/2 taps each (partition k: taps k·B .. k·B + B − 1).
  std::size_t partitions = 1;
  // K·N bins, partition k's at [k·N, k·N + N): the FFT of its taps (rotated by exp(+j2π·m·f/fs),
  // m the tap's index inside the capacity, when shifted), divided by N; folded, every partition's
  // spectrum rotated by exp(+2πi·b·δ/N).
  std::vector<std::complex<float>> filter_spectrum;
  std::vector<std::complex<double>> filter_spectrum64;  // double_precision: the same, N bins
  // Shifted: exp(−j2π·r·D·f/fs) for r < ceil(B/D), the phasors of a segment's outputs relative
  // to its first (as FirFilter's table).
  std::vector<std::complex<float>> output_phasors;
  std::optional<ExactPhase> phase;
  double step_cycles = 0;  // frac(f/fs): the phase step per item, in cycles

  // New taps (FirFilter::set_taps's checks and placement: at the capacity's start for causal,
  // centred on c for same): filter_spectrum recomputed; UsageError naming taps otherwise, the
  // plan unchanged.
  void set_taps(const FilterTaps& new_taps);
  // The most outputs one call of n items can give (FirFilter::max_output's bound; packed, one
  // segment more: a call may complete the segment the last one left for its pair).
  std::size_t max_output(std::size_t n) const;
  // The most segments one call of at most `max_items` items completes.
  std::size_t max_segments(std::size_t max_items) const;
  // The input items the device keeps between calls: a window's N − B and the items of the
  // segments not yet complete, fewer than B (packed: fewer than 2B, a segment waiting for its
  // pair).
  std::size_t history_items() const { return static_cast<std::size_t>(map.n + (packed ? map.hop : 0)); }
  // Partitioned: how many segments' spectra the device's ring holds. A call's sums read the
  // spectra of its segments and of the K − 1 before them; its forward transforms start where the
  // last call's ended, which in a flush may be segments without outputs before its first (the
  // alignment's offset, or a decimation longer than the hop).
  std::size_t spectra_ring_segments(std::size_t max_items) const;
  // frac((n0 + c + first_output(s)·D)·f/fs): the phase of segment s's first output, exactly.
  double anchor_cycles(std::uint64_t s) const;
  // "FFT 4096 (hop 3072), 1023 real taps, decimation 8 in frequency (inverse FFT 512)"; where
  // the decimation does not fold "..., decimation 8 (every 8th point of the inverse FFT)".
  std::string describe() const;
};

// The plan for `spec` (checked as FirFilter checks it: check_fir_spec). N: spec.fft_length when
// set (a power of two from 256 to 16384; the filter is partitioned when M > N), else up to
// kGpuFirMaxUnpartitionedAutoTaps taps the first of gpu_fir_auto_choices (the first unfolded one
// when fold_allowed is false) and one spectrum, beyond that partitioned (the lengths above). One
// spectrum: B = N − M + 1, rounded down to a multiple of D when the decimation is folded (D of 2,
// 4 or 8 at N of 1024 to 4096 with B ≥ D; `fold`). Partitioned: B = N/2, K = ceil(M / B),
// folded for D of 2, 4 or 8 where N/D is at least kGpuFirMinFftLength.
// In double precision the plan kGpuFir64MinAutoFftLength's comment gives (UsageError naming
// fft_length or taps beyond it). UsageError naming fft_length when the GPU cannot take it. With
// max_taps the geometry is the
// capacity's (M above is max_taps) and set_taps may replace the taps. fold_allowed false: every
// decimation keeps every D-th point of the inverse transform of N (the hop not rounded).
GpuFirPlan plan_gpu_fir(const FirSpec& spec, bool fold_allowed = true);
// The plan of one of gpu_fir_auto_choices(M, D) for `spec` (whose fft_length is 0).
GpuFirPlan plan_gpu_fir(const FirSpec& spec, const GpuFirChoice& choice);

// The plans CudaFir may run for `spec`, the fastest first on a device that a call fills: the
// automatic choices (spec.fft_length 0, one spectrum), else the one length (or partitioned plan)
// and, where it folds, the same unfolded. `fold`: folded plans only where there are any
// (always), unfolded only (never), or both (automatic).
enum class GpuFirFold { automatic, always, never };
std::vector<GpuFirPlan> gpu_fir_plan_options(const FirSpec& spec, GpuFirFold fold = GpuFirFold::automatic);

// Which of `options` (best first) CudaFir runs, `segments_per_cta[i]` the segments a CTA of
// option i's kernel takes: the first whose call of `max_items` items (ceil(max_items / B)
// segments) gives each of the device's `multiprocessors` at least one full CTA, else the one
// whose call makes the most CTAs, among equals the one that holds the fewest items back (B, 2B
// when packed). On a device no option fills, the call spread the widest ends the soonest (short
// transforms, and no fold, whose CTA takes D transforms, of D segments or D pairs, one after
// another),
// and the fewest items held back keep a live stream's output closest to its input.
std::size_t pick_gpu_fir_plan(const std::vector<GpuFirPlan>& options, const std::vector<int>& segments_per_cta,
                              std::size_t max_items, int multiprocessors);

// What one process() or flush() call computes.
struct FirCall {
  unsigned long long first_segment = 0, end_segment = 0;  // segments [first, end)
  unsigned long long out_first = 0;  // the output that out[0] is
  unsigned long long out_end = 0;    // outputs from here on are not written
  unsigned long long block_first = 0, block_items = 0;  // the call's input items
  unsigned long long valid_end = 0;  // items from here on are zeros (the end of the input)
  unsigned long long history_first = 0;  // the history the call reads: items [history_first, block_first)
  unsigned long long keep_first = 0;  // the history after the call: items [keep_first, block end)
  unsigned long long written = 0;     // outputs written: out_first .. out_first + written
  unsigned long long segments_with_outputs = 0;
};

// The stream's bookkeeping, as FirFilter keeps it: segments on fixed boundaries of the absolute
// input index, the history the next segments need, the outputs owed at the end.
class GpuFirSchedule {
 public:
  // paired: process() calls end on an even segment (GpuFirPlan::packed).
  explicit GpuFirSchedule(const FirSegmentMap& map, bool paired = false) : map_(map), paired_(paired) {}

  // A call of n input items (after the items_in() before it).
  FirCall process(std::size_t n);
  // At the end of input: the next outputs owed, at most `capacity` (written = 0: none left).
  FirCall flush(std::size_t capacity);
  void reset();

  std::uint64_t items_in() const { return items_in_; }
  std::uint64_t items_out() const { return items_out_; }
  std::uint64_t segments() const { return segments_; }
  std::uint64_t history_first() const { return history_first_; }
  bool flushing() const { return flushing_; }

 private:
  unsigned long long count_with_outputs(unsigned long long first, unsigned long long end,
                                        unsigned long long limit) const;

  FirSegmentMap map_;
  bool paired_ = false;
  std::uint64_t items_in_ = 0;
  std::uint64_t items_out_ = 0;
  std::uint64_t segments_done_ = 0;  // segments [0, segments_done_) computed
  std::uint64_t segments_ = 0;       // of those, the ones that had outputs
  std::uint64_t history_first_ = 0;
  bool flushing_ = false;
  std::uint64_t output_limit_ = 0;
};

}  // namespace prism
