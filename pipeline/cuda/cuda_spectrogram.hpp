// CudaSpectrogram: the spectrogram stage on a CUDA device (samples -> rows, both in device
// memory). Same rows as CpuSpectrogram (scipy.signal.spectrogram semantics, prism's dB and
// K-frame averaging) to float rounding, for any cutting of the input into chunks and any number
// of chunks in flight. Plain C++ header: no CUDA types leak to its users.
//
// How a chunk moves through the graph: h2d (the raw chunk, native format, copied on the transfer
// stage's stream) -> this stage, which only enqueues on its own stream, after the chunk's ready
// event: the chunk's descriptor (pinned, copied ahead of the work) and the per-chunk work, one
// CUDA graph per descriptor slot — convert + frame (history on the device) + detrend + window,
// FFT, detect + average (carried across chunks) + scale + dB — into the output chunk (modes mel
// and mfcc: into rows of the stage's own, which the mel kernel of gpu_mel_rows.hpp takes to
// bands, dB, logarithms and cepstra in the output chunk) -> d2h, or
// another GPU stage (the viewer's display lines). Every varying quantity of a chunk (its data and
// rows, its first sample, its frames, which history buffer is current) is in its descriptor, so
// the captured graph is the same for every chunk, the last short one included. Nothing is
// allocated and the device is never synchronised after configure().
//
// Transform paths:
//   fused  one kernel per chunk: convert, frame, detrend, window, our Stockham FFT (TeamFft of
//          fft/cuda/fft_team.cuh, the framing as its prologue) and the detector with averaging
//          as its epilogue, writing only final rows (power-of-two nfft, kFusedMinNfft up to
//          kFusedMaxRealNfft for real input, kFusedMaxComplexNfft for complex input);
//   prism  framing kernel -> our FFT library's plan (any nfft) -> detector kernel; what
//          --backend cuda runs where the fused kernel does not reach;
//   cufft  framing kernel -> cuFFT (R2C or C2C, batched) -> detector kernel (--backend cufft).
// Double precision (SpectrogramParams::double_precision) runs the prism or cufft path in double:
// the samples converted as convert_to_double, doubles in the history, frames, spectra, carry and
// rows, our FP64 FFT (cuFFT's double plans where it does not reach) or cuFFT's D2Z/Z2Z, and in
// modes mel and mfcc the mel kernel on double rows; the fused kernel is float only.
//
// Memory is sized from the parameters and the largest chunk only: device buffers, cuFFT's work
// area and the pinned descriptors are allocated in configure() and reported by device_bytes().
// Frames are computed in batches of a bounded size, so a tiny hop cannot blow up the buffers.
//
// Errors: every CUDA / cuFFT call is checked; a failure throws CudaError naming the call, the
// error and the device. Fault injection for tests: PRISM_CUDA_FAULT=alloc@N makes the N-th
// process() call (0-based) attempt an impossible device allocation through the same checked path;
// the other kinds (copy, launch, sync, event, fft) fail a checked call (gpu::injected_fault).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "pipeline/gpu_runtime.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/stage.hpp"

namespace prism::cuda {

enum class TransformPath { cufft, prism, fused };

inline constexpr std::size_t kFusedMinNfft = 64;
inline constexpr std::size_t kFusedMaxRealNfft = 16384;
inline constexpr std::size_t kFusedMaxComplexNfft = 8192;

// Whether the fused path covers these parameters (otherwise the prism path runs): single
// precision, power-of-two nfft in its range, and in modes mel and mfcc a power of 1 or 2.
bool fused_path_supports(const SpectrogramParams& params, bool complex_input);

struct DeviceInfo {
  bool usable = false;
  std::string reason;  // why not, when !usable
  int index = 0;
  std::string name;
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::string describe() const;  // "NVIDIA H200 (device 0, sm_90, 139.8 GiB)"
};

// Looks at device `index` without keeping anything: present, and able to run this build's
// kernels (an unsupported architecture is reported as such). Never throws.
DeviceInfo probe_device(int index);

struct CudaEngineOptions {
  int device = 0;
  TransformPath path = TransformPath::fused;
  bool use_graph = true;  // capture the per-chunk work once and replay it
  // Take the fused kernel wherever it reaches, even where long averages leave too few rows per
  // chunk to fill the device and the unfused path would be faster (tests use this).
  bool force_fused = false;
};

class CudaSpectrogram final : public Stage {
 public:
  // Checks the parameters (UsageError naming the setting through `name`) and the device (CudaError
  // when it is absent or cannot run this build's kernels); allocates nothing yet.
  CudaSpectrogram(const SpectrogramParams& params, const CudaEngineOptions& options,
                  KeyNamer name = plain_key_names());
  ~CudaSpectrogram() override;

  CudaSpectrogram(const CudaSpectrogram&) = delete;
  CudaSpectrogram& operator=(const CudaSpectrogram&) = delete;

  std::string name() const override { return "spectrogram"; }
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::rows; }
  MemoryDomain input_domain() const override;
  // Allocates the device buffers for chunks of up to max_input_items samples and captures the
  // graphs; UsageError when the channel does not exist, CudaError when the device refuses.
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override;
  // Enqueues the chunk's work on stream(); `input` stays untouched until that work is done.
  std::size_t process(const Chunk& input, Chunk& output) override;
  void reset() override;
  StageCounters counters() const override;
  gpu::Stream stream() const override;

  const SpectrumLayout& layout() const;  // after configure()
  std::size_t device_bytes() const;      // device memory this stage allocated (cuFFT's included)
  TransformPath path() const;            // the path that runs (fused falls back to prism)
  bool graph_in_use() const;
  const DeviceInfo& device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::cuda
