// The direct DFT of short rows in double precision: every output a sum over the whole row, with
// the unit roots, the products and the sums in double and one rounding to float at the store.
// Short lengths are where an FFT's few float roundings weigh most against cuFFT's hard-coded
// kernels, and where a length with a prime factor above 13 would otherwise take Bluestein (three
// FFTs of twice the length and two chirp multiplies in float) or, for 17 to 31, a Stockham stage
// of that radix in the run-time stage loop. Like fft_pass.hpp, everything is
// __host__ __device__: the CUDA kernel (cuda_backend.cu) and the host executor run these same
// functions.
//
// A row of complex length h is computed as output pairs (k, h - k), k = 0 .. h/2: with the input
// folded as a_j = x_j + x_(h-j) and b_j = x_j - x_(h-j), X_k = A - iB and X_(h-k) = A + iB where
// A = x_0 + (-1)^k x_(h/2) + sum a_j cos(2 pi jk / h) and B = sum b_j sin(2 pi jk / h) (forward;
// the inverse swaps the two). Real rows: r2c and c2r of even n through the half length h = n/2
// (z_j = x_2j + i x_2j+1), the pre- and post-processing in double too; of odd n the real row
// folded into real a_j, b_j (r2c) or the Hermitian spectrum into a_j = 2 Re X_j, b_j = 2i Im X_j
// (c2r, whose outputs are the real parts).
#pragma once

#include <cmath>

#include "fft/cuda/fft_complex.hpp"
#include "fft/cuda/fft_pass.hpp"

namespace prism::fft::gpu {

// The longest complex length the direct kernel computes: c2c up to 64, r2c / c2r of even n up
// to 128 (half length 64), of odd n up to 63. Its cost grows with the length (h/2 products per
// output), so that beyond this an FFT is faster.
inline constexpr int kMaxDirectLength = 64;

PRISM_HD Cd cd_of(Cf a) { return Cd{static_cast<double>(a.re), static_cast<double>(a.im)}; }
PRISM_HD Cf cf_of(Cd a) { return Cf{static_cast<float>(a.re), static_cast<float>(a.im)}; }

struct DirectDftDesc {
  RowsKind kind = RowsKind::forward;
  int n = 1;          // transform length
  int h = 1;          // complex length computed: n, or n/2 for real rows of even n
  int root_step = 1;  // index step of the roots table per unit of jk: 2 where it has order n = 2h
  long long in_row_dist = 0;   // floats between input rows
  long long out_row_dist = 0;  // floats between output rows
  int rows_per_block = 1;
  // roots_count = h * root_step entries (cos, sin) of 2 pi t / roots_count, each as two Cf, the
  // float nearest and the rest (hi, lo), so that hi + lo carries the root to 2^-48.
  const Cf* roots = nullptr;
};

// The complex length the direct kernel computes for a transform of length n, 0 where it takes
// none (longer than kMaxDirectLength).
PRISM_HD constexpr int direct_dft_length(long long n, bool real) {
  const long long h = real && n % 2 == 0 ? n / 2 : n;
  return h >= 1 && h <= kMaxDirectLength ? static_cast<int>(h) : 0;
}

PRISM_HD constexpr bool direct_real(RowsKind kind) {
  return kind == RowsKind::real_forward || kind == RowsKind::real_inverse;
}
// Whether the real rows go through the half length (even n).
PRISM_HD constexpr bool direct_half_length(const DirectDftDesc& d) { return direct_real(d.kind) && d.h != d.n; }

PRISM_HD constexpr int direct_roots_count(const DirectDftDesc& d) { return d.h * d.root_step; }
// Output pairs of one row, k = 0 .. h/2 (each computed by one thread).
PRISM_HD constexpr int direct_pairs(int h) { return h / 2 + 1; }
// Folded values a_j, b_j for j = 1 .. (h-1)/2.
PRISM_HD constexpr int direct_folds(int h) { return (h - 1) / 2; }

// Doubles-complex of one row's folded input: x_0, x_(h/2) (unused for odd h), then a_j, b_j.
PRISM_HD constexpr int direct_staged_values(int h) { return 2 + 2 * direct_folds(h); }
// Doubles-complex between the rows' folded inputs in the kernel's shared memory: one more where
// the rows have folded values, so that the rows a warp reads at once fall in different banks.
// (At the even stride the rows of a warp met in one bank and the shared-memory pipe, not DRAM,
// bounded the kernel: L1 99 %, DRAM 43 % at c2c 4, Nsight Compute, bench/RESULTS.md
// "Direct DFT: the kernels".)
PRISM_HD constexpr int direct_staged_stride(int h) { return direct_staged_values(h) + (direct_folds(h) > 0 ? 1 : 0); }

// A block's threads, and the output pairs it computes (rows_per_block rows of direct_pairs(h)):
// several per thread, so that each block moves enough data to keep the memory busy. (Half as
// many, with the values in two planes, made c2c 4 and 10 11 % and 29 % slower, bench/RESULTS.md
// "Direct DFT: the kernels".)
inline constexpr int kDirectBlockThreads = 256;
inline constexpr int kDirectPairsPerBlock = 1024;
PRISM_HD constexpr int direct_rows_per_block(int h) {
  return kDirectPairsPerBlock / direct_pairs(h) > 1 ? kDirectPairsPerBlock / direct_pairs(h) : 1;
}

// Rows of complex length kMinDirectThreadLength to kMaxDirectThreadLength take the kernel of a
// row per thread, compiled per length (direct_rows_kernel, cuda_backend.cu): a block of
// kDirectRowThreads copies its rows into shared memory with coalesced loads, each thread folds,
// computes and stores its own row there with the functions below (h a constant, so that the
// loops unroll and the folded values stay in registers), and the block copies the outputs out.
// Other rows take the kernel of output pairs (direct_dft_kernel), several threads to a row. On
// the H200 (bench/RESULTS.md "Direct DFT: the kernels") the row per thread took up to 36 % less
// time at h 4 to 16 (c2c 16 0.643 -> 0.412 ms, r2c 24 0.623 -> 0.399; c2c 7 the same) and more
// below, where its blocks move too little (h = 1, r2c 2: 0.288 -> 0.577 ms; h = 2, c2r 4 +54 %; h =
// 3, c2r 3 +17 %).
inline constexpr int kMinDirectThreadLength = 4;
inline constexpr int kMaxDirectThreadLength = 16;
inline constexpr int kDirectRowThreads = 128;
PRISM_HD constexpr bool direct_thread_rows(int h) {
  return h >= kMinDirectThreadLength && h <= kMaxDirectThreadLength;
}

// Floats of one row of a real transform's real values (x_0 .. x_(n-1)) and of its half spectrum
// (X_0 .. X_(n/2)), and of one row that the direct DFT reads (input) and writes (output).
PRISM_HD constexpr int direct_real_floats(const DirectDftDesc& d) { return direct_half_length(d) ? 2 * d.h : d.h; }
PRISM_HD constexpr int direct_spectrum_floats(const DirectDftDesc& d) {
  return direct_half_length(d) ? 2 * d.h + 2 : d.h + 1;
}
PRISM_HD constexpr int direct_in_floats(const DirectDftDesc& d) {
  if (!direct_real(d.kind)) return 2 * d.h;
  return d.kind == RowsKind::real_forward ? direct_real_floats(d) : direct_spectrum_floats(d);
}
PRISM_HD constexpr int direct_out_floats(const DirectDftDesc& d) {
  if (!direct_real(d.kind)) return 2 * d.h;
  return d.kind == RowsKind::real_forward ? direct_spectrum_floats(d) : direct_real_floats(d);
}
// Floats between the rows of the row-per-thread kernel in shared memory: room for either row,
// even (8-byte complex accesses) and 2 mod 4, so that the 8-byte accesses of a half warp's
// threads, each to its own row, fall in different banks.
PRISM_HD constexpr int direct_thread_row_stride(const DirectDftDesc& d) {
  const int most = direct_in_floats(d) > direct_out_floats(d) ? direct_in_floats(d) : direct_out_floats(d);
  const int even = most + most % 2;
  return even % 4 == 0 ? even + 2 : even;
}

// The kernel's shared memory: the roots as doubles, and the rows' folded inputs (kernel of output
// pairs) or the rows themselves (row per thread).
PRISM_HD constexpr long long direct_shared_bytes(const DirectDftDesc& d) {
  const long long roots = static_cast<long long>(sizeof(Cd)) * direct_roots_count(d);
  if (direct_thread_rows(d.h)) {
    return roots + static_cast<long long>(sizeof(float)) * d.rows_per_block * direct_thread_row_stride(d);
  }
  return roots + static_cast<long long>(sizeof(Cd)) * d.rows_per_block * direct_staged_stride(d.h);
}

// c / d for c < 2^16 and 1 <= d < 2^16 as a multiply-high (the row-per-thread kernel's copy
// loops, where d is a row's length): with m = ceil(2^32 / d), c * m / 2^32 exceeds c / d by less
// than c / 2^32 < 2^-16 <= 1/d, too little to reach the next integer.
struct SmallDivisor {
  unsigned long long magic;
  PRISM_HD explicit SmallDivisor(unsigned d) : magic(((1ULL << 32) + d - 1) / d) {}
  PRISM_HD unsigned quotient(unsigned c) const { return static_cast<unsigned>((c * magic) >> 32); }
};

PRISM_HD Cd direct_root(const Cf* roots, int t) {
  const Cf hi = roots[2 * t];
  const Cf lo = roots[2 * t + 1];
  return Cd{static_cast<double>(hi.re) + static_cast<double>(lo.re),
            static_cast<double>(hi.im) + static_cast<double>(lo.im)};
}

namespace direct_detail {

// Complex rows (and the real rows of even n read as pairs) start at even floats: 8-byte loads.
PRISM_HD Cd complex_at(const float* row, int j) { return cd_of(reinterpret_cast<const Cf*>(row)[j]); }

// c2r of even n: the half-length input Z_k = (X_k + conj X_(h-k)) + i w^-k (X_k - conj X_(h-k)),
// w^-k = exp(2 pi i k / n) (roots of order n), with Im X_0 and Im X_h taken as zero (as FFTW).
PRISM_HD Cd c2r_half_input(const float* row, const Cd* roots, int h, int k) {
  Cd x = complex_at(row, k);
  Cd y = complex_at(row, h - k);
  if (k == 0) {
    x.im = 0.0;
    y.im = 0.0;
  }
  const Cd sum{x.re + y.re, x.im - y.im};   // X_k + conj X_(h-k)
  const Cd diff{x.re - y.re, x.im + y.im};  // X_k - conj X_(h-k)
  const Cd w = roots[k];
  const Cd rotated{diff.re * w.re - diff.im * w.im, diff.re * w.im + diff.im * w.re};
  return Cd{sum.re - rotated.im, sum.im + rotated.re};  // sum + i * rotated
}

// The input's value j of the complex length h (before folding).
PRISM_HD Cd input_at(const DirectDftDesc& d, const float* row, const Cd* roots, int j) {
  if (d.kind == RowsKind::real_inverse) return c2r_half_input(row, roots, d.h, j);
  return complex_at(row, j);  // c2c; r2c of even n: z_j = x_2j + i x_2j+1
}

}  // namespace direct_detail

// Folds one row's input into `staged` (direct_staged_values(h) values): the call for j = 0
// writes x_0 and x_(h/2), the call for j = 1 .. direct_folds(h) writes a_j and b_j. `roots`
// are the doubles of direct_root (used by c2r of even n).
PRISM_HD void direct_stage(const DirectDftDesc& d, const float* row, const Cd* roots, Cd* staged, int j) {
  using namespace direct_detail;
  const int h = d.h;
  const bool odd_real = direct_real(d.kind) && !direct_half_length(d);
  if (odd_real && j == 0) {  // x_0, or X_0 (real)
    staged[0] = Cd{static_cast<double>(row[0]), 0.0};
    staged[1] = Cd{0.0, 0.0};
    return;
  }
  if (odd_real && d.kind == RowsKind::real_forward) {
    // r2c of odd n: real a_j, b_j.
    const double x = row[j];
    const double y = row[h - j];
    staged[2 * j] = Cd{x + y, 0.0};
    staged[2 * j + 1] = Cd{x - y, 0.0};
    return;
  }
  if (odd_real) {
    // c2r of odd n: X_(h-j) = conj X_j, so a_j = 2 Re X_j and b_j = 2i Im X_j.
    const Cd x = complex_at(row, j);
    staged[2 * j] = Cd{2.0 * x.re, 0.0};
    staged[2 * j + 1] = Cd{0.0, 2.0 * x.im};
    return;
  }
  if (j == 0) {
    staged[0] = input_at(d, row, roots, 0);
    staged[1] = h % 2 == 0 ? input_at(d, row, roots, h / 2) : Cd{0.0, 0.0};
    return;
  }
  const Cd x = input_at(d, row, roots, j);
  const Cd y = input_at(d, row, roots, h - j);
  staged[2 * j] = x + y;
  staged[2 * j + 1] = x - y;
}

// The outputs k and h - k of the length-h DFT of a staged row (forward for c2c forward and r2c,
// inverse for c2c inverse and c2r), in double.
PRISM_HD void direct_pair(const DirectDftDesc& d, const Cd* staged, const Cd* roots, int k, Cd& out_k, Cd& out_hk) {
  const int h = d.h;
  Cd a = staged[0];
  if (h % 2 == 0) {
    const Cd middle = staged[1];
    a = (k & 1) ? a - middle : a + middle;
  }
  Cd b{0.0, 0.0};
  // w = exp(2 pi i jk / h) by repeated multiplication, not a table read at jk mod h per term
  // (bank conflicts: c2c 61 ran at 498 GB/s so on the H200, 1025 this way; bench/RESULTS.md "Direct
  // DFT"), at a cost of about j * 2^-52 in w, far below the float rounding of the result.
  const Cd step = roots[k * d.root_step];
  Cd w = step;
  for (int j = 1; j <= direct_folds(h); ++j) {
    if (j > 1) w = Cd{w.re * step.re - w.im * step.im, w.re * step.im + w.im * step.re};
    const Cd fold_sum = staged[2 * j];
    const Cd fold_diff = staged[2 * j + 1];
    a.re = fma(fold_sum.re, w.re, a.re);
    a.im = fma(fold_sum.im, w.re, a.im);
    b.re = fma(fold_diff.re, w.im, b.re);
    b.im = fma(fold_diff.im, w.im, b.im);
  }
  const Cd minus_ib{b.im, -b.re};
  const bool forward = d.kind == RowsKind::forward || d.kind == RowsKind::real_forward;
  out_k = forward ? a + minus_ib : a - minus_ib;
  out_hk = forward ? a - minus_ib : a + minus_ib;
}

namespace direct_detail {

// r2c of even n: X_k = E + w^k O from the half-length spectrum, E = (Z_k + conj Z_(h-k)) / 2,
// O = -i (Z_k - conj Z_(h-k)) / 2, w^k = exp(-2 pi i k / n).
PRISM_HD Cd r2c_half_output(Cd z_k, Cd z_hk, Cd root_k) {
  const Cd e{0.5 * (z_k.re + z_hk.re), 0.5 * (z_k.im - z_hk.im)};
  const Cd o{0.5 * (z_k.im + z_hk.im), -0.5 * (z_k.re - z_hk.re)};
  const Cd w{root_k.re, -root_k.im};
  return Cd{e.re + o.re * w.re - o.im * w.im, e.im + o.re * w.im + o.im * w.re};
}

PRISM_HD void store_complex(float* row, int k, Cd v) { reinterpret_cast<Cf*>(row)[k] = cf_of(v); }

}  // namespace direct_detail

// Stores the outputs of pair k (direct_pair) in the output row.
PRISM_HD void direct_store(const DirectDftDesc& d, const Cd* roots, int k, Cd out_k, Cd out_hk, float* row) {
  using namespace direct_detail;
  const int h = d.h;
  const bool second = k != 0 && 2 * k != h;  // h - k is another output
  switch (d.kind) {
    case RowsKind::forward:
    case RowsKind::inverse:
      store_complex(row, k, out_k);
      if (second) store_complex(row, h - k, out_hk);
      return;
    case RowsKind::real_forward:
      if (!direct_half_length(d)) {
        store_complex(row, k, out_k);  // k <= (n-1)/2 = n/2
        return;
      }
      if (k == 0) {
        store_complex(row, 0, Cd{out_k.re + out_k.im, 0.0});
        store_complex(row, h, Cd{out_k.re - out_k.im, 0.0});
        return;
      }
      store_complex(row, k, r2c_half_output(out_k, out_hk, roots[k]));
      if (second) store_complex(row, h - k, r2c_half_output(out_hk, out_k, roots[h - k]));
      return;
    case RowsKind::real_inverse:
      if (!direct_half_length(d)) {
        row[k] = static_cast<float>(out_k.re);
        if (k != 0) row[h - k] = static_cast<float>(out_hk.re);
        return;
      }
      store_complex(row, k, out_k);  // x_2k and x_2k+1
      if (second) store_complex(row, h - k, out_hk);
      return;
  }
}

}  // namespace prism::fft::gpu
