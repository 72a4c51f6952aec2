// One pass of our double-precision FFT (fft64_plan.hpp): the addressing of a pass's transforms,
// its loads and stores (complex, real, Hermitian-expanded, half-spectrum, real part), one
// Stockham butterfly of a stage, and the four-step twiddle. __host__ __device__, so that the
// host executor (execute_fp64_on_host) runs the arithmetic and the index maps the kernel runs.
#pragma once

#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// The radices a double-precision pass factors its length into: the power of two as radix-8 stages
// (a 4 or two where three 2s do not remain), then the odd primes.
inline constexpr int kFp64Radices[] = {8, 4, 2, 3, 5, 7, 11, 13};
// A pass holds at most 7263 points (fp64_max_pass_length at Hopper's 227 KB): fewer than 2^13, so
// fewer than 13 stages.
inline constexpr int kFp64MaxStages = 16;

// How a pass reads element i of its transform: complex values; real values (imaginary 0, an
// r2c's first pass); the Hermitian half of a c2r's input expanded to the full length
// (x[j] = conj(x[n - j]) above n/2). Paired (a real transform in one pass): two rows a and b of
// the batch as one complex transform, a + i·b, from real rows (real_pair) or from two Hermitian
// halves (hermitian_pair, their imaginary parts at 0 and n/2 dropped, as the real part of one
// inverse transform drops them).
enum class Fp64Load : int { complex, real, hermitian, real_pair, hermitian_pair };
// How it writes element k: complex values; those of k <= n/2 only (an r2c's last pass); the real
// part (a c2r's last pass). Paired: the spectra of the two real rows split from the transform Z
// of a + i·b, A[k] = (Z[k] + conj(Z[n−k]))/2 and B[k] = (Z[k] − conj(Z[n−k]))/(2i), k <= n/2
// (split_pair); the real and imaginary parts to the two rows (real_pair).
enum class Fp64Store : int { complex, half, real_part, split_pair, real_pair };

// A pass: `rows × groups` transforms of `length` points (paired: ⌈rows/2⌉ transforms, t of rows
// 2t and 2t + 1, one group). Transform t is group g = t % groups of row r = t / groups; its element i is read at element r·in_row + i·in_stride + g·in_group_stride
// of the source and element k written at r·out_row + k·out_stride + g·out_group_stride. That
// offset within the row is the element's index in the full transform of length `full_length`,
// which the Hermitian load and the half store use. Inverse transforms conjugate on the first
// load and the last store (conj_in, conj_out): inverse(x) = conj(forward(conj(x))).
struct Fp64PassDesc {
  int length = 1;
  int stages = 0;
  int radices[kFp64MaxStages] = {};
  long long groups = 1;
  long long in_row = 0, in_stride = 1, in_group_stride = 0;
  long long out_row = 0, out_stride = 1, out_group_stride = 0;
  long long full_length = 1;
  Fp64Load load = Fp64Load::complex;
  Fp64Store store = Fp64Store::complex;
  bool conj_in = false;
  bool conj_out = false;
  // Four-step twiddle: element k of group g multiplied by exp(−2πi·g·k/twiddle_n) before the
  // store; 0 for none. Taken from two tables (coarse[m >> shift] · fine[m mod 2^shift], m = g·k):
  // a power-of-two split, so that no element divides.
  long long twiddle_n = 0;
  int twiddle_shift = 0;
  // Transforms per thread block, threads per transform, and whether a block's loads (stores) walk
  // its transforms side by side, neighbouring threads on neighbouring groups (where groups are
  // neighbours in memory and a transform's elements are not: the four-step's strided sides), or
  // one transform after another. In shared memory transform `local` of a block starts at
  // local·fp64_plane_stride(length): two planes and one pair more, so that the side-by-side
  // accesses of neighbouring transforms do not all fall in one bank.
  int per_block = 1;
  int threads_per_transform = 1;
  bool interleave_load = false;
  bool interleave_store = false;
  bool paired = false;
};

// The transforms of a pass over `rows` rows of the batch.
PRISM_HD constexpr long long fp64_transforms(const Fp64PassDesc& p, long long rows) {
  return p.paired ? (rows + 1) / 2 : rows * p.groups;
}

PRISM_HD constexpr int fp64_plane_stride(int length) { return 2 * length + 1; }

// Where transform t of a pass reads and writes (element 0) and its group, found once per
// transform, so that an element's address is base + index·stride.
// Paired: the first row's, and whether the second row is in the batch.
struct Fp64Transform {
  long long in_base = 0;
  long long out_base = 0;
  long long group = 0;
  bool second = false;
};

PRISM_HD Fp64Transform fp64_transform(const Fp64PassDesc& p, long long t, long long rows) {
  if (p.paired) return Fp64Transform{2 * t * p.in_row, 2 * t * p.out_row, 0, 2 * t + 1 < rows};
  const long long row = p.groups == 1 ? t : t / p.groups;
  const long long g = t - row * p.groups;
  return Fp64Transform{row * p.in_row + g * p.in_group_stride, row * p.out_row + g * p.out_group_stride, g, false};
}

// Element i of a Hermitian half at `half`, expanded to the full length n (i < n); `exact_real`:
// the imaginary part at 0 and n/2 dropped.
PRISM_HD Cd fp64_hermitian_element(const Cd* half, long long i, long long n, bool exact_real) {
  if (2 * i > n) return conj(half[n - i]);
  const Cd v = half[i];
  return exact_real && (i == 0 || 2 * i == n) ? Cd{v.re, 0.0} : v;
}

// Element i of transform `at` from the source: `source` holds doubles (real load) or Cd.
PRISM_HD Cd fp64_load(const Fp64PassDesc& p, const void* source, const Fp64Transform& at, long long i) {
  const long long offset = i * p.in_stride;  // within the row: the element's index in the full transform
  const long long within_row = offset + at.group * p.in_group_stride;
  Cd v;
  if (p.load == Fp64Load::real) {
    v = Cd{static_cast<const double*>(source)[at.in_base + offset], 0.0};
  } else if (p.load == Fp64Load::real_pair) {
    const double* a = static_cast<const double*>(source) + at.in_base;
    v = Cd{a[offset], at.second ? a[p.in_row + offset] : 0.0};
  } else if (p.load == Fp64Load::hermitian_pair) {
    const Cd* a = static_cast<const Cd*>(source) + at.in_base;
    const Cd x = fp64_hermitian_element(a, offset, p.full_length, true);
    const Cd y = at.second ? fp64_hermitian_element(a + p.in_row, offset, p.full_length, true) : Cd{0.0, 0.0};
    v = Cd{x.re - y.im, x.im + y.re};  // x + i·y
  } else if (p.load == Fp64Load::hermitian && 2 * within_row > p.full_length) {
    v = conj(static_cast<const Cd*>(source)[at.in_base - at.group * p.in_group_stride + (p.full_length - within_row)]);
  } else {
    v = static_cast<const Cd*>(source)[at.in_base + offset];
  }
  return p.conj_in ? conj(v) : v;
}

// exp(−2πi·m/twiddle_n) from the two tables.
PRISM_HD Cd fp64_four_step_twiddle(const Fp64PassDesc& p, const Cd* coarse, const Cd* fine, long long m) {
  return cmul(coarse[m >> p.twiddle_shift], fine[m & ((1LL << p.twiddle_shift) - 1)]);
}

// Writes element k of transform `at`.
PRISM_HD void fp64_store(const Fp64PassDesc& p, void* destination, const Fp64Transform& at, long long k, Cd v,
                         const Cd* coarse, const Cd* fine) {
  if (p.twiddle_n != 0) v = cmul(v, fp64_four_step_twiddle(p, coarse, fine, at.group * k));
  const long long offset = k * p.out_stride;
  if (p.conj_out) v = conj(v);
  if (p.store == Fp64Store::real_part) {
    static_cast<double*>(destination)[at.out_base + offset] = v.re;
  } else if (p.store == Fp64Store::real_pair) {
    double* a = static_cast<double*>(destination) + at.out_base;
    a[offset] = v.re;
    if (at.second) a[p.out_row + offset] = v.im;
  } else if (p.store == Fp64Store::complex || 2 * (offset + at.group * p.out_group_stride) <= p.full_length) {
    static_cast<Cd*>(destination)[at.out_base + offset] = v;
  }
}

// Writes element k of transform `at` from the plane that holds its result: split_pair reads
// elements k and n − k of it (a single pass: out_stride 1, one group, no twiddle); the other stores
// element k (fp64_store).
PRISM_HD void fp64_store_from(const Fp64PassDesc& p, void* destination, const Fp64Transform& at, int k,
                              const Cd* result, const Cd* coarse, const Cd* fine) {
  if (p.store != Fp64Store::split_pair) {
    fp64_store(p, destination, at, k, result[k], coarse, fine);
    return;
  }
  if (2 * k > p.length) return;
  const Cd z = result[k];
  const Cd w = conj(result[k == 0 ? 0 : p.length - k]);
  Cd* a = static_cast<Cd*>(destination) + at.out_base;
  a[k] = Cd{0.5 * (z.re + w.re), 0.5 * (z.im + w.im)};
  if (at.second) a[p.out_row + k] = Cd{0.5 * (z.im - w.im), 0.5 * (w.re - z.re)};  // (z − w)/(2i)
}

// One stage of a pass: radix R after `span` points of earlier stages (the product of their
// radices); stride = length / R and step = length / (span·R) (the roots index of one twiddle
// step), found once per stage.
struct Fp64Stage {
  int radix = 2;
  int span = 1;
  int stride = 1;
  int step = 1;
};

PRISM_HD Fp64Stage fp64_stage(const Fp64PassDesc& p, int s, int span) {
  const int radix = p.radices[s];
  return Fp64Stage{radix, span, p.length / radix, p.length / (span * radix)};
}

// exp(−2πi/8)·v and exp(−2πi·3/8)·v.
PRISM_HD constexpr Cd fp64_rotate_eighth(Cd v) {
  constexpr double h = 0.70710678118654752440;  // √½
  return Cd{(v.re + v.im) * h, (v.im - v.re) * h};
}
PRISM_HD constexpr Cd fp64_rotate_three_eighths(Cd v) {
  constexpr double h = 0.70710678118654752440;
  return Cd{(v.im - v.re) * h, -(v.re + v.im) * h};
}

// Stockham butterfly j of a stage of radix R: reads src[j + r·stride], twiddles them by
// exp(−2πi·(j mod span)·r / (span·R)), takes their DFT and writes
// dst[(j / span)·span·R + j mod span + r·span]. `roots` is the pass's table of exp(−2πi·m/length),
// m < length.
template <int R>
PRISM_HD void fp64_butterfly(const Cd* src, Cd* dst, const Fp64Stage& st, int j, const Cd* roots) {
  const int within = j % st.span;
  Cd v[R];
  PRISM_UNROLL
  for (int r = 0; r < R; ++r) {
    v[r] = src[j + r * st.stride];
    if (r > 0) v[r] = cmul(v[r], roots[within * r * st.step]);
  }
  const int base = (j - within) * R + within;
  const int span = st.span;
  if constexpr (R == 2) {
    dst[base] = v[0] + v[1];
    dst[base + span] = v[0] - v[1];
  } else if constexpr (R == 4) {
    const Cd a = v[0] + v[2], b = v[0] - v[2], c = v[1] + v[3], d = mul_neg_i(v[1] - v[3]);
    dst[base] = a + c;
    dst[base + span] = b + d;
    dst[base + 2 * span] = a - c;
    dst[base + 3 * span] = b - d;
  } else if constexpr (R == 8) {
    // Two DFTs of 4 (even and odd inputs), the odd one's outputs turned by exp(−2πi·k/8).
    const Cd a0 = v[0] + v[4], a1 = v[0] - v[4], a2 = v[2] + v[6], a3 = mul_neg_i(v[2] - v[6]);
    const Cd b0 = v[1] + v[5], b1 = v[1] - v[5], b2 = v[3] + v[7], b3 = mul_neg_i(v[3] - v[7]);
    const Cd e0 = a0 + a2, e1 = a1 + a3, e2 = a0 - a2, e3 = a1 - a3;
    const Cd o0 = b0 + b2, o1 = fp64_rotate_eighth(b1 + b3), o2 = mul_neg_i(b0 - b2),
             o3 = fp64_rotate_three_eighths(b1 - b3);
    dst[base] = e0 + o0;
    dst[base + span] = e1 + o1;
    dst[base + 2 * span] = e2 + o2;
    dst[base + 3 * span] = e3 + o3;
    dst[base + 4 * span] = e0 - o0;
    dst[base + 5 * span] = e1 - o1;
    dst[base + 6 * span] = e2 - o2;
    dst[base + 7 * span] = e3 - o3;
  } else {
    // The direct DFT of R points, its roots exp(−2πi·m/R) = roots[m·stride], one output at a
    // time: unrolled over k as well, the odd radices would hold R² products' operands at once.
    PRISM_NO_UNROLL
    for (int k = 0; k < R; ++k) {
      Cd sum = v[0];
      int m = 0;  // r·k mod R
      PRISM_UNROLL
      for (int r = 1; r < R; ++r) {
        m += k;
        if (m >= R) m -= R;
        sum = sum + cmul(v[r], roots[m * st.stride]);
      }
      dst[base + k * span] = sum;
    }
  }
}

// The radices of the lean pass kernel (fft64_kernels.cu): compiled for them only, it fits in 64
// registers; the radix-7, -11 and -13 butterflies need more.
PRISM_HD constexpr bool fp64_lean_radix(int radix) { return radix <= 5 || radix == 8; }
PRISM_HD constexpr bool fp64_lean_pass(const Fp64PassDesc& p) {
  for (int s = 0; s < p.stages; ++s)
    if (!fp64_lean_radix(p.radices[s])) return false;
  return true;
}

// Butterfly j of a stage; kLean: its radix is one of fp64_lean_radix's.
template <bool kLean = false>
PRISM_HD void fp64_stage_butterfly(const Fp64Stage& st, const Cd* src, Cd* dst, int j, const Cd* roots) {
  switch (st.radix) {
    case 2: fp64_butterfly<2>(src, dst, st, j, roots); break;
    case 3: fp64_butterfly<3>(src, dst, st, j, roots); break;
    case 4: fp64_butterfly<4>(src, dst, st, j, roots); break;
    case 5: fp64_butterfly<5>(src, dst, st, j, roots); break;
    case 8: fp64_butterfly<8>(src, dst, st, j, roots); break;
    default:
      if constexpr (!kLean) {
        switch (st.radix) {
          case 7: fp64_butterfly<7>(src, dst, st, j, roots); break;
          case 11: fp64_butterfly<11>(src, dst, st, j, roots); break;
          default: fp64_butterfly<13>(src, dst, st, j, roots); break;
        }
      }
      break;
  }
}

}  // namespace prism::fft::gpu
