// Range checks for the command line's numeric options, as CLI11 validators: a value is checked as
// text before CLI11 converts it, so "-1" never wraps around into an unsigned option and "1e300"
// never becomes a huge allocation. The messages read like the stage settings' ("--channels: -1 is
// out of range (1..65536)"); CLI11 reports them as usage errors (exit 2) naming the option.
//
// Also: the "did you mean" for a mistyped option (--npersge → --nperseg).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace prism::app {

// The options' limits shared by several commands.
inline constexpr std::int64_t kMaxDeviceIndex = 1023;   // --device, --sdr-channel
inline constexpr std::int64_t kMaxRawChannels = 65536;  // --channels of raw input

// Checks `option` as a whole number in [min, max] and appends " [min..max]" to its help.
CLI::Option* whole_number_in(CLI::Option* option, std::int64_t min, std::int64_t max);

// Checks `option` as a finite number, at least `min` (more than `min` when `min_exclusive`) and
// at most `max`, and appends the range to its help when there is one.
CLI::Option* finite_number_in(CLI::Option* option, double min = -std::numeric_limits<double>::infinity(),
                              double max = std::numeric_limits<double>::infinity(), bool min_exclusive = false);

// The range as the help and the messages write it: "1..65536", "> 0", ">= 0", "" for any.
std::string range_text(double min, double max, bool min_exclusive = false);

// For arguments CLI11 did not expect: when one looks like a mistyped long option of `command`
// (within an edit distance of 2 of one of its names), the sentence that suggests it ("--npersge:
// no such option; did you mean --nperseg?"); nullopt otherwise.
std::optional<std::string> suggest_option(const CLI::App& command, const std::vector<std::string>& unexpected);

}  // namespace prism::app
