// PRISM_CUDA_FAULT's kinds (gpu::injected_fault, pipeline/gpu_runtime.hpp), without a GPU: which
// calls each kind covers, that N calls of the kind pass before one fails, once, and the error's
// text. The call kinds' setting is read once per process, so it is set before main() runs; alloc's
// is read as each GPU stage is made.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "pipeline/errors.hpp"
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

TEST(GpuFault, EachCallCountsAsItsKind) {
  const struct {
    const char* call;
    const char* kind;
  } cases[] = {
      {"cudaMemcpyAsync", "copy"},
      {"cudaMemcpy2DAsync", "copy"},
      {"cudaMemsetAsync (poison)", "copy"},
      {"fused_kernel launch", "launch"},
      {"fir_kernel launch", "launch"},
      {"cudaGraphLaunch", "launch"},
      {"cudaStreamSynchronize", "sync"},
      {"cudaEventSynchronize (descriptor slot)", "sync"},
      {"cudaDeviceSynchronize", "sync"},
      {"cudaEventRecord", "event"},
      {"cudaStreamWaitEvent", "event"},
      {"cufftExecC2C", "fft"},
      {"cufftPlanMany", "fft"},
      // Not covered: device selection, creating streams and events, allocations (alloc@N is
      // injected by the GPU stages themselves), and names that only contain a kind's word.
      {"cudaSetDevice", ""},
      {"cudaStreamCreateWithFlags", ""},
      {"cudaEventCreateWithFlags", ""},
      {"cudaMalloc (history, 1 MiB)", ""},
      {"cudaMallocAsync", ""},
      {"launch of nothing", ""},
      {"memcpy", ""},
  };
  for (const auto& c : cases) EXPECT_EQ(gpu::fault_kind_of(c.call), c.kind) << c.call;
}

TEST(GpuFault, AllocIsLeftToTheStages) {
  // PRISM_CUDA_FAULT=launch@2 names no allocation to fail.
  EXPECT_EQ(gpu::injected_alloc_call(), -1);
}

TEST(GpuFault, AllocIsReadWhenEachStageIsMadeAndTheCallKindsOnce) {
  EXPECT_EQ(gpu::injected_fault("cudaSetDevice"), "");  // the call kinds' setting is read by now
  ASSERT_EQ(setenv("PRISM_CUDA_FAULT", "alloc@7", 1), 0);
  EXPECT_EQ(gpu::injected_alloc_call(), 7);
  ASSERT_EQ(setenv("PRISM_CUDA_FAULT", "alloc@0", 1), 0);
  EXPECT_EQ(gpu::injected_alloc_call(), 0);
  ASSERT_EQ(setenv("PRISM_CUDA_FAULT", "alloc@x", 1), 0);
  EXPECT_THROW(gpu::injected_alloc_call(), UsageError);
  // A call kind set now changes nothing: launch@2, read at the start, still holds.
  ASSERT_EQ(setenv("PRISM_CUDA_FAULT", "copy@0", 1), 0);
  EXPECT_EQ(gpu::injected_fault("cudaMemcpyAsync"), "");
  EXPECT_EQ(gpu::injected_alloc_call(), -1);
  ASSERT_EQ(setenv("PRISM_CUDA_FAULT", "launch@2", 1), 0);
}

}  // namespace
}  // namespace prism
