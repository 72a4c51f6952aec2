// SoapySdrSource and the SDR device helpers (see soapysdr_source.hpp).
#include "sources/soapysdr_source.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

#include <SoapySDR/Device.hpp>
#include <SoapySDR/Errors.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Logger.hpp>
#include <SoapySDR/Modules.hpp>
#include <SoapySDR/Types.hpp>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "sources/live_ring.hpp"

namespace prism {

namespace {

// SoapySDR logs at INFO ("Using format CF32.") on stderr; prism reports for itself.
void quiet_soapy_log() {
  static std::once_flag once;
  std::call_once(once, [] { SoapySDR::setLogLevel(SOAPY_SDR_WARNING); });
}

std::string spec_of(const std::string& device_args) {
  return device_args.empty() ? std::string("sdr (first device)") : "sdr:" + device_args;
}

// Device arguments as one comma-separated word, the driver first: what sdr: takes back.
std::string kwargs_text(const SoapySDR::Kwargs& kwargs) {
  std::string text;
  const auto driver = kwargs.find("driver");
  if (driver != kwargs.end()) text = "driver=" + driver->second;
  for (const auto& [key, value] : kwargs)
    if (key != "driver") text += (text.empty() ? "" : ",") + key + "=" + value;
  return text;
}

std::string found_text(const std::vector<SdrDeviceEntry>& devices) {
  if (devices.empty()) {
    return "SoapySDR found no device (" + sdr_modules_text(sdr_modules()) + ")";
  }
  std::string text = "SoapySDR found: ";
  for (std::size_t i = 0; i < devices.size(); ++i)
    text += (i ? "; " : "") + std::string("sdr:") + devices[i].args;
  return text;
}

std::string ranges_text(const SoapySDR::RangeList& ranges) {
  std::string text;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    text += i ? ", " : "";
    text += ranges[i].minimum() == ranges[i].maximum()
                ? number_text(ranges[i].minimum())
                : number_text(ranges[i].minimum()) + ".." + number_text(ranges[i].maximum());
  }
  return text.empty() ? "none reported" : text;
}

bool in_ranges(double value, const SoapySDR::RangeList& ranges) {
  if (ranges.empty()) return true;  // the driver does not say: let it decide
  return std::any_of(ranges.begin(), ranges.end(), [&](const SoapySDR::Range& r) {
    const double slack = 1e-9 * std::max(1.0, std::abs(value));
    return value >= r.minimum() - slack && value <= r.maximum() + slack;
  });
}

// The prism format a SoapySDR stream format travels as, when prism converts it with the same
// full scale as the driver states (ci16 / 32768, ci8 / 128).
std::optional<SampleFormat> compact_format(const std::string& soapy_format, double full_scale) {
  if (soapy_format == SOAPY_SDR_CS16 && full_scale == 32768.0) return SampleFormat::ci16;
  if (soapy_format == SOAPY_SDR_CS8 && full_scale == 128.0) return SampleFormat::ci8;
  return std::nullopt;
}

const char* soapy_name(SampleFormat format) {
  switch (format) {
    case SampleFormat::ci16: return SOAPY_SDR_CS16;
    case SampleFormat::ci8: return SOAPY_SDR_CS8;
    default: return SOAPY_SDR_CF32;
  }
}

}  // namespace

std::vector<SdrModule> sdr_modules() {
  quiet_soapy_log();
  SoapySDR::loadModules();  // what enumerate() loads: the loader's results are known after it
  std::vector<SdrModule> modules;
  for (const std::string& path : SoapySDR::listModules()) {
    SdrModule module;
    module.name = path.substr(path.find_last_of('/') + 1);
    if (std::any_of(modules.begin(), modules.end(), [&](const SdrModule& m) { return m.name == module.name; }))
      continue;
    for (const auto& [entry, error] : SoapySDR::getLoaderResult(path))
      if (!error.empty()) module.error += (module.error.empty() ? "" : "; ") + entry + ": " + error;
    modules.push_back(std::move(module));
  }
  return modules;
}

std::string sdr_modules_text(const std::vector<SdrModule>& modules) {
  if (modules.empty())
    return "no SoapySDR driver module is installed: install soapysdr-module-rtlsdr, -hackrf, -airspy, -uhd, "
           "-audio, ...";
  std::string loaded, failed;
  std::size_t loaded_count = 0;
  for (const SdrModule& m : modules) {
    if (m.error.empty()) {
      loaded += (loaded.empty() ? "" : ", ") + m.name;
      ++loaded_count;
    } else {
      failed += (failed.empty() ? "" : "; ") + m.name + ": " + m.error;
    }
  }
  std::string text = std::to_string(loaded_count) + " SoapySDR driver module" + (loaded_count == 1 ? "" : "s") +
                     " loaded" + (loaded.empty() ? "" : " (" + loaded + ")");
  if (!failed.empty()) text += "; not loaded: " + failed;
  return text;
}

std::vector<SdrDeviceEntry> list_sdr_devices(const std::string& args, const DriverDeadline& deadline) {
  quiet_soapy_log();
  const SoapySDR::KwargsList found = call_driver(spec_of(args), "listing the devices", deadline,
                                                 [args] { return SoapySDR::Device::enumerate(args); });
  std::vector<SdrDeviceEntry> devices;
  for (const SoapySDR::Kwargs& kwargs : found) {
    SdrDeviceEntry entry;
    entry.args = kwargs_text(kwargs);
    // A device two modules (or one module in two search paths) report is listed once.
    if (std::any_of(devices.begin(), devices.end(), [&](const SdrDeviceEntry& d) { return d.args == entry.args; }))
      continue;
    const auto label = kwargs.find("label");
    const auto driver = kwargs.find("driver");
    entry.label = label != kwargs.end() ? label->second : driver != kwargs.end() ? driver->second : "?";
    devices.push_back(std::move(entry));
  }
  return devices;
}

// ---- the stream --------------------------------------------------------------------------------

struct SoapySdrSource::Impl {
  SoapySDR::Device* device = nullptr;
  SoapySDR::Stream* stream = nullptr;
  std::string where;  // spec_of(args), for errors
  DriverDeadline deadline;  // for starting and closing: without the opener's stop, which may be gone by then
  std::string description;
  double sample_rate = 0;
  std::size_t frame_bytes = 0;
  std::size_t mtu = 0;  // samples per readStream

  std::unique_ptr<LiveRing> ring;  // the capture thread writes, read() reads
  std::atomic<std::uint64_t> ring_dropped{0};       // samples that did not fit
  std::atomic<std::uint64_t> driver_dropped{0};     // samples lost in the driver (time stamps)
  std::atomic<std::uint64_t> unknown_overflows{0};  // driver overflows without time stamps
  std::atomic<std::uint64_t> captured{0};

  std::thread capture;
  bool started = false;  // only the reading thread touches it
  std::atomic<bool> stopping{false};
  // Set by the capture thread when the device stopped streaming; read() throws it.
  std::atomic<bool> failed{false};
  std::string failure;  // written before `failed` is set (release), read after (acquire)

  void run_capture() {
    std::vector<std::byte> scratch(mtu * frame_bytes);
    void* buffers[] = {scratch.data()};
    // When the next sample is due, from the time stamps (timed: the last read had one).
    bool timed = false;
    long long next_time_ns = 0;
    while (!stopping.load(std::memory_order_acquire)) {
      int flags = 0;
      long long time_ns = 0;
      const int n = device->readStream(stream, buffers, mtu, flags, time_ns, 100000);
      if (n == SOAPY_SDR_TIMEOUT) continue;
      if (n == SOAPY_SDR_OVERFLOW) {
        // The next read's time stamp says how much was lost; without time stamps nobody knows.
        if (!timed) unknown_overflows.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      if (n < 0) {
        failure = std::string("the device stopped streaming: ") + SoapySDR::errToStr(n);
        failed.store(true, std::memory_order_release);
        return;
      }
      if (n == 0) continue;
      const auto samples = static_cast<std::uint64_t>(n);
      if (flags & SOAPY_SDR_HAS_TIME) {
        if (timed && time_ns > next_time_ns) {
          const double gap = static_cast<double>(time_ns - next_time_ns) * sample_rate * 1e-9;
          const auto lost = static_cast<std::uint64_t>(std::llround(gap));
          driver_dropped.fetch_add(lost, std::memory_order_relaxed);
          captured.fetch_add(lost, std::memory_order_relaxed);
        }
        next_time_ns = time_ns + std::llround(static_cast<double>(samples) * 1e9 / sample_rate);
        timed = true;
      } else {
        timed = false;
      }
      captured.fetch_add(samples, std::memory_order_relaxed);
      // No room: this read's worth is dropped, counted.
      if (!ring->write(scratch.data(), samples)) ring_dropped.fetch_add(samples, std::memory_order_relaxed);
    }
  }

  void close() {
    if (capture.joinable()) {
      stopping.store(true, std::memory_order_release);
      capture.join();
    }
    if (device == nullptr) return;
    // One call for the whole close: a driver that hangs in it (the audio module stops and closes
    // a JACK client) must not hold the end of the run. The device is then left to it, said on
    // stderr, as a driver's own errors while closing are not (the run is over).
    try {
      call_driver(where, "closing the device", deadline, [device = device, stream = stream, started = started] {
        if (stream != nullptr) {
          if (started) device->deactivateStream(stream);
          device->closeStream(stream);
        }
        SoapySDR::Device::unmake(device);
      });
    } catch (const DriverCallAbandoned& e) {
      std::fprintf(stderr, "prism: warning: %s\n", e.what());
    } catch (const std::exception&) {
    }
    stream = nullptr;
    device = nullptr;
  }
};

SoapySdrSource::SoapySdrSource(const SdrInputOptions& options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.where = spec_of(options.device_args);
  const DriverDeadline& opening = options.deadline;
  s.deadline = opening;
  s.deadline.stop = nullptr;
  const std::vector<SdrDeviceEntry> found = list_sdr_devices(options.device_args, opening);
  if (found.empty())
    throw InputError(s.where, options.device_args.empty() ? found_text({})
                                                          : "no SDR matches '" + options.device_args +
                                                                "': " + found_text(list_sdr_devices("", opening)));
  const SoapySDR::Kwargs args = SoapySDR::KwargsFromString(found.front().args);
  try {
    s.device = call_driver(s.where, "opening the device", opening, [args] { return SoapySDR::Device::make(args); });
  } catch (const DriverCallAbandoned&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(s.where, "cannot open sdr:" + found.front().args + ": " + e.what());
  }
  // From here on a failure must release the device: close() in every error path.
  try {
    SoapySDR::Device& device = *s.device;
    const std::size_t channels = device.getNumChannels(SOAPY_SDR_RX);
    if (options.channel >= channels)
      throw UsageError(options.name("sdr_channel") + " " + std::to_string(options.channel) + ": " + s.where + " has " +
                       std::to_string(channels) + " RX channel(s)");
    const std::size_t ch = options.channel;

    if (options.sample_rate > 0) {
      const SoapySDR::RangeList rates = device.getSampleRateRange(SOAPY_SDR_RX, ch);
      if (!in_ranges(options.sample_rate, rates))
        throw UsageError(options.name("sample_rate") + " " + number_text(options.sample_rate) + " is outside what " + s.where +
                         " takes (Hz: " + ranges_text(rates) + ")");
      device.setSampleRate(SOAPY_SDR_RX, ch, options.sample_rate);
    }
    s.sample_rate = device.getSampleRate(SOAPY_SDR_RX, ch);
    if (!(s.sample_rate > 0)) throw InputError(s.where, "the device reports no sample rate; give " + options.name("sample_rate"));

    if (options.center_frequency) {
      const SoapySDR::RangeList range = device.getFrequencyRange(SOAPY_SDR_RX, ch);
      if (!in_ranges(*options.center_frequency, range))
        throw UsageError(options.name("center_frequency") + " " + number_text(*options.center_frequency) +
                         " is outside what " + s.where + " tunes to (Hz: " + ranges_text(range) + ")");
      device.setFrequency(SOAPY_SDR_RX, ch, *options.center_frequency);
    }
    if (!options.antenna.empty()) {
      const std::vector<std::string> antennas = device.listAntennas(SOAPY_SDR_RX, ch);
      if (std::find(antennas.begin(), antennas.end(), options.antenna) == antennas.end()) {
        std::string list;
        for (const auto& a : antennas) list += (list.empty() ? "" : ", ") + a;
        throw UsageError(options.name("antenna") + " '" + options.antenna + "' is not one of " + s.where + "'s (" +
                         (list.empty() ? "none listed" : list) + ")");
      }
      device.setAntenna(SOAPY_SDR_RX, ch, options.antenna);
    }
    std::string gain_text;
    if (options.gain) {
      const SoapySDR::Range range = device.getGainRange(SOAPY_SDR_RX, ch);
      if (!in_ranges(*options.gain, {range}))
        throw UsageError(options.name("gain") + " " + number_text(*options.gain) + " is outside " + s.where + "'s range (" +
                         ranges_text({range}) + " dB)");
      if (device.hasGainMode(SOAPY_SDR_RX, ch)) device.setGainMode(SOAPY_SDR_RX, ch, false);
      device.setGain(SOAPY_SDR_RX, ch, *options.gain);
      gain_text = ", gain " + number_text(device.getGain(SOAPY_SDR_RX, ch)) + " dB";
    } else if (device.hasGainMode(SOAPY_SDR_RX, ch)) {
      device.setGainMode(SOAPY_SDR_RX, ch, true);
      gain_text = ", automatic gain";
    }

    double full_scale = 0;
    const std::string native = device.getNativeStreamFormat(SOAPY_SDR_RX, ch, full_scale);
    const SampleFormat format = options.format.value_or(compact_format(native, full_scale).value_or(SampleFormat::cf32));
    if (format != SampleFormat::cf32 && format != SampleFormat::ci16 && format != SampleFormat::ci8)
      throw UsageError(options.name("format") + " " + std::string(format_name(format)) + ": an SDR streams cf32, ci16 or ci8");
    info_.format = format;
    info_.sample_rate = s.sample_rate;
    info_.center_frequency = device.getFrequency(SOAPY_SDR_RX, ch);
    info_.channels = 1;
    info_.live = true;
    s.frame_bytes = info_.frame_bytes();
    try {
      s.stream = call_driver(s.where, "setting up its stream", opening,
                             [device = s.device, format = std::string(soapy_name(format)), ch,
                              stream_args = SoapySDR::KwargsFromString(options.stream_args)] {
                               return device->setupStream(SOAPY_SDR_RX, format, {ch}, stream_args);
                             });
    } catch (const DriverCallAbandoned&) {
      s.device = nullptr;  // in the stuck call's hands
      throw;
    } catch (const DriverCallInterrupted&) {
      s.device = nullptr;
      throw;
    } catch (const Interrupted&) {
      throw;  // before the call: the device is closed as after any failure
    } catch (const std::exception& e) {
      throw InputError(s.where, std::string("cannot set up its ") + soapy_name(format) + " stream: " + e.what());
    }
    s.mtu = std::max<std::size_t>(device.getStreamMTU(s.stream), 256);
    const auto ring_samples = static_cast<std::size_t>(std::max(1.0, options.ring_seconds) * s.sample_rate);
    s.ring = std::make_unique<LiveRing>(std::max(ring_samples, 4 * s.mtu), s.frame_bytes);

    // The spec as the user gave it (the first device's driver and label for a bare "sdr").
    std::ostringstream text;
    text << "sdr:"
         << (options.device_args.empty() ? kwargs_text({{"driver", args.count("driver") ? args.at("driver") : "?"}})
                                         : options.device_args)
         << " (" << device.getHardwareKey() << " " << found.front().label << "), channel " << ch
         << ", " << format_name(format) << " @ " << number_text(s.sample_rate) << " Hz, tuned to "
         << number_text(info_.center_frequency) << " Hz" << gain_text;
    s.description = text.str();
  } catch (...) {
    s.close();
    throw;
  }
}

SoapySdrSource::~SoapySdrSource() { impl_->close(); }

std::size_t SoapySdrSource::read(std::byte* dst, std::size_t max_samples) {
  Impl& s = *impl_;
  if (!s.started) {
    int err = 0;
    try {
      err = call_driver(s.where, "starting its stream", s.deadline,
                        [device = s.device, stream = s.stream] { return device->activateStream(stream); });
    } catch (const DriverCallAbandoned&) {
      s.device = nullptr;  // in the stuck call's hands
      s.stream = nullptr;
      throw;
    }
    if (err != 0)
      throw InputError(s.where, std::string("cannot start its stream: ") + SoapySDR::errToStr(err));
    s.started = true;
    s.capture = std::thread([&s] { s.run_capture(); });
  }
  // The capture thread's failure is reported once what it stored before has been read.
  return s.ring->read(dst, max_samples, [&s] {
    if (s.failed.load(std::memory_order_acquire)) throw InputError(s.where, s.failure);
  });
}

void SoapySdrSource::interrupt() { impl_->ring->interrupt(); }

std::uint64_t SoapySdrSource::dropped_samples() const {
  return impl_->ring_dropped.load(std::memory_order_relaxed) + impl_->driver_dropped.load(std::memory_order_relaxed);
}

std::uint64_t SoapySdrSource::overflows_of_unknown_length() const {
  return impl_->unknown_overflows.load(std::memory_order_relaxed);
}

std::uint64_t SoapySdrSource::samples_captured() const { return impl_->captured.load(std::memory_order_relaxed); }

std::string SoapySdrSource::describe() const { return impl_->description; }

}  // namespace prism
