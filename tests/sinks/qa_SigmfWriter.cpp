// Tests of SigmfWriter: data bytes and metadata written and read back, the accepted path forms,
// multi-channel and interrupted recordings, and abort.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/sigmf_writer.hpp"
#include "sink_test_support.hpp"

namespace prism {
namespace {

using test::ScratchDir;

std::vector<std::byte> counting_bytes(std::size_t n) {
  std::vector<std::byte> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::byte>(i * 7 + 3);
  return bytes;
}

TEST(SigmfWriter, DataAndMetadataReadBack) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::ci16;
  info.sample_rate = 2.4e6;
  info.center_frequency = 433.92e6;
  info.start_time = "2026-11-21T10:00:00.000Z";
  SigmfWriter writer(dir.file("capture.sigmf-meta"));
  test::begin_samples(writer, info);
  const auto bytes = counting_bytes(1000 * info.frame_bytes());
  test::write_samples(writer, bytes.data(), 300, info);
  test::write_samples(writer, bytes.data() + 300 * info.frame_bytes(), 700, info);
  writer.finish(true);
  EXPECT_EQ(writer.items_written(), 1000u);

  EXPECT_EQ(dir.names(), (std::vector<std::string>{"capture.sigmf-data", "capture.sigmf-meta"}));
  const std::string data = test::read_file(dir.file("capture.sigmf-data"));
  ASSERT_EQ(data.size(), bytes.size());
  EXPECT_EQ(std::memcmp(data.data(), bytes.data(), bytes.size()), 0);

  const auto meta = nlohmann::json::parse(test::read_file(dir.file("capture.sigmf-meta")));
  const auto& global = meta["global"];
  EXPECT_EQ(global["core:datatype"], "ci16_le");
  EXPECT_EQ(global["core:sample_rate"], 2.4e6);
  EXPECT_EQ(global["core:version"], "1.0.0");
  EXPECT_EQ(global["core:recorder"], "prism");
  EXPECT_FALSE(global.contains("core:num_channels")) << "only written for more than one channel";
  EXPECT_FALSE(global.contains("core:description"));
  ASSERT_EQ(meta["captures"].size(), 1u);
  EXPECT_EQ(meta["captures"][0]["core:sample_start"], 0);
  EXPECT_EQ(meta["captures"][0]["core:frequency"], 433.92e6);
  EXPECT_EQ(meta["captures"][0]["core:datetime"], "2026-11-21T10:00:00.000Z");
  EXPECT_TRUE(meta["annotations"].is_array());
  EXPECT_TRUE(meta["annotations"].empty());
}

TEST(SigmfWriter, EveryFormatHasItsDatatype) {
  for (SampleFormat format : kAllFormats) {
    ScratchDir dir;
    StreamInfo info;
    info.format = format;
    info.sample_rate = 1000;
    SigmfWriter writer(dir.file("r"));
    test::begin_samples(writer, info);
    const auto bytes = counting_bytes(10 * info.frame_bytes());
    test::write_samples(writer, bytes.data(), 10, info);
    writer.finish(true);
    const auto meta = nlohmann::json::parse(test::read_file(dir.file("r.sigmf-meta")));
    EXPECT_EQ(meta["global"]["core:datatype"], std::string(sigmf_datatype(format)));
    EXPECT_FALSE(meta["captures"][0].contains("core:datetime")) << "unknown start time: omitted";
    EXPECT_EQ(test::read_file(dir.file("r.sigmf-data")).size(), bytes.size());
  }
}

TEST(SigmfWriter, MultiChannelRecordingsSayHowMany) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 48000;
  info.channels = 2;
  SigmfWriter writer(dir.file("stereo.sigmf"));
  test::begin_samples(writer, info);
  std::vector<float> samples = {0.5f, -0.5f, 0.25f, -0.25f};
  test::write_samples(writer, reinterpret_cast<const std::byte*>(samples.data()), 2, info);
  writer.finish(true);
  const auto meta = nlohmann::json::parse(test::read_file(dir.file("stereo.sigmf-meta")));
  EXPECT_EQ(meta["global"]["core:num_channels"], 2);
  EXPECT_EQ(test::read_file(dir.file("stereo.sigmf-data")).size(), 16u);
}

TEST(SigmfWriter, AcceptsEveryFormOfThePath) {
  EXPECT_EQ(SigmfWriter::base_path("a/rec.sigmf-meta"), "a/rec");
  EXPECT_EQ(SigmfWriter::base_path("a/rec.sigmf-data"), "a/rec");
  EXPECT_EQ(SigmfWriter::base_path("a/rec.sigmf"), "a/rec");
  EXPECT_EQ(SigmfWriter::base_path("a/rec"), "a/rec");
  EXPECT_EQ(SigmfWriter::base_path("a.b/rec"), "a.b/rec");
  SigmfWriter writer("x/y.sigmf-data");
  EXPECT_EQ(writer.data_path(), "x/y.sigmf-data");
  EXPECT_EQ(writer.meta_path(), "x/y.sigmf-meta");
}

TEST(SigmfWriter, InterruptedRecordingSaysSo) {
  ScratchDir dir;
  StreamInfo info;
  info.format = SampleFormat::cf32;
  info.sample_rate = 1e6;
  SinkOptions options;
  options.description = "test capture";
  SigmfWriter writer(dir.file("cut"), options);
  test::begin_samples(writer, info);
  const auto bytes = counting_bytes(4 * info.frame_bytes());
  test::write_samples(writer, bytes.data(), 4, info);
  writer.finish(false);
  const auto meta = nlohmann::json::parse(test::read_file(dir.file("cut.sigmf-meta")));
  const std::string description = meta["global"]["core:description"];
  EXPECT_NE(description.find("test capture"), std::string::npos);
  EXPECT_NE(description.find("interrupted"), std::string::npos);
}

TEST(SigmfWriter, AbortLeavesNoFile) {
  ScratchDir dir;
  StreamInfo info;
  info.sample_rate = 8000;
  SigmfWriter writer(dir.file("gone.sigmf-meta"));
  test::begin_samples(writer, info);
  EXPECT_TRUE(test::exists(dir.file("gone.sigmf-data.partial")));
  const auto bytes = counting_bytes(40);
  test::write_samples(writer, bytes.data(), 10, info);
  writer.abort();
  EXPECT_TRUE(dir.names().empty());
}

TEST(SigmfWriter, MissingDirectoryIsAnInputError) {
  ScratchDir dir;
  EXPECT_THROW(open_sink(dir.file("nope/rec.sigmf-meta")), InputError);
  SigmfWriter writer(dir.file("nope/rec"));
  StreamInfo info;
  info.sample_rate = 8000;
  EXPECT_THROW(test::begin_samples(writer, info), InputError);
}

}  // namespace
}  // namespace prism
