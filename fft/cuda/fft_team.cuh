// Team FFT with fusion hooks: one FFT of length kN (a power of two, or one of the rows kernel's
// decimal lengths, has_decimal_rows_kernel) computed by a team of kN/kE threads (kE elements per
// thread: 16, 32 for the rows kernel's wide teams, 10 for the decimal lengths) inside a caller's
// kernel, with the caller's prologue (what to load for element i: convert, window, zero-pad) and
// epilogue (what to do with output k: scale, |X|², dB, multiply by a filter spectrum,
// accumulate) compiled into the same kernel. Nothing of the transform goes
// through global memory: the input arrives in registers from the prologue, the stages exchange
// through shared memory, the outputs leave in registers to the epilogue.
//
// The stages are the planner's: radix_list(kN) (16s, then 8 or 4; c2r: rows_radix_list; decimal
// teams: decimal_radix_list), the Stockham index maps and the per-stage twiddle table of
// fft_pass.hpp (stage_twiddle_table on the host), so the arithmetic is the one the CPU tests check
// stage by stage; with kDerivedTwiddles (rows_derive_twiddles, four_step_derive_twiddles) the
// later stages read only the twiddles of inputs 1, 2, 4, 8 and form the others as products
// (stage_compute's kDerivedTwiddles, held to the table's twiddles by the host tests). Shared memory holds the
// team's transform as two float planes with a pad word every 32 elements (no bank conflicts on
// the power-of-two strides). A real transform of length 2·kN runs as the complex transform of the
// kN pairs (x[2i], x[2i+1]) with the r2c post-processing fused after the last stage.
//
// Use (every thread of the CTA, teams side by side, all of the same kN, since the stages
// synchronise the whole CTA):
//   TeamFft<kN> fft;
//   fft.load(lane, [&](int i) { return element i; });          // prologue, into registers
//   fft.for_each_input(lane, [&](int i, Cf& x) { ... });       // optional, e.g. detrend
//   fft.run(planes, stage_twiddles, lane, [&](int slot, int k, Cf X) { ... });      // complex
//   fft.run_real(planes, stage_twiddles, real_twiddles, lane, [&](int slot, int k, Cf X) {...});
// or run_into / run_real_into, which leave the outputs in an array for the caller's own
// unrolled epilogue (run_remapped / run_remapped_into: another thread map after the first
// stage). `slot` numbers the thread's outputs (0..kOutputs-1, kRealOutputs with the
// extra X[kN] of real transforms); the same slot always carries the same k, so epilogues may
// keep per-slot state in registers across transforms (running averages; index such state with
// constants only: an array that a functor captures and indexes ends up in local memory).
// output_index(lane, slot) gives k, real_output_index(lane, slot) for real transforms.
//
// Real transforms whose last two stages are of radix 8 or less and whose last gives each thread
// an even count of butterflies (butterflies_pair_up; kPairedReal) take the last stage's
// butterflies in partner pairs j, kN/R - j: the thread then holds Z[k] and Z[kN-k] for each of
// its outputs and forms X[k] in registers, with no further exchange through shared memory.
//
// The inverse real transform (TeamFft<kN, true>, c2r of length 2·kN) loads X[0..kN] and forms the
// half-length transform's input Z[k] from X[k] and X[kN-k] (load_real_inverse). Its stages run in
// rows_radix_list's order (a last radix of 8 or less moved first, 256 as 4x8x8), and where that
// gives each thread an even count of first-stage butterflies (kPairedFirst) they pair up as the
// r2c's last stage does, so each thread reads X[k] and X[kN-k] for its inputs once, and one twiddle
// for both (w^(kN-k) = -conj(w^k)); otherwise each thread reads both X for each of its inputs
// (every X twice). The caller's stage twiddle table must be of the same order.
#pragma once

#include "fft/cuda/fft_pass.hpp"

namespace prism::fft::gpu {

// One team's planes in shared memory.
struct TeamPlanes {
  float* re;
  float* im;
  __device__ __forceinline__ Cf read(int i) const {
    const int a = smem_pad(i);
    return Cf{re[a], im[a]};
  }
  __device__ __forceinline__ void write(int i, Cf v) const {
    const int a = smem_pad(i);
    re[a] = v.re;
    im[a] = v.im;
  }
  // Slot a, unpadded: the real transforms' exchange with a partner (four_step_real_slot).
  __device__ __forceinline__ Cf read_slot(int a) const { return Cf{re[a], im[a]}; }
  __device__ __forceinline__ void write_slot(int a, Cf v) const {
    re[a] = v.re;
    im[a] = v.im;
  }
};

// w_n^(h-k) of a real transform of length n = 2h from w_n^k: -conj(w_n^k), exactly. (The r2c's
// paired last stage loads both: deriving one kept more values live and its kernels spilled
// 100-120 bytes per thread at half lengths 8192 and 16384, ptxas -v.)
__host__ __device__ __forceinline__ Cf mirror_twiddle(Cf w) { return Cf{-w.re, w.im}; }

template <int kN, bool kRealInverse = false, int kE = rows_team_elements(kN), bool kDerivedTwiddles = false>
struct TeamFft {
  static_assert(has_rows_kernel(kN) || has_decimal_rows_kernel(kN),
                "team FFTs are of the rows kernel's lengths (has_rows_kernel, has_decimal_rows_kernel)");
  static_assert(kE == rows_team_elements(kN) || (is_power_of_two(kN) && kE == kWideTeamElements),
                "team FFTs take rows_team_elements(kN) elements per thread, or kWideTeamElements");
  static constexpr RadixList kRadices =
      rows_radix_list(kRealInverse ? RowsKind::real_inverse : RowsKind::forward, kN, kE);
  static_assert(every_radix_divides(kRadices, kE), "each thread takes whole butterflies of every stage");
  static constexpr int kStages = kRadices.count;
  static constexpr int kThreads = team_threads(kN, kE);  // threads per team
  static constexpr int kFirstRadix = kRadices.radix[0];
  static constexpr int kLastRadix = kRadices.radix[kStages - 1];
  static constexpr int kOutputs = kE;                // outputs per thread, complex transform
  static constexpr int kRealOutputs = kOutputs + 1;  // real transform: X[kN] on lane 0 too
  // Floats of one plane (odd, so that teams side by side fall in different banks).
  static constexpr int kPlaneFloats = team_plane_floats(kN);
  static constexpr int kSharedFloats = 2 * kPlaneFloats;
  static constexpr int kLastButterflies = kN / kLastRadix;
  static constexpr int kLastPerThread = kE / kLastRadix;
  // Measured on the H200 (bench/RESULTS.md "Rows kernel: r2c's post-processing in registers"):
  // faster where the last two stages are of radix 8 or less (half lengths 512, 8192, 16384: 10-19
  // %), slower where a radix-16 stage precedes the last (128: +11 %, 2048: +5 %), so only the
  // former pair.
  static constexpr bool kPairedReal = butterflies_pair_up(kLastPerThread) && kRadices.radix[kStages - 2] <= 8;
  static constexpr int kFirstButterflies = kN / kFirstRadix;
  static constexpr int kFirstPerThread = kE / kFirstRadix;
  static constexpr bool kPairedFirst = kRealInverse && butterflies_pair_up(kFirstPerThread);

  static __device__ __forceinline__ TeamPlanes planes(float* shared, int team) {
    float* base = shared + team * kSharedFloats;
    return TeamPlanes{base, base + kPlaneFloats};
  }

  // The last stage's butterfly that group q (< kLastPerThread) of thread `lane` computes: lane +
  // q * kThreads, or for the second half of a real transform's pairs the partner kN/R - j of the
  // first half's j (j = 0 pairs with kN/(2R): both are their own partners).
  static __host__ __device__ __forceinline__ constexpr int last_butterfly(int lane, int q, bool real) {
    return paired_butterfly(lane, q, kThreads, kLastPerThread, kLastButterflies,
                            real && kPairedReal);
  }
  // The first stage's butterfly of group q of thread `lane` (paired for c2r, kPairedFirst).
  static __host__ __device__ __forceinline__ constexpr int first_butterfly(int lane, int q) {
    return paired_butterfly(lane, q, kThreads, kFirstPerThread, kFirstButterflies, kPairedFirst);
  }

  // Output index k carried by `slot` of thread `lane` (the last stage's map with ns = kN/R).
  static __host__ __device__ __forceinline__ constexpr int output_index(int lane, int slot) {
    if (slot == kOutputs) return kN;
    const int q = slot / kLastRadix;
    const int r = slot - q * kLastRadix;
    return last_butterfly(lane, q, false) + r * kLastButterflies;
  }
  static __host__ __device__ __forceinline__ constexpr int real_output_index(int lane, int slot) {
    if (slot == kOutputs) return kN;
    const int q = slot / kLastRadix;
    const int r = slot - q * kLastRadix;
    return last_butterfly(lane, q, true) + r * kLastButterflies;
  }

  Cf v[kE / kFirstRadix][kFirstRadix];  // the first stage's inputs

  template <class Load>
  __device__ __forceinline__ void load(int lane, Load&& element) {
    for_each_input(lane, [&](int i, Cf& x) { x = element(i); });
  }

  template <class Visit>
  __device__ __forceinline__ void for_each_input(int lane, Visit&& visit) {
#pragma unroll
    for (int q = 0; q < kFirstPerThread; ++q) {
      const int j = first_butterfly(lane, q);
#pragma unroll
      for (int r = 0; r < kFirstRadix; ++r) visit(j + r * kFirstButterflies, v[q][r]);
    }
  }

  // c2r of length 2·kN: Z[i] = conj(c2r_pre_value(X[i], X[kN-i], w^i)) for the thread's inputs i
  // (the imaginary parts of X[0] and X[kN] ignored), X[i] from x(i) for i = 0..kN.
  template <class LoadX>
  __device__ __forceinline__ void load_real_inverse(int lane, LoadX&& x, const Cf* real_twiddles) {
    static_assert(kRealInverse, "load_real_inverse: a TeamFft<kN, true>");
    const auto pre_w = [&](Cf x_k, Cf x_hk, int k, Cf w) {
      if (k == 0) {
        x_k.im = 0.0f;
        x_hk.im = 0.0f;
      }
      return conj(c2r_pre_value(x_k, x_hk, w));
    };
    if constexpr (kPairedFirst) {
      // Group q's butterfly j and group q + H's partner kN/R - j: element r of one mirrors
      // element R - 1 - r of the other; butterflies 0 and kN/(2R) (lane 0, q = 0) mirror
      // themselves, element r with R - r, and X[0] with X[kN].
      constexpr int R = kFirstRadix;
      constexpr int H = kFirstPerThread / 2;
      load(lane, x);
      const Cf x_last = lane == 0 ? x(kN) : Cf{0.0f, 0.0f};
#pragma unroll
      for (int q = 0; q < H; ++q) {
        const bool zero = q == 0 && lane == 0;
        const int j = first_butterfly(lane, q);
        const int j2 = first_butterfly(lane, q + H);
        const Cf w_even = load_table(real_twiddles, j);
        const Cf w_odd = load_table(real_twiddles, j + kFirstButterflies);
        Cf a[R];
        Cf b[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          a[r] = v[q][r];
          b[r] = v[q + H][r];
        }
        // Element r of group q and element R - 1 - r of group q + H together: their k are
        // mirrors (but on lane 0), so one twiddle load serves both.
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int k = j + r * kFirstButterflies;
          const int k2 = j2 + (R - 1 - r) * kFirstButterflies;
          const Cf w = real_butterfly_twiddle_of<R>(w_even, w_odd, r);
          const Cf w2 = zero ? load_table(real_twiddles, k2) : mirror_twiddle(w);
          const Cf partner = zero ? (r == 0 ? x_last : a[(R - r) % R]) : b[R - 1 - r];
          const Cf partner2 = zero ? b[r] : a[r];
          v[q][r] = pre_w(a[r], partner, k, w);
          v[q + H][R - 1 - r] = pre_w(b[R - 1 - r], partner2, k2, w2);
        }
      }
    } else {
      // One twiddle read per input: with two per butterfly (real_butterfly_twiddle_of) c2r 32768 and 2000
      // ran 3.5-5.1 % slower on the H200 (bench/RESULTS.md "Rows kernel: real exchanges at unpadded
      // slots").
      for_each_input(lane, [&](int i, Cf& z) { z = pre_w(x(i), x(kN - i), i, load_table(real_twiddles, i)); });
    }
  }

  // The outputs of slot 0..kOutputs-1 into `out` (registers, when the caller indexes it with
  // constants, e.g. in an unrolled loop).
  __device__ __forceinline__ void run_into(TeamPlanes s, const Cf* twiddles, int lane, Cf (&out)[kOutputs]) {
    run_remapped_into(s, lane, s, twiddles, lane, out);
  }

  // The same where the block's threads take other teams and lanes after the first stage (each
  // map covering every team and lane of the block once): the inputs were loaded as lane
  // `first_lane` of the team of `first`, the outputs are those of lane `lane` of the team of
  // `s`. A four-step row pass reads rows with neighbouring threads on neighbouring elements and
  // stores columns with neighbouring threads on neighbouring rows.
  __device__ __forceinline__ void run_remapped_into(TeamPlanes first, int first_lane, TeamPlanes s,
                                                    const Cf* twiddles, int lane, Cf (&out)[kOutputs]) {
    constexpr int R = kLastRadix;
    Cf z[kE / R][R];
    stages<false>(first, first_lane, s, twiddles, lane, z);
#pragma unroll
    for (int q = 0; q < kE / R; ++q) {
#pragma unroll
      for (int r = 0; r < R; ++r) out[q * R + r] = z[q][r];
    }
  }

  // Real input of length 2·kN (loaded as pairs): X[k], k = 0..kN, into `out` (slot kOutputs,
  // X[kN], on lane 0 only).
  __device__ __forceinline__ void run_real_into(TeamPlanes s, const Cf* twiddles, const Cf* real_twiddles,
                                                int lane, Cf (&out)[kRealOutputs]) {
    constexpr int R = kLastRadix;
    Cf z[kE / R][R];
    stages<kPairedReal>(s, lane, s, twiddles, lane, z);
    if constexpr (kPairedReal) {
      // Z[k] of group q's butterfly j and Z[kN-k] of its partner's, both in registers.
      constexpr int H = kLastPerThread / 2;
#pragma unroll
      for (int q = 0; q < H; ++q) {
        const bool zero = q == 0 && lane == 0;  // butterflies 0 and kN/(2R): their own partners
        const int j = last_butterfly(lane, q, true);
        const int j2 = last_butterfly(lane, q + H, true);
        const Cf w_even = load_table(real_twiddles, j);
        const Cf w_odd = load_table(real_twiddles, j + kLastButterflies);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const Cf partner = zero ? z[q][(R - r) % R] : z[q + H][R - 1 - r];
          out[q * R + r] = r2c_post_value(z[q][r], partner, real_butterfly_twiddle_of<R>(w_even, w_odd, r));
        }
        const Cf w2_even = load_table(real_twiddles, j2);
        const Cf w2_odd = load_table(real_twiddles, j2 + kLastButterflies);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const Cf partner = zero ? z[q + H][R - 1 - r] : z[q][R - 1 - r];
          out[(q + H) * R + r] = r2c_post_value(z[q + H][r], partner, real_butterfly_twiddle_of<R>(w2_even, w2_odd, r));
        }
      }
      out[kOutputs] = r2c_post_value(z[0][0], z[0][0], load_table(real_twiddles, kN));
      return;
    }
    __syncthreads();  // every thread has read the planes of the last stage
    if constexpr (is_power_of_two(R)) {
      // Z through the planes unpadded (a team's neighbouring lanes write and read neighbouring
      // elements), so that a thread's addresses are its butterfly's plus constants, and two real
      // twiddles per butterfly (real_butterfly_twiddle_of). On the H200 r2c 2048-8192 ran 1.7-7.8 % faster so;
      // the decimal teams keep the padded planes (r2c 1000, a last radix of 5, ran 1.9-3.9 %
      // slower unpadded; bench/RESULTS.md "Rows kernel: real exchanges at unpadded slots").
#pragma unroll
      for (int q = 0; q < kE / R; ++q) {
        const int j = last_butterfly(lane, q, true);
#pragma unroll
        for (int r = 0; r < R; ++r) s.write_slot(j + r * kLastButterflies, z[q][r]);
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kE / R; ++q) {
        const int j = last_butterfly(lane, q, true);
        const Cf w_even = load_table(real_twiddles, j);
        const Cf w_odd = load_table(real_twiddles, j + kLastButterflies);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int a = kN - j - r * kLastButterflies;
          // Z[0] pairs with itself. (Spelled out: read_slot under this condition compiles to
          // another schedule than the one measured.)
          const Cf partner = r == 0 && j == 0 ? z[q][0] : Cf{s.re[a], s.im[a]};
          out[q * R + r] = r2c_post_value(z[q][r], partner, real_butterfly_twiddle_of<R>(w_even, w_odd, r));
        }
      }
    } else {
#pragma unroll
      for (int q = 0; q < kE / R; ++q) {
#pragma unroll
        for (int r = 0; r < R; ++r) s.write(real_output_index(lane, q * R + r), z[q][r]);
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kE / R; ++q) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int k = real_output_index(lane, q * R + r);
          const Cf partner = s.read(k == 0 ? 0 : kN - k);
          out[q * R + r] = r2c_post_value(z[q][r], partner, load_table(real_twiddles, k));
        }
      }
    }
    out[kOutputs] = r2c_post_value(z[0][0], z[0][0], load_table(real_twiddles, kN));
  }

  // The same with an epilogue functor store(slot, k, X) called for each output.
  template <class Store>
  __device__ __forceinline__ void run(TeamPlanes s, const Cf* twiddles, int lane, Store&& store) {
    Cf out[kOutputs];
    run_into(s, twiddles, lane, out);
#pragma unroll
    for (int slot = 0; slot < kOutputs; ++slot) store(slot, output_index(lane, slot), out[slot]);
  }

  template <class Store>
  __device__ __forceinline__ void run_remapped(TeamPlanes first, int first_lane, TeamPlanes s,
                                               const Cf* twiddles, int lane, Store&& store) {
    Cf out[kOutputs];
    run_remapped_into(first, first_lane, s, twiddles, lane, out);
#pragma unroll
    for (int slot = 0; slot < kOutputs; ++slot) store(slot, output_index(lane, slot), out[slot]);
  }

  template <class Store>
  __device__ __forceinline__ void run_real(TeamPlanes s, const Cf* twiddles, const Cf* real_twiddles,
                                           int lane, Store&& store) {
    Cf out[kRealOutputs];
    run_real_into(s, twiddles, real_twiddles, lane, out);
#pragma unroll
    for (int slot = 0; slot < kOutputs; ++slot) store(slot, real_output_index(lane, slot), out[slot]);
    if (lane == 0) store(kOutputs, kN, out[kOutputs]);
  }

 private:
  // First stage from the registers (ns = 1: no twiddles; lane `first_lane` of the team of
  // `first`), middle stages through shared memory, the last stage's outputs left in `out`
  // (kPairLast: its butterflies in real-transform pairs).
  template <bool kPairLast, int R>
  __device__ __forceinline__ void stages(TeamPlanes first, int first_lane, TeamPlanes s,
                                         const Cf* twiddles, int lane,
                                         Cf (&out)[kE / R][R]) {
    constexpr int P = kE / kFirstRadix;
#pragma unroll
    for (int q = 0; q < P; ++q) Butterfly<kFirstRadix>::run(v[q]);
    __syncthreads();  // the planes' previous use (an earlier transform) is over
#pragma unroll
    for (int q = 0; q < P; ++q) {
      const int j = first_butterfly(first_lane, q);
#pragma unroll
      for (int r = 0; r < kFirstRadix; ++r) first.write(j * kFirstRadix + r, v[q][r]);
    }
    __syncthreads();
    later_stages<kPairLast, 1, kFirstRadix>(s, twiddles, lane, out);
  }

  template <bool kPairLast, int kStage, int kNs, int RL>
  __device__ __forceinline__ void later_stages(TeamPlanes s, const Cf* twiddles, int lane,
                                               Cf (&out)[kE / RL][RL]) {
    constexpr int R = kRadices.radix[kStage];
    constexpr int P = kE / R;
    constexpr StageDesc kStageDesc{R, kNs, stage_twiddle_offset(kRadices.radix, kStage)};
    if constexpr (kStage == kStages - 1) {
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const int j = last_butterfly(lane, q, kPairLast);
        stage_compute<R, kDerivedTwiddles>(kStageDesc, kN, j, twiddles, [&](int i) { return s.read(i); }, out[q]);
      }
    } else {
      Cf w[P][R];
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const int j = lane + q * kThreads;
        stage_compute<R, kDerivedTwiddles>(kStageDesc, kN, j, twiddles, [&](int i) { return s.read(i); }, w[q]);
      }
      __syncthreads();
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const int j = lane + q * kThreads;
        stage_store<R>(kStageDesc, j, w[q], [&](int i, Cf x) { s.write(i, x); });
      }
      __syncthreads();
      later_stages<kPairLast, kStage + 1, kNs * R>(s, twiddles, lane, out);
    }
  }
};

// Sum over a team of T threads (T a power of two; teams of fewer than 32 threads share a warp,
// larger teams are whole warps), in a fixed order so that the result does not vary from run to
// run. Every thread of the CTA calls it; scratch holds one double per warp of the CTA.
template <int T>
__device__ __forceinline__ double team_sum(double value, double* scratch) {
  if constexpr (T <= 32) {
#pragma unroll
    for (int o = T / 2; o > 0; o >>= 1) value += __shfl_xor_sync(0xffffffffu, value, o);
    return value;
  } else {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) value += __shfl_xor_sync(0xffffffffu, value, o);
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    __syncthreads();  // scratch may still be read by a previous call
    if ((threadIdx.x & 31) == 0) scratch[warp] = value;
    __syncthreads();
    constexpr int kWarps = T / 32;
    const int first = warp / kWarps * kWarps;
    double total = 0.0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += scratch[first + w];
    return total;
  }
}

}  // namespace prism::fft::gpu
