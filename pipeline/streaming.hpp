// Synchronous streaming objects, for programs that already have a loop of their own (as MatX's
// and liquid-dsp's objects are used): samples in, outputs out, in the caller's thread, no graph.
//
//   prism::SpectrogramParams params;  params.nperseg = 1024;  params.noverlap = 512;
//   prism::StreamInfo input;  input.format = prism::SampleFormat::cf32;  input.sample_rate = 2.4e6;
//   prism::Spectrogram spectrogram(params, input);
//   std::vector<float> rows = spectrogram.feed(samples, n);  // rows × columns(), row-major
//   spectrogram.flush();  spectrogram.reset();
//
//   prism::StreamingStage filter("fir:lowpass=3000", input);  // any stage of the registry
//   std::vector<float> out = filter.feed(samples, n);         // f32, or cf32 as (re, im) pairs
//
// Each object drives one stage of the registry (stage_registry.hpp: spectrogram, fir, shift,
// resample, am, fm, usb, lsb, cw, gain) exactly as a Graph runs it: configure once, process block
// by block, flush at the end. The stages' outputs do not depend on how the input is cut (the
// stage harness tests every stage for that), so feed() with any block sizes gives the same items
// as `prism run` over the same input, bit for bit.
//
// Input: items in the StreamInfo's native format (an item is one sample of every channel).
// Output: floats — a row of columns() values per spectrogram row, one float per real sample, two
// per complex sample. feed() and flush() take host memory: a stage on a GPU (backend cuda) gets
// its input copied to the device and its output copied back, block by block, and the call returns
// when the outputs are there. feed_device() and flush_device() take the caller's device memory
// and CUDA stream, for a program that keeps its data on the GPU:
//
//   prism::Spectrogram spectrogram(params, input, environment);  // environment.backend = cuda
//   std::size_t rows = spectrogram.feed_device(d_samples, n, d_rows, stream);  // d_: cudaMalloc'd
//
// A GPU stage reads the input and writes the outputs in place (memory not aligned to 16 bytes is
// staged through a chunk of its own), on its own stream, ordered after the work the caller
// enqueued on `stream` before the call; work the caller enqueues on `stream` after the call sees
// the outputs, also when the call fails part-way. The count it returns is known on the host
// beforehand, and the call does not wait for the GPU, except that a spectrogram fed more blocks
// in one call than it keeps descriptors for (8) waits for its earlier blocks. The caller keeps the
// input unchanged until `stream` has passed the call (as for any work enqueued on a stream). A
// host stage (resample, fm, ...) fed device memory copies it through host memory, waiting for
// `stream`. The calling thread's current device is left as it was.
//
// Errors: UsageError naming the setting by its API name ("nperseg: ..."; "fir: lowpass: ..."),
// std::invalid_argument for misuse (feed after flush without reset). Not thread-safe: one caller
// at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu_runtime.hpp"
#include "port.hpp"
#include "spectrogram_params.hpp"
#include "stage_registry.hpp"
#include "stream_info.hpp"

namespace prism {

class StreamingStage {
 public:
  // Blocks of at most block_items items go to the stage at a time (feed() cuts longer input).
  // kDefaultBlockItems (0, not a size) takes kHostBlockItems for a stage on the host and
  // kGpuBlockItems for a stage on a GPU, which needs millions of items in a call to fill its
  // multiprocessors, halved until a block's outputs take at most kGpuBlockOutputBytes.
  static constexpr std::size_t kDefaultBlockItems = 0;
  static constexpr std::size_t kHostBlockItems = std::size_t{1} << 16;
  static constexpr std::size_t kGpuBlockItems = std::size_t{1} << 22;
  static constexpr std::size_t kGpuBlockOutputBytes = std::size_t{256} << 20;

  // The stage `spec` names, as a chain writes it ("fir:lowpass=3000", "resample:48000", "fm",
  // "spectrogram:nperseg=256"), on the backend `environment` asks for, reading `input`.
  StreamingStage(const std::string& spec, const StreamInfo& input, const StageEnvironment& environment = {},
                 std::size_t block_items = kDefaultBlockItems);
  // A stage made by the caller (a registry's MadeStage, or one of the host's own).
  StreamingStage(std::unique_ptr<Stage> stage, const StreamInfo& input, std::size_t block_items = kDefaultBlockItems);
  StreamingStage(MadeStage made, const StreamInfo& input, std::size_t block_items = kDefaultBlockItems);
  ~StreamingStage();
  StreamingStage(StreamingStage&&) noexcept;
  StreamingStage& operator=(StreamingStage&&) noexcept;

  // What the outputs are: samples (StreamInfo: f32 or cf32, rate, centre) or rows (SpectrumLayout).
  const PortDescription& output() const;
  // The stage's own description ("cpu: FFTW 3.3.10 ...") and, when automatic fell back to the
  // CPU, why (empty otherwise).
  std::string describe() const;
  const std::string& note() const;
  // Floats of one output item: 1 (f32), 2 (cf32) or the columns of a row.
  std::size_t floats_per_item() const;

  // The most output items one feed() of n input items can give, whatever the state.
  std::size_t max_output(std::size_t n) const;
  // Processes n input items (n × input.frame_bytes() bytes); writes the outputs that are complete
  // to `out` (room for max_output(n) items) and returns their number of items.
  std::size_t feed(const void* items, std::size_t n, float* out);
  // The same, the outputs appended to `out`; returns the number of items appended.
  std::size_t feed(const void* items, std::size_t n, std::vector<float>& out);
  std::vector<float> feed(const void* items, std::size_t n);
  // At the end of the input: the outputs still owed (a filter's tail, a resampler's last
  // samples; a spectrogram drops incomplete frames as scipy does), appended to `out`. Then only
  // reset() makes the object usable again.
  std::size_t flush(std::vector<float>& out);
  std::vector<float> flush();
  // feed() on the caller's device memory and stream (see above): `items` and `out` (room for
  // max_output(n) items) on the device the stage runs on (for a host stage, any device); `stream`
  // a cudaStream_t, nullptr for the legacy default stream. Returns the number of output items.
  std::size_t feed_device(const void* items, std::size_t n, float* out, gpu::Stream stream);
  // flush() on the device: writes up to `capacity` items of the outputs still owed to `out` and
  // returns how many; call it until it returns 0. Then only reset() makes the object usable again.
  std::size_t flush_device(float* out, std::size_t capacity, gpu::Stream stream);
  // Back to the state after construction, for a new input.
  void reset();
  // Items in and out so far, and the stage's own counts.
  StageCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The spectrogram as a streaming object: rows of scipy.signal.spectrogram's Sxx (transposed: one
// row per segment), as `prism spectrogram` and the graph compute them.
class Spectrogram : public StreamingStage {
 public:
  // params: unset fields keep their defaults; checked here (UsageError naming the field).
  Spectrogram(const SpectrogramParams& params, const StreamInfo& input, const StageEnvironment& environment = {},
              std::size_t block_items = kDefaultBlockItems);
  // The rows' meaning: columns, frequencies (Hz), row times, unit.
  const SpectrumLayout& layout() const { return output().rows; }
  std::size_t columns() const { return layout().columns; }
};

}  // namespace prism
