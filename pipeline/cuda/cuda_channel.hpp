// CudaChannel: the channel stages on a CUDA device (samples -> samples, both in device memory):
// shift, gain, resample and the demodulators am, fm, usb, lsb, cw, computing what the CPU's
// engines compute (gpu_channel_plan.hpp says how closely, stage by stage), for any cutting of the
// input into chunks. The stages that read items before each one (am, fm, resample) first convert
// the chosen channel from its native format into a device buffer behind the items they keep from
// earlier chunks; the elementwise ones convert on load. Then the stage's kernels:
//
//   gain, shift, cw   one elementwise kernel (shift and cw read the anchors of the chunk's
//                     phasor blocks, computed on the host from the exact phase and copied
//                     ahead of it)
//   am, fm            the envelope or discriminator per item, then the one-pole by blocks
//                     (channel_math.hpp): local sums, their chain in one thread, outputs
//   usb, lsb          the complex band-pass by the fir stage's kernels (CudaFir: overlap-save
//                     on our team FFT, converting on load, storing the real parts), whose calls
//                     the stage's are: outputs per completed segment, the rest at flush()
//   resample          an output per thread, its phase's bank against its window; flush()
//                     gives the outputs that read the zeros after the input
//
// so that a chain fir → fm → spectrogram stays on the device. Plain C++ header: no CUDA types
// leak to its users.
//
// Errors: every CUDA call is checked (CudaError naming the call, the error and the device);
// PRISM_CUDA_FAULT=alloc@N makes the N-th process() call (0-based) attempt an impossible
// allocation; the other kinds fail a checked call (gpu::injected_fault).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pipeline/gpu_channel_plan.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/stage.hpp"

namespace prism::cuda {

class CudaChannel final : public Stage {
 public:
  // What the stage computes for an input (its channel as f32 or cf32 at the input's rate), from
  // the CPU engine the registry's planner makes for it; UsageError naming a setting.
  struct Design {
    GpuChannelPlan plan;
    StreamInfo output;  // f32 or cf32, one channel
  };
  using Planner = std::function<Design(const StreamInfo& input)>;

  // Checks the device (CudaError when absent or unable to run this build's kernels).
  CudaChannel(std::string name, unsigned channel, Planner planner, int device, KeyNamer key_name = plain_key_names());
  ~CudaChannel() override;
  CudaChannel(const CudaChannel&) = delete;
  CudaChannel& operator=(const CudaChannel&) = delete;

  std::string name() const override;
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::samples; }
  MemoryDomain input_domain() const override;
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override;
  std::size_t process(const Chunk& input, Chunk& output) override;
  std::size_t flush(Chunk& output) override;
  void reset() override;
  StageCounters counters() const override;
  gpu::Stream stream() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::cuda
