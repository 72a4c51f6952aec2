// Shared input options (see input_options.hpp).
#include "apps/input_options.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "apps/option_checks.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"

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

void add_sdr_options(CLI::App& cmd, InputOptions& o) {
  const std::string group = "SDR input (sdr:...)";
  cmd.add_option("--gain", o.gain, "Overall RX gain in dB [default: automatic gain where the device has it]")
      ->group(group);
  cmd.add_option("--antenna", o.antenna, "RX antenna by name [default: the device's]")->group(group);
  whole_number_in(cmd.add_option("--sdr-channel", o.sdr_channel, "RX channel of the device (0-based)"), 0,
                  kMaxDeviceIndex)
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--sdr-stream-args", o.sdr_stream_args, "KEY=VALUE,... passed to the driver's stream")
      ->group(group);
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
  options.truncation.strict = o.strict;
  options.field_namer = [](std::string_view key) -> std::string {
    if (key == "sample_rate") return "--rate";
    if (key == "center_frequency") return "--center-frequency";
    std::string option = "--" + std::string(key);
    std::replace(option.begin(), option.end(), '_', '-');
    return option;
  };
  options.truncation.warn = [](const std::string& text) {
    std::fprintf(stderr, "prism: warning: %s\n", printable(text).c_str());
  };
  return options;
}

std::unique_ptr<Source> open_input(const std::string& input, const InputOptions& options) {
  return open_input(input, to_source_options(options));
}

std::unique_ptr<Source> open_input(const std::string& input, const SourceOptions& options) {
  std::unique_ptr<Source> source = open_source(input, options);
  if (source->info().length == std::optional<std::uint64_t>{0}) throw InputError(input, "no samples (empty input)");
  return source;
}

}  // namespace prism::app
