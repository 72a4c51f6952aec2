// Demodulators: complex baseband in, real audio out at the same rate, one output per input
// item (am, fm narrow and wide, usb, lsb, cw); and Gain, a constant factor on any samples.
// Each is a streaming object whose state (previous sample, filter memories, oscillator phase,
// FIR history) carries across calls, so the output does not depend on how the input is cut.
//
// Input convention: the channel is already centred on its carrier (0 Hz = the carrier; a
// shift (mixer.hpp) and a channel filter come before, as in SDR++'s receiver chain); items are
// (re, im) float pairs, x[n] = i[n] + j·q[n]; fs is the sample rate.
//
// am   Envelope, then a one-pole high-pass that removes the carrier's DC:
//        e[n] = |x[n]|,  y[n] = g·(e[n] − e[n−1]) + a·y[n−1],  e[−1] = y[−1] = 0,
//        w = tan(π·fc/fs), a = (1 − w)/(1 + w), g = 1/(1 + w)
//      (the bilinear transform of s/(s + 2π·fc) with the corner prewarped: |H| = 0 at DC,
//      exactly 1/√2 at fc, 1 at fs/2; scipy: lfilter([g, −g], [1, −a], e)). fc = dc_corner_hz
//      (default 20 Hz; 0: no high-pass, y = e). A carrier of amplitude A modulated with index m
//      by cos(ωt) gives y ≈ A·m·cos(ωt) (the filter's gain at ω aside).
// fm   Quadrature discriminator scaled by the deviation Δ, then optional de-emphasis:
//        d[n] = arg(x[n]·conj(x[n−1])) · fs/(2π·Δ),  x[−1] = 0 (so d[0] = 0),
//      arg in (−π, π] (atan2 in double precision), arg 0 = 0 (a zero sample has no phase, so
//      the product's signed zeros give no ±π): an instantaneous frequency of ±Δ gives ±1.
//      De-emphasis with time constant τ, the bilinear transform of 1/(1 + sτ) with its corner
//      fc = 1/(2πτ) prewarped (GNU Radio's fm_deemph):
//        w = tan(π·fc/fs) = tan(1/(2·fs·τ)), b = w/(1 + w), a = (1 − w)/(1 + w),
//        y[n] = b·(d[n] + d[n−1]) + a·y[n−1],  d[−1] = y[−1] = 0
//      (gain 1 at DC, exactly 1/√2 at fc, 0 at fs/2; scipy: lfilter([b, b], [1, −a], d)).
//      narrow: Δ = 5 kHz, no de-emphasis; wide: Δ = 75 kHz, τ = 50 µs (ITU region 1; 75 µs in
//      the Americas); both settable.
// usb  The real part of the upper sideband, made analytic by a complex band-pass:
// lsb    y[n] = Re Σ_{m<M} h[m]·x[n − m]  (x = 0 before the first item),
//      h = complex_bandpass (filter_design.hpp) from low_hz to high_hz (usb) or from −high_hz
//      to −low_hz (lsb), the cutoffs being firwin's (−6 dB) edges, with a Kaiser window from
//      kaiserord(attenuation_db, transition_hz/(fs/2)), M made odd. A tone at +f (usb) or −f
//      (lsb) inside the band comes out as cos(2π·f·n/fs) with its amplitude, delayed by
//      (M − 1)/2 samples (delay()); everything at or below 0 Hz (usb) / at or above 0 Hz (lsb),
//      the opposite sideband, lies in the stopband and is attenuated by attenuation_db.
//      Defaults 300 .. 3000 Hz, transition 200 Hz (so the stopband ends at 200 Hz, the
//      passband starts at 400 Hz), 60 dB.
// cw   A beat-frequency oscillator, then the real part:
//        y[n] = Re(x[n]·exp(+j2π·bfo·n/fs))
//      (the mixer's shift by −bfo, phase exact at any n): the carrier at 0 Hz sounds at bfo_hz
//      (default 700 Hz), a signal at +f at bfo + f. No filter: the channel filter before it
//      sets the bandwidth (components at −bfo − f would fold onto bfo + f).
//
// Validation throws UsageError whose message starts with the DemodulatorSpec or GainSpec field
// ("deviation_hz=… is out of range: …"). process() and flush() never allocate. Not
// thread-safe: one caller at a time (counters() excepted).
#pragma once

#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "history_buffer.hpp"
#include "mixer.hpp"
#include "stream_counters.hpp"

namespace prism {

enum class DemodulatorKind { am, fm, usb, lsb, cw };
enum class FmBandwidth { narrow, wide };

// "am", "fm", "usb", "lsb", "cw".
std::string_view demodulator_name(DemodulatorKind kind);

struct DemodulatorSpec {
  DemodulatorKind kind = DemodulatorKind::am;
  double sample_rate = 0.0;  // Hz, > 0, finite

  // am: the high-pass's −3 dB corner, 0 (none) or in (0, sample_rate/2).
  double dc_corner_hz = 20.0;

  // fm: narrow or wide sets the defaults of the two below.
  FmBandwidth fm_bandwidth = FmBandwidth::narrow;
  std::optional<double> deviation_hz;   // Δ in (0, sample_rate/2]; default 5000 / 75000
  std::optional<double> deemphasis_us;  // τ in µs: 0 (none) or > 0 with 1/(2πτ) below
                                        // sample_rate/2; default 0 / 50

  // usb, lsb: the audio band's firwin edges and the filter's transition and attenuation.
  double low_hz = 300.0;         // > 0
  double high_hz = 3000.0;       // > low_hz, high_hz + transition_hz/2 <= sample_rate/2
  double transition_hz = 200.0;  // > 0, <= 2·low_hz (the opposite sideband in the stopband)
  double attenuation_db = 60.0;  // 20 .. 300

  // cw: the beat frequency, |bfo_hz| <= sample_rate/2.
  double bfo_hz = 700.0;
};

class Demodulator {
 public:
  // Validates the spec (UsageError naming the field), designs the SSB filter. All memory is
  // allocated here.
  explicit Demodulator(const DemodulatorSpec& spec);
  ~Demodulator();
  Demodulator(const Demodulator&) = delete;
  Demodulator& operator=(const Demodulator&) = delete;

  // The spec with fm's defaults filled in.
  const DemodulatorSpec& settings() const { return settings_; }
  DemodulatorKind kind() const { return settings_.kind; }
  // Samples from an input to the output it shows in: (M − 1)/2 for usb and lsb, else 0.
  std::size_t delay() const;
  // usb, lsb: the complex band-pass h (else empty).
  const std::vector<std::complex<double>>& sideband_taps() const { return sideband_taps_; }
  // What the GPU's form of the stage computes with (gpu_channel_plan.hpp): am's high-pass or
  // fm's de-emphasis, y[n] = b0·u[n] + b1·u[n−1] + a·y[n−1] (not enabled: y = u); fm's
  // fs/(2π·Δ).
  struct OnePole {
    bool enabled = false;
    double b0 = 0.0, b1 = 0.0, a = 0.0;
  };
  OnePole one_pole() const { return {one_pole_enabled_, b0_, b1_, a_}; }
  double discriminator_scale() const { return discriminator_scale_; }
  // cw: the beat-frequency oscillator (a shift by −bfo_hz); else null.
  const Mixer* oscillator() const { return oscillator_.get(); }

  // One output per input item.
  std::size_t max_output(std::size_t n) const { return n; }
  // Demodulates n complex items (2n floats) into n floats; returns n. Any n, 0 included.
  // `out` may be `in` (the output then fills the first half of the input's floats).
  std::size_t process(const float* in, std::size_t n, float* out);
  // Nothing is owed at the end: returns 0.
  std::size_t flush(float* out, std::size_t capacity);
  void reset();

  StreamCounters counters() const;

 private:
  void process_am(const float* in, std::size_t n, float* out);
  void process_fm(const float* in, std::size_t n, float* out);
  void process_sideband(const float* in, std::size_t n, float* out);
  void process_cw(const float* in, std::size_t n, float* out);

  DemodulatorSpec settings_;
  // am high-pass / fm de-emphasis: y[n] = b0·u[n] + b1·u[n−1] + a·y[n−1].
  bool one_pole_enabled_ = false;
  double b0_ = 0.0, b1_ = 0.0, a_ = 0.0;
  double previous_in_ = 0.0, previous_out_ = 0.0;
  // fm
  double discriminator_scale_ = 0.0;
  float previous_re_ = 0.0f, previous_im_ = 0.0f;
  // usb, lsb
  std::vector<std::complex<double>> sideband_taps_;
  std::vector<float> sideband_weights_;  // (Re h, −Im h) of h[M−1−r], r = 0 .. M−1
  HistoryBuffer history_;
  // cw
  std::unique_ptr<Mixer> oscillator_;
  std::vector<float> scratch_;

  std::atomic<std::uint64_t> items_{0};
};

// Gain: y = g·x on every component (real samples, or both parts of complex ones), computed in
// double and rounded once to float (the double overloads: not rounded to float); g = value, or
// 10^(value/20) when decibels is set (an amplitude factor: +6.02 dB doubles).
struct GainSpec {
  double value = 1.0;  // finite (linear: negative inverts); dB: g finite
  bool decibels = false;
  bool complex_input = false;  // items are (re, im) pairs
};

class Gain {
 public:
  // Throws UsageError naming "value".
  explicit Gain(const GainSpec& spec);
  double factor() const { return factor_; }
  bool complex_input() const { return width_ == 2; }

  std::size_t max_output(std::size_t n) const { return n; }
  // n items (n or 2n values) in and out (`out` may be `in`); returns n.
  std::size_t process(const float* in, std::size_t n, float* out);
  std::size_t process(const double* in, std::size_t n, double* out);
  std::size_t flush(float* out, std::size_t capacity);  // returns 0
  std::size_t flush(double* out, std::size_t capacity);
  void reset();
  StreamCounters counters() const;

 private:
  template <typename Real>
  std::size_t scale(const Real* in, std::size_t n, Real* out);
  double factor_ = 1.0;
  std::size_t width_ = 1;
  std::atomic<std::uint64_t> items_{0};
};

}  // namespace prism
