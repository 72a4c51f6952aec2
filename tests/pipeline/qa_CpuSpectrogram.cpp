// Tests of CpuSpectrogram (pipeline/cpu_spectrogram.cpp).
//
//   1. a direct reference    scipy.signal.spectrogram's definition, written out here in double
//                            precision with a direct DFT (none of the stage's code)
//   2. the test bench        one configuration = input format, channels, parameters; the
//                            input is made from integers or floats with a tone, DC and noise
//   3. accuracy              every configuration against the reference: real and complex
//                            input, odd nperseg, nfft > nperseg, all windows, both scalings,
//                            both modes, dB, mean/max averaging, detrend none/constant,
//                            multi-channel selection, integer formats
//   4. block-size invariance rows bit-identical (memcmp) for blocks of 1, 2, 3, 7, 255, 256,
//                            1000, 4096 samples and larger than the input, and 1, 2, 3 threads
//   5. counters, layout, errors, dB floor and accuracy over a wide range
//   6. scipy itself          the same rows as scipy.signal.spectrogram run by Debian's python3
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "pipeline/cpu_spectrogram.hpp"
#include "stage_harness.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"

namespace prism {
namespace {

using cd = std::complex<double>;

// ---- 1. a direct reference -----------------------------------------------------------------

struct ReferenceRows {
  std::size_t columns = 0;
  std::size_t rows = 0;
  std::vector<double> values;  // linear (before dB), rows × columns
};

ReferenceRows reference_spectrogram(const std::vector<cd>& x, bool complex_input,
                                    const SpectrogramParams& p, double fs) {
  const std::size_t n = x.size(), nperseg = p.nperseg, nfft = p.nfft, hop = p.hop();
  const std::vector<double> w = make_window(p.window, nperseg);
  double sum = 0, sum_squares = 0;
  for (double v : w) {
    sum += v;
    sum_squares += v * v;
  }
  const double scale = p.scaling == Scaling::density ? 1.0 / (fs * sum_squares) : 1.0 / (sum * sum);
  const bool magnitude = p.mode == SpectrumMode::magnitude;
  std::vector<cd> twiddle(nfft);
  for (std::size_t i = 0; i < nfft; ++i)
    twiddle[i] = std::polar(1.0, -2.0 * std::numbers::pi * double(i) / double(nfft));

  const std::size_t frames = n >= nperseg ? (n - nperseg) / hop + 1 : 0;
  ReferenceRows out;
  out.columns = complex_input ? nfft : nfft / 2 + 1;
  std::vector<double> frame_values(frames * out.columns);
  std::vector<cd> segment(nperseg);
  for (std::size_t f = 0; f < frames; ++f) {
    cd mean = 0;
    for (std::size_t j = 0; j < nperseg; ++j) mean += x[f * hop + j];
    mean /= double(nperseg);
    if (p.detrend == Detrend::none) mean = 0;
    for (std::size_t j = 0; j < nperseg; ++j) segment[j] = (x[f * hop + j] - mean) * w[j];
    for (std::size_t c = 0; c < out.columns; ++c) {
      const std::size_t bin = complex_input ? (c + nfft - nfft / 2) % nfft : c;
      cd X = 0;
      for (std::size_t j = 0; j < nperseg; ++j) X += segment[j] * twiddle[(j * bin) % nfft];
      double v = magnitude ? std::abs(X) * std::sqrt(scale) : std::norm(X) * scale;
      const bool doubled = !complex_input && !magnitude && bin >= 1 &&
                           (nfft % 2 == 1 ? bin <= nfft / 2 : bin < nfft / 2);
      if (doubled) v *= 2;
      frame_values[f * out.columns + c] = v;
    }
  }
  const std::size_t k = p.average;
  out.rows = frames / k;
  out.values.assign(out.rows * out.columns, 0.0);
  for (std::size_t r = 0; r < out.rows; ++r)
    for (std::size_t c = 0; c < out.columns; ++c) {
      double acc = p.average_kind == AverageKind::mean ? 0.0 : -1.0;
      for (std::size_t f = r * k; f < r * k + k; ++f) {
        const double v = frame_values[f * out.columns + c];
        acc = p.average_kind == AverageKind::mean ? acc + v : std::max(acc, v);
      }
      out.values[r * out.columns + c] = p.average_kind == AverageKind::mean ? acc / k : acc;
    }
  return out;
}

double to_decibels(double v, bool magnitude) {
  return magnitude ? 20 * std::log10(std::max(v, 1e-15)) : 10 * std::log10(std::max(v, 1e-30));
}

// ---- 2. the test bench -------------------------------------------------------------------

struct Config {
  std::string name;
  SampleFormat format = SampleFormat::f32;
  unsigned channels = 1;
  SpectrogramParams params;
  std::size_t samples = 120000;
};

struct Input {
  std::vector<std::byte> bytes;  // native format, channels interleaved
  std::vector<cd> analysed;      // the analysed channel as the stage should read it
};

// Integers are scaled as format.hpp states (written out here, not taken from format.cpp).
template <typename T>
void put(std::vector<std::byte>& bytes, T value) {
  std::byte raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

Input make_input(const Config& c, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.3, 0.3);
  const bool complex_input = is_complex(c.format);
  Input in;
  for (std::size_t i = 0; i < c.samples; ++i)
    for (unsigned ch = 0; ch < c.channels; ++ch) {
      cd value = 0;
      for (int part = 0; part < (complex_input ? 2 : 1); ++part) {
        // A tone whose frequency depends on the channel, a DC offset and noise.
        const double phase = 2 * std::numbers::pi * (0.05 + 0.07 * ch) * double(i) +
                             (part == 1 ? -std::numbers::pi / 2 : 0.0);
        const double v = 0.15 + 0.4 * std::cos(phase) + noise(rng);
        double stored = 0;
        switch (c.format) {
          case SampleFormat::f32:
          case SampleFormat::cf32: {
            const float f = static_cast<float>(v);
            put(in.bytes, f);
            stored = f;
            break;
          }
          case SampleFormat::i16:
          case SampleFormat::ci16: {
            const auto s = static_cast<std::int16_t>(std::lround(v * 32767));
            put(in.bytes, s);
            stored = s / 32768.0;
            break;
          }
          case SampleFormat::i8:
          case SampleFormat::ci8: {
            const auto s = static_cast<std::int8_t>(std::lround(v * 127));
            put(in.bytes, s);
            stored = s / 128.0;
            break;
          }
          case SampleFormat::u8:
          case SampleFormat::cu8: {
            const auto s = static_cast<std::uint8_t>(std::lround(v * 127 + 128));
            put(in.bytes, s);
            stored = (s - 128) / 128.0;
            break;
          }
          default: ADD_FAILURE() << "no test input in " << format_name(c.format);
        }
        if (part == 0) value.real(stored);
        else value.imag(stored);
      }
      if (ch == c.params.channel) in.analysed.push_back(value);
    }
  return in;
}

StreamInfo stream_of(const Config& c) {
  StreamInfo s;
  s.format = c.format;
  s.sample_rate = 48000;
  s.channels = c.channels;
  return s;
}

// A stage made and configured for `stream` with chunks of up to `max_chunk` samples.
std::unique_ptr<CpuSpectrogram> configured(const StreamInfo& stream, const SpectrogramParams& params,
                                           std::size_t max_chunk, unsigned threads = 0) {
  auto stage = std::make_unique<CpuSpectrogram>(params, threads);
  stage->configure(PortDescription::of_samples(stream), max_chunk);
  return stage;
}

struct StageRun {
  std::vector<float> rows;
  std::size_t columns = 0;
  StageCounters counters;
  bool rows_within_bound = true;  // every process() wrote <= max_output rows
  bool nothing_beyond = true;     // and nothing past the rows it reported
};

std::uint64_t extra(const StageCounters& c, const std::string& name) {
  for (const Counter& e : c.extras)
    if (e.name == name) return e.value;
  ADD_FAILURE() << "no counter '" << name << "'";
  return 0;
}

StageRun run_stage(const Config& c, const Input& in, std::size_t block_samples, unsigned threads) {
  const StreamInfo stream = stream_of(c);
  const auto stage = configured(stream, c.params, block_samples, threads);
  StageRun run;
  run.columns = stage->layout().columns;
  const std::size_t frame_bytes = stream.frame_bytes();
  // The chunk's data lives in a buffer of its own, as pool chunks do.
  std::vector<std::byte> block_data(block_samples * frame_bytes + 64);
  std::vector<float> rows;
  for (std::size_t first = 0; first < c.samples; first += block_samples) {
    const std::size_t n = std::min(block_samples, c.samples - first);
    std::memcpy(block_data.data(), in.bytes.data() + first * frame_bytes, n * frame_bytes);
    const Chunk block = chunk_view(block_data.data(), n, frame_bytes, first);
    const std::size_t room = stage->max_output(n) * run.columns;
    rows.assign(room + 16, std::numeric_limits<float>::quiet_NaN());
    Chunk out = chunk_view(rows.data(), 0, run.columns * sizeof(float));
    const std::size_t written = stage->process(block, out);
    if (written * run.columns > room) run.rows_within_bound = false;
    for (std::size_t i = written * run.columns; i < rows.size(); ++i)
      if (!std::isnan(rows[i])) run.nothing_beyond = false;
    run.rows.insert(run.rows.end(), rows.begin(), rows.begin() + written * run.columns);
  }
  Chunk out = chunk_view(rows.data(), 0, run.columns * sizeof(float));
  EXPECT_EQ(stage->flush(out), 0u);
  run.counters = stage->counters();
  return run;
}

SpectrogramParams params_with(std::size_t nperseg, std::size_t noverlap, std::size_t nfft,
                              WindowSpec window = {WindowKind::tukey, 0.25}) {
  SpectrogramParams p;
  p.nperseg = nperseg;
  p.noverlap = noverlap;
  p.nfft = nfft;
  p.window = window;
  return p;
}

std::vector<Config> all_configs() {
  std::vector<Config> configs;
  auto add = [&](std::string name, SampleFormat format, SpectrogramParams p,
                 unsigned channels = 1) {
    Config c;
    c.name = std::move(name);
    c.format = format;
    c.channels = channels;
    c.params = p;
    configs.push_back(c);
  };
  add("real_defaults", SampleFormat::f32, params_with(256, 32, 256));
  {
    auto p = params_with(255, 100, 302, {WindowKind::hann});
    p.scaling = Scaling::spectrum;
    add("real_odd_nperseg_padded_spectrum", SampleFormat::f32, p);
  }
  add("real_odd_nfft", SampleFormat::f32, params_with(200, 50, 301, {WindowKind::hamming}));
  {
    auto p = params_with(256, 0, 256, {WindowKind::blackmanharris});
    p.mode = SpectrumMode::magnitude;
    add("real_magnitude", SampleFormat::f32, p);
  }
  {
    auto p = params_with(256, 128, 256, {WindowKind::flattop});
    p.mode = SpectrumMode::magnitude;
    p.scaling = Scaling::spectrum;
    p.decibels = true;
    add("real_magnitude_spectrum_db", SampleFormat::f32, p);
  }
  {
    auto p = params_with(256, 64, 256, {WindowKind::kaiser, 8.6});
    p.decibels = true;
    p.average = 4;
    add("real_db_mean4", SampleFormat::f32, p);
  }
  {
    auto p = params_with(300, 13, 512, {WindowKind::boxcar});
    p.average = 3;
    p.average_kind = AverageKind::max;
    p.detrend = Detrend::none;
    add("real_max3_no_detrend", SampleFormat::f32, p);
  }
  add("complex", SampleFormat::cf32, params_with(256, 32, 256, {WindowKind::hamming}));
  {
    auto p = params_with(100, 30, 129, {WindowKind::blackman});
    p.mode = SpectrumMode::magnitude;
    p.scaling = Scaling::spectrum;
    add("complex_odd_nfft_magnitude", SampleFormat::cf32, p);
  }
  {
    auto p = params_with(255, 55, 256, {WindowKind::tukey, 0.5});
    p.decibels = true;
    p.average = 5;
    p.average_kind = AverageKind::max;
    add("complex_db_max5", SampleFormat::cf32, p);
  }
  {
    auto p = params_with(256, 32, 256);
    p.channel = 2;
    add("i16_channel2_of3", SampleFormat::i16, p, 3);
  }
  {
    auto p = params_with(256, 100, 384, {WindowKind::hann});
    p.channel = 1;
    p.decibels = true;
    p.average = 2;
    add("ci16_channel1_of2_db_mean2", SampleFormat::ci16, p, 2);
  }
  add("cu8", SampleFormat::cu8, params_with(256, 32, 256, {WindowKind::hann}));
  add("u8", SampleFormat::u8, params_with(128, 16, 128, {WindowKind::hann}));
  add("i8", SampleFormat::i8, params_with(128, 0, 256, {WindowKind::kaiser, 14}));
  {
    auto p = params_with(64, 60, 64, {WindowKind::hann});
    p.channel = 3;
    add("ci8_channel3_of4_small_hop", SampleFormat::ci8, p, 4);
  }
  {
    auto p = params_with(1, 0, 1, {WindowKind::hann});
    add("real_nperseg1", SampleFormat::f32, p);
    configs.back().samples = 5000;
    p.detrend = Detrend::none;
    add("real_nperseg1_no_detrend", SampleFormat::f32, p);
    configs.back().samples = 5000;
  }
  return configs;
}

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class SpectrogramBench : public testing::TestWithParam<Config> {};

std::string config_name(const testing::TestParamInfo<Config>& info) { return info.param.name; }

// ---- 3. accuracy -------------------------------------------------------------------------

// Linear rows: relative L2 error of each row below 2e-5 (float arithmetic throughout).
// dB rows: within 2e-3 dB wherever the value is within 40 dB of the row's peak (below that,
// float rounding of the FFT dominates any comparison of single bins).
void expect_close_to_reference(const Config& c, const std::vector<float>& rows,
                               const ReferenceRows& ref) {
  ASSERT_EQ(rows.size(), ref.rows * ref.columns);
  const bool magnitude = c.params.mode == SpectrumMode::magnitude;
  double worst = 0;
  for (std::size_t r = 0; r < ref.rows; ++r) {
    const double* expected = &ref.values[r * ref.columns];
    const float* got = &rows[r * ref.columns];
    if (c.params.decibels) {
      double peak = 0;
      for (std::size_t k = 0; k < ref.columns; ++k) peak = std::max(peak, expected[k]);
      const double threshold = peak * (magnitude ? 1e-2 : 1e-4);
      for (std::size_t k = 0; k < ref.columns; ++k) {
        if (expected[k] < threshold) continue;
        const double error = std::abs(got[k] - to_decibels(expected[k], magnitude));
        worst = std::max(worst, error);
        ASSERT_LT(error, 2e-3) << "row " << r << " column " << k;
      }
    } else {
      double err = 0, norm = 0;
      for (std::size_t k = 0; k < ref.columns; ++k) {
        err += (got[k] - expected[k]) * (got[k] - expected[k]);
        norm += expected[k] * expected[k];
      }
      // A row of zeros (nperseg 1 with the mean removed) must come out as zeros.
      const double relative = norm == 0 ? std::sqrt(err) : std::sqrt(err / norm);
      worst = std::max(worst, relative);
      ASSERT_LT(relative, 2e-5) << "row " << r;
    }
  }
  char worst_text[32];
  std::snprintf(worst_text, sizeof worst_text, "%.3g", worst);
  testing::Test::RecordProperty("worst_error", worst_text);
}

TEST_P(SpectrogramBench, MatchesDirectReference) {
  const Config& c = GetParam();
  const Input in = make_input(c);
  const StageRun run = run_stage(c, in, 4096, 2);
  const ReferenceRows ref =
      reference_spectrogram(in.analysed, is_complex(c.format), c.params, 48000);
  ASSERT_EQ(run.columns, ref.columns);
  ASSERT_GT(ref.rows, 0u);
  expect_close_to_reference(c, run.rows, ref);
}

// ---- 4. block-size invariance --------------------------------------------------------------

TEST_P(SpectrogramBench, RowsDoNotDependOnBlocksOrThreads) {
  const Config& c = GetParam();
  const Input in = make_input(c);
  const StageRun whole = run_stage(c, in, c.samples + 100, 1);
  ASSERT_GT(whole.rows.size(), 0u);
  for (std::size_t block : {1, 2, 3, 7, 255, 256, 1000, 4096, 1 << 20})
    for (unsigned threads : {1u, 2u, 3u}) {
      const StageRun run = run_stage(c, in, block, threads);
      ASSERT_EQ(run.rows.size(), whole.rows.size()) << "block " << block;
      EXPECT_EQ(0, std::memcmp(run.rows.data(), whole.rows.data(),
                               whole.rows.size() * sizeof(float)))
          << "block " << block << ", threads " << threads;
      EXPECT_TRUE(run.rows_within_bound) << "block " << block;
      EXPECT_TRUE(run.nothing_beyond) << "block " << block;
    }
}

// ---- 5. counters, layout, errors ---------------------------------------------------------

TEST_P(SpectrogramBench, CountsEverySample) {
  const Config& c = GetParam();
  const Input in = make_input(c);
  const StageRun run = run_stage(c, in, 1000, 2);
  const std::uint64_t n = c.samples, nperseg = c.params.nperseg, hop = c.params.hop(),
                      k = c.params.average;
  const std::uint64_t frames = n >= nperseg ? (n - nperseg) / hop + 1 : 0;
  EXPECT_EQ(run.counters.items_in, n);
  EXPECT_EQ(extra(run.counters, "frames"), frames);
  EXPECT_EQ(run.counters.items_out, frames / k);
  EXPECT_EQ(extra(run.counters, "frames unaveraged"), frames % k);
  EXPECT_EQ(extra(run.counters, "tail samples"), frames == 0 ? n : n - ((frames - 1) * hop + nperseg));
  EXPECT_EQ(run.rows.size(), frames / k * run.columns);
}

INSTANTIATE_TEST_SUITE_P(Configs, SpectrogramBench, testing::ValuesIn(all_configs()),
                         config_name);

TEST(CpuSpectrogram, ShortInputGivesNoRowsAndCountsTheTail) {
  Config c;
  c.params = params_with(256, 32, 256);
  c.samples = 255;
  const StageRun run = run_stage(c, make_input(c), 100, 2);
  EXPECT_TRUE(run.rows.empty());
  EXPECT_EQ(extra(run.counters, "frames"), 0u);
  EXPECT_EQ(extra(run.counters, "tail samples"), 255u);
}

TEST(CpuSpectrogram, LayoutOfRealInput) {
  StreamInfo s;
  s.format = SampleFormat::i16;
  s.sample_rate = 1000;
  SpectrogramParams p = params_with(255, 55, 300);
  p.average = 3;
  const auto stage = configured(s, p, 4096, 1);
  const SpectrumLayout& l = stage->layout();
  EXPECT_EQ(l.columns, 151u);
  ASSERT_EQ(l.frequencies.size(), 151u);
  for (std::size_t k = 0; k < l.columns; ++k)
    EXPECT_DOUBLE_EQ(l.frequencies[k], k * 1000.0 / 300);
  // scipy's t = (nperseg/2 + f·hop)/fs; a row of 3 frames sits at its middle frame.
  EXPECT_DOUBLE_EQ(l.first_row_time, (127.5 + 200) / 1000);
  EXPECT_DOUBLE_EQ(l.row_interval, 0.6);
  EXPECT_EQ(l.quantity, SpectrumQuantity::power_spectral_density);
  EXPECT_FALSE(l.decibels);
  const nlohmann::json parameters = nlohmann::json::parse(l.parameters_json);
  EXPECT_EQ(parameters["nfft"], 300);
  EXPECT_EQ(parameters["nperseg"], 255);
  EXPECT_EQ(parameters["window"], "tukey:0.25");
  EXPECT_EQ(parameters["hop"], 200);
  EXPECT_EQ(l.stream.format, SampleFormat::i16);
}

TEST(CpuSpectrogram, LayoutOfComplexInputIsCentred) {
  StreamInfo s;
  s.format = SampleFormat::cf32;
  s.sample_rate = 8;
  for (std::size_t nfft : {8u, 9u}) {
    SpectrogramParams p = params_with(8, 0, nfft);
    p.mode = SpectrumMode::magnitude;
    p.scaling = Scaling::spectrum;
    p.decibels = true;
    const auto stage = configured(s, p, 64, 1);
    const SpectrumLayout& l = stage->layout();
    ASSERT_EQ(l.columns, nfft);
    // fftshift(fftfreq(nfft, 1/fs)): ascending from the most negative frequency.
    const double df = 8.0 / nfft;
    for (std::size_t j = 0; j < nfft; ++j)
      EXPECT_DOUBLE_EQ(l.frequencies[j], (double(j) - double(nfft / 2)) * df);
    EXPECT_DOUBLE_EQ(l.first_row_time, 0.5);
    EXPECT_EQ(l.quantity, SpectrumQuantity::magnitude_spectrum);
    EXPECT_TRUE(l.decibels);
  }
}

TEST(CpuSpectrogram, ChannelOutOfRange) {
  StreamInfo s;
  s.format = SampleFormat::ci16;
  s.sample_rate = 1;
  s.channels = 2;
  SpectrogramParams p;
  p.channel = 2;
  try {
    configured(s, p, 1024);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "channel 2 is out of range: the input has 2 channels (0..1)");
  }
  // As a command line writes it.
  try {
    CpuSpectrogram stage(p, 1, [](std::string_view key) { return "--" + std::string(key); });
    stage.configure(PortDescription::of_samples(s), 1024);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--channel 2 is out of range: the input has 2 channels (0..1)");
  }
}

TEST(CpuSpectrogram, ParametersAreValidated) {
  StreamInfo s;
  s.sample_rate = 1;
  SpectrogramParams p = params_with(256, 300, 256);
  try {
    CpuSpectrogram stage(p);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "noverlap (300) must be less than nperseg (256)");
  }
  EXPECT_THROW(CpuSpectrogram(params_with(256, 0, 128)), UsageError);
  EXPECT_THROW(CpuSpectrogram(params_with(0, 0, 0)), UsageError);
  p = params_with(256, 0, 256);
  p.average = 0;
  EXPECT_THROW(CpuSpectrogram{p}, UsageError);
  s.sample_rate = 0;
  EXPECT_THROW(configured(s, params_with(256, 0, 256), 1024), std::invalid_argument);
}

TEST(CpuSpectrogram, Describes) {
  StreamInfo s;
  s.sample_rate = 1;
  const auto stage = configured(s, SpectrogramParams{}, 1024, 2);
  EXPECT_EQ(stage->threads(), 2u);
  const std::string d = stage->describe();
  EXPECT_EQ(d.rfind("cpu: FFTW 3.", 0), 0u) << d;
  EXPECT_NE(d.find("2 threads"), std::string::npos) << d;
  EXPECT_GE(configured(s, SpectrogramParams{}, 1024)->threads(), 1u);
}

// The graph's harness: any cutting into chunks, reset, and a threaded graph give the same rows.
TEST(CpuSpectrogram, StageHarness) {
  for (const Config& c : all_configs()) {
    if (c.name != "real_db_mean4" && c.name != "ci16_channel1_of2_db_mean2" && c.name != "complex_db_max5") continue;
    SCOPED_TRACE(c.name);
    Config small = c;
    small.samples = 3000;
    const Input in = make_input(small);
    test::check_stage([&] { return std::make_unique<CpuSpectrogram>(small.params, 2); },
                      test::samples_input(stream_of(small), in.bytes));
  }
}

// Silence gives the floor: -300 dB for power and for magnitude.
TEST(CpuSpectrogram, DecibelFloor) {
  for (SpectrumMode mode : {SpectrumMode::psd, SpectrumMode::magnitude}) {
    Config c;
    c.params = params_with(64, 0, 64, {WindowKind::hann});
    c.params.mode = mode;
    c.params.decibels = true;
    c.samples = 640;
    Input in;
    in.bytes.assign(c.samples * sizeof(float), std::byte{0});
    const StageRun run = run_stage(c, in, 640, 1);
    ASSERT_EQ(run.rows.size(), 10u * 33);
    for (float v : run.rows) ASSERT_NEAR(v, -300.0, 1e-3);
  }
}

// Frames of constants spanning 2^-90 .. 2^110 in power: the dB value of the DC bin (exact:
// (c·nperseg)²·scale) is right to 1e-4 dB over the whole range.
TEST(CpuSpectrogram, DecibelsAcrossAWideRange) {
  Config c;
  c.params = params_with(64, 0, 64, {WindowKind::boxcar});
  c.params.detrend = Detrend::none;
  c.params.scaling = Scaling::spectrum;  // scale 1/64²: the DC bin's power is c²
  c.params.decibels = true;
  const int frames = 101;
  c.samples = 64 * frames;
  Input in;
  std::vector<double> amplitude(frames);
  for (int f = 0; f < frames; ++f) {
    amplitude[f] = std::ldexp(1.37, f - 45);
    for (int i = 0; i < 64; ++i) put(in.bytes, static_cast<float>(amplitude[f]));
  }
  const StageRun run = run_stage(c, in, 1000, 1);
  ASSERT_EQ(run.rows.size(), std::size_t(frames) * 33);
  for (int f = 0; f < frames; ++f) {
    const double a = static_cast<float>(amplitude[f]);
    EXPECT_NEAR(run.rows[f * 33], 10 * std::log10(a * a), 1e-4) << "frame " << f;
  }
}

// ---- 6. scipy itself -----------------------------------------------------------------------

std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

TEST(CpuSpectrogram, MatchesScipySpectrogram) {
  const std::string python = PRISM_TEST_PYTHON;
  if (python.empty() || std::system((python + " -c 'import scipy.signal' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "python3 with scipy is not available";
  const std::string script = std::string(PRISM_TEST_DATA_DIR) + "/scipy_spectrogram.py";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("prism_qa_spectrogram_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  std::vector<Config> configs;
  for (const Config& c : all_configs())
    if ((c.format == SampleFormat::f32 || c.format == SampleFormat::cf32) &&
        c.params.average == 1 && !c.params.decibels)
      configs.push_back(c);
  ASSERT_GE(configs.size(), 4u);
  for (Config c : configs) {
    c.samples = 20000;
    const Input in = make_input(c);
    const std::string input_path = (dir / "input.bin").string();
    const std::string output_path = (dir / "output.bin").string();
    std::ofstream(input_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(in.bytes.data()), std::streamsize(in.bytes.size()));
    const SpectrogramParams& p = c.params;
    const std::string command =
        python + " " + shell_quote(script) + " " + shell_quote(input_path) + " " +
        (c.format == SampleFormat::cf32 ? "complex64" : "float32") + " 48000 " +
        shell_quote(p.window.to_string()) + " " + std::to_string(p.nperseg) + " " +
        std::to_string(p.noverlap) + " " + std::to_string(p.nfft) + " " + to_string(p.detrend) +
        " " + to_string(p.scaling) + " " + to_string(p.mode) + " " + shell_quote(output_path) +
        " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buffer[4096];
    while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, got);
    ASSERT_EQ(pclose(pipe), 0) << command;
    const nlohmann::json info = nlohmann::json::parse(text);

    const StageRun run = run_stage(c, in, 1000, 2);
    const auto stage = configured(stream_of(c), c.params, 1000, 1);
    const SpectrumLayout& layout = stage->layout();
    ASSERT_EQ(info["columns"], run.columns) << c.name;
    ASSERT_EQ(info["rows"].get<std::size_t>() * run.columns, run.rows.size()) << c.name;
    const auto freqs = info["frequencies"].get<std::vector<double>>();
    for (std::size_t k = 0; k < run.columns; ++k)
      EXPECT_DOUBLE_EQ(layout.frequencies[k], freqs[k]) << c.name;
    const auto times = info["times"].get<std::vector<double>>();
    for (std::size_t r = 0; r < times.size(); ++r)
      EXPECT_NEAR(layout.row_time(r), times[r], 1e-12) << c.name;

    ReferenceRows scipy_rows;
    scipy_rows.columns = run.columns;
    scipy_rows.rows = info["rows"];
    scipy_rows.values.resize(scipy_rows.rows * scipy_rows.columns);
    std::ifstream(output_path, std::ios::binary)
        .read(reinterpret_cast<char*>(scipy_rows.values.data()),
              std::streamsize(scipy_rows.values.size() * sizeof(double)));
    SCOPED_TRACE(c.name);
    expect_close_to_reference(c, run.rows, scipy_rows);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace prism
