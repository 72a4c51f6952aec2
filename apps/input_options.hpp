// The input options every subcommand that reads samples shares (--format, --rate, --channels,
// --center-freq; for SDRs --gain, --antenna, --sdr-channel, --sdr-stream-args), and their
// translation into the source registry's SourceOptions.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sources/open_source.hpp"

namespace prism::app {

struct InputOptions {
  std::string format;               // empty: from the input or its extension
  std::optional<double> rate;       // Hz
  unsigned channels = 1;            // interleaved channels of raw input
  double center_frequency = 0.0;    // Hz
  // SDR input
  std::optional<double> gain;       // dB
  std::optional<std::string> antenna;
  std::optional<std::size_t> sdr_channel;
  std::optional<std::string> sdr_stream_args;
  std::optional<double> open_timeout;  // s, each call into the SDR's driver while it opens
  bool strict = false;  // refuse recordings cut short instead of reading their whole samples
  std::string start;    // --start: seconds ("2.5") or samples ("48000s"); empty: the beginning
};

// Registers --format, --rate, --channels, --center-freq (alias --center-frequency) and --strict on `cmd`
// in the option group `group`, and the SDR options (add_sdr_options).
void add_input_options(CLI::App& cmd, InputOptions& options, const std::string& group = "Raw input");

// Registers --start (where open_input begins reading) in the option group `group`.
void add_start_option(CLI::App& cmd, InputOptions& options, const std::string& group);

// Registers --gain, --antenna, --sdr-channel, --sdr-stream-args and --open-timeout in the group
// "SDR input".
void add_sdr_options(CLI::App& cmd, InputOptions& options);

// The footer lines that explain the sdr: input and its options.
inline constexpr const char* kSdrInputHelp =
    "  sdr[:ARGS]   an SDR through SoapySDR; ARGS are SoapySDR device arguments, e.g. "
    "sdr:driver=rtlsdr (prism devices lists them). --rate sets its sample rate, "
    "--center-frequency tunes it, --gain (dB; default: automatic gain) and --antenna set it up.\n";

// Throws UsageError naming --format and the known names when the format is unknown.
SourceOptions to_source_options(const InputOptions& options);

// The command-line option that sets a library field, for the field_namer of SourceOptions,
// StageEnvironment and RunConfig: sample_rate -> --rate, cpu_threads -> --threads,
// stall_timeout_s -> --stall-timeout, any other field_name -> --field-name.
std::string option_name_of_field(std::string_view field);

// Opens `input` for a command that processes its samples: an input known to hold no samples
// (an empty raw file, a sound file or SigMF recording without data) is refused with InputError
// naming it, as a 0-byte sound file is, whatever its format; one of unknown length (stdin, a
// live input) that ends before its first sample fails the run the same way. With --start the source begins
// there: files seek, streams and the generator read and discard up to it, live inputs refuse
// it (UsageError); its StreamInfo says the first sample (times keep the recording's axis) and
// the length left.
std::unique_ptr<Source> open_input(const std::string& input, const InputOptions& options);
// The same with options made by the caller, and --start's text (empty: the beginning).
std::unique_ptr<Source> open_input(const std::string& input, const SourceOptions& options, const std::string& start);

}  // namespace prism::app
