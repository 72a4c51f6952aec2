// DCT types II, III and IV on the GPU, single precision, with scipy.fft.dct's definitions and
// norms (dct.hpp; CpuDct is the CPU's): for powers of two from 128 to 8192 one kernel per type
// (dct_fused.hpp); otherwise an element-wise step, one FFT of ours (the CUDA backend,
// cuFFT where ours does not reach) and a second element-wise step (dct_steps.hpp gives the
// algorithms). Layout as CpuDct: `batch` contiguous rows of n floats in, n floats out, out of
// place, device pointers. Plan once: the constructor uploads the twiddles and, without a fused
// kernel, allocates the FFT plan and two intermediate buffers of `batch` rows; execute() enqueues
// its launches on the stream and neither allocates nor synchronises.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "fft/dct.hpp"
#include "fft/fft.hpp"

namespace prism::fft {

class CudaDct {
 public:
  // Throws std::invalid_argument for a spec out of range, std::runtime_error when the device
  // cannot hold the plan.
  explicit CudaDct(const DctSpec& spec);
  ~CudaDct();
  CudaDct(const CudaDct&) = delete;
  CudaDct& operator=(const CudaDct&) = delete;

  const DctSpec& spec() const { return spec_; }
  // Transforms the first `count` rows (count <= spec().batch) of `in` into `out`. One object runs
  // one execute at a time: the three-launch path's intermediate rows are the object's.
  void execute(const float* in, float* out, std::size_t count, Stream stream = nullptr);
  void execute(const float* in, float* out, Stream stream = nullptr) {
    execute(in, out, spec_.batch, stream);
  }
  // Device memory held: the twiddles, and the FFT plan's and the intermediate rows where used.
  std::size_t device_bytes() const;
  // e.g. "DCT-II n=4096 norm=ortho (one kernel: gather, r2c of n, twiddle)".
  std::string describe() const;

 private:
  struct State;
  DctSpec spec_;
  std::unique_ptr<State> state_;
};

}  // namespace prism::fft
