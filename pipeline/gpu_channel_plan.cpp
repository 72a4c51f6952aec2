// GpuChannelPlan (gpu_channel_plan.hpp): the GPU channel stages' constants, taken from the CPU's
// engines.
#include "pipeline/gpu_channel_plan.hpp"

#include <stdexcept>

#include "pipeline/decimal_text.hpp"
#include "pipeline/demodulators.hpp"
#include "pipeline/mixer.hpp"
#include "pipeline/resampler.hpp"

namespace prism {

std::vector<double> one_pole_powers(double a) {
  std::vector<double> powers(channel::kOnePoleBlockItems);
  double p = a;
  for (double& power : powers) {
    power = p;
    p = channel::mul(p, a);
  }
  return powers;
}

std::size_t GpuChannelPlan::anchors(std::uint64_t first, std::size_t items, double* out) const {
  if (!phase || items == 0) return 0;
  const std::uint64_t block = channel::kPhasorBlockItems;
  const std::uint64_t first_block = first / block, last_block = (first + items - 1) / block;
  for (std::uint64_t m = first_block; m <= last_block; ++m) {
    const std::complex<double> a = phase->phasor(m * block, -1);  // as Mixer::set_anchor
    out[2 * (m - first_block)] = a.real();
    out[2 * (m - first_block) + 1] = a.imag();
  }
  return static_cast<std::size_t>(last_block - first_block + 1);
}

std::size_t GpuChannelPlan::max_output(std::size_t n) const {
  if (op == GpuChannelOp::sideband)
    throw std::logic_error("GpuChannelPlan::max_output: usb and lsb give their fir's outputs (CudaFir::max_output)");
  if (op != GpuChannelOp::resample || up == down) return n;
  return static_cast<std::size_t>(total_outputs(n));
}

std::uint64_t GpuChannelPlan::ready_outputs(std::uint64_t received) const {
  if (up == down) return received;
  const unsigned __int128 reach = static_cast<unsigned __int128>(received) * up;
  if (reach <= half) return 0;
  return static_cast<std::uint64_t>((reach - half + down - 1) / down);
}

std::uint64_t GpuChannelPlan::total_outputs(std::uint64_t received) const {
  if (up == down) return received;
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(received) * up + down - 1) / down);
}

GpuChannelPlan::ResamplePoint GpuChannelPlan::resample_point(std::uint64_t k) const {
  const unsigned __int128 t = static_cast<unsigned __int128>(k) * down + half;
  return {static_cast<std::uint64_t>(t / up), static_cast<std::uint64_t>(t % up)};
}

std::string GpuChannelPlan::describe() const {
  const std::string blocks = " by blocks of " + std::to_string(channel::kOnePoleBlockItems);
  switch (op) {
    case GpuChannelOp::gain: return "gain x" + number_text(factor);
    case GpuChannelOp::shift: return "shift (exact phase, anchors per " + std::to_string(channel::kPhasorBlockItems) + " items)";
    case GpuChannelOp::cw: return "cw demodulator (oscillator with exact phase, real part)";
    case GpuChannelOp::am: return std::string("am demodulator (envelope") + (one_pole ? ", DC high-pass" + blocks : "") + ")";
    case GpuChannelOp::fm: return std::string("fm demodulator (discriminator") + (one_pole ? ", de-emphasis" + blocks : "") + ")";
    case GpuChannelOp::resample:
      if (up == down) return "resample by 1/1 (the input unchanged)";
      return "resample by " + std::to_string(up) + "/" + std::to_string(down) + " (polyphase, " +
             std::to_string(taps_per_phase) + " products per output, scipy.signal.resample_poly's)";
    case GpuChannelOp::sideband:
      return name + " demodulator (complex band-pass of " + std::to_string(sideband_filter.size()) +
             " taps by FFT overlap-save, real part)";
  }
  return name;
}

GpuChannelPlan gpu_gain_plan(const Gain& gain) {
  GpuChannelPlan plan;
  plan.op = GpuChannelOp::gain;
  plan.name = "gain";
  plan.complex_input = plan.complex_output = gain.complex_input();
  plan.factor = gain.factor();
  return plan;
}

GpuChannelPlan gpu_shift_plan(const Mixer& mixer, bool cw_output) {
  if (mixer.next_index() != 0) throw std::invalid_argument("gpu_shift_plan: the mixer's first item must be 0");
  GpuChannelPlan plan;
  plan.op = cw_output ? GpuChannelOp::cw : GpuChannelOp::shift;
  plan.name = cw_output ? "cw" : "shift";
  plan.complex_input = mixer.complex_input();
  plan.complex_output = !cw_output;
  plan.phase = mixer.phase();
  plan.phasor_table = mixer.phasor_table();
  return plan;
}

GpuChannelPlan gpu_resample_plan(const Resampler& resampler) {
  GpuChannelPlan plan;
  plan.op = GpuChannelOp::resample;
  plan.name = "resample";
  plan.complex_input = plan.complex_output = resampler.complex_input();
  plan.up = resampler.up();
  plan.down = resampler.down();
  plan.half = resampler.half_length();
  const std::size_t q = resampler.taps_per_phase();
  plan.taps_per_phase = q;
  plan.history_items = q - 1;
  // As the Resampler's banks: phase p's taps h[p + (q − 1 − r)·up] against the window's r-th item.
  const std::vector<double>& taps = resampler.taps();
  plan.resampler_banks.assign(plan.up * q, 0.0f);
  for (std::uint64_t p = 0; p < plan.up; ++p)
    for (std::size_t r = 0; r < q; ++r) {
      const std::uint64_t j = p + (q - 1 - r) * plan.up;
      plan.resampler_banks[p * q + r] = j < taps.size() ? static_cast<float>(taps[j]) : 0.0f;
    }
  return plan;
}

GpuChannelPlan gpu_demodulator_plan(const Demodulator& demodulator) {
  if (demodulator.kind() == DemodulatorKind::cw) return gpu_shift_plan(*demodulator.oscillator(), true);
  GpuChannelPlan plan;
  plan.name = std::string(demodulator_name(demodulator.kind()));
  plan.complex_input = true;
  plan.complex_output = false;
  const Demodulator::OnePole pole = demodulator.one_pole();
  switch (demodulator.kind()) {
    case DemodulatorKind::am:
      plan.op = GpuChannelOp::am;
      plan.history_items = 1;
      break;
    case DemodulatorKind::fm:
      plan.op = GpuChannelOp::fm;
      plan.history_items = 2;
      plan.discriminator_scale = demodulator.discriminator_scale();
      break;
    case DemodulatorKind::usb:
    case DemodulatorKind::lsb:
      plan.op = GpuChannelOp::sideband;
      plan.sideband_filter = demodulator.sideband_taps();
      return plan;
    case DemodulatorKind::cw: break;
  }
  plan.one_pole = pole.enabled;
  if (pole.enabled) {
    plan.b0 = pole.b0;
    plan.b1 = pole.b1;
    plan.a = pole.a;
    plan.pole_powers = one_pole_powers(pole.a);
  }
  return plan;
}

}  // namespace prism
