// The synchronous streaming objects (pipeline/streaming.hpp): their output is the graph's, bit for
// bit, whatever the sizes the caller feeds; flush gives the tail; reset starts a new input; errors
// name the API's fields.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/stage_registry.hpp"
#include "pipeline/streaming.hpp"
#include "tests/pipeline/stage_harness.hpp"

namespace prism {
namespace {

StreamInfo complex_input(double rate) {
  StreamInfo info;
  info.format = SampleFormat::cf32;
  info.sample_rate = rate;
  return info;
}

// A chirp with a little noise: every bin and every output sample differs.
std::vector<float> chirp(std::size_t items, bool complex) {
  std::vector<float> x(items * (complex ? 2 : 1));
  std::uint32_t state = 12345;
  for (std::size_t n = 0; n < items; ++n) {
    const double t = static_cast<double>(n);
    const double phase = 2 * M_PI * (0.01 * t + 2e-6 * t * t);
    state = state * 1664525u + 1013904223u;
    const double noise = 1e-3 * (static_cast<double>(state >> 8) / (1 << 24) - 0.5);
    if (complex) {
      x[2 * n] = static_cast<float>(std::cos(phase) + noise);
      x[2 * n + 1] = static_cast<float>(std::sin(phase) - noise);
    } else {
      x[n] = static_cast<float>(std::cos(phase) + noise);
    }
  }
  return x;
}

std::vector<float> graph_output(const std::string& spec, const StreamInfo& info, const std::vector<float>& x) {
  std::vector<std::byte> bytes(x.size() * sizeof(float));
  std::memcpy(bytes.data(), x.data(), bytes.size());
  const test::StageInput input = test::samples_input(info, bytes);
  RunReport report;
  const std::vector<std::byte> out = test::run_in_graph(
      [&] {
        std::vector<std::unique_ptr<Stage>> stages;
        stages.push_back(make_stage(parse_stage_spec(spec), {.backend = fft::BackendKind::cpu}).stage);
        return stages;
      },
      input, 997, report);
  EXPECT_EQ(report.outcome, RunOutcome::completed) << report.error;
  std::vector<float> values(out.size() / sizeof(float));
  std::memcpy(values.data(), out.data(), values.size() * sizeof(float));
  return values;
}

// Feeds x in pieces of the given sizes (cycled), then flushes.
std::vector<float> streamed(StreamingStage& s, const std::vector<float>& x, std::size_t floats_per_input,
                            const std::vector<std::size_t>& pieces) {
  std::vector<float> out;
  const std::size_t items = x.size() / floats_per_input;
  std::size_t next = 0, k = 0;
  while (next < items) {
    const std::size_t n = std::min(pieces[k++ % pieces.size()], items - next);
    const std::size_t made = s.feed(x.data() + next * floats_per_input, n, out);
    EXPECT_LE(made, s.max_output(n));
    next += n;
  }
  s.flush(out);
  return out;
}

class StreamingMatchesGraph : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamingMatchesGraph, BitForBitForAnyFeedSizes) {
  const std::string spec = GetParam();
  const StreamInfo info = complex_input(48000);
  const std::vector<float> x = chirp(20000, true);
  const std::vector<float> expected = graph_output(spec, info, x);
  ASSERT_FALSE(expected.empty());

  // Small blocks inside the object too, so that a feed is cut into several stage calls.
  StreamingStage s(spec, info, {.backend = fft::BackendKind::cpu}, 1000);
  const std::vector<float> a = streamed(s, x, 2, {1, 7, 4096, 333});
  ASSERT_EQ(a.size(), expected.size()) << spec;
  EXPECT_EQ(std::memcmp(a.data(), expected.data(), a.size() * sizeof(float)), 0) << spec;

  s.reset();  // a second input gives the same again
  const std::vector<float> b = streamed(s, x, 2, {20000});
  ASSERT_EQ(b.size(), expected.size()) << spec;
  EXPECT_EQ(std::memcmp(b.data(), expected.data(), b.size() * sizeof(float)), 0) << spec;
}

INSTANTIATE_TEST_SUITE_P(Stages, StreamingMatchesGraph,
                         ::testing::Values("spectrogram:nperseg=256,noverlap=200,window=hann",
                                           "fir:lowpass=3000,numtaps=101",
                                           "fir:lowpass=3000,numtaps=64,decimate=4,align=same",
                                           "resample:up=3,down=2", "fm", "usb", "shift:-1000", "gain:2"));

TEST(Spectrogram, RowsAreTheGraphsAndLayoutDescribesThem) {
  SpectrogramParams params;
  params.nperseg = 128;
  params.noverlap = 64;  // nfft unset: nperseg
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 1000;
  const std::vector<float> x = chirp(5000, false);
  Spectrogram s(params, info, {.backend = fft::BackendKind::cpu});
  EXPECT_EQ(s.columns(), 65u);
  EXPECT_EQ(s.floats_per_item(), 65u);
  EXPECT_DOUBLE_EQ(s.layout().frequencies[1], 1000.0 / 128);
  std::vector<float> rows = s.feed(x.data(), 3000);
  s.feed(x.data() + 3000, 2000, rows);
  EXPECT_TRUE(s.flush().empty());  // incomplete frames are dropped, as scipy drops them
  EXPECT_EQ(rows.size(), 65u * ((5000 - 128) / 64 + 1));
  const std::vector<float> expected = graph_output("spectrogram:nperseg=128,noverlap=64", info, x);
  ASSERT_EQ(rows.size(), expected.size());
  EXPECT_EQ(std::memcmp(rows.data(), expected.data(), rows.size() * sizeof(float)), 0);
}

// Only nperseg set: noverlap and nfft take their defaults for it (nperseg / 8, nperseg), as
// scipy's and the command line's, instead of the struct's numbers for nperseg 256.
TEST(Spectrogram, UnsetFieldsTakeTheirDefaults) {
  SpectrogramParams params;
  params.nperseg = 1024;
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 1000;
  EXPECT_NO_THROW(params.validate());
  EXPECT_EQ(params.resolved().noverlap, 128u);
  EXPECT_EQ(params.resolved().nfft, 1024u);
  EXPECT_EQ(params.hop(), 896u);
  const std::vector<float> x = chirp(5000, false);
  Spectrogram s(params, info, {.backend = fft::BackendKind::cpu});
  EXPECT_EQ(s.columns(), 513u);
  const std::vector<float> rows = s.feed(x.data(), x.size());
  const std::vector<float> expected = graph_output("spectrogram:nperseg=1024", info, x);
  ASSERT_EQ(rows.size(), expected.size());
  EXPECT_EQ(std::memcmp(rows.data(), expected.data(), rows.size() * sizeof(float)), 0);
}

TEST(Streaming, ErrorsNameTheFields) {
  SpectrogramParams params;
  params.nperseg = 64;
  params.noverlap = 64;
  StreamInfo info;
  info.sample_rate = 1000;
  try {
    Spectrogram s(params, info);
    FAIL() << "noverlap = nperseg accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("noverlap"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
  try {
    StreamingStage s("fir:lowpas=3000", info);
    FAIL() << "a misspelt setting accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lowpas"), std::string::npos) << e.what();
  }
  StreamingStage gain("gain:6", info);
  const float one = 1.0f;
  const std::vector<float> first = gain.feed(&one, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NEAR(first[0], std::pow(10.0, 6.0 / 20), 1e-6);  // gain is in dB
  gain.flush();
  EXPECT_THROW(gain.feed(&one, 1), std::invalid_argument);
  gain.reset();
  EXPECT_EQ(gain.feed(&one, 1), first);
}

}  // namespace
}  // namespace prism
