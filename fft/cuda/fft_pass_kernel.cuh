// The pass kernel of our CUDA FFT: one launch runs one PassDesc (fft_pass.hpp) — Stockham
// stages in shared memory, fused loads / stores / Bluestein convolution / real-FFT steps.
// Included by the translation units that compile its variants (fft_kernel_part.cuh,
// cuda_backend.cu); fft_pass_kernels.hpp lists them for the host.
//
// Sections: shared-memory planes · stages · loads and stores · the pass kernels.
//
// Shared memory holds each transform of a block as two float planes (real, imaginary): a stage
// exchange moves 4-byte words, so a warp reading 32 consecutive elements touches 32 banks once,
// and the planes take half the bank traffic of interleaved pairs. Element i of transform b is at
// b * smem_stride + smem_pad(i): the pad word every 32 elements breaks the power-of-two strides
// of the stage writes, the odd stride separates transforms for the strided loads of four-step
// column passes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "fft/cuda/fft_pass.hpp"

namespace prism::fft::gpu {
// ---- shared-memory planes --------------------------------------------------------------------

struct SharedPlanes {
  float* re;
  float* im;
  int stride;
  __device__ Cf read(int b, int i) const {
    const int a = b * stride + smem_pad(i);
    return Cf{re[a], im[a]};
  }
  __device__ void write(int b, int i, Cf v) const {
    const int a = b * stride + smem_pad(i);
    re[a] = v.re;
    im[a] = v.im;
  }
};

// ---- stages ----------------------------------------------------------------------------------
// Each thread takes about 16/R butterflies of the block's nb*n/R (compiled_butterflies_per_thread
// in fixed_stage, ceil(16/R) in device_stage): all inputs are read into registers before the
// barrier, all outputs written after it, so one plane set suffices.
// Two forms: fixed_stage has n, the radix and ns as compile-time constants (the divisions become
// shifts, the twiddle indices one multiply), used for the lengths of kCompiledLengths; device_stage
// takes them at run time for every other length.

// Where the stages of fixed_stages start and end. rows: the DirectIo rows or columns below;
// plain_rows: its rows of stride 1, conjugated in and out for inverse transforms (kInverse),
// nothing else to decide at run time (fft_plain_rows_kernel).
// elements: load_element / store_element of the pass (any load and store kind, the chirp, zero
// padding and the dropped tail of Bluestein; src, dst and outer of the DirectIo). shared_conv
// (end only): the Bluestein spectrum multiply and conjugation fused into the shared-memory
// writes of the last stage. held (end only) leaves the last stage's outputs in the caller's
// registers, and held_conv (start only) takes them as the first stage's inputs, times the
// Bluestein spectrum and conjugated: a block of one transform whose every stage gives each
// thread E elements (bluestein_held_elements), so that element q + (E / R) r of the thread's
// array is input or output r of its butterfly group q in a stage of radix R.
enum class StageIn { shared, rows, plain_rows, c2r_rows, elements, held_conv };
// r2c_rows, r2c_plain_rows (end only): the last stage of a half-length r2c over rows, to shared
// memory, then the real post-processing from there to the rows (through store_value; plain:
// nothing else, fft_plain_rows_kernel).
enum class StageOut { shared, shared_conv, held, rows, plain_rows, elements, r2c_rows, r2c_plain_rows };

// Global memory that the first stage reads directly and the last stage writes directly, with
// no separate load / store phase and their two shared-memory round trips. Element i of
// transform b is at in + b * in_dist + i * in_stride (out likewise). Plain rows (stride 1):
// butterfly j touches elements j + r*n/R, and in the last stage (ns = n/R) its outputs are the
// same elements, so neighbouring threads take neighbouring butterflies of one transform.
// Columns (dist 1, the four-step passes): neighbouring threads take the same butterfly of
// neighbouring transforms, which sit side by side in memory. Stores go through store_value, so
// the four-step twiddle and the conjugations of inverse transforms are fused in.
struct DirectIo {
  const Cf* in = nullptr;
  Cf* out = nullptr;
  const void* src = nullptr;  // elements
  void* dst = nullptr;        // elements
  long long outer = 0;        // elements
  long long in_dist = 0;
  long long in_stride = 1;
  long long out_dist = 0;
  long long out_stride = 1;
  bool in_columns = false;
  bool out_columns = false;
  bool conj_in = false;
  long long inner0 = 0;
  const PassDesc* pass = nullptr;
};

template <int kPerTransform>
__device__ __forceinline__ void butterfly_of(int idx, int nb, bool columns, int& b, int& j) {
  if (columns) {
    j = idx / nb;
    b = idx - j * nb;
  } else {
    b = idx / kPerTransform;
    j = idx - b * kPerTransform;
  }
}

// r2c_rows and r2c_plain_rows (last stage of a half-length r2c pass): after the exchange, each
// thread turns its own outputs Z[j + r*kNs], still in registers, into X[k] of the real-input
// spectrum with the partner Z[kN - k] read from shared memory, and stores them to global memory
// (X[kN] too, by the thread of j = 0): one shared read per output and no separate store phase.
// kPermuted: elements loads may be Rader's gather (PassDesc::load_permuted); only the Bluestein
// kernel's first column variant takes it.
template <int kN, int R, int kNs, int kTwiddleOffset, StageIn kIn, StageOut kOut,
          bool kInverse = false, bool kPermuted = false, bool kFirstUse = false>
__device__ __forceinline__ void fixed_stage(const Cf* twiddles, SharedPlanes s, int nb,
                                            const DirectIo& io, Cf* held) {
  constexpr int kPerThread = compiled_butterflies_per_thread(R, kN);
  constexpr int kPerTransform = kN / R;
  constexpr StageDesc kStage{R, kNs, kTwiddleOffset};
  constexpr bool kToGlobal =
      kOut == StageOut::rows || kOut == StageOut::plain_rows || kOut == StageOut::elements;
  constexpr bool kRealPost = kOut == StageOut::r2c_rows || kOut == StageOut::r2c_plain_rows;
  // No barrier around a stage that writes no shared memory, nor before the first writes of a
  // block's only transform (kFirstUse).
  constexpr bool kWritesShared = !kToGlobal && kOut != StageOut::held;
  static_assert(kIn != StageIn::held_conv || kNs == 1, "held inputs go to the first stage");
  static_assert(kOut != StageOut::held || kNs * R == kN, "held outputs come from the last stage");
  const int total = nb * kPerTransform;
  // One thread-to-butterfly mapping for the reads and the writes of this stage (the values in
  // v[q] belong to it); column order where this stage touches global columns.
  const bool columns =
      ((kIn == StageIn::rows || kIn == StageIn::elements) && io.in_columns) ||
      ((kOut == StageOut::rows || kOut == StageOut::elements) && io.out_columns);
  Cf v[kPerThread][R];
#pragma unroll
  for (int q = 0; q < kPerThread; ++q) {
    const int idx = static_cast<int>(threadIdx.x) + q * static_cast<int>(blockDim.x);
    if (idx < total) {
      int b;
      int j;
      butterfly_of<kPerTransform>(idx, nb, columns, b, j);
      if constexpr (kIn == StageIn::rows) {
        const Cf* row = io.in + b * io.in_dist;
        const long long stride = io.in_stride;
        stage_compute<R>(kStage, kN, j, twiddles,
                         [&](int i) {
                           const Cf x = row[i * stride];
                           return io.conj_in ? conj(x) : x;
                         },
                         v[q]);
      } else if constexpr (kIn == StageIn::plain_rows) {
        const Cf* row = io.in + b * io.in_dist;
        stage_compute<R>(kStage, kN, j, twiddles,
                         [&](int i) {
                           const Cf x = row[i];
                           return kInverse ? conj(x) : x;
                         },
                         v[q]);
      } else if constexpr (kIn == StageIn::c2r_rows) {
        // Plain rows of the n + 1 values of X; the input of a half-length c2r from X[i] and
        // X[n - i].
        const Cf* row = io.in + b * io.in_dist;
        const Cf* real_tw = io.pass->real_tw;
        stage_compute<R>(kStage, kN, j, twiddles,
                         [&](int i) { return c2r_pre_of_row(row, kN, i, real_tw); }, v[q]);
      } else if constexpr (kIn == StageIn::elements) {
        const long long inner = io.inner0 + b;
        stage_compute<R>(kStage, kN, j, twiddles,
                         [&](int i) { return load_element<kPermuted>(*io.pass, io.src, io.outer, inner, i); },
                         v[q]);
      } else if constexpr (kIn == StageIn::held_conv) {
        // Input r of butterfly j is element j + r n/R. (Multiplied here rather than in the
        // last stage before, which kept more values live: 576 bytes of spills at 8192 against
        // 464, ptxas -v.)
        const Cf* conv = io.pass->conv + io.inner0 * io.pass->conv_inner_dist;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          v[q][r] = conj(cmul(held[q + kPerThread * r], load_table(conv, j + r * kPerTransform)));
        }
        Butterfly<R>::run(v[q]);  // ns = 1: no twiddles
      } else {
        stage_compute<R>(kStage, kN, j, twiddles, [&](int i) { return s.read(b, i); }, v[q]);
      }
    }
  }
  if constexpr (kWritesShared && !kFirstUse) __syncthreads();
#pragma unroll
  for (int q = 0; q < kPerThread; ++q) {
    const int idx = static_cast<int>(threadIdx.x) + q * static_cast<int>(blockDim.x);
    if (idx < total) {
      int b;
      int j;
      butterfly_of<kPerTransform>(idx, nb, columns, b, j);
      if constexpr (kOut == StageOut::rows) {
        Cf* row = io.out + b * io.out_dist;
        const long long stride = io.out_stride;
        const long long inner = io.inner0 + b;
        stage_store<R>(kStage, j, v[q], [&](int i, Cf x) {
          row[i * stride] = store_value<may_split_twiddles(kN)>(*io.pass, inner, i, x);
        });
      } else if constexpr (kOut == StageOut::plain_rows) {
        Cf* row = io.out + b * io.out_dist;
        stage_store<R>(kStage, j, v[q], [&](int i, Cf x) { row[i] = kInverse ? conj(x) : x; });
      } else if constexpr (kOut == StageOut::elements) {
        const long long inner = io.inner0 + b;
        stage_store<R>(kStage, j, v[q], [&](int i, Cf x) {
          store_element<may_split_twiddles(kN)>(*io.pass, io.dst, io.outer, inner, i, x);
        });
      } else if constexpr (kOut == StageOut::shared_conv) {
        const Cf* conv = io.pass->conv + (io.inner0 + b) * io.pass->conv_inner_dist;
        stage_store<R>(kStage, j, v[q], [&](int i, Cf x) {
          s.write(b, i, conj(cmul(x, load_table(conv, i))));
        });
      } else if constexpr (kOut == StageOut::held) {
#pragma unroll
        for (int r = 0; r < R; ++r) held[q + kPerThread * r] = v[q][r];  // element j + r n/R
      } else {
        stage_store<R>(kStage, j, v[q], [&](int i, Cf x) { s.write(b, i, x); });
      }
    }
  }
  if constexpr (kWritesShared) __syncthreads();
  if constexpr (kRealPost) {
    static_assert(!kToGlobal && kNs * R == kN, "the real post-processing follows the last stage");
    const Cf* real_tw = io.pass->real_tw;
#pragma unroll
    for (int q = 0; q < kPerThread; ++q) {
      const int idx = static_cast<int>(threadIdx.x) + q * static_cast<int>(blockDim.x);
      if (idx < total) {
        const int b = idx / kPerTransform;
        const int j = idx - b * kPerTransform;
        Cf* row = io.out + b * io.out_dist;
        const long long inner = io.inner0 + b;
        const auto store = [&](int k, Cf x) {
          if constexpr (kOut == StageOut::r2c_plain_rows) {
            row[k] = x;
          } else {
            row[k] = store_value<may_split_twiddles(kN)>(*io.pass, inner, k, x);
          }
        };
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int k = j + r * kNs;
          const Cf partner = s.read(b, k == 0 ? 0 : kN - k);
          store(k, r2c_post_value(v[q][r], partner, load_table(real_tw, k)));
        }
        if (j == 0) store(kN, r2c_post_value(v[q][0], v[q][0], load_table(real_tw, kN)));
      }
    }
  }
}

// The stages of the compiled length kN: the first reads from kIn, the last writes to kOut, the
// others go through shared memory. kFirstUse: the block's shared memory holds nothing before.
template <int kN, int kStage, int kNs, StageIn kIn, StageOut kOut, bool kInverse = false,
          bool kPermuted = false, bool kFirstUse = false>
__device__ __forceinline__ void fixed_stages(const Cf* twiddles, SharedPlanes s, int nb,
                                             const DirectIo& io, Cf* held = nullptr) {
  constexpr RadixList kRadices = radix_list(kN);
  if constexpr (kStage < kRadices.count) {
    constexpr int R = kRadices.radix[kStage];
    constexpr bool kLast = kStage == kRadices.count - 1;
    fixed_stage<kN, R, kNs, stage_twiddle_offset(kRadices.radix, kStage),
                kStage == 0 ? kIn : StageIn::shared, kLast ? kOut : StageOut::shared, kInverse, kPermuted,
                kFirstUse && kStage == 0>(twiddles, s, nb, io, held);
    fixed_stages<kN, kStage + 1, kNs * R, kIn, kOut, kInverse, kPermuted, kFirstUse>(twiddles, s, nb, io, held);
  }
}

template <int R>
__device__ __noinline__ void device_stage(const StageDesc st, int n, const Cf* twiddles,
                                          SharedPlanes s, int nb) {
  constexpr int kPerThread = (kElementsPerThread + R - 1) / R;
  const int per_transform = n / R;
  const int total = nb * per_transform;
  const RuntimeDivisor by_transform(per_transform);
  const RuntimeDivisor by_ns(st.ns);
  Cf v[kPerThread][R];
#pragma unroll
  for (int q = 0; q < kPerThread; ++q) {
    const int idx = static_cast<int>(threadIdx.x) + q * static_cast<int>(blockDim.x);
    if (idx < total) {
      const int b = by_transform.quotient(idx);
      const int j = idx - b * per_transform;
      stage_compute_at<R>(st, per_transform, j, by_ns.remainder(j), twiddles,
                          [&](int i) { return s.read(b, i); }, v[q]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < kPerThread; ++q) {
    const int idx = static_cast<int>(threadIdx.x) + q * static_cast<int>(blockDim.x);
    if (idx < total) {
      const int b = by_transform.quotient(idx);
      const int j = idx - b * per_transform;
      stage_store_at<R>(st, j, by_ns.remainder(j), v[q], [&](int i, Cf x) { s.write(b, i, x); });
    }
  }
  __syncthreads();
}

// A prime stage (prime_stage_item): the twiddles applied in place, a barrier, each thread's items
// computed from shared memory and held, a barrier, their outputs written. An item's group is
// the slowest index, so the lanes of a warp mostly read the same roots.
static __device__ __noinline__ void device_prime_stage(const StageDesc st, int n,
                                                       const Cf* twiddles, SharedPlanes s, int nb) {
  const int p = st.radix;
  const int n_over_radix = n / p;
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  if (st.ns > 1) {
    // The items below divide: RuntimeDivisors held through them made the stage spill more
    // (ptxas -v).
    const RuntimeDivisor by_length(n);
    const RuntimeDivisor by_n_over_radix(n_over_radix);
    const RuntimeDivisor by_ns(st.ns);
    for (int e = tid; e < nb * n; e += threads) {
      const int b = by_length.quotient(e);
      const int i = e - b * n;
      if (i >= n_over_radix) {
        const int tw = prime_stage_twiddle_index(st, by_n_over_radix, by_ns, i);
        s.write(b, i, cmul(s.read(b, i), load_table(twiddles, tw)));
      }
    }
    __syncthreads();
  }
  const Cf* roots = twiddles + stage_roots_offset(st);
  const int butterflies = nb * n_over_radix;
  const int items = butterflies * prime_stage_groups(p);
  // Item q of this thread: group g of butterfly j of transform b.
  const auto item_of = [&](int item, int& g, int& b, int& j) {
    g = item / butterflies;
    const int rest = item - g * butterflies;
    b = rest / n_over_radix;
    j = rest - b * n_over_radix;
  };
  Cf out[kPrimeItemsPerThread][kPrimeItemOutputs];
#pragma unroll
  for (int q = 0; q < kPrimeItemsPerThread; ++q) {
    int g;
    int b;
    int j;
    if (tid + q * threads < items) {
      item_of(tid + q * threads, g, b, j);
      prime_stage_item(p, g, [&](int r) { return s.read(b, j + r * n_over_radix); }, roots, out[q]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < kPrimeItemsPerThread; ++q) {
    int g;
    int b;
    int j;
    if (tid + q * threads < items) {
      item_of(tid + q * threads, g, b, j);
      prime_stage_store(st, j, j % st.ns, g, out[q], [&](int i, Cf x) { s.write(b, i, x); });
    }
  }
  __syncthreads();
}

// The run-time stage loop. Each radix is its own (not inlined) function: inlined into one loop,
// the nine butterflies made the register allocator spill across all of them.
// kPowerOfTwoOnly: compiles only the radices 16/8/4/2 (a smaller kernel for those lengths).
template <bool kPowerOfTwoOnly>
__device__ void device_stages(const PassDesc& p, SharedPlanes s, int nb) {
  for (int k = 0; k < p.num_stages; ++k) {
    const StageDesc st = p.stages[k];
    switch (st.radix) {
      case 16: device_stage<16>(st, p.n, p.stage_tw, s, nb); break;
      case 8: device_stage<8>(st, p.n, p.stage_tw, s, nb); break;
      case 4: device_stage<4>(st, p.n, p.stage_tw, s, nb); break;
      case 2: device_stage<2>(st, p.n, p.stage_tw, s, nb); break;
      default:
        if constexpr (!kPowerOfTwoOnly) {
          switch (st.radix) {
            case 3: device_stage<3>(st, p.n, p.stage_tw, s, nb); break;
            case 5: device_stage<5>(st, p.n, p.stage_tw, s, nb); break;
            case 7: device_stage<7>(st, p.n, p.stage_tw, s, nb); break;
            case 9: device_stage<9>(st, p.n, p.stage_tw, s, nb); break;
            case 10: device_stage<10>(st, p.n, p.stage_tw, s, nb); break;
            case 11: device_stage<11>(st, p.n, p.stage_tw, s, nb); break;
            case 13: device_stage<13>(st, p.n, p.stage_tw, s, nb); break;
            case 17: device_stage<17>(st, p.n, p.stage_tw, s, nb); break;
            case 19: device_stage<19>(st, p.n, p.stage_tw, s, nb); break;
            case 23: device_stage<23>(st, p.n, p.stage_tw, s, nb); break;
            case 29: device_stage<29>(st, p.n, p.stage_tw, s, nb); break;
            case 31: device_stage<31>(st, p.n, p.stage_tw, s, nb); break;
            default:
              if (is_prime_stage_radix(st.radix)) device_prime_stage(st, p.n, p.stage_tw, s, nb);
              break;
          }
        }
        break;
    }
  }
}

template <int kLength, bool kPowerOfTwoOnly>
__device__ __forceinline__ void run_stages(const PassDesc& p, SharedPlanes s, int nb) {
  if constexpr (kLength > 0) {
    fixed_stages<kLength, 0, 1, StageIn::shared, StageOut::shared>(p.stage_tw, s, nb, DirectIo{});
  } else {
    device_stages<kPowerOfTwoOnly>(p, s, nb);
  }
}

__device__ __forceinline__ Cf load_conjugations(const PassDesc& p, Cf v) {
  return (p.load_conj_raw != p.load_conj) ? conj(v) : v;
}

__device__ __forceinline__ bool aligned16(const void* ptr) {
  return (reinterpret_cast<std::uintptr_t>(ptr) & 15u) == 0;
}

// ---- loads and stores ------------------------------------------------------------------------
// Loads are issued kBatch at a time before any is used, so each thread has several 16-byte
// requests in flight; a loop of load-then-store would wait out the memory latency each time.

constexpr int kBatch = 8;

// Row-contiguous block data (plain batched rows): `count` float4 pairs of elements.
// kL: the row length when fixed at compile time, else 0 and `len` is used.
template <int kL>
__device__ __forceinline__ void load_contiguous(const PassDesc& p, const float4* v4, int pairs,
                                                int len, SharedPlanes s) {
  const int ln = kL > 0 ? kL : len;
  const RuntimeDivisor by_len(ln);
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (int e0 = tid; e0 < pairs; e0 += kBatch * threads) {
    float4 q[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = e0 + u * threads;
      if (e < pairs) q[u] = v4[e];
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = e0 + u * threads;
      if (e < pairs) {
        const int first = 2 * e;
        const int b0 = kL > 0 ? first / kL : by_len.quotient(first);
        const int b1 = kL > 0 ? (first + 1) / kL : by_len.quotient(first + 1);
        s.write(b0, first - b0 * ln, load_conjugations(p, Cf{q[u].x, q[u].y}));
        s.write(b1, first + 1 - b1 * ln, load_conjugations(p, Cf{q[u].z, q[u].w}));
      }
    }
  }
}

template <int kL>
__device__ __forceinline__ void store_contiguous(float4* v4, int pairs, int len, bool conj_out,
                                                 SharedPlanes s) {
  const int sn = kL > 0 ? kL : len;
  const RuntimeDivisor by_len(sn);
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (int e = tid; e < pairs; e += threads) {
    const int first = 2 * e;
    const int b0 = kL > 0 ? first / kL : by_len.quotient(first);
    const int b1 = kL > 0 ? (first + 1) / kL : by_len.quotient(first + 1);
    Cf a = s.read(b0, first - b0 * sn);
    Cf c = s.read(b1, first + 1 - b1 * sn);
    if (conj_out) {
      a = conj(a);
      c = conj(c);
    }
    v4[e] = make_float4(a.re, a.im, c.re, c.im);
  }
}

// Store, mirroring the load: 16-byte vectors for plain rows and for neighbouring columns,
// element by element (with the real-FFT post-processing and the fused multiplies) otherwise.
template <int kLength>
__device__ __forceinline__ void store_phase(const PassDesc& p, SharedPlanes s, void* dst,
                                            long long outer, long long inner0, int nb) {
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  {
    const int sn = p.store_n;
    Cf* base = static_cast<Cf*>(dst) + outer * p.out.outer_dist + inner0 * p.out.inner_dist;
    const bool simple = p.store_kind == StoreKind::complex_row && p.real_step == RealStep::none &&
                        !p.store_chirp && p.store_twiddle == StoreTwiddle::none &&
                        store_logical(p, inner0 + nb - 1, sn - 1) < p.n_keep;
    const bool conj_out = p.store_conj != p.store_conj_final;
    // Neighbouring columns may also carry the four-step twiddle (applied by store_value).
    const bool columns = p.store_kind == StoreKind::complex_row && p.real_step == RealStep::none &&
                         !p.store_chirp && store_logical(p, inner0 + nb - 1, sn - 1) < p.n_keep;
    if (simple && p.out.elem_stride == 1 && p.out.inner_dist == sn && (nb * sn) % 2 == 0 &&
        aligned16(base)) {
      float4* v4 = reinterpret_cast<float4*>(base);
      if (kLength > 0 && sn == kLength) {
        store_contiguous<kLength>(v4, nb * sn / 2, sn, conj_out, s);
      } else {
        store_contiguous<0>(v4, nb * sn / 2, sn, conj_out, s);
      }
    } else if (columns && p.out.inner_dist == 1 && p.out.elem_stride % 2 == 0 && nb % 2 == 0 &&
               aligned16(base)) {
      const int half = nb / 2;
      for (int e = tid; e < half * sn; e += threads) {
        const int k = e / half;
        const int bp = e - k * half;
        const Cf a = store_value<may_split_twiddles(kLength)>(p, inner0 + 2 * bp, k, s.read(2 * bp, k));
        const Cf c = store_value<may_split_twiddles(kLength)>(p, inner0 + 2 * bp + 1, k, s.read(2 * bp + 1, k));
        *reinterpret_cast<float4*>(base + k * p.out.elem_stride + 2 * bp) =
            make_float4(a.re, a.im, c.re, c.im);
      }
    } else {
      const bool row_major = p.out.elem_stride == 1 || p.inner_is_batch;
      if (p.real_step == RealStep::pair_split) {
        // Paired real rows of plain batched passes (the planner uses no other).
        const RuntimeDivisor by_len(sn);
        for (int e = tid; e < nb * sn; e += threads) {
          const int b = by_len.quotient(e);
          store_pair_split<may_split_twiddles(kLength)>(p, dst, outer, inner0 + b, e - b * sn,
                                                          [&](int i) { return s.read(b, i); });
        }
        return;
      }
      if (p.real_step == RealStep::r2c_post && row_major && p.inner_is_batch) {
        // Real-input spectrum of plain rows, h+1 values per row. Each thread takes the pair
        // (k, h-k) of one row: X[k] and X[h-k] are both made of Z[k] and Z[h-k], so each shared
        // value is read once (k = 0 also writes X[h] from Z[0]; k = h/2 pairs with itself).
        // A compile-time divisor for the fixed lengths.
        const int h = (kLength > 0 && p.n == kLength) ? kLength : p.n;
        const int pairs = h / 2 + 1;
        Cf* rows = static_cast<Cf*>(dst) + outer * p.out.outer_dist + inner0 * p.out.inner_dist;
        const RuntimeDivisor by_pairs(pairs);
        for (int e = tid; e < nb * pairs; e += threads) {
          const int b = by_pairs.quotient(e);
          const int k = e - b * pairs;
          const int partner = k == 0 ? h : h - k;  // X index paired with k
          const Cf z_k = s.read(b, k == h ? 0 : k);
          const Cf z_partner = s.read(b, partner == h ? 0 : partner);
          Cf* row = rows + b * p.out.inner_dist;
          row[k] = store_value<may_split_twiddles(kLength)>(p, inner0 + b, k,
                               r2c_post_value(z_k, z_partner, load_table(p.real_tw, k)));
          if (partner != k) {
            row[partner] = store_value<may_split_twiddles(kLength)>(p, inner0 + b, partner,
                                       r2c_post_value(z_partner, z_k, load_table(p.real_tw, partner)));
          }
        }
        return;
      }
      const RuntimeDivisor by_len(sn);
      const RuntimeDivisor by_transforms(nb);
      for (int e = tid; e < nb * sn; e += threads) {
        int b;
        int k;
        if (row_major) {
          b = by_len.quotient(e);
          k = e - b * sn;
        } else {
          k = by_transforms.quotient(e);
          b = e - k * nb;
        }
        Cf v;
        if (p.real_step == RealStep::r2c_post) {
          const int h = p.n;
          const int k_mod = k == h ? 0 : k;
          const int partner = k == 0 ? 0 : h - k_mod;
          v = r2c_post_value(s.read(b, k_mod), s.read(b, partner == h ? 0 : partner),
                             load_table(p.real_tw, k));
        } else {
          v = s.read(b, k);
        }
        store_element<may_split_twiddles(kLength)>(p, dst, outer, inner0 + b, k, v);
      }
    }
  }
}

// ---- the pass kernels ------------------------------------------------------------------------

// The transforms of a pass that this block computes: `nb` of them from inner index `inner0` of
// outer index `outer` (the last block of an outer index may hold fewer than per_block).
struct PassBlock {
  long long outer;
  long long inner0;
  int nb;
};
__device__ __forceinline__ PassBlock pass_block(const PassDesc& p, long long inner_count) {
  const long long blocks_per_outer = (inner_count + p.per_block - 1) / p.per_block;
  const long long inner0 = (blockIdx.x % blocks_per_outer) * p.per_block;
  const long long nb = min(static_cast<long long>(p.per_block), inner_count - inner0);
  return PassBlock{blockIdx.x / blocks_per_outer, inner0, static_cast<int>(nb)};
}

// kLength > 0: the pass length is fixed at compile time (kCompiledLengths); 0: any length,
// stages looked up at run time, with the odd radices compiled in only when kPowerOfTwoOnly is
// false. Blocks of up to kMaxThreadsPerBlock threads (the planner keeps to it).
template <bool kPowerOfTwoOnly, int kLength>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    fft_pass_kernel(const PassDesc p, const void* src, void* dst, long long inner_count) {
  extern __shared__ float shared[];
  const SharedPlanes s{shared, shared + p.per_block * p.smem_stride, p.smem_stride};
  const PassBlock block = pass_block(p, inner_count);
  const long long outer = block.outer;
  const long long inner0 = block.inner0;
  const int nb = block.nb;
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);

  // Compiled lengths over plain rows or side-by-side columns: the first stage reads
  // global memory and (where nothing follows the stages) the last stage writes it, with no
  // separate load / store phase.
  if constexpr (kLength > 0 && radix_list(kLength).count > 0) {
    const bool in_rows = p.in.elem_stride == 1;
    const bool in_columns = !in_rows && p.in.inner_dist == 1 && !p.inner_is_batch;
    const bool direct_load = p.n == kLength && p.load_kind == LoadKind::complex_row &&
                             !p.load_chirp && (in_rows || in_columns) && p.load_n == kLength &&
                             p.real_step != RealStep::c2r_pre && !p.mid_conv;
    const bool out_rows = p.out.elem_stride == 1;
    const bool out_columns = !out_rows && p.out.inner_dist == 1 && !p.inner_is_batch;
    const bool direct_store = p.store_kind == StoreKind::complex_row &&
                              p.real_step == RealStep::none && !p.store_chirp &&
                              (out_rows || out_columns) && p.store_n == kLength &&
                              store_logical(p, inner0 + nb - 1, kLength - 1) < p.n_keep;
    // Half-length c2r of plain rows: the first stage forms its inputs from X in global memory
    // (X[i] and X[n - i], each read twice) instead of a load phase, a pre-processing step in
    // shared memory and their barriers: on the H200 c2r 1000 took 0.51 ms instead of 0.86,
    // 1920 0.45 instead of 0.85, 8000 0.56 instead of 1.49 (bench/RESULTS.md "c2r's first stage
    // from X in global memory"). Only with a wide first stage (wide_first_stage).
    if constexpr (wide_first_stage(kLength)) {
      const bool direct_c2r = p.n == kLength && p.real_step == RealStep::c2r_pre &&
                              p.load_kind == LoadKind::complex_row && !p.load_chirp && in_rows &&
                              p.inner_is_batch && p.load_n == kLength + 1 &&
                              p.load_conj_raw == p.load_conj && !p.mid_conv &&
                              p.store_kind == StoreKind::complex_row && !p.store_chirp &&
                              out_rows && p.store_n == kLength &&
                              store_logical(p, inner0 + nb - 1, kLength - 1) < p.n_keep;
      if (direct_c2r) {
        DirectIo io;
        io.in = static_cast<const Cf*>(src) + outer * p.in.outer_dist + inner0 * p.in.inner_dist;
        io.in_dist = p.in.inner_dist;
        io.out = static_cast<Cf*>(dst) + outer * p.out.outer_dist + inner0 * p.out.inner_dist;
        io.out_dist = p.out.inner_dist;
        io.inner0 = inner0;
        io.pass = &p;
        fixed_stages<kLength, 0, 1, StageIn::c2r_rows, StageOut::rows>(p.stage_tw, s, nb, io);
        return;
      }
    }
    // Paired real rows of a single pass (odd lengths: two rows per transform): the first stage
    // reads the rows' elements (load_element forms x[2t] + i x[2t+1], or from the Hermitian
    // rows the pair's spectrum), and a c2r's last stage stores both real rows; an r2c's split
    // of the pair's spectrum needs Z[k] and Z[n-k] and so goes through shared memory
    // (store_phase). On the H200 r2c / c2r 125 took 0.81 / 0.89 ms instead of 1.05 / 1.13
    // through the load phase (bench/RESULTS.md "Radices 15 and 21, and paired real rows in the
    // first and last stage").
    const bool direct_paired = p.paired && p.inner_is_batch && p.n == kLength &&
                               p.load_n == kLength && !p.load_chirp && !p.mid_conv &&
                               p.real_step != RealStep::c2r_pre;
    if (direct_paired) {
      DirectIo io;
      io.src = src;
      io.dst = dst;
      io.outer = outer;
      io.inner0 = inner0;
      io.pass = &p;
      if (p.real_step == RealStep::none && p.store_n == kLength) {
        fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::elements>(p.stage_tw, s, nb, io);
        return;
      }
      fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::shared>(p.stage_tw, s, nb, io);
      store_phase<kLength>(p, s, dst, outer, inner0, nb);
      return;
    }
    if (direct_load) {
      DirectIo io;
      io.in = static_cast<const Cf*>(src) + outer * p.in.outer_dist + inner0 * p.in.inner_dist;
      io.in_dist = p.in.inner_dist;
      io.in_stride = p.in.elem_stride;
      io.in_columns = in_columns;
      io.conj_in = p.load_conj_raw != p.load_conj;
      io.inner0 = inner0;
      io.pass = &p;
      if (direct_store) {
        io.out = static_cast<Cf*>(dst) + outer * p.out.outer_dist + inner0 * p.out.inner_dist;
        io.out_dist = p.out.inner_dist;
        io.out_stride = p.out.elem_stride;
        io.out_columns = out_columns;
        fixed_stages<kLength, 0, 1, StageIn::rows, StageOut::rows>(p.stage_tw, s, nb, io);
        return;
      }
      // Half-length r2c of plain rows: the post-processing follows the last stage directly.
      const bool direct_real_post =
          p.real_step == RealStep::r2c_post && p.inner_is_batch && out_rows &&
          p.store_kind == StoreKind::complex_row && !p.store_chirp && p.store_n == kLength + 1 &&
          store_logical(p, inner0 + nb - 1, kLength) < p.n_keep;
      if (direct_real_post) {
        io.out = static_cast<Cf*>(dst) + outer * p.out.outer_dist + inner0 * p.out.inner_dist;
        io.out_dist = p.out.inner_dist;
        fixed_stages<kLength, 0, 1, StageIn::rows, StageOut::r2c_rows>(p.stage_tw, s, nb, io);
        return;
      }
      fixed_stages<kLength, 0, 1, StageIn::rows, StageOut::shared>(p.stage_tw, s, nb, io);
      store_phase<kLength>(p, s, dst, outer, inner0, nb);
      return;
    }
  }

  // Load: 16-byte vectors where the block's data is contiguous (plain rows) or where pairs of
  // neighbouring transforms sit side by side (four-step columns); element by element otherwise,
  // ordered so that neighbouring threads read neighbouring addresses.
  {
    const int ln = p.load_n;
    const bool simple = p.load_kind == LoadKind::complex_row && !p.load_chirp;
    const Cf* base = static_cast<const Cf*>(src) + outer * p.in.outer_dist + inner0 * p.in.inner_dist;
    if (simple && p.in.elem_stride == 1 && p.in.inner_dist == ln && (nb * ln) % 2 == 0 &&
        aligned16(base)) {
      const float4* v4 = reinterpret_cast<const float4*>(base);
      if (kLength > 0 && ln == kLength) {
        load_contiguous<kLength>(p, v4, nb * ln / 2, ln, s);
      } else {
        load_contiguous<0>(p, v4, nb * ln / 2, ln, s);
      }
    } else if (simple && p.in.inner_dist == 1 && p.in.elem_stride % 2 == 0 && nb % 2 == 0 &&
               aligned16(base)) {
      const int half = nb / 2;
      const int total = half * ln;
      for (int e0 = tid; e0 < total; e0 += kBatch * threads) {
        float4 q[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = e0 + u * threads;
          if (e < total) {
            const int i = e / half;
            const int bp = e - i * half;
            q[u] = *reinterpret_cast<const float4*>(base + i * p.in.elem_stride + 2 * bp);
          }
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = e0 + u * threads;
          if (e < total) {
            const int i = e / half;
            const int bp = e - i * half;
            s.write(2 * bp, i, load_conjugations(p, Cf{q[u].x, q[u].y}));
            s.write(2 * bp + 1, i, load_conjugations(p, Cf{q[u].z, q[u].w}));
          }
        }
      }
    } else {
      const bool row_major = p.in.elem_stride == 1 || p.inner_is_batch;
      const int total = nb * ln;
      // Element e: b = e / ln, i = e % ln (row-major), or i = e / nb, b = e % nb.
      const RuntimeDivisor by_major(row_major ? ln : nb);
      const int minor_count = row_major ? ln : nb;
      for (int e0 = tid; e0 < total; e0 += kBatch * threads) {
        Cf q[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = e0 + u * threads;
          if (e < total) {
            const int major = by_major.quotient(e);
            const int minor = e - major * minor_count;
            q[u] = load_element(p, src, outer, inner0 + (row_major ? major : minor), row_major ? minor : major);
          }
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = e0 + u * threads;
          if (e < total) {
            const int major = by_major.quotient(e);
            const int minor = e - major * minor_count;
            s.write(row_major ? major : minor, row_major ? minor : major, q[u]);
          }
        }
      }
    }
  }
  __syncthreads();

  if (p.real_step == RealStep::c2r_pre) {
    const int h = p.n;
    const int pairs = h / 2 + 1;
    const RuntimeDivisor by_pairs(pairs);
    for (int e = tid; e < nb * pairs; e += threads) {
      const int b = by_pairs.quotient(e);
      const int k = e - b * pairs;
      Cf x_k = s.read(b, k);
      Cf x_hk = s.read(b, h - k);
      if (k == 0) {
        x_k.im = 0.0f;
        x_hk.im = 0.0f;
      }
      s.write(b, k, conj(c2r_pre_value(x_k, x_hk, load_table(p.real_tw, k))));
      if (k > 0 && 2 * k != h) {
        s.write(b, h - k, conj(c2r_pre_value(x_hk, x_k, load_table(p.real_tw, h - k))));
      }
    }
    __syncthreads();
  }

  run_stages<kLength, kPowerOfTwoOnly>(p, s, nb);

  if (p.mid_conv) {
    const int n = kLength > 0 ? kLength : p.n;
    const RuntimeDivisor by_len(n);
    for (int e = tid; e < nb * n; e += threads) {
      const int b = kLength > 0 ? e / kLength : by_len.quotient(e);
      const int k = e - b * n;
      const Cf w = load_table(p.conv, (inner0 + b) * p.conv_inner_dist + k);
      s.write(b, k, conj(cmul(s.read(b, k), w)));
    }
    __syncthreads();
    run_stages<kLength, kPowerOfTwoOnly>(p, s, nb);
  }

  store_phase<kLength>(p, s, dst, outer, inner0, nb);
}

// A single pass over plain batched rows of a compiled length without a rows kernel
// (plain_rows_pass, fft_pass.hpp; the powers of two from kRowsMinLength have fft_rows_kernel),
// of each RowsKind that has_plain_rows_kernel lists: the pass kernel's direct paths (c2c rows,
// the r2c's post-processing after the last stage, the c2r's inputs formed in the first stage)
// with the strides, the thread-to-butterfly map, the conjugations and the store multiplies fixed
// at compile time instead of decided per element. Its registers: plain_rows_kernel_registers.
template <int kLength, RowsKind kKind>
__global__ void __maxnreg__(plain_rows_kernel_registers(kLength))
    fft_plain_rows_kernel(const PassDesc p, const void* src, void* dst, long long inner_count) {
  extern __shared__ float shared[];
  const SharedPlanes s{shared, shared + p.per_block * p.smem_stride, p.smem_stride};
  const PassBlock block = pass_block(p, inner_count);
  DirectIo io;
  io.in = static_cast<const Cf*>(src) + block.inner0 * p.in.inner_dist;
  io.in_dist = p.in.inner_dist;
  io.out = static_cast<Cf*>(dst) + block.inner0 * p.out.inner_dist;
  io.out_dist = p.out.inner_dist;
  io.pass = &p;
  if constexpr (kKind == RowsKind::real_forward) {
    fixed_stages<kLength, 0, 1, StageIn::plain_rows, StageOut::r2c_plain_rows>(p.stage_tw, s,
                                                                               block.nb, io);
  } else if constexpr (kKind == RowsKind::real_inverse) {
    // c2r's output is conj of the half-length forward FFT of conj(2Z) (c2r_pre_of_row).
    fixed_stages<kLength, 0, 1, StageIn::c2r_rows, StageOut::plain_rows, true>(p.stage_tw, s,
                                                                               block.nb, io);
  } else {
    fixed_stages<kLength, 0, 1, StageIn::plain_rows, StageOut::plain_rows,
                 kKind == RowsKind::inverse>(p.stage_tw, s, block.nb, io);
  }
}

// The Bluestein kernel of a compiled length, one variant per pass (BluesteinPass, fft_pass.hpp):
// the FFTs' first stages load from global memory and their last stages store to it, the
// spectrum multiply and its conjugation fused into the first FFT's last shared-memory writes —
// two shared-memory round trips and their barriers fewer per FFT than load, stages, multiply,
// stages, store, and no layout decided per element.
//   one_pass: the chirp and the zero padding on load, the chirp and the dropped tail on store
//     (the planner's one pass loads its whole length and has no c2r pre-step); paired r2c rows
//     split from shared memory after the stages. A kernel of its own, so that it does not
//     share a register allocation with the pass kernel's other paths: as a branch of
//     fft_pass_kernel the same code ran c2c 4097 in 6.07 ms, as its own kernel in 5.16 (H200,
//     bench/RESULTS.md "Bluestein: the one-pass kernel of its own"). Its registers: as many as
//     cost no resident block (bluestein_kernel_registers).
//   columns_in, columns_out: the first and third of three passes, over columns side by side
//     (neighbouring threads take neighbouring columns); loads through load_element (chirp,
//     padding, real or Hermitian rows, Rader's gather) or stores through store_element (chirp,
//     tail, real rows).
//   rows: the second, rows of scratch in place.
// On the pass kernel the three passes of c2c 65537 took 2.53, 2.50 and 1.35 ms, here 1.43,
// 1.85 and 1.06; c2c 10007 4.87 -> 3.77 ms, 20011 5.19 -> 3.44 (bench/RESULTS.md "Bluestein: three
// passes on the Bluestein kernel").
template <int kLength, BluesteinPass kPass>
__global__ void __maxnreg__(bluestein_pass_registers(kLength, kPass))
    fft_bluestein_kernel(const PassDesc p, const void* src, void* dst, long long inner_count) {
  extern __shared__ float shared[];
  const SharedPlanes s{shared, shared + p.per_block * p.smem_stride, p.smem_stride};
  const PassBlock block = pass_block(p, inner_count);
  DirectIo io;
  io.src = src;
  io.dst = dst;
  io.outer = block.outer;
  io.inner0 = block.inner0;
  io.pass = &p;
  const int nb = block.nb;
  const Cf* in = static_cast<const Cf*>(src) + block.outer * p.in.outer_dist +
                 block.inner0 * p.in.inner_dist;
  Cf* out = static_cast<Cf*>(dst) + block.outer * p.out.outer_dist +
            block.inner0 * p.out.inner_dist;
  if constexpr (kPass == BluesteinPass::one_pass) {
    // Storing every k < kLength drops the same tail as store_phase's k < store_n.
    const bool element_store = p.real_step == RealStep::none &&
                               (p.store_n == kLength || store_logical(p, 0, p.store_n) >= p.n_keep);
    // The first FFT's outputs stay in registers as the second's inputs where the planner gives
    // the block one transform (bluestein_held_elements; the backend checks), with no barrier
    // before the first FFT's first writes: c2c 4097 (m = 8192) took 1.82 ms so, 2.09 through
    // shared memory; with the spectrum multiply in the first FFT's last stage 1.97, and 2.04
    // where each block chose its path at run time (both compiled: 990 bytes of spills against
    // 576; H200, bench/RESULTS.md "Bluestein: the shortest convolution and the held spectrum").
    constexpr int kHeld = bluestein_held_elements(kLength);
    if constexpr (kHeld > 0) {
      Cf held[kHeld];
      fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::held, false, false, true>(p.stage_tw, s, nb, io,
                                                                                       held);
      if (element_store) {
        fixed_stages<kLength, 0, 1, StageIn::held_conv, StageOut::elements>(p.stage_tw, s, nb, io, held);
      } else {
        fixed_stages<kLength, 0, 1, StageIn::held_conv, StageOut::shared>(p.stage_tw, s, nb, io, held);
        store_phase<kLength>(p, s, dst, block.outer, block.inner0, nb);
      }
    } else {
      fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::shared_conv>(p.stage_tw, s, nb, io);
      if (element_store) {
        fixed_stages<kLength, 0, 1, StageIn::shared, StageOut::elements>(p.stage_tw, s, nb, io);
      } else {
        fixed_stages<kLength, 0, 1, StageIn::shared, StageOut::shared>(p.stage_tw, s, nb, DirectIo{});
        store_phase<kLength>(p, s, dst, block.outer, block.inner0, nb);
      }
    }
  } else if constexpr (kPass == BluesteinPass::columns_in) {
    io.in_columns = true;
    io.out = out;
    io.out_dist = p.out.inner_dist;
    io.out_stride = p.out.elem_stride;
    io.out_columns = true;
    // Rader's gather in a path of its own: in the one path Bluestein's passes ran 3 % slower
    // (c2c 10007, 12289 on the H200).
    if (p.load_permuted) {
      fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::rows, false, true>(p.stage_tw, s, nb, io);
    } else {
      fixed_stages<kLength, 0, 1, StageIn::elements, StageOut::rows>(p.stage_tw, s, nb, io);
    }
  } else if constexpr (kPass == BluesteinPass::rows) {
    io.in = in;
    io.in_dist = p.in.inner_dist;
    io.out = out;
    io.out_dist = p.out.inner_dist;
    fixed_stages<kLength, 0, 1, StageIn::rows, StageOut::shared_conv>(p.stage_tw, s, nb, io);
    fixed_stages<kLength, 0, 1, StageIn::shared, StageOut::rows>(p.stage_tw, s, nb, io);
  } else {
    static_assert(kPass == BluesteinPass::columns_out, "a Bluestein pass the kernel takes");
    io.in = in;
    io.in_dist = p.in.inner_dist;
    io.in_stride = p.in.elem_stride;
    io.in_columns = true;
    io.conj_in = p.load_conj_raw != p.load_conj;  // no chirp between them on this pass
    io.out_columns = true;
    fixed_stages<kLength, 0, 1, StageIn::rows, StageOut::elements>(p.stage_tw, s, nb, io);
  }
}

}  // namespace prism::fft::gpu
