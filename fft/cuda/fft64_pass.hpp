// One pass of our double-precision FFT (fft64_plan.hpp): the addressing of a pass's transforms,
// its loads and stores (complex, real, Hermitian-expanded, half-spectrum, real part), one
// Stockham butterfly of a stage, and the four-step twiddle. __host__ __device__, so that the
// host executor (execute_fp64_on_host) runs the arithmetic and the index maps the kernel runs.
#pragma once

#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// The radices a double-precision pass factors its length into (4 first, then 2 and the odd primes).
inline constexpr int kFp64Radices[] = {4, 2, 3, 5, 7, 11, 13};
// A pass holds at most 7263 points (fp64_max_pass_length at Hopper's 227 KB): fewer than 2^13, so
// fewer than 13 stages.
inline constexpr int kFp64MaxStages = 16;

// How a pass reads element i of its transform: complex values; real values (imaginary 0, an
// r2c's first pass); the Hermitian half of a c2r's input expanded to the full length
// (x[j] = conj(x[n - j]) above n/2).
enum class Fp64Load : int { complex, real, hermitian };
// How it writes element k: complex values; those of k <= n/2 only (an r2c's last pass); the real
// part (a c2r's last pass).
enum class Fp64Store : int { complex, half, real_part };

// A pass: `rows × groups` transforms of `length` points. Transform t is group g = t % groups of
// row r = t / groups; its element i is read at element r·in_row + i·in_stride + g·in_group_stride
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
  // store; 0 for none. Taken from two tables (coarse[m / split] · fine[m % split], m = g·k).
  long long twiddle_n = 0;
  long long twiddle_split = 1;
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
};

PRISM_HD constexpr int fp64_plane_stride(int length) { return 2 * length + 1; }

// Element i of transform t from the source: `source` holds doubles (real load) or Cd.
PRISM_HD Cd fp64_load(const Fp64PassDesc& p, const void* source, long long t, long long i) {
  const long long row = t / p.groups;
  const long long g = t - row * p.groups;
  long long offset = i * p.in_stride + g * p.in_group_stride;
  Cd v;
  if (p.load == Fp64Load::real) {
    v = Cd{static_cast<const double*>(source)[row * p.in_row + offset], 0.0};
  } else if (p.load == Fp64Load::hermitian && 2 * offset > p.full_length) {
    v = conj(static_cast<const Cd*>(source)[row * p.in_row + (p.full_length - offset)]);
  } else {
    v = static_cast<const Cd*>(source)[row * p.in_row + offset];
  }
  return p.conj_in ? conj(v) : v;
}

// exp(−2πi·m/twiddle_n) from the two tables.
PRISM_HD Cd fp64_four_step_twiddle(const Fp64PassDesc& p, const Cd* coarse, const Cd* fine, long long m) {
  const long long high = m / p.twiddle_split;
  return cmul(coarse[high], fine[m - high * p.twiddle_split]);
}

// Writes element k of transform t.
PRISM_HD void fp64_store(const Fp64PassDesc& p, void* destination, long long t, long long k, Cd v, const Cd* coarse,
                         const Cd* fine) {
  const long long row = t / p.groups;
  const long long g = t - row * p.groups;
  if (p.twiddle_n != 0) v = cmul(v, fp64_four_step_twiddle(p, coarse, fine, g * k));
  const long long offset = k * p.out_stride + g * p.out_group_stride;
  if (p.conj_out) v = conj(v);
  if (p.store == Fp64Store::real_part) {
    static_cast<double*>(destination)[row * p.out_row + offset] = v.re;
  } else if (p.store == Fp64Store::complex || 2 * offset <= p.full_length) {
    static_cast<Cd*>(destination)[row * p.out_row + offset] = v;
  }
}

// Stockham stage of radix R after `span` points of earlier stages (the product of their radices),
// butterfly j of length/R: reads src[j + r·length/R], twiddles them by exp(−2πi·(j mod span)·r /
// (span·R)), takes their DFT and writes dst[(j / span)·span·R + j mod span + r·span]. `roots` is
// the pass's table of exp(−2πi·m/length), m < length.
template <int R>
PRISM_HD void fp64_butterfly(const Cd* src, Cd* dst, int length, int span, int j, const Cd* roots) {
  const int stride = length / R;
  const int within = j % span;
  const int step = length / (span * R);  // roots index of one twiddle step
  Cd v[R];
  PRISM_UNROLL
  for (int r = 0; r < R; ++r) {
    v[r] = src[j + r * stride];
    if (r > 0) v[r] = cmul(v[r], roots[within * r * step]);
  }
  const int base = (j / span) * span * R + within;
  if constexpr (R == 2) {
    dst[base] = v[0] + v[1];
    dst[base + span] = v[0] - v[1];
  } else if constexpr (R == 4) {
    const Cd a = v[0] + v[2], b = v[0] - v[2], c = v[1] + v[3], d = mul_neg_i(v[1] - v[3]);
    dst[base] = a + c;
    dst[base + span] = b + d;
    dst[base + 2 * span] = a - c;
    dst[base + 3 * span] = b - d;
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
        sum = sum + cmul(v[r], roots[m * stride]);
      }
      dst[base + k * span] = sum;
    }
  }
}

// Butterfly j of stage `stage` (span: the product of the earlier radices).
PRISM_HD void fp64_stage_butterfly(int radix, const Cd* src, Cd* dst, int length, int span, int j, const Cd* roots) {
  switch (radix) {
    case 2: fp64_butterfly<2>(src, dst, length, span, j, roots); break;
    case 3: fp64_butterfly<3>(src, dst, length, span, j, roots); break;
    case 4: fp64_butterfly<4>(src, dst, length, span, j, roots); break;
    case 5: fp64_butterfly<5>(src, dst, length, span, j, roots); break;
    case 7: fp64_butterfly<7>(src, dst, length, span, j, roots); break;
    case 11: fp64_butterfly<11>(src, dst, length, span, j, roots); break;
    default: fp64_butterfly<13>(src, dst, length, span, j, roots); break;
  }
}

}  // namespace prism::fft::gpu
