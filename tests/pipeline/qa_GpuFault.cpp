// PRISM_CUDA_FAULT's kinds (gpu::injected_fault, pipeline/gpu_runtime.hpp), without a GPU: which
// calls each kind covers, that N calls of the kind pass before one fails, once, and the error's
// text. The setting is read once per process, so it is set before main() runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "pipeline/gpu_runtime.hpp"

namespace prism {
namespace {

const int kFaultSet = setenv("PRISM_CUDA_FAULT", "launch@2", 1);

TEST(GpuFault, TheCallAfterNOfItsKindFailsOnce) {
  ASSERT_EQ(kFaultSet, 0);
  // PRISM_CUDA_FAULT=launch@2: calls of other kinds never fail.
  for (const char* other : {"cudaMemcpyAsync", "cudaMemsetAsync (poison)", "cudaEventRecord", "cudaStreamWaitEvent",
                            "cudaStreamSynchronize", "cudaEventSynchronize (descriptor slot)", "cufftExecC2C",
                            "cudaMalloc (history, 1 MiB)", "cudaSetDevice", "launch of nothing"})
    EXPECT_EQ(gpu::injected_fault(other), "") << other;
  EXPECT_EQ(gpu::injected_fault("fused_kernel launch"), "");
  EXPECT_EQ(gpu::injected_fault("cudaGraphLaunch"), "");
  EXPECT_EQ(gpu::injected_fault("fir_kernel launch"), "fault injected by PRISM_CUDA_FAULT=launch@2");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(gpu::injected_fault("cudaGraphLaunch"), "");
}

}  // namespace
}  // namespace prism
