// Our CUDA FFT backend: the choice of kernel for each pass (the rows kernel, fft_rows_kernel.cuh,
// for plain batched rows of powers of two; the plain rows kernel for c2c rows of the other
// compiled lengths; the four-step kernel, fft_four_step_kernel.cuh, for the passes of four-steps
// over powers of two; else the pass kernel, fft_pass_kernel.cuh), the real-rows and pair-split
// kernels, the direct-DFT kernels of short rows, and the Plan / Backend objects that upload a
// PlanLayout and launch its passes.
//
// Sections: kernel choice · the real-rows kernel · the pair-split kernel · the direct-DFT kernel
// · plan and backend.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/device_upload.hpp"
#include "fft/cuda/fft64_plan.hpp"
#include "fft/cuda/fft_pass_kernel.cuh"
#include "fft/cuda/fft_pass_kernels.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_tune.hpp"

namespace prism::fft {
namespace gpu {
namespace {

// ---- kernel choice ---------------------------------------------------------------------------

// The run-time stage loops, for lengths without a compiled kernel.
constexpr PassKernel kPowerOfTwoLoop = fft_pass_kernel<true, 0>;
constexpr PassKernel kAnyRadixLoop = fft_pass_kernel<false, 0>;

template <std::size_t... I>
std::array<KernelPart, kKernelParts> make_kernel_parts(std::index_sequence<I...>) {
  return {kernel_part<static_cast<int>(I)>()...};
}
// The compiled kernels, part by part (fft_kernels_part<N>.cu).
const std::array<KernelPart, kKernelParts>& kernel_parts() {
  static const auto parts = make_kernel_parts(std::make_index_sequence<kKernelParts>{});
  return parts;
}

// The calling thread's current device (0 where the runtime cannot say).
int current_device_index() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return device;
}

// The dynamic shared memory per block the current device lets kernels opt into, at most what the
// planner plans for (kMaxSharedBytesPerBlock); asked once per device (a batch may run on several).
long long device_shared_limit() {
  static std::mutex lock;
  static std::map<int, long long> limits;
  const int device = current_device_index();
  const std::lock_guard<std::mutex> locked(lock);
  if (const auto known = limits.find(device); known != limits.end()) return known->second;
  long long limit = kMaxSharedBytesPerBlock;
  int opt_in = 0;
  if (cudaDeviceGetAttribute(&opt_in, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess || opt_in <= 0)
    cudaGetLastError();
  else
    limit = std::min<long long>(opt_in, kMaxSharedBytesPerBlock);
  limits.emplace(device, limit);
  return limit;
}

// The kernel of a pass: a rows or four-step kernel with its descriptor, or a kernel that takes
// the PassDesc.
struct KernelChoice {
  RowsKernel rows = nullptr;
  RowsPassDesc rows_desc;
  FourStepKernel four_step = nullptr;
  FourStepPassDesc four_step_desc;
  PassKernel pass = nullptr;
  std::size_t shared_bytes = 0;  // launch_shared_bytes of the step
};

// Which kernel runs pass p: for plain rows, the rows kernel of its length (rows_pass_of) or the
// plain rows kernel of a compiled length (plain_rows_kernel_takes); for a four-step column or
// row pass of a power of two, the four-step kernel (four_step_pass_of); else the compiled kernels
// of its length (the Bluestein kernel for the Bluestein passes it takes, bluestein_pass_of;
// else the pass kernel); else a run-time stage loop.
KernelChoice choose_kernel(const PassDesc& p) {
  KernelChoice choice;
  // The compiled kernels of a length run radix_list's stages, against which the pass's twiddle
  // table is built only where the pass has them (a pass in the rows kernel's stage order that
  // no rows kernel takes runs the run-time loop).
  const int i = same_radices(pass_radices(p), radix_list(p.n)) ? compiled_length_index(p.n) : -1;
  if (four_step_pass_of(p, choice.four_step_desc, kMaxSharedBytesPerBlock)) {
    choice.four_step = four_step_kernel(p.n, choice.four_step_desc.kind, choice.four_step_desc.shape);
    return choice;
  }
  // The planner checked four_step_pass_of for these.
  if (p.real_step == RealStep::r2c_post_rows || p.real_step == RealStep::c2r_pre_columns) {
    throw std::logic_error("CUDA FFT: a real four-step pass of length " + std::to_string(p.n) +
                           " that the four-step kernel does not take");
  }
  RowsPassDesc rows;
  if (plain_rows_pass(p, rows)) {
    if (rows_pass_of(p, rows)) {
      choice.rows = rows_kernel(p.n, rows.kind, rows.elements_per_thread);
      choice.rows_desc = rows;
      return choice;
    }
    // The compiled kernels of p.n fix their stages' order: the rows kernel's or radix_list.
    if (has_rows_kernel(p.n)) {
      throw std::logic_error("CUDA FFT: a rows pass of length " + std::to_string(p.n) +
                             " whose stages are not in the rows kernel's order");
    }
    if (i >= 0 && plain_rows_kernel_takes(p, rows.kind)) {
      const KernelPart& part = kernel_parts()[i % kKernelParts];
      choice.pass = part.plain_rows[kRowsKinds * (i / kKernelParts) + static_cast<int>(rows.kind)];
      return choice;
    }
  }
  if (p.load_permuted && (i < 0 || bluestein_pass_of(p) == BluesteinPass::none)) {
    throw std::logic_error("CUDA FFT: a Rader pass of length " + std::to_string(p.n) +
                           " that the Bluestein kernel does not take");
  }
  if (i >= 0) {
    const KernelPart& part = kernel_parts()[i % kKernelParts];
    const BluesteinPass bluestein = bluestein_pass_of(p);
    const int held = bluestein_held_elements(p.n);
    if (bluestein == BluesteinPass::one_pass && held > 0 && (p.per_block != 1 || p.threads != p.n / held)) {
      throw std::logic_error("CUDA FFT: a one-pass Bluestein convolution of length " + std::to_string(p.n) +
                             " in blocks of " + std::to_string(p.per_block) + " transforms and " +
                             std::to_string(p.threads) + " threads; its kernel holds the spectrum of one in " +
                             std::to_string(p.n / held) + " threads");
    }
    const int entry = i / kKernelParts;
    choice.pass = bluestein == BluesteinPass::none
                      ? part.kernels[entry]
                      : part.bluestein[kBluesteinPasses * entry + static_cast<int>(bluestein)];
  } else {
    choice.pass = p.power_of_two_radices ? kPowerOfTwoLoop : kAnyRadixLoop;
  }
  return choice;
}

// Launch shape of the element-wise kernels (real rows, pair split): one thread per element.
constexpr int kElementwiseThreads = 256;
unsigned elementwise_blocks(long long elements) {
  return static_cast<unsigned>((elements + kElementwiseThreads - 1) / kElementwiseThreads);
}

// ---- the real-rows kernel --------------------------------------------------------------------
// Real-FFT post-processing (each thread owns the pair k, h-k, so it may run in place) or
// pre-processing (out of place) for half-lengths above one block; a 2-D grid, rows along y.

__global__ void real_rows_kernel(const RealRowsDesc r, const Cf* src, Cf* dst, long long rows) {
  const int h = r.h;
  const int per_row = r.c2r ? h : h / 2 + 1;
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= per_row) return;
  // Rows along the grid's y, which holds at most 65535: each block steps over the rest.
  for (long long row = blockIdx.y; row < rows; row += gridDim.y) {
    const Cf* x = src + row * r.in_row_dist;
    Cf* y = dst + row * r.out_row_dist;
    if (r.c2r) {
      y[k] = c2r_pre_of_row_at(x, h, k, real_rows_twiddle(r, k));
      continue;
    }
    const Cf z_k = x[k];
    if (k == 0) {
      y[0] = r2c_post_value(z_k, z_k, real_rows_twiddle(r, 0));
      y[h] = r2c_post_value(z_k, z_k, real_rows_twiddle(r, h));
      continue;
    }
    const Cf z_hk = x[h - k];
    y[k] = r2c_post_value(z_k, z_hk, real_rows_twiddle(r, k));
    if (2 * k != h) y[h - k] = r2c_post_value(z_hk, z_k, real_rows_twiddle(r, h - k));
  }
}

// ---- the transpose kernel --------------------------------------------------------------------
// A four-step's rows, stored in place by the rows kernel, into the output transposed
// (TransposeDesc): a block moves a tile of 32 x 32 elements through shared memory, reading 32
// neighbouring elements of a row and writing 32 neighbouring rows' elements, each a whole
// 256-byte run. A padded tile row (33) keeps the column reads free of bank conflicts.
constexpr int kTransposeTileRows = 8;  // threads along y; each takes every 8th row of the tile

__global__ void __launch_bounds__(kTransposeTile * kTransposeTileRows)
    transpose_kernel(const TransposeDesc d, const Cf* src, Cf* dst, long long transforms) {
  __shared__ Cf tile[kTransposeTile][kTransposeTile + 1];
  const long long r0 = static_cast<long long>(blockIdx.y) * kTransposeTile;
  const long long k0 = static_cast<long long>(blockIdx.x) * kTransposeTile;
  const int x = static_cast<int>(threadIdx.x);
  // Transforms along the grid's z, which holds at most 65535: each block steps over the rest.
  for (long long t = blockIdx.z; t < transforms; t += gridDim.z) {
    for (int i = static_cast<int>(threadIdx.y); i < kTransposeTile; i += kTransposeTileRows) {
      tile[i][x] = src[transpose_in_offset(d, t, r0 + i, k0 + x)];
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.y); i < kTransposeTile; i += kTransposeTileRows) {
      const Cf v = tile[x][i];
      dst[transpose_out_offset(d, t, r0 + x, k0 + i)] = d.conj ? conj(v) : v;
    }
    __syncthreads();
  }
}

// The same with r2c_post: a block takes the tile at (r0, k0) of the first half of the rows
// (blockIdx.y over rows / 64) and its mirror tile, each with the row after it, and stores X for
// both (TransposeDesc). On the H200 (bench/RESULTS.md "Four-step kernel: r2c 2^26's post-processing
// in the transpose") it took 371 us for r2c 2^26 where the transpose and the real rows pass took
// 270 and 282; with the mirror tile read by the neighbouring block instead (the reads meeting in
// L2) r2c 2^26 gained 4 % instead of 14 %, and neither 16-byte loads nor the next pair's loads in
// flight through the stores were faster.
__global__ void __launch_bounds__(kTransposeTile * kTransposeTileRows)
    transpose_r2c_kernel(const TransposeDesc d, const Cf* src, Cf* dst, long long transforms) {
  __shared__ Cf tile[kTransposeTile + 1][kTransposeTile + 1];
  __shared__ Cf mirror[kTransposeTile + 1][kTransposeTile + 1];
  const long long r0 = static_cast<long long>(blockIdx.y) * kTransposeTile;
  const long long k0 = static_cast<long long>(blockIdx.x) * kTransposeTile;
  long long mirror_r0 = 0;
  long long mirror_k0 = 0;
  transpose_mirror_tile(d, r0, k0, mirror_r0, mirror_k0);
  const int x = static_cast<int>(threadIdx.x);
  for (long long t = blockIdx.z; t < transforms; t += gridDim.z) {
    // The row after the mirror tile is past the last for r0 = 0, whose row 0 reads its mirrors
    // directly.
    for (int i = static_cast<int>(threadIdx.y); i <= kTransposeTile; i += kTransposeTileRows) {
      tile[i][x] = src[transpose_in_offset(d, t, r0 + i, k0 + x)];
      if (mirror_r0 + i < d.rows) mirror[i][x] = src[transpose_in_offset(d, t, mirror_r0 + i, mirror_k0 + x)];
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.y); i < kTransposeTile; i += kTransposeTileRows) {
      transpose_r2c_store(
          d, src, dst, t, r0, k0, mirror_r0, mirror_k0, x, i, [&](int a, int b) { return tile[a][b]; },
          [&](int a, int b) { return mirror[a][b]; });
    }
    __syncthreads();
  }
}

// ---- the pair-split kernel -------------------------------------------------------------------
// Paired r2c in several passes: the two rows' spectra from each pair's spectrum (fft_pass.hpp).

__global__ void pair_split_kernel(const PairSplitDesc d, const Cf* spectra, Cf* out,
                                  long long transforms, long long rows) {
  const long long per_transform = d.n / 2 + 1;
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= transforms * per_transform) return;
  const long long t = e / per_transform;
  pair_split_element(d, spectra, out, rows, t, static_cast<int>(e - t * per_transform));
}

// ---- Rader's first and last steps -----------------------------------------------------------
// X[0] of each Rader transform and x[0] into its convolution (RaderDcDesc, fft_pass.hpp), a warp
// per transform: each lane takes every 32nd column sum, lane 0 stores the total.
constexpr int kRaderDcWarpsPerBlock = 8;

__global__ void rader_dc_kernel(const PassDesc p, const RaderDcDesc d, const void* src,
                                Cf* scratch, void* dst, long long transforms) {
  const long long t = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (t >= transforms) return;
  const Cf x0 = rader_x0(p, src, t);
  Cf* sums = scratch + t * d.scratch_dist;
  Cf total{0.0f, 0.0f};
  for (int c = lane; c < d.columns; c += 32) {
    const Cf sum = sums[c];
    total = total + sum;
    sums[c] = rader_column_sum_less_x0(d, sum, x0);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    total.re += __shfl_xor_sync(0xffffffffu, total.re, offset);
    total.im += __shfl_xor_sync(0xffffffffu, total.im, offset);
  }
  if (lane == 0) store_rader_dc(p, dst, t, x0, total);
}

// Rader's outputs X[k], k >= 1, gathered from the scratch (store_rader_output): one thread per
// output, neighbouring threads on neighbouring outputs.
__global__ void rader_gather_kernel(const PassDesc p, const RaderDcDesc d, const Cf* scratch, void* dst,
                                    long long transforms) {
  const long long kept = rader_outputs_kept(p, d);
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= transforms * kept) return;
  const long long t = e / kept;
  store_rader_output(p, d, scratch, dst, t, 1 + e - t * kept);
}

// ---- the direct-DFT kernel ------------------------------------------------------------------
// Short rows in double precision (fft_direct.hpp): a block folds its rows from global memory
// into shared memory, then its threads compute the rows' output pairs, several each; rows of the
// lengths direct_thread_rows takes, a row per thread (direct_rows_kernel).

__global__ void __launch_bounds__(kDirectBlockThreads) direct_dft_kernel(const DirectDftDesc d, const float* src,
                                                                        float* dst, long long rows) {
  extern __shared__ double direct_shared[];
  Cd* roots = reinterpret_cast<Cd*>(direct_shared);
  Cd* staged = roots + direct_roots_count(d);
  const int stride = direct_staged_stride(d.h);
  const long long first = static_cast<long long>(blockIdx.x) * d.rows_per_block;
  const int block_rows = static_cast<int>(min(static_cast<long long>(d.rows_per_block), rows - first));
  for (int t = threadIdx.x; t < direct_roots_count(d); t += kDirectBlockThreads) roots[t] = direct_root(d.roots, t);
  __syncthreads();
  const int folds = direct_folds(d.h) + 1;  // with j = 0
  for (int i = threadIdx.x; i < block_rows * folds; i += kDirectBlockThreads) {
    const int row = i / folds;
    direct_stage(d, src + (first + row) * d.in_row_dist, roots, staged + row * stride, i - row * folds);
  }
  __syncthreads();
  const int pairs = direct_pairs(d.h);
  for (int i = threadIdx.x; i < block_rows * pairs; i += kDirectBlockThreads) {
    const int row = i / pairs;
    const int k = i - row * pairs;
    Cd out_k;
    Cd out_hk;
    direct_pair(d, staged + row * stride, roots, k, out_k, out_hk);
    direct_store(d, roots, k, out_k, out_hk, dst + (first + row) * d.out_row_dist);
  }
}

// Copies `count` rows of `per_row` values, `from_dist` and `to_dist` apart, with the block's
// threads on consecutive values (coalesced on the global side).
template <class T>
__device__ void direct_copy_rows_of(const T* from, long long from_dist, T* to, long long to_dist, int per_row,
                                    int count) {
  const SmallDivisor divisor(static_cast<unsigned>(per_row));
  for (int c = threadIdx.x; c < count * per_row; c += kDirectRowThreads) {
    const int r = static_cast<int>(divisor.quotient(static_cast<unsigned>(c)));
    const int q = c - r * per_row;
    to[r * to_dist + q] = from[r * from_dist + q];
  }
}
// Rows of `floats` floats: as pairs (8-byte accesses) where both sides allow.
__device__ void direct_copy_rows(const float* from, long long from_dist, float* to, long long to_dist, int floats,
                                 int count) {
  const bool pairs = floats % 2 == 0 && from_dist % 2 == 0 && to_dist % 2 == 0 &&
                     reinterpret_cast<unsigned long long>(from) % 8 == 0 &&
                     reinterpret_cast<unsigned long long>(to) % 8 == 0;
  if (pairs) {
    direct_copy_rows_of(reinterpret_cast<const float2*>(from), from_dist / 2, reinterpret_cast<float2*>(to),
                        to_dist / 2, floats / 2, count);
  } else {
    direct_copy_rows_of(from, from_dist, to, to_dist, floats, count);
  }
}

// A row per thread, complex length kH (direct_thread_rows): the block's rows in through shared
// memory, each thread's row computed there with its folded values in registers, the rows out.
template <int kH>
__global__ void __launch_bounds__(kDirectRowThreads) direct_rows_kernel(const DirectDftDesc desc, const float* src,
                                                                       float* dst, long long rows) {
  extern __shared__ double direct_shared[];
  DirectDftDesc d = desc;
  d.h = kH;  // a constant from here on: the loops over the row unroll
  Cd* roots = reinterpret_cast<Cd*>(direct_shared);
  float* buffer = reinterpret_cast<float*>(roots + direct_roots_count(d));
  const int stride = direct_thread_row_stride(d);
  const long long first = static_cast<long long>(blockIdx.x) * kDirectRowThreads;
  const int block_rows = static_cast<int>(min(static_cast<long long>(kDirectRowThreads), rows - first));
  for (int t = threadIdx.x; t < direct_roots_count(d); t += kDirectRowThreads) roots[t] = direct_root(d.roots, t);
  direct_copy_rows(src + first * d.in_row_dist, d.in_row_dist, buffer, stride, direct_in_floats(d), block_rows);
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < block_rows) {
    float* row = buffer + threadIdx.x * stride;
    Cd staged[direct_staged_values(kH)];
#pragma unroll
    for (int j = 0; j <= direct_folds(kH); ++j) direct_stage(d, row, roots, staged, j);
    // Every input is folded before the first output overwrites the row.
#pragma unroll
    for (int k = 0; k < direct_pairs(kH); ++k) {
      Cd out_k;
      Cd out_hk;
      direct_pair(d, staged, roots, k, out_k, out_hk);
      direct_store(d, roots, k, out_k, out_hk, row);
    }
  }
  __syncthreads();
  direct_copy_rows(buffer, stride, dst + first * d.out_row_dist, d.out_row_dist, direct_out_floats(d), block_rows);
}

using DirectRowsKernel = void (*)(DirectDftDesc, const float*, float*, long long);
template <int... kOffsets>
constexpr std::array<DirectRowsKernel, sizeof...(kOffsets)> direct_rows_kernel_table(
    std::integer_sequence<int, kOffsets...>) {
  return {&direct_rows_kernel<kMinDirectThreadLength + kOffsets>...};
}
// direct_rows_kernels[h - kMinDirectThreadLength]: the kernel of complex length h.
constexpr auto direct_rows_kernels = direct_rows_kernel_table(
    std::make_integer_sequence<int, kMaxDirectThreadLength - kMinDirectThreadLength + 1>{});

// ---- plan and backend ------------------------------------------------------------------------

// Launch configuration of a cluster pass: C blocks per transform in one cluster.
struct ClusterLaunch {
  cudaLaunchAttribute attribute{};
  cudaLaunchConfig_t config{};
  ClusterLaunch(const ClusterPassDesc& d, long long transforms, cudaStream_t stream) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(d.cluster);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(static_cast<unsigned>(transforms * d.cluster));
    config.blockDim = dim3(static_cast<unsigned>(cluster_threads(d.m)));
    config.dynamicSmemBytes = 2u * cluster_plane_floats(d.m) * sizeof(float);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
};

// A quarter of a wave of blocks of `kernel` (the blocks the device holds at once), the distance
// at which the rows and four-step kernels prefetch a later block's input into L2; 0 where the
// device's figures are unavailable.
template <typename Kernel>
long long quarter_wave_blocks(Kernel kernel, int threads, std::size_t shared_bytes) {
  int device = 0;
  int multiprocessors = 0;
  int blocks_per_multiprocessor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel, threads, shared_bytes) !=
          cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<long long>(multiprocessors) * blocks_per_multiprocessor / 4;
}

// Sets the prefetch distance of a rows or four-step pass (RowsPassDesc::prefetch_ahead in rows,
// FourStepPassDesc::prefetch_ahead in blocks): a quarter of a wave where the kernel prefetches
// (rows_prefetch, four_step_prefetch), else 0.
void set_prefetch_ahead(KernelChoice& choice) {
  RowsPassDesc& rows = choice.rows_desc;
  if (choice.rows != nullptr && rows_prefetch(rows.n, rows.kind)) {
    rows.prefetch_ahead =
        quarter_wave_blocks(choice.rows, rows_block_threads(rows.n, rows.kind, rows.elements_per_thread),
                            choice.shared_bytes) *
        rows_per_block(rows.n, rows.kind, rows.elements_per_thread);
  }
  FourStepPassDesc& four_step = choice.four_step_desc;
  if (choice.four_step != nullptr && four_step_prefetch(four_step.n, four_step.kind)) {
    four_step.prefetch_ahead = quarter_wave_blocks(
        choice.four_step, four_step_teams(four_step.kind, four_step.n) * four_step_team_threads(four_step.n),
        choice.shared_bytes);
  }
}

// The planner options for the current device: no cluster passes where the device has no
// thread-block clusters (before sm_90) or cannot hold one cluster of every shape we launch
// (a partitioned device).
PlannerOptions for_current_device(PlannerOptions options) {
  if (options.cluster_block_length == 0) return options;
  const bool clusters = [] {
    int device = 0;
    int supported = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device) != cudaSuccess ||
        supported == 0) {
      cudaGetLastError();
      return false;
    }
    for (int m : kClusterBlockLengths) {
      for (int c : kClusterSizes) {
        ClusterPassDesc d;
        d.cluster = c;
        d.m = m;
        ClusterLaunch launch(d, 1, nullptr);
        ClusterKernel kernel = cluster_kernel(c, m);
        int active = 0;
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(device_shared_limit())) != cudaSuccess ||
            cudaOccupancyMaxActiveClusters(&active, kernel, &launch.config) != cudaSuccess ||
            active == 0) {
          cudaGetLastError();
          return false;
        }
      }
    }
    return true;
  }();
  if (!clusters) options.cluster_block_length = 0;
  return options;
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA FFT: ") + what + ": " + cudaGetErrorString(status));
  }
}

// Raises every kernel's dynamic shared memory limit to device_shared_limit(), once per device:
// a function's attributes belong to one device's context, and a batch may plan on several.
void raise_shared_memory_limits() {
  static std::mutex lock;
  static std::set<int> raised;
  const int device = current_device_index();
  const std::lock_guard<std::mutex> locked(lock);
  if (raised.count(device) != 0) return;
  const int limit = static_cast<int>(device_shared_limit());
  std::vector<PassKernel> all = {kPowerOfTwoLoop, kAnyRadixLoop};
  for (const KernelPart& part : kernel_parts()) {
    all.insert(all.end(), part.kernels, part.kernels + part.count);
    all.insert(all.end(), part.bluestein, part.bluestein + kBluesteinPasses * part.count);
    for (int k = 0; k < kRowsKinds * part.count; ++k) {
      if (part.plain_rows[k] != nullptr) all.push_back(part.plain_rows[k]);
    }
  }
  for (PassKernel kernel : all) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               limit),
          "cudaFuncSetAttribute");
  }
  for (int m : kClusterBlockLengths) {
    for (int c : kClusterSizes) {
      check(cudaFuncSetAttribute(cluster_kernel(c, m), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 limit),
            "cudaFuncSetAttribute (cluster pass)");
    }
  }
  for (int n = kRowsMinLength; n <= kRowsMaxLength; n *= 2) {
    for (RowsKind kind : {RowsKind::forward, RowsKind::inverse, RowsKind::real_forward,
                          RowsKind::real_inverse}) {
      check(cudaFuncSetAttribute(rows_kernel(n, kind), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 limit),
            "cudaFuncSetAttribute (rows pass)");
      if (!has_wide_rows_kernel(n)) continue;
      check(cudaFuncSetAttribute(rows_kernel(n, kind, kWideTeamElements),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
            "cudaFuncSetAttribute (rows pass, wide teams)");
    }
  }
  for (int n : kCompiledLengths) {
    if (!has_decimal_rows_kernel(n)) continue;
    for (RowsKind kind : {RowsKind::forward, RowsKind::inverse, RowsKind::real_forward,
                          RowsKind::real_inverse}) {
      check(cudaFuncSetAttribute(rows_kernel(n, kind, kDecimalTeamElements),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
            "cudaFuncSetAttribute (rows pass, decimal teams)");
    }
  }
  for (int n = kFourStepMinLength; n <= kFourStepMaxLength; n *= 2) {
    for (FourStepKind kind : {FourStepKind::columns, FourStepKind::columns_inverse,
                              FourStepKind::rows, FourStepKind::rows_inverse,
                              FourStepKind::rows_real, FourStepKind::columns_real}) {
      for (FourStepShape shape : kFourStepShapes) {
        if (!has_four_step_shape(kind, n, shape)) continue;
        check(cudaFuncSetAttribute(four_step_kernel(n, kind, shape),
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
              "cudaFuncSetAttribute (four-step pass)");
      }
    }
  }
  for (int n = 1; n <= kFourStepMaxLength; ++n) {
    if (!has_decimal_four_step_kernel(n)) continue;
    for (FourStepKind kind : {FourStepKind::rows_real, FourStepKind::columns_real}) {
      check(cudaFuncSetAttribute(four_step_kernel(n, kind, FourStepShape::decimal),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
            "cudaFuncSetAttribute (four-step pass, decimal real rows or columns)");
    }
  }
  raised.insert(device);
}

class CudaFftPlan final : public Plan {
 public:
  CudaFftPlan(const PlanSpec& spec, PlanLayout layout) : Plan(spec), layout_(std::move(layout)) {
    const long long shared = max_launch_shared_bytes(layout_);
    if (shared > device_shared_limit()) {
      throw std::runtime_error("CUDA FFT: " + layout_.algorithm + " needs " + std::to_string(shared) +
                               " bytes of shared memory per block; this device allows " +
                               std::to_string(device_shared_limit()));
    }
    // Every kernel may take what the device allows (kernels are not bound to one plan).
    raise_shared_memory_limits();
    // All tables in one allocation: plan creation is dominated by allocation calls otherwise.
    std::size_t total = 0;
    for (const auto& table : layout_.tables) total += table.size() + 1;
    // Index tables behind them, two ints to a complex slot.
    for (const auto& table : layout_.index_tables) total += (table.size() + 1) / 2 + 1;
    try {
      check(cudaMalloc(&table_memory_, std::max<std::size_t>(1, total) * sizeof(Cf)), "cudaMalloc");
      device_bytes_ = std::max<std::size_t>(1, total) * sizeof(Cf);
      std::vector<Cf> staged;
      staged.reserve(total);
      for (const auto& table : layout_.tables) {
        tables_.push_back(table_memory_ + staged.size());
        staged.insert(staged.end(), table.begin(), table.end());
        if (staged.size() % 2 != 0) staged.push_back(Cf{0.0f, 0.0f});  // 16-byte aligned starts
      }
      for (const auto& table : layout_.index_tables) {
        const std::size_t start = staged.size();
        index_tables_.push_back(reinterpret_cast<int*>(table_memory_ + start));
        staged.resize(start + (table.size() + 1) / 2);
        std::memcpy(staged.data() + start, table.data(), table.size() * sizeof(int));
        if (staged.size() % 2 != 0) staged.push_back(Cf{0.0f, 0.0f});
      }
      check(upload_to_device(table_memory_, staged.data(), staged.size() * sizeof(Cf)),
            "cudaMemcpy");
      // One allocation for the scratch and the pairs' spectra behind it.
      const std::size_t scratch_elements =
          static_cast<std::size_t>(layout_.scratch_row + layout_.pair_spectra_row) * spec.batch;
      if (scratch_elements > 0) {
        check(cudaMalloc(&scratch_, scratch_elements * sizeof(Cf)), "cudaMalloc scratch");
        device_bytes_ += scratch_elements * sizeof(Cf);
        pair_spectra_ = scratch_ + static_cast<std::size_t>(layout_.scratch_row) * spec.batch;
      }
    } catch (...) {
      release();
      throw;
    }
    for (Step& step : layout_.steps) {
      PassDesc& p = step.pass;
      p.stage_tw = table(step.stage_tw);
      p.pass_tw = table(step.pass_tw);
      p.chirp = table(step.chirp);
      p.conv = table(step.conv);
      p.real_tw = table(step.real_tw);
      p.load_index = index_table(step.load_index);
      step.rows.real_tw = table(step.real_tw);
      step.transpose.real_tw = table(step.real_tw);
      step.cluster.stage_tw = table(step.stage_tw);
      step.cluster.cluster_tw = table(step.pass_tw);
      step.cluster.real_tw = table(step.real_tw);
      step.direct.roots = table(step.real_tw);
      kernels_.push_back(step.kind == Step::Kind::fft_pass ? choose_kernel(p) : KernelChoice{});
      kernels_.back().shared_bytes = static_cast<std::size_t>(launch_shared_bytes(step));
      set_prefetch_ahead(kernels_.back());
    }
  }
  ~CudaFftPlan() override { release(); }
  std::size_t device_bytes() const override { return device_bytes_; }

  void execute(const void* in, void* out, std::size_t count, Stream stream) override {
    const std::size_t rows = std::min(count, spec().batch);
    if (rows == 0) return;
    const auto transforms = static_cast<long long>(layout_.paired_rows ? (rows + 1) / 2 : rows);
    auto s = static_cast<cudaStream_t>(stream);
    for (std::size_t i = 0; i < layout_.steps.size(); ++i) {
      const Step& step = layout_.steps[i];
      // Rows of a batched pass: batch_rows to each transform.
      const long long batched = transforms * step.batch_rows;
      const void* src = resolve(step.src, in, out);
      void* dst = const_cast<void*>(resolve(step.dst, in, out));
      if (step.kind == Step::Kind::cluster_pass) {
        ClusterLaunch launch(step.cluster, transforms, s);
        check(cudaLaunchKernelEx(&launch.config, cluster_kernel(step.cluster.cluster, step.cluster.m),
                                 step.cluster, src, dst),
              "cluster kernel launch");
      } else if (step.kind == Step::Kind::pair_split) {
        const long long elements = (step.split.n / 2 + 1) * transforms;
        pair_split_kernel<<<elementwise_blocks(elements), kElementwiseThreads, 0, s>>>(
            step.split, static_cast<const Cf*>(src), static_cast<Cf*>(dst), transforms,
            static_cast<long long>(rows));
      } else if (step.kind == Step::Kind::rader_dc) {
        PassDesc p = step.pass;
        p.rows = static_cast<long long>(rows);
        const long long blocks = (transforms + kRaderDcWarpsPerBlock - 1) / kRaderDcWarpsPerBlock;
        rader_dc_kernel<<<static_cast<unsigned>(blocks), 32 * kRaderDcWarpsPerBlock, 0, s>>>(
            p, step.rader, src, scratch_, dst, transforms);
      } else if (step.kind == Step::Kind::rader_gather) {
        PassDesc p = step.pass;
        p.rows = static_cast<long long>(rows);
        const long long elements = rader_outputs_kept(p, step.rader) * transforms;
        rader_gather_kernel<<<elementwise_blocks(elements), kElementwiseThreads, 0, s>>>(
            p, step.rader, scratch_, dst, transforms);
      } else if (step.kind == Step::Kind::direct_dft) {
        const DirectDftDesc& d = step.direct;
        const long long blocks = (transforms + d.rows_per_block - 1) / d.rows_per_block;
        if (direct_thread_rows(d.h)) {
          const DirectRowsKernel kernel = direct_rows_kernels[static_cast<std::size_t>(d.h - kMinDirectThreadLength)];
          kernel<<<static_cast<unsigned>(blocks), kDirectRowThreads, kernels_[i].shared_bytes, s>>>(
              d, static_cast<const float*>(src), static_cast<float*>(dst), transforms);
        } else {
          direct_dft_kernel<<<static_cast<unsigned>(blocks), kDirectBlockThreads, kernels_[i].shared_bytes, s>>>(
              d, static_cast<const float*>(src), static_cast<float*>(dst), transforms);
        }
      } else if (step.kind == Step::Kind::real_rows) {
        const long long per_row = step.rows.c2r ? step.rows.h : step.rows.h / 2 + 1;
        const dim3 grid(elementwise_blocks(per_row), static_cast<unsigned>(std::min<long long>(transforms, 65535)));
        real_rows_kernel<<<grid, kElementwiseThreads, 0, s>>>(step.rows, static_cast<const Cf*>(src),
                                                              static_cast<Cf*>(dst), transforms);
      } else if (step.kind == Step::Kind::transpose) {
        const TransposeDesc& d = step.transpose;
        // r2c_post: a block to a tile of the first half of the rows and its mirror.
        const long long tile_rows = d.rows / kTransposeTile / (d.r2c_post ? 2 : 1);
        const dim3 grid(static_cast<unsigned>(d.columns / kTransposeTile), static_cast<unsigned>(tile_rows),
                        static_cast<unsigned>(std::min<long long>(transforms, 65535)));
        const auto kernel = d.r2c_post ? transpose_r2c_kernel : transpose_kernel;
        kernel<<<grid, dim3(kTransposeTile, kTransposeTileRows), 0, s>>>(d, static_cast<const Cf*>(src),
                                                                        static_cast<Cf*>(dst), transforms);
      } else if (kernels_[i].rows != nullptr) {
        const RowsPassDesc& d = kernels_[i].rows_desc;
        const long long per_block = rows_per_block(d.n, d.kind, d.elements_per_thread);
        const long long blocks = (batched + per_block - 1) / per_block;
        kernels_[i].rows<<<static_cast<unsigned>(blocks), rows_block_threads(d.n, d.kind, d.elements_per_thread),
                           kernels_[i].shared_bytes, s>>>(d, src, dst, batched);
      } else if (kernels_[i].four_step != nullptr) {
        const FourStepPassDesc& d = kernels_[i].four_step_desc;
        const int teams = four_step_teams(d.kind, d.n);
        const long long blocks = transforms * (d.inner_count / teams);
        kernels_[i].four_step<<<static_cast<unsigned>(blocks), teams * four_step_team_threads(d.n),
                                kernels_[i].shared_bytes, s>>>(d, src, dst);
      } else {
        PassDesc p = step.pass;
        p.rows = static_cast<long long>(rows);
        const long long outer = p.inner_is_batch ? 1 : transforms;
        const long long inner = p.inner_is_batch ? batched : p.inner_count;
        const long long blocks = outer * ((inner + p.per_block - 1) / p.per_block);
        kernels_[i].pass<<<static_cast<unsigned>(blocks), p.threads, kernels_[i].shared_bytes, s>>>(
            p, src, dst, inner);
      }
      check(cudaGetLastError(), "kernel launch");
    }
  }

 private:
  const Cf* table(int id) const { return id < 0 ? nullptr : tables_[static_cast<std::size_t>(id)]; }
  const int* index_table(int id) const {
    return id < 0 ? nullptr : index_tables_[static_cast<std::size_t>(id)];
  }
  const void* resolve(BufferRef ref, const void* in, void* out) const {
    switch (ref) {
      case BufferRef::input: return in;
      case BufferRef::output: return out;
      case BufferRef::scratch: return scratch_;
      case BufferRef::pair_spectra: return pair_spectra_;
    }
    return nullptr;
  }
  void release() {
    if (table_memory_) cudaFree(table_memory_);
    table_memory_ = nullptr;
    tables_.clear();
    index_tables_.clear();
    if (scratch_) cudaFree(scratch_);
    scratch_ = nullptr;
    pair_spectra_ = nullptr;
  }

  PlanLayout layout_;
  Cf* table_memory_ = nullptr;
  std::vector<Cf*> tables_;
  std::vector<int*> index_tables_;
  std::vector<KernelChoice> kernels_;  // per step (fft passes)
  Cf* scratch_ = nullptr;
  Cf* pair_spectra_ = nullptr;  // inside scratch_
  std::size_t device_bytes_ = 0;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(Precision precision) : precision_(precision) {}
  BackendKind kind() const override { return BackendKind::cuda; }
  Precision precision() const override { return precision_; }
  bool device_memory() const override { return true; }
  std::unique_ptr<Plan> plan(const PlanSpec& spec) override {
    if (precision_ == Precision::float64) {
      // An empty spec is refused with our planner's reason, not cuFFT's.
      if (spec.n == 0 || spec.batch == 0 || fp64_plan_problem(spec, device_shared_limit()).empty())
        return make_cuda_fp64_plan(spec, device_shared_limit());
      return cufft().plan(spec);
    }
    if (static_cast<long long>(spec.n) > kMaxPlannedLength) {
      return cufft().plan(spec);
    }
    // The wisdom file's winner for this device and length, where `prism fft-tune` measured one.
    PlanLayout layout = make_plan_layout(spec, for_current_device(planner_options_for(spec)));
    // Devices with less shared memory per block than the plan's passes need: cuFFT.
    if (max_launch_shared_bytes(layout) > device_shared_limit()) {
      return cufft().plan(spec);
    }
    return std::make_unique<CudaFftPlan>(spec, std::move(layout));
  }
  std::unique_ptr<NdPlan> plan_nd(const NdPlanSpec& spec) override {
    if (precision_ == Precision::float64) {
      return cufft().plan_nd(spec);
    }
    return make_cuda_nd_plan(spec, *this);
  }
  std::string describe() const override {
    int device = 0;
    cudaDeviceProp prop{};
    std::string name = "no device";
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      name = prop.name;
    }
    if (precision_ == Precision::float64)
      return "prism CUDA FFT (Stockham / four-step, double precision; cuFFT for prime factors above 13 and lengths "
             "without a two-pass split) on " + name;
    return "prism CUDA FFT (Stockham / four-step / Bluestein / direct DFT, single precision) on " + name;
  }

 private:
  // cuFFT in this backend's precision, made at the first plan it takes.
  Backend& cufft() {
    if (!cufft_) cufft_ = make_cufft_backend(precision_);
    return *cufft_;
  }

  Precision precision_;
  std::unique_ptr<Backend> cufft_;
};

}  // namespace

std::unique_ptr<Plan> make_cuda_plan(const PlanSpec& spec, const PlannerOptions& options) {
  return std::make_unique<CudaFftPlan>(spec, make_plan_layout(spec, for_current_device(options)));
}

std::unique_ptr<Plan> make_cuda_columns_plan(const ColumnsSpec& spec) {
  PlanLayout layout = make_columns_layout(spec);
  const PlanSpec plan_spec = layout.spec;
  return std::make_unique<CudaFftPlan>(plan_spec, std::move(layout));
}

long long device_shared_bytes_limit() { return device_shared_limit(); }

std::string describe_cuda_plan(const PlanSpec& spec) {
  return make_plan_layout(spec, for_current_device(planner_options_for(spec))).algorithm;
}

}  // namespace gpu

std::unique_ptr<Backend> make_cuda_backend(Precision precision) {
  return std::make_unique<gpu::CudaBackend>(precision);
}

Availability cuda_device_availability() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return {false, std::string("no usable CUDA device: ") + cudaGetErrorString(status)};
  }
  if (count == 0) return {false, "no CUDA device found"};
  return {true, ""};
}

}  // namespace prism::fft
