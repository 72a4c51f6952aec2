// ChannelReceiver (see channel_receiver.hpp): the plan of rates and filters, and the chain.
#include "gui/channel_receiver.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/exact_phase.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/format.hpp"
#include "pipeline/resampler.hpp"

#if PRISM_HAVE_CUDA
#include "gui/cuda/gpu_channel_filter.hpp"
#endif

namespace prism::view {

namespace {

constexpr double kMinChannelRate = 8000.0;
constexpr double kAmLevelSeconds = 0.1;
constexpr double kSquelchBlockSeconds = 0.02;
constexpr double kSidebandLowHz = 300.0;
constexpr double kSidebandTransitionHz = 200.0;
constexpr double kBeatHz = 700.0;

std::string hz_text(double hz) {
  char text[48];
  if (std::abs(hz) >= 1e6) std::snprintf(text, sizeof text, "%.6g MHz", hz / 1e6);
  else if (std::abs(hz) >= 1e3) std::snprintf(text, sizeof text, "%.6g kHz", hz / 1e3);
  else std::snprintf(text, sizeof text, "%.6g Hz", hz);
  return text;
}

bool single_sideband(Demodulation d) { return d == Demodulation::usb || d == Demodulation::lsb; }

class CpuChannelFilter final : public ChannelFilter {
 public:
  explicit CpuChannelFilter(const FirSpec& spec) : filter_(spec) {}
  std::size_t max_output(std::size_t n) const override { return filter_.max_output(n); }
  std::size_t process(const float* in, std::size_t n, float* out) override { return filter_.process(in, n, out); }
  void set_taps(const FilterTaps& taps) override { filter_.set_taps(taps); }
  std::string where() const override { return "the CPU"; }

 private:
  FirFilter filter_;
};

}  // namespace

std::string_view demodulation_name(Demodulation d) {
  switch (d) {
    case Demodulation::am: return "am";
    case Demodulation::nfm: return "nfm";
    case Demodulation::wfm: return "wfm";
    case Demodulation::usb: return "usb";
    case Demodulation::lsb: return "lsb";
    case Demodulation::cw: return "cw";
  }
  return "?";
}

std::optional<Demodulation> parse_demodulation(std::string_view name) {
  for (Demodulation d : {Demodulation::am, Demodulation::nfm, Demodulation::wfm, Demodulation::usb,
                         Demodulation::lsb, Demodulation::cw})
    if (name == demodulation_name(d)) return d;
  return std::nullopt;
}

std::string demodulation_names_help() { return "am, nfm, wfm, usb, lsb or cw"; }

BandwidthRange bandwidth_range(Demodulation d) {
  switch (d) {
    case Demodulation::am: return {1e3, 10e3, 50e3};
    case Demodulation::nfm: return {2.5e3, 12.5e3, 50e3};
    case Demodulation::wfm: return {50e3, 200e3, 300e3};
    case Demodulation::usb:
    case Demodulation::lsb: return {500.0, 2.8e3, 10e3};
    case Demodulation::cw: return {50.0, 500.0, 3e3};
  }
  return {};
}

std::pair<double, double> channel_band(const ChannelSettings& s) {
  switch (s.demodulation) {
    case Demodulation::usb: return {s.carrier_hz, s.carrier_hz + s.bandwidth_hz};
    case Demodulation::lsb: return {s.carrier_hz - s.bandwidth_hz, s.carrier_hz};
    default: return {s.carrier_hz - s.bandwidth_hz / 2, s.carrier_hz + s.bandwidth_hz / 2};
  }
}

ChannelPlan plan_channel(const ChannelSettings& s, const StreamInfo& input, double audio_rate,
                         const SettingNamer& name) {
  const double fs = input.sample_rate;
  const bool complex_input = is_complex(input.format);
  const std::string demodulation(demodulation_name(s.demodulation));
  const BandwidthRange range = bandwidth_range(s.demodulation);
  const double b = s.bandwidth_hz;
  if (!(b >= range.min_hz && b <= range.max_hz))
    throw UsageError(name("listen_bandwidth_hz") + " " + number_text(b) + " is out of range for " + demodulation +
                     ": " + number_text(range.min_hz) + " ... " + number_text(range.max_hz) + " Hz");
  const double band_low = complex_input ? -fs / 2 : 0.0, band_high = fs / 2;
  if (!(s.carrier_hz >= band_low && s.carrier_hz <= band_high))
    throw UsageError(name("listen_hz") + " " + number_text(s.carrier_hz + input.center_frequency) +
                     " Hz is outside the input's band, " + number_text(band_low + input.center_frequency) + " ... " +
                     number_text(band_high + input.center_frequency) + " Hz");
  if (!(audio_rate > 0) || !std::isfinite(audio_rate))
    throw UsageError("the audio rate " + number_text(audio_rate) + " Hz is not a positive number");

  ChannelPlan p;
  p.carrier_hz = s.carrier_hz;
  p.audio_rate = audio_rate;
  p.attenuation_db = kChannelAttenuationDb;
  p.transition_hz = b / 4;
  // SSB: the filter passes both sidebands whole (±b) and the demodulator's sideband filter
  // makes the band's edges; otherwise its −6 dB edges are the band's.
  p.cutoff_hz = single_sideband(s.demodulation) ? b + p.transition_hz / 2 : b / 2;

  DemodulatorSpec& d = p.demodulator;
  double needed = 2 * (p.cutoff_hz + p.transition_hz / 2);  // the stopband's edge at half the rate
  switch (s.demodulation) {
    case Demodulation::am: d.kind = DemodulatorKind::am; break;
    case Demodulation::nfm:
      d.kind = DemodulatorKind::fm;
      d.fm_bandwidth = FmBandwidth::narrow;
      needed = std::max(needed, 2 * 5000.0);  // the deviation within half the rate
      break;
    case Demodulation::wfm:
      d.kind = DemodulatorKind::fm;
      d.fm_bandwidth = FmBandwidth::wide;
      needed = std::max(needed, 2 * 75000.0);
      break;
    case Demodulation::usb:
    case Demodulation::lsb:
      d.kind = s.demodulation == Demodulation::usb ? DemodulatorKind::usb : DemodulatorKind::lsb;
      d.low_hz = kSidebandLowHz;
      d.high_hz = b;
      d.transition_hz = kSidebandTransitionHz;
      d.attenuation_db = kChannelAttenuationDb;
      needed = std::max(needed, 2 * (b + kSidebandTransitionHz / 2));
      break;
    case Demodulation::cw:
      d.kind = DemodulatorKind::cw;
      d.bfo_hz = kBeatHz;
      needed = std::max(needed, 2 * (kBeatHz + p.cutoff_hz + p.transition_hz / 2));  // the highest pitch
      break;
  }
  needed = std::max(needed, kMinChannelRate);
  if (needed > fs)
    throw UsageError(name("listen_bandwidth_hz") + ": a " + hz_text(b) + " " + demodulation +
                     " channel needs an input rate of at least " + hz_text(needed) + "; this input's is " +
                     hz_text(fs));

  // The decimation: the channel rate at least `needed`; of those from half the largest
  // decimation up, the one whose resampling ratio has the smallest terms.
  const auto largest = static_cast<std::size_t>(std::floor(fs / needed));
  std::optional<ResampleRatio> best;
  for (std::size_t decimation = std::max<std::size_t>(1, largest / 2); decimation <= largest; ++decimation) {
    ResampleRatio ratio;
    try {
      ratio = resample_ratio(fs, audio_rate * static_cast<double>(decimation));  // (fs/D) → audio
    } catch (const UsageError&) {
      continue;
    }
    if (!best || std::max(ratio.up, ratio.down) <= std::max(best->up, best->down)) {
      best = ratio;
      p.decimation = decimation;
    }
  }
  if (!best)
    throw UsageError("the channel cannot be resampled from the input's rate " + hz_text(fs) + " to the audio rate " +
                     hz_text(audio_rate) + " (no ratio of whole numbers up to 65536)");
  p.up = best->up;
  p.down = best->down;
  p.channel_rate = fs / static_cast<double>(p.decimation);
  d.sample_rate = p.channel_rate;
  return p;
}

ChannelReceiver::ChannelReceiver(const ChannelSettings& settings, const StreamInfo& input, unsigned input_channel,
                                 double audio_rate, std::size_t max_input_items, std::optional<int> gpu_device)
    : settings_(settings), input_(input), input_channel_(input_channel), max_input_items_(max_input_items) {
  plan_ = plan_channel(settings, input, audio_rate, [](std::string_view key) { return std::string(key); });
  if (input_channel >= input.channels)
    throw UsageError("channel " + std::to_string(input_channel) + " is out of range: the input has " +
                     std::to_string(input.channels) + " channel(s)");
  const bool complex_input = is_complex(input.format);

  FirSpec fir;
  fir.taps = channel_taps(plan_, input.sample_rate);
  plan_.taps = fir.taps.size();
  // Room for a narrower channel's longer filter at the same decimation (retune()).
  fir.max_taps = max_taps_ = std::min(kMaxRetuneTaps, std::max(plan_.taps, 2 * plan_.taps));
  fir.complex_input = complex_input;
  fir.sample_rate = input.sample_rate;
  fir.decimation = plan_.decimation;
  fir.threads = 1;  // the viewer's other threads need the other cores
  if (gpu_device) {
#if PRISM_HAVE_CUDA
    // Whatever keeps the GPU from taking the filter (no device, a length it refuses) leaves it on
    // the CPU; an error of the CPU's filter below is the receiver's.
    try {
      filter_ = std::make_unique<GpuChannelFilter>(fir, *gpu_device, max_input_items);
      filter_on_gpu_ = true;
    } catch (const std::exception& e) {
      filter_place_ = "the CPU (GPU " + std::to_string(*gpu_device) + ": " + e.what() + ")";
    }
#else
    filter_place_ = "the CPU (GPU " + std::to_string(*gpu_device) + ": this prism was built without CUDA)";
#endif
  }
  if (!filter_) filter_ = std::make_unique<CpuChannelFilter>(fir);
  if (filter_place_.empty()) filter_place_ = filter_->where();
  carrier_phase_ = ExactPhase(plan_.carrier_hz, input.sample_rate);
  demodulator_ = std::make_unique<Demodulator>(plan_.demodulator);
  volume_ = std::make_unique<Gain>(GainSpec{settings.volume_db, true, false});
  ResamplerSpec resample;
  resample.up = plan_.up;
  resample.down = plan_.down;
  resampler_ = std::make_unique<Resampler>(resample);

  const std::size_t components = is_complex(input.format) ? 2 : 1;
  const bool direct = input.channels == 1 && (input.format == SampleFormat::f32 || input.format == SampleFormat::cf32);
  floats_.assign(direct ? 0 : max_input_items * components, 0.0f);
  gathered_.assign(input.channels > 1 ? max_input_items * sample_bytes(input.format) : 0, std::byte{0});
  const std::size_t channel_items = filter_->max_output(max_input_items);
  iq_.assign(2 * channel_items, 0.0f);
  demodulated_.assign(channel_items, 0.0f);
  audio_.assign(resampler_->max_output(channel_items), 0.0f);
  carrier_alpha_ = 1.0 - std::exp(-1.0 / (kAmLevelSeconds * plan_.channel_rate));
  block_items_ = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(kSquelchBlockSeconds * plan_.channel_rate)));
}

ChannelReceiver::~ChannelReceiver() = default;

FilterTaps ChannelReceiver::channel_taps(const ChannelPlan& plan, double sample_rate) {
  FilterDesignSpec design;
  design.band = BandKind::lowpass;
  design.edges = {plan.cutoff_hz};
  design.sample_rate = sample_rate;
  design.transition = plan.transition_hz;
  design.attenuation = plan.attenuation_db;
  std::vector<double> lowpass;
  try {
    lowpass = design_filter(design).taps.real;
  } catch (const FilterDesignError& e) {
    throw UsageError("listen_bandwidth_hz: the channel's filter cannot be designed (" + std::string(e.what()) + ")");
  }
  // The band-pass about the carrier: h[m]·exp(j2π·carrier·m/fs).
  const ExactPhase phase(plan.carrier_hz, sample_rate);
  std::vector<std::complex<double>> taps(lowpass.size());
  for (std::size_t m = 0; m < taps.size(); ++m) taps[m] = lowpass[m] * phase.phasor(m, +1);
  return FilterTaps::from_complex(std::move(taps));
}

bool ChannelReceiver::retune(const ChannelSettings& next) {
  const ChannelPlan plan =
      plan_channel(next, input_, plan_.audio_rate, [](std::string_view key) { return std::string(key); });
  const DemodulatorSpec& a = plan.demodulator;
  const DemodulatorSpec& b = plan_.demodulator;
  const bool same_chain = plan.decimation == plan_.decimation && plan.up == plan_.up && plan.down == plan_.down &&
                          a.kind == b.kind && a.fm_bandwidth == b.fm_bandwidth && a.low_hz == b.low_hz &&
                          a.high_hz == b.high_hz && a.bfo_hz == b.bfo_hz;
  if (!same_chain) return false;
  const FilterTaps taps = channel_taps(plan, input_.sample_rate);
  if (taps.size() > max_taps_) return false;
  filter_->set_taps(taps);
  const double volume_db = settings_.volume_db;
  const std::optional<double> squelch_db = settings_.squelch_db;
  settings_ = next;
  settings_.volume_db = volume_db;
  settings_.squelch_db = squelch_db;
  plan_ = plan;
  plan_.taps = taps.size();
  carrier_phase_ = ExactPhase(plan_.carrier_hz, input_.sample_rate);
  ++retunes_;
  return true;
}

void ChannelReceiver::set_volume_db(double volume_db) {
  if (volume_db == settings_.volume_db) return;
  volume_ = std::make_unique<Gain>(GainSpec{volume_db, true, false});  // Gain holds no state
  settings_.volume_db = volume_db;
}

void ChannelReceiver::set_squelch_db(std::optional<double> squelch_db) { settings_.squelch_db = squelch_db; }

StreamInfo ChannelReceiver::iq_info() const {
  StreamInfo info;
  info.format = SampleFormat::cf32;
  info.sample_rate = plan_.channel_rate;
  info.center_frequency = input_.center_frequency + plan_.carrier_hz;
  info.channels = 1;
  info.live = input_.live;
  return info;
}

StreamInfo ChannelReceiver::audio_info() const {
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = plan_.audio_rate;
  info.channels = 1;
  info.live = input_.live;
  return info;
}

std::string ChannelReceiver::describe() const {
  char rates[120];
  std::snprintf(rates, sizeof rates, ", /%zu to %s, %llu/%llu to %s", plan_.decimation,
                hz_text(plan_.channel_rate).c_str(), static_cast<unsigned long long>(plan_.up),
                static_cast<unsigned long long>(plan_.down), hz_text(plan_.audio_rate).c_str());
  return std::string(demodulation_name(settings_.demodulation)) + " " + hz_text(settings_.bandwidth_hz) + ": " +
         std::to_string(plan_.taps) + " taps on " + filter_place_ + rates;
}

ChannelReceiver::Output ChannelReceiver::process(const std::byte* frames, std::size_t n) {
  if (n > max_input_items_)
    throw std::logic_error("ChannelReceiver::process: more frames than it was made for");
  frames_in_ += n;
  const float* x = reinterpret_cast<const float*>(frames);
  if (!floats_.empty()) {
    const std::byte* native = frames;
    if (!gathered_.empty()) {  // the heard channel's samples, side by side
      const std::size_t frame = input_.frame_bytes(), bytes = sample_bytes(input_.format);
      const std::byte* from = frames + input_channel_ * bytes;
      for (std::size_t i = 0; i < n; ++i) std::memcpy(gathered_.data() + i * bytes, from + i * frame, bytes);
      native = gathered_.data();
    }
    convert_to_float(input_.format, native, n * components_per_sample(input_.format), floats_.data());
    x = floats_.data();
  }
  const std::size_t m = filter_->process(x, n, iq_.data());
  // The band-pass's output is the channel times exp(j2π·carrier·t/fs), t = k·D the input index
  // of output k: turned back to 0 Hz, the phase exact at any index.
  if (m > 0) {
    const std::complex<double> step = std::polar(1.0, -2 * M_PI * plan_.carrier_hz * static_cast<double>(plan_.decimation) /
                                                          input_.sample_rate);
    std::complex<double> rotation = carrier_phase_.phasor(iq_out_ * plan_.decimation, -1);
    for (std::size_t i = 0; i < m; ++i) {
      const std::complex<double> v = std::complex<double>(iq_[2 * i], iq_[2 * i + 1]) * rotation;
      iq_[2 * i] = static_cast<float>(v.real());
      iq_[2 * i + 1] = static_cast<float>(v.imag());
      rotation *= step;
    }
  }
  demodulator_->process(iq_.data(), m, demodulated_.data());
  const bool am = settings_.demodulation == Demodulation::am;
  for (std::size_t i = 0; i < m; ++i) {
    const double re = iq_[2 * i], im = iq_[2 * i + 1];
    const double power = re * re + im * im;
    if (am) {
      const double magnitude = std::sqrt(power);
      carrier_level_ = carrier_level_ == 0 ? magnitude : carrier_level_ + carrier_alpha_ * (magnitude - carrier_level_);
      demodulated_[i] = carrier_level_ > 0 ? static_cast<float>(demodulated_[i] / carrier_level_) : 0.0f;
    }
    if (squelched_) demodulated_[i] = 0.0f;
    block_power_ += power;
    if (++block_filled_ == block_items_) {  // the next block is heard or not by this one's level
      level_db_ = 10.0 * std::log10(std::max(block_power_ / static_cast<double>(block_items_), 1e-30));
      squelched_ = settings_.squelch_db.has_value() && level_db_ < *settings_.squelch_db;
      block_power_ = 0;
      block_filled_ = 0;
    }
  }
  volume_->process(demodulated_.data(), m, demodulated_.data());
  const std::size_t a = resampler_->process(demodulated_.data(), m, audio_.data());
  for (std::size_t i = 0; i < a; ++i) audio_[i] = std::clamp(audio_[i], -1.0f, 1.0f);
  iq_out_ += m;
  audio_out_ += a;
  return {iq_.data(), m, audio_.data(), a};
}

}  // namespace prism::view
