// Demodulators and Gain (demodulators.hpp).
//
// Contents:
//   1. validation     numbers in messages, the checks that name DemodulatorSpec's fields
//   2. Demodulator    construction (one-pole coefficients, the SSB filter, the BFO), process
//   3. Gain
#include "pipeline/demodulators.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "pipeline/channel_math.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/fixed_order_dot.hpp"

namespace prism {
namespace {

// ---- 1. validation -------------------------------------------------------------------------

[[noreturn]] void out_of_range(const char* field, double value, const std::string& reason) {
  throw UsageError(std::string(field) + "=" + number_text(value) + " is out of range: " + reason);
}

constexpr double kNarrowDeviationHz = 5000.0;
constexpr double kWideDeviationHz = 75000.0;
constexpr double kWideDeemphasisUs = 50.0;
constexpr std::size_t kHistoryBlockItems = 4096;
constexpr std::size_t kOscillatorBlockItems = 1024;

DemodulatorSpec validated(DemodulatorSpec spec) {
  const double fs = spec.sample_rate;
  if (!std::isfinite(fs) || !(fs > 0))
    out_of_range("sample_rate", fs, "a rate is a positive finite number of Hz");
  const std::string half = number_text(fs / 2);
  switch (spec.kind) {
    case DemodulatorKind::am:
      if (!std::isfinite(spec.dc_corner_hz) || spec.dc_corner_hz < 0 || spec.dc_corner_hz >= fs / 2)
        out_of_range(
            "dc_corner_hz", spec.dc_corner_hz,
            "the corner is 0 (no high-pass) or a frequency below sample_rate/2 (" + half + " Hz)");
      break;
    case DemodulatorKind::fm: {
      const bool wide = spec.fm_bandwidth == FmBandwidth::wide;
      if (!spec.deviation_hz) spec.deviation_hz = wide ? kWideDeviationHz : kNarrowDeviationHz;
      if (!spec.deemphasis_us) spec.deemphasis_us = wide ? kWideDeemphasisUs : 0.0;
      const double deviation = *spec.deviation_hz, tau_us = *spec.deemphasis_us;
      if (!std::isfinite(deviation) || !(deviation > 0) || deviation > fs / 2)
        out_of_range("deviation_hz", deviation,
                     "the deviation is above 0 and at most sample_rate/2 (" + half + " Hz)");
      if (!std::isfinite(tau_us) || tau_us < 0)
        out_of_range("deemphasis_us", tau_us,
                     "the time constant is 0 (none) or a positive number of µs");
      if (tau_us > 0) {
        const double corner = 1e6 / (2 * std::numbers::pi * tau_us);
        if (corner >= fs / 2)
          out_of_range("deemphasis_us", tau_us,
                       "its corner 1/(2πτ) = " + number_text(corner) +
                           " Hz must be below sample_rate/2 (" + half + " Hz)");
      }
      break;
    }
    case DemodulatorKind::usb:
    case DemodulatorKind::lsb:
      if (!std::isfinite(spec.low_hz) || !(spec.low_hz > 0))
        out_of_range("low_hz", spec.low_hz, "the band's low edge is a positive number of Hz");
      if (!std::isfinite(spec.high_hz) || !(spec.high_hz > spec.low_hz))
        out_of_range("high_hz", spec.high_hz,
                     "the band's high edge is above low_hz (" + number_text(spec.low_hz) + " Hz)");
      if (!std::isfinite(spec.transition_hz) || !(spec.transition_hz > 0) ||
          spec.transition_hz > 2 * spec.low_hz)
        out_of_range("transition_hz", spec.transition_hz,
                     "the transition width is above 0 and at most 2·low_hz (" +
                         number_text(2 * spec.low_hz) +
                         " Hz), so that the opposite sideband lies in the stopband");
      if (spec.high_hz + spec.transition_hz / 2 > fs / 2)
        out_of_range("high_hz", spec.high_hz,
                     "high_hz + transition_hz/2 must be at most sample_rate/2 (" + half + " Hz)");
      if (!std::isfinite(spec.attenuation_db) || spec.attenuation_db < 20 ||
          spec.attenuation_db > 300)
        out_of_range("attenuation_db", spec.attenuation_db, "the attenuation is 20 .. 300 dB");
      break;
    case DemodulatorKind::cw:
      if (!std::isfinite(spec.bfo_hz) || std::fabs(spec.bfo_hz) > fs / 2)
        out_of_range("bfo_hz", spec.bfo_hz,
                     "the beat frequency is within ±sample_rate/2 (±" + half + " Hz)");
      break;
  }
  return spec;
}

}  // namespace

std::string_view demodulator_name(DemodulatorKind kind) {
  switch (kind) {
    case DemodulatorKind::am:
      return "am";
    case DemodulatorKind::fm:
      return "fm";
    case DemodulatorKind::usb:
      return "usb";
    case DemodulatorKind::lsb:
      return "lsb";
    case DemodulatorKind::cw:
      return "cw";
  }
  return "?";
}

// ---- 2. Demodulator ------------------------------------------------------------------------

Demodulator::Demodulator(const DemodulatorSpec& spec) : settings_(validated(spec)) {
  const double fs = settings_.sample_rate;
  switch (settings_.kind) {
    case DemodulatorKind::am:
      if (settings_.dc_corner_hz > 0) {
        const double w = std::tan(std::numbers::pi * settings_.dc_corner_hz / fs);
        one_pole_enabled_ = true;
        b0_ = 1.0 / (1.0 + w);
        b1_ = -b0_;
        a_ = (1.0 - w) / (1.0 + w);
      }
      break;
    case DemodulatorKind::fm: {
      discriminator_scale_ = fs / (2 * std::numbers::pi * *settings_.deviation_hz);
      const double tau = *settings_.deemphasis_us * 1e-6;
      if (tau > 0) {
        const double w = std::tan(1.0 / (2.0 * fs * tau));
        one_pole_enabled_ = true;
        b0_ = w / (1.0 + w);
        b1_ = b0_;
        a_ = (1.0 - w) / (1.0 + w);
      }
      break;
    }
    case DemodulatorKind::usb:
    case DemodulatorKind::lsb: {
      KaiserOrder order;
      try {
        order = kaiserord(settings_.attenuation_db, settings_.transition_hz / (fs / 2));
      } catch (const FilterDesignError& e) {
        out_of_range(
            "transition_hz", settings_.transition_hz,
            "at this rate and attenuation the band-pass would be too long (" + e.reason() + ")");
      }
      const std::size_t taps = order.numtaps | 1;  // odd: a whole number of samples of delay
      const bool upper = settings_.kind == DemodulatorKind::usb;
      const double f_low = upper ? settings_.low_hz : -settings_.high_hz;
      const double f_high = upper ? settings_.high_hz : -settings_.low_hz;
      sideband_taps_ =
          complex_bandpass(taps, f_low, f_high, fs, WindowSpec{WindowKind::kaiser, order.beta});
      sideband_weights_.resize(2 * taps);
      for (std::size_t r = 0; r < taps; ++r) {
        const std::complex<double> h = sideband_taps_[taps - 1 - r];
        sideband_weights_[2 * r] = static_cast<float>(h.real());
        sideband_weights_[2 * r + 1] = static_cast<float>(-h.imag());
      }
      history_ = HistoryBuffer(2 * (taps - 1), 2 * std::max(kHistoryBlockItems, taps));
      break;
    }
    case DemodulatorKind::cw:
      oscillator_ = std::make_unique<Mixer>(MixerSpec{-settings_.bfo_hz, fs, true, 0});
      scratch_.resize(2 * kOscillatorBlockItems);
      break;
  }
  reset();
}

Demodulator::~Demodulator() = default;

std::size_t Demodulator::delay() const {
  return sideband_taps_.empty() ? 0 : (sideband_taps_.size() - 1) / 2;
}

void Demodulator::reset() {
  previous_in_ = previous_out_ = 0.0;
  previous_re_ = previous_im_ = 0.0f;
  history_.reset();
  if (oscillator_) oscillator_->reset();
  items_.store(0, std::memory_order_relaxed);
}

StreamCounters Demodulator::counters() const {
  const std::uint64_t n = items_.load(std::memory_order_relaxed);
  return {n, n};
}

std::size_t Demodulator::flush(float*, std::size_t) { return 0; }

std::size_t Demodulator::process(const float* in, std::size_t n, float* out) {
  switch (settings_.kind) {
    case DemodulatorKind::am:
      process_am(in, n, out);
      break;
    case DemodulatorKind::fm:
      process_fm(in, n, out);
      break;
    case DemodulatorKind::usb:
    case DemodulatorKind::lsb:
      process_sideband(in, n, out);
      break;
    case DemodulatorKind::cw:
      process_cw(in, n, out);
      break;
  }
  items_.fetch_add(n, std::memory_order_relaxed);
  return n;
}

void Demodulator::process_am(const float* in, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const double envelope = channel::envelope(in[2 * i], in[2 * i + 1]);
    if (!one_pole_enabled_) {
      out[i] = static_cast<float>(envelope);
      continue;
    }
    const double y = channel::one_pole_input(b0_, b1_, envelope, previous_in_) + a_ * previous_out_;
    previous_in_ = envelope;
    previous_out_ = y;
    out[i] = static_cast<float>(y);
  }
}

void Demodulator::process_fm(const float* in, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const float re = in[2 * i], im = in[2 * i + 1];
    const double d = channel::discriminator(re, im, previous_re_, previous_im_, discriminator_scale_);
    previous_re_ = re;
    previous_im_ = im;
    if (!one_pole_enabled_) {
      out[i] = static_cast<float>(d);
      continue;
    }
    const double y = channel::one_pole_input(b0_, b1_, d, previous_in_) + a_ * previous_out_;
    previous_in_ = d;
    previous_out_ = y;
    out[i] = static_cast<float>(y);
  }
}

void Demodulator::process_sideband(const float* in, std::size_t n, float* out) {
  const std::size_t taps = sideband_taps_.size();
  while (n > 0) {
    if (history_.room() < 2) history_.compact();
    const std::size_t take = std::min(n, history_.room() / 2);
    history_.append(in, 2 * take);
    // The window of output i ends at the i-th appended item.
    const float* window_end = history_.end() - 2 * take;
    for (std::size_t i = 0; i < take; ++i) {
      window_end += 2;
      out[i] = fixed_order_dot(sideband_weights_.data(), window_end - 2 * taps, 2 * taps);
    }
    in += 2 * take;
    out += take;
    n -= take;
  }
}

void Demodulator::process_cw(const float* in, std::size_t n, float* out) {
  while (n > 0) {
    const std::size_t take = std::min(n, kOscillatorBlockItems);
    oscillator_->process(in, take, scratch_.data());
    for (std::size_t i = 0; i < take; ++i) out[i] = scratch_[2 * i];
    in += 2 * take;
    out += take;
    n -= take;
  }
}

// ---- 3. Gain -------------------------------------------------------------------------------

Gain::Gain(const GainSpec& spec) : width_(spec.complex_input ? 2 : 1) {
  if (!std::isfinite(spec.value))
    out_of_range("value", spec.value, "a gain is a finite number (a factor, or dB)");
  factor_ = spec.decibels ? std::pow(10.0, spec.value / 20.0) : spec.value;
  if (!std::isfinite(factor_))
    out_of_range("value", spec.value, "10^(dB/20) must be a finite factor");
}

template <typename Real>
std::size_t Gain::scale(const Real* in, std::size_t n, Real* out) {
  const double g = factor_;
  for (std::size_t i = 0; i < n * width_; ++i) out[i] = static_cast<Real>(g * in[i]);
  items_.fetch_add(n, std::memory_order_relaxed);
  return n;
}

std::size_t Gain::process(const float* in, std::size_t n, float* out) { return scale(in, n, out); }
std::size_t Gain::process(const double* in, std::size_t n, double* out) { return scale(in, n, out); }

std::size_t Gain::flush(float*, std::size_t) { return 0; }
std::size_t Gain::flush(double*, std::size_t) { return 0; }

void Gain::reset() { items_.store(0, std::memory_order_relaxed); }

StreamCounters Gain::counters() const {
  const std::uint64_t n = items_.load(std::memory_order_relaxed);
  return {n, n};
}

}  // namespace prism
