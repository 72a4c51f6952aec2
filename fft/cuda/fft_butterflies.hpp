// Fixed-size DFT butterflies (forward direction, e^{-2*pi*i*jk/R}) for the radices of our Stockham
// stages: 2, 4, 8, 16 (split into 2x4 and 4x4 with constant inner twiddles), the odd primes
// 3, 5, 7, 11, 13 (symmetric-pair formulation, about half the multiplies of a plain DFT) and 10
// (2x5 by the prime factor map: no inner twiddles).
// All loops have compile-time bounds so that the values stay in registers on the GPU.
#pragma once

#include "fft/cuda/fft_complex.hpp"
#include "fft/cuda/fft_roots.hpp"

namespace prism::fft::gpu {

template <int R>
struct Butterfly;

template <>
struct Butterfly<2> {
  PRISM_HD static void run(Cf* v) {
    const Cf a = v[0];
    v[0] = a + v[1];
    v[1] = a - v[1];
  }
};

template <>
struct Butterfly<4> {
  PRISM_HD static void run(Cf* v) {
    const Cf t0 = v[0] + v[2];
    const Cf t1 = v[0] - v[2];
    const Cf t2 = v[1] + v[3];
    const Cf t3 = mul_neg_i(v[1] - v[3]);
    v[0] = t0 + t2;
    v[2] = t0 - t2;
    v[1] = t1 + t3;
    v[3] = t1 - t3;
  }
};

// Multiplies by exp(-2*pi*i*m/R); quarter turns are exact sign swaps, so they skip the multiply.
template <int R>
PRISM_HD Cf rotate_by_root(Cf v, int m) {
  m %= R;
  if (m == 0) return v;
  if (4 * m == R) return mul_neg_i(v);
  if (2 * m == R) return Cf{-v.re, -v.im};
  if (4 * m == 3 * R) return mul_i(v);
  return cmul(v, unit_root(R, m));
}

// R = A*B: n = n1 + A*n2, k = k1 + B*k2.
//   u[n1][k1] = DFT_B over n2 of v[n1 + A*n2], times w_R^{n1*k1};
//   y[k1 + B*k2] = DFT_A over n1 of u[n1][k1].
template <int A, int B>
PRISM_HD void composite_butterfly(Cf* v) {
  constexpr int R = A * B;
  Cf u[A][B];
PRISM_UNROLL
  for (int n1 = 0; n1 < A; ++n1) {
PRISM_UNROLL
    for (int n2 = 0; n2 < B; ++n2) u[n1][n2] = v[n1 + A * n2];
    Butterfly<B>::run(u[n1]);
PRISM_UNROLL
    for (int k1 = 0; k1 < B; ++k1) u[n1][k1] = rotate_by_root<R>(u[n1][k1], n1 * k1);
  }
PRISM_UNROLL
  for (int k1 = 0; k1 < B; ++k1) {
    Cf t[A];
PRISM_UNROLL
    for (int n1 = 0; n1 < A; ++n1) t[n1] = u[n1][k1];
    Butterfly<A>::run(t);
PRISM_UNROLL
    for (int k2 = 0; k2 < A; ++k2) v[k1 + B * k2] = t[k2];
  }
}

template <>
struct Butterfly<8> {
  PRISM_HD static void run(Cf* v) { composite_butterfly<2, 4>(v); }
};

template <>
struct Butterfly<16> {
  PRISM_HD static void run(Cf* v) { composite_butterfly<4, 4>(v); }
};

// Odd prime R: with a_n = v_n + v_{R-n} and b_n = v_n - v_{R-n} (n = 1..(R-1)/2),
//   y_k     = v_0 + sum a_n cos(2 pi nk/R) - i sum b_n sin(2 pi nk/R)
//   y_{R-k} = v_0 + sum a_n cos(2 pi nk/R) + i sum b_n sin(2 pi nk/R).
template <int R>
PRISM_HD void prime_butterfly(Cf* v) {
  constexpr int H = (R - 1) / 2;
  Cf a[H];
  Cf b[H];
  Cf y0 = v[0];
PRISM_UNROLL
  for (int n = 1; n <= H; ++n) {
    a[n - 1] = v[n] + v[R - n];
    b[n - 1] = v[n] - v[R - n];
    y0 = y0 + a[n - 1];
  }
  Cf out[R];
  out[0] = y0;
PRISM_UNROLL
  for (int k = 1; k <= H; ++k) {
    Cf sum_cos = v[0];
    Cf sum_sin{0.0f, 0.0f};
PRISM_UNROLL
    for (int n = 1; n <= H; ++n) {
      // unit_root holds (cos, -sin) of 2*pi*m/R.
      const Cf w = unit_root(R, (n * k) % R);
      sum_cos = sum_cos + a[n - 1] * w.re;
      sum_sin = sum_sin + b[n - 1] * (-w.im);
    }
    out[k] = sum_cos + mul_neg_i(sum_sin);
    out[R - k] = sum_cos + mul_i(sum_sin);
  }
PRISM_UNROLL
  for (int k = 0; k < R; ++k) v[k] = out[k];
}

template <>
struct Butterfly<3> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<3>(v); }
};
template <>
struct Butterfly<5> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<5>(v); }
};
template <>
struct Butterfly<7> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<7>(v); }
};
template <>
struct Butterfly<11> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<11>(v); }
};
template <>
struct Butterfly<13> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<13>(v); }
};

// 10 = 2 x 5 by the prime factor (Good-Thomas) map: input n = (5*n1 + 2*n2) mod 10 and output
// k = (5*k1 + 6*k2) mod 10 make w_10^(nk) = w_2^(n1*k1) * w_5^(n2*k2), so two 5-point DFTs and
// five 2-point DFTs with no twiddles between them.
template <>
struct Butterfly<10> {
  PRISM_HD static void run(Cf* v) {
    Cf even[5];
    Cf odd[5];
PRISM_UNROLL
    for (int n2 = 0; n2 < 5; ++n2) {
      even[n2] = v[(2 * n2) % 10];
      odd[n2] = v[(5 + 2 * n2) % 10];
    }
    prime_butterfly<5>(even);
    prime_butterfly<5>(odd);
PRISM_UNROLL
    for (int k2 = 0; k2 < 5; ++k2) {
      v[(6 * k2) % 10] = even[k2] + odd[k2];
      v[(5 + 6 * k2) % 10] = even[k2] - odd[k2];
    }
  }
};

}  // namespace prism::fft::gpu
