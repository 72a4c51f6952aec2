// The GPU channel stages' host half and their arithmetic, run on the host (no GPU needed): the
// one-pole by blocks (channel_math.hpp) in the GPU's order of operations — exact for every
// cutting, and the CPU's sequential recurrence to double rounding; am and fm through it against
// the CPU's Demodulator; the shift's anchors and table, which make the GPU's mixer the CPU's
// bit for bit; the resampler's outputs per call and their sums, against the Resampler; and each
// plan's constants taken from its engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "pipeline/channel_math.hpp"
#include "pipeline/demodulators.hpp"
#include "pipeline/gpu_channel_plan.hpp"
#include "pipeline/mixer.hpp"
#include "pipeline/resampler.hpp"

namespace prism {
namespace {

using channel::kOnePoleBlockItems;

// The GPU's three steps over one call, on the host: block sums (in any order: each block is its
// own), the chain, the outputs.
std::vector<double> one_pole_call(const std::vector<double>& powers, double a, unsigned long long first,
                                  std::vector<double> u, channel::OnePoleState& state) {
  channel::OnePoleCall c;
  c.first = first;
  c.items = u.size();
  c.a = a;
  c.powers = powers.data();
  std::vector<double> totals(c.blocks()), starts(c.blocks());
  for (unsigned long long j = c.blocks(); j-- > 0;) channel::one_pole_block(c, j, u.data(), state, totals.data());
  double chained = state.boundary;
  for (unsigned long long j = 0; j < c.blocks(); ++j) {
    starts[j] = chained;
    if (j < c.completed_blocks()) chained = channel::one_pole_chain_step(c, totals[j], chained);
  }
  channel::one_pole_chain_end(c, chained, totals[c.blocks() - 1], state);
  std::vector<double> y(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) y[i] = channel::one_pole_output(c, i, u.data(), starts.data());
  return y;
}

std::vector<double> one_pole_in_chunks(double a, const std::vector<double>& u, std::size_t chunk) {
  const std::vector<double> powers = one_pole_powers(a);
  channel::OnePoleState state;
  std::vector<double> y;
  for (std::size_t first = 0; first < u.size(); first += chunk) {
    const std::size_t n = std::min(chunk, u.size() - first);
    const std::vector<double> part =
        one_pole_call(powers, a, first, std::vector<double>(u.begin() + first, u.begin() + first + n), state);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}

TEST(GpuChannelPlan, OnePoleByBlocksIsExactForEveryCuttingAndMatchesTheRecurrence) {
  std::mt19937 random(3);
  std::normal_distribution<double> noise;
  std::vector<double> u(9000);
  for (double& v : u) v = noise(random) + 0.5;  // a DC part, as an envelope has
  for (const double a : {0.9973854, 0.5, -0.25, 0.0}) {
    std::vector<double> sequential(u.size());
    double previous = 0;
    for (std::size_t n = 0; n < u.size(); ++n) sequential[n] = previous = u[n] + a * previous;
    const std::vector<double> whole = one_pole_in_chunks(a, u, u.size());
    double scale = 0, error = 0;
    for (std::size_t n = 0; n < u.size(); ++n) {
      scale = std::max(scale, std::fabs(sequential[n]));
      error = std::max(error, std::fabs(whole[n] - sequential[n]));
    }
    EXPECT_LE(error, 1e-13 * scale) << "a = " << a;
    for (const std::size_t chunk : {1, 2, 7, 1000, 1023, 1024, 1025, 3000}) {
      const std::vector<double> cut = one_pole_in_chunks(a, u, chunk);
      EXPECT_EQ(std::memcmp(cut.data(), whole.data(), whole.size() * sizeof(double)), 0)
          << "a = " << a << ", chunks of " << chunk;
    }
  }
  // The powers: a^(t+1), the last a^B.
  const std::vector<double> powers = one_pole_powers(0.99);
  ASSERT_EQ(powers.size(), kOnePoleBlockItems);
  EXPECT_EQ(powers[0], 0.99);
  EXPECT_NEAR(powers.back(), std::pow(0.99, kOnePoleBlockItems), 1e-14);
}

// am or fm as the GPU computes it: per item from the items before (zeros before the first), then
// the one-pole by blocks.
std::vector<float> demodulate_as_gpu(const GpuChannelPlan& plan, const std::vector<float>& x, std::size_t chunk) {
  const std::size_t n = x.size() / 2;
  auto item = [&](long long i) {
    return i < 0 ? std::complex<float>() : std::complex<float>(x[2 * i], x[2 * i + 1]);
  };
  auto v = [&](long long i) {
    return plan.op == GpuChannelOp::fm
               ? channel::discriminator(item(i).real(), item(i).imag(), item(i - 1).real(), item(i - 1).imag(),
                                        plan.discriminator_scale)
               : channel::envelope(item(i).real(), item(i).imag());
  };
  std::vector<double> u(n);
  for (std::size_t i = 0; i < n; ++i) {
    const long long at = static_cast<long long>(i);
    u[i] = plan.one_pole ? channel::one_pole_input(plan.b0, plan.b1, v(at), v(at - 1)) : v(at);
  }
  const std::vector<double> y = plan.one_pole ? one_pole_in_chunks(plan.a, u, chunk) : u;
  return std::vector<float>(y.begin(), y.end());
}

std::vector<float> random_iq(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> noise;
  std::vector<float> x(2 * n);
  const double pi = 3.141592653589793;
  for (std::size_t i = 0; i < n; ++i) {  // a carrier with a tone on it, and noise
    const double phase = 0.3 * std::sin(2 * pi * 1000 * i / 48000.0);
    x[2 * i] = static_cast<float>((1 + 0.5 * std::cos(2 * pi * 700 * i / 48000.0)) * std::cos(phase)) + 0.01f * noise(random);
    x[2 * i + 1] = static_cast<float>(std::sin(phase)) + 0.01f * noise(random);
  }
  return x;
}

TEST(GpuChannelPlan, AmAndFmByBlocksMatchTheCpuDemodulator) {
  const std::size_t n = 20000;
  const std::vector<float> x = random_iq(n, 8);
  DemodulatorSpec am;
  am.kind = DemodulatorKind::am;
  am.sample_rate = 48000;
  DemodulatorSpec am_plain = am;
  am_plain.dc_corner_hz = 0;
  DemodulatorSpec fm;
  fm.kind = DemodulatorKind::fm;
  fm.sample_rate = 48000;
  DemodulatorSpec fm_wide = fm;
  fm_wide.fm_bandwidth = FmBandwidth::wide;
  fm_wide.sample_rate = 240000;
  for (const DemodulatorSpec& spec : {am, am_plain, fm, fm_wide}) {
    Demodulator cpu(spec);
    std::vector<float> want(n);
    cpu.process(x.data(), n, want.data());
    const GpuChannelPlan plan = gpu_demodulator_plan(cpu);
    const std::vector<float> got = demodulate_as_gpu(plan, x, 777);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
      worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
      scale = std::max(scale, std::fabs(double(want[i])));
    }
    // The one-pole's double rounding may move a float by one unit.
    EXPECT_LE(worst, 2e-7 * scale) << plan.describe();
    if (!plan.one_pole) {
      EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(float)), 0) << plan.describe();
    }
  }
}

TEST(GpuChannelPlan, TheShiftFromAnchorsIsTheMixerBitForBit) {
  for (const bool complex_input : {true, false})
    for (const double frequency : {-7000.5, 12345.678, 0.0}) {
      MixerSpec spec;
      spec.frequency_hz = frequency;
      spec.sample_rate = 48000;
      spec.complex_input = complex_input;
      Mixer mixer(spec);
      const GpuChannelPlan plan = gpu_shift_plan(mixer);
      ASSERT_EQ(plan.phasor_table.size(), 2 * channel::kPhasorBlockItems);
      const std::size_t n = 5000, width = complex_input ? 2 : 1;
      const std::vector<float> iq = random_iq(n, 4);
      std::vector<float> x(width * n);
      for (std::size_t i = 0; i < width * n; ++i) x[i] = iq[i];
      std::vector<float> want(2 * n);
      mixer.process(x.data(), n, want.data());
      // In calls of 1500 items: each call's anchors, as the stage copies them to the device.
      std::vector<float> got(2 * n);
      std::vector<double> anchors(2 * GpuChannelPlan::max_anchors(1500));
      for (std::size_t first = 0; first < n; first += 1500) {
        const std::size_t count = std::min<std::size_t>(1500, n - first);
        const std::size_t blocks = plan.anchors(first, count, anchors.data());
        EXPECT_LE(blocks, GpuChannelPlan::max_anchors(count));
        for (std::size_t i = first; i < first + count; ++i) {
          const std::size_t m = i / channel::kPhasorBlockItems - first / channel::kPhasorBlockItems;
          const std::size_t r = i % channel::kPhasorBlockItems;
          const channel::Phasor p = channel::phasor_product(anchors[2 * m], anchors[2 * m + 1], plan.phasor_table[2 * r],
                                                            plan.phasor_table[2 * r + 1]);
          const channel::Phasor y =
              complex_input ? channel::mix_complex(x[2 * i], x[2 * i + 1], p) : channel::mix_real(x[i], p);
          got[2 * i] = static_cast<float>(y.re);
          got[2 * i + 1] = static_cast<float>(y.im);
        }
      }
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << frequency << " Hz, complex " << complex_input;
    }
}

TEST(GpuChannelPlan, TheResamplerGivesTheCpusOutputsPerCallAndSums) {
  struct Ratio {
    std::uint64_t up, down;
  };
  for (const bool complex_input : {false, true})
    for (const Ratio ratio : {Ratio{1, 50}, Ratio{3, 2}, Ratio{147, 160}, Ratio{2, 1}, Ratio{4, 4}}) {
      ResamplerSpec spec;
      spec.up = ratio.up;
      spec.down = ratio.down;
      spec.complex_input = complex_input;
      Resampler cpu(spec);
      const GpuChannelPlan plan = gpu_resample_plan(cpu);
      const std::size_t width = complex_input ? 2 : 1, n = 6000, chunk = 777;
      const std::vector<float> iq = random_iq(n, 6);
      std::vector<float> x(width * n);
      for (std::size_t i = 0; i < width * n; ++i) x[i] = iq[i];
      std::vector<float> want;
      std::vector<float> out(width * (plan.max_output(chunk) + 1));
      for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t count = std::min(chunk, n - first);
        const std::size_t written = cpu.process(x.data() + width * first, count, out.data());
        EXPECT_EQ(written, plan.ready_outputs(first + count) - plan.ready_outputs(first))
            << ratio.up << "/" << ratio.down << " at " << first;
        EXPECT_LE(written, plan.max_output(count));
        want.insert(want.end(), out.begin(), out.begin() + width * written);
      }
      std::vector<float> tail(width * plan.total_outputs(n));
      const std::size_t flushed = cpu.flush(tail.data(), plan.total_outputs(n));
      EXPECT_EQ(flushed, plan.total_outputs(n) - plan.ready_outputs(n)) << ratio.up << "/" << ratio.down;
      want.insert(want.end(), tail.begin(), tail.begin() + width * flushed);
      ASSERT_EQ(want.size(), width * plan.total_outputs(n));
      // The GPU's sum for each output: its phase's bank against its window, r ascending.
      const std::size_t q = plan.taps_per_phase;
      std::vector<float> got(want.size());
      for (std::uint64_t k = 0; k < plan.total_outputs(n); ++k) {
        const GpuChannelPlan::ResamplePoint point = plan.resample_point(k);
        for (std::size_t part = 0; part < width; ++part) {
          float sum = 0.0f;
          for (std::size_t r = 0; r < q; ++r) {
            const long long at = static_cast<long long>(point.input) - static_cast<long long>(q) + 1 + static_cast<long long>(r);
            const float v = at >= 0 && at < static_cast<long long>(n) ? x[width * at + part] : 0.0f;
            sum = std::fma(plan.resampler_banks[point.phase * q + r], v, sum);
          }
          got[width * k + part] = plan.up == plan.down ? x[width * k + part] : sum;
        }
      }
      double num = 0, den = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        num += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        den += double(want[i]) * want[i];
      }
      EXPECT_LE(std::sqrt(num / den), 1e-6) << ratio.up << "/" << ratio.down << ": " << plan.describe();
      EXPECT_EQ(plan.history_items, q - 1);
    }
}

TEST(GpuChannelPlan, EachPlanTakesItsEnginesConstants) {
  DemodulatorSpec spec;
  spec.sample_rate = 48000;
  spec.kind = DemodulatorKind::am;
  const GpuChannelPlan am = gpu_demodulator_plan(Demodulator(spec));
  EXPECT_EQ(am.op, GpuChannelOp::am);
  EXPECT_EQ(am.history_items, 1u);
  EXPECT_TRUE(am.one_pole);
  EXPECT_EQ(am.b1, -am.b0);
  EXPECT_EQ(am.pole_powers.front(), am.a);
  EXPECT_FALSE(am.complex_output);

  spec.kind = DemodulatorKind::fm;
  const GpuChannelPlan narrow = gpu_demodulator_plan(Demodulator(spec));
  EXPECT_EQ(narrow.history_items, 2u);
  EXPECT_FALSE(narrow.one_pole);  // narrow: no de-emphasis
  EXPECT_NEAR(narrow.discriminator_scale, 48000 / (2 * 3.141592653589793 * 5000), 1e-12);

  spec.kind = DemodulatorKind::usb;
  Demodulator usb(spec);
  const GpuChannelPlan sideband = gpu_demodulator_plan(usb);
  EXPECT_EQ(sideband.op, GpuChannelOp::sideband);
  EXPECT_EQ(sideband.sideband_filter, usb.sideband_taps());
  EXPECT_EQ(sideband.history_items, 0u);  // the fir keeps its own

  spec.kind = DemodulatorKind::cw;
  spec.bfo_hz = 650;
  const GpuChannelPlan cw = gpu_demodulator_plan(Demodulator(spec));
  EXPECT_EQ(cw.op, GpuChannelOp::cw);
  EXPECT_FALSE(cw.complex_output);
  ASSERT_TRUE(cw.phase.has_value());
  // The oscillator is the shift by −bfo: frac(n·(−bfo)/fs).
  EXPECT_NEAR(cw.phase->cycles(12), 1 - 12 * 650 / 48000.0, 1e-12);

  GainSpec gain_spec;
  gain_spec.value = 6;
  gain_spec.decibels = true;
  const GpuChannelPlan gain = gpu_gain_plan(Gain(gain_spec));
  EXPECT_EQ(gain.op, GpuChannelOp::gain);
  EXPECT_NEAR(gain.factor, std::pow(10.0, 6 / 20.0), 1e-15);
  EXPECT_FALSE(gain.complex_input);
}

}  // namespace
}  // namespace prism
