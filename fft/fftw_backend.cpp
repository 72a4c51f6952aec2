// The CPU backends of the FFT interface (fft.hpp): FFTW in single precision (fftwf) and in double
// precision (fftw), one implementation written for both (fftw_traits.hpp); the 1-D plans, then
// the multi-dimensional ones (FftwNdPlan, FFTW's own rank-k plans).
//
// Each plan holds FFTW plans for ONE transform, and execute() runs them once per row through
// FFTW's new-array interface (fftwf_execute_dft and friends). That is what makes the 1-D plans'
// execute() thread-safe on disjoint buffers and allocation-free, and lets `count` be anything up
// to the batch. (The multi-dimensional c2r shares a work array, so NdPlan runs one at a time.)
//
// Real transforms of even length n = 2m are computed as one complex FFT of length m plus a
// pass that splits (r2c) or joins (c2r) the even and odd halves — the classic "two real
// halves in one complex FFT" — because FFTW's own r2c codelets are far less vectorised than
// its complex ones: FFTW_ESTIMATE's r2c of 256 points takes about 3× as long as its c2c of
// 128. Odd lengths use FFTW's r2c and c2r directly.
//
// Determinism: plans are made with FFTW_ESTIMATE (no timing), so the same spec gives the same
// algorithm in every run, and identical input gives bit-identical output. FFTW's planner
// would also use any wisdom present in the process, so nothing in prism imports wisdom or
// makes FFTW_MEASURE plans (this file and dct.cpp plan with FFTW_ESTIMATE only).
//
// Alignment: FFTW may only apply a plan to arrays with the same SIMD alignment as the arrays
// it was planned on (as fftwf_alignment_of reports it). Every FFTW plan is therefore made
// twice: once on 64-byte-aligned scratch arrays (the fast plan) and once with FFTW_UNALIGNED
// (valid for any element-aligned arrays). execute() picks, row by row, the fast plan when the
// row's pointers have the planned alignment and the unaligned plan otherwise, so any buffer is
// handled correctly. Callers that need rows to be bit-identical to each other should hand in
// rows of equal alignment (both plans are exact to rounding, but not to each other's).
//
// Thread safety of planning: FFTW's planner (and fftwf_destroy_plan) must not run in two
// threads at once, so both are serialised by the planner lock of the precision
// (fftw_planner_locks.hpp: one per precision, shared with the DCT); execution needs no lock.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/fft.hpp"
#include "fft/fftw_traits.hpp"

namespace prism::fft {
namespace {

// "fftw-3.3.10-sse2-avx" -> "3.3.10".
std::string fftw_version_number() {
  std::string text = fftwf_version;
  const std::string prefix = "fftw-";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  if (auto dash = text.find('-'); dash != std::string::npos) text.erase(dash);
  return text;
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
template <typename Real>
using ScratchArray = std::unique_ptr<Real, AlignedFree>;

template <typename Real>
ScratchArray<Real> aligned_reals(std::size_t count) {
  constexpr std::size_t kAlignment = 64;
  std::size_t bytes = (count * sizeof(Real) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return ScratchArray<Real>(static_cast<Real*>(p));
}

// One FFTW plan in its aligned and unaligned forms, with the alignment it was planned for.
template <typename Real>
struct FftwPlanPair {
  typename FftwApi<Real>::Plan aligned = nullptr;
  typename FftwApi<Real>::Plan unaligned = nullptr;
  int in_alignment = 0;
  int out_alignment = 0;

  typename FftwApi<Real>::Plan for_arrays(Real* in, Real* out) const {
    return FftwApi<Real>::alignment_of(in) == in_alignment && FftwApi<Real>::alignment_of(out) == out_alignment
               ? aligned
               : unaligned;
  }
  // Under the precision's planner lock: both plans from make_plan(extra FFTW flags) on the arrays
  // `in` and `out`, with their alignments; false (nothing kept) where FFTW cannot plan it.
  template <class MakePlan>
  bool make_locked(MakePlan&& make_plan, Real* in, Real* out) {
    aligned = make_plan(0u);
    unaligned = make_plan(unsigned{FFTW_UNALIGNED});
    if (aligned == nullptr || unaligned == nullptr) {
      destroy_locked();
      return false;
    }
    in_alignment = FftwApi<Real>::alignment_of(in);
    out_alignment = FftwApi<Real>::alignment_of(out);
    return true;
  }
  // Under the precision's planner lock.
  void destroy_locked() {
    if (aligned != nullptr) FftwApi<Real>::destroy(aligned);
    if (unaligned != nullptr) FftwApi<Real>::destroy(unaligned);
    aligned = unaligned = nullptr;
  }
};

// Splits the length-m complex FFT Z of z[j] = x[2j] + i·x[2j+1] into the spectrum X[0..m] of
// the real x (in place; `z` holds m+1 complex values). With E = (Z[k] + conj Z[m-k])/2 and
// O = (Z[k] - conj Z[m-k])/(2i):  X[k] = E + W^k·O  and  X[m-k] = conj(E - W^k·O),
// W = e^{-2πi/n}; X[0] and X[m] are Re Z[0] ± Im Z[0].
template <typename Real>
void split_half_length_spectrum(Real* z, std::size_t m, const Real* twiddle) {
  const Real z0r = z[0], z0i = z[1];
  z[0] = z0r + z0i;
  z[1] = Real(0);
  z[2 * m] = z0r - z0i;
  z[2 * m + 1] = Real(0);
  // Pairs (k, m-k) with k < m-k; for even m the middle bin pairs with itself: X = conj Z.
  const std::size_t pairs = (m - 1) / 2;  // k = 1 .. pairs has k < m-k
  for (std::size_t k = 1; k <= pairs; ++k) {
    const std::size_t j = m - k;
    const Real ar = z[2 * k], ai = z[2 * k + 1];
    const Real br = z[2 * j], bi = z[2 * j + 1];
    const Real er = Real(0.5) * (ar + br), ei = Real(0.5) * (ai - bi);
    const Real or_ = Real(0.5) * (ai + bi), oi = Real(0.5) * (br - ar);
    const Real wr = twiddle[2 * k], wi = twiddle[2 * k + 1];
    const Real tr = wr * or_ - wi * oi, ti = wr * oi + wi * or_;
    z[2 * k] = er + tr;
    z[2 * k + 1] = ei + ti;
    z[2 * j] = er - tr;
    z[2 * j + 1] = ti - ei;
  }
  if (m % 2 == 0 && m >= 2) z[m + 1] = -z[m + 1];
}

// The inverse of the split, from the half spectrum X[0..m] to Z' = 2·(E + iO), whose inverse
// length-m FFT is n·(x[2j] + i·x[2j+1]) — FFTW's unnormalised c2r. With
// F = X[k] + conj X[m-k] and G = (X[k] - conj X[m-k])·conj W^k:  Z'[k] = F + iG and
// Z'[m-k] = conj F + i·conj G. Only the real parts of X[0] and X[m] count (as in FFTW).
// `x` and `z` may be the same array.
template <typename Real>
void join_half_length_spectrum(const Real* x, Real* z, std::size_t m, const Real* twiddle) {
  const Real x0 = x[0], xm = x[2 * m];
  const std::size_t pairs = (m - 1) / 2;  // k = 1 .. pairs has k < m-k
  for (std::size_t k = 1; k <= pairs; ++k) {
    const std::size_t j = m - k;
    const Real ar = x[2 * k], ai = x[2 * k + 1];
    const Real br = x[2 * j], bi = x[2 * j + 1];
    const Real fr = ar + br, fi = ai - bi;
    const Real dr = ar - br, di = ai + bi;
    const Real wr = twiddle[2 * k], wi = twiddle[2 * k + 1];
    const Real gr = dr * wr + di * wi, gi = di * wr - dr * wi;  // d · conj(w)
    z[2 * k] = fr - gi;
    z[2 * k + 1] = fi + gr;
    z[2 * j] = fr + gi;
    z[2 * j + 1] = gr - fi;
  }
  // For even m the middle bin pairs with itself: Z' = 2·conj X.
  if (m % 2 == 0 && m >= 2) {
    z[m] = Real(2) * x[m];
    z[m + 1] = Real(-2) * x[m + 1];
  }
  z[0] = x0 + xm;
  z[1] = x0 - xm;
}

template <typename Real>
class FftwPlan final : public Plan {
  using Api = FftwApi<Real>;
  using Complex = typename Api::Complex;

 public:
  explicit FftwPlan(const PlanSpec& spec)
      : Plan(spec),
        in_row_reals_(input_row_elements(spec) * (spec.transform == Transform::r2c ? 1 : 2)),
        out_row_reals_(output_row_elements(spec) * (spec.transform == Transform::c2r ? 1 : 2)),
        half_length_(spec.transform != Transform::c2c_forward &&
                     spec.transform != Transform::c2c_inverse && spec.n % 2 == 0) {
    if (half_length_) {
      const std::size_t m = spec.n / 2;
      twiddle_.resize(2 * m);
      for (std::size_t k = 0; k < m; ++k) {
        const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) /
                             static_cast<double>(spec.n);
        twiddle_[2 * k] = static_cast<Real>(std::cos(angle));
        twiddle_[2 * k + 1] = static_cast<Real>(std::sin(angle));
      }
    }
    // Scratch large enough for one row in each direction (and for both when in place). With
    // FFTW_ESTIMATE the planner does not write to these arrays.
    std::size_t in_floats = in_row_reals_;
    std::size_t out_floats = out_row_reals_;
    if (spec.in_place) in_floats = out_floats = std::max(in_floats, out_floats);
    ScratchArray<Real> in = aligned_reals<Real>(in_floats);
    ScratchArray<Real> out = spec.in_place ? nullptr : aligned_reals<Real>(out_floats);
    Real* in_ptr = in.get();
    Real* out_ptr = spec.in_place ? in.get() : out.get();
    // The half-length c2r runs its complex FFT in place on the output.
    if (half_length_ && spec.transform == Transform::c2r) in_ptr = out_ptr;

    std::lock_guard<std::mutex> lock(Api::planner_mutex());
    if (!plans_.make_locked([&](unsigned flags) { return make_fftw_plan(in_ptr, out_ptr, flags); }, in_ptr, out_ptr))
      throw std::invalid_argument("FFTW could not plan a transform of length " + std::to_string(spec.n));
  }

  ~FftwPlan() override {
    std::lock_guard<std::mutex> lock(Api::planner_mutex());
    plans_.destroy_locked();
  }

  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;

  void execute(const void* in, void* out, std::size_t count, Stream) override {
    const PlanSpec& s = spec();
    if (count > s.batch) count = s.batch;
    // An in-place FFTW plan must run in place and an out-of-place one out of place.
    if (s.in_place != (in == static_cast<const void*>(out)))
      throw std::invalid_argument(s.in_place ? "in-place FFT plan executed out of place"
                                             : "out-of-place FFT plan executed in place");
    // Out of place, nothing below writes to the input: FFTW's out-of-place c2c and r2c leave
    // it alone, FFTW's c2r is planned with FFTW_PRESERVE_INPUT, and the half-length c2r
    // reads it once into the output. So casting away const is safe.
    auto* in_reals = const_cast<Real*>(static_cast<const Real*>(in));
    auto* out_reals = static_cast<Real*>(out);
    for (std::size_t row = 0; row < count; ++row)
      execute_row(in_reals + row * in_row_reals_, out_reals + row * out_row_reals_);
  }

 private:
  void execute_row(Real* in, Real* out) const {
    auto* cin = reinterpret_cast<Complex*>(in);
    auto* cout = reinterpret_cast<Complex*>(out);
    const std::size_t m = spec().n / 2;
    switch (spec().transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse: Api::execute_dft(plans_.for_arrays(in, out), cin, cout); return;
      case Transform::r2c:
        if (half_length_) {
          Api::execute_dft(plans_.for_arrays(in, out), cin, cout);
          split_half_length_spectrum(out, m, twiddle_.data());
        } else {
          Api::execute_dft_r2c(plans_.for_arrays(in, out), in, cout);
        }
        return;
      case Transform::c2r:
        if (half_length_) {
          join_half_length_spectrum(in, out, m, twiddle_.data());
          Api::execute_dft(plans_.for_arrays(out, out), cout, cout);
        } else {
          Api::execute_dft_c2r(plans_.for_arrays(in, out), cin, out);
        }
        return;
    }
  }

  typename Api::Plan make_fftw_plan(Real* in, Real* out, unsigned extra_flags) const {
    const PlanSpec& s = spec();
    const unsigned flags = FFTW_ESTIMATE | extra_flags;
    auto* cin = reinterpret_cast<Complex*>(in);
    auto* cout = reinterpret_cast<Complex*>(out);
    if (half_length_) {
      const int m = static_cast<int>(s.n / 2);
      const int sign = s.transform == Transform::r2c ? FFTW_FORWARD : FFTW_BACKWARD;
      return Api::dft(m, cin, cout, sign, flags);
    }
    const int n = static_cast<int>(s.n);
    switch (s.transform) {
      case Transform::c2c_forward: return Api::dft(n, cin, cout, FFTW_FORWARD, flags);
      case Transform::c2c_inverse: return Api::dft(n, cin, cout, FFTW_BACKWARD, flags);
      case Transform::r2c: return Api::dft_r2c(n, in, cout, flags);
      case Transform::c2r:
        // Out of place, keep the caller's (const) input intact; in place it is the output.
        return Api::dft_c2r(n, cin, out, flags | (s.in_place ? 0u : unsigned{FFTW_PRESERVE_INPUT}));
    }
    return nullptr;
  }

  std::size_t in_row_reals_;
  std::size_t out_row_reals_;
  bool half_length_;             // an even-length real transform, through a complex FFT of n/2
  std::vector<Real> twiddle_;    // half_length_: e^{-2πik/n}, k < n/2, interleaved
  FftwPlanPair<Real> plans_;
};

// A multi-dimensional transform, one array per FFTW execute (new-array interface, so `count`
// can be anything up to the batch), each plan made aligned and unaligned as the 1-D plans. FFTW
// cannot keep the input of a multi-dimensional c2r (FFTW_PRESERVE_INPUT is refused there), so
// that case copies each array into a work array of the plan and transforms the copy.
template <typename Real>
class FftwNdPlan final : public NdPlan {
  using Api = FftwApi<Real>;
  using Complex = typename Api::Complex;

 public:
  explicit FftwNdPlan(const NdPlanSpec& spec)
      : NdPlan(spec),
        in_reals_(nd_input_elements(spec) * (spec.transform == Transform::r2c ? 1 : 2)),
        out_reals_(nd_output_elements(spec) * (spec.transform == Transform::c2r ? 1 : 2)) {
    for (std::size_t length : spec.shape) lengths_.push_back(static_cast<int>(length));
    ScratchArray<Real> in = aligned_reals<Real>(in_reals_);
    ScratchArray<Real> out = aligned_reals<Real>(out_reals_);
    Real* in_ptr = in.get();
    if (spec.transform == Transform::c2r) {
      work_ = aligned_reals<Real>(in_reals_);
      in_ptr = work_.get();
    }
    std::lock_guard<std::mutex> lock(Api::planner_mutex());
    if (!plans_.make_locked([&](unsigned flags) { return make_fftw_plan(in_ptr, out.get(), flags); }, in_ptr,
                            out.get()))
      throw std::invalid_argument("FFTW could not plan a transform of shape " + shape_text(spec.shape));
  }

  ~FftwNdPlan() override {
    std::lock_guard<std::mutex> lock(Api::planner_mutex());
    plans_.destroy_locked();
  }

  FftwNdPlan(const FftwNdPlan&) = delete;
  FftwNdPlan& operator=(const FftwNdPlan&) = delete;

  void execute(const void* in, void* out, std::size_t count, Stream) override {
    if (count > spec().batch) count = spec().batch;
    if (in == static_cast<const void*>(out))
      throw std::invalid_argument("a multi-dimensional FFT plan runs out of place only");
    // Out of place, FFTW's c2c and r2c leave the input alone, and c2r reads a copy.
    auto* in_reals = const_cast<Real*>(static_cast<const Real*>(in));
    auto* out_reals = static_cast<Real*>(out);
    for (std::size_t array = 0; array < count; ++array) {
      Real* source = in_reals + array * in_reals_;
      Real* target = out_reals + array * out_reals_;
      switch (spec().transform) {
        case Transform::c2c_forward:
        case Transform::c2c_inverse:
          Api::execute_dft(plans_.for_arrays(source, target), reinterpret_cast<Complex*>(source),
                           reinterpret_cast<Complex*>(target));
          break;
        case Transform::r2c:
          Api::execute_dft_r2c(plans_.for_arrays(source, target), source, reinterpret_cast<Complex*>(target));
          break;
        case Transform::c2r:
          std::copy(source, source + in_reals_, work_.get());
          Api::execute_dft_c2r(plans_.for_arrays(work_.get(), target), reinterpret_cast<Complex*>(work_.get()),
                               target);
          break;
      }
    }
  }

 private:
  typename Api::Plan make_fftw_plan(Real* in, Real* out, unsigned extra_flags) const {
    const unsigned flags = FFTW_ESTIMATE | extra_flags;
    const int rank = static_cast<int>(lengths_.size());
    auto* cin = reinterpret_cast<Complex*>(in);
    auto* cout = reinterpret_cast<Complex*>(out);
    switch (spec().transform) {
      case Transform::c2c_forward: return Api::dft_nd(rank, lengths_.data(), cin, cout, FFTW_FORWARD, flags);
      case Transform::c2c_inverse: return Api::dft_nd(rank, lengths_.data(), cin, cout, FFTW_BACKWARD, flags);
      case Transform::r2c: return Api::dft_r2c_nd(rank, lengths_.data(), in, cout, flags);
      case Transform::c2r: return Api::dft_c2r_nd(rank, lengths_.data(), cin, out, flags | FFTW_DESTROY_INPUT);
    }
    return nullptr;
  }

  std::size_t in_reals_;   // reals of one input array
  std::size_t out_reals_;  // reals of one output array
  std::vector<int> lengths_;
  ScratchArray<Real> work_;  // c2r: the copy of one input array that FFTW may overwrite
  FftwPlanPair<Real> plans_;
};

class FftwBackend final : public Backend {
 public:
  explicit FftwBackend(Precision precision) : precision_(precision) {}
  BackendKind kind() const override { return BackendKind::cpu; }
  Precision precision() const override { return precision_; }
  bool device_memory() const override { return false; }

  std::unique_ptr<Plan> plan(const PlanSpec& spec) override {
    if (spec.n < 1) throw std::invalid_argument("FFT length must be at least 1");
    if (spec.batch < 1) throw std::invalid_argument("FFT batch must be at least 1");
    // FFTW's basic interface takes the length as an int.
    if (spec.n > static_cast<std::size_t>(INT32_MAX / 2))
      throw std::invalid_argument("FFT length " + std::to_string(spec.n) +
                                  " is too large for FFTW's interface");
    if (precision_ == Precision::float64) return std::make_unique<FftwPlan<double>>(spec);
    return std::make_unique<FftwPlan<float>>(spec);
  }

  std::unique_ptr<NdPlan> plan_nd(const NdPlanSpec& spec) override {
    // FFTW takes each length as an int and indexes an array with int strides.
    check_nd_spec(spec, static_cast<std::size_t>(INT32_MAX / 2));
    if (precision_ == Precision::float64) return std::make_unique<FftwNdPlan<double>>(spec);
    return std::make_unique<FftwNdPlan<float>>(spec);
  }

  std::string describe() const override {
    return "FFTW " + fftw_version_number() +
           (precision_ == Precision::float64 ? " (double precision)" : " (single precision)");
  }

 private:
  Precision precision_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Precision precision) { return std::make_unique<FftwBackend>(precision); }

}  // namespace prism::fft
