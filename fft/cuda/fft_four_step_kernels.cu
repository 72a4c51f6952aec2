// Compiles the four-step kernel (fft_four_step_kernel.cuh) for every power of two from
// kFourStepMinLength to kFourStepMaxLength, each FourStepKind and both shapes (n1 = n2, n2 = 2 n1).
#include "fft/cuda/fft_four_step_kernel.cuh"
#include "fft/cuda/fft_pass_kernels.hpp"

namespace prism::fft::gpu {
namespace {

template <int kN, FourStepKind kKind>
FourStepKernel four_step_kernel_of_shape(bool wide) {
  return wide ? fft_four_step_kernel<kN, kKind, true> : fft_four_step_kernel<kN, kKind, false>;
}

template <int kN>
FourStepKernel four_step_kernel_of_length(FourStepKind kind, bool wide) {
  switch (kind) {
    case FourStepKind::columns: return four_step_kernel_of_shape<kN, FourStepKind::columns>(wide);
    case FourStepKind::columns_inverse:
      return four_step_kernel_of_shape<kN, FourStepKind::columns_inverse>(wide);
    case FourStepKind::rows: return four_step_kernel_of_shape<kN, FourStepKind::rows>(wide);
    case FourStepKind::rows_inverse: return four_step_kernel_of_shape<kN, FourStepKind::rows_inverse>(wide);
    case FourStepKind::rows_real: return four_step_kernel_of_shape<kN, FourStepKind::rows_real>(wide);
    case FourStepKind::columns_real: return four_step_kernel_of_shape<kN, FourStepKind::columns_real>(wide);
  }
  return nullptr;
}

}  // namespace

FourStepKernel four_step_kernel(int n, FourStepKind kind, bool wide) {
  static_assert(kFourStepMinLength == 128 && kFourStepMaxLength == 4096,
                "update the kernels compiled here");
  switch (n) {
    case 128: return four_step_kernel_of_length<128>(kind, wide);
    case 256: return four_step_kernel_of_length<256>(kind, wide);
    case 512: return four_step_kernel_of_length<512>(kind, wide);
    case 1024: return four_step_kernel_of_length<1024>(kind, wide);
    case 2048: return four_step_kernel_of_length<2048>(kind, wide);
    case 4096: return four_step_kernel_of_length<4096>(kind, wide);
    default: return nullptr;
  }
}

}  // namespace prism::fft::gpu
