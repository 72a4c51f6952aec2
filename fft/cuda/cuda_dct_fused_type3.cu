// The fused DCT-III kernels (cuda_dct_fused.cuh) of lengths 128 to 8192; a unit of its own so that
// nvcc compiles them beside the other types.
#include "fft/cuda/cuda_dct_fused.cuh"

namespace prism::fft::gpu {

template <int kN>
int launch_type3(const DctStepArgs& args, const Cf* stage, const Cf* real, const float* in, float* out,
                 long long rows, void* stream) {
  return launch_dct_fused<decltype(&dct_type3_fused_kernel<kN>), kN, true>(&dct_type3_fused_kernel<kN>, rows,
                                                                           stream, args, stage, real, in, out);
}

int launch_dct_type3_fused(const DctStepArgs& args, const Cf* stage_twiddles, const Cf* real_twiddles,
                           const float* in, float* out, long long rows, void* stream) {
  switch (args.n) {
    case 128: return launch_type3<64>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 256: return launch_type3<128>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 512: return launch_type3<256>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 1024: return launch_type3<512>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 2048: return launch_type3<1024>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 4096: return launch_type3<2048>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
    case 8192: return launch_type3<4096>(args, stage_twiddles, real_twiddles, in, out, rows, stream);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace prism::fft::gpu
