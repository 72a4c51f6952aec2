// Shared input options (see input_options.hpp).
#include "apps/input_options.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "apps/option_checks.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "pipeline/settings.hpp"

namespace prism::app {

void add_input_options(CLI::App& cmd, InputOptions& o, const std::string& group) {
  cmd.add_option("--format", o.format, "Sample format of raw input: " + format_names_help())->group(group);
  finite_number_in(cmd.add_option("--rate", o.rate, "Sample rate, Hz: of raw input; asked of an audio device or an SDR"),
                   0.0, std::numeric_limits<double>::infinity(), true)
      ->group(group);
  whole_number_in(cmd.add_option("--channels", o.channels, "Interleaved channels of raw input"), 1, kMaxRawChannels)
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--center-freq,--center-frequency", o.center_frequency,
                 "Centre frequency, Hz: labels raw input, relabels any input, tunes an SDR")
      ->group(group);
  cmd.add_flag("--strict", o.strict,
               "Refuse a recording cut short (a partial sample at the end, a sound file's data ending before its "
               "header says) instead of reading its whole samples with a warning")
      ->group(group);
  add_sdr_options(cmd, o);
}

void add_start_option(CLI::App& cmd, InputOptions& o, const std::string& group) {
  cmd.add_option("--start", o.start,
                 "Where to begin in the input: seconds (2.5) or, with a trailing s, samples (48000s), as sox's trim; "
                 "files seek there, pipes and the generator skip to it, live inputs refuse it; times in the outputs "
                 "keep counting from the input's start")
      ->type_name("T|Ns")
      ->group(group);
}

void add_sdr_options(CLI::App& cmd, InputOptions& o) {
  const std::string group = "SDR input (sdr:...)";
  cmd.add_option("--gain", o.gain, "Overall RX gain in dB [default: automatic gain where the device has it]")
      ->group(group);
  cmd.add_option("--antenna", o.antenna, "RX antenna by name [default: the device's]")->group(group);
  whole_number_in(cmd.add_option("--sdr-channel", o.sdr_channel, "RX channel of the device (0-based)"), 0,
                  kMaxDeviceIndex)
      ->default_str("0")
      ->group(group);
  cmd.add_option("--sdr-stream-args", o.sdr_stream_args, "KEY=VALUE,... passed to the driver's stream")
      ->group(group);
  finite_number_in(cmd.add_option("--open-timeout", o.open_timeout,
                                  "Seconds each call into the SDR's driver may take while the device is listed, "
                                  "opened, set up and closed; past it the run fails naming the call, as a driver "
                                  "that hangs would hold it for ever (0: wait for ever)"),
                   0.0, 365.0 * 86400.0)
      ->default_str(number_text(kDefaultDriverTimeout_s))
      ->group(group);
}

std::string option_name_of_field(std::string_view field) {
  if (field == "sample_rate") return "--rate";
  if (field == "center_frequency") return "--center-frequency";
  if (field == "cpu_threads") return "--threads";
  if (field == "stall_timeout_s") return "--stall-timeout";
  if (field == "sdr_open_timeout_s") return "--open-timeout";
  std::string option = "--" + std::string(field);
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

SourceOptions to_source_options(const InputOptions& o) {
  SourceOptions options;
  if (!o.format.empty()) {
    const auto stored = parse_stored_format(o.format);
    if (!stored)
      throw UsageError("--format '" + o.format + "' is unknown (known: " + format_names_help() + ")");
    options.format = stored->format;
    options.big_endian = stored->big_endian;
  }
  options.sample_rate = o.rate;
  options.channels = o.channels;
  options.center_frequency = o.center_frequency;
  options.gain = o.gain;
  options.antenna = o.antenna;
  options.sdr_channel = o.sdr_channel;
  options.sdr_stream_args = o.sdr_stream_args;
  options.sdr_open_timeout_s = o.open_timeout;
  options.truncation.strict = o.strict;
  options.field_namer = option_name_of_field;
  options.truncation.warn = [](const std::string& text) {
    std::fprintf(stderr, "prism: warning: %s\n", printable(text).c_str());
  };
  return options;
}

namespace {

// The longest --start in seconds: a year, as --duration.
constexpr double kMaxStartSeconds = 366.0 * 24 * 3600;

// The sample --start names at `sample_rate`: "48000s" counts samples, "2.5" seconds (rounded
// to the nearest sample).
std::uint64_t start_sample(const std::string& text, double sample_rate) {
  const std::string expected = "--start '" + printable(text) +
                               "': expected seconds (2.5) or samples with a trailing s (48000s), 0 or more";
  if (!text.empty() && text.back() == 's') {
    const std::optional<std::int64_t> samples = parse_integer(text.substr(0, text.size() - 1));
    if (!samples || *samples < 0) throw UsageError(expected);
    return static_cast<std::uint64_t>(*samples);
  }
  const std::optional<double> seconds = parse_number(text);
  if (!seconds || !(*seconds >= 0)) throw UsageError(expected);
  if (*seconds > kMaxStartSeconds) throw UsageError(expected + ", at most a year (31622400)");
  return static_cast<std::uint64_t>(std::llround(*seconds * sample_rate));
}

// A source that begins at a later sample of another: what it says of itself follows (length,
// start offset, the centre frequency in force at the start, the labels still to come); reads,
// interrupts and counts are the other's.
class StartedSource final : public SourceWrapper {
 public:
  StartedSource(std::unique_ptr<Source> inner, std::uint64_t start)
      : SourceWrapper(std::move(inner)), info_(inner_->info()) {
    const double start_s = info_.start_offset_s + static_cast<double>(start) / info_.sample_rate;
    info_.start_offset_s = start_s;
    if (info_.length) *info_.length -= start;
    // A retune at or before the start is the frequency the stream begins at.
    std::erase_if(info_.retunes, [&](const Retune& r) {
      if (r.time > start_s) return false;
      info_.center_frequency = r.center_frequency;
      return true;
    });
    std::erase_if(info_.annotations,
                  [&](const Annotation& a) { return a.duration && a.start + *a.duration <= start_s; });
  }
  const StreamInfo& info() const override { return info_; }
  PortDescription output() const override { return PortDescription::of_samples(info_); }

 private:
  StreamInfo info_;
};

// A stream of unknown length (stdin, a live input) that ends before its first sample fails as an
// empty file does, naming the input, rather than giving empty outputs and exit 0. Ctrl-C before
// the first sample stays an interruption.
class NonEmptySource final : public SourceWrapper {
 public:
  explicit NonEmptySource(std::unique_ptr<Source> inner) : SourceWrapper(std::move(inner)) {}
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    const std::size_t n = inner_->read(dst, max_samples);
    if (n > 0) delivered_ = true;
    if (n == 0 && max_samples > 0 && !delivered_ && !interrupted_.load(std::memory_order_relaxed))
      throw std::runtime_error("no samples (the input ended before its first sample)");  // the run names the input
    return n;
  }
  void interrupt() override {
    interrupted_.store(true, std::memory_order_relaxed);
    inner_->interrupt();
  }

 private:
  bool delivered_ = false;
  std::atomic<bool> interrupted_{false};
};

// Moves `source` to `start`: a seek where it can, else reads up to it; the samples it got.
std::uint64_t skip_to(Source& source, std::uint64_t start) {
  if (source.start_at(start)) return start;
  const std::size_t frame = source.info().frame_bytes();
  const std::size_t chunk = std::max<std::size_t>((std::size_t{1} << 20) / frame, 1);
  std::vector<std::byte> discarded(chunk * frame);
  std::uint64_t skipped = 0;
  while (skipped < start) {
    const std::size_t n = source.read(discarded.data(), static_cast<std::size_t>(std::min<std::uint64_t>(chunk, start - skipped)));
    if (n == 0) break;
    skipped += n;
  }
  return skipped;
}

// `source` from --start `start` on (see open_input).
std::unique_ptr<Source> start_later(std::unique_ptr<Source> source, const std::string& input, const std::string& text) {
  const StreamInfo& info = source->info();
  if (info.live || source->output().kind != PortKind::samples)
    throw UsageError("--start: " + printable(input) + " is a live input, which begins when it is opened (--duration "
                     "sets how much of it to take)");
  const std::uint64_t start = start_sample(text, info.sample_rate);
  if (start == 0) return source;
  if (info.length && start >= *info.length)
    throw UsageError("--start " + printable(text) + " (sample " + std::to_string(start) + ") is at or past the end of " +
                     printable(input) + ", which holds " + std::to_string(*info.length) + " samples");
  const std::uint64_t skipped = skip_to(*source, start);
  if (skipped < start)
    throw InputError(input, "ended after " + std::to_string(skipped) + " samples, before --start " + printable(text) +
                                " (sample " + std::to_string(start) + ")");
  return std::make_unique<StartedSource>(std::move(source), start);
}

}  // namespace

std::unique_ptr<Source> open_input(const std::string& input, const InputOptions& options) {
  return open_input(input, to_source_options(options), options.start);
}

std::unique_ptr<Source> open_input(const std::string& input, const SourceOptions& options, const std::string& start) {
  std::unique_ptr<Source> source = open_source(input, options);
  if (source->info().length == std::optional<std::uint64_t>{0}) throw InputError(input, "no samples (empty input)");
  if (!start.empty()) source = start_later(std::move(source), input, start);
  if (!source->info().length) source = std::make_unique<NonEmptySource>(std::move(source));
  return source;
}

}  // namespace prism::app
