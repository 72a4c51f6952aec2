// The GPU backends of the FFT interface (fft.hpp): ours (Stockham / four-step / Bluestein
// kernels in fft/cuda) and the cuFFT wrapper used for comparison and as the fallback. Buffers
// given to execute() are device pointers; execute() runs on the given CUDA stream and neither
// allocates nor synchronises.
#pragma once

#include <memory>
#include <string>

#include "fft/fft.hpp"

namespace prism::fft {

// Our kernels. Lengths beyond what the planner covers go to a cuFFT plan. In double precision
// (fft64_plan.hpp): our passes for lengths whose prime factors are at most 13 and that take one or
// two passes (powers of two up to 2^24 at Hopper's 227 KB of shared memory per block), cuFFT's
// double plans for the other lengths and for the
// multi-dimensional transforms.
std::unique_ptr<Backend> make_cuda_backend(Precision precision = Precision::float32);
// cuFFT, single or double precision.
std::unique_ptr<Backend> make_cufft_backend(Precision precision = Precision::float32);

// Whether a CUDA device can be used by this process, with the reason when it cannot
// (cudaGetDeviceCount failing, or no device).
Availability cuda_device_availability();

namespace gpu {
// Launches a plan layout's passes directly (tests and the benchmark use this to compare
// planner options on the same buffers).
struct PlannerOptions;
std::unique_ptr<Plan> make_cuda_plan(const PlanSpec& spec, const PlannerOptions& options);
// Human-readable description of the algorithm our planner picks for spec.
std::string describe_cuda_plan(const PlanSpec& spec);
// A columns pass (fft_plan.hpp's ColumnsSpec) as a plan: execute's count is the groups.
struct ColumnsSpec;
std::unique_ptr<Plan> make_cuda_columns_plan(const ColumnsSpec& spec);
// The shared memory per block this device lets our kernels take (at most the planner's limit).
long long device_shared_bytes_limit();
// A multi-dimensional plan of our backend (the steps of fft_nd_layout.hpp), its row steps planned
// by `rows_backend`, which must outlive it; and the steps in words.
std::unique_ptr<NdPlan> make_cuda_nd_plan(const NdPlanSpec& spec, Backend& rows_backend);
std::string describe_cuda_nd_plan(const NdPlanSpec& spec);
// A double-precision plan of our kernels (make_fp64_layout at this shared-memory limit); throws
// std::invalid_argument for a spec they do not take.
std::unique_ptr<Plan> make_cuda_fp64_plan(const PlanSpec& spec, long long shared_limit);
}  // namespace gpu

}  // namespace prism::fft
