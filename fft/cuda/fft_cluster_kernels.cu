// Compiles the cluster pass kernel (fft_cluster_kernel.cuh) for every cluster size and block
// length the planner uses (kClusterSizes x kClusterBlockLengths).
#include "fft/cuda/fft_cluster_kernel.cuh"

namespace prism::fft::gpu {

ClusterKernel cluster_kernel(int cluster, int m) {
  static_assert(sizeof(kClusterSizes) / sizeof(int) == 3 && sizeof(kClusterBlockLengths) / sizeof(int) == 2,
                "update the kernels compiled here");
  if (m == 8192) {
    switch (cluster) {
      case 2: return fft_cluster_kernel<2, 8192>;
      case 4: return fft_cluster_kernel<4, 8192>;
      case 8: return fft_cluster_kernel<8, 8192>;
      default: return nullptr;
    }
  }
  if (m == 16384) {
    switch (cluster) {
      case 2: return fft_cluster_kernel<2, 16384>;
      case 4: return fft_cluster_kernel<4, 16384>;
      case 8: return fft_cluster_kernel<8, 16384>;
      default: return nullptr;
    }
  }
  return nullptr;
}

}  // namespace prism::fft::gpu
