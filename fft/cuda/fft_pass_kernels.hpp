// The compiled variants of the pass kernel, the Bluestein kernel and the plain rows kernel
// (fft_pass_kernel.cuh), as the host sees them: one of each per length of kCompiledLengths (the
// Bluestein kernel per BluesteinPass, the plain rows kernel per RowsKind), compiled in
// kKernelParts translation units so that a build spreads them over several compiler processes
// (fft_kernels_part<N>.cu). The kernels of kCompiledLengths[i] are entry
// i / kKernelParts of part i % kKernelParts. And the cluster pass kernels
// (fft_cluster_kernel.cuh), one per cluster size and block length, and the rows kernels
// (fft_rows_kernel.cuh), one per power-of-two length and RowsKind, and the four-step kernels
// (fft_four_step_kernel.cuh), one per power-of-two length, FourStepKind and shape.
#pragma once

#include "fft/cuda/fft_pass.hpp"

namespace prism::fft::gpu {

using PassKernel = void (*)(const PassDesc, const void*, void*, long long);

struct KernelPart {
  const PassKernel* kernels = nullptr;    // fft_pass_kernel of each length
  // fft_bluestein_kernel of each length and BluesteinPass (kBluesteinPasses * i + pass).
  const PassKernel* bluestein = nullptr;
  // fft_plain_rows_kernel of each length and RowsKind (kRowsKinds * i + kind); nullptr where
  // !has_plain_rows_kernel.
  const PassKernel* plain_rows = nullptr;
  int count = 0;
};

inline constexpr int kKernelParts = 8;
// The lengths kCompiledLengths[i] with i % kKernelParts == kPart; defined in
// fft_kernels_part<kPart>.cu.
template <int kPart>
KernelPart kernel_part();

using ClusterKernel = void (*)(const ClusterPassDesc, const void*, void*);
// The kernel of a cluster pass of `cluster` blocks (kClusterSizes) of length m
// (kClusterBlockLengths); nullptr for any other shape. Defined in fft_cluster_kernels.cu.
ClusterKernel cluster_kernel(int cluster, int m);

using RowsKernel = void (*)(const RowsPassDesc, const void*, void*, long long);
// The rows kernel of length n, kind and elements per thread: kElementsPerThread for the powers of
// two of has_rows_kernel (kWideTeamElements too where has_wide_rows_kernel(n)),
// kDecimalTeamElements for the decimal lengths (has_decimal_rows_kernel); nullptr for any other.
// Defined in fft_rows_kernels.cu.
RowsKernel rows_kernel(int n, RowsKind kind, int elements_per_thread = kElementsPerThread);

using FourStepKernel = void (*)(const FourStepPassDesc, const void*, void*);
// The four-step kernel of length n (a power of two from kFourStepMinLength to
// kFourStepMaxLength), kind and shape (FourStepPassDesc::shape); nullptr for any other length,
// or a shape not compiled for the kind (has_four_step_shape).
// Defined in fft_four_step_kernels.cu.
FourStepKernel four_step_kernel(int n, FourStepKind kind, FourStepShape shape);

}  // namespace prism::fft::gpu
