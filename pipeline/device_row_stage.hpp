// DeviceRowStage: work on a GPU processor's rows while they are still in device memory, before
// anything crosses to the host. For consumers that need far less than every spectrum: the
// viewer reduces spectra to display lines (a screen's width, averaged and thinned to the lines
// per second shown) on the device, so only those lines leave it and the waterfall texture is
// written from device memory. Plain C++: the CUDA stream travels as void* (a cudaStream_t).
//
// With a stage, the processor hands out the stage's rows instead of its spectra: output_columns()
// floats each, as many per block as enqueue() returned; counters().rows_out counts them.
#pragma once

#include <cstddef>

#include "pipeline/spectrum_layout.hpp"

namespace prism {

class DeviceRowStage {
 public:
  virtual ~DeviceRowStage() = default;

  // Called once by the processor before its first block, on the thread that will submit
  // blocks: the spectra the stage will see (their layout), the CUDA device, the most rows one
  // block gives, and how many blocks the processor keeps in flight. May allocate; throws
  // std::runtime_error naming what failed.
  virtual void prepare(const SpectrumLayout& spectrum, int device, std::size_t max_rows_per_block,
                       std::size_t blocks_in_flight) = 0;

  // Floats per output row; at most the spectrum's columns (the processor's buffers are sized
  // for spectra).
  virtual std::size_t output_columns() const = 0;

  // Block by block, in order: `count` spectra at `rows` (device memory, as the processor's
  // parameters make them) are ready once the work queued so far on `stream` is done. Queues on
  // `stream` the work that writes this block's output rows to `out` (device memory, room for
  // max_rows_per_block × output_columns()) and returns how many it writes.
  virtual std::size_t enqueue(const float* rows, std::size_t count, float* out, void* stream) = 0;
};

}  // namespace prism
