// Tests of SndfileWriter: WAV and FLAC written and read back with libsndfile (bit-exact for
// integer input), the subtype choice, complex input refused, bad options, abort.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sndfile.h>

#include <gtest/gtest.h>

#include "pipeline/errors.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/sndfile_writer.hpp"
#include "sink_test_support.hpp"

namespace prism {
namespace {

using test::ScratchDir;

struct ReadBack {
  SF_INFO info{};
  std::vector<short> shorts;
  std::vector<float> floats;
};

ReadBack read_back(const std::string& path) {
  ReadBack r;
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &r.info);
  EXPECT_NE(f, nullptr) << sf_strerror(nullptr);
  if (!f) return r;
  const auto n = static_cast<std::size_t>(r.info.frames * r.info.channels);
  r.shorts.resize(n);
  sf_readf_short(f, r.shorts.data(), r.info.frames);
  sf_seek(f, 0, SEEK_SET);
  r.floats.resize(n);
  sf_readf_float(f, r.floats.data(), r.info.frames);
  sf_close(f);
  return r;
}

std::vector<std::int16_t> ramp16(std::size_t n) {
  std::vector<std::int16_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int16_t>((i * 613) % 65536 - 32768);
  return v;
}

TEST(SndfileWriter, Int16IntoWavIsBitExact) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::i16;
  info.sample_rate = 44100;
  const auto samples = ramp16(5000);
  SndfileWriter writer(dir.file("pcm.wav"));
  test::begin_samples(writer, info);
  EXPECT_EQ(writer.subtype(), "pcm16");
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 2000, info);
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data() + 2000), 3000, info);
  writer.finish(true);
  EXPECT_EQ(writer.items_written(), 5000u);
  EXPECT_EQ(dir.names(), std::vector<std::string>{"pcm.wav"});

  const ReadBack r = read_back(dir.file("pcm.wav"));
  EXPECT_EQ(r.info.format, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  EXPECT_EQ(r.info.samplerate, 44100);
  EXPECT_EQ(r.info.channels, 1);
  ASSERT_EQ(r.shorts.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) ASSERT_EQ(r.shorts[i], samples[i]) << i;
}

TEST(SndfileWriter, FloatStereoIntoWavIsExact) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 48000;
  info.channels = 2;
  std::vector<float> samples(2 * 1000);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<float>(i % 97) / 97.0f - 0.5f;
  SndfileWriter writer(dir.file("float.WAV"));
  test::begin_samples(writer, info);
  EXPECT_EQ(writer.subtype(), "float");
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 1000, info);
  writer.finish(true);
  const ReadBack r = read_back(dir.file("float.WAV"));
  EXPECT_EQ(r.info.format, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  EXPECT_EQ(r.info.channels, 2);
  ASSERT_EQ(r.floats.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) ASSERT_EQ(r.floats[i], samples[i]) << i;
}

TEST(SndfileWriter, FlacHoldsPcm) {
  ScratchDir dir;
  {
    StreamInfo info;
    info.format = SampleFormat::i16;
    info.sample_rate = 16000;
    const auto samples = ramp16(3000);
    SndfileWriter writer(dir.file("a.flac"));
    test::begin_samples(writer, info);
    test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 3000, info);
    writer.finish(true);
    const ReadBack r = read_back(dir.file("a.flac"));
    EXPECT_EQ(r.info.format, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
    ASSERT_EQ(r.shorts.size(), samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) ASSERT_EQ(r.shorts[i], samples[i]) << i;
  }
  {
    StreamInfo info;
    info.format = SampleFormat::f32;
    info.sample_rate = 16000;
    std::vector<float> samples(1000);
    for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = 0.9f * std::sin(0.01f * i);
    SndfileWriter writer(dir.file("b.flac"));
    test::begin_samples(writer, info);
    EXPECT_EQ(writer.subtype(), "pcm24") << "FLAC has no float: the widest PCM by default";
    test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 1000, info);
    writer.finish(true);
    const ReadBack r = read_back(dir.file("b.flac"));
    EXPECT_EQ(r.info.format, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
    ASSERT_EQ(r.floats.size(), samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) ASSERT_NEAR(r.floats[i], samples[i], 1.0 / (1 << 22)) << i;
  }
}

TEST(SndfileWriter, SubtypeOptionChoosesTheEncoding) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 8000;
  SinkOptions options;
  options.subtype = "PCM_16";
  SndfileWriter writer(dir.file("s.wav"), options);
  test::begin_samples(writer, info);
  std::vector<float> samples = {0.5f, -0.5f, 2.0f, -2.0f};  // the last two clip, not wrap
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 4, info);
  writer.finish(true);
  const ReadBack r = read_back(dir.file("s.wav"));
  EXPECT_EQ(r.info.format, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  ASSERT_EQ(r.shorts.size(), 4u);
  EXPECT_GT(r.shorts[2], 32000);
  EXPECT_LT(r.shorts[3], -32000);
}

TEST(SndfileWriter, EightBitInputIsScaledUp) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::u8;
  info.sample_rate = 8000;
  const std::vector<std::uint8_t> samples = {128, 0, 255, 192};
  SndfileWriter writer(dir.file("u8.wav"));
  test::begin_samples(writer, info);
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 4, info);
  writer.finish(true);
  const ReadBack r = read_back(dir.file("u8.wav"));
  EXPECT_EQ(r.shorts, (std::vector<short>{0, -32768, 127 * 256, 64 * 256}));
}

TEST(SndfileWriter, ComplexInputIsRefused) {
  ScratchDir dir;
  for (SampleFormat format : {SampleFormat::cf32, SampleFormat::ci16, SampleFormat::cu8}) {
    StreamInfo info;
    info.format = format;
    info.sample_rate = 1e6;
    SndfileWriter writer(dir.file("iq.wav"));
    try {
      test::begin_samples(writer, info);
      FAIL() << "expected UsageError";
    } catch (const UsageError& e) {
      EXPECT_STREQ(e.what(), "WAV/FLAC cannot hold complex samples; write SigMF (.sigmf-meta) instead");
    }
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(SndfileWriter, BadOptionsAreUsageErrors) {
  EXPECT_THROW(SndfileWriter("x.mp3"), UsageError);
  SinkOptions unknown;
  unknown.subtype = "pcm12";
  EXPECT_THROW(SndfileWriter("x.wav", unknown), UsageError);
  ScratchDir dir;
  SinkOptions float_flac;
  float_flac.subtype = "float";
  SndfileWriter writer(dir.file("x.flac"), float_flac);
  StreamInfo info;
  info.sample_rate = 8000;
  EXPECT_THROW(test::begin_samples(writer, info), UsageError);
}

TEST(SndfileWriter, AbortLeavesNoFile) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::i16;
  info.sample_rate = 8000;
  SndfileWriter writer(dir.file("gone.wav"));
  test::begin_samples(writer, info);
  EXPECT_TRUE(test::exists(dir.file("gone.wav.partial")));
  const auto samples = ramp16(100);
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 100, info);
  writer.abort();
  EXPECT_TRUE(dir.names().empty());
}

TEST(SndfileWriter, RegistryOpensItByExtension) {
  ScratchDir dir;
  auto sink = open_sink(dir.file("r.flac"));
  ASSERT_NE(dynamic_cast<SndfileWriter*>(sink.get()), nullptr);
  EXPECT_THROW(open_sink(dir.file("missing/r.wav")), InputError);
}

}  // namespace
}  // namespace prism
