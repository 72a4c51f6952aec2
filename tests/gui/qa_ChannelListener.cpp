// qa_ChannelListener: the viewer's Record button without a window. On the two-channel input
// (two_channel_input.hpp), a recording of the AM channel at +15 kHz holds the channel's audio (WAV) and its I/Q (SigMF, at the channel
// rate, centred on the carrier), each sample for sample what a ChannelReceiver of its own gives
// for the same input; a new carrier ends the recording and starts new files, a new bandwidth
// does not. The audio device is
// whatever this machine has (none: the audio rate falls back to 48 kHz); either way the
// recordings are checked against a receiver at the rate the listener used.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/channel_listener.hpp"
#include "two_channel_input.hpp"

namespace prism::view {
namespace {

constexpr std::size_t kChunk = 4800;  // 50 ms

StreamInfo complex_input() { return test::two_channel_info(); }

std::vector<float> chunk_of_input(std::size_t index) { return test::two_channel_samples(index * kChunk, kChunk); }

Chunk chunk_over(std::vector<float>& x) {
  Chunk c;
  c.data = reinterpret_cast<std::byte*>(x.data());
  c.items = c.capacity = x.size() / 2;
  c.item_bytes = 2 * sizeof(float);
  return c;
}

ChannelSettings am_at(double carrier_hz) {
  ChannelSettings s;
  s.demodulation = Demodulation::am;
  s.carrier_hz = carrier_hz;
  s.bandwidth_hz = 10e3;
  return s;
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> wav_samples(const std::string& path, double& rate) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return {};
  std::vector<float> y(static_cast<std::size_t>(info.frames) * static_cast<std::size_t>(info.channels));
  EXPECT_EQ(sf_readf_float(f, y.data(), info.frames), info.frames);
  sf_close(f);
  rate = info.samplerate;
  EXPECT_EQ(info.channels, 1);
  return y;
}

class ChannelListenerRecording : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("qa_ChannelListener-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);  // the recordings go to the working folder
  }
  void TearDown() override {
    std::filesystem::current_path(previous_);
    std::filesystem::remove_all(dir_);
  }

  // Starts `listener` on the input, listening to AM at `carrier_hz` and recording.
  ListenRequest start_recording(ChannelListener& listener, double carrier_hz) {
    listener.begin(PortDescription::of_samples(complex_input()));
    ListenRequest request;
    request.on = true;
    request.record = true;
    request.channel = am_at(carrier_hz);
    listener.request(request);
    return request;
  }

  // Writes chunks until the listener runs a receiver (the audio device's opening, on a thread
  // of its own, comes first); returns the index of the first chunk it heard.
  std::size_t write_until_on(ChannelListener& listener) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      std::vector<float> x = chunk_of_input(next_);
      listener.write(chunk_over(x));
      ++next_;
      if (listener.status().on) return next_ - 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "no receiver after 30 s: " << listener.status().error;
    return next_;
  }

  void write_chunks(ChannelListener& listener, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i, ++next_) {
      std::vector<float> x = chunk_of_input(next_);
      listener.write(chunk_over(x));
    }
  }

  std::filesystem::path dir_, previous_;
  std::size_t next_ = 0;
};

TEST_F(ChannelListenerRecording, RecordsTheChannelsAudioAndIqSampleForSample) {
  ChannelListener listener;
  ListenRequest request = start_recording(listener, 15e3);
  const std::size_t first = write_until_on(listener);
  write_chunks(listener, 40);  // 2 s
  const std::size_t last = next_;
  const ListenStatus during = listener.status();
  // No audio device is no fault of the recording's.
  EXPECT_TRUE(during.error.empty() || during.error.rfind("no audio output", 0) == 0) << during.error;
  ASSERT_FALSE(during.recording.empty());
  ASSERT_FALSE(during.iq_recording.empty());
  request.record = false;
  listener.request(request);
  write_chunks(listener, 1);  // the request is taken before this chunk: it is not recorded
  const ListenStatus after = listener.status();
  ASSERT_EQ(after.recordings.size(), 2u);
  EXPECT_EQ(after.recordings[0], during.recording);
  EXPECT_EQ(after.recordings[1], during.iq_recording);
  EXPECT_EQ(during.recording.rfind("prism-channel-100015000Hz-", 0), 0u) << during.recording;
  EXPECT_EQ(during.iq_recording, during.recording.substr(0, during.recording.size() - 4) + ".sigmf-meta");

  // The same chunks through a receiver of its own.
  ChannelReceiver reference(am_at(15e3), complex_input(), 0, after.audio_rate, std::size_t{1} << 15);
  std::vector<float> iq, audio;
  for (std::size_t k = first; k < last; ++k) {
    std::vector<float> x = chunk_of_input(k);
    const auto out = reference.process(reinterpret_cast<const std::byte*>(x.data()), kChunk);
    iq.insert(iq.end(), out.iq, out.iq + 2 * out.iq_items);
    audio.insert(audio.end(), out.audio, out.audio + out.audio_items);
  }
  ASSERT_GT(iq.size(), 0u);
  EXPECT_EQ(after.iq_recorded_samples, iq.size() / 2);
  EXPECT_EQ(after.recorded_samples, audio.size());

  // The I/Q: the SigMF's data is the receiver's, its metadata the channel's rate and centre.
  const std::vector<char> data = file_bytes(after.recordings[1].substr(0, after.recordings[1].size() - 4) + "data");
  ASSERT_EQ(data.size(), iq.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(data.data(), iq.data(), data.size()), 0);
  const std::vector<char> meta_text = file_bytes(after.recordings[1]);
  const nlohmann::json meta = nlohmann::json::parse(meta_text.begin(), meta_text.end());
  EXPECT_EQ(meta["global"]["core:datatype"], "cf32_le");
  EXPECT_EQ(meta["global"]["core:sample_rate"].get<double>(), reference.iq_info().sample_rate);
  EXPECT_EQ(meta["captures"][0]["core:frequency"].get<double>(), 100e6 + 15e3);

  // The audio: the WAV holds the receiver's audio at the audio rate.
  double rate = 0;
  const std::vector<float> wav = wav_samples(after.recordings[0], rate);
  EXPECT_EQ(rate, after.audio_rate);
  ASSERT_EQ(wav.size(), audio.size());
  EXPECT_EQ(std::memcmp(wav.data(), audio.data(), wav.size() * sizeof(float)), 0);
}

TEST_F(ChannelListenerRecording, ANewCarrierEndsTheRecordingAndANewBandwidthDoesNot) {
  ChannelListener listener;
  ListenRequest request = start_recording(listener, 15e3);
  write_until_on(listener);
  write_chunks(listener, 4);
  const std::string first = listener.status().iq_recording;
  request.channel = am_at(16e3);  // the same rates: the running receiver's taps are replaced
  listener.request(request);
  write_chunks(listener, 4);
  const ListenStatus s = listener.status();
  EXPECT_EQ(s.taps_replaced, 1u);
  ASSERT_EQ(s.recordings.size(), 2u);
  EXPECT_EQ(s.recordings[1], first);
  ASSERT_FALSE(s.iq_recording.empty());
  EXPECT_NE(s.iq_recording, first);
  EXPECT_EQ(s.iq_recording.rfind("prism-channel-100016000Hz-", 0), 0u) << s.iq_recording;
  EXPECT_GT(s.iq_recorded_samples, 0u);
  // A narrower band at the same carrier and rates (a bandwidth slider being dragged): the same
  // files go on.
  request.channel.bandwidth_hz = 8e3;
  listener.request(request);
  write_chunks(listener, 4);
  EXPECT_EQ(listener.status().taps_replaced, 2u);
  EXPECT_EQ(listener.status().iq_recording, s.iq_recording);
  EXPECT_EQ(listener.status().recordings.size(), 2u);
  // Each file pair names its own channel.
  const std::vector<char> meta_text = file_bytes(first);
  const nlohmann::json meta = nlohmann::json::parse(meta_text.begin(), meta_text.end());
  EXPECT_EQ(meta["captures"][0]["core:frequency"].get<double>(), 100e6 + 15e3);
  request.on = false;
  listener.request(request);
  write_chunks(listener, 1);
  EXPECT_EQ(listener.status().recordings.size(), 4u);
  EXPECT_TRUE(std::filesystem::exists(s.iq_recording));
}

}  // namespace
}  // namespace prism::view
