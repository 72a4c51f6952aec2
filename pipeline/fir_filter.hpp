// FirFilter: a streaming FIR filter on the CPU by FFT convolution (overlap-save on FFTW), with
// an optional frequency shift before the filter and decimation inside it. Its output does not
// depend on how the input is cut into process() calls, nor on the number of threads.
//
// What it computes. For input x[n] (real or complex float, or double with
// FirSpec::double_precision), taps h[0..M) (real or complex, given in double), shift f and
// sample rate fs, decimation D and output offset c:
//   xs[n]  = x[n]·exp(−j2π·f·(n0 + n)/fs)         (n0: FirSpec::first_index; no shift: xs = x)
//   full[t] = Σ_m h[m]·xs[t − m]                    (x = 0 outside the input)
//   y[k]   = full[c + k·D],  k = 0 .. ceil(N/D) − 1  (N: the number of input items)
// with c = 0 for FirAlign::causal (y = scipy.signal.lfilter(h, 1, xs)[::D]) and
// c = (M − 1)//2 for FirAlign::same (y = scipy.signal.oaconvolve(xs, h, 'same')[::D]). The
// output is complex when the input or the taps are complex or a shift is set, else real.
// process() returns the outputs whose inputs have all arrived (in whole segments, see below);
// flush() returns the rest once the input has ended (for `same` the last (M−1)//2 ones use the
// zeros after the input).
//
// Algorithm: uniformly partitioned overlap-save (fir_geometry.hpp has the geometry and the
// cost model). Segment s consumes input [s·B, s·B + B) and reads the N items that end there;
// its spectrum X_s is one forward FFT. The filter's K partitions of P taps have spectra H_k
// (computed once, scaled by 1/N). Segment s's outputs are the inverse FFT of Σ_k X_{s−k}·H_k,
// whose last B points are full[s·B .. s·B + B). K = 1 is plain overlap-save; long filters
// (K > 1) keep the spectra of the last K segments (the frequency-domain delay line), so the
// latency is one hop B (at most kMaxAutoFftLength/2) and the memory about 2·(K + S)·N complex
// values (S: the segments of a batch, below), whatever M (up to kMaxTaps = 2^26 taps). Filters
// of 2^16 taps or more are always partitioned. Segments sit on fixed boundaries of the absolute
// input index, so the same segments, with the same data, through the same FFT plans, give every
// output whatever the cutting.
//   Real input with real taps (and no shift): two consecutive segments share one complex FFT
// as its real and imaginary parts (conv is linear and h real, so the inverse FFT's real and
// imaginary parts are the two segments' outputs); with K > 1 the two spectra are split apart
// (X_a = (Z + conj Z(−k))/2, X_b = (Z − conj Z(−k))/2j) to enter the delay line, and only half
// of the bins (N/2 + 1) are multiplied.
//
// Decimation: with D dividing N and B (the cost model prefers such geometries), the wanted
// outputs of a segment are the points δ + D·r of its circular convolution, δ = c mod D, the
// same for every segment; the spectrum times exp(2πi·k·δ/N) (folded into H_k; for a packed
// partitioned filter applied after the two spectra are joined back, since it would break
// their symmetry), summed over its D aliases Z[k'] = Σ_q Y[k' + q·N/D], gives exactly those
// points by an inverse FFT of N/D. Otherwise (an explicit FFT length not divisible by D) the
// full inverse FFT is computed and every D-th output kept.
//
// Shift: instead of rotating the input, the taps are rotated and the outputs counter-rotated
// (as GNU Radio's freq_xlating_fft_filter): Σ_m h[m]·x[t−m]·e^{−jω(n0+t−m)} =
// e^{−jω(n0+t)}·Σ_m (h[m]·e^{jωm})·x[t−m]. So real input stays real (complex taps), and the
// counter-rotation costs one complex multiply per *output*. The phase of item n is
// frac(n·f/fs) computed exactly in integer arithmetic (exact_phase.hpp), so it is as accurate
// after 2^36 or 2^60 items as at the start. Each segment's first output phasor is a
// double-precision sincos of that; the others are it times a table of exp(−j2π·r·D·f/fs).
//
// Taps switch (set_taps): exact. The delay line holds input spectra only (and the history
// raw input), so new taps apply at once to every output not yet returned: those outputs equal
// the new filter's over the same input history, the ones already returned stay the old
// filter's. No crossfade (a large change of filter can click; the caller may ramp). Any tap
// count up to FirSpec::max_taps works: shorter filters are placed inside the capacity (at the
// start for causal, centred so that (M−1)//2 lines up for same), which does not change the
// outputs mathematically.
//
// Threads: a call that completes several segments spreads them over `threads` threads (the
// caller and persistent workers started at construction, woken by a semaphore per call,
// claiming segments from an atomic counter). Partitioned filters run three rounds per batch
// of S segments (about K, at most 64 transforms): the forward FFTs (per transform); the sums
// Σ_k X_{s−k}·H_k of every segment of the batch, per block of 16–256 bins sized so that the
// block's share of the K spectra and of the delay line stays in L1 (each is then read from
// memory once per batch, not once per segment), each sum kept in registers over all k
// (fir_kernels.hpp); then the folds, inverse FFTs and stores (per transform). Each segment is
// computed by the same code and plans on equally aligned buffers, and each bin's sum is the
// same arithmetic whatever the block, so the output bits depend neither on the thread count
// nor on the batching. process(), flush() and set_taps() never allocate.
//
// Not thread-safe: one caller at a time (counters() excepted).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "filter_taps.hpp"
#include "fir_geometry.hpp"

namespace prism {

// Limits of FirSpec.
inline constexpr std::size_t kMaxTaps = std::size_t{1} << 26;  // taps and max_taps
inline constexpr std::size_t kMaxDecimation = std::size_t{1} << 24;
inline constexpr unsigned kMaxThreads = 256;

enum class FirAlign {
  causal,  // y[k] = full[k·D]: lfilter(h, 1, x)[::D]
  same,    // y[k] = full[(M−1)//2 + k·D]: oaconvolve(x, h, 'same')[::D]
};

struct FirSpec {
  FilterTaps taps;                    // 1 .. kMaxTaps taps; finite values
  bool complex_input = false;      // input items are (re, im) float pairs
  double sample_rate = 1.0;        // Hz, > 0 (used by the shift)
  std::optional<double> shift_hz;  // set: shift by −shift_hz before filtering (finite)
  std::uint64_t first_index = 0;   // absolute index n0 of the first input item (the shift's phase)
  std::size_t decimation = 1;      // D: 1 .. kMaxDecimation
  FirAlign align = FirAlign::causal;
  std::size_t max_taps = 0;    // the most taps set_taps will be given; 0: taps.size()
  std::size_t fft_length = 0;  // 0: the cost model's choice; else 2 .. kMaxFftLength
  unsigned threads = 0;        // threads computing segments, the caller included
                               // (0: all cores; at most kMaxThreads)
  bool double_precision = false;  // items, FFTs (FFTW double) and products in double; the
                                  // double overloads of process() and flush() take the items
};

struct FirCounters {
  std::uint64_t items_in = 0;   // input items given to process()
  std::uint64_t items_out = 0;  // outputs returned by process() and flush()
  std::uint64_t segments = 0;   // overlap-save segments computed
};

// The checks FirFilter's constructor makes (UsageError naming the setting: taps, decimate, shift,
// sample_rate, max_taps, threads); the GPU filter (pipeline/cuda/cuda_fir.hpp) makes the same.
void check_fir_spec(const FirSpec& spec);
// The checks of a taps switch (set_taps) on a filter with room for `capacity` taps (UsageError
// naming taps): at least one, at most the capacity, finite, real where the output is real.
void check_fir_taps_switch(const FilterTaps& taps, std::size_t capacity, bool complex_output);
// Where m taps start inside a filter's capacity, the CPU's and the GPU's alike: at 0 for causal;
// for same, centred so that tap (m−1)//2 falls on the offset c that the capacity's alignment
// gives ((capacity − 1)//2), so a switch to fewer taps keeps the group delay.
inline std::size_t first_tap_slot(bool align_same, std::size_t offset, std::size_t m) {
  return align_same ? offset - (m - 1) / 2 : 0;
}

class FirFilter {
 public:
  // Validates the spec (UsageError naming the setting: taps, decimate, shift, sample_rate,
  // max_taps, fft_length, threads), chooses the geometry, makes the FFT plans, computes the taps'
  // spectra and starts the workers. All memory is allocated here.
  explicit FirFilter(const FirSpec& spec);
  ~FirFilter();
  FirFilter(const FirFilter&) = delete;
  FirFilter& operator=(const FirFilter&) = delete;

  bool double_precision() const;  // items are doubles (process and flush on double*)
  bool complex_input() const;
  bool complex_output() const;  // outputs are (re, im) pairs
  std::size_t decimation() const;
  const FirGeometry& geometry() const;
  unsigned threads() const;
  // e.g. "cpu fir: 1023 complex taps, FFT 4096, hop 3074, decimation in frequency ..., 2 threads".
  std::string describe() const;

  // The most outputs one process() call of n input items can return, whatever the state.
  std::size_t max_output(std::size_t n) const;
  // Filters n input items (n or 2n floats); writes the outputs that are complete to `out`
  // (room for max_output(n) of them) and returns their number. Any n, 0 included. Throws
  // std::logic_error after flush() (reset() first).
  std::size_t process(const float* in, std::size_t n, float* out);
  // The same on doubles, for a filter built with double_precision (each overload throws
  // std::logic_error on a filter of the other precision).
  std::size_t process(const double* in, std::size_t n, double* out);
  // At the end of the input: writes up to `capacity` of the outputs still owed and returns
  // their number; call until it returns 0. Then only reset() makes the filter usable again.
  std::size_t flush(float* out, std::size_t capacity);
  std::size_t flush(double* out, std::size_t capacity);
  // Back to the state after construction (no input seen), keeping the current taps.
  void reset();
  // Replaces the taps between calls (see the header comment: exact). Real taps only when the
  // output is real; at most max_taps of them. Throws UsageError otherwise. Does not allocate.
  void set_taps(const FilterTaps& taps);

  // Safe to call from another thread while process() runs.
  FirCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism
