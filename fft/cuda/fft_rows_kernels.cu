// Compiles the rows kernel (fft_rows_kernel.cuh) for every power of two from kRowsMinLength to
// kRowsMaxLength and each RowsKind, with wide teams (kWideTeamElements) for kWideRowsLength, and
// for the decimal lengths (kDecimalTeamElements).
#include "fft/cuda/fft_pass_kernels.hpp"
#include "fft/cuda/fft_rows_kernel.cuh"

namespace prism::fft::gpu {
namespace {

template <int kN, int kE = rows_team_elements(kN)>
RowsKernel rows_kernel_of_length(RowsKind kind) {
  switch (kind) {
    case RowsKind::forward: return fft_rows_kernel<kN, RowsKind::forward, kE>;
    case RowsKind::inverse: return fft_rows_kernel<kN, RowsKind::inverse, kE>;
    case RowsKind::real_forward: return fft_rows_kernel<kN, RowsKind::real_forward, kE>;
    case RowsKind::real_inverse: return fft_rows_kernel<kN, RowsKind::real_inverse, kE>;
  }
  return nullptr;
}

}  // namespace

RowsKernel rows_kernel(int n, RowsKind kind, int elements_per_thread) {
  static_assert(kRowsMinLength == 32 && kRowsMaxLength == 16384 && kWideRowsLength == 8192,
                "update the kernels compiled here");
  if (elements_per_thread == kWideTeamElements) {
    return n == kWideRowsLength ? rows_kernel_of_length<kWideRowsLength, kWideTeamElements>(kind) : nullptr;
  }
  static_assert(has_decimal_rows_kernel(500) && has_decimal_rows_kernel(1000) && has_decimal_rows_kernel(2000) &&
                    has_decimal_rows_kernel(4000),
                "update the decimal kernels here");
  if (elements_per_thread == kDecimalTeamElements) {
    switch (n) {
      case 500: return rows_kernel_of_length<500>(kind);
      case 1000: return rows_kernel_of_length<1000>(kind);
      case 2000: return rows_kernel_of_length<2000>(kind);
      case 4000: return rows_kernel_of_length<4000>(kind);
      default: return nullptr;
    }
  }
  if (elements_per_thread != kElementsPerThread) return nullptr;
  switch (n) {
    case 32: return rows_kernel_of_length<32>(kind);
    case 64: return rows_kernel_of_length<64>(kind);
    case 128: return rows_kernel_of_length<128>(kind);
    case 256: return rows_kernel_of_length<256>(kind);
    case 512: return rows_kernel_of_length<512>(kind);
    case 1024: return rows_kernel_of_length<1024>(kind);
    case 2048: return rows_kernel_of_length<2048>(kind);
    case 4096: return rows_kernel_of_length<4096>(kind);
    case 8192: return rows_kernel_of_length<8192>(kind);
    case 16384: return rows_kernel_of_length<16384>(kind);
    default: return nullptr;
  }
}

}  // namespace prism::fft::gpu
