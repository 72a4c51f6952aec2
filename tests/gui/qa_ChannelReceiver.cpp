// qa_ChannelReceiver: the viewer's channel chain without a window or audio device. On a complex
// input carrying AM at +15 kHz (1 kHz tone) and narrow FM at -20 kHz (600 Hz tone), each
// channel's audio is its tone (frequency and level measured), the other channel's tone is at
// least the filter's attenuation down, the output does not depend on how the input is cut, and
// a channel that does not fit the input is a usage error naming the setting; the squelch silences
// a channel below its threshold. Given a device, the channel filter runs on the GPU and gives the
// CPU's channel (on a machine with one; elsewhere it stays on the CPU and says why).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "gui/channel_receiver.hpp"
#include "two_channel_input.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_runtime.hpp"

namespace prism::view {
namespace {

constexpr double kRate = test::kInputRate, kAudioRate = 48000;

std::vector<float> two_channels(std::size_t n) { return test::two_channel_samples(0, n); }

StreamInfo complex_input() { return test::two_channel_info(); }

struct Heard {
  std::vector<float> iq, audio;
};

Heard run_receiver(ChannelReceiver& receiver, const std::vector<float>& x, std::size_t piece) {
  Heard heard;
  const std::size_t n = x.size() / 2;
  for (std::size_t done = 0; done < n;) {
    const std::size_t m = std::min(piece, n - done);
    const auto out = receiver.process(reinterpret_cast<const std::byte*>(x.data() + 2 * done), m);
    heard.iq.insert(heard.iq.end(), out.iq, out.iq + 2 * out.iq_items);
    heard.audio.insert(heard.audio.end(), out.audio, out.audio + out.audio_items);
    done += m;
  }
  return heard;
}

std::vector<float> listen(const ChannelSettings& settings, const std::vector<float>& x, std::size_t piece) {
  ChannelReceiver receiver(settings, complex_input(), 0, kAudioRate, piece);
  return run_receiver(receiver, x, piece).audio;
}

// sqrt(Σ|a − b|² / Σ|b|²) over the first min(a, b) values.
double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
    norm += double{b[i]} * b[i];
  }
  return std::sqrt(diff / norm);
}

// The amplitude of the component at `hz` (a correlation over whole periods).
double amplitude_at(const std::vector<float>& y, std::size_t from, double hz) {
  const auto period = static_cast<std::size_t>(kAudioRate / hz);
  const std::size_t n = (y.size() - from) / period * period;
  std::complex<double> sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += static_cast<double>(y[from + i]) * std::exp(std::complex<double>(0, -2 * M_PI * hz * static_cast<double>(i) / kAudioRate));
  return 2 * std::abs(sum) / static_cast<double>(n);
}

TEST(ChannelReceiver, AmChannelGivesItsToneOnly) {
  const auto x = two_channels(static_cast<std::size_t>(kRate * 2));
  ChannelSettings s;
  s.demodulation = Demodulation::am;
  s.carrier_hz = 15e3;
  s.bandwidth_hz = 10e3;
  const auto y = listen(s, x, 960);
  ASSERT_NEAR(static_cast<double>(y.size()), 2 * kAudioRate, 0.01 * kAudioRate);  // less the filter's hop
  const std::size_t settled = static_cast<std::size_t>(0.5 * kAudioRate);  // the AM level's 0.1 s mean
  EXPECT_NEAR(amplitude_at(y, settled, 1000), 0.5, 0.01);  // the modulation index
  EXPECT_LT(20 * std::log10(amplitude_at(y, settled, 600) / 0.5), -kChannelAttenuationDb + 10);
  for (float v : y) ASSERT_TRUE(std::isfinite(v) && std::abs(v) <= 1.0f);
}

TEST(ChannelReceiver, FmChannelGivesItsToneOnly) {
  const auto x = two_channels(static_cast<std::size_t>(kRate * 2));
  ChannelSettings s;
  s.demodulation = Demodulation::nfm;
  s.carrier_hz = -20e3;
  s.bandwidth_hz = 12e3;
  const auto y = listen(s, x, 960);
  const std::size_t settled = static_cast<std::size_t>(0.2 * kAudioRate);
  const double tone = amplitude_at(y, settled, 600);
  EXPECT_GT(tone, 0.1);
  EXPECT_LT(20 * std::log10(amplitude_at(y, settled, 1000) / tone), -40);
}

TEST(ChannelReceiver, OutputDoesNotDependOnTheCutting) {
  const auto x = two_channels(static_cast<std::size_t>(kRate * 0.5));
  ChannelSettings s;
  s.carrier_hz = 15e3;
  const auto a = listen(s, x, 960), b = listen(s, x, 4097), c = listen(s, x, 1);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], 1e-5) << i;
    ASSERT_NEAR(a[i], c[i], 1e-5) << i;
  }
}

// The squelch: a channel whose power falls below the threshold goes silent (exact zeros), one
// that stays above it plays, and a threshold above the signal's level keeps it silent.
TEST(ChannelReceiver, SquelchSilencesAChannelBelowItsThreshold) {
  const std::size_t n = static_cast<std::size_t>(kRate * 2);
  auto x = two_channels(n);
  // The second second without the AM channel: only the FM channel (elsewhere) and faint noise.
  std::uint32_t seed = 7;
  for (std::size_t i = n / 2; i < n; ++i) {
    const double t = static_cast<double>(i) / kRate;
    const std::complex<double> fm =
        0.3 * std::exp(std::complex<double>(0, 2 * M_PI * -20e3 * t + 3000.0 / 600 * std::sin(2 * M_PI * 600 * t)));
    seed = seed * 1664525u + 1013904223u;
    const float noise = 1e-4f * (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f);
    x[2 * i] = static_cast<float>(fm.real()) + noise;
    x[2 * i + 1] = static_cast<float>(fm.imag()) - noise;
  }
  ChannelSettings s;
  s.demodulation = Demodulation::am;
  s.carrier_hz = 15e3;
  s.bandwidth_hz = 10e3;
  s.squelch_db = -40;  // the AM channel is near -13 dB, its empty band far below -40
  ChannelReceiver receiver(s, complex_input(), 0, kAudioRate, 960);
  std::vector<float> y;
  for (std::size_t done = 0; done < n; done += 960) {
    const auto out = receiver.process(reinterpret_cast<const std::byte*>(x.data() + 2 * done), 960);
    y.insert(y.end(), out.audio, out.audio + out.audio_items);
  }
  EXPECT_TRUE(receiver.squelched());
  const std::vector<float> open(y.begin(), y.begin() + static_cast<long>(kAudioRate * 0.9));
  EXPECT_NEAR(amplitude_at(open, static_cast<std::size_t>(0.5 * kAudioRate), 1000), 0.5, 0.02) << "open while the channel is on";
  const auto quiet_from = static_cast<std::size_t>(kAudioRate * 1.2);
  ASSERT_GT(y.size(), quiet_from);
  for (std::size_t i = quiet_from; i < y.size(); ++i) ASSERT_EQ(y[i], 0.0f) << "audio sample " << i;

  s.squelch_db = -3;  // above the channel's level: silent from its first block on
  const auto closed = listen(s, two_channels(n / 2), 960);
  for (std::size_t i = static_cast<std::size_t>(0.1 * kAudioRate); i < closed.size(); ++i)
    ASSERT_EQ(closed[i], 0.0f) << "audio sample " << i;
  s.squelch_db.reset();  // no squelch: the same input plays
  EXPECT_GT(amplitude_at(listen(s, two_channels(n / 2), 960), static_cast<std::size_t>(0.5 * kAudioRate), 1000), 0.4);
}

// A new carrier at the same rates replaces the taps while running: every channel sample after
// the switch is what a receiver built for the new carrier gives at that index.
TEST(ChannelReceiver, RetuneReplacesTheTapsExactly) {
  const auto x = two_channels(static_cast<std::size_t>(kRate * 0.5));
  const std::size_t n = x.size() / 2, piece = 960, half = n / 2 / piece * piece;
  ChannelSettings first, second;
  first.carrier_hz = 15e3;
  second.carrier_hz = 14e3;
  second.bandwidth_hz = 9e3;
  auto run = [&](ChannelReceiver& r, std::size_t from, std::size_t to, std::vector<float>& iq) {
    for (std::size_t done = from; done < to; done += piece) {
      const auto out = r.process(reinterpret_cast<const std::byte*>(x.data() + 2 * done), piece);
      iq.insert(iq.end(), out.iq, out.iq + 2 * out.iq_items);
    }
  };
  ChannelReceiver switched(first, complex_input(), 0, kAudioRate, piece), fresh(second, complex_input(), 0, kAudioRate, piece);
  std::vector<float> a, b;
  run(switched, 0, half, a);
  const std::size_t switched_at = a.size();
  ASSERT_TRUE(switched.retune(second));
  EXPECT_EQ(switched.retunes(), 1u);
  EXPECT_EQ(switched.settings().carrier_hz, 14e3);
  run(switched, half, n / piece * piece, a);
  run(fresh, 0, n / piece * piece, b);
  // (Their FFT geometries differ, so each has returned a different number so far.)
  const std::size_t common = std::min(a.size(), b.size());
  ASSERT_GT(common, switched_at + 2000);
  for (std::size_t i = switched_at; i < common; ++i) ASSERT_NEAR(a[i], b[i], 1e-5) << i;

  // Another demodulation, or rates that change (wide FM), need a new receiver.
  ChannelSettings fm = second;
  fm.demodulation = Demodulation::nfm;
  fm.bandwidth_hz = 12.5e3;
  EXPECT_FALSE(switched.retune(fm));
}

// Asked for a GPU where none can be had (no CUDA in this build, no device), the filter stays on
// the CPU, says why, and gives the CPU's channel bit for bit.
TEST(ChannelReceiver, WithoutAUsableGpuTheFilterStaysOnTheCpuAndSaysWhy) {
  if (gpu::device_count() > 0) GTEST_SKIP() << "a CUDA device is present: the next test covers it";
  const auto x = two_channels(static_cast<std::size_t>(kRate * 0.2));
  ChannelSettings s;
  s.carrier_hz = 15e3;
  ChannelReceiver asked(s, complex_input(), 0, kAudioRate, 960, 0), cpu(s, complex_input(), 0, kAudioRate, 960);
  EXPECT_FALSE(asked.filter_on_gpu());
  EXPECT_EQ(asked.filter_place().rfind("the CPU (GPU 0: ", 0), 0u) << asked.filter_place();
  EXPECT_NE(asked.describe().find("taps on the CPU (GPU 0: "), std::string::npos) << asked.describe();
  EXPECT_EQ(cpu.filter_place(), "the CPU");
  const Heard a = run_receiver(asked, x, 960), b = run_receiver(cpu, x, 960);
  EXPECT_EQ(a.iq, b.iq);
  EXPECT_EQ(a.audio, b.audio);
}

// On a CUDA device the channel filter (GpuChannelFilter: the fir's CudaFir) gives the CPU's
// channel to float rounding, for any cutting, and a retune there is exact as on the CPU.
TEST(ChannelReceiver, TheFilterOnTheGpuGivesTheCpusChannel) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto x = two_channels(static_cast<std::size_t>(kRate * 0.5));
  for (const Demodulation d : {Demodulation::am, Demodulation::nfm, Demodulation::usb}) {
    ChannelSettings s;
    s.demodulation = d;
    s.carrier_hz = d == Demodulation::nfm ? -20e3 : 15e3;
    s.bandwidth_hz = bandwidth_range(d).default_hz;
    SCOPED_TRACE(std::string(demodulation_name(d)));
    ChannelReceiver cpu(s, complex_input(), 0, kAudioRate, 4097);
    const Heard expected = run_receiver(cpu, x, 4097);
    for (const std::size_t piece : {std::size_t{960}, std::size_t{4097}, std::size_t{48000}}) {
      ChannelReceiver gpu(s, complex_input(), 0, kAudioRate, piece, 0);
      ASSERT_TRUE(gpu.filter_on_gpu()) << gpu.filter_place();
      EXPECT_NE(gpu.describe().find("taps on GPU 0"), std::string::npos) << gpu.describe();
      const Heard got = run_receiver(gpu, x, piece);
      SCOPED_TRACE("piece " + std::to_string(piece));
      // Each filter returns whole segments of its own geometry: compare what both have.
      ASSERT_GT(std::min(got.iq.size(), expected.iq.size()), expected.iq.size() * 9 / 10);
      EXPECT_LT(relative_l2(got.iq, expected.iq), 1e-5);
      ASSERT_GT(std::min(got.audio.size(), expected.audio.size()), expected.audio.size() * 9 / 10);
      EXPECT_LT(relative_l2(got.audio, expected.audio), 1e-4);
    }
  }
  // A retune on the GPU: after the switch, what a GPU receiver built for the new channel gives.
  const std::size_t piece = 960, n = x.size() / 2 / piece * piece, half = n / 2 / piece * piece;
  ChannelSettings first, second;
  first.carrier_hz = 15e3;
  second.carrier_hz = 14e3;
  second.bandwidth_hz = 9e3;
  ChannelReceiver switched(first, complex_input(), 0, kAudioRate, piece, 0);
  ChannelReceiver fresh(second, complex_input(), 0, kAudioRate, piece, 0);
  ASSERT_TRUE(switched.filter_on_gpu() && fresh.filter_on_gpu()) << switched.filter_place();
  const std::vector<float> head(x.begin(), x.begin() + static_cast<long>(2 * half));
  const std::vector<float> tail(x.begin() + static_cast<long>(2 * half), x.begin() + static_cast<long>(2 * n));
  Heard a = run_receiver(switched, head, piece);
  const std::size_t switched_at = a.iq.size();
  ASSERT_TRUE(switched.retune(second));
  const Heard after = run_receiver(switched, tail, piece);
  a.iq.insert(a.iq.end(), after.iq.begin(), after.iq.end());
  const Heard b = run_receiver(fresh, std::vector<float>(x.begin(), x.begin() + static_cast<long>(2 * n)), piece);
  // (Their capacities, so their FFT geometries, differ: compare what both have returned.)
  const std::size_t common = std::min(a.iq.size(), b.iq.size());
  ASSERT_GT(common, switched_at + 4000);
  for (std::size_t i = switched_at; i < common; ++i) ASSERT_NEAR(a.iq[i], b.iq[i], 1e-5) << i;
}

TEST(ChannelReceiver, ChannelsThatDoNotFitAreUsageErrors) {
  const auto name = [](std::string_view key) { return std::string(key); };
  ChannelSettings s;
  s.bandwidth_hz = 500;  // below am's 1 kHz
  try {
    plan_channel(s, complex_input(), kAudioRate, name);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("listen_bandwidth_hz"), std::string::npos) << e.what();
  }
  s.bandwidth_hz = 10e3;
  s.carrier_hz = 60e3;  // outside +-48 kHz
  try {
    plan_channel(s, complex_input(), kAudioRate, name);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("listen_hz"), std::string::npos) << e.what();
  }
  s.demodulation = Demodulation::wfm;
  s.carrier_hz = 0;
  s.bandwidth_hz = 200e3;  // needs 150 kHz or more, the input has 96 kHz
  EXPECT_THROW(plan_channel(s, complex_input(), kAudioRate, name), UsageError);
}

}  // namespace
}  // namespace prism::view
