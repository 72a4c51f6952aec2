// make_spectrogram_processor (processor_factory.hpp).
#include "pipeline/processor_factory.hpp"

#include <stdexcept>

#include "pipeline/cpu_spectrogram.hpp"
#if PRISM_HAVE_CUDA
#include "pipeline/cuda/cuda_spectrogram.hpp"
#endif

namespace prism {

MadeProcessor make_spectrogram_processor(const ProcessorChoice& choice, const SpectrogramParams& params,
                                         const StreamInfo& stream, std::size_t block_samples) {
  MadeProcessor made;
  fft::BackendKind requested = choice.backend;
  // automatic on a machine without a GPU is the CPU, without a note: nothing was asked of a GPU.
  if (requested == fft::BackendKind::automatic &&
      !fft::backend_availability(fft::BackendKind::cufft).available)
    requested = fft::BackendKind::cpu;
  if (requested != fft::BackendKind::cpu) {
#if PRISM_HAVE_CUDA
    cuda::CudaEngineOptions engine;
    engine.device = choice.device;
    engine.blocks_in_flight = choice.in_flight;
    engine.row_stage = choice.row_stage;
    // cuda and automatic run our kernels: the fused kernel where it reaches, else our FFT
    // library between the framing and detector kernels; cufft keeps cuFFT there, for comparison.
    engine.path = requested == fft::BackendKind::cufft ? cuda::TransformPath::cufft : cuda::TransformPath::fused;
    try {
      made.processor = std::make_unique<cuda::CudaSpectrogram>(stream, params, block_samples, engine);
      made.memory = HostMemoryKind::cuda_pinned;
      made.row_stage_applied = choice.row_stage != nullptr;
      return made;
    } catch (const cuda::CudaError& e) {
      if (requested != fft::BackendKind::automatic)
        throw std::runtime_error("--backend " + std::string(fft::backend_name(requested)) + ": " + e.what());
      made.note = std::string("--backend auto: the GPU engine is not available (") + e.what() +
                  "); using the CPU backend";
    }
#else
    fft::resolve_backend(requested);  // automatic gives the CPU; cuda/cufft throw the reason
#endif
  }
  made.processor = std::make_unique<CpuSpectrogram>(stream, params, block_samples, choice.cpu_threads);
  return made;
}

}  // namespace prism
