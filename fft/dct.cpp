// The CPU DCT (dct.hpp): FFTW's real-to-real transforms REDFT10 (DCT-II), REDFT01 (DCT-III) and
// REDFT11 (DCT-IV), which are scipy's unnormalised ('backward') types 2, 3 and 4 exactly; the
// other norms scale the output after the transform.
//
// Each plan is made twice, as the FFT backend's (fftw_backend.cpp): on 64-byte-aligned scratch
// rows (the fast plan) and with FFTW_UNALIGNED; execute() picks the fast plan for rows with the
// planned alignment. Plans are made and destroyed under the planner lock of their precision.
#include "fft/dct.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/fftw_traits.hpp"
#include "pipeline/errors.hpp"

namespace prism::fft {
namespace {

fftw_r2r_kind r2r_kind(DctType type) {
  switch (type) {
    case DctType::type2: return FFTW_REDFT10;
    case DctType::type3: return FFTW_REDFT01;
    case DctType::type4: return FFTW_REDFT11;
  }
  throw std::invalid_argument("unknown DCT type");
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

template <typename Real>
std::unique_ptr<Real, AlignedFree> aligned_row(std::size_t n) {
  constexpr std::size_t kAlignment = 64;
  const std::size_t bytes = (n * sizeof(Real) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return std::unique_ptr<Real, AlignedFree>(static_cast<Real*>(p));
}

}  // namespace

DctNorm parse_dct_norm(std::string_view name) {
  for (DctNorm norm : {DctNorm::backward, DctNorm::ortho, DctNorm::forward})
    if (name == dct_norm_name(norm)) return norm;
  throw UsageError("unknown DCT norm '" + std::string(name) +
                   "' (choose backward, ortho or forward, as scipy.fft.dct)");
}

template <typename Real>
struct CpuDct<Real>::Plans {
  typename FftwApi<Real>::Plan aligned = nullptr;
  typename FftwApi<Real>::Plan unaligned = nullptr;
  int in_alignment = 0;
  int out_alignment = 0;
  // Output scale: every element, and the first one (they differ for type 2 ortho).
  Real scale = 1;
  Real first_scale = 1;
  // Type 3 ortho: sqrt(2) - 1, the extra weight of x[0] added to every output before scaling.
  Real first_input_extra = 0;

  ~Plans() {
    std::lock_guard lock(FftwApi<Real>::planner_mutex());
    if (aligned != nullptr) FftwApi<Real>::destroy(aligned);
    if (unaligned != nullptr) FftwApi<Real>::destroy(unaligned);
  }
};

template <typename Real>
CpuDct<Real>::CpuDct(const DctSpec& spec) : spec_(spec), plans_(std::make_unique<Plans>()) {
  if (spec.n < 1) throw std::invalid_argument("DCT length must be at least 1");
  if (spec.batch < 1) throw std::invalid_argument("DCT batch must be at least 1");
  if (spec.n > static_cast<std::size_t>(INT32_MAX / 2))
    throw std::invalid_argument("DCT length " + std::to_string(spec.n) +
                                " is too large for FFTW's interface");
  const double n = static_cast<double>(spec.n);
  switch (spec.norm) {
    case DctNorm::backward: break;
    case DctNorm::forward: plans_->scale = plans_->first_scale = static_cast<Real>(1.0 / (2.0 * n)); break;
    case DctNorm::ortho:
      plans_->scale = plans_->first_scale = static_cast<Real>(std::sqrt(1.0 / (2.0 * n)));
      if (spec.type == DctType::type2) plans_->first_scale = static_cast<Real>(std::sqrt(1.0 / (4.0 * n)));
      // REDFT01 weighs x[0] by 1 and the rest by 2; ortho wants sqrt(2) : 2 before the common
      // factor sqrt(1/(2n)), so x[0]·(sqrt(2) - 1) is added to every output.
      if (spec.type == DctType::type3) plans_->first_input_extra = static_cast<Real>(std::sqrt(2.0) - 1.0);
      break;
  }
  auto in = aligned_row<Real>(spec.n);
  auto out = aligned_row<Real>(spec.n);
  const int length = static_cast<int>(spec.n);
  const fftw_r2r_kind kind = r2r_kind(spec.type);
  const unsigned flags = FFTW_ESTIMATE | FFTW_PRESERVE_INPUT;
  std::lock_guard lock(FftwApi<Real>::planner_mutex());
  plans_->aligned = FftwApi<Real>::r2r(length, in.get(), out.get(), kind, flags);
  plans_->unaligned = FftwApi<Real>::r2r(length, in.get(), out.get(), kind, flags | FFTW_UNALIGNED);
  if (plans_->aligned == nullptr || plans_->unaligned == nullptr)
    throw std::invalid_argument("FFTW could not plan a DCT of length " + std::to_string(spec.n));
  plans_->in_alignment = FftwApi<Real>::alignment_of(in.get());
  plans_->out_alignment = FftwApi<Real>::alignment_of(out.get());
}

template <typename Real>
CpuDct<Real>::~CpuDct() = default;

template <typename Real>
void CpuDct<Real>::execute(const Real* in, Real* out, std::size_t count) const {
  if (count > spec_.batch) count = spec_.batch;
  const std::size_t n = spec_.n;
  const Plans& p = *plans_;
  for (std::size_t row = 0; row < count; ++row) {
    // Out of place with FFTW_PRESERVE_INPUT: FFTW reads the input and never writes it.
    Real* x = const_cast<Real*>(in + row * n);
    Real* y = out + row * n;
    const bool aligned = FftwApi<Real>::alignment_of(x) == p.in_alignment &&
                         FftwApi<Real>::alignment_of(y) == p.out_alignment;
    FftwApi<Real>::execute_r2r(aligned ? p.aligned : p.unaligned, x, y);
    if (spec_.norm == DctNorm::backward) continue;
    const Real extra = p.first_input_extra * x[0];
    y[0] = (y[0] + extra) * p.first_scale;
    for (std::size_t k = 1; k < n; ++k) y[k] = (y[k] + extra) * p.scale;
  }
}

template class CpuDct<float>;
template class CpuDct<double>;

}  // namespace prism::fft
