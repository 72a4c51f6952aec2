// The input options every subcommand that reads samples shares (--format, --rate, --channels,
// --center-freq), and their translation into the source registry's SourceOptions.
#pragma once

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
};

// Registers --format, --rate, --channels and --center-freq (alias --center-frequency) on `cmd`
// in the option group `group`.
void add_input_options(CLI::App& cmd, InputOptions& options, const std::string& group = "Raw input");

// Throws UsageError naming --format and the known names when the format is unknown.
SourceOptions to_source_options(const InputOptions& options);

}  // namespace prism::app
