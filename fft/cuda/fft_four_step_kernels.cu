// Compiles the four-step kernel (fft_four_step_kernel.cuh) for every power of two from
// kFourStepMinLength to kFourStepMaxLength, each FourStepKind and the shapes of has_four_step_shape,
// and for the decimal real rows (has_decimal_four_step_kernel).
#include "fft/cuda/fft_four_step_kernel.cuh"
#include "fft/cuda/fft_pass_kernels.hpp"

namespace prism::fft::gpu {
namespace {

template <int kN, FourStepKind kKind, FourStepShape kShape>
FourStepKernel four_step_kernel_if_compiled() {
  if constexpr (has_four_step_shape(kKind, kN, kShape)) {
    return fft_four_step_kernel<kN, kKind, kShape>;
  }
  return nullptr;
}

template <int kN, FourStepKind kKind>
FourStepKernel four_step_kernel_of_shape(FourStepShape shape) {
  switch (shape) {
    case FourStepShape::square: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::square>();
    case FourStepShape::wide: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::wide>();
    case FourStepShape::tall: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::tall>();
    case FourStepShape::tall4: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::tall4>();
    case FourStepShape::wide4: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::wide4>();
    case FourStepShape::wide8: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::wide8>();
    case FourStepShape::decimal: return four_step_kernel_if_compiled<kN, kKind, FourStepShape::decimal>();
  }
  return nullptr;
}

template <int kN>
FourStepKernel four_step_kernel_of_length(FourStepKind kind, FourStepShape shape) {
  switch (kind) {
    case FourStepKind::columns: return four_step_kernel_of_shape<kN, FourStepKind::columns>(shape);
    case FourStepKind::columns_inverse:
      return four_step_kernel_of_shape<kN, FourStepKind::columns_inverse>(shape);
    case FourStepKind::rows: return four_step_kernel_of_shape<kN, FourStepKind::rows>(shape);
    case FourStepKind::rows_inverse: return four_step_kernel_of_shape<kN, FourStepKind::rows_inverse>(shape);
    case FourStepKind::rows_real: return four_step_kernel_of_shape<kN, FourStepKind::rows_real>(shape);
    case FourStepKind::columns_real: return four_step_kernel_of_shape<kN, FourStepKind::columns_real>(shape);
  }
  return nullptr;
}

}  // namespace

FourStepKernel four_step_kernel(int n, FourStepKind kind, FourStepShape shape) {
  static_assert(kFourStepMinLength == 128 && kFourStepMaxLength == 4096 && has_decimal_four_step_kernel(500),
                "update the kernels compiled here");
  switch (n) {
    case 128: return four_step_kernel_of_length<128>(kind, shape);
    case 256: return four_step_kernel_of_length<256>(kind, shape);
    case 512: return four_step_kernel_of_length<512>(kind, shape);
    case 1024: return four_step_kernel_of_length<1024>(kind, shape);
    case 2048: return four_step_kernel_of_length<2048>(kind, shape);
    case 4096: return four_step_kernel_of_length<4096>(kind, shape);
    case 500: return four_step_kernel_of_length<500>(kind, shape);
    default: return nullptr;
  }
}

}  // namespace prism::fft::gpu
