// The spectrogram processor for a requested backend, as `prism spectrogram` and `prism view`
// choose it: cpu (CpuSpectrogram, FFTW), cuda (the CUDA streaming engine on prism's own FFT
// kernels), cufft (the same engine on cuFFT) or automatic (the GPU when one can be set up, the
// CPU otherwise, with a note saying why). GPU processors want a pinned block pool: `memory`
// says which host memory the pipeline's pool should use.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "fft/fft.hpp"
#include "pipeline/device_row_stage.hpp"
#include "pipeline/host_memory.hpp"
#include "pipeline/processor.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/stream_info.hpp"

namespace prism {

struct ProcessorChoice {
  fft::BackendKind backend = fft::BackendKind::automatic;
  int device = 0;                // CUDA device
  std::size_t in_flight = 2;     // blocks in flight on the GPU
  unsigned cpu_threads = 0;      // CPU backend: worker threads (0: all cores)
  // GPU backends: work on the rows on the device before they leave it (not owned). The CPU
  // backend ignores it; MadeProcessor::row_stage_applied says which happened.
  DeviceRowStage* row_stage = nullptr;
};

struct MadeProcessor {
  std::unique_ptr<Processor> processor;
  HostMemoryKind memory = HostMemoryKind::page_aligned;
  std::string note;  // automatic that fell back to the CPU: why (empty otherwise)
  bool row_stage_applied = false;  // the processor hands out the row stage's rows
};

// Throws UsageError for bad parameters, and std::runtime_error naming the backend when an
// explicitly requested GPU backend cannot be used ("--backend cuda: no CUDA device ...").
MadeProcessor make_spectrogram_processor(const ProcessorChoice& choice, const SpectrogramParams& params,
                                         const StreamInfo& stream, std::size_t block_samples);

}  // namespace prism
