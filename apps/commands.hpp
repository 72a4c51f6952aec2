// The subcommands of the prism command line. Each registers its options on the CLI11 app and
// returns the function that runs it; main() owns parsing, errors and exit codes:
//   0 success, 1 bad input or a failed run, 2 usage error, 130 interrupted.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace prism::app {

using Runner = std::function<int()>;

Runner add_spectrogram_command(CLI::App& app);
Runner add_run_command(CLI::App& app);
Runner add_stages_command(CLI::App& app);
Runner add_filter_command(CLI::App& app);
Runner add_info_command(CLI::App& app);
Runner add_generate_command(CLI::App& app);
Runner add_devices_command(CLI::App& app);
Runner add_view_command(CLI::App& app);
Runner add_fft_tune_command(CLI::App& app);
Runner add_design_command(CLI::App& app);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 130;

}  // namespace prism::app
