// The sample stages (pipeline/sample_stages.hpp) made from their settings as a chain names them,
// through the graph's harness (every cutting, reset, a threaded graph), and what they derive:
// the output's format, rate and centre frequency; the errors that name the stage and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/stage_registry.hpp"
#include "stage_harness.hpp"

namespace prism {
namespace {

// Noise plus tones, in `format`, `channels` interleaved.
test::StageInput noisy_input(SampleFormat format, double rate, std::size_t samples, unsigned channels = 1,
                             double center = 0.0) {
  StreamInfo info;
  info.format = format;
  info.sample_rate = rate;
  info.channels = channels;
  info.center_frequency = center;
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  const std::size_t components = components_per_sample(format) * channels;
  std::vector<float> values(samples * components);
  for (std::size_t i = 0; i < samples; ++i)
    for (std::size_t c = 0; c < components; ++c)
      values[i * components + c] =
          0.4f * static_cast<float>(std::sin(0.01 * static_cast<double>(i) * static_cast<double>(c + 1))) + noise(rng);
  std::vector<std::byte> bytes(samples * info.frame_bytes());
  if (format == SampleFormat::f32 || format == SampleFormat::cf32) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  } else if (format == SampleFormat::f64 || format == SampleFormat::cf64) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double v = values[i] + 1e-9 * std::sin(static_cast<double>(i));  // off float's grid
      std::memcpy(bytes.data() + 8 * i, &v, 8);
    }
  } else {  // ci16 / i16
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto v = static_cast<std::int16_t>(std::lround(values[i] * 30000.0f));
      std::memcpy(bytes.data() + 2 * i, &v, 2);
    }
  }
  return test::samples_input(info, bytes);
}

std::unique_ptr<Stage> made(const std::string& spec) {
  return make_stage(parse_stage_spec(spec), StageEnvironment{}).stage;
}

PortDescription output_of(const std::string& spec, const test::StageInput& input) {
  return made(spec)->configure(input.description, 4096);
}

TEST(SampleStages, EachGoesThroughTheHarness) {
  struct Case {
    std::string spec;
    SampleFormat format;
    unsigned channels;
  };
  const std::vector<Case> cases = {
      {"fir:lowpass=3000,numtaps=101", SampleFormat::f32, 1},
      {"fir:lowpass=3000,numtaps=101,align=same,decimate=3", SampleFormat::cf32, 1},
      {"fir:bandpass=1000:5000,transition=500,attenuation=60,shift=2000,decimate=4", SampleFormat::ci16, 2},
      {"fir:complex_bandpass=-4000:-1000,numtaps=300", SampleFormat::cf32, 1},
      {"fir:lowpass=3000,numtaps=101,precision=double,decimate=2", SampleFormat::f32, 1},
      {"fir:bandpass=1000:5000,numtaps=255,shift=2000,precision=double", SampleFormat::ci16, 2},
      {"fir:lowpass=3000,numtaps=63,precision=double", SampleFormat::cf64, 1},
      {"shift:-2500", SampleFormat::cf32, 1},
      {"shift:frequency=1000,channel=1", SampleFormat::i16, 2},
      {"shift:-2500,precision=double", SampleFormat::ci16, 1},
      {"shift:frequency=1000,precision=double,channel=1", SampleFormat::f32, 2},
      {"shift:-2500,precision=double", SampleFormat::cf64, 1},
      {"resample:32000", SampleFormat::f32, 1},
      {"resample:up=3,down=7", SampleFormat::cf32, 1},
      {"resample:rate=32000,precision=double", SampleFormat::ci16, 2},
      {"am", SampleFormat::cf32, 1},
      {"fm", SampleFormat::cf32, 1},
      {"usb", SampleFormat::cf32, 1},
      {"lsb:low=200,high=2500", SampleFormat::ci16, 1},
      {"cw:bfo=600", SampleFormat::cf32, 1},
      {"gain:-6", SampleFormat::f32, 1},
      {"gain:linear=2", SampleFormat::cf32, 1},
      {"gain:-6,precision=double", SampleFormat::ci16, 2},
      {"gain:-6,precision=double", SampleFormat::f64, 1},
      {"gain:linear=0.5,precision=double,channel=1", SampleFormat::cf64, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    test::check_stage([&] { return made(c.spec); }, noisy_input(c.format, 48000, 6007, c.channels));
  }
}

TEST(SampleStages, OutputsDescribeWhatTheyCarry) {
  const test::StageInput real = noisy_input(SampleFormat::i16, 48000, 100, 2, 1e6);
  const test::StageInput iq = noisy_input(SampleFormat::ci16, 2.4e6, 100, 1, 100e6);
  PortDescription out = output_of("fir:lowpass=3000,numtaps=11,decimate=4", real);
  EXPECT_EQ(out.samples.format, SampleFormat::f32);
  EXPECT_EQ(out.samples.channels, 1u);
  EXPECT_DOUBLE_EQ(out.samples.sample_rate, 12000);
  EXPECT_EQ(out.samples.length, 25u);
  EXPECT_DOUBLE_EQ(out.samples.center_frequency, 1e6);
  out = output_of("fir:lowpass=100e3,numtaps=11,shift=-250e3,decimate=8", iq);
  EXPECT_EQ(out.samples.format, SampleFormat::cf32);
  EXPECT_DOUBLE_EQ(out.samples.sample_rate, 300e3);
  EXPECT_DOUBLE_EQ(out.samples.center_frequency, 100e6 - 250e3) << "the band at -250 kHz is now at 0 Hz";
  EXPECT_EQ(out.samples.length, 13u);
  out = output_of("fir:lowpass=3000,numtaps=11,shift=500", real);
  EXPECT_EQ(out.samples.format, SampleFormat::cf32) << "a shift makes real input complex";
  out = output_of("fir:lowpass=3000,numtaps=11,precision=double", real);
  EXPECT_EQ(out.samples.format, SampleFormat::f64);
  out = output_of("fir:lowpass=100e3,numtaps=11,precision=double,decimate=8", iq);
  EXPECT_EQ(out.samples.format, SampleFormat::cf64);
  EXPECT_DOUBLE_EQ(out.samples.sample_rate, 300e3);
  out = output_of("shift:-1e3", real);
  EXPECT_EQ(out.samples.format, SampleFormat::cf32);
  EXPECT_DOUBLE_EQ(out.samples.center_frequency, 1e6 - 1e3);
  out = output_of("shift:-1e3,precision=double", real);
  EXPECT_EQ(out.samples.format, SampleFormat::cf64);
  EXPECT_DOUBLE_EQ(out.samples.center_frequency, 1e6 - 1e3);
  EXPECT_EQ(output_of("gain:6,precision=double", real).samples.format, SampleFormat::f64);
  EXPECT_EQ(output_of("gain:6,precision=double", iq).samples.format, SampleFormat::cf64);
  out = output_of("resample:48000", iq);
  EXPECT_DOUBLE_EQ(out.samples.sample_rate, 48000);
  EXPECT_EQ(out.samples.format, SampleFormat::cf32);
  EXPECT_EQ(output_of("resample:48000,precision=double", iq).samples.format, SampleFormat::cf64);
  EXPECT_EQ(output_of("resample:up=2,precision=double", real).samples.format, SampleFormat::f64);
  EXPECT_EQ(out.samples.length, 2u);  // ceil(100 / 50)
  out = output_of("fm:wide", iq);
  EXPECT_EQ(out.samples.format, SampleFormat::f32);
  EXPECT_DOUBLE_EQ(out.samples.sample_rate, 2.4e6);
  EXPECT_DOUBLE_EQ(out.samples.center_frequency, 0.0);
}

TEST(SampleStages, BadSettingsNameTheStageAndTheKey) {
  const test::StageInput real = noisy_input(SampleFormat::f32, 48000, 100);
  auto message = [&](const std::string& spec) -> std::string {
    try {
      output_of(spec, real);
    } catch (const UsageError& e) {
      return e.what();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message("fir:numtaps=11"),
            "fir: give the filter with one of lowpass, highpass, bandpass, bandstop, complex_bandpass, taps");
  EXPECT_EQ(message("fir:lowpass=100,highpass=200,numtaps=11"), "fir: give one filter, not lowpass, highpass");
  EXPECT_EQ(message("fir:lowpass=100"), "fir: numtaps: give numtaps=N, or transition=W and attenuation=DB");
  EXPECT_NE(message("fir:lowpass=30000,numtaps=11").find("fir: lowpass: "), std::string::npos);
  EXPECT_NE(message("fir:lowpass=100,numtaps=11,decimate=0").find("fir: decimate: 0 is out of range"),
            std::string::npos);
  EXPECT_NE(message("fir:bandpass=300,numtaps=11").find("fir: bandpass: '300' is not F1:F2"), std::string::npos);
  EXPECT_NE(message("fir:taps=/nonexistent/taps.npy").find("/nonexistent/taps.npy"), std::string::npos);
  EXPECT_NE(message("fir:lowpass=100,numtaps=11,channel=1").find("fir: channel 1 is out of range"), std::string::npos);
  EXPECT_EQ(message("am"), "am takes complex (I/Q) baseband samples; this input is real");
  EXPECT_NE(message("resample:rate=48000,up=2").find("resample: rate: give the output rate"), std::string::npos);
  EXPECT_NE(message("gain").find("gain: db: give the gain"), std::string::npos);
  EXPECT_NE(message("shift").find("shift: frequency: give the shift"), std::string::npos);
  EXPECT_NE(message("shift:40000").find("shift: frequency"), std::string::npos) << "beyond half the rate";
}

// A tone through fir's shift and decimation lands where the output's centre frequency says.
TEST(SampleStages, ShiftedAndDecimatedToneLandsAtBaseband) {
  StreamInfo info;
  info.format = SampleFormat::cf32;
  info.sample_rate = 96000;
  const std::size_t n = 96000;
  std::vector<std::complex<float>> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = std::polar(0.5f, static_cast<float>(2 * M_PI * 20500.0 * static_cast<double>(i) / 96000.0));
  std::vector<std::byte> bytes(n * sizeof(x[0]));
  std::memcpy(bytes.data(), x.data(), bytes.size());
  std::vector<std::unique_ptr<Stage>> chain;
  chain.push_back(made("fir:shift=20000,lowpass=2000,transition=500,attenuation=60,decimate=8"));
  PortDescription out;
  const std::vector<std::byte> y = test::run_chain_directly(chain, test::samples_input(info, bytes), 4096, &out);
  ASSERT_EQ(out.samples.sample_rate, 12000);
  const auto* z = reinterpret_cast<const std::complex<float>*>(y.data());
  const std::size_t m = y.size() / sizeof(z[0]);
  ASSERT_EQ(m, 12000u);
  // The 500 Hz tone that remains: its phase advances by 2π·500/12000 per sample.
  double error = 0;
  for (std::size_t i = 2000; i + 1 < m; ++i) {
    const double step = std::arg(z[i + 1] * std::conj(z[i]));
    error = std::max(error, std::abs(step - 2 * M_PI * 500.0 / 12000.0));
  }
  EXPECT_LT(error, 1e-3);
  EXPECT_NEAR(std::abs(z[6000]), 0.5, 0.01);
}

// The spaces around a stage's name are no part of it, for names_a_stage as for the parser
// (found by the stage_spec fuzz target: " fir:..." parsed as fir but was said to name no stage).
TEST(SampleStages, NamesAStageAsTheParserReadsIt) {
  for (const char* text : {"fir:lowpass=1000", " fir:lowpass=1000", "fir :numtaps=3", " resample"}) {
    EXPECT_TRUE(names_a_stage(text)) << text;
    EXPECT_NE(find_stage_kind(parse_stage_spec(text).name), nullptr) << text;
  }
  EXPECT_FALSE(names_a_stage("out.npy"));
  EXPECT_FALSE(names_a_stage(" firs:x=1"));
}

}  // namespace
}  // namespace prism
