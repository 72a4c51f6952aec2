// CpuSpectrogram: the spectrogram stage on the CPU (samples -> rows), with FFTW. Its rows are those of
// scipy.signal.spectrogram (scipy 1.10) for the same parameters — frames of nperseg samples
// every hop = nperseg - noverlap samples from sample 0, complete frames only; the segment
// mean removed (detrend constant); the window applied; zero-padded to nfft; one-sided for
// real input, two-sided and centred (fftshift) for complex input; psd or magnitude with
// density or spectrum scaling — plus prism's decibels and K-frame averaging (mean or max of
// the linear values, then dB), and the mel modes: torchaudio's mel bands of |X|^power and their
// cepstrum (MFCC), on the same frames (spectrogram_params.hpp). precision double computes
// everything in double and writes double rows.
//
// Exactness: a frame that spans two chunks is computed from a history of the samples still
// needed, and every frame goes through the same code, the same FFT plan and buffers of the
// same alignment, whichever chunk, batch or thread computes it. So the rows are bit-identical
// for any cutting of the input into chunks and any thread count.
//
// Threads: the frames of a chunk are shared between the calling thread and threads-1
// persistent workers (started at configure(), woken per chunk by semaphores). Each has its own
// scratch buffers; nothing is allocated or locked after configure().
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "spectrogram_params.hpp"
#include "stage.hpp"

namespace prism {

// The engine behind a CpuSpectrogram, in float or in double (cpu_spectrogram.cpp).
struct CpuSpectrogramEngine;

class CpuSpectrogram final : public Stage {
 public:
  // params: checked here (UsageError naming the setting through `name`); threads: threads that
  // compute frames, the calling thread included, 0 meaning std::thread::hardware_concurrency().
  explicit CpuSpectrogram(const SpectrogramParams& params, unsigned threads = 0,
                          KeyNamer name = plain_key_names());
  ~CpuSpectrogram() override;

  CpuSpectrogram(const CpuSpectrogram&) = delete;
  CpuSpectrogram& operator=(const CpuSpectrogram&) = delete;

  std::string name() const override { return "spectrogram"; }
  // e.g. "cpu: FFTW 3.3.10 (single precision), 2 threads".
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::rows; }
  // Any sample format, any channel count, sample_rate > 0; the channel must exist (UsageError).
  // Frames are read straight from the chunks, so no buffer depends on max_input_items.
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override;
  std::size_t process(const Chunk& input, Chunk& output) override;
  // Writes nothing: like scipy, samples that fill no complete frame (and frames that fill no
  // complete average) are dropped; counters() reports them.
  void reset() override;
  // Safe to call from another thread while process() runs.
  StageCounters counters() const override;

  // The rows' meaning (after configure()).
  const SpectrumLayout& layout() const;
  // Threads that compute frames, the calling thread included.
  unsigned threads() const;

 private:
  SpectrogramParams params_;
  unsigned threads_;
  KeyNamer name_;
  std::unique_ptr<CpuSpectrogramEngine> impl_;
};

}  // namespace prism
