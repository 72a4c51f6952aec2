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

// FFTW_ESTIMATE's cost of a complex FFT of length n, in nanoseconds per n·log2(n), for the
// lengths 2^a·m (m in 1, 3, 5, 7, 9, 15) that the model considers, measured by
// bench/filter/fftw_estimate_costs (CPU time, mean of two runs of best of 5). ESTIMATE's plans
// are quirky: powers of two are good up to 4096 and slow (0.21–0.24) from 16384, where
// lengths with a factor 5 or 15 stay good (10240: 0.13, 15360: 0.11, 40960: 0.14).
struct MeasuredCost {
  std::size_t n;
  double ns_per_point_log2;
};
constexpr MeasuredCost kMeasuredCosts[] = {
    {8, 0.6575},      {9, 0.6255},      {10, 0.5023},     {12, 0.4054},     {14, 0.4416},
    {15, 0.4290},     {16, 0.3399},     {18, 0.4241},     {20, 0.3369},     {24, 0.2938},
    {28, 0.2369},     {30, 0.2812},     {32, 0.2806},     {36, 0.2128},     {40, 0.1861},
    {48, 0.1020},     {56, 0.1511},     {60, 0.1585},     {64, 0.1000},     {72, 0.2052},
    {80, 0.0905},     {96, 0.0818},     {112, 0.1808},    {120, 0.1046},    {128, 0.0814},
    {144, 0.0712},    {160, 0.0760},    {192, 0.0711},    {224, 0.1692},    {240, 0.0721},
    {256, 0.0723},    {288, 0.1613},    {320, 0.0707},    {384, 0.0658},    {448, 0.1557},
    {480, 0.1865},    {512, 0.0676},    {576, 0.1492},    {640, 0.0678},    {768, 0.1059},
    {896, 0.1434},    {960, 0.1082},    {1024, 0.0658},   {1152, 0.1389},   {1280, 0.0649},
    {1536, 0.1006},   {1792, 0.1125},   {1920, 0.0949},   {2048, 0.0640},   {2304, 0.1476},
    {2560, 0.0897},   {3072, 0.0960},   {3584, 0.1391},   {3840, 0.0912},   {4096, 0.0844},
    {4608, 0.0898},   {5120, 0.0872},   {6144, 0.0935},   {7168, 0.1424},   {7680, 0.0902},
    {8192, 0.1287},   {9216, 0.1557},   {10240, 0.1269},  {12288, 0.1089},  {14336, 0.1760},
    {15360, 0.1138},  {16384, 0.2254},  {18432, 0.2024},  {20480, 0.1317},  {24576, 0.2233},
    {28672, 0.1904},  {30720, 0.1459},  {32768, 0.2152},  {36864, 0.1986},  {40960, 0.1376},
    {49152, 0.2932},  {57344, 0.2311},  {61440, 0.1599},  {65536, 0.2133},  {73728, 0.2445},
    {81920, 0.1486},  {98304, 0.3097},  {114688, 0.3427}, {122880, 0.1628}, {131072, 0.2393},
    {147456, 0.3557}, {163840, 0.1904}, {196608, 0.3477}, {229376, 0.3919}, {245760, 0.1791},
    {262144, 0.3686},
};

// Other lengths (an explicit one, or D times a table length for a D with other factors): the
// table's cost of the largest table length below, times this much per other prime factor
// (FFTW has codelets up to 16; larger primes go through generic or Rader steps).
double other_factor_penalty(std::uint64_t p) {
  return p <= 16 ? 1.3 : static_cast<double>(p) / 10.0;
}

// The per-transform cost besides the FFTs and the per-bin and per-item work below: two FFTW
// calls, the bookkeeping of a segment.
constexpr double kTransformCost = 40.0;
// A product of two spectra summed into a tile in registers, per bin and term: contiguous
// spectra (K = 1: the aliases of one spectrum), and K partitions' spectra and delay-line slots
// a spectrum's length apart (measured with the engine's layout).
constexpr double kMultiplyCost = 0.12;
constexpr double kMultiplyAddCost = 0.18;
// Per doubling of the partitions' spectra beyond the L2 cache, the sums slow by this much
// (they are summed per L1-sized block of bins over a batch of segments, so they stream the
// spectra once per batch, not once per segment).
constexpr double kMultiplyAddCostPerDoubling = 0.02;
constexpr double kCacheBytes = 1 << 20;
// Loading an input item into a segment; storing an output; a pass over a spectrum (split,
// join, fold of aliases), per bin.
constexpr double kLoadCost = 0.25;
constexpr double kStoreCost = 0.5;
constexpr double kPassCost = 0.3;
// A transform whose buffers (window, spectrum, fold: 3·N complex) exceed the L2 cache streams
// them from L3 in every pass: this much more per point (65535 taps at D = 8 measured 1.3–1.7×
// slower on an FFT of 122880 than the warm-cache table predicts).
constexpr double kOutOfCachePointCost = 2.0;

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

// The lengths the model considers: the table's, up to kMaxAutoFftLength, ascending.
const std::vector<std::size_t>& table_lengths() {
  static const std::vector<std::size_t> lengths = [] {
    std::vector<std::size_t> v;
    for (const MeasuredCost& m : kMeasuredCosts)
      if (m.n <= kMaxAutoFftLength) v.push_back(m.n);
    std::sort(v.begin(), v.end());
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
  double cost = kTransformCost + fir_fft_cost(c.n) + fir_fft_cost(inverse) +
                segments_per_transform * n * kLoadCost + outputs * kStoreCost;
  if (3.0 * n * 8.0 > kCacheBytes) cost += n * kOutOfCachePointCost;
  if (c.partitions == 1) {
    cost += n * kMultiplyCost;  // the product, folded onto N/D bins as it is summed
  } else {
    // Spectra of K partitions and the delay line of K segments.
    const double bins = packed_real ? n / 2 + 1 : n;
    const double bytes = 2.0 * static_cast<double>(c.partitions) * bins * 8.0;
    const double mac = kMultiplyAddCost +
                       kMultiplyAddCostPerDoubling * std::max(0.0, std::log2(bytes / kCacheBytes));
    cost += segments_per_transform * static_cast<double>(c.partitions) * bins * mac;
    if (packed_real) cost += 2.0 * n * kPassCost;  // split into two spectra, join back
    if (inverse < c.n) cost += n * kPassCost;      // fold
  }
  return cost / (segments_per_transform * static_cast<double>(c.hop));
}

// The candidates for one FFT length; none when the length cannot hold a segment.
void candidates_for_length(std::size_t n, std::size_t taps, std::size_t decimation,
                           bool packed_real, bool allow_unpartitioned,
                           std::vector<Candidate>& out) {
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
  const double points_log2 = static_cast<double>(n) * std::log2(static_cast<double>(n));
  // The table's length itself, or the largest below with n's power of two and small factors.
  const MeasuredCost* below = nullptr;
  for (const MeasuredCost& m : kMeasuredCosts) {
    if (m.n == n) return points_log2 * m.ns_per_point_log2;
    if (m.n < n && n % m.n == 0 && (below == nullptr || m.n > below->n)) below = &m;
  }
  double unit = below != nullptr ? below->ns_per_point_log2 : kMeasuredCosts[0].ns_per_point_log2;
  std::uint64_t rest = below != nullptr ? n / below->n : n;
  for (std::uint64_t p : prime_factors(rest)) unit *= other_factor_penalty(p);
  return points_log2 * unit;
}

std::string FirGeometry::describe() const {
  std::string s = "FFT " + std::to_string(fft_length) + ", hop " + std::to_string(hop);
  if (partitions > 1)
    s += ", " + std::to_string(partitions) + " partitions of " + std::to_string(partition_taps);
  s += fold ? ", decimation in frequency (inverse FFT " + std::to_string(inverse_length) + ")" : "";
  return s;
}

FirGeometry choose_fir_geometry(const FirGeometryRequest& r) {
  if (r.taps < 1) throw UsageError("taps: a filter needs at least one tap");
  if (r.decimation < 1) throw UsageError("decimate=0 is out of range: the decimation is >= 1");
  std::vector<Candidate> candidates;
  if (r.fft_length != 0) {
    if (r.fft_length < 2 || r.fft_length > kMaxFftLength)
      throw UsageError("fft_length=" + std::to_string(r.fft_length) + " is out of range: 2 .. " +
                       std::to_string(kMaxFftLength));
    candidates_for_length(r.fft_length, r.taps, r.decimation, r.packed_real, true, candidates);
    if (candidates.empty())
      throw UsageError("fft_length=" + std::to_string(r.fft_length) + " is too short for " +
                       std::to_string(r.taps) + " taps" +
                       (r.packed_real ? " (an odd length cannot partition a real filter)" : ""));
  } else {
    // The table's lengths, and D times each of them (those that D does not already divide).
    const bool partition_only = r.taps >= kPartitionedFromTaps;
    for (std::size_t n : table_lengths())
      candidates_for_length(n, r.taps, r.decimation, r.packed_real, !partition_only, candidates);
    if (r.decimation > 1)
      for (std::size_t q : table_lengths()) {
        if (q > kMaxAutoFftLength / r.decimation) break;
        if (q % r.decimation == 0) continue;
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
