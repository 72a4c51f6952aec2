// The fused DCT-IV kernels (cuda_dct_fused.cuh) of lengths 128 to 8192; a unit of its own so that
// nvcc compiles them beside the other types.
#include "fft/cuda/cuda_dct_fused.cuh"

namespace prism::fft::gpu {

template <int kN>
int launch_type4(const DctStepArgs& args, const Cf* stage, const float* in, float* out, long long rows,
                 void* stream) {
  return launch_dct_fused<decltype(&dct_type4_fused_kernel<kN>), kN>(&dct_type4_fused_kernel<kN>, rows, stream, args,
                                                                     stage, in, out);
}

int launch_dct_type4_fused(const DctStepArgs& args, const Cf* stage_twiddles, const float* in, float* out,
                           long long rows, void* stream) {
  switch (args.n) {
    case 128: return launch_type4<64>(args, stage_twiddles, in, out, rows, stream);
    case 256: return launch_type4<128>(args, stage_twiddles, in, out, rows, stream);
    case 512: return launch_type4<256>(args, stage_twiddles, in, out, rows, stream);
    case 1024: return launch_type4<512>(args, stage_twiddles, in, out, rows, stream);
    case 2048: return launch_type4<1024>(args, stage_twiddles, in, out, rows, stream);
    case 4096: return launch_type4<2048>(args, stage_twiddles, in, out, rows, stream);
    case 8192: return launch_type4<4096>(args, stage_twiddles, in, out, rows, stream);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace prism::fft::gpu
