// CpuSpectrogram: the spectrogram processor on the CPU, with FFTW. Its rows are those of
// scipy.signal.spectrogram (scipy 1.10) for the same parameters — frames of nperseg samples
// every hop = nperseg - noverlap samples from sample 0, complete frames only; the segment
// mean removed (detrend constant); the window applied; zero-padded to nfft; one-sided for
// real input, two-sided and centred (fftshift) for complex input; psd or magnitude with
// density or spectrum scaling — plus prism's decibels and K-frame averaging (mean or max of
// the linear values, then dB).
//
// Exactness: a frame that spans two blocks is computed from a history of the samples still
// needed, and every frame goes through the same code, the same FFT plan and buffers of the
// same alignment, whichever block, batch or thread computes it. So the rows are bit-identical
// for any cutting of the input into blocks and any thread count.
//
// Threads: the frames of a block are shared between the calling thread and threads-1
// persistent workers (started here, woken per block by semaphores). Each has its own scratch
// buffers; nothing is allocated or locked after construction.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "pipeline/processor.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/stream_info.hpp"

namespace prism {

class CpuSpectrogram final : public Processor {
 public:
  // stream: the input (any SampleFormat, any channel count, sample_rate > 0).
  // params: validated here; params.channel must be < stream.channels.
  // max_block_samples: the largest block the pipeline will hand in. Frames are read straight
  //   from the blocks, so no buffer depends on it and larger blocks work too.
  // threads: threads that compute frames, the calling thread included; 0 means
  //   std::thread::hardware_concurrency().
  // Throws UsageError for parameters out of range, std::invalid_argument for a bad stream.
  CpuSpectrogram(const StreamInfo& stream, const SpectrogramParams& params,
                 std::size_t max_block_samples, unsigned threads = 0);
  ~CpuSpectrogram() override;

  CpuSpectrogram(const CpuSpectrogram&) = delete;
  CpuSpectrogram& operator=(const CpuSpectrogram&) = delete;

  const SpectrumLayout& layout() const override;
  std::size_t max_rows_per_block(std::size_t block_samples) const override;
  std::size_t process(const Block& block, float* rows) override;
  // Writes nothing: like scipy, samples that fill no complete frame (and frames that fill no
  // complete average) are dropped; counters() reports them.
  std::size_t finish(float* rows) override;
  // Safe to call from another thread while process() runs.
  ProcessorCounters counters() const override;
  // e.g. "cpu: FFTW 3.3.10 (single precision), 2 threads".
  std::string describe() const override;

  // Threads that compute frames, the calling thread included.
  unsigned threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism
