// qa_GpuFirPlan: the host half of the GPU fir (pipeline/gpu_fir_plan.hpp) without a GPU. A host
// model of the kernels (cuda_fir_kernels.cuh, step by step: the window read from the history,
// the chunk and zeros; the transform; the product with the plan's spectrum, or for a partitioned
// filter the spectra kept in a ring of the plan's size and their sums of products; the fold of
// the spectrum where the plan folds the decimation; the inverse; the outputs FirSegmentMap
// names, counter-rotated from the segment's anchor as the kernel computes it; the history kept)
// driven by GpuFirSchedule must give FirFilter's outputs for any cutting of the input, with
// flushes of any capacity; and the plan must refuse what the GPU cannot take.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <numbers>
#include <random>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/gpu_fir_plan.hpp"

namespace prism {
namespace {

using cd = std::complex<double>;
using cf = std::complex<float>;

// The DFT of x by radix-2 recursion in double precision (n a power of two).
void fft(std::vector<cd>& x) {
  const std::size_t n = x.size();
  if (n == 1) return;
  std::vector<cd> even(n / 2), odd(n / 2);
  for (std::size_t i = 0; i < n / 2; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
  fft(even);
  fft(odd);
  for (std::size_t k = 0; k < n / 2; ++k) {
    const cd t = std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n)) * odd[k];
    x[k] = even[k] + t;
    x[k + n / 2] = even[k] - t;
  }
}

// A spectrum of N bins folded onto N/D: z[i] = Σ_q x[i + q·N/D] (the fold kernel's).
std::vector<cd> folded(const std::vector<cd>& x, unsigned long long d) {
  std::vector<cd> z(x.size() / d);
  for (std::size_t b = 0; b < x.size(); ++b) z[b % z.size()] += x[b];
  return z;
}

// The kernel's arithmetic on the host, in double precision where the kernel uses float.
class HostModel {
 public:
  // max_items: the largest chunk a process() call gets (CudaFir's configure()), which sizes the
  // grid of segments and caps a flush call's outputs as CudaFir does.
  HostModel(const FirSpec& spec, std::size_t max_items)
      : plan_(plan_gpu_fir(spec)), schedule_(plan_.map, plan_.packed), history_(plan_.history_items()), max_items_(max_items) {}

  const GpuFirPlan& plan() const { return plan_; }
  // CudaFir::set_taps: the plan's spectrum replaced between calls, the history kept.
  void set_taps(const FilterTaps& taps) { plan_.set_taps(taps); }

  void process(const std::vector<cf>& chunk, std::vector<cf>& out) {
    ASSERT_LE(chunk.size(), max_items_);
    const FirCall call = schedule_.process(chunk.size());
    EXPECT_LE(call.written, plan_.max_output(chunk.size())) << "max_output bounds every call";
    EXPECT_LE(call.end_segment - call.first_segment, plan_.max_segments(chunk.size()))
        << "a call completes at most max_segments";
    EXPECT_LE(launched_segments(call), grid_segments()) << "the segments of a call fit the grid CudaFir sizes";
    run(call, chunk, out);
    if (call.block_items > 0) {  // the history kernel
      const unsigned long long keep = call.block_first + call.block_items - call.keep_first;
      ASSERT_LE(keep, plan_.history_items()) << "the history kept fits the device's buffer";
      std::vector<cf> next(plan_.history_items());
      for (unsigned long long t = 0; t < keep; ++t)
        next[t] = item(call, chunk, static_cast<long long>(call.keep_first + t));
      history_ = next;
    }
  }

  // Flushes with calls of at most `capacity` outputs, each capped as CudaFir caps it (the
  // outputs of max_items) and within the grid it sizes.
  void flush(std::vector<cf>& out, std::size_t capacity) {
    for (;;) {
      const FirCall call = schedule_.flush(std::min(capacity, plan_.max_output(max_items_)));
      if (call.written == 0) return;
      EXPECT_LE(launched_segments(call), grid_segments()) << "a flush call's segments fit the grid CudaFir sizes";
      run(call, {}, out);
    }
  }

  // As CudaFir: the segments a call launches (packed, the pairs holding them) and the segments
  // its grid is sized for.
  unsigned long long launched_segments(const FirCall& c) const {
    return plan_.packed ? 2 * ((c.end_segment + 1) / 2 - c.first_segment / 2) : c.end_segment - c.first_segment;
  }
  unsigned long long grid_segments() const {
    return plan_.max_segments(max_items_) + 2 + (plan_.packed ? 2 : 0);
  }

 private:
  cf item(const FirCall& c, const std::vector<cf>& chunk, long long p) const {
    if (p < 0 || static_cast<unsigned long long>(p) >= c.valid_end) return {0.0f, 0.0f};
    const auto q = static_cast<unsigned long long>(p);
    if (q < c.block_first) {
      EXPECT_GE(q, c.history_first);
      EXPECT_LT(q - c.history_first, plan_.history_items()) << "the history holds what the plan says";
      return history_[q - c.history_first];
    }
    return chunk[q - c.block_first];
  }

  void run(const FirCall& c, const std::vector<cf>& chunk, std::vector<cf>& out) {
    const std::size_t base = out.size();
    out.resize(base + c.written);
    std::vector<bool> seen(c.written, false);
    const FirSegmentMap& m = plan_.map;
    const auto window_spectrum = [&](unsigned long long s) {
      std::vector<cd> x(m.n);
      for (unsigned long long i = 0; i < m.n; ++i) x[i] = cd(item(c, chunk, m.window_start(s) + i));
      fft(x);
      return x;
    };
    const std::size_t partitions = plan_.partitions;
    if (partitions > 1 && c.end_segment > spectra_end_) {
      // The forward kernel: the segments from where the last call's ended, into the ring.
      const unsigned long long ring = plan_.spectra_ring_segments(max_items_);
      EXPECT_LE(c.end_segment - std::min<unsigned long long>(c.first_segment, spectra_end_) + partitions - 1, ring)
          << "a call's spectra fit the ring CudaFir sizes";
      for (unsigned long long j = spectra_end_; j < c.end_segment; ++j) spectra_[j] = window_spectrum(j);
      spectra_end_ = c.end_segment;
      while (!spectra_.empty() && spectra_.begin()->first + ring < spectra_end_) spectra_.erase(spectra_.begin());
    }
    std::vector<cd> pair_first, pair_second;  // packed: the pair (2p, 2p + 1)'s outputs
    for (unsigned long long s = c.first_segment; s < c.end_segment; ++s) {
      std::vector<cd> x(m.n);
      bool transformed = false;  // the inverse transform done
      if (plan_.packed) {
        EXPECT_EQ(partitions, 1u);
        EXPECT_FALSE(plan_.complex_output);
        if (s == c.first_segment || s % 2 == 0) {
          // As the kernel: the pair holding s, 2p's window as the real parts and 2p + 1's as the
          // imaginary parts, both the input's items whichever the call stores; folded, the
          // product folded onto N/D bins before the inverse.
          const unsigned long long p = s - s % 2;
          for (unsigned long long i = 0; i < m.n; ++i)
            x[i] = cd(item(c, chunk, m.window_start(p) + i).real(), item(c, chunk, m.window_start(p + 1) + i).real());
          fft(x);
          for (unsigned long long b = 0; b < m.n; ++b) x[b] = std::conj(x[b] * cd(plan_.filter_spectrum[b]));
          if (plan_.fold > 1) x = folded(x, plan_.fold);
          fft(x);  // conj(y_2p + j·y_2p+1)
          pair_first.assign(x.size(), cd());
          pair_second.assign(x.size(), cd());
          for (std::size_t i = 0; i < x.size(); ++i) {
            pair_first[i] = cd(x[i].real(), 0.0);
            pair_second[i] = cd(-x[i].imag(), 0.0);
          }
        }
        x = s % 2 == 0 ? pair_first : pair_second;
        transformed = true;
      } else if (partitions == 1) {
        x = window_spectrum(s);
        for (unsigned long long b = 0; b < m.n; ++b) x[b] = std::conj(x[b] * cd(plan_.filter_spectrum[b]));
      } else {  // the sums of products, Y_s = Σ_k X_{s−k}·H_k (X_j = 0 for j < 0)
        for (std::size_t k = 0; k < partitions && k <= s; ++k) {
          const auto found = spectra_.find(s - k);
          ASSERT_NE(found, spectra_.end()) << "segment " << s - k << "'s spectrum is not in the ring";
          for (unsigned long long b = 0; b < m.n; ++b) x[b] += found->second[b] * cd(plan_.filter_spectrum[k * m.n + b]);
        }
        for (cd& v : x) v = std::conj(v);
      }
      const unsigned long long fold = plan_.fold;
      if (!transformed) {
        if (fold > 1) x = folded(x, fold);
        fft(x);
      }
      cd anchor(1.0, 0.0);
      const FirSegmentMap::Points points = m.points(s);
      const unsigned long long first_output = points.first_output;
      if (plan_.shifted) {  // as the kernel: the step from the call's first segment, in double
        double delta = static_cast<double>(static_cast<long long>(first_output - m.first_output(c.first_segment)) *
                                           static_cast<long long>(m.decimation)) *
                       plan_.step_cycles;
        delta -= std::floor(delta);
        double cycles = plan_.anchor_cycles(c.first_segment) + delta;
        cycles -= std::floor(cycles);
        anchor = std::polar(1.0, -2.0 * std::numbers::pi * cycles);
      }
      // As the kernel's epilogue: each point relative to the segment's first output point.
      // Folded: row i of the inverse of N/D is point δ + D·i, output r from the first row's.
      const int decimation = static_cast<int>(m.decimation);
      for (unsigned long long i = 0; i < x.size(); ++i) {
        int r = 0;
        if (fold > 1) {
          r = static_cast<int>(i) - static_cast<int>(m.folded_row(points.first_point));
          if (r < 0 || r >= static_cast<int>(points.count)) continue;
        } else {
          const int rel = static_cast<int>(i) - static_cast<int>(points.first_point);
          if (rel < 0) continue;
          r = rel / decimation;
          if (r * decimation != rel || r >= static_cast<int>(points.count)) continue;
        }
        const unsigned long long o = first_output + static_cast<unsigned long long>(r);
        if (o < c.out_first || o >= c.out_end) continue;
        cd y = std::conj(x[i]);
        if (plan_.shifted) y *= anchor * cd(plan_.output_phasors.at(static_cast<std::size_t>(r)));
        if (!plan_.complex_output) y = cd(y.real(), 0.0);
        ASSERT_LT(o - c.out_first, c.written) << "an output beyond the call's count";
        EXPECT_FALSE(seen[o - c.out_first]) << "output " << o << " written twice";
        seen[o - c.out_first] = true;
        out[base + (o - c.out_first)] = cf(y);
      }
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
      ASSERT_TRUE(seen[i]) << "output " << c.out_first + i << " of the call was not written";
  }

  GpuFirPlan plan_;
  GpuFirSchedule schedule_;
  std::vector<cf> history_;
  std::size_t max_items_;
  std::map<unsigned long long, std::vector<cd>> spectra_;  // partitioned: the ring, by segment
  unsigned long long spectra_end_ = 0;                     // segments [0, spectra_end_) transformed
};

// The double-precision path (GpuFirPlan::double_precision; cuda_fir64_kernels.cuh) on the host:
// each segment's window transformed, times the plan's spectrum, transformed back; the outputs
// FirSegmentMap names, each counter-rotated by its own phase as the store kernel computes it
// (ExactPhaseTerms::cycles_in_double); the history kept as the history kernel keeps it.
class HostModel64 {
 public:
  HostModel64(const FirSpec& spec, std::size_t max_items)
      : plan_(plan_gpu_fir(spec)), schedule_(plan_.map), history_(plan_.history_items()), max_items_(max_items) {}

  const GpuFirPlan& plan() const { return plan_; }
  void set_taps(const FilterTaps& taps) { plan_.set_taps(taps); }

  void process(const std::vector<cd>& chunk, std::vector<cd>& out) {
    ASSERT_LE(chunk.size(), max_items_);
    const FirCall call = schedule_.process(chunk.size());
    run(call, chunk, out);
    if (call.block_items > 0) {
      const unsigned long long keep = call.block_first + call.block_items - call.keep_first;
      ASSERT_LE(keep, plan_.history_items()) << "the history kept fits the device's buffer";
      std::vector<cd> next(plan_.history_items());
      for (unsigned long long t = 0; t < keep; ++t) next[t] = item(call, chunk, static_cast<long long>(call.keep_first + t));
      history_ = next;
    }
  }

  void flush(std::vector<cd>& out, std::size_t capacity) {
    for (;;) {
      const FirCall call = schedule_.flush(std::min(capacity, plan_.max_output(max_items_)));
      if (call.written == 0) return;
      run(call, {}, out);
    }
  }

 private:
  cd item(const FirCall& c, const std::vector<cd>& chunk, long long p) const {
    if (p < 0 || static_cast<unsigned long long>(p) >= c.valid_end) return {};
    const auto q = static_cast<unsigned long long>(p);
    if (q < c.block_first) return history_.at(q - c.history_first);
    return chunk.at(q - c.block_first);
  }

  void run(const FirCall& c, const std::vector<cd>& chunk, std::vector<cd>& out) {
    const std::size_t base = out.size();
    out.resize(base + c.written);
    if (c.end_segment <= c.first_segment || c.written == 0) return;
    // CudaFir sizes its windows and spectra for this many segments.
    EXPECT_LE(c.end_segment - c.first_segment, plan_.max_segments(max_items_) + 2);
    std::vector<bool> seen(c.written, false);
    const FirSegmentMap& m = plan_.map;
    const ExactPhaseTerms terms = plan_.phase ? plan_.phase->terms() : ExactPhaseTerms{};
    for (unsigned long long s = c.first_segment; s < c.end_segment; ++s) {
      std::vector<cd> x(m.n);
      for (unsigned long long i = 0; i < m.n; ++i) x[i] = item(c, chunk, m.window_start(s) + static_cast<long long>(i));
      fft(x);
      for (unsigned long long b = 0; b < m.n; ++b) x[b] = std::conj(x[b] * plan_.filter_spectrum64[b]);
      fft(x);  // the inverse, conjugated
      const FirSegmentMap::Points points = m.points(s);
      for (unsigned r = 0; r < points.count; ++r) {
        const unsigned long long o = points.first_output + r;
        if (o < c.out_first || o >= c.out_end) continue;
        cd y = std::conj(x[points.first_point + r * m.decimation]);
        if (plan_.shifted)
          y *= std::polar(1.0, -2.0 * std::numbers::pi *
                                   terms.cycles_in_double(plan_.first_index + m.offset + o * m.decimation));
        if (!plan_.complex_output) y = cd(y.real(), 0.0);
        EXPECT_FALSE(seen[o - c.out_first]) << "output " << o << " written twice";
        seen[o - c.out_first] = true;
        out[base + (o - c.out_first)] = y;
      }
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
      ASSERT_TRUE(seen[i]) << "output " << c.out_first + i << " of the call was not written";
  }

  GpuFirPlan plan_;
  GpuFirSchedule schedule_;
  std::vector<cd> history_;
  std::size_t max_items_;
};

struct Case {
  std::size_t taps;
  bool complex_taps;
  bool complex_input;
  std::optional<double> shift;
  std::size_t decimation;
  FirAlign align;
  std::size_t fft_length = 0;
  std::size_t items = 0;  // the input's length; 0: enough for several segments
};

FirSpec spec_of(const Case& c, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  FirSpec spec;
  if (c.complex_taps) {
    std::vector<cd> taps(c.taps);
    for (cd& t : taps) t = cd(normal(rng), normal(rng));
    spec.taps = FilterTaps::from_complex(taps);
  } else {
    std::vector<double> taps(c.taps);
    for (double& t : taps) t = normal(rng);
    spec.taps = FilterTaps::from_real(taps);
  }
  spec.complex_input = c.complex_input;
  spec.sample_rate = 48000.0;
  spec.shift_hz = c.shift;
  spec.decimation = c.decimation;
  spec.align = c.align;
  spec.fft_length = c.fft_length;
  spec.threads = 1;
  spec.first_index = 0;
  return spec;
}

// FirFilter's outputs as complex values, in the precision of the input's values (double: a
// filter with FirSpec::double_precision).
template <typename Real>
std::vector<std::complex<Real>> reference(const FirSpec& spec, const std::vector<std::complex<Real>>& input) {
  FirFilter filter(spec);
  const std::size_t components = spec.complex_input ? 2 : 1;
  std::vector<Real> in(input.size() * components);
  for (std::size_t i = 0; i < input.size(); ++i) {
    in[i * components] = input[i].real();
    if (components == 2) in[2 * i + 1] = input[i].imag();
  }
  const std::size_t out_components = filter.complex_output() ? 2 : 1;
  std::vector<Real> out(filter.max_output(input.size()) * out_components);
  out.resize(filter.process(in.data(), input.size(), out.data()) * out_components);
  std::vector<Real> tail(4096 * out_components);
  while (const std::size_t got = filter.flush(tail.data(), 4096))
    out.insert(out.end(), tail.begin(), tail.begin() + static_cast<long>(got * out_components));
  std::vector<std::complex<Real>> result(out.size() / out_components);
  for (std::size_t i = 0; i < result.size(); ++i)
    result[i] = out_components == 2 ? std::complex<Real>(out[2 * i], out[2 * i + 1]) : std::complex<Real>(out[i], 0);
  return result;
}

template <typename Real>
double relative_l2(const std::vector<std::complex<Real>>& a, const std::vector<std::complex<Real>>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += std::norm(cd(a[i]) - cd(b[i]));
    norm += std::norm(cd(b[i]));
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

TEST(GpuFirPlan, HostModelOfTheKernelGivesFirFiltersOutputsForAnyCutting) {
  const std::vector<Case> cases = {
      {63, false, false, std::nullopt, 1, FirAlign::causal},
      {63, false, true, std::nullopt, 1, FirAlign::same},
      {64, true, true, std::nullopt, 3, FirAlign::causal},
      {31, false, false, 1234.5, 1, FirAlign::same},
      {255, false, true, -7000.25, 8, FirAlign::same},
      {100, true, false, std::nullopt, 8, FirAlign::causal},
      {7, false, true, 333.0, 64, FirAlign::same},
      {3, false, false, std::nullopt, 300, FirAlign::causal},  // D > B: segments without outputs
      {129, false, true, 1e3, 5, FirAlign::causal, 512},
      {1, false, false, std::nullopt, 1, FirAlign::same},
      // Packed (real input and taps): with the three real cases above; unfolded, then folded
      // with δ = c mod D of 7, 0 and 1.
      {255, false, false, std::nullopt, 3, FirAlign::same, 1024},
      {200, false, false, std::nullopt, 8, FirAlign::causal, 8192, 17000},
      {1023, false, false, std::nullopt, 8, FirAlign::same},
      {200, false, false, std::nullopt, 4, FirAlign::causal, 2048},
      {63, false, false, std::nullopt, 2, FirAlign::same, 1024},
      // Folded decimation (N 1024 to 4096, D 2, 4, 8), δ = c mod D of 0 and not.
      {101, false, true, 2500.0, 4, FirAlign::same},
      {400, true, false, std::nullopt, 2, FirAlign::same, 2048},
      {1023, false, false, -900.0, 8, FirAlign::same},
      {1024, false, true, std::nullopt, 4, FirAlign::causal},
      // Partitioned (an FFT length shorter than the taps): K partitions of N/2.
      {300, false, false, std::nullopt, 1, FirAlign::causal, 256},
      {1000, true, true, -1500.0, 3, FirAlign::same, 256},
      {513, false, true, 700.0, 8, FirAlign::same, 512},
      {2000, false, false, std::nullopt, 300, FirAlign::same, 256},  // D > B, offset of 8 segments
      // Partitioned and folded (the sums folded onto N/D bins), δ of 0 and not.
      {1500, true, false, 250.0, 4, FirAlign::same, 1024},
      {2100, false, true, std::nullopt, 8, FirAlign::same},
      {700, false, false, std::nullopt, 2, FirAlign::causal, 512},
      // An input shorter than the alignment's offset: the first flush passes over the segments
      // before the first output (which the ring's size allows for).
      {5000, false, true, 300.0, 2, FirAlign::same, 256, 1000},
  };
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal;
  for (const Case& c : cases) {
    const FirSpec spec = spec_of(c, rng);
    // Several segments at every FFT length (the hop is up to 3074 at N 4096).
    const std::size_t items = c.items != 0 ? c.items : std::max<std::size_t>(3000, 4 * plan_gpu_fir(spec).map.hop);
    std::vector<cf> input(items);
    for (cf& x : input) x = cf(normal(rng), c.complex_input ? normal(rng) : 0.0f);
    const std::vector<cf> expected = reference(spec, input);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{250}, std::size_t{1000}, items}) {
      for (const std::size_t capacity : {std::size_t{1}, std::size_t{5}, std::size_t{100000}}) {
        if (chunk == 1 && capacity != 100000) continue;  // enough: keeps the test quick
        // The model's history step costs N per call: one-item calls at the long lengths only
        // repeat what the short ones check.
        if (chunk == 1 && plan_gpu_fir(spec).map.n > 2048) continue;
        HostModel model(spec, chunk);
        std::vector<cf> out;
        for (std::size_t first = 0; first < items; first += chunk)
          model.process(std::vector<cf>(input.begin() + static_cast<long>(first),
                                        input.begin() + static_cast<long>(std::min(items, first + chunk))),
                        out);
        model.flush(out, capacity);
        SCOPED_TRACE("taps " + std::to_string(c.taps) + ", D " + std::to_string(c.decimation) + ", chunk " +
                     std::to_string(chunk) + ", flush capacity " + std::to_string(capacity));
        ASSERT_EQ(out.size(), expected.size());
        EXPECT_LT(relative_l2(out, expected), 2e-6);

      }
    }
  }
}

// In double precision (one spectrum, no fold, no packing, each output's phase exact) the host
// model of the four kernels gives FirFilter's double outputs to double rounding, for any cutting
// and flush capacity, and across a taps switch.
TEST(GpuFirPlan, DoublePrecisionHostModelGivesFirFiltersDoubleOutputs) {
  const std::vector<Case> cases = {
      {63, false, false, std::nullopt, 1, FirAlign::causal},
      {63, false, true, std::nullopt, 1, FirAlign::same},
      {64, true, true, std::nullopt, 3, FirAlign::causal},
      {255, false, true, -7000.25, 8, FirAlign::same},
      {101, false, false, 1234.5, 4, FirAlign::same, 512},
      {300, false, true, 700.0, 300, FirAlign::same, 512},  // D > B: segments without outputs
      {700, true, false, 300.0, 2, FirAlign::same, 1024},
      {1, false, false, std::nullopt, 1, FirAlign::same},
      // An input shorter than the alignment's offset.
      {1500, false, true, 300.0, 2, FirAlign::same, 2048, 500},
  };
  std::mt19937 rng(54);
  std::normal_distribution<double> normal;
  for (const Case& c : cases) {
    FirSpec spec = spec_of(c, rng);
    spec.double_precision = true;
    spec.first_index = 123456789;  // the shift's phase from a later item
    const std::size_t items = c.items != 0 ? c.items : 3 * static_cast<std::size_t>(plan_gpu_fir(spec).map.hop) + 17;
    std::vector<cd> input(items);
    for (cd& x : input) x = cd(normal(rng), c.complex_input ? normal(rng) : 0.0);
    const std::vector<cd> expected = reference(spec, input);
    for (const std::size_t chunk : {std::size_t{333}, std::size_t{1000}, items}) {
      for (const std::size_t capacity : {std::size_t{7}, std::size_t{100000}}) {
        HostModel64 model(spec, chunk);
        std::vector<cd> out;
        for (std::size_t first = 0; first < items; first += chunk)
          model.process(std::vector<cd>(input.begin() + static_cast<long>(first),
                                        input.begin() + static_cast<long>(std::min(items, first + chunk))),
                        out);
        model.flush(out, capacity);
        SCOPED_TRACE("taps " + std::to_string(c.taps) + ", D " + std::to_string(c.decimation) + ", chunk " +
                     std::to_string(chunk) + ", flush capacity " + std::to_string(capacity) + ": " +
                     model.plan().describe());
        ASSERT_EQ(out.size(), expected.size());
        EXPECT_LT(relative_l2(out, expected), 1e-13);
      }
    }
  }
  // A switch to shorter complex taps after 2997 items: the outputs after it are the new filter's.
  FirSpec spec = spec_of({200, true, true, 1500.0, 3, FirAlign::same, 1024}, rng);
  spec.double_precision = true;
  spec.max_taps = 300;
  FirSpec after = spec_of({150, true, true, 1500.0, 3, FirAlign::same, 1024}, rng);
  after.double_precision = true;
  after.max_taps = 300;
  std::vector<cd> input(9000);
  for (cd& x : input) x = cd(normal(rng), normal(rng));
  const std::vector<cd> old_outputs = reference(spec, input), new_outputs = reference(after, input);
  HostModel64 model(spec, 333);
  std::vector<cd> got;
  std::size_t switched = 0;
  for (std::size_t first = 0; first < input.size(); first += 333) {
    if (first == 2997) {
      model.set_taps(after.taps);
      switched = got.size();
    }
    model.process(std::vector<cd>(input.begin() + static_cast<long>(first),
                                  input.begin() + static_cast<long>(std::min(input.size(), first + 333))),
                  got);
  }
  model.flush(got, 100000);
  ASSERT_EQ(got.size(), old_outputs.size());
  ASSERT_GT(switched, 0u);
  EXPECT_LT(relative_l2(std::vector<cd>(got.begin(), got.begin() + static_cast<long>(switched)),
                        std::vector<cd>(old_outputs.begin(), old_outputs.begin() + static_cast<long>(switched))),
            1e-13);
  EXPECT_LT(relative_l2(std::vector<cd>(got.begin() + static_cast<long>(switched), got.end()),
                        std::vector<cd>(new_outputs.begin() + static_cast<long>(switched), new_outputs.end())),
            1e-13);
}

// A plan made with room for more taps (max_taps) gives FirFilter's outputs for taps shorter than
// its capacity, and set_taps between two calls switches as FirFilter's does: the outputs before
// are the old filter's, those after the new one's over the same history (the host model, so
// the GPU's bookkeeping, with every chunk size). Which outputs come before depends on the
// segments each completes, so each is compared with the two filters run whole.
TEST(GpuFirPlan, SetTapsSwitchesAsFirFilterDoes) {
  struct Switch {
    std::size_t taps_before, taps_after, capacity, decimation;
    bool complex_input, complex_taps;
    std::optional<double> shift;
    FirAlign align;
    std::size_t fft_length;
  };
  std::mt19937 rng(77);
  std::normal_distribution<float> normal;
  for (const Switch& c : std::vector<Switch>{
           {63, 63, 0, 1, false, false, std::nullopt, FirAlign::causal, 0},        // packed, same length
           {101, 31, 101, 1, false, false, std::nullopt, FirAlign::same, 0},       // shorter, centred
           {40, 120, 120, 3, true, false, std::nullopt, FirAlign::same, 0},        // longer, in the room
           {200, 150, 400, 8, true, true, 1500.0, FirAlign::causal, 0},           // folded, shifted
           {301, 64, 301, 2, false, true, std::nullopt, FirAlign::same, 1024},   // real input, complex taps
           {500, 333, 700, 5, false, false, std::nullopt, FirAlign::same, 256},  // partitioned, real
           {600, 1000, 1000, 4, true, true, -700.0, FirAlign::same, 512},        // partitioned, folded
       }) {
    Case before_case{c.taps_before, c.complex_taps, c.complex_input, c.shift, c.decimation, c.align, c.fft_length};
    FirSpec spec = spec_of(before_case, rng);
    spec.max_taps = c.capacity;
    FirSpec after_spec = spec_of({c.taps_after, c.complex_taps, c.complex_input, c.shift, c.decimation, c.align,
                                  c.fft_length},
                                 rng);
    after_spec.max_taps = spec.max_taps;
    const std::size_t items = 9000;
    std::vector<cf> input(items);
    for (cf& x : input) x = cf(normal(rng), c.complex_input ? normal(rng) : 0.0f);
    // FirFilter's outputs over the whole input, with the old taps and with the new.
    const std::vector<cf> old_outputs = reference(spec, input), new_outputs = reference(after_spec, input);
    SCOPED_TRACE("taps " + std::to_string(c.taps_before) + " -> " + std::to_string(c.taps_after) + ", capacity " +
                 std::to_string(c.capacity) + ", D " + std::to_string(c.decimation));
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{333}, std::size_t{4500}}) {
      if (chunk == 1 && plan_gpu_fir(spec).map.n > 2048) continue;  // as above: quick enough
      const std::size_t switch_at = chunk == 4500 ? 4500 : 2997;
      HostModel model(spec, chunk);
      EXPECT_EQ(model.plan().taps_capacity, std::max(c.capacity, c.taps_before));
      std::vector<cf> got;
      std::size_t switched = 0;  // the outputs returned before the switch
      for (std::size_t first = 0; first < items; first += chunk) {
        if (first == switch_at) {
          model.set_taps(after_spec.taps);
          switched = got.size();
        }
        model.process(std::vector<cf>(input.begin() + static_cast<long>(first),
                                      input.begin() + static_cast<long>(std::min(items, first + chunk))),
                      got);
      }
      model.flush(got, 100000);
      SCOPED_TRACE("chunk " + std::to_string(chunk) + ", " + std::to_string(switched) + " outputs before the switch");
      ASSERT_EQ(got.size(), old_outputs.size());
      EXPECT_LT(relative_l2(std::vector<cf>(got.begin(), got.begin() + static_cast<long>(switched)),
                            std::vector<cf>(old_outputs.begin(), old_outputs.begin() + static_cast<long>(switched))),
                2e-6);
      EXPECT_LT(relative_l2(std::vector<cf>(got.begin() + static_cast<long>(switched), got.end()),
                            std::vector<cf>(new_outputs.begin() + static_cast<long>(switched), new_outputs.end())),
                2e-6);
    }
  }
  // The switch's checks, the plan unchanged when they fail.
  FirSpec spec = spec_of({61, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  spec.max_taps = 100;
  GpuFirPlan plan = plan_gpu_fir(spec);
  const std::vector<std::complex<float>> spectrum = plan.filter_spectrum;
  EXPECT_THROW(plan.set_taps(FilterTaps::from_real(std::vector<double>(101, 0.1))), UsageError);
  EXPECT_THROW(plan.set_taps(FilterTaps::from_real({})), UsageError);
  EXPECT_THROW(plan.set_taps(FilterTaps::from_complex({cd(1, 1)})), UsageError);  // a real output
  EXPECT_THROW(plan.set_taps(FilterTaps::from_real({1.0, std::nan("")})), UsageError);
  EXPECT_EQ(plan.filter_spectrum, spectrum);
  EXPECT_EQ(plan.taps, 61u);
  EXPECT_NE(plan.describe().find("61 real taps (room for 100)"), std::string::npos) << plan.describe();
  plan.set_taps(FilterTaps::from_real(std::vector<double>(100, 0.1)));
  EXPECT_EQ(plan.taps, 100u);
}

TEST(GpuFirPlan, TheFftLengthFollowsTheTapsAndIsChecked) {
  std::mt19937 rng(1);
  // One spectrum: the first automatic choice, the longest transform the auto choices take.
  FirSpec spec = spec_of({63, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, 8192u);
  // Real input and taps: two segments per transform, folded or not; not with a complex side or
  // partitions.
  EXPECT_TRUE(plan_gpu_fir(spec).packed);
  EXPECT_NE(plan_gpu_fir(spec).describe().find("two real segments per transform"), std::string::npos);
  // In double: one spectrum at the smallest power of two of 4M and 4096, or fft_length (any
  // length from the taps to 2^24), unpacked and unfolded; beyond, usage errors naming the setting.
  FirSpec wide = spec_of({63, false, false, std::nullopt, 8, FirAlign::causal}, rng);
  wide.double_precision = true;
  const GpuFirPlan wide_plan = plan_gpu_fir(wide);
  EXPECT_EQ(wide_plan.map.n, 4096u);
  EXPECT_EQ(wide_plan.map.hop, 4096u - 62u);
  EXPECT_TRUE(wide_plan.double_precision);
  EXPECT_FALSE(wide_plan.packed);
  EXPECT_EQ(wide_plan.fold, 1u);
  EXPECT_EQ(wide_plan.partitions, 1u);
  EXPECT_TRUE(wide_plan.filter_spectrum.empty());
  EXPECT_EQ(wide_plan.filter_spectrum64.size(), 4096u);
  EXPECT_NE(wide_plan.describe().find("in double precision"), std::string::npos) << wide_plan.describe();
  EXPECT_EQ(gpu_fir_plan_options(wide).size(), 1u);
  FirSpec wide_long = spec_of({3000, false, true, std::nullopt, 1, FirAlign::causal}, rng);
  wide_long.double_precision = true;
  EXPECT_EQ(plan_gpu_fir(wide_long).map.n, 16384u);
  wide_long.fft_length = 5000;
  EXPECT_EQ(plan_gpu_fir(wide_long).map.n, 5000u);
  EXPECT_EQ(plan_gpu_fir(wide_long).map.hop, 2001u);
  for (const std::size_t bad : {std::size_t{2999}, kGpuFir64MaxFftLength + 1}) {
    wide_long.fft_length = bad;
    try {
      plan_gpu_fir(wide_long);
      ADD_FAILURE() << "fft_length " << bad << " was planned in double";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("fft_length=", 0), 0u) << e.what();
    }
  }
  FirSpec too_long;
  too_long.taps = FilterTaps::from_real(std::vector<double>(kGpuFir64MaxTaps + 1, 1e-3));
  too_long.double_precision = true;
  try {
    plan_gpu_fir(too_long);
    ADD_FAILURE() << "a filter beyond kGpuFir64MaxTaps was planned in double";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("taps: ", 0), 0u) << e.what();
  }
  too_long.fft_length = kGpuFir64MaxFftLength;  // the cap holds for an explicit length too
  EXPECT_THROW(plan_gpu_fir(too_long), UsageError);
  EXPECT_TRUE(gpu_fir64_takes(kGpuFir64MaxTaps, 0));
  EXPECT_FALSE(gpu_fir64_takes(kGpuFir64MaxTaps + 1, 0));
  EXPECT_TRUE(gpu_fir64_takes(3000, 3000));
  EXPECT_FALSE(gpu_fir64_takes(3000, 2999));
  EXPECT_FALSE(gpu_fir64_takes(kGpuFir64MaxTaps + 1, kGpuFir64MaxFftLength));
  EXPECT_FALSE(plan_gpu_fir(spec_of({63, false, true, std::nullopt, 1, FirAlign::causal}, rng)).packed);
  EXPECT_FALSE(plan_gpu_fir(spec_of({63, true, false, std::nullopt, 1, FirAlign::causal}, rng)).packed);
  EXPECT_FALSE(plan_gpu_fir(spec_of({63, false, false, 100.0, 1, FirAlign::causal}, rng)).packed);
  const GpuFirPlan real_folded = plan_gpu_fir(spec_of({63, false, false, std::nullopt, 8, FirAlign::causal}, rng));
  EXPECT_TRUE(real_folded.packed);
  EXPECT_EQ(real_folded.fold, 8u);
  EXPECT_EQ(real_folded.describe(),
            "FFT 4096 (hop 4032), 63 real taps, decimation 8 in frequency (inverse FFT 512), two real segments per "
            "transform");
  EXPECT_TRUE(plan_gpu_fir(spec_of({63, false, false, std::nullopt, 8, FirAlign::causal}, rng), false).packed);
  EXPECT_FALSE(plan_gpu_fir(spec_of({300, false, false, std::nullopt, 1, FirAlign::causal, 256}, rng)).packed);
  spec = spec_of({1023, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, 8192u);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, 8192u - 1022u);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 1u);
  // Decimation by 2, 4 or 8 at N 1024 to 4096 folds, on a hop that D divides; others do not.
  spec = spec_of({1023, false, false, std::nullopt, 8, FirAlign::same}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 8u);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, 4096u);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, 3072u);
  // Not allowed to fold: the first unfolded choice, the whole hop.
  EXPECT_EQ(plan_gpu_fir(spec, false).fold, 1u);
  EXPECT_EQ(plan_gpu_fir(spec, false).map.n, 8192u);
  EXPECT_EQ(plan_gpu_fir(spec, false).map.hop, 7170u);
  EXPECT_EQ(plan_gpu_fir(spec, false).map.decimation, 8u);
  spec = spec_of({1023, false, false, std::nullopt, 8, FirAlign::same, 4096}, rng);
  EXPECT_EQ(plan_gpu_fir(spec, false).map.hop, 3074u);
  spec = spec_of({1023, false, false, std::nullopt, 16, FirAlign::same}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 1u);
  spec = spec_of({63, false, false, std::nullopt, 6, FirAlign::same}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 1u);
  spec = spec_of({kGpuFirMaxUnpartitionedAutoTaps, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, 8192u);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 1u);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, 8192u - kGpuFirMaxUnpartitionedAutoTaps + 1);
  // Longer filters are partitioned: into partitions of 2048 (N 4096) up to 16384 taps, of 8192
  // (N 16384) beyond; decimation by 2, 4 or 8 folded into inverse transforms of N/D.
  spec = spec_of({kGpuFirMaxUnpartitionedAutoTaps + 1, false, false, std::nullopt, 8, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, kGpuFirShortPartitionsFftLength);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, kGpuFirShortPartitionsFftLength / 2);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 2u);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 8u);
  EXPECT_FALSE(plan_gpu_fir(spec).packed);
  EXPECT_EQ(plan_gpu_fir(spec).describe(),
            "FFT 4096 (hop 2048), 2049 real taps in 2 partitions of 2048, decimation 8 in frequency (inverse FFT 512)");
  EXPECT_EQ(plan_gpu_fir(spec, false).fold, 1u);
  EXPECT_EQ(plan_gpu_fir(spec, false).map.hop, kGpuFirShortPartitionsFftLength / 2);
  EXPECT_EQ(plan_gpu_fir(spec).filter_spectrum.size(), 2 * kGpuFirShortPartitionsFftLength);
  spec = spec_of({kGpuFirShortPartitionsMaxTaps, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, kGpuFirShortPartitionsFftLength);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 8u);
  spec = spec_of({kGpuFirShortPartitionsMaxTaps + 1, false, false, std::nullopt, 1, FirAlign::causal}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).map.n, kGpuFirMaxFftLength);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 3u);
  spec = spec_of({65535, false, false, std::nullopt, 1, FirAlign::same}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 8u);
  EXPECT_NE(plan_gpu_fir(spec).describe().find("in 8 partitions of 8192"), std::string::npos);
  // One spectrum up to the explicit length's own size.
  spec = spec_of({8191, false, false, std::nullopt, 1, FirAlign::causal, 16384}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 1u);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, 16384u - 8191u + 1);
  // An explicit length shorter than the taps partitions them too, folded where N/D is a length
  // of the team FFT.
  spec = spec_of({300, false, false, std::nullopt, 4, FirAlign::causal, 1024}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 1u);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 4u);
  spec = spec_of({3000, false, false, std::nullopt, 4, FirAlign::causal, 1024}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).partitions, 6u);
  EXPECT_EQ(plan_gpu_fir(spec).map.hop, 512u);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 4u);
  spec = spec_of({3000, false, false, std::nullopt, 8, FirAlign::causal, 1024}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 1u);  // 128 bins: shorter than the team FFT's shortest
  spec = spec_of({3000, false, false, std::nullopt, 3, FirAlign::causal, 1024}, rng);
  EXPECT_EQ(plan_gpu_fir(spec).fold, 1u);
  spec = spec_of({63, false, false, std::nullopt, 1, FirAlign::causal, 1000}, rng);
  EXPECT_THROW(plan_gpu_fir(spec), UsageError);  // not a power of two
  spec = spec_of({63, false, false, std::nullopt, 1, FirAlign::causal, 128}, rng);
  EXPECT_THROW(plan_gpu_fir(spec), UsageError);  // shorter than the team FFT's shortest
  spec = spec_of({63, false, false, std::nullopt, 0, FirAlign::causal}, rng);
  EXPECT_THROW(plan_gpu_fir(spec), UsageError);  // FirFilter's own checks
}

// output_of (point by point) and points (per segment, as the kernel walks them) name the same
// outputs, each once.
TEST(GpuFirPlan, TheMapNamesEachOutputOnceAcrossSegments) {
  for (const unsigned long long decimation : {1ull, 7ull, 100ull, 300ull}) {
    FirSegmentMap map;
    map.n = 256;
    map.hop = 100;
    map.decimation = decimation;
    map.offset = 13;
    std::vector<int> hits(20000, 0);
    for (unsigned long long s = 0; s < 100; ++s) {
      const FirSegmentMap::Points points = map.points(s);
      std::vector<unsigned long long> named;
      for (unsigned long long i = 0; i < map.n; ++i) {
        const unsigned long long o = map.output_of(s, i);
        if (o == FirSegmentMap::kNone) continue;
        ASSERT_LT(o, hits.size());
        ++hits[o];
        EXPECT_GE(o, map.first_output(s));
        EXPECT_LT(o, map.first_output(s + 1));
        EXPECT_EQ(i, points.first_point + (o - points.first_output) * decimation) << "segment " << s;
        named.push_back(o);
      }
      EXPECT_EQ(named.size(), points.count) << "segment " << s << ", D " << decimation;
    }
    for (std::size_t o = 0; o < map.first_output(100); ++o) EXPECT_EQ(hits[o], 1) << "output " << o;
  }
}

TEST(GpuFirPlan, TheAutomaticChoicesPutTheFoldFirstThenTheLongestTransforms) {
  using Choices = std::vector<std::pair<std::size_t, bool>>;
  const auto choices = [](std::size_t taps, std::size_t decimation) {
    Choices list;
    for (const GpuFirChoice& c : gpu_fir_auto_choices(taps, decimation)) list.emplace_back(c.fft_length, c.fold);
    return list;
  };
  EXPECT_EQ(choices(63, 1), (Choices{{8192, false}, {4096, false}, {2048, false}, {1024, false}}));
  EXPECT_EQ(choices(63, 8), (Choices{{4096, true}, {2048, true}, {1024, true}, {8192, false}, {4096, false},
                                     {2048, false}, {1024, false}}));
  // Folded while N >= 2M; unfolded down to the smallest power of two of at least 4M.
  EXPECT_EQ(choices(1023, 8), (Choices{{4096, true}, {2048, true}, {8192, false}, {4096, false}}));
  EXPECT_EQ(choices(1023, 3), (Choices{{8192, false}, {4096, false}}));
  EXPECT_EQ(choices(2047, 4), (Choices{{4096, true}, {8192, false}}));
  EXPECT_EQ(choices(2048, 2), (Choices{{4096, true}, {8192, false}}));
  EXPECT_EQ(choices(2048, 16), (Choices{{8192, false}}));
  // A hop shorter than D does not fold.
  EXPECT_EQ(choices(1, 8), (Choices{{4096, true}, {2048, true}, {1024, true}, {8192, false}, {4096, false},
                                    {2048, false}, {1024, false}}));
  EXPECT_EQ(choices(kGpuFirMaxUnpartitionedAutoTaps + 1, 1), Choices{});  // partitioned: one choice
  // Real input and taps take the same choices, each packed (two segments per transform).
  std::mt19937 rng(5);
  const GpuFirPlan real = plan_gpu_fir(spec_of({2047, false, false, std::nullopt, 8, FirAlign::causal}, rng));
  EXPECT_EQ(real.map.n, 4096u);
  EXPECT_EQ(real.map.hop, 2048u);
  EXPECT_TRUE(real.packed);
  EXPECT_EQ(real.fold, 8u);
  EXPECT_EQ(plan_gpu_fir(spec_of({2047, false, true, std::nullopt, 8, FirAlign::causal}, rng)).fold, 8u);
}

TEST(GpuFirPlan, TheOptionsFollowTheChoicesAndThePinnedFold) {
  std::mt19937 rng(3);
  const FirSpec spec = spec_of({1023, false, false, std::nullopt, 8, FirAlign::causal}, rng);
  const auto lengths = [](const std::vector<GpuFirPlan>& options) {
    std::vector<std::pair<unsigned long long, unsigned long long>> list;
    for (const GpuFirPlan& p : options) list.emplace_back(p.map.n, p.fold);
    return list;
  };
  using List = std::vector<std::pair<unsigned long long, unsigned long long>>;
  EXPECT_EQ(lengths(gpu_fir_plan_options(spec)), (List{{4096, 8}, {2048, 8}, {8192, 1}, {4096, 1}}));
  EXPECT_EQ(lengths(gpu_fir_plan_options(spec, GpuFirFold::always)), (List{{4096, 8}, {2048, 8}}));
  EXPECT_EQ(lengths(gpu_fir_plan_options(spec, GpuFirFold::never)), (List{{8192, 1}, {4096, 1}}));
  // Each option is the plan of its choice; real input and taps: packed, folded or not, whose
  // calls may complete one segment more.
  const std::vector<GpuFirPlan> options = gpu_fir_plan_options(spec);
  EXPECT_EQ(options[1].map.hop, 1024u);
  EXPECT_EQ(options[3].map.hop, 3074u);
  EXPECT_EQ(options[3].filter_spectrum.size(), 4096u);
  EXPECT_TRUE(options[1].packed);
  EXPECT_TRUE(options[3].packed);
  EXPECT_EQ(options[1].max_segments(65536), 65u);
  EXPECT_EQ(options[3].max_segments(65536), 23u);
  EXPECT_EQ(options[3].history_items(), 4096u + 3074u);
  // An explicit length: that length, folded and not.
  FirSpec explicit_length = spec;
  explicit_length.fft_length = 2048;
  EXPECT_EQ(lengths(gpu_fir_plan_options(explicit_length)), (List{{2048, 8}, {2048, 1}}));
  EXPECT_EQ(lengths(gpu_fir_plan_options(explicit_length, GpuFirFold::always)), (List{{2048, 8}}));
  explicit_length.decimation = 3;
  EXPECT_EQ(lengths(gpu_fir_plan_options(explicit_length, GpuFirFold::always)), (List{{2048, 1}}));
  // The pinned fold on real input and taps: packed either way.
  const FirSpec real_long = spec_of({2047, false, false, std::nullopt, 8, FirAlign::causal}, rng);
  EXPECT_EQ(lengths(gpu_fir_plan_options(real_long)), (List{{4096, 8}, {8192, 1}}));
  EXPECT_TRUE(gpu_fir_plan_options(real_long, GpuFirFold::always)[0].packed);
  EXPECT_TRUE(gpu_fir_plan_options(real_long, GpuFirFold::never)[0].packed);
  // Partitioned: the one length, folded and not.
  const FirSpec partitioned = spec_of({3000, false, false, std::nullopt, 8, FirAlign::causal}, rng);
  EXPECT_EQ(lengths(gpu_fir_plan_options(partitioned)), (List{{4096, 8}, {4096, 1}}));
  EXPECT_EQ(lengths(gpu_fir_plan_options(partitioned, GpuFirFold::never)), (List{{4096, 1}}));
  const FirSpec partitioned_d3 = spec_of({3000, false, false, std::nullopt, 3, FirAlign::causal}, rng);
  EXPECT_EQ(lengths(gpu_fir_plan_options(partitioned_d3)), (List{{4096, 1}}));
}

TEST(GpuFirPlan, ThePickIsTheFirstOptionThatFillsTheDeviceElseTheWidest) {
  // 1023 taps, D 8, complex input (not packed): folded at 4096 (hop 3072) and 2048 (hop 1024),
  // unfolded at 8192 (hop 7170) and 4096 (hop 3074); say CTAs of 16, 32, 1 and 2 segments, on
  // 132 multiprocessors.
  std::mt19937 rng(3);
  const std::vector<GpuFirPlan> options =
      gpu_fir_plan_options(spec_of({1023, false, true, std::nullopt, 8, FirAlign::causal}, rng));
  ASSERT_EQ(options.size(), 4u);
  const std::vector<int> per_cta = {16, 32, 1, 2};
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, std::size_t{1} << 26, 132), 0u);  // 21846 segments
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, 16 * 132 * 3072, 132), 0u);
  // One segment short at 4096: 2048 folded has 6333 segments (32 · 132 = 4224 fill it).
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, 16 * 132 * 3072 - 3072, 132), 1u);
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, 32 * 132 * 1024 - 1024, 132), 2u);  // 8192 fills
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, std::size_t{1} << 22, 132), 2u);
  // None fills (the graph's default block): the most CTAs, 4096 unfolded (22 segments, 11 CTAs;
  // 8192 has 10).
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, 65536, 132), 3u);
  // No multiprocessor count known: the most CTAs (4096 unfolded: 174649 against 149760).
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, std::size_t{1} << 30, 0), 3u);
  // Equal CTAs: the shortest hop (one item: one segment, one CTA each; 2048 folded's hop 1024).
  EXPECT_EQ(pick_gpu_fir_plan(options, per_cta, 1, 132), 1u);
  EXPECT_THROW(pick_gpu_fir_plan(options, {16}, 65536, 132), std::invalid_argument);
  // Real input and taps, packed: one CTA each for one item; the fewest items held back (1024's
  // hop of 962, twice, against 8192's 8130 twice).
  const std::vector<GpuFirPlan> real =
      gpu_fir_plan_options(spec_of({63, false, false, std::nullopt, 1, FirAlign::causal}, rng));
  ASSERT_EQ(real.size(), 4u);
  ASSERT_TRUE(real[0].packed);
  EXPECT_EQ(real[pick_gpu_fir_plan(real, {2, 2, 4, 8}, 1, 132)].map.n, 1024u);
  EXPECT_EQ(real[pick_gpu_fir_plan(real, {2, 2, 4, 8}, std::size_t{1} << 26, 132)].map.n, 8192u);
}

}  // namespace
}  // namespace prism
