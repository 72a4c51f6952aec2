// Tests of Demodulator and Gain (pipeline/demodulators.hpp). A tone is measured by a least-
// squares fit of cos, sin and a constant at its expected frequency over the settled part of the
// output: its amplitude, and the SNR = tone power / power of what the fit leaves (noise,
// distortion, any other tone). A tone at another frequency would leave everything in the
// residual, so the SNR asserts the frequency too.
//   1. am        carrier + 1 kHz tone (index 0.5, carrier 37 Hz off, noise): the tone, its
//                amplitude A·m·|H|; the high-pass's corner is exactly −3.01 dB
//   2. fm        narrow (Δ 3 kHz against a 5 kHz setting: amplitude 0.6), wide (full 75 kHz
//                deviation gives ±1), de-emphasis 50 and 75 µs: exactly 1/√2 at 1/(2πτ); 0
//                next to a zero sample
//   3. usb, lsb  the wanted tone at unit gain; the opposite sideband's tone (same run) and
//                mirror images (own runs) suppressed by the design's 60 dB at least
//   4. cw        the carrier (and one 50 Hz off) sounds at bfo + offset
//   5. streaming every kind: chunks of 1, 2, 3, 7, 64, 1000 and more than the input give the
//                bits of one call; reset reproduces; counters; in place
//   6. gain      linear and dB factors on real and complex samples, in float and in double
//   7. errors    each names its field
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "pipeline/demodulators.hpp"
#include "pipeline/errors.hpp"
#include "tests/pipeline/streaming_harness.hpp"

namespace prism {
namespace {

using test::run_in_chunks;
using test::same_bits;
constexpr double kPi = std::numbers::pi;

struct ToneFit {
  double amplitude = 0;
  double snr_db = 0;
};

// Least squares of y[n] ≈ c·cos(ωn) + s·sin(ωn) + d over n in [start, y.size()).
ToneFit fit_tone(const std::vector<float>& y, std::size_t start, double f, double fs) {
  double m[3][3] = {}, v[3] = {};
  const double w = 2 * kPi * f / fs;
  for (std::size_t n = start; n < y.size(); ++n) {
    const double b[3] = {std::cos(w * n), std::sin(w * n), 1.0};
    for (int i = 0; i < 3; ++i) {
      v[i] += b[i] * y[n];
      for (int j = 0; j < 3; ++j) m[i][j] += b[i] * b[j];
    }
  }
  // Gaussian elimination (the matrix is well conditioned over whole periods and more).
  double x[3];
  for (int i = 0; i < 3; ++i)
    for (int k = i + 1; k < 3; ++k) {
      const double r = m[k][i] / m[i][i];
      for (int j = 0; j < 3; ++j) m[k][j] -= r * m[i][j];
      v[k] -= r * v[i];
    }
  for (int i = 2; i >= 0; --i) {
    double s = v[i];
    for (int j = i + 1; j < 3; ++j) s -= m[i][j] * x[j];
    x[i] = s / m[i][i];
  }
  double tone = 0, residual = 0;
  for (std::size_t n = start; n < y.size(); ++n) {
    const double t = x[0] * std::cos(w * n) + x[1] * std::sin(w * n);
    tone += t * t;
    residual += (y[n] - t - x[2]) * (y[n] - t - x[2]);
  }
  return {std::hypot(x[0], x[1]), 10 * std::log10(tone / residual)};
}

// Complex baseband of `items` samples from a phase function, plus complex Gaussian noise of
// standard deviation `noise` per part.
template <typename Signal>
std::vector<float> baseband(std::size_t items, double noise, const Signal& signal) {
  std::mt19937 rng(1234);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<float> x(2 * items);
  for (std::size_t n = 0; n < items; ++n) {
    const std::complex<double> s = signal(static_cast<double>(n));
    x[2 * n] = static_cast<float>(s.real() + noise * gauss(rng));
    x[2 * n + 1] = static_cast<float>(s.imag() + noise * gauss(rng));
  }
  return x;
}

std::vector<float> demodulate(const DemodulatorSpec& spec, const std::vector<float>& x) {
  Demodulator d(spec);
  std::vector<float> y(x.size() / 2);
  EXPECT_EQ(d.process(x.data(), y.size(), y.data()), y.size());
  return y;
}

DemodulatorSpec spec_of(DemodulatorKind kind, double fs) {
  DemodulatorSpec s;
  s.kind = kind;
  s.sample_rate = fs;
  return s;
}

// |H| of y[n] = b0·u[n] + b1·u[n−1] + a·y[n−1] at f.
double one_pole_gain(double b0, double b1, double a, double f, double fs) {
  const std::complex<double> z1 = std::polar(1.0, -2 * kPi * f / fs);
  return std::abs((b0 + b1 * z1) / (1.0 - a * z1));
}

// ---- 1. am ---------------------------------------------------------------------------------

TEST(Demodulators, AmRecoversTheTone) {
  const double fs = 48000, carrier = 0.8, index = 0.5, tone = 1000, offset = 37;
  for (double noise : {0.0, 0.005}) {
    const auto x = baseband(48000, noise, [&](double n) {
      return carrier * (1 + index * std::cos(2 * kPi * tone * n / fs)) *
             std::polar(1.0, 0.7 + 2 * kPi * offset * n / fs);
    });
    const auto y = demodulate(spec_of(DemodulatorKind::am, fs), x);
    const ToneFit fit = fit_tone(y, 9600, tone, fs);  // after 0.2 s: the high-pass has settled
    const double w = std::tan(kPi * 20 / fs), g = 1 / (1 + w);
    const double expected = carrier * index * one_pole_gain(g, -g, (1 - w) / (1 + w), tone, fs);
    std::printf("am, noise %.3g per part: amplitude %.6f (expected %.6f), SNR %.1f dB\n", noise,
                fit.amplitude, expected, fit.snr_db);
    EXPECT_NEAR(fit.amplitude, expected, noise == 0 ? 1e-5 : 2e-3);
    EXPECT_GE(fit.snr_db, noise == 0 ? 90.0 : 30.0);
  }
}

TEST(Demodulators, AmHighPassCornerIsMinus3dB) {
  for (double corner : {20.0, 100.0}) {
    const double fs = 8000;
    // The envelope's tone at the corner itself.
    const auto x = baseband(4 * 8000, 0.0, [&](double n) {
      return std::complex<double>(1 + 0.5 * std::cos(2 * kPi * corner * n / fs), 0.0);
    });
    DemodulatorSpec spec = spec_of(DemodulatorKind::am, fs);
    spec.dc_corner_hz = corner;
    const ToneFit fit = fit_tone(demodulate(spec, x), 16000, corner, fs);
    EXPECT_NEAR(fit.amplitude, 0.5 / std::sqrt(2.0), 2e-5) << corner;
  }
  // dc_corner_hz = 0: the envelope itself.
  DemodulatorSpec spec = spec_of(DemodulatorKind::am, 8000);
  spec.dc_corner_hz = 0;
  const std::vector<float> x = {3, 4, -0.6f, 0.8f};
  const std::vector<float> y = demodulate(spec, x);
  EXPECT_FLOAT_EQ(y[0], 5.0f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
}

// ---- 2. fm ---------------------------------------------------------------------------------

// exp(j·(Δ/fm)·sin(2π·fm·n/fs)): instantaneous frequency Δ·cos(2π·fm·t).
auto fm_signal(double deviation, double tone, double fs) {
  return [=](double n) {
    return std::polar(1.0, 0.3 + deviation / tone * std::sin(2 * kPi * tone * n / fs));
  };
}

// The discriminator's difference of a sampled sinusoidal phase has gain sin(πf/fs)/(πf/fs).
double difference_gain(double f, double fs) { return std::sin(kPi * f / fs) / (kPi * f / fs); }

TEST(Demodulators, NarrowFmRecoversTheTone) {
  const double fs = 48000, tone = 1000, deviation = 3000;
  for (double noise : {0.0, 0.005}) {
    const auto x = baseband(48000, noise, fm_signal(deviation, tone, fs));
    const auto y = demodulate(spec_of(DemodulatorKind::fm, fs), x);  // narrow: Δ setting 5 kHz
    const ToneFit fit = fit_tone(y, 100, tone, fs);
    const double expected = deviation / 5000 * difference_gain(tone, fs);
    std::printf("fm narrow, noise %.3g per part: amplitude %.6f (expected %.6f), SNR %.1f dB\n",
                noise, fit.amplitude, expected, fit.snr_db);
    EXPECT_NEAR(fit.amplitude, expected, noise == 0 ? 1e-5 : 2e-3);
    EXPECT_GE(fit.snr_db, noise == 0 ? 90.0 : 25.0);
  }
}

TEST(Demodulators, WideFmFullDeviationGivesUnitAmplitude) {
  const double fs = 240000, tone = 1000;
  const auto x = baseband(240000, 0.0, fm_signal(75000, tone, fs));
  DemodulatorSpec spec = spec_of(DemodulatorKind::fm, fs);
  spec.fm_bandwidth = FmBandwidth::wide;
  spec.deemphasis_us = 0.0;
  const auto y = demodulate(spec, x);
  const ToneFit fit = fit_tone(y, 100, tone, fs);
  std::printf("fm wide, full deviation: amplitude %.6f, SNR %.1f dB\n", fit.amplitude, fit.snr_db);
  EXPECT_NEAR(fit.amplitude, difference_gain(tone, fs), 1e-5);
  EXPECT_GE(fit.snr_db, 90.0);
  float peak = 0;
  for (float v : y) peak = std::max(peak, std::fabs(v));
  // The samples straddle the peaks: the largest is cos(π·fm/fs) below the tone's amplitude.
  EXPECT_LE(peak, 1.0f);
  EXPECT_GE(peak, 0.9998f);

  // The defaults of wide: Δ 75 kHz, τ 50 µs; the tone is then at the de-emphasis's gain.
  DemodulatorSpec wide = spec_of(DemodulatorKind::fm, fs);
  wide.fm_bandwidth = FmBandwidth::wide;
  Demodulator d(wide);
  EXPECT_EQ(*d.settings().deviation_hz, 75000.0);
  EXPECT_EQ(*d.settings().deemphasis_us, 50.0);
  const double w = std::tan(1 / (2 * fs * 50e-6)), b = w / (1 + w), a = (1 - w) / (1 + w);
  const ToneFit deemphasised = fit_tone(demodulate(wide, x), 2400, tone, fs);
  EXPECT_NEAR(deemphasised.amplitude / fit.amplitude, one_pole_gain(b, b, a, tone, fs), 1e-5);
}

// A zero sample has no phase: the discriminator gives 0 next to one, whatever the signs of the
// product's zeros (x[0]·conj(x[−1]) with both parts of x[0] negative is (−0, +0), whose atan2 is π).
TEST(Demodulators, FmGivesZeroNextToAZeroSample) {
  const std::vector<float> x = {-1.0f, -1.0f, 0.0f, 0.0f, -0.5f, -0.25f, 0.5f, 0.5f};
  std::vector<float> y(4, 1.0f);
  Demodulator d(spec_of(DemodulatorKind::fm, 48000));
  d.process(x.data(), 4, y.data());
  EXPECT_EQ(y[0], 0.0f);  // x[−1] = 0
  EXPECT_EQ(y[1], 0.0f);  // x[1] = 0
  EXPECT_EQ(y[2], 0.0f);  // x[1] = 0 before x[2]
  EXPECT_NE(y[3], 0.0f);
}

TEST(Demodulators, DeemphasisIsMinus3dBAtItsCorner) {
  const double fs = 48000;
  for (double tau_us : {50.0, 75.0}) {
    const double corner = 1e6 / (2 * kPi * tau_us);
    const auto x = baseband(48000, 0.0, fm_signal(1000, corner, fs));
    DemodulatorSpec plain = spec_of(DemodulatorKind::fm, fs);
    DemodulatorSpec deemphasised = plain;
    deemphasised.deemphasis_us = tau_us;
    const double ratio = fit_tone(demodulate(deemphasised, x), 4800, corner, fs).amplitude /
                         fit_tone(demodulate(plain, x), 4800, corner, fs).amplitude;
    EXPECT_NEAR(ratio, 1 / std::sqrt(2.0), 1e-5) << tau_us << " µs";
  }
}

// ---- 3. usb, lsb ---------------------------------------------------------------------------

TEST(Demodulators, SidebandsKeepTheirToneAndSuppressTheOpposite) {
  const double fs = 48000;
  for (DemodulatorKind kind : {DemodulatorKind::usb, DemodulatorKind::lsb}) {
    const double sign = kind == DemodulatorKind::usb ? 1 : -1;
    const DemodulatorSpec spec = spec_of(kind, fs);
    const std::size_t settle = Demodulator(spec).sideband_taps().size();
    // Wanted: 1 kHz in this sideband; unwanted: 1.5 kHz in the other, as strong.
    const auto x = baseband(48000, 0.001, [&](double n) {
      return std::polar(1.0, sign * 2 * kPi * 1000 * n / fs + 0.2) +
             std::polar(1.0, -sign * 2 * kPi * 1500 * n / fs + 1.1);
    });
    const auto y = demodulate(spec, x);
    const ToneFit wanted = fit_tone(y, settle, 1000, fs);
    const ToneFit unwanted = fit_tone(y, settle, 1500, fs);
    const double suppression = 20 * std::log10(wanted.amplitude / unwanted.amplitude);
    std::printf("%s: wanted amplitude %.5f, SNR %.1f dB; opposite sideband suppressed %.1f dB\n",
                kind == DemodulatorKind::usb ? "usb" : "lsb", wanted.amplitude, wanted.snr_db,
                suppression);
    EXPECT_NEAR(wanted.amplitude, 1.0, 2e-3);
    EXPECT_GE(suppression, 60.0);  // the design's attenuation (the floor asked of SSB: 30 dB)
    EXPECT_GE(wanted.snr_db, 30.0);

    // The mirror image of audio tones (same audio frequency, other sideband) on its own.
    for (double f : {250.0, 1000.0, 2500.0}) {
      const auto mirror = baseband(
          24000, 0.0, [&](double n) { return std::polar(1.0, -sign * 2 * kPi * f * n / fs); });
      const ToneFit leak = fit_tone(demodulate(spec, mirror), settle, f, fs);
      std::printf("  mirror image at %.0f Hz: %.1f dB\n", f, 20 * std::log10(leak.amplitude));
      EXPECT_LE(20 * std::log10(leak.amplitude), -60.0) << "mirror at " << f << " Hz";
    }
  }
}

TEST(Demodulators, SidebandFilterDelayAndDesign) {
  DemodulatorSpec spec = spec_of(DemodulatorKind::usb, 12000);
  Demodulator d(spec);
  const auto& h = d.sideband_taps();
  ASSERT_EQ(h.size() % 2, 1u);
  EXPECT_EQ(d.delay(), (h.size() - 1) / 2);
  // kaiserord(60, 200/6000) gives 219 taps (scipy's figure), odd already.
  EXPECT_EQ(h.size(), 219u);
  // An impulse comes out as Re h: y[n] = Re h[n].
  std::vector<float> impulse(2 * h.size(), 0.0f);
  impulse[0] = 1.0f;
  const auto y = demodulate(spec, impulse);
  for (std::size_t n = 0; n < h.size(); ++n) EXPECT_NEAR(y[n], h[n].real(), 1e-7);
}

// ---- 4. cw ---------------------------------------------------------------------------------

TEST(Demodulators, CwSoundsAtTheBeatFrequency) {
  const double fs = 8000;
  for (double bfo : {700.0, -600.0})
    for (double offset : {0.0, 50.0}) {
      const auto x = baseband(
          16000, 0.01, [&](double n) { return std::polar(1.0, 2 * kPi * offset * n / fs + 0.4); });
      DemodulatorSpec spec = spec_of(DemodulatorKind::cw, fs);
      spec.bfo_hz = bfo;
      const double audio = std::fabs(bfo + offset);
      const ToneFit fit = fit_tone(demodulate(spec, x), 0, audio, fs);
      std::printf("cw bfo %.0f, carrier %+.0f Hz: %.0f Hz at amplitude %.5f, SNR %.1f dB\n", bfo,
                  offset, audio, fit.amplitude, fit.snr_db);
      EXPECT_NEAR(fit.amplitude, 1.0, 2e-3);
      EXPECT_GE(fit.snr_db, 30.0);
    }
}

// ---- 5. streaming --------------------------------------------------------------------------

TEST(Demodulators, OutputDoesNotDependOnTheChunking) {
  const double fs = 48000;
  const std::size_t items = 10000;  // more than the SSB history block: compactions happen
  const auto x = baseband(items, 0.05, [&](double n) {
    return 0.7 * (1 + 0.3 * std::cos(2 * kPi * 700 * n / fs)) *
           std::polar(1.0, 2 * std::sin(2 * kPi * 400 * n / fs) + 2 * kPi * 900 * n / fs);
  });
  std::vector<DemodulatorSpec> specs;
  for (DemodulatorKind kind : {DemodulatorKind::am, DemodulatorKind::fm, DemodulatorKind::usb,
                               DemodulatorKind::lsb, DemodulatorKind::cw})
    specs.push_back(spec_of(kind, fs));
  specs.push_back(spec_of(DemodulatorKind::fm, fs));
  specs.back().deemphasis_us = 75.0;
  for (const DemodulatorSpec& spec : specs) {
    SCOPED_TRACE(std::string(demodulator_name(spec.kind)));
    Demodulator whole_run(spec);
    const std::vector<float> whole = run_in_chunks(whole_run, x, 2, 1, items);
    ASSERT_EQ(whole.size(), items);
    for (std::size_t chunk : test::exactness_chunks(items)) {
      Demodulator d(spec);
      EXPECT_TRUE(same_bits(run_in_chunks(d, x, 2, 1, chunk), whole)) << "chunks of " << chunk;
      d.reset();
      EXPECT_TRUE(same_bits(run_in_chunks(d, x, 2, 1, chunk), whole)) << "after reset";
    }
    // In place: the output written over the input.
    Demodulator d(spec);
    std::vector<float> buffer = x;
    for (std::size_t start = 0; start < items; start += 333) {
      const std::size_t n = std::min<std::size_t>(333, items - start);
      std::vector<float> chunk(buffer.begin() + 2 * start, buffer.begin() + 2 * (start + n));
      d.process(chunk.data(), n, chunk.data());
      std::copy(chunk.begin(), chunk.begin() + n, buffer.begin() + start);
    }
    buffer.resize(items);
    EXPECT_TRUE(same_bits(buffer, whole)) << "in place";
  }
}

// ---- 6. gain -------------------------------------------------------------------------------

TEST(Demodulators, GainScalesAnySamples) {
  const std::vector<float> x = {1.0f, -2.0f, 0.25f, 3.0f};
  Gain linear({2.5, false, false});
  std::vector<float> y(4);
  ASSERT_EQ(linear.process(x.data(), 4, y.data()), 4u);
  EXPECT_EQ(y, (std::vector<float>{2.5f, -5.0f, 0.625f, 7.5f}));
  Gain decibels({-20 * std::log10(2.0), true, true});  // one half, on 2 complex items
  EXPECT_NEAR(decibels.factor(), 0.5, 1e-15);
  ASSERT_EQ(decibels.process(x.data(), 2, y.data()), 2u);
  EXPECT_EQ(y, (std::vector<float>{0.5f, -1.0f, 0.125f, 1.5f}));
  EXPECT_EQ(decibels.counters().items_in, 2u);
  Gain inverting({-1.0, false, false});
  inverting.process(x.data(), 4, y.data());  // in place works too
  EXPECT_EQ(y[1], 2.0f);
  std::vector<float> in_place = x;
  inverting.process(in_place.data(), 4, in_place.data());
  EXPECT_EQ(in_place, y);
  std::vector<float> long_input(5000);
  for (std::size_t i = 0; i < long_input.size(); ++i) long_input[i] = std::sin(0.01f * i);
  Gain whole_gain({6.0, true, true});
  const auto whole = run_in_chunks(whole_gain, long_input, 2, 2, 2500);
  for (std::size_t chunk : test::exactness_chunks(2500)) {
    Gain g({6.0, true, true});
    EXPECT_TRUE(same_bits(run_in_chunks(g, long_input, 2, 2, chunk), whole)) << chunk;
  }
  // In double: the product unrounded, of which the float path is the rounding.
  const std::vector<double> wide = {1.0 / 3, -2.0, 0.1, 3.0};
  std::vector<double> wide_out(4);
  ASSERT_EQ(linear.process(wide.data(), 4, wide_out.data()), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(wide_out[i], 2.5 * wide[i]) << i;
  std::vector<double> long_wide(long_input.begin(), long_input.end());
  Gain wide_gain({6.0, true, true});
  const auto whole_wide = run_in_chunks(wide_gain, long_wide, 2, 2, 2500);
  for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(static_cast<float>(whole_wide[i]), whole[i]) << i;
}

// ---- 7. errors -----------------------------------------------------------------------------

template <typename Object, typename Spec>
void expect_usage_error(const Spec& spec, const std::string& starts_with) {
  try {
    Object object(spec);
    ADD_FAILURE() << "no error, expected " << starts_with;
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(starts_with, 0), 0u) << e.what();
  }
}

TEST(Demodulators, ErrorsNameTheField) {
  auto with = [](DemodulatorKind kind, double fs, auto change) {
    DemodulatorSpec s = spec_of(kind, fs);
    change(s);
    return s;
  };
  auto nothing = [](DemodulatorSpec&) {};
  const double nan = std::nan("");
  expect_usage_error<Demodulator>(with(DemodulatorKind::am, 0, nothing),
                                  "sample_rate=0 is out of range");
  expect_usage_error<Demodulator>(with(DemodulatorKind::fm, nan, nothing),
                                  "sample_rate=nan is out of range");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::am, 8000, [](auto& s) { s.dc_corner_hz = 4000; }),
      "dc_corner_hz=4000 is out of range");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::am, 8000, [](auto& s) { s.dc_corner_hz = -1; }),
      "dc_corner_hz=-1 is out of range");
  // Wide FM's 75 kHz default deviation does not fit 48 kHz.
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::fm, 48000, [](auto& s) { s.fm_bandwidth = FmBandwidth::wide; }),
      "deviation_hz=75000 is out of range: the deviation is above 0 and at most sample_rate/2 "
      "(24000 Hz)");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::fm, 48000, [](auto& s) { s.deviation_hz = 0.0; }),
      "deviation_hz=0 is out of range");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::fm, 48000, [](auto& s) { s.deemphasis_us = -50.0; }),
      "deemphasis_us=-50 is out of range");
  expect_usage_error<Demodulator>(with(DemodulatorKind::fm, 8000,
                                       [](auto& s) {
                                         s.deviation_hz = 3000.0;
                                         s.deemphasis_us = 10.0;
                                       }),
                                  "deemphasis_us=10 is out of range: its corner 1/(2πτ) = 15915.");
  expect_usage_error<Demodulator>(with(DemodulatorKind::usb, 48000, [](auto& s) { s.low_hz = 0; }),
                                  "low_hz=0 is out of range");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::lsb, 48000, [](auto& s) { s.high_hz = 200; }),
      "high_hz=200 is out of range: the band's high edge is above low_hz (300 Hz)");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::usb, 8000, [](auto& s) { s.high_hz = 3950; }),
      "high_hz=3950 is out of range: high_hz + transition_hz/2 must be at most sample_rate/2");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::usb, 48000, [](auto& s) { s.transition_hz = 700; }),
      "transition_hz=700 is out of range: the transition width is above 0 and at most 2·low_hz "
      "(600 Hz)");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::usb, 48000, [](auto& s) { s.attenuation_db = 10; }),
      "attenuation_db=10 is out of range");
  expect_usage_error<Demodulator>(
      with(DemodulatorKind::usb, 1e9,
           [](auto& s) {
             s.transition_hz = 1e-3;
             s.low_hz = 1;
           }),
      "transition_hz=0.001 is out of range: at this rate and attenuation the band-pass would be "
      "too long");
  expect_usage_error<Demodulator>(with(DemodulatorKind::cw, 8000, [](auto& s) { s.bfo_hz = 4001; }),
                                  "bfo_hz=4001 is out of range");
  expect_usage_error<Gain>(GainSpec{nan, false, false}, "value=nan is out of range");
  expect_usage_error<Gain>(GainSpec{1e4, true, false}, "value=10000 is out of range: 10^(dB/20)");
}

}  // namespace
}  // namespace prism
