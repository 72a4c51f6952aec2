// FirGeometry: how FirFilter (fir_filter.hpp) cuts its work — the FFT length, the hop (new
// input items per overlap-save segment), the partitioning of long filters and whether the
// decimation is done in the frequency domain — and the cost model that chooses them.
//
// Overlap-save with a uniformly partitioned filter (a frequency-domain delay line): the M taps
// are cut into K partitions of P taps; segment s takes the N input items that end at
// (s+1)·B, and its output is the sum over k of the FFT of segment s−k times the FFT of
// partition k. Each segment yields the B outputs [s·B, s·B + B) of the full convolution, which
// needs N >= B + P − 1 and, when K > 1, P = B (partition k is then exactly k segments late).
// K = 1 is plain overlap-save (P = M).
//
// Decimation by D in the frequency domain ("fold"): when D divides N and B, the D-th outputs
// of a segment are the inverse FFT of length N/D of the spectrum folded onto N/D bins, so the
// inverse transform shrinks by D. Otherwise every output is computed and the D-th kept.
//
// The cost model estimates the time per input item of each candidate and takes the cheapest:
//   a forward FFT of N + the products (K per bin, summed in registers) + an inverse FFT of N or
//   N/D + loads, stores and passes over the spectra + a fixed cost per transform,
// divided by the items a transform consumes (B, or 2B when two real segments share one
// complex FFT). An FFT's cost comes from a table measured on the reference machine
// (bench/filter/fftw_estimate_costs): FFTW_ESTIMATE plans — the only kind prism makes, for
// determinism — are quirky, good for powers of two up to 4096 and 2–3× slower per point from
// 16384, while lengths with a factor 5 or 15 stay good far beyond (15360, 40960, 122880). The
// candidates are the table's lengths, 2^a·m for m in {1, 3, 5, 7, 9, 15}, up to
// kMaxAutoFftLength (and D times them, so that any D can fold), each unpartitioned
// (P = M, B = N − M + 1 rounded down to a multiple of D) and partitioned (P = B ≈ N/2).
// Since the hop N − M + 1 shrinks continuously with M and the lengths are dense (steps of
// 7–33 %), the cost per item never falls as M grows and rises in small steps (the largest,
// < 10 %, where a partitioned filter needs one partition more): no sawtooth. GNU Radio's
// fft_filter takes N = 2·nextpow2(M), so its hop falls from ~3M to ~M each time M crosses a
// power of two and its throughput swings by ~1.5× up and down.
#pragma once

#include <cstddef>
#include <string>

namespace prism {

// The longest FFT the cost model considers. It bounds the hop (latency) and the memory of a
// filter per partition.
inline constexpr std::size_t kMaxAutoFftLength = std::size_t{1} << 17;
// Filters of this many taps or more are always partitioned (unless an explicit FFT length
// holds them whole): their latency (one hop) and memory stay bounded whatever M.
inline constexpr std::size_t kPartitionedFromTaps = std::size_t{1} << 16;
// The longest FFT an explicit length may ask for.
inline constexpr std::size_t kMaxFftLength = std::size_t{1} << 24;

struct FirGeometry {
  std::size_t fft_length = 0;  // N
  std::size_t hop = 0;  // B: new input items per segment (outputs per segment before decimation)
  std::size_t partition_taps = 0;  // P: taps per partition (M when unpartitioned)
  std::size_t partitions = 0;      // K = ceil(M / P)
  bool fold = false;               // decimation by folding the spectrum (D divides N and B)
  std::size_t inverse_length = 0;  // N / D with fold, else N
  double cost_per_item = 0;        // the model's estimate, nanoseconds per input item

  std::string describe() const;
};

// What the geometry depends on.
struct FirGeometryRequest {
  std::size_t taps = 1;        // M >= 1
  std::size_t decimation = 1;  // D >= 1
  bool packed_real = false;    // real input and real taps: two segments per complex FFT
  std::size_t fft_length = 0;  // 0: the cost model chooses; else N itself (2 .. kMaxFftLength)
};

// The cheapest geometry (or, with an explicit length, the best for that length: unpartitioned
// when M fits, else partitioned). Throws UsageError when an explicit length cannot hold a
// segment ("fft_length=... is too short ...").
FirGeometry choose_fir_geometry(const FirGeometryRequest& request);

// The model's cost of one complex FFT of length n, in nanoseconds.
double fir_fft_cost(std::size_t n);

}  // namespace prism
