// Fixed-size DFT butterflies (forward direction, e^{-2*pi*i*jk/R}) for the radices of our Stockham
// stages: 2, 4, 8, 16 (split into 2x4 and 4x4 with constant inner twiddles), the odd primes
// 3, 5, 7, 11, 13 and 17 to 31 and also 9 (symmetric-pair formulation, about half the
// multiplies of a plain DFT), and 10, 15, 21 (2x5, 3x5, 3x7 by the prime factor map: no inner
// twiddles).
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
  static_assert(has_unit_roots(R), "rotate_by_root: no unit_root table for this radix");
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
// The primes 17 to 31, for the run-time stage loop only: lengths with such a factor would
// otherwise take Bluestein, a convolution of twice the length in three float FFTs.
template <>
struct Butterfly<17> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<17>(v); }
};
template <>
struct Butterfly<19> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<19>(v); }
};
template <>
struct Butterfly<23> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<23>(v); }
};
template <>
struct Butterfly<29> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<29>(v); }
};
template <>
struct Butterfly<31> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<31>(v); }
};

// R = A*B with A and B coprime, by the prime factor (Good-Thomas) map: input n = (B*n1 + A*n2)
// mod R and output k = (B*(B^-1 mod A)*k1 + A*(A^-1 mod B)*k2) mod R make
// w_R^(nk) = w_A^(n1*k1) * w_B^(n2*k2), so A B-point DFTs and B A-point DFTs with no twiddles
// between them (composite_butterfly's A*B-point split needs (A-1)(B-1) of them).
PRISM_HD constexpr int inverse_mod(int a, int m) {
  for (int x = 1; x < m; ++x) {
    if ((a * x) % m == 1) return x;
  }
  return 1;  // m == 1
}
template <int A, int B>
PRISM_HD void prime_factor_butterfly(Cf* v) {
  constexpr int R = A * B;
  constexpr int kOut1 = B * inverse_mod(B % A, A);
  constexpr int kOut2 = A * inverse_mod(A % B, B);
  static_assert(kOut1 % A == 1 && kOut2 % B == 1, "A and B must be coprime");
  Cf u[A][B];
PRISM_UNROLL
  for (int n1 = 0; n1 < A; ++n1) {
PRISM_UNROLL
    for (int n2 = 0; n2 < B; ++n2) u[n1][n2] = v[(B * n1 + A * n2) % R];
    Butterfly<B>::run(u[n1]);
  }
PRISM_UNROLL
  for (int k2 = 0; k2 < B; ++k2) {
    Cf t[A];
PRISM_UNROLL
    for (int n1 = 0; n1 < A; ++n1) t[n1] = u[n1][k2];
    Butterfly<A>::run(t);
PRISM_UNROLL
    for (int k1 = 0; k1 < A; ++k1) v[(kOut1 * k1 + kOut2 * k2) % R] = t[k1];
  }
}

// 9, two 3s in one stage of the run-time stage loop (see factorize), by the symmetric pairs of
// the odd primes, which hold for any odd R. As 3x3 with inner twiddles it rounded each input a
// second time after the stage's twiddle (host executor: c2r 567 = 9x9x7 1.27e-07, 1.25e-07 as
// 3x3x3x3x7); by the pairs 1.18e-07.
template <>
struct Butterfly<9> {
  PRISM_HD static void run(Cf* v) { prime_butterfly<9>(v); }
};

// 10 = 2x5 (1000 = 10x10x10 rather than 8x5x5x5), 15 = 3x5 and 21 = 3x7 (1920 = 16x8x15,
// 4095 = 15x21x13): a stage fewer per pair, see factorize.
template <>
struct Butterfly<10> {
  PRISM_HD static void run(Cf* v) { prime_factor_butterfly<2, 5>(v); }
};
template <>
struct Butterfly<15> {
  PRISM_HD static void run(Cf* v) { prime_factor_butterfly<3, 5>(v); }
};
template <>
struct Butterfly<21> {
  PRISM_HD static void run(Cf* v) { prime_factor_butterfly<3, 7>(v); }
};

}  // namespace prism::fft::gpu
