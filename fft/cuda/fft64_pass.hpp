// One pass of our double-precision FFT (fft64_plan.hpp): the addressing of a pass's transforms,
// its loads and stores (complex, real, Hermitian-expanded, two real rows at once; half-spectrum,
// real part, the split of two real rows' spectra), one Stockham butterfly of a stage, and the
// four-step twiddle. __host__ __device__, so that the host executor (execute_fp64_on_host) runs
// the arithmetic and the index maps the kernel runs.
#pragma once

#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// The primes a double-precision pass's length may hold. Its stages: the power of two as radix 8
// (a 4 or two where three 2s do not remain), then each odd prime as a radix of its own.
inline constexpr int kFp64Primes[] = {2, 3, 5, 7, 11, 13};
// A pass holds at most 7263 points (fp64_max_pass_length at Hopper's 227 KB): fewer than 2^13, so
// fewer than 13 stages.
inline constexpr int kFp64MaxStages = 16;

// How a pass reads element i of its transform: complex values; real values (imaginary 0, an
// r2c's first pass); the Hermitian half of a c2r's input expanded to the full length
// (x[j] = conj(x[n - j]) above n/2); two real rows a and b of the batch as one complex
// transform, a + i·b (real_pair: an r2c in one pass); the Hermitian half X of a c2r of even
// length N folded into the spectrum Z of length M = N/2 whose inverse z has the real output's
// even samples as its real parts and the odd ones as its imaginary parts (hermitian_half:
// Z[k] = E + i·O, E = X[k] + conj(X[M−k]), O = (X[k] − conj(X[M−k]))·exp(2πi·k/N); the
// inverse of length M then takes the c2r's place, half its work).
enum class Fp64Load : int { complex, real, hermitian, real_pair, hermitian_half };
// How it writes element k: complex values; those of k <= n/2 only (an r2c's last pass); the real
// part (a c2r's last pass); the spectra of the two real rows of a real_pair load split from the
// transform Z of a + i·b, A[k] = (Z[k] + conj(Z[n−k]))/2 and B[k] = (Z[k] − conj(Z[n−k]))/(2i),
// k <= n/2 (split_pair). (A c2r is not paired: the imaginary part of one inverse transform, which
// is dropped, holds half its rounding error; a pair's would land in the partner row, above
// cuFFT's error at some lengths.) real_pairs: element k's real and imaginary parts as the real
// outputs 2k and 2k + 1 (the last pass of a hermitian_half c2r; its strides count doubles).
enum class Fp64Store : int { complex, half, real_part, split_pair, real_pairs };

// A pass: `rows × groups` transforms of `length` points (paired, an r2c in one pass: ⌈rows/2⌉
// transforms, t of rows 2t and 2t + 1, one group). Transform t is group g = t % groups of row
// r = t / groups; its element i is read at element r·in_row + i·in_stride + g·in_group_stride
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
  // local·fp64_plane_stride(pass): its planes and one pair more, so that the side-by-side
  // accesses of neighbouring transforms do not all fall in one bank.
  int per_block = 1;
  int threads_per_transform = 1;
  bool interleave_load = false;
  bool interleave_store = false;
  // Whether the kernel runs the stages in one plane of shared memory (each thread's butterfly
  // read into registers, a barrier, then written back: a power-of-two length, at most one
  // butterfly per thread a stage) rather than from one plane to the other; half the memory.
  bool one_plane = false;
};

// Whether a pass takes two rows of the batch per transform (an r2c in one pass).
PRISM_HD constexpr bool fp64_paired(const Fp64PassDesc& p) { return p.load == Fp64Load::real_pair; }

// The transforms of a pass over `rows` rows of the batch.
PRISM_HD constexpr long long fp64_transforms(const Fp64PassDesc& p, long long rows) {
  return fp64_paired(p) ? (rows + 1) / 2 : rows * p.groups;
}

PRISM_HD constexpr int fp64_plane_stride(const Fp64PassDesc& p) { return (p.one_plane ? 1 : 2) * p.length + 1; }

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
  if (fp64_paired(p)) return Fp64Transform{2 * t * p.in_row, 2 * t * p.out_row, 0, 2 * t + 1 < rows};
  const long long row = p.groups == 1 ? t : t / p.groups;
  const long long g = t - row * p.groups;
  return Fp64Transform{row * p.in_row + g * p.in_group_stride, row * p.out_row + g * p.out_group_stride, g, false};
}

// Element i of transform `at` from the source: `source` holds doubles (real load) or Cd.
// `half_roots`: exp(2πi·k/N), k < M, for a hermitian_half load (else unused).
PRISM_HD Cd fp64_load(const Fp64PassDesc& p, const void* source, const Fp64Transform& at, long long i,
                      const Cd* half_roots) {
  const long long offset = i * p.in_stride;  // from the transform's element 0
  const long long within_row = offset + at.group * p.in_group_stride;  // its index in the full transform
  const long long row_start = at.in_base - at.group * p.in_group_stride;  // the mirror bins lie across the row
  Cd v;
  if (p.load == Fp64Load::real) {
    v = Cd{static_cast<const double*>(source)[at.in_base + offset], 0.0};
  } else if (p.load == Fp64Load::real_pair) {
    const double* a = static_cast<const double*>(source) + at.in_base;
    v = Cd{a[offset], at.second ? a[p.in_row + offset] : 0.0};
  } else if (p.load == Fp64Load::hermitian_half) {
    // Its transform's length M is full_length; the row holds X[0] to X[M].
    const Cd* row = static_cast<const Cd*>(source) + row_start;
    Cd x = row[within_row];
    Cd mirror = conj(row[p.full_length - within_row]);
    if (within_row == 0) x.im = mirror.im = 0.0;  // bins 0 and N/2 taken as real, as the full-length c2r takes them
    const Cd even = x + mirror;
    const Cd odd = cmul(x - mirror, half_roots[within_row]);
    v = Cd{even.re - odd.im, even.im + odd.re};
  } else if (p.load == Fp64Load::hermitian && 2 * within_row > p.full_length) {
    v = conj(static_cast<const Cd*>(source)[row_start + (p.full_length - within_row)]);
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
  } else if (p.store == Fp64Store::real_pairs) {
    // Two 8-byte stores: a real output need only be aligned as a double.
    double* pair = static_cast<double*>(destination) + at.out_base + offset;
    pair[0] = v.re;
    pair[1] = v.im;
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

// The radices of the lean pass kernel (fft64_kernels.cu): compiled for them only, it fits in 64
// registers; the radix-7, -11 and -13 butterflies need more.
PRISM_HD constexpr bool fp64_lean_radix(int radix) { return radix <= 5 || radix == 8; }
PRISM_HD constexpr bool fp64_lean_pass(const Fp64PassDesc& p) {
  for (int s = 0; s < p.stages; ++s)
    if (!fp64_lean_radix(p.radices[s])) return false;
  return true;
}

// Stockham butterfly j of a stage of radix R: reads src[j + r·stride], twiddles them by
// exp(−2πi·(j mod span)·r / (span·R)), takes their DFT and writes
// dst[(j / span)·span·R + j mod span + r·span]. `roots` is the pass's table of exp(−2πi·m/length),
// m < length. The radices of the lean kernel compute all R outputs (fp64_butterfly_values) before
// writing any (fp64_butterfly_write), so that a stage can run in one plane with a barrier
// between the two; the others write each output as it is summed.
template <int R>
PRISM_HD void fp64_butterfly_inputs(const Cd* src, const Fp64Stage& st, int j, const Cd* roots, Cd (&v)[R]) {
  const int within = j % st.span;
  PRISM_UNROLL
  for (int r = 0; r < R; ++r) {
    v[r] = src[j + r * st.stride];
    if (r > 0) v[r] = cmul(v[r], roots[within * r * st.step]);
  }
}

// Output k of the direct DFT of v, its roots exp(−2πi·m/R) = roots[m·stride].
template <int R>
PRISM_HD Cd fp64_direct_dft_output(const Cd (&v)[R], const Fp64Stage& st, int k, const Cd* roots) {
  Cd sum = v[0];
  int m = 0;  // r·k mod R
  PRISM_UNROLL
  for (int r = 1; r < R; ++r) {
    m += k;
    if (m >= R) m -= R;
    sum = sum + cmul(v[r], roots[m * st.stride]);
  }
  return sum;
}

template <int R>
PRISM_HD void fp64_butterfly_values(const Cd* src, const Fp64Stage& st, int j, const Cd* roots, Cd (&y)[R]) {
  static_assert(fp64_lean_radix(R));
  Cd v[R];
  fp64_butterfly_inputs<R>(src, st, j, roots, v);
  if constexpr (R == 2) {
    y[0] = v[0] + v[1];
    y[1] = v[0] - v[1];
  } else if constexpr (R == 4) {
    const Cd a = v[0] + v[2], b = v[0] - v[2], c = v[1] + v[3], d = mul_neg_i(v[1] - v[3]);
    y[0] = a + c;
    y[1] = b + d;
    y[2] = a - c;
    y[3] = b - d;
  } else if constexpr (R == 8) {
    // Two DFTs of 4 (even and odd inputs), the odd one's outputs turned by exp(−2πi·k/8).
    const Cd a0 = v[0] + v[4], a1 = v[0] - v[4], a2 = v[2] + v[6], a3 = mul_neg_i(v[2] - v[6]);
    const Cd b0 = v[1] + v[5], b1 = v[1] - v[5], b2 = v[3] + v[7], b3 = mul_neg_i(v[3] - v[7]);
    const Cd e0 = a0 + a2, e1 = a1 + a3, e2 = a0 - a2, e3 = a1 - a3;
    const Cd o0 = b0 + b2, o1 = fp64_rotate_eighth(b1 + b3), o2 = mul_neg_i(b0 - b2),
             o3 = fp64_rotate_three_eighths(b1 - b3);
    y[0] = e0 + o0;
    y[1] = e1 + o1;
    y[2] = e2 + o2;
    y[3] = e3 + o3;
    y[4] = e0 - o0;
    y[5] = e1 - o1;
    y[6] = e2 - o2;
    y[7] = e3 - o3;
  } else {
    PRISM_UNROLL
    for (int k = 0; k < R; ++k) y[k] = fp64_direct_dft_output<R>(v, st, k, roots);
  }
}

template <int R>
PRISM_HD void fp64_butterfly_write(Cd* dst, const Fp64Stage& st, int j, const Cd (&y)[R]) {
  const int within = j % st.span;
  const int base = (j - within) * R + within;
  PRISM_UNROLL
  for (int k = 0; k < R; ++k) dst[base + k * st.span] = y[k];
}

template <int R>
PRISM_HD void fp64_butterfly(const Cd* src, Cd* dst, const Fp64Stage& st, int j, const Cd* roots) {
  if constexpr (fp64_lean_radix(R)) {
    Cd y[R];
    fp64_butterfly_values<R>(src, st, j, roots, y);
    fp64_butterfly_write<R>(dst, st, j, y);
  } else {
    Cd v[R];
    fp64_butterfly_inputs<R>(src, st, j, roots, v);
    const int within = j % st.span;
    const int base = (j - within) * R + within;
    // One output at a time: unrolled over k as well, the odd radices would hold R² products'
    // operands at once.
    PRISM_NO_UNROLL
    for (int k = 0; k < R; ++k) dst[base + k * st.span] = fp64_direct_dft_output<R>(v, st, k, roots);
  }
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
      // (kLean: never reached; the lean kernel refuses a pass that is not lean as it starts.)
      break;
  }
}

}  // namespace prism::fft::gpu
