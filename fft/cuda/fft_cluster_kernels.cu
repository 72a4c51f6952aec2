// Compiles the cluster pass kernel (fft_cluster_kernel.cuh) for every cluster size and block
// length the planner uses (kClusterSizes x kClusterBlockLengths).
#include "fft/cuda/fft_cluster_kernel.cuh"

namespace prism::fft::gpu {
namespace {

template <int kM>
ClusterKernel cluster_kernel_of_length(int cluster) {
  switch (cluster) {
    case 2: return fft_cluster_kernel<2, kM>;
    case 4: return fft_cluster_kernel<4, kM>;
    case 8: return fft_cluster_kernel<8, kM>;
    default: return nullptr;
  }
}

}  // namespace

ClusterKernel cluster_kernel(int cluster, int m) {
  static_assert(sizeof(kClusterSizes) / sizeof(int) == 3 && sizeof(kClusterBlockLengths) / sizeof(int) == 2,
                "update the kernels compiled here");
  switch (m) {
    case 8192: return cluster_kernel_of_length<8192>(cluster);
    case 16384: return cluster_kernel_of_length<16384>(cluster);
    default: return nullptr;
  }
}

}  // namespace prism::fft::gpu
