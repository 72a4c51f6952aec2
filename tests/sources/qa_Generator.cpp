// Tests of the built-in test signal (sources/generator.hpp): tones land at their exact
// frequency and amplitude (checked against a DFT in double precision), output does not depend
// on how reads are cut, complex and endless modes, integer output and clipping, and the
// messages for bad specs; live pacing, its drops and its interrupt.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <chrono>
#include <numbers>
#include <thread>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/generator.hpp"
#include "tests/sources/source_test_support.hpp"

namespace prism {
namespace {

using test::error_message;
using test::read_all;

// The whole signal of `spec` as complex doubles (real output: imaginary parts 0).
std::vector<std::complex<double>> samples_of(const std::string& spec_text) {
  GeneratorSource source(parse_generator_spec(spec_text));
  const auto bytes = read_all(source, 4096);
  const SampleFormat format = source.info().format;
  const std::size_t components = bytes.size() / component_bytes(format);
  std::vector<double> values(components);
  convert_to_double(format, bytes.data(), components, values.data());
  std::vector<std::complex<double>> out;
  if (is_complex(format)) {
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) out.emplace_back(values[i], values[i + 1]);
  } else {
    for (double v : values) out.emplace_back(v, 0.0);
  }
  return out;
}

// The DFT of x at `frequency` in double precision, scaled so a complex tone A e^{i2 pi f t}
// gives A (and a real tone A cos(2 pi f t) gives A/2 at +f and at -f).
std::complex<double> dft_at(const std::vector<std::complex<double>>& x, double frequency,
                            double rate) {
  std::complex<double> sum = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const double phase = -2.0 * std::numbers::pi * frequency * static_cast<double>(n) / rate;
    sum += x[n] * std::complex<double>(std::cos(phase), std::sin(phase));
  }
  return sum / static_cast<double>(x.size());
}

TEST(Generator, RealTonesSitAtTheirFrequencyWithTheirAmplitude) {
  // 1 s at 48 kHz: each tone has a whole number of cycles, so a DFT at another whole-cycle
  // frequency sees nothing of it.
  const auto x = samples_of("gen:rate=48000,duration=1,tone=1000@0.5,tone=6000@0.25");
  ASSERT_EQ(x.size(), 48000u);
  EXPECT_NEAR(2 * std::abs(dft_at(x, 1000, 48000)), 0.5, 1e-6);
  EXPECT_NEAR(2 * std::abs(dft_at(x, 6000, 48000)), 0.25, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 1001, 48000)), 0.0, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 3000, 48000)), 0.0, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 5999, 48000)), 0.0, 1e-6);
  // A cosine: phase 0 at sample 0.
  EXPECT_NEAR(x[0].real(), 0.75, 1e-6);
}

TEST(Generator, ToneBetweenBinsStillHasItsExactFrequency) {
  // 1234.5 Hz over 2 s is 2469 whole cycles; a generator off by 0.5 Hz would leave the DFT
  // at 1234.5 Hz with much less than the amplitude.
  const auto x = samples_of("gen:rate=8000,duration=2,tone=1234.5@0.3");
  EXPECT_NEAR(2 * std::abs(dft_at(x, 1234.5, 8000)), 0.3, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 1235.0, 8000)), 0.0, 1e-6);
}

TEST(Generator, ComplexTonesKeepTheSignOfTheirFrequency) {
  const auto x = samples_of("gen:rate=48000,duration=1,complex,tone=-3000@0.5,tone=5000@0.25");
  ASSERT_EQ(x.size(), 48000u);
  EXPECT_NEAR(std::abs(dft_at(x, -3000, 48000)), 0.5, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 3000, 48000)), 0.0, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, 5000, 48000)), 0.25, 1e-6);
  EXPECT_NEAR(std::abs(dft_at(x, -5000, 48000)), 0.0, 1e-6);
  // e^{i 0} at sample 0 for both tones.
  EXPECT_NEAR(x[0].real(), 0.75, 1e-6);
  EXPECT_NEAR(x[0].imag(), 0.0, 1e-6);
}

TEST(Generator, ChirpSweepsFromStartToEndFrequency) {
  // 1 kHz rate, 2 s, 50 -> 450 Hz: the first quarter holds ~50-150 Hz, the last ~350-450 Hz.
  const auto x = samples_of("gen:rate=1000,duration=2,chirp=50-450@1");
  ASSERT_EQ(x.size(), 2000u);
  auto energy_near = [](const std::vector<std::complex<double>>& part, double f) {
    return std::abs(dft_at(part, f, 1000));
  };
  const std::vector<std::complex<double>> first(x.begin(), x.begin() + 500);
  const std::vector<std::complex<double>> last(x.end() - 500, x.end());
  EXPECT_GT(energy_near(first, 100), 5 * energy_near(first, 400));
  EXPECT_GT(energy_near(last, 400), 5 * energy_near(last, 100));
  // Instantaneous frequency near the start: phase steps of 2 pi * 50 / 1000 per sample.
  EXPECT_NEAR(x[0].real(), 1.0, 1e-6);
}

TEST(Generator, OutputDoesNotDependOnHowReadsAreCut) {
  for (const char* spec : {"gen:duration=0.2", "gen:duration=0.2,complex,format=ci16",
                           "gen:duration=0.2,format=i16,seed=7"}) {
    SCOPED_TRACE(spec);
    std::vector<std::vector<std::byte>> outputs;
    for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{9600}}) {
      GeneratorSource source(parse_generator_spec(spec));
      outputs.push_back(read_all(source, chunk));
    }
    ASSERT_EQ(outputs[0].size(), 9600u * sample_bytes(parse_generator_spec(spec).output_format()));
    for (std::size_t i = 1; i < outputs.size(); ++i) EXPECT_TRUE(outputs[i] == outputs[0]) << i;
  }
}

TEST(Generator, DefaultSignalIsTheDocumentedOne) {
  const GeneratorSpec spec = parse_generator_spec("gen");
  EXPECT_EQ(spec.sample_rate, 48000);
  EXPECT_EQ(spec.duration_s, 10);
  ASSERT_EQ(spec.tones.size(), 2u);
  EXPECT_EQ(spec.tones[0].frequency_hz, 1000);
  EXPECT_EQ(spec.tones[0].amplitude, 0.5);
  EXPECT_EQ(spec.tones[1].frequency_hz, 6000);
  EXPECT_EQ(spec.tones[1].amplitude, 0.25);
  ASSERT_EQ(spec.chirps.size(), 1u);
  EXPECT_EQ(spec.chirps[0].start_hz, 200);
  EXPECT_EQ(spec.chirps[0].end_hz, 20000);
  EXPECT_EQ(spec.chirps[0].amplitude, 0.3);
  EXPECT_EQ(spec.noise_stddev, 0.01);
  EXPECT_FALSE(spec.complex_output);
  EXPECT_EQ(spec.output_format(), SampleFormat::f32);
  EXPECT_EQ(parse_generator_spec("gen:").to_string(), spec.to_string());

  GeneratorSource source(spec);
  EXPECT_EQ(source.info().length, 480000u);
  EXPECT_EQ(source.info().sample_rate, 48000);
  EXPECT_EQ(source.info().channels, 1u);
  EXPECT_FALSE(source.info().live);
}

TEST(Generator, KeysThatAddNoComponentKeepTheDefaultSignal) {
  const GeneratorSpec spec = parse_generator_spec("gen:duration=inf");
  EXPECT_TRUE(spec.endless());
  EXPECT_EQ(spec.tones.size(), 2u);
  EXPECT_EQ(spec.chirps.size(), 1u);
  // At another rate the default components scale with it and stay below Nyquist.
  const GeneratorSpec slow = parse_generator_spec("gen:rate=8000");
  EXPECT_DOUBLE_EQ(slow.tones[0].frequency_hz, 1000.0 / 6);
  EXPECT_LE(slow.chirps[0].end_hz, 4000);
}

TEST(Generator, GivenComponentsReplaceTheDefaults) {
  const GeneratorSpec spec = parse_generator_spec("gen:tone=440");
  ASSERT_EQ(spec.tones.size(), 1u);
  EXPECT_EQ(spec.tones[0].frequency_hz, 440);
  EXPECT_EQ(spec.tones[0].amplitude, 0.5);
  EXPECT_TRUE(spec.chirps.empty());
  EXPECT_EQ(spec.noise_stddev, 0);
  EXPECT_EQ(spec.sample_rate, 48000);
  EXPECT_EQ(spec.duration_s, 10);

  const GeneratorSpec silent = parse_generator_spec("gen:noise=0");
  EXPECT_TRUE(silent.tones.empty());
  EXPECT_TRUE(silent.chirps.empty());
  // Round trip of a silent spec stays silent (it must not turn into the default signal).
  EXPECT_TRUE(parse_generator_spec(silent.to_string()).tones.empty());
}

TEST(Generator, SpecTextRoundTrips) {
  for (const char* text :
       {"gen", "gen:rate=2.4M,complex,tone=-100k@0.1,chirp=-1e6--2e5@0.2,noise=0.05,seed=99",
        "gen:rate=44100,duration=0.5,tone=440,format=i16", "gen:duration=inf,format=ci16"}) {
    SCOPED_TRACE(text);
    const GeneratorSpec spec = parse_generator_spec(text);
    const GeneratorSpec again = parse_generator_spec(spec.to_string());
    EXPECT_EQ(again.to_string(), spec.to_string());
    EXPECT_EQ(again.sample_rate, spec.sample_rate);
    EXPECT_EQ(again.tones.size(), spec.tones.size());
    EXPECT_EQ(again.chirps.size(), spec.chirps.size());
    EXPECT_EQ(again.output_format(), spec.output_format());
  }
  const GeneratorSpec sdr =
      parse_generator_spec("gen:rate=2.4M,complex,chirp=-1e6--2e5@0.2");
  EXPECT_EQ(sdr.sample_rate, 2.4e6);
  EXPECT_EQ(sdr.chirps[0].start_hz, -1e6);
  EXPECT_EQ(sdr.chirps[0].end_hz, -2e5);
  EXPECT_EQ(sdr.output_format(), SampleFormat::cf32);
  EXPECT_CONTAINS(parse_generator_spec("gen").describe(), "tone 1000 Hz @0.5");
}

TEST(Generator, EndlessSignalNeverEndsAndItsChirpRepeatsEveryTenSeconds) {
  for (const char* text : {"gen:rate=1000,duration=inf,chirp=10-400@0.5",
                           "gen:rate=1000,duration=0,chirp=10-400@0.5"}) {
    SCOPED_TRACE(text);
    GeneratorSource source(parse_generator_spec(text));
    EXPECT_FALSE(source.info().length.has_value());
    // 25 s of signal in full reads: none comes back short.
    std::vector<float> buffer(25000);
    ASSERT_EQ(source.read(reinterpret_cast<std::byte*>(buffer.data()), buffer.size()), 25000u);
    for (std::size_t i = 0; i < 5000; ++i) {
      ASSERT_EQ(buffer[i], buffer[i + 10000]) << i;
      ASSERT_EQ(buffer[i], buffer[i + 20000]) << i;
    }
    // ... and the sweep is not constant: the start differs from 5 s later.
    EXPECT_NE(std::vector<float>(buffer.begin(), buffer.begin() + 100),
              std::vector<float>(buffer.begin() + 5000, buffer.begin() + 5100));
  }
}

TEST(Generator, FiniteSignalEndsAtItsLength) {
  GeneratorSource source(parse_generator_spec("gen:rate=48000,duration=0.25,tone=100"));
  ASSERT_EQ(source.info().length, 12000u);
  std::vector<float> buffer(5000);
  auto* dst = reinterpret_cast<std::byte*>(buffer.data());
  EXPECT_EQ(source.read(dst, 5000), 5000u);
  EXPECT_EQ(source.read(dst, 5000), 5000u);
  EXPECT_EQ(source.read(dst, 5000), 2000u);
  EXPECT_EQ(source.read(dst, 5000), 0u);
}

TEST(Generator, NoiseHasTheRequestedStandardDeviationAndFollowsTheSeed) {
  auto stats = [](const std::vector<std::complex<double>>& x) {
    double mean = 0, power = 0;
    for (const auto& v : x) {
      mean += v.real();
      power += std::norm(v);
    }
    return std::pair{mean / x.size(), std::sqrt(power / x.size())};
  };
  const auto [real_mean, real_sd] = stats(samples_of("gen:rate=100000,duration=1,noise=0.1"));
  EXPECT_NEAR(real_mean, 0.0, 0.002);
  EXPECT_NEAR(real_sd, 0.1, 0.002);
  const auto [complex_mean, complex_sd] =
      stats(samples_of("gen:rate=100000,duration=1,noise=0.1,complex"));
  EXPECT_NEAR(complex_mean, 0.0, 0.002);
  EXPECT_NEAR(complex_sd, 0.1, 0.002);

  const auto a = samples_of("gen:rate=1000,duration=1,noise=0.1,seed=1");
  const auto b = samples_of("gen:rate=1000,duration=1,noise=0.1,seed=2");
  const auto a_again = samples_of("gen:rate=1000,duration=1,noise=0.1,seed=1");
  EXPECT_EQ(a, a_again);
  EXPECT_NE(a, b);
}

TEST(Generator, IntegerOutputRoundsAndCountsClipping) {
  GeneratorSource fits(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@0.5,format=i16"));
  const auto bytes = read_all(fits, 100);
  EXPECT_EQ(fits.clipped_samples(), 0u);
  std::int16_t first;
  std::memcpy(&first, bytes.data(), 2);
  EXPECT_EQ(first, 16384);  // 0.5 * 32768

  GeneratorSource loud(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@1.5,format=i16"));
  const auto loud_bytes = read_all(loud, 100);
  EXPECT_GT(loud.clipped_samples(), 100u);
  EXPECT_LT(loud.clipped_samples(), 480u);
  std::int16_t loud_first;
  std::memcpy(&loud_first, loud_bytes.data(), 2);
  EXPECT_EQ(loud_first, 32767);

  GeneratorSource complex_loud(
      parse_generator_spec("gen:rate=48000,duration=0.01,complex,tone=1000@2,format=ci16"));
  read_all(complex_loud, 100);
  EXPECT_GT(complex_loud.clipped_samples(), 0u);

  // 8-bit formats: scaled as format.hpp reads them back, clipped at their ends.
  GeneratorSource unsigned_loud(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@1.5,format=u8"));
  const auto u8_bytes = read_all(unsigned_loud, 100);
  EXPECT_EQ(static_cast<unsigned>(u8_bytes[0]), 255u);
  EXPECT_GT(unsigned_loud.clipped_samples(), 100u);
  GeneratorSource signed_half(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@0.5,format=i8"));
  EXPECT_EQ(static_cast<std::int8_t>(read_all(signed_half, 100)[0]), 64);

  GeneratorSource floats(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@1.5"));
  read_all(floats, 100);
  EXPECT_EQ(floats.clipped_samples(), 0u);  // f32 holds 1.5 as it is

  // f64 and cf64: the values computed in double, unrounded (f32's are the same values rounded).
  GeneratorSource wide(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@0.3,noise=0.1,format=f64"));
  GeneratorSource narrow(parse_generator_spec("gen:rate=48000,duration=0.01,tone=1000@0.3,noise=0.1"));
  const auto wide_bytes = read_all(wide, 100), narrow_bytes = read_all(narrow, 100);
  ASSERT_EQ(wide_bytes.size(), 2 * narrow_bytes.size());
  bool some_value_beyond_float = false;
  for (std::size_t i = 0; i < narrow_bytes.size() / 4; ++i) {
    double d;
    float f;
    std::memcpy(&d, wide_bytes.data() + 8 * i, 8);
    std::memcpy(&f, narrow_bytes.data() + 4 * i, 4);
    EXPECT_EQ(static_cast<float>(d), f) << i;
    some_value_beyond_float = some_value_beyond_float || static_cast<double>(f) != d;
  }
  EXPECT_TRUE(some_value_beyond_float);
  GeneratorSource complex_wide(parse_generator_spec("gen:rate=48000,duration=0.01,format=cf64"));
  EXPECT_EQ(complex_wide.info().format, SampleFormat::cf64);
  EXPECT_EQ(read_all(complex_wide, 100).size(), 480u * 16u);
}

TEST(Generator, BadSpecsNameTheKeyAndTheProblem) {
  struct Case {
    const char* spec;
    std::vector<const char*> parts;
  };
  const Case cases[] = {
      {"gen:tonee=5",
       {"unknown key 'tonee'", "known: rate, duration, tone, chirp, noise, complex, seed, format"}},
      {"gen:tone=abc", {"tone=abc", "not a number"}},
      {"gen:tone", {"'tone'", "needs a value"}},
      {"gen:tone=1000@-1", {"tone=1000@-1", "amplitude"}},
      {"gen:tone=30000", {"tone=30000", "Nyquist"}},
      {"gen:tone=-1000", {"tone=-1000", "negative", "complex"}},
      {"gen:complex,tone=30000", {"tone=30000", "+-rate/2"}},
      {"gen:rate=-5", {"rate=-5", "> 0"}},
      {"gen:rate=0", {"rate=0", "> 0"}},
      {"gen:rate=fast", {"rate=fast", "not a number"}},
      {"gen:rate=1e300", {"rate=1e+300", "at most"}},
      {"gen:rate=48000,rate=8000", {"'rate'", "twice"}},
      {"gen:duration=-1", {"duration=-1", ">= 0"}},
      {"gen:duration=1e-9", {"duration=1e-09", "shorter than one sample"}},
      {"gen:chirp=100", {"chirp=100", "F0-F1"}},
      {"gen:chirp=100-90000", {"chirp=100-90000", "Nyquist"}},
      {"gen:noise=-1", {"noise=-1", ">= 0"}},
      {"gen:noise=1e38", {"peak of 8.6e+38", "float32"}},
      {"gen:tone=100@2e38,tone=200@2e38", {"peak of 4e+38", "float32"}},
      {"gen:tone=100@1e308,tone=200@1e308,format=f64", {"peak beyond what float64 samples hold"}},
      {"gen:complex,tone=100@1.7976931348623157e308,format=cf64", {"peak of 1.797", "float64"}},
      {"gen:seed=x", {"seed=x", "unsigned integer"}},
      {"gen:seed=-3", {"seed=-3", "unsigned integer"}},
      {"gen:format=ci32", {"format=ci32", "not supported"}},
      {"gen:format=bogus", {"format=bogus", "unknown format"}},
      {"gen:complex,format=i16", {"format=i16", "complex"}},
      {"gen:complex=false,format=cf32", {"format=cf32", "real"}},
      {"gen:complex=maybe", {"complex=maybe", "true|false"}},
      {"gen:tone=1000,,noise=1", {"empty item"}},
      {"gen:tone=1000,", {"empty item"}},
      {"generator", {"not a generator spec", "generator"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    const std::string message = error_message<UsageError>([&] { parse_generator_spec(c.spec); });
    for (const char* part : c.parts) EXPECT_CONTAINS(message, part);
  }
}

// The largest amplitudes and noise accepted still give finite samples (the fuzz target found
// noise=2e117 making infinities): float32's limit, and float64's for f64 and cf64.
TEST(Generator, LargestAcceptedSignalIsFinite) {
  for (const char* spec : {"gen:noise=3.9e37,duration=1", "gen:complex,noise=3.9e37,duration=1",
                           "gen:tone=100@1.7e38,chirp=10-1000@1.7e38,duration=1",
                           "gen:noise=1e38,format=f64,duration=1",
                           "gen:complex,tone=100@1.7976931e308,format=cf64,duration=1",
                           "gen:complex,tone=100@8.98e307,chirp=10-1000@8.98e307,format=cf64,duration=1"}) {
    SCOPED_TRACE(spec);
    for (const auto& sample : samples_of(spec)) {
      ASSERT_TRUE(std::isfinite(sample.real()) && std::isfinite(sample.imag())) << sample;
    }
  }
}

TEST(Generator, SpecBuiltInCodeIsCheckedToo) {
  GeneratorSpec spec;
  spec.sample_rate = 1000;
  spec.tones.push_back({800, 0.5});
  EXPECT_CONTAINS(error_message<UsageError>([&] { GeneratorSource source(spec); }), "Nyquist");
  spec.tones.clear();
  spec.format = SampleFormat::i32;
  EXPECT_CONTAINS(error_message<UsageError>([&] { GeneratorSource source(spec); }),
                  "not supported");
}

TEST(Generator, RecognisesItsInputs) {
  EXPECT_TRUE(is_generator_spec("gen"));
  EXPECT_TRUE(is_generator_spec("gen:"));
  EXPECT_TRUE(is_generator_spec("gen:tone=1"));
  EXPECT_FALSE(is_generator_spec("gen.wav"));
  EXPECT_FALSE(is_generator_spec("generator"));
  EXPECT_FALSE(is_generator_spec("./gen"));
}

// A live generator delivers no sample before it is due, keeps the samples of a reader that is
// late by less than a second, and drops (and counts) those of a reader later than that.
TEST(Generator, LiveSpecIsPacedAndCountsWhatItsLateReaderLost) {
  using Clock = std::chrono::steady_clock;
  GeneratorSource source(parse_generator_spec("gen:rate=10000,duration=inf,live"));
  EXPECT_TRUE(source.info().live);
  std::vector<float> buffer(10000);
  const Clock::time_point start = Clock::now();
  std::size_t total = 0;
  while (total < 2000) {
    const std::size_t n = source.read(reinterpret_cast<std::byte*>(buffer.data()), 2000 - total);
    ASSERT_GT(n, 0u);
    EXPECT_LE(n, 2000 - total);
    total += n;
  }
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(200)) << "2000 samples at 10 kHz";
  EXPECT_EQ(source.dropped_samples(), 0u);
  // 2 s late (more on a busy machine): 1 s of it beyond the one-second buffer.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  ASSERT_EQ(source.read(reinterpret_cast<std::byte*>(buffer.data()), 100), 100u);
  EXPECT_GE(source.dropped_samples(), 10000u);
  EXPECT_LE(source.dropped_samples(), 20000u);
}

// stall=S: after S seconds of signal a read delivers nothing, with no error and no end, until
// interrupted (a hung device, for the stall timeout's tests).
TEST(Generator, LiveStallWaitsUntilInterrupted) {
  GeneratorSource source(parse_generator_spec("gen:rate=1000,duration=inf,live,stall=0.05"));
  std::vector<float> buffer(1000);
  std::size_t total = 0;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    source.interrupt();
  });
  while (const std::size_t n = source.read(reinterpret_cast<std::byte*>(buffer.data()), 1000)) total += n;
  interrupter.join();
  EXPECT_EQ(total, 50u) << "the 0.05 s before the stall, then nothing until the interrupt";
  EXPECT_THROW(parse_generator_spec("gen:stall=1"), UsageError) << "stall needs live";
}

TEST(Generator, InterruptEndsAWaitingLiveRead) {
  GeneratorSource source(parse_generator_spec("gen:rate=1,duration=inf,live"));
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    source.interrupt();
  });
  std::vector<float> buffer(100);
  // 100 samples at 1 Hz are due in 100 s; the interrupt ends the wait.
  EXPECT_EQ(source.read(reinterpret_cast<std::byte*>(buffer.data()), 100), 0u);
  interrupter.join();
}

TEST(Generator, LiveIsPartOfTheSpecText) {
  const GeneratorSpec spec = parse_generator_spec("gen:live,duration=2");
  EXPECT_TRUE(spec.live);
  EXPECT_TRUE(parse_generator_spec(spec.to_string()).live);
  EXPECT_FALSE(parse_generator_spec("gen:live=false").live);
}

TEST(Generator, ChannelsCarryTheSameSignalAndSurviveTheSpecString) {
  const GeneratorSpec spec = parse_generator_spec("gen:rate=8000,duration=0.01,tone=1000@0.5,format=ci16,channels=3");
  EXPECT_EQ(parse_generator_spec(spec.to_string()).channels, 3u);
  GeneratorSource source(spec);
  EXPECT_EQ(source.info().channels, 3u);
  const auto bytes = read_all(source, 17);
  ASSERT_EQ(bytes.size(), 80u * 3 * 4);
  for (std::size_t i = 0; i < 80; ++i)
    for (std::size_t c = 1; c < 3; ++c)
      ASSERT_EQ(std::memcmp(&bytes[i * 12], &bytes[i * 12 + c * 4], 4), 0) << "sample " << i;
}

}  // namespace
}  // namespace prism
