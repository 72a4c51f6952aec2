// CudaFir: the fir stage on a CUDA device (samples -> samples, both in device memory): the same
// outputs as the CPU's FirFilter (fir_filter.hpp) to float rounding — alignment, shift with its
// exact phase, decimation — for any cutting of the input into chunks. One kernel per chunk
// computes the segments it completes, each as a forward FFT, the product with the filter's
// spectrum and an inverse FFT on our team FFT in shared memory (gpu_fir_plan.hpp has the
// geometry and the host's bookkeeping); a second keeps on the device the history the next
// chunk's segments read. The chunk arrives in its native format and is converted on load.
// In double precision (FirSpec::double_precision: f64/cf64 out, to the CPU's double outputs at
// double rounding) the segments go through five steps instead: gather, forward FFT (our FP64
// FFT, or cuFFT's double plans with Design::cufft_double), product, inverse FFT, store
// (cuda_fir64_kernels.cuh), at most kFir64SliceBytes of windows at a time.
// Plain C++ header: no CUDA types leak to its users.
//
// Without an fft_length the FFT length follows the taps (the capacity, FirSpec::max_taps, where it
// is set), the decimation and the largest chunk:
// of the automatic choices (gpu_fir_auto_choices, the fastest first), the first whose call of
// the largest chunk gives every multiprocessor a CTA, else the one spreading a call the widest
// (pick_gpu_fir_plan). Decimation by 2, 4 or 8 folds into a shorter inverse FFT where the plan
// has the lengths (gpu_fir_plan.hpp); elsewhere every D-th point of the whole inverse is kept. PRISM_GPU_FIR_FOLD=always|never
// pins the fold (the tests run both kernels at every chunk size). Real input with real taps and
// no shift takes two segments per transform, folded or not (GpuFirPlan::packed).
//
// Errors: every CUDA call is checked (CudaError naming the call, the error and the device);
// PRISM_CUDA_FAULT=alloc@N makes the N-th process() call (0-based) attempt an impossible
// allocation; the other kinds fail a checked call (gpu::injected_fault).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pipeline/fir_filter.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/stage.hpp"

namespace prism::cuda {

class CudaFir final : public Stage {
 public:
  // The filter for an input (its channel as f32 or cf32 at the input's rate): what the stage
  // registry's fir planner builds; UsageError naming a setting.
  struct Design {
    FirSpec spec;
    StreamInfo output;  // f32 or cf32 (f64 or cf64 in double), one channel, the rate and centre frequency derived
    // A complex output's real parts only, as f32 (the usb and lsb demodulators: Re of a complex
    // band-pass, gpu_channel_plan.hpp).
    bool real_part = false;
    // In double precision: cuFFT's double plans rather than our FP64 FFT.
    bool cufft_double = false;
  };
  using Planner = std::function<Design(const StreamInfo& input)>;

  // Checks the device (CudaError when absent or unable to run this build's kernels).
  CudaFir(unsigned channel, Planner planner, int device, KeyNamer name = plain_key_names());
  ~CudaFir() override;
  CudaFir(const CudaFir&) = delete;
  CudaFir& operator=(const CudaFir&) = delete;

  std::string name() const override { return "fir"; }
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::samples; }
  MemoryDomain input_domain() const override;
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override;
  std::size_t process(const Chunk& input, Chunk& output) override;
  std::size_t flush(Chunk& output) override;
  void reset() override;
  // New taps between calls, exact as FirFilter::set_taps (fir_filter.hpp): the outputs not yet
  // returned are the new filter's over the same history. The plan's capacity (FirSpec::max_taps)
  // bounds them; UsageError naming taps otherwise, the filter unchanged. The spectrum is copied
  // on the stage's stream, after the kernels already launched.
  void set_taps(const FilterTaps& taps);
  StageCounters counters() const override;
  gpu::Stream stream() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::cuda
