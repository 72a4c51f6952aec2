// SoapySdrSource: live complex baseband from a software-defined radio through SoapySDR (RTL-SDR,
// HackRF, Airspy, LimeSDR, USRP, ... whatever SoapySDR modules are installed; its audio module
// turns a sound card or a JACK server into one). Also the helpers `prism devices` uses.
//
// Input spec (the CLI's INPUT argument):
//   sdr             the first device SoapySDR finds
//   sdr:ARGS        the first device matching SoapySDR device arguments KEY=VALUE,..., e.g.
//                   sdr:driver=rtlsdr, sdr:driver=hackrf,serial=...,
//                   sdr:driver=audio,label=system (SoapyAudio on a JACK server)
// The tuning comes from options, not from the spec (the spec is passed to the driver as it is):
// the sample rate, the centre frequency (the device is tuned to it), the gain (automatic gain
// where the device has it, unless a gain is given), the antenna, the RX channel and the driver's
// stream arguments.
//
// Format: the device's native format travels when prism has it at the same full scale (CS16 at
// 32768 as ci16, CS8 at 128 as ci8), so blocks stay compact and are converted to float where
// they are processed; otherwise the driver converts to CF32. A format asked for (cf32, ci16 or
// ci8) is taken as it is, converted by the driver where it is not native.
//
// Threads: SoapySDR's readStream blocks, and a device that is not read in time drops samples in
// its driver. A capture thread therefore reads the device from the first read() on, without
// pause, into a single-producer single-consumer ring; read() takes samples out of the ring on
// the pipeline's source thread. What did not fit in the ring is dropped and counted. Samples
// the driver reports lost (SOAPY_SDR_OVERFLOW) are counted from the stream's time stamps where
// the device gives them; where it does not, the overflows are counted as events, since their
// length is unknown (overflows_of_unknown_length; the run summary and the viewer show both).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/source.hpp"
#include "pipeline/stream_info.hpp"
#include "sources/driver_call.hpp"

namespace prism {

struct SdrDeviceEntry {
  std::string args;   // KEY=VALUE,... as SoapySDR enumerates it (use as sdr:ARGS)
  std::string label;  // the "label" argument, else the driver's name
};

// Every device SoapySDR finds for `args` ("" = every module's devices). Drivers' probing noise
// on stderr is suppressed. The modules' enumeration runs within `deadline` (driver_call.hpp).
std::vector<SdrDeviceEntry> list_sdr_devices(const std::string& args = "", const DriverDeadline& deadline = {});

// The SoapySDR driver modules found on this machine, once by file name (a module installed in
// two search paths is loaded once), with why a module did not load.
struct SdrModule {
  std::string name;   // file name, e.g. librtlsdrSupport.so
  std::string error;  // empty: loaded
};
std::vector<SdrModule> sdr_modules();
// The modules in words, the same for `prism devices` and the SDR input's errors: "2 SoapySDR
// driver modules loaded (libaudioSupport.so, libremoteSupport.so)", with those that failed.
std::string sdr_modules_text(const std::vector<SdrModule>& modules);

struct SdrInputOptions {
  std::string device_args;                 // SoapySDR device arguments, "" = the first device
  std::optional<SampleFormat> format;      // cf32, ci16 or ci8; unset = as above
  double sample_rate = 0;                  // Hz; 0 = the device's current rate
  std::optional<double> center_frequency;  // Hz; unset = leave the device's tuning
  std::optional<double> gain;              // dB, overall; unset = automatic gain where possible
  std::string antenna;                     // "" = the device's default
  std::size_t channel = 0;                 // RX channel of the device
  std::string stream_args;                 // KEY=VALUE,... for the driver's setupStream
  double ring_seconds = 2.0;               // how long read() may fall behind before drops
  // Each call into the driver while the device is listed, opened and set up, and when it is
  // closed (driver_call.hpp).
  DriverDeadline deadline;
  // How messages name the settings, by SourceOptions' field names (sample_rate, gain, ...):
  // SourceOptions::field_namer.
  std::string (*field_namer)(std::string_view field) = nullptr;
  std::string name(std::string_view field) const {
    return field_namer ? field_namer(field) : std::string(field);
  }
};

class SoapySdrSource final : public Source {
 public:
  // Opens and tunes the device and sets up its stream; the first read() starts it. Throws
  // InputError ("sdr:ARGS: reason", naming what SoapySDR found) when no device matches or the
  // device refuses a setting; UsageError for a setting outside the device's ranges.
  explicit SoapySdrSource(const SdrInputOptions& options);
  ~SoapySdrSource() override;
  SoapySdrSource(const SoapySdrSource&) = delete;
  SoapySdrSource& operator=(const SoapySdrSource&) = delete;

  const StreamInfo& info() const override { return info_; }
  // Returns as soon as some samples are there (at most max_samples), 0 only after interrupt().
  // Throws InputError when the device stopped streaming (its error named).
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  // Makes a read() that is waiting now return 0; a later read() waits again.
  void interrupt() override;
  // Samples lost: those that did not fit in the ring, and those the driver lost where its
  // time stamps tell how many.
  std::uint64_t dropped_samples() const override;
  // Overflows the driver reported without time stamps: samples were lost, how many is unknown.
  std::uint64_t overflows_of_unknown_length() const override;
  // Samples the device delivered (stored in the ring or dropped there).
  std::uint64_t samples_captured() const;
  // "sdr:driver=rtlsdr (R820T Generic RTL2832U), channel 0, ci8 @ 2400000 Hz, tuned to 100000000 Hz,
  // automatic gain": the spec as given (for a bare "sdr", the driver found), the hardware, the
  // stream.
  std::string describe() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StreamInfo info_;
};

}  // namespace prism
