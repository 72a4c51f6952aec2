// The built-in test signal (see generator.hpp): spec parsing, validation and synthesis.
#include "sources/generator.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numbers>
#include <set>
#include <system_error>
#include <thread>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"

namespace prism {

namespace {

// Far above any real converter; keeps every sample count and sweep period in range.
constexpr double kMaxRate = 1e12;

// The noise's values lie within +-kNoisePeak standard deviations: Box-Muller on uniforms of 53
// bits gives a radius of at most sqrt(-2 ln 2^-53) = 8.57.
constexpr double kNoisePeak = 8.6;

constexpr std::string_view kKnownKeys =
    "rate, duration, tone, chirp, noise, complex, seed, format, channels, live, stall";

constexpr unsigned kMaxGeneratorChannels = 1024;

bool generator_writes(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32:
    case SampleFormat::cf32:
    case SampleFormat::f64:
    case SampleFormat::cf64:
    case SampleFormat::i16:
    case SampleFormat::ci16:
    case SampleFormat::i8:
    case SampleFormat::ci8:
    case SampleFormat::u8:
    case SampleFormat::cu8: return true;
    default: return false;
  }
}

constexpr std::string_view kGeneratorFormats = "f32, cf32, f64, cf64, i16, ci16, i8, ci8, u8 or cu8";

// How far a live generator's reader may fall behind before samples are lost: the buffer of a
// device that is not read in time.
constexpr double kLiveBuffer_s = 1.0;
// A live generator delivers in periods of this length, as a sound card does: a read waits for
// a period's samples (or fewer when it asks for fewer) and returns those due.
constexpr double kLivePeriod_s = 0.01;
// The longest a waiting live read sleeps before it looks for an interrupt again.
constexpr auto kLiveWaitStep = std::chrono::milliseconds(10);

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses a whole string as a finite double, with an optional k/M/G multiplier when
// `allow_suffix`. nullopt when it is not one.
std::optional<double> parse_number(std::string_view text, bool allow_suffix) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double scale = 1.0;
  if (allow_suffix) {
    switch (text.back()) {
      case 'k': case 'K': scale = 1e3; break;
      case 'M': scale = 1e6; break;
      case 'G': scale = 1e9; break;
      default: break;
    }
    if (scale != 1.0) text.remove_suffix(1);
  }
  double value = 0.0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  value *= scale;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

[[noreturn]] void fail(const std::string& message) { throw UsageError("gen: " + message); }

std::string item_text(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + std::string(value);
}

double require_number(std::string_view key, std::string_view value, std::string_view part,
                      bool allow_suffix, std::string_view expected) {
  const auto v = parse_number(part, allow_suffix);
  if (!v)
    fail(item_text(key, value) + ": '" + std::string(trim(part)) + "' is not a number (expected " +
         std::string(expected) + ")");
  return *v;
}

// Splits "F0-F1" at the minus that separates the two numbers: not a leading sign, not an
// exponent's sign ("1e-3"), not the sign of F1 ("100--200").
std::optional<std::size_t> chirp_separator(std::string_view range) {
  for (std::size_t i = 1; i < range.size(); ++i) {
    if (range[i] != '-') continue;
    const char before = range[i - 1];
    if (before == 'e' || before == 'E' || before == '-' || before == '+') continue;
    return i;
  }
  return std::nullopt;
}

// "FREQ" or "FREQ@AMP" -> (frequency, amplitude).
std::pair<std::string_view, std::optional<std::string_view>> split_amplitude(
    std::string_view value) {
  const auto at = value.find('@');
  if (at == std::string_view::npos) return {value, std::nullopt};
  return {value.substr(0, at), value.substr(at + 1)};
}

bool parse_flag(std::string_view key, std::string_view value) {
  if (value == "1" || value == "true" || value == "yes" || value == "on") return true;
  if (value == "0" || value == "false" || value == "no" || value == "off") return false;
  fail(item_text(key, value) + ": expected " + std::string(key) + " alone, or " +
       std::string(key) + "=true|false");
}

void add_default_components(GeneratorSpec& spec) {
  // The spec's default signal at 48 kHz, scaled with the rate so it fits below Nyquist.
  const double scale = spec.sample_rate / 48000.0;
  spec.tones = {{1000.0 * scale, 0.5}, {6000.0 * scale, 0.25}};
  spec.chirps = {{200.0 * scale, 20000.0 * scale, 0.3}};
  spec.noise_stddev = 0.01;
}

void check_frequency(const GeneratorSpec& spec, std::string_view what, double f) {
  const double nyquist = spec.sample_rate / 2.0;
  const std::string at_rate = " Hz at rate=" + number_text(spec.sample_rate) + ")";
  if (spec.complex_output) {
    if (std::abs(f) > nyquist)
      fail(std::string(what) + ": " + number_text(f) + " Hz is outside +-rate/2 (+-" +
           number_text(nyquist) + at_rate);
  } else {
    if (f < 0)
      fail(std::string(what) + ": " + number_text(f) +
           " Hz is negative; negative frequencies need complex output (add the key complex)");
    if (f > nyquist)
      fail(std::string(what) + ": " + number_text(f) + " Hz is above the Nyquist frequency (" +
           number_text(nyquist) + at_rate);
  }
}

void check_amplitude(std::string_view what, double a) {
  if (!(a >= 0.0) || !std::isfinite(a))
    fail(std::string(what) + ": amplitude " + number_text(a) + " must be >= 0");
}

// The range checks shared by the parser and the constructor (for specs built in code).
void validate(const GeneratorSpec& spec) {
  if (!(spec.sample_rate > 0.0) || !std::isfinite(spec.sample_rate))
    fail("rate=" + number_text(spec.sample_rate) + ": the rate must be > 0 Hz");
  if (spec.sample_rate > kMaxRate)
    fail("rate=" + number_text(spec.sample_rate) + ": the rate must be at most " +
         number_text(kMaxRate) + " Hz");
  if (!(spec.duration_s >= 0.0) || !std::isfinite(spec.duration_s))
    fail("duration=" + number_text(spec.duration_s) +
         ": the duration must be >= 0 seconds (0 or inf: endless)");
  if (spec.stall_s && !spec.live) fail("stall=" + number_text(*spec.stall_s) + " needs live");
  if (spec.stall_s && !(*spec.stall_s >= 0.0 && std::isfinite(*spec.stall_s)))
    fail("stall=" + number_text(*spec.stall_s) + ": the time must be >= 0 seconds");
  if (!spec.endless()) {
    const double samples = std::round(spec.duration_s * spec.sample_rate);
    if (samples < 1.0)
      fail("duration=" + number_text(spec.duration_s) + " is shorter than one sample at rate=" +
           number_text(spec.sample_rate));
    if (samples > 9.0e18)
      fail("duration=" + number_text(spec.duration_s) + " is too long (more than 9e18 samples)");
  } else if (!spec.chirps.empty() &&
             std::round(GeneratorSpec::kEndlessChirpPeriod_s * spec.sample_rate) < 1.0) {
    fail("rate=" + number_text(spec.sample_rate) + " is too low for an endless chirp");
  }
  for (const auto& tone : spec.tones) {
    const std::string what = "tone=" + number_text(tone.frequency_hz);
    check_frequency(spec, what, tone.frequency_hz);
    check_amplitude(what, tone.amplitude);
  }
  for (const auto& chirp : spec.chirps) {
    const std::string what =
        "chirp=" + number_text(chirp.start_hz) + "-" + number_text(chirp.end_hz);
    check_frequency(spec, what, chirp.start_hz);
    check_frequency(spec, what, chirp.end_hz);
    check_amplitude(what, chirp.amplitude);
  }
  if (!(spec.noise_stddev >= 0.0) || !std::isfinite(spec.noise_stddev))
    fail("noise=" + number_text(spec.noise_stddev) + ": the standard deviation must be >= 0");
  // Every sample must be finite in the format written: float64 for f64/cf64, float32 for the
  // others (whose values are rounded to float, or scaled and clipped to integers). The samples
  // are sums in double whose rounding can pass the bound of the amplitudes by a few units in the
  // last place, which float32's rounding hides but float64's does not: f64 keeps a margin.
  const bool wide = spec.format && (*spec.format == SampleFormat::f64 || *spec.format == SampleFormat::cf64);
  const double largest = wide ? std::numeric_limits<double>::max() * (1 - 0x1p-30) : std::numeric_limits<float>::max();
  double peak = kNoisePeak * spec.noise_stddev;
  for (const auto& tone : spec.tones) peak += tone.amplitude;
  for (const auto& chirp : spec.chirps) peak += chirp.amplitude;
  if (!(peak <= largest))
    fail("the amplitudes and noise add up to a peak " +
         (std::isfinite(peak) ? "of " + number_text(peak) + ", " : std::string()) + "beyond what " +
         (wide ? "float64" : "float32") + " samples hold (" + number_text(largest) + ")");
  if (spec.format) {
    const SampleFormat f = *spec.format;
    if (!generator_writes(f))
      fail("format=" + std::string(format_name(f)) + " is not supported (the generator writes " +
           std::string(kGeneratorFormats) + ")");
    if (spec.complex_output != is_complex(f))
      fail("format=" + std::string(format_name(f)) + " is " +
           (is_complex(f) ? "complex but the signal is real" : "real but the signal is complex") +
           " (use a complex format such as cf32 with complex, a real one such as f32 without)");
  }
  if (spec.channels < 1 || spec.channels > kMaxGeneratorChannels)
    fail("channels=" + std::to_string(spec.channels) + ": the channel count must be between 1 and " +
         std::to_string(kMaxGeneratorChannels));
}

// splitmix64's finaliser: a bijective 64-bit mix, used as a counter-based generator so the
// noise of sample n depends on n alone, not on the reads before it.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Two independent standard normal values for sample `n` (Box-Muller on two uniform values).
inline void gaussian_pair(std::uint64_t key, std::uint64_t n, double& z0, double& z1) {
  const std::uint64_t a = mix64(key + 2 * n);
  const std::uint64_t b = mix64(key + 2 * n + 1);
  const double u1 = static_cast<double>((a >> 11) + 1) * 0x1p-53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(b >> 11) * 0x1p-53;        // [0, 1)
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  z0 = r * std::cos(angle);
  z1 = r * std::sin(angle);
}

inline double fractional_part(double x) { return x - std::floor(x); }

template <typename T>
inline void store_le(std::byte* dst, T value) {
  std::memcpy(dst, &value, sizeof value);
  if constexpr (std::endian::native == std::endian::big) std::reverse(dst, dst + sizeof value);
}

}  // namespace

bool is_generator_spec(std::string_view input) {
  return input == "gen" || input.starts_with("gen:");
}

GeneratorSpec default_generator_spec() {
  GeneratorSpec spec;
  add_default_components(spec);
  return spec;
}

GeneratorSpec parse_generator_spec(std::string_view text) {
  if (!is_generator_spec(text))
    throw UsageError("not a generator spec: '" + std::string(text) +
                     "' (expected gen or gen:key=value,...)");
  std::string_view body = text.substr(3);
  if (!body.empty()) body.remove_prefix(1);  // the ':'
  if (trim(body).empty()) return default_generator_spec();

  GeneratorSpec spec;
  bool any_component = false;
  std::set<std::string, std::less<>> seen;

  while (true) {
    const auto comma = body.find(',');
    const std::string_view item = trim(body.substr(0, comma));
    if (item.empty())
      fail("empty item in '" + std::string(text) + "' (two commas in a row, or a trailing one?)");

    const auto eq = item.find('=');
    const std::string_view key = trim(item.substr(0, eq));
    const bool has_value = eq != std::string_view::npos;
    const std::string_view value = has_value ? trim(item.substr(eq + 1)) : std::string_view{};

    const bool repeatable = key == "tone" || key == "chirp";
    if (!repeatable && seen.count(key) != 0)
      fail("key '" + std::string(key) + "' is given twice");
    seen.emplace(key);

    auto need_value = [&](std::string_view syntax) {
      if (!has_value || value.empty())
        fail("key '" + std::string(key) + "' needs a value (" + std::string(syntax) + ")");
    };

    if (key == "rate") {
      need_value("rate=HZ, e.g. rate=48000 or rate=2.4M");
      spec.sample_rate = require_number(key, value, value, true, "rate=HZ, e.g. rate=48000");
      if (spec.sample_rate <= 0)
        fail(item_text(key, value) + ": the rate must be > 0 Hz");
    } else if (key == "duration") {
      need_value("duration=SECONDS, or inf for endless");
      if (value == "inf" || value == "infinite" || value == "infinity") {
        spec.duration_s = 0.0;
      } else {
        spec.duration_s =
            require_number(key, value, value, false, "duration=SECONDS, or inf for endless");
        if (spec.duration_s < 0)
          fail(item_text(key, value) + ": the duration must be >= 0 (0 or inf: endless)");
      }
    } else if (key == "tone") {
      const std::string_view syntax = "tone=FREQ[@AMP], e.g. tone=1000@0.5";
      need_value(syntax);
      const auto [freq, amp] = split_amplitude(value);
      GeneratorTone tone;
      tone.frequency_hz = require_number(key, value, freq, true, syntax);
      if (amp) tone.amplitude = require_number(key, value, *amp, false, syntax);
      if (tone.amplitude < 0) fail(item_text(key, value) + ": the amplitude must be >= 0");
      spec.tones.push_back(tone);
      any_component = true;
    } else if (key == "chirp") {
      const std::string_view syntax = "chirp=F0-F1[@AMP], e.g. chirp=200-20000@0.3";
      need_value(syntax);
      const auto [range, amp] = split_amplitude(value);
      const auto dash = chirp_separator(range);
      if (!dash)
        fail(item_text(key, value) + ": expected two frequencies F0-F1 (" + std::string(syntax) +
             ")");
      GeneratorChirp chirp;
      chirp.start_hz = require_number(key, value, range.substr(0, *dash), true, syntax);
      chirp.end_hz = require_number(key, value, range.substr(*dash + 1), true, syntax);
      if (amp) chirp.amplitude = require_number(key, value, *amp, false, syntax);
      if (chirp.amplitude < 0) fail(item_text(key, value) + ": the amplitude must be >= 0");
      spec.chirps.push_back(chirp);
      any_component = true;
    } else if (key == "noise") {
      need_value("noise=AMP, the standard deviation, e.g. noise=0.01");
      spec.noise_stddev = require_number(key, value, value, false, "noise=AMP, e.g. noise=0.01");
      if (spec.noise_stddev < 0)
        fail(item_text(key, value) + ": the standard deviation must be >= 0");
      any_component = true;
    } else if (key == "complex") {
      spec.complex_output = has_value ? parse_flag(key, value) : true;
    } else if (key == "live") {
      spec.live = has_value ? parse_flag(key, value) : true;
    } else if (key == "stall") {
      need_value("stall=SECONDS, with live");
      spec.stall_s = require_number(key, value, value, false, "stall=SECONDS, with live");
      if (!(*spec.stall_s >= 0))
        fail(item_text(key, value) + ": the time must be >= 0 seconds");
    } else if (key == "seed") {
      need_value("seed=N, an unsigned integer");
      std::uint64_t seed = 0;
      const auto result = std::from_chars(value.data(), value.data() + value.size(), seed);
      if (result.ec != std::errc() || result.ptr != value.data() + value.size())
        fail(item_text(key, value) + ": expected an unsigned integer below 2^64");
      spec.seed = seed;
    } else if (key == "format") {
      need_value("format=F, one of " + std::string(kGeneratorFormats));
      const auto format = parse_format(value);
      if (!format)
        fail(item_text(key, value) + ": unknown format (the generator writes " + std::string(kGeneratorFormats) +
             ")");
      spec.format = *format;
    } else if (key == "channels") {
      need_value("channels=N, 1 to " + std::to_string(kMaxGeneratorChannels));
      unsigned channels = 0;
      const auto result = std::from_chars(value.data(), value.data() + value.size(), channels);
      if (result.ec != std::errc() || result.ptr != value.data() + value.size() || channels < 1 ||
          channels > kMaxGeneratorChannels)
        fail(item_text(key, value) + ": expected a channel count from 1 to " + std::to_string(kMaxGeneratorChannels));
      spec.channels = channels;
    } else {
      fail("unknown key '" + std::string(key) + "' (known: " + std::string(kKnownKeys) + ")");
    }

    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }

  // A complex format asks for complex output; a clash with an explicit `complex=false` is
  // left for validate() to report.
  if (spec.format && is_complex(*spec.format) && seen.count("complex") == 0)
    spec.complex_output = true;
  if (!any_component) add_default_components(spec);
  validate(spec);
  return spec;
}

SampleFormat GeneratorSpec::output_format() const {
  if (format) return *format;
  return float_format(complex_output);
}

std::optional<std::uint64_t> GeneratorSpec::length_samples() const {
  if (endless()) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(duration_s * sample_rate));
}

std::string GeneratorSpec::to_string() const {
  std::string s = "gen:rate=" + number_text(sample_rate) +
                  ",duration=" + (endless() ? std::string("inf") : number_text(duration_s));
  for (const auto& tone : tones)
    s += ",tone=" + number_text(tone.frequency_hz) + "@" + number_text(tone.amplitude);
  for (const auto& chirp : chirps)
    s += ",chirp=" + number_text(chirp.start_hz) + "-" + number_text(chirp.end_hz) + "@" +
         number_text(chirp.amplitude);
  // noise=0 is written for a silent spec, which would otherwise parse as the default signal.
  if (noise_stddev > 0 || (tones.empty() && chirps.empty()))
    s += ",noise=" + number_text(noise_stddev);
  if (complex_output) s += ",complex";
  s += ",seed=" + std::to_string(seed);
  if (format) s += ",format=" + std::string(format_name(*format));
  if (channels != 1) s += ",channels=" + std::to_string(channels);
  if (live) s += ",live";
  if (stall_s) s += ",stall=" + number_text(*stall_s);
  return s;
}

std::string GeneratorSpec::describe() const {
  std::string s = number_text(sample_rate) + " Hz " + (complex_output ? "complex " : "real ") +
                  std::string(format_name(output_format())) + ", " +
                  (endless() ? std::string("endless") : number_text(duration_s) + " s") +
                  (live ? ", live-paced" : "") +
                  (stall_s ? ", stalls after " + number_text(*stall_s) + " s" : "");
  std::string parts;
  auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
  for (const auto& tone : tones)
    add("tone " + number_text(tone.frequency_hz) + " Hz @" + number_text(tone.amplitude));
  for (const auto& chirp : chirps)
    add("chirp " + number_text(chirp.start_hz) + "-" + number_text(chirp.end_hz) + " Hz @" +
        number_text(chirp.amplitude) + (endless() ? " every 10 s" : ""));
  if (noise_stddev > 0)
    add("noise sd " + number_text(noise_stddev) + " (seed " + std::to_string(seed) + ")");
  return s + ": " + (parts.empty() ? std::string("silence") : parts);
}

GeneratorSource::GeneratorSource(GeneratorSpec spec) : spec_(std::move(spec)) {
  validate(spec_);
  info_.format = spec_.output_format();
  info_.sample_rate = spec_.sample_rate;
  info_.channels = spec_.channels;
  info_.length = spec_.length_samples();
  info_.live = spec_.live;
  noise_key_ = mix64(spec_.seed);
  chirp_period_samples_ =
      spec_.endless()
          ? static_cast<std::uint64_t>(
                std::llround(GeneratorSpec::kEndlessChirpPeriod_s * spec_.sample_rate))
          : *info_.length;
  sample_buffer_.resize(2 * kChunkSamples);
  tone_steps_.resize(spec_.tones.size() * kChunkSamples);
  for (std::size_t t = 0; t < spec_.tones.size(); ++t) {
    const double cycles_per_sample = spec_.tones[t].frequency_hz / spec_.sample_rate;
    for (std::size_t j = 0; j < kChunkSamples; ++j) {
      const double phase = 2.0 * std::numbers::pi *
                           fractional_part(static_cast<double>(j) * cycles_per_sample);
      tone_steps_[t * kChunkSamples + j] = {std::cos(phase), std::sin(phase)};
    }
  }
}

std::string GeneratorSource::describe() const { return spec_.to_string(); }

std::size_t GeneratorSource::wait_until_due(std::size_t count) {
  using Clock = std::chrono::steady_clock;
  const std::uint64_t interrupts_at_entry = interrupts_.load(std::memory_order_acquire);
  auto interrupted = [&] { return interrupts_.load(std::memory_order_acquire) != interrupts_at_entry; };
  const Clock::time_point now = Clock::now();
  if (!live_start_) live_start_ = now;
  const double rate = spec_.sample_rate;
  auto due_at = [&](Clock::time_point t) {
    return static_cast<std::uint64_t>(std::chrono::duration<double>(t - *live_start_).count() * rate);
  };
  const std::uint64_t due_now = due_at(now);
  const auto buffer = std::max<std::uint64_t>(count, static_cast<std::uint64_t>(kLiveBuffer_s * rate));
  if (due_now > next_sample_ + buffer) {
    std::uint64_t lost = due_now - buffer - next_sample_;
    if (info_.length) lost = std::min(lost, *info_.length - next_sample_);
    next_sample_ += lost;
    dropped_.fetch_add(lost, std::memory_order_relaxed);
  }
  if (info_.length) count = static_cast<std::size_t>(std::min<std::uint64_t>(count, *info_.length - next_sample_));
  if (count == 0) return 0;
  if (spec_.stall_s) {
    const auto stall_at = static_cast<std::uint64_t>(std::llround(*spec_.stall_s * rate));
    if (next_sample_ >= stall_at) {  // a hung device: no samples, no error, no end
      while (!interrupted()) std::this_thread::sleep_for(kLiveWaitStep);
      return 0;
    }
    count = static_cast<std::size_t>(std::min<std::uint64_t>(count, stall_at - next_sample_));
  }
  const auto period = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kLivePeriod_s * rate));
  const std::uint64_t wanted = std::min<std::uint64_t>(count, period);
  const Clock::time_point due = *live_start_ + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(
                                                       static_cast<double>(next_sample_ + wanted) / rate));
  while (Clock::now() < due) {
    if (interrupted()) return 0;
    std::this_thread::sleep_for(std::min<Clock::duration>(due - Clock::now(), kLiveWaitStep));
  }
  const std::uint64_t ready = std::max<std::uint64_t>(due_at(Clock::now()), next_sample_ + wanted) - next_sample_;
  return static_cast<std::size_t>(std::min<std::uint64_t>(count, ready));
}

std::size_t GeneratorSource::read(std::byte* dst, std::size_t max_samples) {
  std::size_t count = max_samples;
  if (info_.length) count = static_cast<std::size_t>(
                        std::min<std::uint64_t>(count, *info_.length - next_sample_));
  if (spec_.live && count > 0) {
    count = wait_until_due(count);
    if (count == 0) return 0;
  }
  for (std::size_t done = 0; done < count;) {
    // Pieces never cross a multiple of kChunkSamples, so every sample is computed from the
    // same anchor whatever the reads look like.
    const std::uint64_t first = next_sample_ + done;
    const std::size_t to_boundary = kChunkSamples - static_cast<std::size_t>(first % kChunkSamples);
    const std::size_t n = std::min(to_boundary, count - done);
    generate(first, n, dst + done * info_.frame_bytes());
    done += n;
  }
  next_sample_ += count;
  return count;
}

void GeneratorSource::generate(std::uint64_t first, std::size_t count, std::byte* dst) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  const bool cplx = spec_.complex_output;
  double* const re = sample_buffer_.data();
  double* const im = sample_buffer_.data() + kChunkSamples;
  std::fill_n(re, count, 0.0);
  std::fill_n(im, count, 0.0);

  // A tone at sample anchor + j is e^{i 2 pi f anchor / rate} times e^{i 2 pi f j / rate}:
  // the first factor from the absolute index, the second from a table made once. One complex
  // multiply per sample instead of a sine and a cosine, with the accuracy of either.
  const std::uint64_t anchor = first - first % kChunkSamples;
  const std::size_t offset = static_cast<std::size_t>(first - anchor);
  for (std::size_t t = 0; t < spec_.tones.size(); ++t) {
    const GeneratorTone& tone = spec_.tones[t];
    const double cycles_per_sample = tone.frequency_hz / spec_.sample_rate;
    // Reduced to one cycle before the sine, for accuracy at large indices.
    const double anchor_phase =
        two_pi * fractional_part(static_cast<double>(anchor) * cycles_per_sample);
    const std::complex<double> base =
        tone.amplitude * std::complex<double>(std::cos(anchor_phase), std::sin(anchor_phase));
    const std::complex<double>* const steps = tone_steps_.data() + t * kChunkSamples + offset;
    // Written out: std::complex's operator* checks for infinities on every call.
    const double base_re = base.real(), base_im = base.imag();
    for (std::size_t i = 0; i < count; ++i) {
      re[i] += base_re * steps[i].real() - base_im * steps[i].imag();
      im[i] += base_re * steps[i].imag() + base_im * steps[i].real();
    }
  }
  if (!cplx) std::fill_n(im, count, 0.0);

  const double period_s = static_cast<double>(chirp_period_samples_) / spec_.sample_rate;
  for (const auto& chirp : spec_.chirps) {
    const double sweep_rate = (chirp.end_hz - chirp.start_hz) / period_s;  // Hz per second
    for (std::size_t i = 0; i < count; ++i) {
      const double t =
          static_cast<double>((first + i) % chirp_period_samples_) / spec_.sample_rate;
      const double phase =
          two_pi * fractional_part(chirp.start_hz * t + 0.5 * sweep_rate * t * t);
      re[i] += chirp.amplitude * std::cos(phase);
      if (cplx) im[i] += chirp.amplitude * std::sin(phase);
    }
  }

  if (spec_.noise_stddev > 0) {
    double z0 = 0, z1 = 0;
    if (cplx) {
      const double sd = spec_.noise_stddev / std::numbers::sqrt2;
      for (std::size_t i = 0; i < count; ++i) {
        gaussian_pair(noise_key_, first + i, z0, z1);
        re[i] += sd * z0;
        im[i] += sd * z1;
      }
    } else {
      // Real output takes both values of a pair: samples 2m and 2m+1 share pair m.
      const double sd = spec_.noise_stddev;
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t n = first + i;
        if (i == 0 || n % 2 == 0) gaussian_pair(noise_key_, n / 2, z0, z1);
        re[i] += sd * (n % 2 == 0 ? z0 : z1);
      }
    }
  }

  // Integers: the value scaled as format.hpp reads it back, rounded, clipped (and counted).
  auto to_int = [this](double v, double scale, double zero, double low, double high) {
    const double scaled = std::nearbyint(v * scale) + zero;
    if (scaled > high) {
      ++clipped_;
      return high;
    }
    if (scaled < low) {
      ++clipped_;
      return low;
    }
    return scaled;
  };
  const std::size_t components = is_complex(info_.format) ? 2 : 1;
  const std::size_t width = component_bytes(info_.format);
  const std::size_t frame = info_.frame_bytes();
  auto store = [&](std::byte* at, double v) {
    switch (info_.format) {
      case SampleFormat::f32:
      case SampleFormat::cf32: store_le(at, static_cast<float>(v)); break;
      case SampleFormat::f64:
      case SampleFormat::cf64: store_le(at, v); break;
      case SampleFormat::i16:
      case SampleFormat::ci16:
        store_le(at, static_cast<std::int16_t>(to_int(v, 32768.0, 0.0, -32768.0, 32767.0)));
        break;
      case SampleFormat::i8:
      case SampleFormat::ci8:
        *at = static_cast<std::byte>(static_cast<std::int8_t>(to_int(v, 128.0, 0.0, -128.0, 127.0)));
        break;
      case SampleFormat::u8:
      case SampleFormat::cu8:
        *at = static_cast<std::byte>(static_cast<std::uint8_t>(to_int(v, 128.0, 128.0, 0.0, 255.0)));
        break;
      default: break;  // validate() admits only the formats above
    }
  };
  for (std::size_t i = 0; i < count; ++i) {
    // The first channel computed, the others copies of its bytes.
    std::byte* const sample = dst + i * frame;
    store(sample, re[i]);
    if (components == 2) store(sample + width, im[i]);
    for (std::size_t c = 1; c < info_.channels; ++c)
      std::memcpy(sample + c * width * components, sample, width * components);
  }
}

}  // namespace prism
