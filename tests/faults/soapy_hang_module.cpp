// A SoapySDR driver module for the test of the deadlines on driver calls (test_driver_hang.py,
// sources/driver_call.hpp): driver=prism_hang, a device that streams zeros as CF32 at 1 MS/s and
// hangs where its argument hang= says: find (while SoapySDR lists devices), make (while the
// device opens), stream (in setupStream), start (in activateStream, at the run's first read) or
// close (in the device's destructor, which unmake calls). A hung call first creates the file hang_file= names (when given: the test knows then
// that the call hangs), then loops until the process ends, as a deadlocked driver would. The
// module's static state waits at exit for the calls that hang, as a driver's would whose
// destructor joins its threads: a process that runs its static destructors after leaving a call
// behind never ends (prism ends with _Exit then). prism loads the module through
// SOAPY_SDR_PLUGIN_PATH.
#include <atomic>
#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <SoapySDR/Device.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Registry.hpp>

namespace {

constexpr double kRate = 1e6;
constexpr std::size_t kMtu = 1000;

std::string argument(const SoapySDR::Kwargs& args, const std::string& key) {
  const auto it = args.find(key);
  return it == args.end() ? std::string() : it->second;
}

struct HangingCalls {
  std::atomic<int> count{0};
  ~HangingCalls() {
    while (count.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
} hanging_calls;

[[noreturn]] void hang(const SoapySDR::Kwargs& args) {
  hanging_calls.count.fetch_add(1);
  const std::string marker = argument(args, "hang_file");
  if (!marker.empty()) std::fclose(std::fopen(marker.c_str(), "w"));
  while (true) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

class HangingDevice final : public SoapySDR::Device {
 public:
  explicit HangingDevice(const SoapySDR::Kwargs& args) : args_(args), hang_(argument(args, "hang")) {}
  ~HangingDevice() override {
    if (hang_ == "close") hang(args_);
  }

  std::string getDriverKey() const override { return "prism_hang"; }
  std::string getHardwareKey() const override { return "PrismHang"; }
  std::size_t getNumChannels(int) const override { return 1; }
  std::string getNativeStreamFormat(int, std::size_t, double& full_scale) const override {
    full_scale = 1.0;
    return SOAPY_SDR_CF32;
  }
  std::vector<std::string> getStreamFormats(int, std::size_t) const override { return {SOAPY_SDR_CF32}; }
  SoapySDR::Stream* setupStream(int, const std::string&, const std::vector<std::size_t>&,
                                const SoapySDR::Kwargs&) override {
    if (hang_ == "stream") hang(args_);
    return reinterpret_cast<SoapySDR::Stream*>(this);
  }
  void closeStream(SoapySDR::Stream*) override {}
  std::size_t getStreamMTU(SoapySDR::Stream*) const override { return kMtu; }
  int activateStream(SoapySDR::Stream*, int, long long, std::size_t) override {
    if (hang_ == "start") hang(args_);
    return 0;
  }
  int deactivateStream(SoapySDR::Stream*, int, long long) override { return 0; }
  int readStream(SoapySDR::Stream*, void* const* buffs, std::size_t elems, int& flags, long long&, long) override {
    const std::size_t n = std::min(elems, kMtu);
    std::this_thread::sleep_for(std::chrono::duration<double>(static_cast<double>(n) / kRate));
    auto* out = static_cast<std::complex<float>*>(buffs[0]);
    for (std::size_t i = 0; i < n; ++i) out[i] = {};
    flags = 0;
    return static_cast<int>(n);
  }
  SoapySDR::RangeList getSampleRateRange(int, std::size_t) const override { return {{kRate, kRate}}; }
  void setSampleRate(int, std::size_t, double) override {}
  double getSampleRate(int, std::size_t) const override { return kRate; }
  SoapySDR::RangeList getFrequencyRange(int, std::size_t) const override { return {{1e6, 1e9}}; }
  void setFrequency(int, std::size_t, double frequency, const SoapySDR::Kwargs&) override { frequency_ = frequency; }
  double getFrequency(int, std::size_t) const override { return frequency_; }

 private:
  SoapySDR::Kwargs args_;
  std::string hang_;
  double frequency_ = 100e6;
};

SoapySDR::KwargsList find_devices(const SoapySDR::Kwargs& args) {
  if (argument(args, "driver") != "prism_hang") return {};
  if (argument(args, "hang") == "find") hang(args);
  SoapySDR::Kwargs found = args;
  found["label"] = "prism hanging test device";
  return {found};
}

SoapySDR::Device* make_device(const SoapySDR::Kwargs& args) {
  if (argument(args, "hang") == "make") hang(args);
  return new HangingDevice(args);
}

const SoapySDR::Registry kRegistration("prism_hang", &find_devices, &make_device, SOAPY_SDR_ABI_VERSION);

}  // namespace
