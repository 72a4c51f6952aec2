// The cluster pass kernel of our CUDA FFT: one transform of n = C*M on a thread-block cluster of
// C blocks that exchange through distributed shared memory (ClusterPassDesc, fft_pass.hpp, gives
// the algorithm). Compiled for sm_90 and later; fft_cluster_kernels.cu instantiates it.
//
// Cluster barriers order the phases: every block has started before any writes into its shared
// memory (scatter), every block's scatter before the M-point FFTs, every FFT before the combine,
// and every read of a block's shared memory before that block exits.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "fft/cuda/fft_pass_kernel.cuh"
#include "fft/cuda/fft_pass_kernels.hpp"

namespace prism::fft::gpu {

// Blocks of M / 16 threads, 64 registers each like the pass kernels (two blocks per
// multiprocessor for M = 8192, one for 16384).
template <int kC, int kM>
__global__ void __launch_bounds__(cluster_threads(kM), kMaxThreadsPerBlock / cluster_threads(kM))
    fft_cluster_kernel(const ClusterPassDesc d, const void* src, void* dst) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  constexpr int kThreads = cluster_threads(kM);
  constexpr int kPlane = cluster_plane_floats(kM);
  constexpr int kPerThread = kM / kThreads;  // elements each thread loads
  constexpr int kSlots = kM / kC / kThreads;  // values k2 each thread combines
  static_assert(kSlots >= 1, "a cluster pass gives every thread at least one k2");
  extern __shared__ float shared[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const long long transform = blockIdx.x / kC;
  const int tid = static_cast<int>(threadIdx.x);
  const long long n = static_cast<long long>(kC) * kM;

  // The block's own shared memory directly, the others' through the cluster's window.
  auto planes_of = [&](int block) {
    return block == rank ? shared : cluster.map_shared_rank(shared, block);
  };
  auto put = [&](int block, int i, Cf v) {
    float* planes = planes_of(block);
    planes[smem_pad(i)] = v.re;
    planes[kPlane + smem_pad(i)] = v.im;
  };
  auto get = [&](int block, int i) {
    const float* planes = planes_of(block);
    return Cf{planes[smem_pad(i)], planes[kPlane + smem_pad(i)]};
  };
  auto scatter = [&](long long j, Cf v) {
    put(cluster_block_of(j, kC), cluster_position_of(j, kC), v);
  };

  // Load segment `rank` of the input (all loads issued before the barrier that lets the
  // scatter begin), then scatter it.
  const long long first = static_cast<long long>(rank) * kM;
  if (d.real_step == RealStep::c2r_pre) {
    const Cf* x = static_cast<const Cf*>(src) + transform * d.in_dist;
    Cf q[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
      q[u] = c2r_pre_of_row(x, static_cast<int>(n), static_cast<int>(first) + tid + u * kThreads,
                            d.real_tw);
    }
    cluster.sync();
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) scatter(first + tid + u * kThreads, q[u]);
  } else {
    const Cf* x = static_cast<const Cf*>(src) + transform * d.in_dist + first;
    if (aligned16(x)) {
      float4 q[kPerThread / 2];
#pragma unroll
      for (int u = 0; u < kPerThread / 2; ++u) q[u] = reinterpret_cast<const float4*>(x)[tid + u * kThreads];
      cluster.sync();
#pragma unroll
      for (int u = 0; u < kPerThread / 2; ++u) {
        const long long j = first + 2 * (tid + u * kThreads);
        Cf a{q[u].x, q[u].y};
        Cf b{q[u].z, q[u].w};
        if (d.conj_in) {
          a = conj(a);
          b = conj(b);
        }
        scatter(j, a);
        scatter(j + 1, b);
      }
    } else {
      Cf q[kPerThread];
#pragma unroll
      for (int u = 0; u < kPerThread; ++u) q[u] = x[tid + u * kThreads];
      cluster.sync();
#pragma unroll
      for (int u = 0; u < kPerThread; ++u) {
        scatter(first + tid + u * kThreads, d.conj_in ? conj(q[u]) : q[u]);
      }
    }
  }
  cluster.sync();

  // The M-point FFT of this block's sequence, in place in its own shared memory.
  const SharedPlanes own{shared, shared + kPlane, kPlane};
  fixed_stages<kM, 0, 1, StageIn::shared, StageOut::shared>(d.stage_tw, own, 1, DirectIo{});
  cluster.sync();

  // Combine: each k2 of segment `rank` is read, and (r2c) written back, by one thread only.
  Cf z[kSlots][kC];
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const int k2 = rank * (kM / kC) + tid + s * kThreads;
#pragma unroll
    for (int r = 0; r < kC; ++r) z[s][r] = get(r, k2);
    cluster_combine<kC>(d, k2, z[s]);
  }
  Cf* out = static_cast<Cf*>(dst) + transform * d.out_dist;
  if (d.real_step == RealStep::r2c_post) {
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int k2 = rank * (kM / kC) + tid + s * kThreads;
#pragma unroll
      for (int k1 = 0; k1 < kC; ++k1) put(k1, k2, z[s][k1]);
    }
    cluster.sync();
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int k2 = rank * (kM / kC) + tid + s * kThreads;
#pragma unroll
      for (int k1 = 0; k1 < kC; ++k1) {
        const long long k = k2 + static_cast<long long>(kM) * k1;
        const long long partner = k == 0 ? 0 : n - k;
        const Cf z_partner = get(static_cast<int>(partner / kM), static_cast<int>(partner % kM));
        out[k] = r2c_post_value(z[s][k1], z_partner, load_table(d.real_tw, k));
        if (k == 0) out[n] = r2c_post_value(z[s][k1], z[s][k1], load_table(d.real_tw, n));
      }
    }
  } else {
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int k2 = rank * (kM / kC) + tid + s * kThreads;
#pragma unroll
      for (int k1 = 0; k1 < kC; ++k1) {
        out[k2 + static_cast<long long>(kM) * k1] = d.conj_out ? conj(z[s][k1]) : z[s][k1];
      }
    }
  }
  cluster.sync();
#else
  __trap();  // cluster passes are planned only on devices with cluster launch (sm_90+)
#endif
}

}  // namespace prism::fft::gpu
