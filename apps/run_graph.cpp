// The shared run of a graph for the commands (see run_graph.hpp).
#include "apps/run_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <system_error>

#include "apps/commands.hpp"
#include "apps/option_checks.hpp"
#include "pipeline/iso8601.hpp"
#include "apps/progress_bar.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "pipeline/run_summary.hpp"
#include "sinks/open_sink.hpp"

namespace prism::app {

// The longest --duration and --stall-timeout: a year, far beyond any run, and far inside the
// nanosecond and sample counts they become.
constexpr double kMaxSeconds = 365.0 * 86400.0;

void add_run_options(CLI::App& cmd, RunOptions& o, const std::string& block_size_default, bool batches) {
  const std::string group = "Run";
  whole_number_in(cmd.add_option("--block-size", o.block_size,
                                  "Samples per chunk moving through the graph; the output does not depend on it "
                                  "[default: " + block_size_default + "]"),
                  1, std::int64_t{1} << 26)
      ->group(group);
  whole_number_in(cmd.add_option("--blocks", o.blocks, "Chunks per host edge (bounds memory)"), 2, 1024)
      ->capture_default_str()
      ->group(group);
  whole_number_in(cmd.add_option("--in-flight", o.in_flight,
                                  "Chunks in flight on a GPU edge: the copies of one overlap the work on the others"),
                  1, 64)
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--backend", o.backend,
                 "Where stages with a GPU kernel run: cpu, cuda (prism's kernels), cufft, or auto (the GPU when "
                 "one can be set up; `prism spectrogram` of one file too short to repay the GPU's start-up: the CPU; "
                 "shift, resample, gain and the demodulators: the GPU only after a stage on the GPU)")
      ->check(CLI::IsMember({"cpu", "cuda", "cufft", "auto"}))
      ->capture_default_str()
      ->group(group);
  const std::string one_device = "CUDA device for the GPU backends (0-based)";
  cmd.add_option("--device", o.device,
                 batches ? one_device + "; for a batch of inputs a list N,M,... or all: the --jobs workers take "
                                        "the devices in turn, each running its files on its device (one input: "
                                        "all is the first)"
                         : one_device)
      ->check([batches](const std::string& text) {
        try {
          // One input runs on one device: a list is refused here, `all` gives the first.
          if (device_list(text).size() > 1 && !batches && text != "all")
            return "'" + text + "': this command takes one input, which runs on one device N";
        } catch (const UsageError& e) {
          return std::string(e.what());
        }
        return std::string();
      })
      ->capture_default_str()
      ->group(group);
  whole_number_in(cmd.add_option("--threads", o.threads, "CPU worker threads per stage, 0 = all cores [default: all cores]"),
                  0, 4096)
      ->group(group);
  finite_number_in(cmd.add_option("--duration", o.duration,
                                   "Seconds of input to take, then stop (a capture of that length from a live input; "
                                   "of a file, from --start) [default: all]"),
                   0.0, kMaxSeconds, true)
      ->group(group);
  finite_number_in(cmd.add_option("--stall-timeout", o.stall_timeout,
                                  "Seconds the input may deliver nothing before the run fails, keeping what was "
                                  "captured (0: wait for ever) [default: 10 for live inputs (zmq:...?timeout=S: S instead), none for files and pipes]"),
                   0.0, kMaxSeconds)
      ->group(group);
  cmd.add_flag("-q,--quiet", o.quiet, "No progress bar and no summary");
  cmd.add_option("--summary-json", o.summary_json, "Also write the run summary as JSON to this file");
}

std::vector<int> device_list(const std::string& text) {
  const std::string form = "'" + text + "' is not a device N (0.." + std::to_string(kMaxDeviceIndex) +
                           "), a list N,M,... or all";
  if (text == "all") {
    const int count = gpu::device_count();
    std::vector<int> all;
    for (int d = 0; d < count; ++d) all.push_back(d);
    if (all.empty()) all.push_back(0);
    return all;
  }
  std::vector<int> devices;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    // Digits only (no sign, no space), leading zeros allowed, at most kMaxDeviceIndex.
    long long value = 0;
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) throw UsageError(form);
    for (const char digit : item)
      if ((value = value * 10 + (digit - '0')) > kMaxDeviceIndex) throw UsageError(form);
    devices.push_back(static_cast<int>(value));
    if (comma == text.size()) break;
    at = comma + 1;
  }
  return devices;
}

StageEnvironment stage_environment(const RunOptions& o) {
  StageEnvironment e;
  e.field_namer = option_name_of_field;
  e.backend = fft::parse_backend(o.backend);
  const std::vector<int> devices = device_list(o.device);
  if (devices.size() > 1 && o.device != "all")
    throw UsageError("--device " + o.device + ": " + std::to_string(devices.size()) +
                     " devices take a batch of inputs (several files: the workers share the devices out); one input "
                     "runs on one device, --device N");
  e.device = devices.front();
  e.cpu_threads = o.threads;
  return e;
}

void add_image_options(CLI::App& cmd, ImageOptions& o) {
  const char* group = "Image output (.png)";
  cmd.add_option("--colormap", o.colormap, "viridis, inferno, magma, turbo or grayscale")
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--db-range", o.db_range, "Colour range MIN:MAX in dB [default: automatic]")->group(group);
  whole_number_in(cmd.add_option("--width", o.width,
                                  "Plot width in pixels, whatever the number of rows (more are reduced, fewer "
                                  "stretched) [default: 1200]"),
                  1, 10000)
      ->group(group);
  whole_number_in(cmd.add_option("--height", o.height,
                                  "Plot height in pixels, whatever the number of bins [default: 700]"),
                  1, 10000)
      ->group(group);
  cmd.add_option("--reduce", o.reduce,
                 "Rows or bins beyond the plot's pixels: max keeps the largest power (a narrow tone or a short "
                 "click keeps its level), mean averages the power")
      ->check(CLI::IsMember({"max", "mean"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--time-axis", o.time_axis,
                 "relative: seconds from the input's start; absolute: UTC clock times from its start time "
                 "(SigMF core:datetime)")
      ->check(CLI::IsMember({"relative", "absolute"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--title", o.title,
                 "Title over the plot [default: the input, its format and rate, the settings and the quantity]")
      ->group(group);
}

void check_image_options_suit(const SinkOptions& options, const std::string& input, const StreamInfo& info) {
  if (options.absolute_time && !iso8601_epoch_seconds(info.start_time))
    throw UsageError("--time-axis absolute needs the input's start time (SigMF core:datetime); " + input +
                     (info.start_time.empty() ? std::string(" has none")
                                              : " has '" + printable(info.start_time) + "', not an ISO 8601 date-time"));
}

void add_array_options(CLI::App& cmd, ArrayOptions& o, bool rows) {
  const char* group = "Array output (.npy)";
  if (rows) {
    cmd.add_option("--output-dtype", o.output_dtype,
                   "Element type of .npy rows: float32; float16 (rounded to nearest); uint8 (dB values "
                   "quantised linearly over --db-range, which it needs, with the scale in the sidecar)")
        ->check(CLI::IsMember({"float32", "float16", "uint8"}))
        ->capture_default_str()
        ->group(group);
  }
  cmd.add_option("--sidecar", o.sidecar,
                 "Where the .json sidecar of -o - (.npy to stdout) goes [default: nowhere]")
      ->group(group);
}

bool check_stdout_outputs(const std::vector<std::string>& paths, const ArrayOptions& array) {
  const auto to_stdout = std::count(paths.begin(), paths.end(), std::string("-"));
  if (to_stdout > 1) throw UsageError("only one output can go to stdout (-o -)");
  if (to_stdout == 0 && !array.sidecar.empty())
    throw UsageError("--sidecar " + printable(array.sidecar) +
                     ": it names the sidecar of -o - (.npy to stdout), and no output goes there; a .npy "
                     "file's sidecar is its name with .json");
  if (to_stdout == 1 && !array.sidecar.empty()) {
    const std::filesystem::path sidecar(array.sidecar);
    if (sidecar.extension() != ".json")
      throw UsageError("--sidecar " + printable(array.sidecar) + ": a sidecar is JSON; give a name ending in .json");
  }
  return to_stdout == 1;
}

namespace {

SinkOptions sink_options_of_image(const ImageOptions& o) {
  SinkOptions s;
  s.colormap = o.colormap;
  s.width = o.width;
  s.height = o.height;
  s.title = o.title;
  s.absolute_time = o.time_axis == "absolute";
  s.reduce = o.reduce == "mean" ? PlotReduction::mean : PlotReduction::max;
  if (o.db_range.empty()) return s;
  const std::size_t colon = o.db_range.find(':');
  const std::optional<double> lo = colon == std::string::npos ? std::nullopt : parse_number(o.db_range.substr(0, colon));
  const std::optional<double> hi = colon == std::string::npos ? std::nullopt : parse_number(o.db_range.substr(colon + 1));
  if (!lo || !hi) throw UsageError("--db-range '" + printable(o.db_range) + "': expected MIN:MAX in dB, e.g. -120:-20");
  if (!(*lo < *hi)) throw UsageError("--db-range '" + printable(o.db_range) + "': MIN must be less than MAX");
  s.db_min = lo;
  s.db_max = hi;
  return s;
}

}  // namespace

SinkOptions sink_options(const ImageOptions& o, const ArrayOptions& array) {
  SinkOptions s = sink_options_of_image(o);
  s.stdout_sidecar = array.sidecar;
  if (array.output_dtype == "float16") s.npy_dtype = NpyDtype::float16;
  if (array.output_dtype == "uint8") {
    if (!s.db_min || !s.db_max)
      throw UsageError("--output-dtype uint8 needs --db-range MIN:MAX: the dB values that 0 and 255 stand for");
    s.npy_dtype = NpyDtype::uint8;
  }
  return s;
}

SettingOptions::SettingOptions(CLI::App& cmd, const std::vector<Setting>& settings, const std::string& group)
    : settings_(settings),
      texts_(std::make_shared<std::map<std::string, std::string>>()),
      flags_(std::make_shared<std::map<std::string, bool>>()) {
  for (const Setting& s : settings_) {
    std::string help = s.help;
    const std::string range = s.range_text();
    if (!range.empty() && s.type != SettingType::flag) help += " [" + range + "]";
    CLI::Option* option = nullptr;
    if (s.type == SettingType::flag) {
      option = cmd.add_flag(s.option(), (*flags_)[s.key], help);
    } else {
      option = cmd.add_option(s.option(), (*texts_)[s.key], help);
      if (!s.default_text().empty()) option->default_str(s.default_text());
      if (!s.value_help.empty()) option->type_name(s.value_help);
      // Values such as -5 must reach the range check, not be taken for options.
      option->allow_extra_args(false);
    }
    option->group(group);
    options_.push_back(option);
  }
}

SettingValues SettingOptions::values(const std::map<std::string, std::string>& overrides) const {
  std::map<std::string, std::string> given;
  for (std::size_t i = 0; i < settings_.size(); ++i) {
    if (options_[i]->count() == 0) continue;
    const Setting& s = settings_[i];
    given[s.key] = s.type == SettingType::flag ? ((*flags_)[s.key] ? "true" : "false") : (*texts_)[s.key];
  }
  for (const auto& [key, value] : overrides) given[key] = value;
  return SettingValues(settings_, given, name_as_option());
}

void check_distinct_outputs(const std::vector<std::string>& paths, const std::string& stdout_sidecar) {
  std::vector<std::string> outputs = paths;
  if (!stdout_sidecar.empty()) outputs.push_back(stdout_sidecar);
  const std::optional<OutputClash> clash = find_output_clash(outputs);
  if (!clash) return;
  // Each named by the option that gives it ("-o a.npy", "--sidecar a.json").
  auto option = [&stdout_sidecar](const std::string& output) {
    return (!stdout_sidecar.empty() && output == stdout_sidecar ? "--sidecar " : "-o ") + printable(output);
  };
  throw UsageError(option(clash->first) + " and " + option(clash->second) + " both write " + printable(clash->file) +
                   "; give each output its own name");
}

std::unique_ptr<Source> open_run_input(const std::string& input, const InputOptions& raw, const RunOptions& run,
                                       const std::function<void(const std::string&)>& warn) {
  SourceOptions options = to_source_options(raw);
  if (warn) options.truncation.warn = warn;
  StopToken stop;
  InterruptGuard guard(stop);
  options.opening.stall_timeout_s = run.stall_timeout;
  options.opening.stop = &stop;
  return open_input(input, options, raw.start);
}

RunConfig run_config(const RunOptions& o, std::size_t block_samples, double sample_rate) {
  RunConfig config;
  config.field_namer = option_name_of_field;
  config.block_samples = o.block_size.value_or(block_samples);
  config.block_count = o.blocks;
  config.in_flight = o.in_flight;
  if (o.duration) {
    if (!(*o.duration > 0 && std::isfinite(*o.duration)))
      throw UsageError("--duration must be a positive number of seconds");
    config.max_samples = static_cast<std::uint64_t>(std::ceil(*o.duration * sample_rate));
  }
  if (o.stall_timeout) {
    if (!(*o.stall_timeout >= 0 && std::isfinite(*o.stall_timeout)))
      throw UsageError("--stall-timeout must be a number of seconds, 0 or more (0: wait for ever)");
    config.stall_timeout_s = *o.stall_timeout;
  }
  return config;
}

int run_and_report(Graph& graph, const RunConfig& run, const RunOptions& o, RunReport* report_out) {
  graph.configure(run);  // a chain that cannot be built is a usage error, before anything moves
  const bool show_progress = !o.quiet && ProgressBar::stderr_is_terminal();
  ProgressBar bar("samples", show_progress);
  RunConfig config = run;
  if (!o.stall_timeout) config.stall_timeout_s = default_stall_timeout_s(graph.source());
  config.on_progress = [&bar](const ProgressUpdate& u) { bar.update(u.samples_done, u.samples_total, u.elapsed_seconds); };

  StopToken stop;
  RunReport report;
  {
    InterruptGuard guard(stop);
    report = graph.run(config, stop);
  }
  bar.clear();

  if (!o.summary_json.empty()) {
    std::ofstream json(o.summary_json);
    json << run_summary_json(report) << "\n";
    if (!json) std::fprintf(stderr, "prism: cannot write the summary to %s\n", o.summary_json.c_str());
  }
  const std::string summary = format_run_summary(report);
  int code = kExitOk;
  if (report.outcome == RunOutcome::failed) {
    std::fprintf(stderr, "prism: %s\n", printable(report.error).c_str());
    if (report.outputs_kept_incomplete)
      std::fprintf(stderr, "prism: the outputs hold what was computed before the input failed and are "
                           "marked incomplete\n");
    if (!o.quiet && o.print_summary) std::fputs(summary.c_str(), stderr);
    code = report.usage_error ? kExitUsage : kExitFailure;
  } else {
    if (!o.quiet && o.print_summary) std::fputs(summary.c_str(), o.summary_to_stderr ? stderr : stdout);
    if (report.outcome == RunOutcome::interrupted) {
      std::fprintf(stderr, "prism: interrupted; the outputs hold what was computed so far and are marked incomplete\n");
      code = kExitInterrupted;
    } else if (const std::string mismatch = report.accounting_mismatch(); !mismatch.empty()) {
      std::fprintf(stderr, "prism: accounting mismatch: %s\n", mismatch.c_str());
      code = kExitFailure;
    }
  }
  if (report_out != nullptr) *report_out = std::move(report);
  return code;
}

}  // namespace prism::app
