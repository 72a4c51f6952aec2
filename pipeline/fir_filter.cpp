// FirFilter (fir_filter.hpp): partitioned overlap-save on FFTW, streamed, with shift and
// decimation, in single or double precision (FirEngine<float>, FirEngine<double>).
//
// Contents:
//   1. small tools              aligned buffers, the shift's fixed-point phase, spectral kernels
//   2. FirEngine: set-up        spec checks, geometry, plans, buffers, taps' spectra, workers
//   3. FirEngine: one segment   load a window, forward FFT, products (and delay line), inverse,
//                               store
//   4. FirEngine: one call      which transforms a call completes, the threads' rounds, history
//   5. the public class         FirFilter on the engine of its precision
//
// Vocabulary. A *transform* is one forward FFT: one segment, or two for real input with real
// taps ("packed": segment 2u in the real part, 2u+1 in the imaginary part). Transform u
// consumes input [u·U, u·U + U), U = B or 2B. Output k is full[t], t = c + k·D; segment s
// holds full[s·B .. s·B + B), the points B..N−1 of its circular convolution (circ index
// i = t − s·B − B + N). With folding, the inverse FFT of N/D gives circ[δ + D·r] at row r,
// δ = c mod D, so output k is row (i − δ)/D; without, row i.
#include "pipeline/fir_filter.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numbers>
#include <semaphore>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "fft/fft.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/exact_phase.hpp"
#include "pipeline/fir_kernels.hpp"

namespace prism {
namespace {

// ---- 1. small tools -------------------------------------------------------------------------

// Every buffer starts on a cache line and has the same alignment, so FFTW runs the same plan
// on every thread's buffers (fft/fftw_backend.cpp picks its plan by alignment).
constexpr std::size_t kAlignment = 64;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
template <typename Real>
using RealBuffer = std::unique_ptr<Real[], AlignedFree>;

// Values rounded up to whole cache lines.
template <typename Real>
std::size_t padded_reals(std::size_t count) {
  constexpr std::size_t per_line = kAlignment / sizeof(Real);
  return (std::max<std::size_t>(count, 1) + per_line - 1) / per_line * per_line;
}

template <typename Real>
RealBuffer<Real> aligned_reals(std::size_t count) {
  const std::size_t bytes = padded_reals<Real>(count) * sizeof(Real);
  void* p = std::aligned_alloc(kAlignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return RealBuffer<Real>(static_cast<Real*>(p));
}

// A thread's share of the work is claimed this many transforms' worth of FFT points at a
// time, and a call is shared only when it holds more than one transform and at least this
// much: waking a worker costs some tens of microseconds.
constexpr std::uint64_t kMinParallelPoints = std::uint64_t{1} << 15;

// Partitioned filters: the products are summed over blocks of bins small enough that the
// block's share of the partitions' spectra and of the delay line stays in L1 (kL1Bytes) while
// every segment of a batch uses it: between 16 and 256 bins, a multiple of 16 (the kernels'
// tile). Batches hold at most kMaxBatch transforms.
constexpr std::size_t kL1Bytes = 32 * 1024;
constexpr std::size_t kMaxBatch = 64;

}  // namespace

// ---- 2. FirEngine: set-up -------------------------------------------------------------------

namespace {

void check_finite_taps(const FilterTaps& taps) {
  for (std::size_t i = 0; i < taps.size(); ++i) {
    const std::complex<double> v = taps[i];
    if (!std::isfinite(v.real()) || !std::isfinite(v.imag()))
      throw UsageError("taps: tap " + std::to_string(i) + " is not a finite number");
  }
}

}  // namespace

void check_fir_taps_switch(const FilterTaps& taps, std::size_t capacity, bool complex_output) {
  if (taps.size() < 1) throw UsageError("taps: a filter needs at least one tap");
  if (taps.size() > capacity)
    throw UsageError("taps: " + std::to_string(taps.size()) + " taps exceed the filter's capacity of " +
                     std::to_string(capacity) + " (max_taps)");
  if (taps.is_complex && !complex_output)
    throw UsageError("taps: complex taps on a filter built for real taps and real input "
                     "(build it with complex taps or a shift)");
  check_finite_taps(taps);
}

void check_fir_spec(const FirSpec& spec) {
  if (spec.taps.size() < 1) throw UsageError("taps: a filter needs at least one tap");
  check_finite_taps(spec.taps);
  if (!(spec.sample_rate > 0) || !std::isfinite(spec.sample_rate))
    throw UsageError("sample_rate must be a positive finite number of Hz");
  if (spec.shift_hz && !std::isfinite(*spec.shift_hz))
    throw UsageError("shift must be a finite number of Hz");
  if (spec.decimation < 1)
    throw UsageError("decimate=0 is out of range: the decimation is 1 or more");
  if (spec.decimation > kMaxDecimation)
    throw UsageError("decimate=" + std::to_string(spec.decimation) + " is out of range: 1 .. " +
                     std::to_string(kMaxDecimation));
  if (std::max(spec.max_taps, spec.taps.size()) > kMaxTaps)
    throw UsageError("taps: " + std::to_string(std::max(spec.max_taps, spec.taps.size())) +
                     " taps are more than the " + std::to_string(kMaxTaps) +
                     " a filter can hold");
  if (spec.threads > kMaxThreads)
    throw UsageError("threads=" + std::to_string(spec.threads) +
                     " is out of range: 0 (all cores) .. " + std::to_string(kMaxThreads));
  if (spec.max_taps != 0 && spec.max_taps < spec.taps.size())
    throw UsageError("max_taps=" + std::to_string(spec.max_taps) + " is less than the " +
                     std::to_string(spec.taps.size()) + " taps given");
}

// The filter in one precision: Real = float (FFTW single, the vector sums) or double.
template <typename Real>
struct FirEngine {
  using Buffer = RealBuffer<Real>;
  using SumProducts = std::conditional_t<std::is_same_v<Real, float>, fir::SumProducts, fir::SumProducts64>;
  static constexpr fft::Precision kPrecision =
      std::is_same_v<Real, float> ? fft::Precision::float32 : fft::Precision::float64;
  static SumProducts select_sum_products() {
    if constexpr (std::is_same_v<Real, float>) return fir::selected_sum_products();
    else return fir::selected_sum_products64();
  }

  // Per-thread buffers.
  struct Scratch {
    Buffer time;    // N complex: a segment's window, later the inverse FFT's output
    Buffer freq;    // N complex: the forward FFT's output, or a joined spectrum
    Buffer folded;  // inverse_length complex: the inverse FFT's input
    std::vector<const Real*> terms;  // the spectra a sum_products call reads
  };

  // Where a call's input is: the kept history, then the call's items; zeros before index 0
  // and from valid_end on.
  struct InputView {
    const Real* history = nullptr;
    std::uint64_t history_first = 0;
    const Real* call = nullptr;
    std::uint64_t call_first = 0;
    std::uint64_t call_end = 0;
    std::uint64_t valid_end = 0;
  };

  // K = 1: `whole` per transform. K > 1, per batch of transforms: `forward` per transform,
  // `accumulate` per block of bins (all the batch's segments), `backward` per transform.
  enum class Round { whole, forward, accumulate, backward };

  // What the threads share during a round (written before they are woken).
  struct Job {
    Round round = Round::whole;
    InputView input;
    std::uint64_t first_transform = 0;  // of the batch (K > 1)
    std::uint64_t end_transform = 0;
    std::uint64_t end_item = 0;      // work items of the round: transforms or bin blocks
    std::uint64_t output_limit = 0;  // outputs k >= this are not written
    std::uint64_t out_base = 0;      // output index of out[0]
    Real* out = nullptr;
  };

  // Configuration.
  bool complex_in = false;
  bool complex_taps = false;
  bool complex_out = false;
  bool packed = false;  // real input, real taps, no shift
  bool shifted = false;
  bool align_same = false;
  std::size_t components_in = 1;
  std::size_t components_out = 1;
  std::size_t taps_capacity = 0;  // M: the length the engine filters with
  std::size_t decimation = 1;
  std::size_t offset = 0;  // c
  std::size_t delta = 0;   // δ = c mod D with folding, else 0
  std::uint64_t first_index = 0;
  ExactPhase phase{0.0, 1.0};  // the shift's phase at an item index
  FirGeometry geo;
  std::size_t n = 0, hop = 0, partitions = 0, inverse_length = 0;
  std::size_t segments_per_transform = 1;
  std::size_t transform_items = 0;  // U
  std::size_t spectrum_bins = 0;    // bins of a stored spectrum (N, or N/2 + 1 packed and K > 1)
  std::size_t spectrum_stride = 0;  // values between stored spectra
  std::size_t max_segment_outputs = 0;

  SumProducts sum_products = select_sum_products();
  std::unique_ptr<fft::Backend> backend;
  std::unique_ptr<fft::Plan> forward_plan;
  std::unique_ptr<fft::Plan> inverse_plan;
  std::string backend_description;

  Buffer filter_spectra;  // K spectra
  Buffer rotation;        // packed, K > 1, δ != 0: exp(2πi·k·δ/N), N bins
  Buffer output_phasors;  // shift: exp(−j2π·r·D·f/fs), r < max_segment_outputs
  std::size_t current_taps = 0;
  bool current_taps_complex = false;

  // Stream state.
  Buffer history;  // items [history_first, items_in)
  std::uint64_t history_first = 0;
  std::uint64_t transforms_done = 0;  // transforms [0, transforms_done) computed or skipped
  Buffer delay_line;             // K > 1: ring of segment spectra, slot s mod ring_slots
  std::size_t ring_slots = 0;
  std::size_t batch_transforms = 0;  // K > 1: transforms per batch
  Buffer batch_sums;            // K > 1: Σ_k X_{s−k}·H_k of each segment of a batch
  std::size_t bin_block = 0;         // K > 1: bins per block
  std::size_t bin_blocks = 0;        // K > 1: blocks per spectrum
  bool flushing = false;
  std::uint64_t output_limit = 0;  // while flushing: ceil(items_in / D)
  Buffer staging;             // flush: outputs of one transform
  std::size_t staging_count = 0, staging_read = 0;
  std::atomic<std::uint64_t> items_in{0};
  std::atomic<std::uint64_t> items_out{0};
  std::atomic<std::uint64_t> segments{0};

  // Threads: scratch[0] belongs to the calling thread, scratch[i] to workers[i-1].
  std::vector<Scratch> scratch;
  std::vector<std::thread> workers;
  std::vector<std::unique_ptr<std::binary_semaphore>> wake;
  std::counting_semaphore<> finished{0};
  std::atomic<bool> stopping{false};
  Job job;
  alignas(64) std::atomic<std::uint64_t> next_item{0};
  char next_item_padding[64 - sizeof(std::atomic<std::uint64_t>)] = {};

  explicit FirEngine(const FirSpec& spec) {
    check_fir_spec(spec);

    complex_in = spec.complex_input;
    complex_taps = spec.taps.is_complex;
    shifted = spec.shift_hz.has_value();
    complex_out = complex_in || complex_taps || shifted;
    packed = !complex_out;
    components_in = complex_in ? 2 : 1;
    components_out = complex_out ? 2 : 1;
    taps_capacity = std::max(spec.max_taps, spec.taps.size());
    decimation = spec.decimation;
    align_same = spec.align == FirAlign::same;
    offset = align_same ? (taps_capacity - 1) / 2 : 0;
    first_index = spec.first_index;
    if (shifted) phase = ExactPhase(*spec.shift_hz, spec.sample_rate);

    FirGeometryRequest request;
    request.taps = taps_capacity;
    request.decimation = decimation;
    request.packed_real = packed;
    request.fft_length = spec.fft_length;
    geo = choose_fir_geometry(request);
    n = geo.fft_length;
    hop = geo.hop;
    partitions = geo.partitions;
    inverse_length = geo.inverse_length;
    delta = geo.fold ? offset % decimation : 0;
    segments_per_transform = packed ? 2 : 1;
    transform_items = segments_per_transform * hop;
    spectrum_bins = packed && partitions > 1 ? n / 2 + 1 : n;
    // An odd number of cache lines between stored spectra: the K spectra a tile of bins reads
    // then fall in different L1 sets (a stride of a multiple of 4 KiB would put them all in
    // one set and evict them from each other).
    spectrum_stride = padded_reals<Real>(2 * spectrum_bins);
    if ((spectrum_stride * sizeof(Real) / kAlignment) % 2 == 0)
      spectrum_stride += kAlignment / sizeof(Real);
    max_segment_outputs = (hop + decimation - 1) / decimation;

    backend = fft::make_cpu_backend(kPrecision);
    backend_description = backend->describe();
    fft::PlanSpec forward_spec;
    forward_spec.n = n;
    forward_spec.transform = fft::Transform::c2c_forward;
    forward_plan = backend->plan(forward_spec);
    fft::PlanSpec inverse_spec;
    inverse_spec.n = inverse_length;
    inverse_spec.transform = fft::Transform::c2c_inverse;
    inverse_plan = backend->plan(inverse_spec);

    filter_spectra = aligned_reals<Real>(partitions * spectrum_stride);
    if (packed && partitions > 1 && geo.fold && delta != 0) {
      rotation = aligned_reals<Real>(2 * n);
      for (std::size_t k = 0; k < n; ++k) {
        const double angle = 2.0 * std::numbers::pi *
                             static_cast<double>((static_cast<std::uint64_t>(k) * delta) % n) /
                             static_cast<double>(n);
        rotation[2 * k] = static_cast<Real>(std::cos(angle));
        rotation[2 * k + 1] = static_cast<Real>(std::sin(angle));
      }
    }
    if (shifted) {
      output_phasors = aligned_reals<Real>(2 * max_segment_outputs);
      for (std::size_t r = 0; r < max_segment_outputs; ++r) {
        const std::complex<double> p = phase.phasor(static_cast<std::uint64_t>(r) * decimation, -1);
        output_phasors[2 * r] = static_cast<Real>(p.real());
        output_phasors[2 * r + 1] = static_cast<Real>(p.imag());
      }
    }

    history = aligned_reals<Real>((n + transform_items) * components_in);
    staging = aligned_reals<Real>(segments_per_transform * max_segment_outputs * components_out);

    unsigned thread_count = spec.threads;
    if (thread_count == 0) thread_count = std::max(1u, std::thread::hardware_concurrency());
    if (partitions > 1) {
      // A batch of about K segments reads each partition's spectrum once for K segments.
      batch_transforms = std::clamp<std::size_t>(partitions / segments_per_transform,
                                                 4 * std::size_t{thread_count}, kMaxBatch);
      ring_slots = partitions + segments_per_transform * batch_transforms + 1;
      delay_line = aligned_reals<Real>(ring_slots * spectrum_stride);
      batch_sums = aligned_reals<Real>(segments_per_transform * batch_transforms * spectrum_stride);
      const std::size_t bytes_per_bin =
          2 * sizeof(Real) * (2 * partitions + segments_per_transform * batch_transforms);
      bin_block = std::clamp<std::size_t>(kL1Bytes / bytes_per_bin / 16 * 16, 16, 256);
      bin_blocks = (spectrum_bins + bin_block - 1) / bin_block;
    }
    scratch.resize(thread_count);
    for (Scratch& s : scratch) {
      s.time = aligned_reals<Real>(2 * n);
      s.freq = aligned_reals<Real>(2 * n);
      s.folded = aligned_reals<Real>(2 * inverse_length);
      s.terms.resize(std::max(partitions, n / inverse_length));
    }
    set_taps(spec.taps);

    for (unsigned i = 1; i < thread_count; ++i)
      wake.push_back(std::make_unique<std::binary_semaphore>(0));
    for (unsigned i = 1; i < thread_count; ++i) workers.emplace_back([this, i] { worker_loop(i); });
  }

  ~FirEngine() {
    stopping.store(true);
    for (auto& w : wake) w->release();
    for (auto& t : workers) t.join();
  }

  // The filter's spectra: partition k of the taps placed inside the capacity, rotated by the
  // shift, transformed, scaled by 1/N (1/2N packed with K > 1, whose split doubles the
  // spectra) and, with folding, rotated by δ (except packed with K > 1, which rotates after
  // joining, since the rotation would break the spectra's symmetry).
  void set_taps(const FilterTaps& taps) {
    check_fir_taps_switch(taps, taps_capacity, complex_out);
    const std::size_t m = taps.size();
    const std::size_t first = first_tap_slot(align_same, offset, m);
    const std::size_t p = geo.partition_taps;
    const bool rotate_in_spectrum = geo.fold && delta != 0 && !(packed && partitions > 1);
    const double scale = 1.0 / (static_cast<double>(n) * (packed && partitions > 1 ? 2.0 : 1.0));
    Real* time = scratch[0].time.get();
    Real* freq = scratch[0].freq.get();
    for (std::size_t k = 0; k < partitions; ++k) {
      std::memset(time, 0, 2 * n * sizeof(Real));
      for (std::size_t j = 0; j < p; ++j) {
        const std::size_t index = k * p + j;  // the embedded tap index
        if (index < first || index >= first + m) continue;
        std::complex<double> v = taps[index - first];
        if (shifted) v *= phase.phasor(index, +1);
        time[2 * j] = static_cast<Real>(v.real());
        time[2 * j + 1] = static_cast<Real>(v.imag());
      }
      forward_plan->execute(time, freq, 1);
      Real* h = filter_spectra.get() + k * spectrum_stride;
      for (std::size_t b = 0; b < spectrum_bins; ++b) {
        std::complex<double> v(freq[2 * b], freq[2 * b + 1]);
        v *= scale;
        if (rotate_in_spectrum) {
          const double angle = 2.0 * std::numbers::pi *
                               static_cast<double>((static_cast<std::uint64_t>(b) * delta) % n) /
                               static_cast<double>(n);
          v *= std::complex<double>(std::cos(angle), std::sin(angle));
        }
        h[2 * b] = static_cast<Real>(v.real());
        h[2 * b + 1] = static_cast<Real>(v.imag());
      }
    }
    current_taps = m;
    current_taps_complex = taps.is_complex;
  }

  // ---- 3. FirEngine: one segment ------------------------------------------------------------

  // Items [start, start + count) of the input as complex values into dst (interleaved), or as
  // real values into one lane (0: real parts, 1: imaginary parts) of dst.
  void load(const InputView& in, std::int64_t start, std::size_t count, Real* dst,
            int lane) const {
    const bool to_lane = lane >= 0;
    auto zeros = [&](std::size_t at, std::size_t len) {
      if (to_lane) {
        for (std::size_t i = 0; i < len; ++i) dst[2 * (at + i) + lane] = Real(0);
      } else {
        std::memset(dst + 2 * at, 0, 2 * len * sizeof(Real));
      }
    };
    auto copy = [&](std::size_t at, const Real* src, std::size_t len) {
      if (to_lane) {
        for (std::size_t i = 0; i < len; ++i) dst[2 * (at + i) + lane] = src[i];
      } else if (complex_in) {
        std::memcpy(dst + 2 * at, src, 2 * len * sizeof(Real));
      } else {
        Real* d = dst + 2 * at;
        for (std::size_t i = 0; i < len; ++i) {
          d[2 * i] = src[i];
          d[2 * i + 1] = Real(0);
        }
      }
    };
    std::size_t done = 0;
    if (start < 0) {
      const std::size_t before = static_cast<std::size_t>(
          std::min<std::int64_t>(-start, static_cast<std::int64_t>(count)));
      zeros(0, before);
      done = before;
    }
    while (done < count) {
      const std::uint64_t pos = static_cast<std::uint64_t>(start + static_cast<std::int64_t>(done));
      const std::size_t left = count - done;
      if (pos >= in.valid_end) {
        zeros(done, left);
        return;
      }
      if (pos >= in.call_first && pos < in.call_end) {
        const std::size_t len = static_cast<std::size_t>(
            std::min<std::uint64_t>(left, std::min(in.call_end, in.valid_end) - pos));
        copy(done, in.call + (pos - in.call_first) * components_in, len);
        done += len;
      } else {
        // In the history: [history_first, call_first).
        const std::size_t len =
            static_cast<std::size_t>(std::min<std::uint64_t>(left, in.call_first - pos));
        copy(done, in.history + (pos - in.history_first) * components_in, len);
        done += len;
      }
    }
  }

  std::uint64_t outputs_before(std::uint64_t t) const {
    return t > offset ? (t - offset + decimation - 1) / decimation : 0;
  }

  // The outputs of segment s that are written: k in [first, end).
  struct OutputRange {
    std::uint64_t first = 0, end = 0;
  };
  OutputRange segment_outputs(std::uint64_t s, std::uint64_t limit) const {
    OutputRange r;
    r.first = std::min(outputs_before(s * hop), limit);
    r.end = std::min(outputs_before(s * hop + hop), limit);
    return r;
  }

  // Writes segment s's outputs from the inverse FFT's rows (interleaved complex; packed: the
  // real or imaginary part, `lane`), counter-rotated by the shift.
  void store(std::uint64_t s, const Real* rows, int lane, const Job& j) const {
    const OutputRange r = segment_outputs(s, j.output_limit);
    if (r.end <= r.first) return;
    const std::size_t count = static_cast<std::size_t>(r.end - r.first);
    // Circ index of output k: c + k·D − s·B − B + N; row (index − δ)/D with folding.
    const std::uint64_t index = offset + r.first * decimation + n - (s * hop + hop);
    const std::size_t row =
        static_cast<std::size_t>(geo.fold ? (index - delta) / decimation : index);
    const std::size_t step = geo.fold ? 1 : decimation;
    Real* out = j.out + (r.first - j.out_base) * components_out;
    if (!complex_out) {
      const Real* src = rows + 2 * row + lane;
      for (std::size_t i = 0; i < count; ++i) out[i] = src[2 * i * step];
      return;
    }
    const Real* src = rows + 2 * row;
    if (!shifted) {
      if (step == 1) {
        std::memcpy(out, src, 2 * count * sizeof(Real));
      } else {
        for (std::size_t i = 0; i < count; ++i) {
          out[2 * i] = src[2 * i * step];
          out[2 * i + 1] = src[2 * i * step + 1];
        }
      }
      return;
    }
    const std::uint64_t t = first_index + offset + r.first * decimation;
    const std::complex<double> anchor_d = phase.phasor(t, -1);
    const Real ar = static_cast<Real>(anchor_d.real()), ai = static_cast<Real>(anchor_d.imag());
    const Real* table = output_phasors.get();
    for (std::size_t i = 0; i < count; ++i) {
      const Real tr = table[2 * i], ti = table[2 * i + 1];
      const Real pr = ar * tr - ai * ti, pi = ar * ti + ai * tr;
      const Real yr = src[2 * i * step], yi = src[2 * i * step + 1];
      out[2 * i] = yr * pr - yi * pi;
      out[2 * i + 1] = yr * pi + yi * pr;
    }
  }

  std::int64_t window_start(std::uint64_t s) const {
    return static_cast<std::int64_t>(s * hop + hop) - static_cast<std::int64_t>(n);
  }

  // The window(s) of transform u into s.time.
  void load_transform(std::uint64_t u, const InputView& in, Scratch& sc) const {
    const std::uint64_t s = u * segments_per_transform;
    if (packed) {
      load(in, window_start(s), n, sc.time.get(), 0);
      load(in, window_start(s + 1), n, sc.time.get(), 1);
    } else {
      load(in, window_start(s), n, sc.time.get(), -1);
    }
  }

  // The inverse FFT of `spectrum` (inverse_length bins) and the outputs of transform u.
  void inverse_and_store(std::uint64_t u, const Real* spectrum, Scratch& sc, const Job& j) const {
    inverse_plan->execute(spectrum, sc.time.get(), 1);
    const std::uint64_t s = u * segments_per_transform;
    if (packed) {
      store(s, sc.time.get(), 0, j);
      store(s + 1, sc.time.get(), 1, j);
    } else {
      store(s, sc.time.get(), 0, j);
    }
  }

  bool transform_has_outputs(std::uint64_t u, std::uint64_t limit) const {
    const std::uint64_t s = u * segments_per_transform;
    const OutputRange first = segment_outputs(s, limit);
    const OutputRange last = segment_outputs(s + segments_per_transform - 1, limit);
    return last.end > first.first;
  }

  // K = 1: the whole transform.
  void compute_whole(std::uint64_t u, Scratch& sc, const Job& j) const {
    load_transform(u, j.input, sc);
    forward_plan->execute(sc.time.get(), sc.freq.get(), 1);
    fold_multiply(sc.freq.get(), filter_spectra.get(), sc.folded.get(), sc);
    inverse_and_store(u, sc.folded.get(), sc, j);
  }

  // folded[k] = Σ_q y[k + q·L]·h[k + q·L], L = inverse_length: the product folded onto L bins.
  void fold_multiply(const Real* y, const Real* h, Real* folded, Scratch& sc) const {
    const std::size_t aliases = n / inverse_length;
    for (std::size_t q = 0; q < aliases; ++q) sc.terms[q] = y + 2 * q * inverse_length;
    sum_products(sc.terms.data(), h, 2 * inverse_length, aliases, folded, inverse_length);
  }

  Real* slot(std::uint64_t s) const {
    return delay_line.get() + (s % ring_slots) * spectrum_stride;
  }

  // K > 1, first round: the spectra of transform u's segments into the delay line.
  void compute_forward(std::uint64_t u, Scratch& sc, const Job& j) const {
    load_transform(u, j.input, sc);
    const std::uint64_t s = u * segments_per_transform;
    if (packed) {
      forward_plan->execute(sc.time.get(), sc.freq.get(), 1);
      fir::split_real_pair(sc.freq.get(), slot(s), slot(s + 1), n);
    } else {
      forward_plan->execute(sc.time.get(), slot(s), 1);
    }
  }

  Real* segment_sum(std::uint64_t s) const {
    const std::uint64_t first_segment = job.first_transform * segments_per_transform;
    return batch_sums.get() + (s - first_segment) * spectrum_stride;
  }

  // K > 1, second round: Σ_k X_{s−k}·H_k over one block of bins for every segment of the
  // batch (segments before the first count as zero). Each bin's sum is the same arithmetic
  // whatever the block, so the blocking does not change the bits.
  void compute_sums(std::uint64_t block, Scratch& sc) const {
    const std::size_t first_bin = static_cast<std::size_t>(block) * bin_block;
    const std::size_t bins = std::min(bin_block, spectrum_bins - first_bin);
    const Real* h = filter_spectra.get() + 2 * first_bin;
    for (std::uint64_t u = job.first_transform; u < job.end_transform; ++u) {
      if (!transform_has_outputs(u, job.output_limit)) continue;
      for (std::size_t lane = 0; lane < segments_per_transform; ++lane) {
        const std::uint64_t s = u * segments_per_transform + lane;
        const std::size_t terms =
            static_cast<std::size_t>(std::min<std::uint64_t>(partitions, s + 1));
        // Slots s, s−1, ... of the ring, stepped down without a division per term.
        std::size_t index = static_cast<std::size_t>(s % ring_slots);
        const Real* ring = delay_line.get() + 2 * first_bin;
        for (std::size_t k = 0; k < terms; ++k) {
          sc.terms[k] = ring + index * spectrum_stride;
          index = index == 0 ? ring_slots - 1 : index - 1;
        }
        sum_products(sc.terms.data(), h, spectrum_stride, terms, segment_sum(s) + 2 * first_bin,
                     bins);
      }
    }
  }

  // K > 1, third round: fold (joining a packed pair first), inverse FFT and outputs of
  // transform u.
  void compute_backward(std::uint64_t u, Scratch& sc, const Job& j) const {
    if (!transform_has_outputs(u, j.output_limit)) return;
    const std::uint64_t s = u * segments_per_transform;
    const std::size_t aliases = n / inverse_length;
    const Real* spectrum = segment_sum(s);
    if (packed) {
      fir::join_real_pair(segment_sum(s), segment_sum(s + 1), sc.freq.get(), n);
      spectrum = sc.freq.get();
    }
    if (rotation) {
      fold_multiply(spectrum, rotation.get(), sc.folded.get(), sc);
      spectrum = sc.folded.get();
    } else if (aliases > 1) {
      fir::fold_add(spectrum, sc.folded.get(), inverse_length, aliases);
      spectrum = sc.folded.get();
    }
    inverse_and_store(u, spectrum, sc, j);
  }

  void compute(std::uint64_t item, Scratch& sc) const {
    switch (job.round) {
      case Round::whole:
        if (transform_has_outputs(item, job.output_limit)) compute_whole(item, sc, job);
        return;
      case Round::forward:
        compute_forward(item, sc, job);
        return;
      case Round::accumulate:
        compute_sums(item, sc);
        return;
      case Round::backward:
        compute_backward(item, sc, job);
        return;
    }
  }

  // ---- 4. FirEngine: one call ---------------------------------------------------------------

  void compute_claimed(Scratch& sc) {
    for (;;) {
      const std::uint64_t item = next_item.fetch_add(1, std::memory_order_relaxed);
      if (item >= job.end_item) return;
      compute(item, sc);
    }
  }

  void worker_loop(unsigned index) {
    for (;;) {
      wake[index - 1]->acquire();
      if (stopping.load()) return;
      compute_claimed(scratch[index]);
      finished.release();
    }
  }

  // Runs a round over work items [first, end) (transforms or bin blocks), shared among the
  // threads when it holds at least `points` FFT points of work.
  void run_round(Round round, std::uint64_t first, std::uint64_t end, std::uint64_t points) {
    if (end <= first) return;
    job.round = round;
    job.end_item = end;
    next_item.store(first, std::memory_order_relaxed);
    const bool share = !workers.empty() && end - first >= 2 && points >= kMinParallelPoints;
    if (share) {
      for (auto& w : wake) w->release();
      compute_claimed(scratch[0]);
      for (std::size_t i = 0; i < workers.size(); ++i) finished.acquire();
    } else {
      compute_claimed(scratch[0]);
    }
  }

  // Computes transforms [first, end) for the current job (input, out, limit already set).
  void compute_transforms(std::uint64_t first, std::uint64_t end) {
    if (partitions == 1) {
      job.first_transform = first;
      job.end_transform = end;
      run_round(Round::whole, first, end, (end - first) * n);
      std::uint64_t computed = 0;
      for (std::uint64_t u = first; u < end; ++u)
        computed += transform_has_outputs(u, job.output_limit) ? 1 : 0;
      segments.fetch_add(computed * segments_per_transform, std::memory_order_relaxed);
      return;
    }
    for (std::uint64_t b = first; b < end; b += batch_transforms) {
      const std::uint64_t batch_end = std::min<std::uint64_t>(end, b + batch_transforms);
      job.first_transform = b;
      job.end_transform = batch_end;
      const std::uint64_t points = (batch_end - b) * n;
      run_round(Round::forward, b, batch_end, points);
      run_round(Round::accumulate, 0, bin_blocks, points * partitions / 4);
      run_round(Round::backward, b, batch_end, points);
      segments.fetch_add((batch_end - b) * segments_per_transform, std::memory_order_relaxed);
    }
  }

  std::size_t process(const Real* in, std::size_t count, Real* out) {
    if (flushing) throw std::logic_error("FirFilter::process after flush: reset() first");
    if (count == 0) return 0;
    const std::uint64_t call_first = items_in.load(std::memory_order_relaxed);
    const std::uint64_t call_end = call_first + count;
    const std::uint64_t first = transforms_done;
    const std::uint64_t end = call_end / transform_items;
    const std::uint64_t out_base = items_out.load(std::memory_order_relaxed);
    std::size_t written = 0;
    if (end > first) {
      job.input = {history.get(), history_first, in, call_first, call_end, call_end};
      job.output_limit = UINT64_MAX;
      job.out_base = out_base;
      job.out = out;
      compute_transforms(first, end);
      written = static_cast<std::size_t>(outputs_before(end * transform_items) -
                                         outputs_before(first * transform_items));
      transforms_done = end;
    }
    keep_history(in, call_first, call_end);
    items_in.store(call_end, std::memory_order_relaxed);
    items_out.store(out_base + written, std::memory_order_relaxed);
    return written;
  }

  // Keeps items [window start of the next transform, call_end): all later windows need.
  void keep_history(const Real* in, std::uint64_t call_first, std::uint64_t call_end) {
    const std::int64_t start = window_start(transforms_done * segments_per_transform);
    const std::uint64_t keep_first = start > 0 ? static_cast<std::uint64_t>(start) : 0;
    Real* h = history.get();
    const std::size_t c = components_in;
    if (keep_first >= call_first) {
      std::memcpy(h, in + (keep_first - call_first) * c,
                  static_cast<std::size_t>(call_end - keep_first) * c * sizeof(Real));
    } else {
      const auto kept = static_cast<std::size_t>(call_first - keep_first);
      std::memmove(h, h + (keep_first - history_first) * c, kept * c * sizeof(Real));
      std::memcpy(h + kept * c, in,
                  static_cast<std::size_t>(call_end - call_first) * c * sizeof(Real));
    }
    history_first = keep_first;
  }

  std::size_t flush(Real* out, std::size_t capacity) {
    if (!flushing) {
      flushing = true;
      output_limit = (items_in.load(std::memory_order_relaxed) + decimation - 1) / decimation;
      staging_count = staging_read = 0;
    }
    std::size_t written = 0;
    while (written < capacity) {
      if (staging_read < staging_count) {
        const std::size_t take = std::min(capacity - written, staging_count - staging_read);
        std::memcpy(out + written * components_out, staging.get() + staging_read * components_out,
                    take * components_out * sizeof(Real));
        staging_read += take;
        written += take;
        continue;
      }
      const std::uint64_t done = items_out.load(std::memory_order_relaxed);
      if (done >= output_limit) break;
      // The next transform, on the kept history and zeros after the input, into staging.
      const std::uint64_t u = transforms_done;
      const std::uint64_t in_end = items_in.load(std::memory_order_relaxed);
      job.input = {history.get(), history_first, nullptr, in_end, in_end, in_end};
      job.output_limit = output_limit;
      job.out_base = done;
      job.out = staging.get();
      compute_transforms(u, u + 1);
      const std::uint64_t after = std::min(outputs_before((u + 1) * transform_items), output_limit);
      staging_count = static_cast<std::size_t>(after - std::min(done, after));
      staging_read = 0;
      transforms_done = u + 1;
      items_out.store(after, std::memory_order_relaxed);
    }
    return written;
  }

  void reset() {
    history_first = 0;
    transforms_done = 0;
    flushing = false;
    output_limit = 0;
    staging_count = staging_read = 0;
    items_in.store(0);
    items_out.store(0);
    segments.store(0);
  }

  // A call completes at most floor((count + U − 1)/U) transforms (fewer than U items wait
  // from earlier calls), whose outputs lie in that many times U consecutive full indices.
  std::size_t max_output(std::size_t count) const {
    const std::uint64_t transforms =
        (static_cast<std::uint64_t>(count) + transform_items - 1) / transform_items;
    return static_cast<std::size_t>((transforms * transform_items + decimation - 1) / decimation);
  }
};

struct FirFilter::Impl {
  std::unique_ptr<FirEngine<float>> single;
  std::unique_ptr<FirEngine<double>> wide;

  // f(engine) on the engine of this filter's precision.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    return single ? f(*single) : f(*wide);
  }
  template <typename Real>
  FirEngine<Real>& engine(const char* call) const {
    if constexpr (std::is_same_v<Real, float>) {
      if (!single)
        throw std::logic_error(std::string("FirFilter::") + call + " on floats: the filter is in double precision");
      return *single;
    } else {
      if (!wide)
        throw std::logic_error(std::string("FirFilter::") + call + " on doubles: the filter is in single precision");
      return *wide;
    }
  }
};

// ---- 5. the public class --------------------------------------------------------------------

FirFilter::FirFilter(const FirSpec& spec) : impl_(std::make_unique<Impl>()) {
  if (spec.double_precision) impl_->wide = std::make_unique<FirEngine<double>>(spec);
  else impl_->single = std::make_unique<FirEngine<float>>(spec);
}
FirFilter::~FirFilter() = default;

bool FirFilter::double_precision() const { return impl_->wide != nullptr; }
bool FirFilter::complex_input() const { return impl_->visit([](auto& e) { return e.complex_in; }); }
bool FirFilter::complex_output() const { return impl_->visit([](auto& e) { return e.complex_out; }); }
std::size_t FirFilter::decimation() const { return impl_->visit([](auto& e) { return e.decimation; }); }
const FirGeometry& FirFilter::geometry() const {
  return impl_->visit([](auto& e) -> const FirGeometry& { return e.geo; });
}
unsigned FirFilter::threads() const {
  return impl_->visit([](auto& e) { return static_cast<unsigned>(e.scratch.size()); });
}

std::string FirFilter::describe() const {
  const unsigned t = threads();
  return impl_->visit([&](auto& e) {
    const std::string taps = std::to_string(e.current_taps) + (e.current_taps_complex ? " complex" : " real") + " taps";
    return "cpu fir: " + taps + ", " + e.geo.describe() + ", " + e.backend_description + ", " + std::to_string(t) +
           (t == 1 ? " thread" : " threads");
  });
}

std::size_t FirFilter::max_output(std::size_t n) const {
  return impl_->visit([&](auto& e) { return e.max_output(n); });
}

std::size_t FirFilter::process(const float* in, std::size_t n, float* out) {
  return impl_->engine<float>("process").process(in, n, out);
}
std::size_t FirFilter::process(const double* in, std::size_t n, double* out) {
  return impl_->engine<double>("process").process(in, n, out);
}

std::size_t FirFilter::flush(float* out, std::size_t capacity) {
  return impl_->engine<float>("flush").flush(out, capacity);
}
std::size_t FirFilter::flush(double* out, std::size_t capacity) {
  return impl_->engine<double>("flush").flush(out, capacity);
}

void FirFilter::reset() {
  impl_->visit([](auto& e) { e.reset(); });
}

void FirFilter::set_taps(const FilterTaps& taps) {
  impl_->visit([&](auto& e) { e.set_taps(taps); });
}

FirCounters FirFilter::counters() const {
  return impl_->visit([](auto& e) {
    FirCounters c;
    c.items_in = e.items_in.load(std::memory_order_relaxed);
    c.items_out = e.items_out.load(std::memory_order_relaxed);
    c.segments = e.segments.load(std::memory_order_relaxed);
    return c;
  });
}

}  // namespace prism
