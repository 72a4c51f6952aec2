// The host half of the channel stages on a GPU (pipeline/cuda/cuda_channel.hpp): shift, gain,
// resample and the demodulators am, fm, usb, lsb, cw, each planned from the CPU engine the stage
// registry makes for the same settings (Mixer, Gain, Demodulator, Resampler), so that both compute
// the same thing:
//
//   gain      y = g·x in double, rounded once                          (bit-identical to the CPU)
//   shift     y = x·p(n), p(n) = a(block)·t(r), the anchors a(m) computed on the host from the
//             exact phase per call and t(r) made once, as the Mixer's   (bit-identical)
//   cw        the shift by −bfo, then the real part                     (bit-identical)
//   am, fm    the envelope or the discriminator per item (channel_math.hpp, as the CPU's), then
//             the one-pole by blocks (channel_math.hpp)                 (to double rounding, and
//             atan2's last bit for fm)
//   usb, lsb  y[n] = Re Σ_m h[m]·x[n − m], the Demodulator's complex band-pass h, by the fir's
//             overlap-save on the GPU (CudaFir with a real-part store; not the CPU's direct
//             products: to float rounding); its outputs come per completed segment, the rest
//             at the end, as the fir's
//   resample  output k = Σ_r bank_p[r]·x[i − q + 1 + r], (i, p) = (k·down + half) divmod up, the
//             Resampler's polyphase banks, in float, r ascending (to float rounding); outputs
//             once their last input has arrived, the rest (reading zeros after the input) at
//             the end; the input itself when up = down                  (bit-identical there)
//
// Each reads `history_items` items before a call's first (the device keeps them; zeros before
// the first item): q − 1 for resample, 2 for fm (d[n − 1] needs x[n − 2]), 1 for am (usb and lsb:
// the fir keeps its own).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "channel_math.hpp"
#include "exact_phase.hpp"

namespace prism {

class Demodulator;
class Gain;
class Mixer;
template <typename Real>
class BasicResampler;
using Resampler = BasicResampler<float>;

enum class GpuChannelOp { gain, shift, am, fm, sideband, cw, resample };

struct GpuChannelPlan {
  GpuChannelOp op = GpuChannelOp::gain;
  std::string name;  // the stage's: "gain", "shift", "am", "fm", "usb", "lsb", "cw"
  bool complex_input = true;
  bool complex_output = false;
  std::size_t history_items = 0;
  double factor = 1.0;                // gain
  std::optional<ExactPhase> phase;    // shift, cw: the anchors' phase
  std::vector<double> phasor_table;   // shift, cw: t(r) as (re, im), r < channel::kPhasorBlockItems
  double discriminator_scale = 0.0;   // fm
  bool one_pole = false;              // am, fm: the high-pass or de-emphasis runs
  double b0 = 0.0, b1 = 0.0, a = 0.0;
  std::vector<double> pole_powers;    // a^(t+1), t < channel::kOnePoleBlockItems
  std::vector<std::complex<double>> sideband_filter;  // usb, lsb: h, M taps
  // resample (up and down reduced): bank p holds the q taps of phase p in window order.
  std::uint64_t up = 1, down = 1;
  std::uint64_t half = 0;
  std::size_t taps_per_phase = 1;
  std::vector<float> resampler_banks;  // up·q floats

  // The most outputs one call of n items gives: ceil(n·up/down) for resample, else n (usb and
  // lsb: std::logic_error, their bound is the fir's, CudaChannel asks it).
  std::size_t max_output(std::size_t n) const;
  // resample: how many outputs exist once `received` items have arrived (those whose last input
  // has: k·down + half < received·up), and of all `received` items at the end (ceil(n·up/down)).
  std::uint64_t ready_outputs(std::uint64_t received) const;
  std::uint64_t total_outputs(std::uint64_t received) const;
  // resample: output k's newest input i and its phase p: (k·down + half) divmod up.
  struct ResamplePoint {
    std::uint64_t input = 0;
    std::uint64_t phase = 0;
  };
  ResamplePoint resample_point(std::uint64_t k) const;

  // The anchors a(m) of the blocks that items [first, first + items) touch, as (re, im) pairs
  // into `out` (room for 2·max_anchors(items)); returns how many.
  std::size_t anchors(std::uint64_t first, std::size_t items, double* out) const;
  static std::size_t max_anchors(std::size_t items) { return items / channel::kPhasorBlockItems + 2; }
  // The one-pole's blocks in a call of `items` items, wherever it starts.
  static std::size_t max_pole_blocks(std::size_t items) { return items / channel::kOnePoleBlockItems + 2; }

  // "fm demodulator (discriminator, de-emphasis by blocks of 1024)".
  std::string describe() const;
};

GpuChannelPlan gpu_gain_plan(const Gain& gain);
// cw_output: the real part only (the cw demodulator's oscillator). The mixer's first item is 0
// (std::invalid_argument otherwise): the GPU stage counts items from its first.
GpuChannelPlan gpu_shift_plan(const Mixer& mixer, bool cw_output = false);
GpuChannelPlan gpu_demodulator_plan(const Demodulator& demodulator);
GpuChannelPlan gpu_resample_plan(const Resampler& resampler);

// a^(t+1) for t < channel::kOnePoleBlockItems, by repeated products (as the tests' model).
std::vector<double> one_pole_powers(double a);

}  // namespace prism
