// The spectral kernels of FirFilter (fir_filter.cpp), on interleaved complex floats or doubles:
// the sums of products of spectra (the partitions' products and the folded decimation), the
// fold of a spectrum onto fewer bins, and the split / join of two real signals' spectra packed
// in one complex FFT.
//
// sum_products on floats has vector versions for AVX-512 and AVX2+FMA and a portable one, picked
// once per process from the CPU's features (selected_sum_products); the double sums and the
// other kernels are compiled for the same three levels and picked by the loader. So a given
// machine always runs the same code and gets the same bits. sum_products_variants() lists the
// versions this CPU can run, for the tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace prism::fir {

// out[b] = Σ_{k < terms} x[k][b]·h[k·h_stride + b] (complex), b < bins: the products of a
// segment with the filter's partitions (or of a spectrum's aliases with the filter's, when
// folding). The vector versions keep a tile of 16 bins in registers over all the terms (two
// sums, Σ x·Re h and Σ swap(x)·Im h, joined once), so each term costs loads of x and h only;
// a bin's result does not depend on where its tile starts, as long as tiles start at
// multiples of 16 bins from `out`'s bin 0 (the callers' blocks do).
using SumProducts = void (*)(const float* const* x, const float* h, std::size_t h_stride,
                             std::size_t terms, float* out, std::size_t bins);

// The version this process uses (the first of sum_products_variants()).
SumProducts selected_sum_products();

struct SumProductsVariant {
  std::string name;  // "avx512", "avx2", "portable"
  SumProducts function;
};
std::vector<SumProductsVariant> sum_products_variants();

// The same sums in double precision (the portable version, vectorised by the compiler).
using SumProducts64 = void (*)(const double* const* x, const double* h, std::size_t h_stride,
                               std::size_t terms, double* out, std::size_t bins);
SumProducts64 selected_sum_products64();

// z[k] = Σ_q y[k + q·len], k < len, q < aliases: a spectrum folded onto len bins.
void fold_add(const float* y, float* z, std::size_t len, std::size_t aliases);
void fold_add(const double* y, double* z, std::size_t len, std::size_t aliases);

// Two real signals a, b from the spectrum Z of a + jb (n bins, n even): the first n/2 + 1
// bins of 2A = Z[k] + conj Z[n−k] and 2B = −j(Z[k] − conj Z[n−k]).
void split_real_pair(const float* z, float* a, float* b, std::size_t n);
void split_real_pair(const double* z, double* a, double* b, std::size_t n);

// The full spectrum W = A + jB (n bins) of two real signals from the first n/2 + 1 bins of
// their (Hermitian) spectra A and B.
void join_real_pair(const float* a, const float* b, float* w, std::size_t n);
void join_real_pair(const double* a, const double* b, double* w, std::size_t n);

}  // namespace prism::fir
