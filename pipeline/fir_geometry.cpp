// FirGeometry (fir_geometry.hpp): the candidates and the cost model that picks one.
//
// The constants are per-point costs measured on the reference machine (AMD EPYC, 2 cores,
// FFTW 3.3.10 with FFTW_ESTIMATE plans); only their ratios matter, and they are fixed so that
// the same request always gives the same geometry (and hence the same output bits).
#include "pipeline/fir_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"

namespace prism {
namespace {

// Nanoseconds per point and per log2 of a power-of-two length, in cache.
constexpr double kFftUnit = 0.085;
// Per point and per factor, relative to a factor 2 (log2 p · FFTW's relative cost per point).
double factor_weight(std::uint64_t p) {
  switch (p) {
    case 2: return 1.0;
    case 3: return 1.585 * 1.15;
    case 5: return 2.322 * 1.2;
    case 7: return 2.807 * 1.35;
    default: return 0.5 * static_cast<double>(p);  // generic or Rader codelets: ~p per point
  }
}
// FFTW_ESTIMATE's per-point cost as the transform leaves L1/L2, at powers of two from 2^12,
// interpolated in log2(n) between them (so the cost is continuous in n).
double cache_factor(std::size_t n) {
  static constexpr double kFactors[] = {1.0, 1.4, 2.2, 2.6, 3.0, 3.4, 5.0};  // 2^12 .. 2^18
  const double level = std::log2(static_cast<double>(n)) - 12.0;
  if (level <= 0) return 1.0;
  constexpr int kLast = static_cast<int>(std::size(kFactors)) - 1;
  if (level >= kLast) return kFactors[kLast];
  const int i = static_cast<int>(level);
  const double t = level - i;
  return kFactors[i] * (1 - t) + kFactors[i + 1] * t;
}
// A complex multiply (K = 1) or multiply-add into an accumulator (K > 1), per bin.
constexpr double kMultiplyCost = 0.30;
constexpr double kMultiplyAddCost = 0.28;
// Per doubling of the partitions' spectra beyond the L2 cache, the multiply-adds slow by this
// much (they are summed per block of bins over a batch of segments, so they stream the
// spectra once per batch, not once per segment).
constexpr double kMultiplyAddCostPerDoubling = 0.05;
constexpr double kCacheBytes = 1 << 20;
// Loading an input item into a segment, storing an output, splitting or joining two real
// spectra (per bin).
constexpr double kLoadCost = 0.25;
constexpr double kStoreCost = 0.5;
constexpr double kSplitCost = 0.6;

std::vector<std::uint64_t> prime_factors(std::uint64_t n) {
  std::vector<std::uint64_t> f;
  for (std::uint64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  if (n > 1) f.push_back(n);
  return f;
}

bool is_smooth(std::uint64_t n) {
  for (std::uint64_t p : {2u, 3u, 5u, 7u})
    while (n % p == 0) n /= p;
  return n == 1;
}

// The 7-smooth lengths 2 .. kMaxAutoFftLength, ascending.
const std::vector<std::size_t>& smooth_lengths() {
  static const std::vector<std::size_t> lengths = [] {
    std::vector<std::size_t> v;
    for (std::size_t n = 2; n <= kMaxAutoFftLength; ++n)
      if (is_smooth(n)) v.push_back(n);
    return v;
  }();
  return lengths;
}

struct Candidate {
  std::size_t n = 0, hop = 0, partition_taps = 0, partitions = 0;
  bool fold = false;
};

double cost_per_item(const Candidate& c, std::size_t decimation, bool packed_real) {
  const double n = static_cast<double>(c.n);
  const std::size_t inverse = c.fold ? c.n / decimation : c.n;
  const double segments_per_transform = packed_real ? 2.0 : 1.0;
  const double outputs = segments_per_transform *
                         std::ceil(static_cast<double>(c.hop) / static_cast<double>(decimation));
  double cost = fir_fft_cost(c.n) + fir_fft_cost(inverse) + segments_per_transform * n * kLoadCost +
                outputs * kStoreCost;
  if (c.partitions == 1) {
    cost += n * kMultiplyCost;
  } else {
    // Spectra of K partitions and the delay line of K segments, streamed per segment.
    const double bins = packed_real ? n / 2 + 1 : n;
    const double bytes = 2.0 * static_cast<double>(c.partitions) * bins * 8.0;
    const double mac =
        kMultiplyAddCost + kMultiplyAddCostPerDoubling * std::max(0.0, std::log2(bytes / kCacheBytes));
    cost += segments_per_transform * static_cast<double>(c.partitions) * bins * mac;
    if (packed_real) cost += 2.0 * n * kSplitCost;  // split into two spectra, join back
  }
  return cost / (segments_per_transform * static_cast<double>(c.hop));
}

// The candidates for one FFT length; none when the length cannot hold a segment.
void candidates_for_length(std::size_t n, std::size_t taps, std::size_t decimation,
                           bool packed_real, bool allow_unpartitioned, std::vector<Candidate>& out) {
  const std::size_t d = decimation;
  const bool divides = n % d == 0;
  // Unpartitioned: B = N − M + 1 (a multiple of D to fold; folding is always the cheaper).
  if (allow_unpartitioned && n >= taps) {
    const std::size_t hop = n - taps + 1;
    if (divides && hop >= d)
      out.push_back({n, hop / d * d, taps, 1, true});
    else
      out.push_back({n, hop, taps, 1, false});
  }
  // Partitioned: P = B, N >= 2B − 1; two real halves need an even N.
  if (packed_real && n % 2 != 0) return;
  const std::size_t half = (n + 1) / 2;
  if (half < 1 || half >= taps) return;  // one partition would do
  if (divides && half >= d) {
    const std::size_t b = half / d * d;
    out.push_back({n, b, b, (taps + b - 1) / b, true});
  } else {
    out.push_back({n, half, half, (taps + half - 1) / half, false});
  }
}

FirGeometry to_geometry(const Candidate& c, std::size_t decimation, bool packed_real) {
  FirGeometry g;
  g.fft_length = c.n;
  g.hop = c.hop;
  g.partition_taps = c.partition_taps;
  g.partitions = c.partitions;
  g.fold = c.fold;
  g.inverse_length = c.fold ? c.n / decimation : c.n;
  g.cost_per_item = cost_per_item(c, decimation, packed_real);
  return g;
}

}  // namespace

double fir_fft_cost(std::size_t n) {
  if (n <= 1) return 0.0;
  double weight = 0.0;
  for (std::uint64_t p : prime_factors(n)) weight += factor_weight(p);
  return static_cast<double>(n) * weight * kFftUnit * cache_factor(n);
}

std::string FirGeometry::describe() const {
  std::string s = "FFT " + std::to_string(fft_length) + ", hop " + std::to_string(hop);
  if (partitions > 1)
    s += ", " + std::to_string(partitions) + " partitions of " + std::to_string(partition_taps);
  s += fold ? ", decimation in frequency (inverse FFT " + std::to_string(inverse_length) + ")"
            : "";
  return s;
}

FirGeometry choose_fir_geometry(const FirGeometryRequest& r) {
  if (r.taps < 1) throw UsageError("taps: a filter needs at least one tap");
  if (r.decimation < 1) throw UsageError("decimate=0 is out of range: the decimation is >= 1");
  std::vector<Candidate> candidates;
  if (r.fft_length != 0) {
    if (r.fft_length < 2 || r.fft_length > kMaxFftLength)
      throw UsageError("fft_length=" + std::to_string(r.fft_length) +
                       " is out of range: 2 .. " + std::to_string(kMaxFftLength));
    candidates_for_length(r.fft_length, r.taps, r.decimation, r.packed_real, true, candidates);
    if (candidates.empty())
      throw UsageError("fft_length=" + std::to_string(r.fft_length) +
                       " is too short for " + std::to_string(r.taps) + " taps" +
                       (r.packed_real ? " (an odd length cannot partition a real filter)" : ""));
  } else {
    // Every 7-smooth length, and (for a decimation with other factors) D times a smooth one.
    const bool partition_only = r.taps >= kPartitionedFromTaps;
    for (std::size_t n : smooth_lengths())
      candidates_for_length(n, r.taps, r.decimation, r.packed_real, !partition_only, candidates);
    if (!is_smooth(r.decimation))
      for (std::size_t q : smooth_lengths()) {
        if (q > kMaxAutoFftLength / r.decimation) break;
        candidates_for_length(q * r.decimation, r.taps, r.decimation, r.packed_real,
                              !partition_only, candidates);
      }
  }
  const Candidate* best = nullptr;
  double best_cost = 0.0;
  for (const Candidate& c : candidates) {
    const double cost = cost_per_item(c, r.decimation, r.packed_real);
    if (best == nullptr || cost < best_cost) {
      best = &c;
      best_cost = cost;
    }
  }
  return to_geometry(*best, r.decimation, r.packed_real);
}

}  // namespace prism
