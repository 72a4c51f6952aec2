// The stages that turn samples into samples — the chain a radio channel needs:
//
//   fir       FFT-convolution filter (FirFilter): taps designed (firwin / kaiserord / a complex
//             band-pass, filter_design.hpp) or read from a file (taps_file.hpp), an optional
//             shift before it and decimation inside it
//   shift     frequency shift x[n]·exp(−j2π·f·n/fs), phase continuous (Mixer)
//   resample  rational resampling, scipy.signal.resample_poly's (Resampler)
//   am, fm, usb, lsb, cw   demodulators: complex baseband in, real audio out (Demodulator)
//   gain      a factor, linear or in dB (Gain)
//
// Each is a SampleEngineStage around its engine: the input's channel is converted from its
// native format to float (integers scaled to [-1, 1)) into a buffer sized at configure(), the
// engine does the work, and the output is f32 or cf32, one channel (fir, shift, resample and gain
// with precision=double: converted to double, computed in double, f64 or cf64 out; the
// demodulators take any input and compute in float: audio needs no more), with
// its rate and centre frequency derived (decimation divides the rate, a shift moves the centre).
// The engines keep exact state across chunks, so the outputs do not depend on how the input was
// cut.
//
// Each has a GPU form, chosen by StageEnvironment::backend: the fir (CudaFir, in single or double
// precision), and shift, resample, gain and the demodulators (CudaChannel, planned from the engine
// above, in single precision: precision=double keeps them on the CPU). automatic takes the GPU for
// a fir whenever one can be set up, and for the light stages only where their input is there
// already (StageEnvironment::input_on_gpu).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "settings.hpp"
#include "stage.hpp"
#include "stage_registry.hpp"
#include "stream_counters.hpp"

namespace prism {

// What a SampleEngineStage needs of its engine: items in (real, or (re, im) pairs), items out,
// float or double. FirFilter, Resampler, Mixer, Demodulator and Gain all have this shape in float;
// FirFilter, Resampler64, Mixer and Gain in double too. The part that does not depend on the
// precision is the base, so that the stage asks it without knowing which one it holds.
class SampleEngineBase {
 public:
  virtual ~SampleEngineBase() = default;
  virtual std::size_t max_output(std::size_t n) const = 0;
  virtual void reset() = 0;
  virtual StreamCounters counters() const = 0;
  virtual std::string describe() const = 0;
  virtual std::vector<Counter> extras() const { return {}; }
};
template <typename Real>
class SampleEngine : public SampleEngineBase {
 public:
  virtual std::size_t process(const Real* in, std::size_t n, Real* out) = 0;
  virtual std::size_t flush(Real* out, std::size_t capacity) = 0;
};
using FloatEngine = SampleEngine<float>;
using DoubleEngine = SampleEngine<double>;

// An engine made for an input, and what its output is: one of the two engines.
struct EnginePlan {
  std::unique_ptr<FloatEngine> engine;
  std::unique_ptr<DoubleEngine> double_engine;  // instead: the input converted to double
  StreamInfo output;  // f32 or cf32 (f64 or cf64 from double_engine), one channel
};

class SampleEngineStage final : public Stage {
 public:
  // `input` is the chosen channel as floats (f32 or cf32, one channel, the input's rate and
  // centre); the planner checks it (UsageError naming a setting) and makes the engine.
  using Planner = std::function<EnginePlan(const StreamInfo& input)>;

  SampleEngineStage(std::string name, unsigned channel, Planner planner, KeyNamer name_setting = plain_key_names());
  ~SampleEngineStage() override;

  std::string name() const override { return name_; }
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::samples; }
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override;
  std::size_t process(const Chunk& input, Chunk& output) override;
  std::size_t flush(Chunk& output) override;
  void reset() override;
  StageCounters counters() const override;

 private:
  // The channel of `input` converted to Real where it is not that already, through `engine`.
  template <typename Real>
  std::size_t run(SampleEngine<Real>& engine, std::vector<Real>& converted, const Chunk& input, Chunk& output);

  std::string name_;
  unsigned channel_;
  Planner planner_;
  KeyNamer name_setting_;
  std::unique_ptr<FloatEngine> engine_;
  std::unique_ptr<DoubleEngine> double_engine_;
  SampleEngineBase* active_ = nullptr;  // whichever of the two was made
  StreamInfo input_;
  std::vector<float> floats_;       // the channel converted, when the input is not that already
  std::vector<double> doubles_;     // the same for double_engine_
  std::vector<std::byte> gathered_;  // the channel's samples of a multi-channel chunk
};

// The stage kinds of this file, for the registry (stage_registry.cpp).
std::vector<StageKind> sample_stage_kinds();

}  // namespace prism
