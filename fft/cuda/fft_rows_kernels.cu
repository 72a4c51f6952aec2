// Compiles the rows kernel (fft_rows_kernel.cuh) for every power of two from kRowsMinLength to
// kRowsMaxLength and each RowsKind.
#include <utility>

#include "fft/cuda/fft_pass_kernels.hpp"
#include "fft/cuda/fft_rows_kernel.cuh"

namespace prism::fft::gpu {
namespace {

template <int kN>
RowsKernel rows_kernel_of_length(RowsKind kind) {
  switch (kind) {
    case RowsKind::forward: return fft_rows_kernel<kN, RowsKind::forward>;
    case RowsKind::inverse: return fft_rows_kernel<kN, RowsKind::inverse>;
    case RowsKind::real_forward: return fft_rows_kernel<kN, RowsKind::real_forward>;
    case RowsKind::real_inverse: return fft_rows_kernel<kN, RowsKind::real_inverse>;
  }
  return nullptr;
}

template <int... kLog2>
RowsKernel find_rows_kernel(int n, RowsKind kind, std::integer_sequence<int, kLog2...>) {
  RowsKernel kernel = nullptr;
  ((n == (kRowsMinLength << kLog2)
        ? (kernel = rows_kernel_of_length<(kRowsMinLength << kLog2)>(kind))
        : nullptr),
   ...);
  return kernel;
}

constexpr int log2_of(int n) { return n > 1 ? 1 + log2_of(n / 2) : 0; }

}  // namespace

RowsKernel rows_kernel(int n, RowsKind kind) {
  constexpr int kLengths = log2_of(kRowsMaxLength / kRowsMinLength) + 1;
  return find_rows_kernel(n, kind, std::make_integer_sequence<int, kLengths>{});
}

}  // namespace prism::fft::gpu
