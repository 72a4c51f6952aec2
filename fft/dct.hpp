// Discrete cosine transforms of types II, III and IV on the CPU, in single and double precision,
// with scipy.fft.dct's definitions and its `norm` ('backward', 'ortho', 'forward'):
//
//   type 2:  y[k] = 2 Σ_j x[j] cos(π k (2j+1) / 2n)
//   type 3:  y[k] = x[0] + 2 Σ_{j≥1} x[j] cos(π j (2k+1) / 2n)      (the inverse of type 2)
//   type 4:  y[k] = 2 Σ_j x[j] cos(π (2j+1)(2k+1) / 4n)             (its own inverse)
//
// norm backward leaves these as they are; forward multiplies every output by 1/(2n); ortho makes
// the transform orthonormal, as scipy with orthogonalize=True: type 2 multiplies y[0] by
// sqrt(1/(4n)) and the rest by sqrt(1/(2n)); type 3 weighs x[0] by 1/sqrt(n) and the rest by
// sqrt(2/n) (halving the 2 above); type 4 multiplies by sqrt(1/(2n)).
//
// Layout: `batch` rows of n values, contiguous, real in and real out, out of place (the output
// rows may not overlap the input rows). Plan once (FFTW's r2r planner, FFTW_ESTIMATE, so the same
// spec gives the same algorithm in every run), execute many times: execute() never allocates and
// may run from several threads at once on disjoint buffers.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

namespace prism::fft {

enum class DctType { type2 = 2, type3 = 3, type4 = 4 };
enum class DctNorm { backward, ortho, forward };

// "backward", "ortho", "forward", as scipy names them.
constexpr std::string_view dct_norm_name(DctNorm norm) {
  switch (norm) {
    case DctNorm::backward: return "backward";
    case DctNorm::ortho: return "ortho";
    case DctNorm::forward: return "forward";
  }
  return "?";
}
// Throws UsageError listing the choices when the name is unknown.
DctNorm parse_dct_norm(std::string_view name);

struct DctSpec {
  std::size_t n = 0;      // transform length, >= 1
  std::size_t batch = 1;  // rows per execute, >= 1
  DctType type = DctType::type2;
  DctNorm norm = DctNorm::backward;
};

// Real is float (FFTW's fftwf) or double (fftw).
template <typename Real>
class CpuDct {
 public:
  // Throws std::invalid_argument for a length or batch out of range.
  explicit CpuDct(const DctSpec& spec);
  ~CpuDct();
  CpuDct(const CpuDct&) = delete;
  CpuDct& operator=(const CpuDct&) = delete;

  const DctSpec& spec() const { return spec_; }
  // Transforms the first `count` rows (count <= spec().batch) of `in` into `out`.
  void execute(const Real* in, Real* out, std::size_t count) const;
  void execute(const Real* in, Real* out) const { execute(in, out, spec_.batch); }

 private:
  struct Plans;
  DctSpec spec_;
  std::unique_ptr<Plans> plans_;
};

extern template class CpuDct<float>;
extern template class CpuDct<double>;

}  // namespace prism::fft
