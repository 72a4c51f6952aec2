// SoapySdrSource against a SoapySDR driver registered in this test (driver=prism_test): a real
// SoapySDR device whose behaviour the device arguments control, so that the format choice, the
// settings and their ranges, the accounting of every kind of loss, interrupt() and a failing
// device are each checked exactly.
//
// The test device streams a ramp: sample k (counted from the stream's start, lost samples too)
// is (k mod 2^15, -(k mod 2^15)) in CS16, or that over the full scale in CF32. Its arguments:
//   native=CS16|CF32  full_scale=F    what getNativeStreamFormat says
//   timestamps=1                      reads carry SOAPY_SDR_HAS_TIME
//   lose_at=K,lose=N                  before sample K the driver loses N samples (one overflow)
//   fail_at=K                         the stream breaks at sample K (SOAPY_SDR_STREAM_ERROR)
//   stall_at=K                        from sample K on every read times out
#include <gtest/gtest.h>

#include <SoapySDR/Device.hpp>
#include <SoapySDR/Errors.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Registry.hpp>

#include <atomic>
#include <chrono>
#include <complex>
#include <cstring>
#include <thread>

#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "sinks/callback_sink.hpp"
#include "source_test_support.hpp"
#include "sources/open_source.hpp"
#include "sources/soapysdr_source.hpp"

namespace prism {
namespace {

constexpr std::size_t kMtu = 1000;

class TestDevice final : public SoapySDR::Device {
 public:
  explicit TestDevice(const SoapySDR::Kwargs& args) : args_(args) {}

  std::string getDriverKey() const override { return "prism_test"; }
  std::string getHardwareKey() const override { return "PrismTest"; }
  std::size_t getNumChannels(int) const override { return 2; }

  std::string getNativeStreamFormat(int, std::size_t, double& full_scale) const override {
    full_scale = std::stod(arg("full_scale", "32768"));
    return arg("native", SOAPY_SDR_CS16);
  }
  std::vector<std::string> getStreamFormats(int, std::size_t) const override {
    return {SOAPY_SDR_CS16, SOAPY_SDR_CS8, SOAPY_SDR_CF32};
  }
  SoapySDR::Stream* setupStream(int, const std::string& format, const std::vector<std::size_t>& channels,
                                const SoapySDR::Kwargs& stream_args) override {
    format_ = format;
    channel_ = channels.empty() ? 0 : channels[0];
    stream_args_ = stream_args;
    return reinterpret_cast<SoapySDR::Stream*>(this);
  }
  void closeStream(SoapySDR::Stream*) override {}
  std::size_t getStreamMTU(SoapySDR::Stream*) const override { return kMtu; }
  int activateStream(SoapySDR::Stream*, int, long long, std::size_t) override { return 0; }
  int deactivateStream(SoapySDR::Stream*, int, long long) override { return 0; }

  int readStream(SoapySDR::Stream*, void* const* buffs, std::size_t elems, int& flags, long long& time_ns,
                 long) override {
    // About 5 MS/s, so that the capture thread does not spin.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    const std::uint64_t lose_at = number("lose_at", UINT64_MAX), lose = number("lose", 0);
    if (position_ >= number("stall_at", UINT64_MAX)) return SOAPY_SDR_TIMEOUT;
    if (position_ >= number("fail_at", UINT64_MAX)) return SOAPY_SDR_STREAM_ERROR;
    if (!lost_ && position_ == lose_at) {
      lost_ = true;
      position_ += lose;
      return SOAPY_SDR_OVERFLOW;
    }
    std::size_t n = std::min<std::size_t>(elems, kMtu);
    if (!lost_ && lose_at > position_) n = std::min<std::uint64_t>(n, lose_at - position_);
    const double full_scale = std::stod(arg("full_scale", "32768"));
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::int16_t>((position_ + i) % 32768);
      if (format_ == SOAPY_SDR_CF32) {
        static_cast<std::complex<float>*>(buffs[0])[i] = {static_cast<float>(v / full_scale),
                                                           static_cast<float>(-v / full_scale)};
      } else if (format_ == SOAPY_SDR_CS16) {
        const std::int16_t iq[2] = {v, static_cast<std::int16_t>(-v)};
        std::memcpy(static_cast<std::int16_t*>(buffs[0]) + 2 * i, iq, sizeof iq);
      } else {
        const std::int8_t iq[2] = {static_cast<std::int8_t>(v % 128), static_cast<std::int8_t>(-(v % 128))};
        std::memcpy(static_cast<std::int8_t*>(buffs[0]) + 2 * i, iq, sizeof iq);
      }
    }
    flags = 0;
    if (arg("timestamps", "0") == "1") {
      flags |= SOAPY_SDR_HAS_TIME;
      time_ns = static_cast<long long>(static_cast<double>(position_) * 1e9 / rate_);
    }
    position_ += n;
    return static_cast<int>(n);
  }

  SoapySDR::RangeList getSampleRateRange(int, std::size_t) const override { return {{1e3, 10e6}}; }
  void setSampleRate(int, std::size_t, double rate) override { rate_ = rate; }
  double getSampleRate(int, std::size_t) const override { return rate_; }
  SoapySDR::RangeList getFrequencyRange(int, std::size_t) const override { return {{24e6, 1.7e9}}; }
  void setFrequency(int, std::size_t, double frequency, const SoapySDR::Kwargs&) override { frequency_ = frequency; }
  double getFrequency(int, std::size_t) const override { return frequency_; }
  std::vector<std::string> listAntennas(int, std::size_t) const override { return {"RX", "TX/RX"}; }
  void setAntenna(int, std::size_t, const std::string& name) override { antenna_ = name; }
  bool hasGainMode(int, std::size_t) const override { return true; }
  void setGainMode(int, std::size_t, bool automatic) override { automatic_gain_ = automatic; }
  SoapySDR::Range getGainRange(int, std::size_t) const override { return {0, 50}; }
  void setGain(int, std::size_t, double gain) override { gain_ = gain; }
  double getGain(int, std::size_t) const override { return gain_; }

  // What the source did to the device, for the tests (the last device made).
  static inline std::atomic<TestDevice*> last{nullptr};
  std::string format_, antenna_;
  std::size_t channel_ = 0;
  SoapySDR::Kwargs stream_args_;
  double rate_ = 2.4e6, frequency_ = 100e6, gain_ = 10;
  bool automatic_gain_ = false;

 private:
  std::string arg(const std::string& key, const std::string& fallback) const {
    const auto it = args_.find(key);
    return it == args_.end() ? fallback : it->second;
  }
  std::uint64_t number(const std::string& key, std::uint64_t fallback) const {
    const auto it = args_.find(key);
    return it == args_.end() ? fallback : std::stoull(it->second);
  }
  SoapySDR::Kwargs args_;
  std::uint64_t position_ = 0;
  bool lost_ = false;
};

SoapySDR::KwargsList find_test_devices(const SoapySDR::Kwargs& args) {
  if (args.count("driver") == 0 || args.at("driver") != "prism_test") return {};
  SoapySDR::Kwargs found = args;
  found["label"] = "prism test device";
  return {found};
}

SoapySDR::Device* make_test_device(const SoapySDR::Kwargs& args) {
  auto* device = new TestDevice(args);
  TestDevice::last = device;
  return device;
}

const SoapySDR::Registry kRegistration("prism_test", &find_test_devices, &make_test_device, SOAPY_SDR_ABI_VERSION);

SdrInputOptions options_for(const std::string& args) {
  SdrInputOptions o;
  // Each test's own arguments: SoapySDR keeps one device per distinct argument set.
  o.device_args = "driver=prism_test," + args + ",test=" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return o;
}

// Reads until `count` samples arrived; the ramp's I values (k mod 2^15) in order.
std::vector<std::int64_t> read_ramp(SoapySdrSource& source, std::size_t count, std::size_t chunk = 777) {
  std::vector<std::byte> buffer(chunk * source.info().frame_bytes());
  std::vector<std::int64_t> values;
  while (values.size() < count) {
    const std::size_t n = source.read(buffer.data(), std::min(chunk, count - values.size()));
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (source.info().format == SampleFormat::ci16) {
        std::int16_t iq[2];
        std::memcpy(iq, buffer.data() + 4 * i, sizeof iq);
        EXPECT_EQ(iq[1], -iq[0]);
        values.push_back(iq[0]);
      } else {
        std::complex<float> c;
        std::memcpy(&c, buffer.data() + 8 * i, sizeof c);
        values.push_back(std::llround(c.real() * 2048.0));
      }
    }
  }
  return values;
}

TEST(SoapySdrSource, NativeFormatTravelsWhenPrismScalesItTheSame) {
  SoapySdrSource source(options_for("native=CS16,full_scale=32768"));
  EXPECT_EQ(source.info().format, SampleFormat::ci16);
  EXPECT_EQ(TestDevice::last.load()->format_, SOAPY_SDR_CS16);
  EXPECT_TRUE(source.info().live);
  EXPECT_EQ(source.info().channels, 1u);
  const std::vector<std::int64_t> values = read_ramp(source, 5000);
  ASSERT_EQ(values.size(), 5000u);
  for (std::size_t k = 0; k < values.size(); ++k) ASSERT_EQ(values[k], static_cast<std::int64_t>(k)) << k;
  EXPECT_EQ(source.dropped_samples(), 0u);
}

TEST(SoapySdrSource, OtherFullScalesAreConvertedByTheDriver) {
  // A 12-bit ADC's CS16 (full scale 2048) would read 16 times too weak as ci16 / 32768.
  SoapySdrSource source(options_for("native=CS16,full_scale=2048"));
  EXPECT_EQ(source.info().format, SampleFormat::cf32);
  EXPECT_EQ(TestDevice::last.load()->format_, SOAPY_SDR_CF32);
  const std::vector<std::int64_t> values = read_ramp(source, 3000);
  for (std::size_t k = 0; k < values.size(); ++k) ASSERT_EQ(values[k], static_cast<std::int64_t>(k)) << k;
}

TEST(SoapySdrSource, AFormatAskedForIsTaken) {
  SdrInputOptions o = options_for("native=CS16");
  o.format = SampleFormat::ci8;
  SoapySdrSource source(o);
  EXPECT_EQ(source.info().format, SampleFormat::ci8);
  EXPECT_EQ(TestDevice::last.load()->format_, SOAPY_SDR_CS8);
  o = options_for("native=CS16,second");
  o.format = SampleFormat::cu8;
  EXPECT_CONTAINS(test::error_message<UsageError>([&] { SoapySdrSource bad(o); }), "cf32, ci16 or ci8");
}

TEST(SoapySdrSource, SettingsReachTheDevice) {
  SdrInputOptions o = options_for("native=CS16");
  o.sample_rate = 1e6;
  o.center_frequency = 433.92e6;
  o.gain = 32.5;
  o.antenna = "TX/RX";
  o.channel = 1;
  o.stream_args = "bufflen=4096,buffers=8";
  SoapySdrSource source(o);
  const TestDevice& device = *TestDevice::last.load();
  EXPECT_EQ(source.info().sample_rate, 1e6);
  EXPECT_EQ(source.info().center_frequency, 433.92e6);
  EXPECT_EQ(device.gain_, 32.5);
  EXPECT_FALSE(device.automatic_gain_);
  EXPECT_EQ(device.antenna_, "TX/RX");
  EXPECT_EQ(device.channel_, 1u);
  EXPECT_EQ(device.stream_args_.at("bufflen"), "4096");
  EXPECT_EQ(device.stream_args_.at("buffers"), "8");
  EXPECT_CONTAINS(source.describe(), "sdr:driver=prism_test");
  EXPECT_CONTAINS(source.describe(), "PrismTest");
  EXPECT_CONTAINS(source.describe(), "channel 1");
  EXPECT_CONTAINS(source.describe(), "ci16 @ 1000000 Hz");
  EXPECT_CONTAINS(source.describe(), "gain 32.5 dB");
}

TEST(SoapySdrSource, WithoutAGainTheDeviceGainsAutomatically) {
  SoapySdrSource source(options_for("native=CS16"));
  EXPECT_TRUE(TestDevice::last.load()->automatic_gain_);
  EXPECT_CONTAINS(source.describe(), "automatic gain");
  EXPECT_EQ(source.info().sample_rate, 2.4e6) << "no --rate: the device's own";
  EXPECT_EQ(source.info().center_frequency, 100e6) << "no --center-frequency: the device's own";
}

TEST(SoapySdrSource, SettingsOutsideTheDevicesRangesAreUsageErrorsNamingThem) {
  auto message = [](auto&& change) {
    SdrInputOptions o = options_for("native=CS16");
    change(o);
    return test::error_message<UsageError>([&] { SoapySdrSource source(o); });
  };
  std::string m = message([](SdrInputOptions& o) { o.sample_rate = 20e6; });
  EXPECT_CONTAINS(m, "sample_rate 20000000");
  EXPECT_CONTAINS(m, "1000..10000000");
  m = message([](SdrInputOptions& o) { o.center_frequency = 5e6; });
  EXPECT_CONTAINS(m, "center_frequency 5000000");
  EXPECT_CONTAINS(m, "24000000..1700000000");
  m = message([](SdrInputOptions& o) { o.gain = 70; });
  EXPECT_CONTAINS(m, "gain 70");
  EXPECT_CONTAINS(m, "0..50");
  m = message([](SdrInputOptions& o) { o.antenna = "LNA"; });
  EXPECT_CONTAINS(m, "antenna 'LNA'");
  EXPECT_CONTAINS(m, "RX, TX/RX");
  m = message([](SdrInputOptions& o) { o.channel = 2; });
  EXPECT_CONTAINS(m, "sdr_channel 2");
  EXPECT_CONTAINS(m, "2 RX channel(s)");
}

TEST(SoapySdrSource, NoMatchingDeviceIsAnInputErrorSayingWhatWasFound) {
  SdrInputOptions o;
  o.device_args = "driver=prism_no_such_driver";
  const std::string m = test::error_message<InputError>([&] { SoapySdrSource source(o); });
  EXPECT_CONTAINS(m, "sdr:driver=prism_no_such_driver: no SDR matches");
  EXPECT_CONTAINS(m, "SoapySDR found");
}

TEST(SoapySdrSource, ListsTheDevicesAsSpecsToUse) {
  const std::vector<SdrDeviceEntry> devices = list_sdr_devices("driver=prism_test");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].args, "driver=prism_test,label=prism test device");
  EXPECT_EQ(devices[0].label, "prism test device");
}

TEST(SoapySdrSource, LossesTheDriverTimeStampsAreCountedInSamples) {
  SoapySdrSource source(options_for("timestamps=1,lose_at=20000,lose=5000"));
  const std::vector<std::int64_t> values = read_ramp(source, 40000);
  ASSERT_EQ(values.size(), 40000u);
  EXPECT_EQ(values[19999], 19999);
  EXPECT_EQ(values[20000], 25000) << "the samples after the loss";
  EXPECT_EQ(source.dropped_samples(), 5000u);
  EXPECT_EQ(source.overflows_of_unknown_length(), 0u);
}

TEST(SoapySdrSource, LossesWithoutTimeStampsAreCountedAsEvents) {
  SoapySdrSource source(options_for("lose_at=20000,lose=5000"));
  const std::vector<std::int64_t> values = read_ramp(source, 40000);
  ASSERT_EQ(values.size(), 40000u);
  EXPECT_EQ(values[20000], 25000);
  EXPECT_EQ(source.dropped_samples(), 0u) << "nobody knows how many: no guess";
  EXPECT_EQ(source.overflows_of_unknown_length(), 1u);
}

TEST(SoapySdrSource, AReaderThatFallsBehindLosesWholeReadsAndCountsThem) {
  SdrInputOptions o = options_for("native=CS16");
  o.sample_rate = 1e3;  // the ring holds 1 s: 1000 samples, rounded up to 4 reads of 1000
  o.ring_seconds = 1;
  SoapySdrSource source(o);
  std::vector<std::byte> buffer(100 * source.info().frame_bytes());
  ASSERT_EQ(source.read(buffer.data(), 100), 100u);  // starts the stream
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ~1000 reads arrive meanwhile
  const std::vector<std::int64_t> values = read_ramp(source, 20000);
  const std::uint64_t dropped = source.dropped_samples();
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(dropped % kMtu, 0u) << "a read that does not fit is dropped whole";
  std::size_t gaps = 0;
  for (std::size_t i = 1; i < values.size(); ++i) gaps += (values[i] - values[i - 1] + 32768) % 32768 != 1;
  EXPECT_GT(gaps, 0u) << "the samples read show the loss";
  EXPECT_GE(source.samples_captured(), 100 + values.size() + dropped);
}

TEST(SoapySdrSource, InterruptEndsAWaitingRead) {
  SoapySdrSource source(options_for("stall_at=2000"));
  std::vector<std::byte> buffer(4096 * source.info().frame_bytes());
  std::size_t total = 0;
  while (total < 2000) total += source.read(buffer.data(), 4096);
  EXPECT_EQ(total, 2000u);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    source.interrupt();
  });
  EXPECT_EQ(source.read(buffer.data(), 4096), 0u);
  stopper.join();
}

TEST(SoapySdrSource, AnSdrWhoseReadsOnlyTimeOutEndsTheRunAfterTheStallTimeoutKeepingWhatArrived) {
  // The device goes quiet without an error: from sample 5000 on every read times out. The run
  // fails after the stall timeout, naming the input, and the sink keeps what arrived.
  SoapySdrSource source(options_for("stall_at=5000"));
  std::uint64_t received = 0;
  bool ended_failed = false;
  CallbackSink::Functions functions;
  functions.on_chunk = [&](const Chunk& chunk) { received += chunk.items; };
  functions.on_end = [&](CallbackSink::End how) { ended_failed = how == CallbackSink::End::failed; };
  Graph graph;
  graph.connect(graph.add_source(source),
                graph.add_sink(std::make_unique<CallbackSink>(PortKind::samples, functions)));
  RunConfig config;
  config.block_samples = 1000;
  config.stall_timeout_s = 0.3;
  StopToken stop;
  const auto start = std::chrono::steady_clock::now();
  const RunReport report = graph.run(config, stop);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_CONTAINS(report.error, "sdr:driver=prism_test");
  EXPECT_CONTAINS(report.error, "delivered nothing for 0.3 s (the stall timeout, stall_timeout_s)");
  EXPECT_TRUE(report.outputs_kept_incomplete);
  EXPECT_FALSE(ended_failed) << "the sink finishes, incomplete, keeping what arrived";
  EXPECT_EQ(report.samples_read + report.samples_dropped, 5000u);
  EXPECT_EQ(received, report.samples_read);
  EXPECT_GE(seconds, 0.3);
  EXPECT_LT(seconds, 10.0) << "the run ended on the stall timeout, not on some other wait";
}

TEST(SoapySdrSource, ABrokenStreamDeliversWhatArrivedThenFails) {
  SoapySdrSource source(options_for("fail_at=3000"));
  std::vector<std::byte> buffer(4096 * source.info().frame_bytes());
  std::size_t total = 0;
  const std::string m = test::error_message<InputError>([&] {
    while (true) total += source.read(buffer.data(), 4096);
  });
  EXPECT_EQ(total, 3000u);
  EXPECT_CONTAINS(m, "the device stopped streaming");
  EXPECT_CONTAINS(m, SoapySDR::errToStr(SOAPY_SDR_STREAM_ERROR));
}

TEST(SoapySdrSource, TheRegistryOpensSdrSpecsAndRefusesSdrSettingsElsewhere) {
  SourceOptions options;
  options.sample_rate = 250e3;
  options.center_frequency = 868e6;
  options.gain = 20;
  const std::unique_ptr<Source> source = open_source("sdr:driver=prism_test,native=CS16,test=registry", options);
  EXPECT_EQ(source->info().sample_rate, 250e3);
  EXPECT_EQ(source->info().center_frequency, 868e6);
  EXPECT_EQ(TestDevice::last.load()->gain_, 20);
  EXPECT_EQ(source_kind_name("sdr"), "SDR");
  EXPECT_EQ(source_kind_name("sdr:driver=x"), "SDR");
  EXPECT_CONTAINS(test::error_message<UsageError>([&] { open_source("gen", options); }),
                  "not for gen (generator)");
  SourceOptions two_channels;
  two_channels.channels = 2;
  EXPECT_CONTAINS(test::error_message<UsageError>([&] {
                    open_source("sdr:driver=prism_test,test=registry2", two_channels);
                  }),
                  "sdr_channel");
}

}  // namespace
}  // namespace prism
