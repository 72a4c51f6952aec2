// The tuning mode of our CUDA FFT: measures the planner's candidates (fft_wisdom.hpp,
// planner_candidates) on a device and picks the fastest whose output agrees with the default
// plan's; planner_options_for() gives the plan-time choice from the wisdom file. Declarations
// only use standard types, so host code (the CLI) includes this header without CUDA; the
// definitions are in fft_tune.cu (prism_fft_cuda, CUDA builds only).
#pragma once

#include <cstddef>
#include <functional>

#include "fft/cuda/fft_wisdom.hpp"

namespace prism::fft::gpu {

struct TuneSettings {
  int runs = 25;  // timed executions per candidate, of which the median counts (at least 20)
  // Called before each candidate is measured with its index (0-based) and the candidate count:
  // the CLI's progress line.
  std::function<void(std::size_t candidate, std::size_t candidates)> progress;
};

// The device as wisdom keys it (cudaGetDeviceProperties). Throws std::runtime_error naming
// the CUDA error when the device cannot be queried.
DeviceId cuda_device_id(int device);

// Measures every candidate for spec (out of place) on `device`: fresh random input, output
// poisoned with NaN and compared with the default plan's (relative L2 below 1e-5, or the
// candidate is rejected and cannot win), then CUDA events around each execute on a stream of its
// own, 3 warm-up runs and the median of settings.runs; plan creation is outside the timed region.
// A candidate replaces the default only when it is at least 1% faster (within the noise the
// default is kept). The entry's tune_seconds is the wall time of all of it. Returns the entry; recording it is the caller's (Wisdom::record,
// update_wisdom_file). Allocates input, output and reference buffers of the spec's batch.
// Throws std::invalid_argument for a spec the planner does not cover (n > kMaxPlannedLength:
// cuFFT computes those) and std::runtime_error when CUDA fails or the default plan fails.
WisdomEntry tune(const PlanSpec& spec, int device, const TuneSettings& settings = {});

// Plan time, for CudaBackend::plan: the options for spec on the calling thread's current device
// from the wisdom file at default_wisdom_path() (see lookup_planner_options: nearest batch
// class; a missing or unusable file gives the defaults, the latter with one warning on stderr).
// Never throws for a missing device or file: the defaults are always a valid plan.
PlannerOptions planner_options_for(const PlanSpec& spec);

// Fills `count` floats of device memory with uniform values in [-0.5, 0.5) from a hash of each
// element's index and `seed` (reproducible, no generator state): fresh input for measurements,
// the tuning's and fft_bench's. Launches on `stream` (a cudaStream_t, cast; null: the default
// stream). Throws std::runtime_error when the launch fails.
void fill_uniform_random(float* device_data, std::size_t count, unsigned long long seed,
                         void* stream = nullptr);

}  // namespace prism::fft::gpu
