// FirFilter's spectral kernels (fir_kernels.hpp).
#include "pipeline/fir_kernels.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace prism::fir {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PRISM_FIR_KERNEL \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define PRISM_FIR_INTRINSICS 1
#else
#define PRISM_FIR_KERNEL
#define PRISM_FIR_INTRINSICS 0
#endif

void sum_products_tail(const float* const* x, const float* h, std::size_t h_stride,
                       std::size_t terms, float* out, std::size_t first, std::size_t bins) {
  for (std::size_t b = first; b < bins; ++b) {
    float re = 0.0f, im = 0.0f;
    for (std::size_t k = 0; k < terms; ++k) {
      const float xr = x[k][2 * b], xi = x[k][2 * b + 1];
      const float hr = h[k * h_stride + 2 * b], hi = h[k * h_stride + 2 * b + 1];
      re += xr * hr - xi * hi;
      im += xr * hi + xi * hr;
    }
    out[2 * b] = re;
    out[2 * b + 1] = im;
  }
}

#if PRISM_FIR_INTRINSICS
// GCC 12's AVX-512 headers start some shuffles from _mm512_undefined_ps(), which its
// -Wmaybe-uninitialized reports as a use of an uninitialised value.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) void sum_products_avx512(const float* const* x, const float* h,
                                                            std::size_t h_stride, std::size_t terms,
                                                            float* out, std::size_t bins) {
  const __m512 ones = _mm512_set1_ps(1.0f);
  std::size_t b = 0;
  for (; b + 16 <= bins; b += 16) {
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (std::size_t k = 0; k < terms; ++k) {
      const float* xk = x[k] + 2 * b;
      const float* hk = h + k * h_stride + 2 * b;
      const __m512 x0 = _mm512_loadu_ps(xk), x1 = _mm512_loadu_ps(xk + 16);
      const __m512 h0 = _mm512_loadu_ps(hk), h1 = _mm512_loadu_ps(hk + 16);
      a0 = _mm512_fmadd_ps(x0, _mm512_moveldup_ps(h0), a0);
      a1 = _mm512_fmadd_ps(x1, _mm512_moveldup_ps(h1), a1);
      s0 = _mm512_fmadd_ps(_mm512_permute_ps(x0, 0xB1), _mm512_movehdup_ps(h0), s0);
      s1 = _mm512_fmadd_ps(_mm512_permute_ps(x1, 0xB1), _mm512_movehdup_ps(h1), s1);
    }
    // (re, im) = a ∓ s: even lanes subtract, odd lanes add.
    _mm512_storeu_ps(out + 2 * b, _mm512_fmaddsub_ps(ones, a0, s0));
    _mm512_storeu_ps(out + 2 * b + 16, _mm512_fmaddsub_ps(ones, a1, s1));
  }
  sum_products_tail(x, h, h_stride, terms, out, b, bins);
}
#pragma GCC diagnostic pop

__attribute__((target("avx2,fma"))) void sum_products_avx2(const float* const* x, const float* h,
                                                           std::size_t h_stride, std::size_t terms,
                                                           float* out, std::size_t bins) {
  const __m256 ones = _mm256_set1_ps(1.0f);
  std::size_t b = 0;
  for (; b + 16 <= bins; b += 16) {
    __m256 a[4], sw[4];
    for (int v = 0; v < 4; ++v) a[v] = sw[v] = _mm256_setzero_ps();
    for (std::size_t k = 0; k < terms; ++k) {
      const float* xk = x[k] + 2 * b;
      const float* hk = h + k * h_stride + 2 * b;
      for (int v = 0; v < 4; ++v) {
        const __m256 xv = _mm256_loadu_ps(xk + 8 * v), hv = _mm256_loadu_ps(hk + 8 * v);
        a[v] = _mm256_fmadd_ps(xv, _mm256_moveldup_ps(hv), a[v]);
        sw[v] = _mm256_fmadd_ps(_mm256_permute_ps(xv, 0xB1), _mm256_movehdup_ps(hv), sw[v]);
      }
    }
    for (int v = 0; v < 4; ++v)
      _mm256_storeu_ps(out + 2 * b + 8 * v, _mm256_fmaddsub_ps(ones, a[v], sw[v]));
  }
  sum_products_tail(x, h, h_stride, terms, out, b, bins);
}
#endif

// The portable version: the first term's product, then the others added (auto-vectorised).
template <typename Real>
PRISM_FIR_KERNEL void multiply_into(const Real* __restrict x, const Real* __restrict h,
                                    Real* __restrict z, std::size_t n, bool add) {
  for (std::size_t i = 0; i < n; ++i) {
    const Real xr = x[2 * i], xi = x[2 * i + 1], hr = h[2 * i], hi = h[2 * i + 1];
    const Real re = xr * hr - xi * hi, im = xr * hi + xi * hr;
    z[2 * i] = add ? z[2 * i] + re : re;
    z[2 * i + 1] = add ? z[2 * i + 1] + im : im;
  }
}

template <typename Real>
void sum_products_portable(const Real* const* x, const Real* h, std::size_t h_stride,
                           std::size_t terms, Real* out, std::size_t bins) {
  for (std::size_t k = 0; k < terms; ++k) multiply_into(x[k], h + k * h_stride, out, bins, k > 0);
}

template <typename Real>
PRISM_FIR_KERNEL void fold_add_into(const Real* __restrict y, Real* __restrict z, std::size_t len,
                                    std::size_t aliases) {
  std::memcpy(z, y, 2 * len * sizeof(Real));
  for (std::size_t q = 1; q < aliases; ++q) {
    const Real* yq = y + 2 * q * len;
    for (std::size_t i = 0; i < 2 * len; ++i) z[i] += yq[i];
  }
}

template <typename Real>
PRISM_FIR_KERNEL void split_pair(const Real* __restrict z, Real* __restrict a, Real* __restrict b,
                                 std::size_t n) {
  const std::size_t half = n / 2;
  for (std::size_t k = 0; k <= half; ++k) {
    const std::size_t m = k == 0 ? 0 : n - k;
    const Real zr = z[2 * k], zi = z[2 * k + 1], mr = z[2 * m], mi = -z[2 * m + 1];
    a[2 * k] = zr + mr;
    a[2 * k + 1] = zi + mi;
    b[2 * k] = zi - mi;
    b[2 * k + 1] = mr - zr;
  }
}

template <typename Real>
PRISM_FIR_KERNEL void join_pair(const Real* __restrict a, const Real* __restrict b,
                                Real* __restrict w, std::size_t n) {
  const std::size_t half = n / 2;
  for (std::size_t k = 0; k <= half; ++k) {
    w[2 * k] = a[2 * k] - b[2 * k + 1];
    w[2 * k + 1] = a[2 * k + 1] + b[2 * k];
  }
  for (std::size_t k = half + 1; k < n; ++k) {
    const std::size_t m = n - k;
    w[2 * k] = a[2 * m] + b[2 * m + 1];
    w[2 * k + 1] = b[2 * m] - a[2 * m + 1];
  }
}

}  // namespace

SumProducts selected_sum_products() {
  static const SumProducts selected = sum_products_variants().front().function;
  return selected;
}

std::vector<SumProductsVariant> sum_products_variants() {
  std::vector<SumProductsVariant> v;
#if PRISM_FIR_INTRINSICS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) v.push_back({"avx512", &sum_products_avx512});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    v.push_back({"avx2", &sum_products_avx2});
#endif
  v.push_back({"portable", &sum_products_portable<float>});
  return v;
}

SumProducts64 selected_sum_products64() { return &sum_products_portable<double>; }

void fold_add(const float* y, float* z, std::size_t len, std::size_t aliases) {
  fold_add_into(y, z, len, aliases);
}
void fold_add(const double* y, double* z, std::size_t len, std::size_t aliases) {
  fold_add_into(y, z, len, aliases);
}

void split_real_pair(const float* z, float* a, float* b, std::size_t n) { split_pair(z, a, b, n); }
void split_real_pair(const double* z, double* a, double* b, std::size_t n) { split_pair(z, a, b, n); }

void join_real_pair(const float* a, const float* b, float* w, std::size_t n) { join_pair(a, b, w, n); }
void join_real_pair(const double* a, const double* b, double* w, std::size_t n) { join_pair(a, b, w, n); }

}  // namespace prism::fir
