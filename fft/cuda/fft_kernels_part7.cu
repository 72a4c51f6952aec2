// Pass kernels of kCompiledLengths, part 7 of kKernelParts (see fft_pass_kernels.hpp).
#include "fft/cuda/fft_kernel_part.cuh"

template prism::fft::gpu::KernelPart prism::fft::gpu::kernel_part<7>();
