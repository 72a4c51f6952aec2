// CudaSpectrogram: the spectrogram processor on a CUDA device — the streaming engine of
// DESIGN.md "Data flow". Same rows as CpuSpectrogram (scipy.signal.spectrogram semantics,
// prism's dB and K-frame averaging) to float rounding, for any cutting of the input into blocks
// and any number of blocks in flight. Plain C++ header: no CUDA types leak to its users.
//
// How a block moves (k = blocks in flight, k+1 device slots):
//   submit(block i, its row buffer)   (the pipeline's way, Processor::submit)
//                     H2D of the raw block (native format) and its descriptor  [copy stream]
//                     the per-block work, one CUDA graph per slot               [compute stream]
//                       convert + frame (history on the device) + detrend + window,
//                       FFT, detect + average (carried across blocks) + scale + dB
//                       (then the caller's DeviceRowStage, if any, on the same stream)
//                     D2H of the finished rows into the buffer named with the block [D2H stream]
//                     then waits for block i-k's D2H (the only blocking call): rows come out
//                     k blocks late, in order. The pipeline's row buffers are pinned with a GPU
//                     processor, so the D2H is a DMA that overlaps the next blocks.
//   process_borrowed  the same with the engine's pinned staging as the row buffer, read in
//                     place.
//   process(block i, rows)  the rows of block i-k into `rows`: they stay on the device until
//                     then and come by one DMA at retirement (no CPU copy; no overlap of that
//                     D2H with the next block's copies).
//   retire() / drain()  the same retirement for each block still in flight, oldest first.
// Streams are ordered by events; nothing is allocated and the device is never synchronised as
// a whole after construction. Every varying quantity of a block (its first sample, its frames,
// which history buffer is current) is in a small descriptor copied with the block, so the
// captured graph is the same for every block, the last short one included.
//
// Transform paths:
//   fused  one kernel per block: convert, frame, detrend, window, our Stockham FFT (TeamFft of
//          fft/cuda/fft_team.cuh, the framing as its prologue) and the detector with averaging
//          as its epilogue, writing only final rows (power-of-two nfft, kFusedMinNfft up to
//          kFusedMaxRealNfft for real input, kFusedMaxComplexNfft for complex input);
//   prism  framing kernel -> our FFT library's plan (any nfft) -> detector kernel; what
//          --backend cuda runs where the fused kernel does not reach;
//   cufft  framing kernel -> cuFFT (R2C or C2C, batched) -> detector kernel (--backend cufft).
//
// Memory is sized from the parameters and the block size only: device buffers, cuFFT's work
// area and pinned staging are allocated here and reported by device_bytes() / host_bytes().
// Frames are computed in chunks of a bounded size, so a tiny hop cannot blow up the buffers.
//
// Errors: every CUDA / cuFFT call is checked; a failure throws CudaError naming the call, the
// error and the device. Fault injection for tests: PRISM_CUDA_FAULT=alloc@N makes the N-th
// process() call (0-based) attempt an impossible device allocation through the same checked path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "pipeline/device_row_stage.hpp"
#include "pipeline/processor.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/stream_info.hpp"

namespace prism::cuda {

// A failed CUDA runtime or cuFFT call: "cudaMalloc (1024 MiB): out of memory (device 0)".
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TransformPath { cufft, prism, fused };

inline constexpr std::size_t kFusedMinNfft = 64;
inline constexpr std::size_t kFusedMaxRealNfft = 16384;
inline constexpr std::size_t kFusedMaxComplexNfft = 8192;

// Whether the fused path covers these parameters (otherwise the prism path runs).
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
  TransformPath path = TransformPath::cufft;
  std::size_t blocks_in_flight = 2;  // k >= 1
  bool use_graph = true;             // capture the per-block work once and replay it
  // Take the fused kernel wherever it reaches, even where long averages leave too few rows per
  // block to fill the device and the unfused path would be faster (tests use this).
  bool force_fused = false;
  // Work on each block's rows on the device before they go to the host; the processor then
  // hands out the stage's rows (see DeviceRowStage). Not owned; must outlive the engine.
  DeviceRowStage* row_stage = nullptr;
};

class CudaSpectrogram final : public Processor {
 public:
  // stream/params as CpuSpectrogram; max_block_samples: the largest block process() accepts.
  // Throws UsageError for bad parameters, CudaError when the device cannot be set up.
  CudaSpectrogram(const StreamInfo& stream, const SpectrogramParams& params,
                  std::size_t max_block_samples, const CudaEngineOptions& options);
  ~CudaSpectrogram() override;

  CudaSpectrogram(const CudaSpectrogram&) = delete;
  CudaSpectrogram& operator=(const CudaSpectrogram&) = delete;

  const SpectrumLayout& layout() const override;
  std::size_t max_rows_per_block(std::size_t block_samples) const override;
  // `block.data` must stay untouched until k more blocks were given (pinned memory is fastest;
  // pageable memory works, with synchronous-speed copies).
  std::size_t process(const Block& block, float* rows) override;
  std::size_t finish(float* rows) override;
  std::size_t blocks_in_flight() const override;
  bool drain(float* rows, std::size_t& rows_written) override;
  // The pipeline's way: block i's rows are copied into `rows` as soon as its work is done
  // (pinned memory makes that a DMA that overlaps the next blocks); see Processor::submit.
  bool rows_named_at_submit() const override;
  std::size_t submit(const Block& block, float* rows) override;
  bool retire(std::size_t& rows_written) override;
  void cancel() noexcept override;
  ProcessorCounters counters() const override;
  std::string describe() const override;

  // As process(), without the copy out: `rows` points at the oldest block's rows in the
  // engine's pinned staging, valid until the next call (for callers that consume in place).
  std::size_t process_borrowed(const Block& block, const float*& rows);
  // As drain(), without the copy out (same lifetime as process_borrowed's rows).
  bool drain_borrowed(const float*& rows, std::size_t& rows_written);

  // Benchmark hook, on a fresh engine only (it leaves the stream state undefined): uploads
  // `block` once as the first block of a stream, then replays its per-block work `repetitions`
  // times on the device alone; returns the median time of one replay in milliseconds.
  double time_block_work_ms(const Block& block, int repetitions);

  std::size_t device_bytes() const;  // device memory this engine allocated (cuFFT's included)
  std::size_t host_bytes() const;    // pinned host staging this engine allocated
  TransformPath path() const;        // the path that runs (fused falls back to prism)
  bool graph_in_use() const;
  const DeviceInfo& device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::cuda
