// ChannelReceiver: the viewer's radio channel, without any window or audio device (its filter on
// the CPU or a GPU, the rest on the CPU; see below).
// From the input's samples (one channel of any native format, real or complex) it makes the
// channel's I/Q and its audio, in SDR++'s receiver order:
//
//   channel filter + decimation + shift   one FIR filter (ChannelFilter): a Kaiser low-pass (kaiserord:
//                                          kChannelAttenuationDb, a transition of a quarter of the
//                                          bandwidth) moved to the carrier (complex taps
//                                          h[m]·exp(j2π·carrier·m/fs)), every D-th output only,
//                                          then turned back to 0 Hz (exp(−j2π·carrier·kD/fs),
//                                          the phase exact at any index k)
//   demodulator                            Demodulator (am, fm narrow/wide, usb, lsb, cw)
//   AM level                               am only: divided by the carrier's level (a one-pole
//                                          mean of |x|, 0.1 s), so that the audio is the
//                                          modulation index whatever the signal's strength
//   squelch                                silence while the channel's power is below the
//                                          threshold (decided per 20 ms block of the channel)
//   volume                                 Gain, in dB
//   resample to the audio rate             Resampler (scipy's resample_poly), then clipped to ±1
//
// The rates: the channel rate fs/D is the lowest that holds the filter's band (its stopband
// edge below half the rate, so anything that aliases is attenuated by the design's attenuation)
// and what the demodulator needs (its deviation, its sideband filter, the beat tone), and at
// least 8 kHz; among the decimations that give at least that rate, the one whose resampling
// ratio to the audio rate has the smallest terms is taken (the cheapest resampler).
//
// Bandwidth and carrier (ChannelSettings): am, nfm, wfm and cw hear carrier ± bandwidth/2; usb
// hears [carrier, carrier + bandwidth], lsb [carrier − bandwidth, carrier] (the suppressed
// carrier sits at the band's edge), with the sideband filter's low edge at 300 Hz.
//
// retune(): a new carrier or bandwidth that keeps the chain's rates and demodulator replaces the
// filter's taps while running (set_taps, FirFilter's or CudaFir's: exact, its input history kept), so the
// audio goes on without the new filter's start-up; the outputs after the switch equal those of
// a receiver built for the new channel over the same input. Otherwise the caller builds a new
// receiver.
//
// The channel filter runs on the CPU (FirFilter, one thread) or, given a device, on the GPU (the
// fir stage's CudaFir, gui/cuda/gpu_channel_filter.hpp): the input is the heaviest part of the
// chain (every input item passes through the filter), so it goes where the viewer's spectra are
// computed; what follows runs on the CPU at the channel rate (8 kHz to a few hundred kHz), a few
// thousand samples per call, less work than a kernel launch and its copies would cost. A GPU
// that cannot be set up leaves the filter on the CPU, and describe() says why.
//
// Every engine keeps exact state across calls and the squelch decides on fixed blocks of the
// channel's samples, so the outputs do not depend on how the input is cut. process() never
// allocates: the buffers are sized for `max_input_items` at construction.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../pipeline/demodulators.hpp"
#include "../pipeline/exact_phase.hpp"
#include "../pipeline/filter_taps.hpp"
#include "../pipeline/stream_info.hpp"

namespace prism {
template <typename Real>
class BasicResampler;
using Resampler = BasicResampler<float>;
}  // namespace prism

namespace prism::view {

enum class Demodulation { am, nfm, wfm, usb, lsb, cw };

// "am", "nfm", "wfm", "usb", "lsb", "cw".
std::string_view demodulation_name(Demodulation d);
std::optional<Demodulation> parse_demodulation(std::string_view name);
std::string demodulation_names_help();  // "am, nfm, wfm, usb, lsb or cw"

// The bandwidths a demodulation takes (Hz), and the one it starts with.
struct BandwidthRange {
  double min_hz = 0, default_hz = 0, max_hz = 0;
};
BandwidthRange bandwidth_range(Demodulation d);

// The filter's stopband attenuation: a tone outside the channel (beyond the transition) comes
// through at least this much weaker.
inline constexpr double kChannelAttenuationDb = 70.0;

struct ChannelSettings {
  Demodulation demodulation = Demodulation::am;
  double carrier_hz = 0.0;    // baseband Hz (the input's centre frequency not included)
  double bandwidth_hz = 10e3;
  std::optional<double> squelch_db;  // channel power (dB re full scale) below which it is silent
  double volume_db = 0.0;
};

// The band the channel hears (baseband Hz, low < high).
std::pair<double, double> channel_band(const ChannelSettings& settings);

struct ChannelPlan {
  double carrier_hz = 0;       // the shift
  double cutoff_hz = 0;        // the low-pass's edge (−6 dB), about the carrier
  double transition_hz = 0;    // around the edge
  double attenuation_db = 0;   // beyond the edge + transition/2
  std::size_t taps = 0;
  std::size_t decimation = 1;
  double channel_rate = 0;     // input rate / decimation
  double audio_rate = 0;
  std::uint64_t up = 1, down = 1;  // channel rate → audio rate
  DemodulatorSpec demodulator;
};

// How an error names a view setting, given its key ("listen_bandwidth_hz"): as view.json and
// scripts spell it, or as the command line's option.
using SettingNamer = std::function<std::string(std::string_view key)>;

// The plan for `settings` on `input` (its rate and whether it is complex). Throws UsageError
// naming the view setting (`name` of listen_bandwidth_hz, listen_hz, demodulator) when the
// channel does not fit: a bandwidth out of the demodulation's range, a channel rate the input
// cannot give, a carrier outside the input's band, a filter longer than prism designs.
ChannelPlan plan_channel(const ChannelSettings& settings, const StreamInfo& input, double audio_rate,
                         const SettingNamer& name);

// The channel filter's engine (FirFilter's calls): input and output in host memory, and the exact
// taps switch of FirFilter::set_taps (on a GPU it may wait for the copy of the previous switch).
class ChannelFilter {
 public:
  virtual ~ChannelFilter() = default;
  virtual std::size_t max_output(std::size_t n) const = 0;
  virtual std::size_t process(const float* in, std::size_t n, float* out) = 0;
  virtual void set_taps(const FilterTaps& taps) = 0;
  virtual std::string where() const = 0;  // "the CPU", "GPU 0"
};

class ChannelReceiver {
 public:
  // input: the stream (any format, any channels); input_channel: the one heard. Plans
  // (plan_channel's errors), designs the filter and allocates for chunks of up to
  // max_input_items frames. gpu_device: the channel filter on that CUDA device (see above).
  ChannelReceiver(const ChannelSettings& settings, const StreamInfo& input, unsigned input_channel,
                  double audio_rate, std::size_t max_input_items, std::optional<int> gpu_device = std::nullopt);
  ~ChannelReceiver();
  ChannelReceiver(const ChannelReceiver&) = delete;
  ChannelReceiver& operator=(const ChannelReceiver&) = delete;

  const ChannelSettings& settings() const { return settings_; }
  // A new channel (carrier, bandwidth; the demodulation, volume and squelch as they are): true
  // when the taps were replaced (see above), false when it needs a new receiver. Throws
  // plan_channel's UsageError when the channel does not fit the input.
  bool retune(const ChannelSettings& next);
  std::uint64_t retunes() const { return retunes_; }
  // Volume and squelch change between calls without touching the chain's state.
  void set_volume_db(double volume_db);
  void set_squelch_db(std::optional<double> squelch_db);
  const ChannelPlan& plan() const { return plan_; }
  // The channel's I/Q: cf32 at the channel rate, centred on the carrier (centre frequency
  // = the input's + carrier).
  StreamInfo iq_info() const;
  // The audio: f32, one channel, at the audio rate.
  StreamInfo audio_info() const;
  // "am 10 kHz: 893 taps on GPU 0, /15 to 16 kHz, 1/3 to 48 kHz".
  std::string describe() const;
  // Where the channel filter runs: "the CPU", "GPU 0", or "the CPU (GPU 0: <why not>)".
  const std::string& filter_place() const { return filter_place_; }
  bool filter_on_gpu() const { return filter_on_gpu_; }

  struct Output {
    const float* iq = nullptr;  // (re, im) pairs
    std::size_t iq_items = 0;
    const float* audio = nullptr;
    std::size_t audio_items = 0;
  };
  // n frames of the input, in its native format (n <= max_input_items). The pointers stay
  // valid until the next call.
  Output process(const std::byte* frames, std::size_t n);

  // The channel's power over the last complete 20 ms block, dB re full scale (−inf before one).
  double level_db() const { return level_db_; }
  bool squelched() const { return squelched_; }
  // Since construction: input frames in, channel I/Q samples and audio samples out.
  std::uint64_t frames_in() const { return frames_in_; }
  std::uint64_t iq_out() const { return iq_out_; }
  std::uint64_t audio_out() const { return audio_out_; }

 private:
  ChannelSettings settings_;
  ChannelPlan plan_;
  StreamInfo input_;
  unsigned input_channel_ = 0;
  std::size_t max_input_items_ = 0;
  static FilterTaps channel_taps(const ChannelPlan& plan, double sample_rate);
  static constexpr std::size_t kMaxRetuneTaps = std::size_t{1} << 20;

  std::unique_ptr<ChannelFilter> filter_;
  std::string filter_place_;
  bool filter_on_gpu_ = false;
  ExactPhase carrier_phase_{0.0, 1.0};
  std::uint64_t retunes_ = 0;
  std::size_t max_taps_ = 0;
  std::unique_ptr<Demodulator> demodulator_;
  std::unique_ptr<Gain> volume_;
  std::unique_ptr<Resampler> resampler_;
  std::vector<std::byte> gathered_;  // the channel's samples of a multi-channel chunk
  std::vector<float> floats_, iq_, demodulated_, audio_;
  // AM level: one-pole mean of |x|.
  double carrier_level_ = 0, carrier_alpha_ = 0;
  // Squelch blocks.
  std::size_t block_items_ = 1, block_filled_ = 0;
  double block_power_ = 0;
  double level_db_ = -INFINITY;
  bool squelched_ = false;
  std::uint64_t frames_in_ = 0, iq_out_ = 0, audio_out_ = 0;
};

}  // namespace prism::view
