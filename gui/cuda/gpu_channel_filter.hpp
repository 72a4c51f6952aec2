// GpuChannelFilter: the viewer's channel filter (ChannelReceiver's ChannelFilter) on a CUDA
// device, for `prism view` on a GPU backend. Each piece of input (floats in host memory) is
// copied to the device, filtered, shifted and decimated there by the fir stage's CudaFir
// (pipeline/cuda/cuda_fir.hpp: overlap-save on our team FFT, its history on the device, exact for
// any cutting), and only the channel's samples, D times fewer, come back. set_taps is CudaFir's:
// exact, so a retune keeps the audio going without a gap.
// Plain C++ header: no CUDA types.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gui/channel_receiver.hpp"
#include "pipeline/fir_filter.hpp"

namespace prism::view {

class GpuChannelFilter final : public ChannelFilter {
 public:
  // spec: FirFilter's (threads ignored). Throws CudaError when the device cannot run it,
  // UsageError for a spec the GPU fir refuses (an FFT length, a capacity).
  GpuChannelFilter(const FirSpec& spec, int device, std::size_t max_input_items);
  ~GpuChannelFilter() override;
  GpuChannelFilter(const GpuChannelFilter&) = delete;
  GpuChannelFilter& operator=(const GpuChannelFilter&) = delete;

  std::size_t max_output(std::size_t n) const override;
  // Synchronous: returns once the outputs are in `out`.
  std::size_t process(const float* in, std::size_t n, float* out) override;
  void set_taps(const FilterTaps& taps) override;
  std::string where() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::view
