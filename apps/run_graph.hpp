// What the commands that run a graph (spectrogram, run, generate) share: the options of a run
// (block size, pools, backend, device, duration, summary), the image options of PNG outputs,
// the array options of .npy outputs (--output-dtype, the sidecar of -o -),
// stage settings turned into command-line options, and the run itself with its progress bar,
// summary, messages and exit code.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apps/input_options.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/sink_options.hpp"

namespace prism::app {

struct RunOptions {
  std::optional<std::size_t> block_size;  // default: the command's choice
  std::size_t blocks = 4;
  std::size_t in_flight = 2;
  std::string backend = "auto";
  // --device: "N", a list "N,M,..." (a batch's workers take them in turn, each running its files
  // on its device) or "all" (every CUDA device present); one input runs on one device (all: the
  // first).
  std::string device = "0";
  unsigned threads = 0;
  std::optional<double> duration;  // seconds of input to take, then stop
  // Seconds an input may deliver nothing before the run fails (0: never), opening included
  // (open_run_input); unset: the default, default_stall_timeout_s (10 s for live inputs
  // without a timeout of their own, never for the others).
  std::optional<double> stall_timeout;
  bool quiet = false;         // no progress bar, no summary
  bool print_summary = true;  // false: the command prints its own account of the run
  bool summary_to_stderr = false;  // stdout carries an output (-o -): the summary goes to stderr
  std::string summary_json;
};

// Registers --block-size, --blocks, --in-flight, --backend, --device, --threads, --duration,
// --stall-timeout, -q/--quiet and --summary-json; whole numbers are range-checked by CLI11
// (exit 2, naming the option) before anything is allocated.
// `block_size_default` says in words what the command chooses when --block-size is not given.
// `batches`: whether the command takes a batch of inputs (then --device takes a list).
void add_run_options(CLI::App& cmd, RunOptions& options, const std::string& block_size_default = "65536",
                     bool batches = true);
// The stages' backend and device from the options (UsageError for a bad --backend, and for a
// --device list of several devices: they take a batch of inputs, not one; `all` gives the first).
StageEnvironment stage_environment(const RunOptions& options);
// The devices --device names, in order (UsageError saying why for a bad list: the text of
// --device's check). "all": every CUDA device present, or device 0 where there is none (a GPU
// backend then says why it cannot run; the CPU backend does not use it).
std::vector<int> device_list(const std::string& device);

struct ImageOptions {
  std::string colormap = "viridis";
  std::string db_range;
  std::optional<unsigned> width;
  std::optional<unsigned> height;
  std::string title;
  std::string time_axis = "relative";
  std::string reduce = "max";
};
// Registers --colormap, --db-range, --width, --height, --reduce, --time-axis and --title in the group
// "Image output".
void add_image_options(CLI::App& cmd, ImageOptions& options);
// The options of .npy outputs: the element type of rows, and where the sidecar of -o - goes.
struct ArrayOptions {
  std::string output_dtype = "float32";
  std::string sidecar;
};
// Registers --sidecar, and --output-dtype when the command writes rows, in the group
// "Array output (.npy)".
void add_array_options(CLI::App& cmd, ArrayOptions& options, bool rows);

// The sinks' options from them (UsageError for a malformed --db-range, or --output-dtype uint8
// without it).
SinkOptions sink_options(const ImageOptions& image, const ArrayOptions& array = {});

// Checks the outputs that go to stdout (-o -): at most one, and --sidecar only with one. Returns
// whether there is one (then stdout carries data, and the summary goes to stderr).
bool check_stdout_outputs(const std::vector<std::string>& paths, const ArrayOptions& array);
// Usage errors for image options the input cannot serve, before the run: --time-axis absolute
// without a start time (SigMF core:datetime) that is an ISO 8601 date-time.
void check_image_options_suit(const SinkOptions& options, const std::string& input, const StreamInfo& info);

// A stage's settings as command-line options (--nperseg ...), generated from their declarations.
class SettingOptions {
 public:
  SettingOptions(CLI::App& cmd, const std::vector<Setting>& settings, const std::string& group);
  // The settings given on the command line, with `overrides` (KEY -> VALUE) in place of theirs,
  // checked (UsageError naming the option).
  SettingValues values(const std::map<std::string, std::string>& overrides = {}) const;

 private:
  std::vector<Setting> settings_;
  std::vector<CLI::Option*> options_;
  std::shared_ptr<std::map<std::string, std::string>> texts_;
  std::shared_ptr<std::map<std::string, bool>> flags_;
};

// Runs `graph` (configured here: a chain that cannot be built is a UsageError before anything
// moves) with Ctrl-C handling and a progress bar, prints the notes, the summary (stdout, or
// stderr after a failure) and what happened to the outputs, writes --summary-json, and returns
// the exit code: 0 done, 1 failed or unbalanced accounting, 130 interrupted. `report` gets the
// report for callers that print more.
int run_and_report(Graph& graph, const RunConfig& config, const RunOptions& options, RunReport* report = nullptr);

// Throws UsageError when two of `paths` (the outputs of one run, as given to -o) would write the
// same file, sidecars included (a.npy writes a.json; a.sigmf-meta writes a.sigmf-data), so that
// the run does not fail at its end when the second cannot be renamed into place.
// `stdout_sidecar` (--sidecar) is checked with them.
void check_distinct_outputs(const std::vector<std::string>& paths, const std::string& stdout_sidecar = "");

// Opens the input of a run as open_input does. An input that waits for its first data while
// it is opened (a network stream) waits as a read of the run does: up to the stall timeout
// (--stall-timeout, or the default of a live input; InputError naming it), and Ctrl-C ends the
// wait (Interrupted: exit 130, nothing written).
// `warn` (when set) takes the warnings about the input (a recording cut short) instead of stderr.
std::unique_ptr<Source> open_run_input(const std::string& input, const InputOptions& raw, const RunOptions& run,
                                       const std::function<void(const std::string&)>& warn = nullptr);

// The run's configuration from the options; `block_samples` when --block-size is not given.
RunConfig run_config(const RunOptions& options, std::size_t block_samples, double sample_rate);

}  // namespace prism::app
