// Many recordings in one run (see batch.hpp).
#include "apps/batch.hpp"

#include <glob.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/option_checks.hpp"
#include "apps/output_template.hpp"
#include "apps/progress_bar.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/run_summary.hpp"
#include "pipeline/stop_token.hpp"
#include "sinks/open_sink.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace fs = std::filesystem;

namespace {

bool has_glob_characters(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// A pattern that names no existing file; an existing file with * in its name stays a file, and
// a device or generator spec (audio:..., sdr:..., gen:...) is never a pattern.
bool is_pattern(const std::string& argument) {
  if (!has_glob_characters(argument) || exists(argument)) return false;
  const std::string kind = source_kind_name(argument);
  return kind == "SigMF" || kind == "sound file" || kind == "raw";
}

std::vector<std::string> directory_recordings(const std::string& directory) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::directory_iterator it(directory, ec);
  if (ec) throw InputError(directory, "cannot list the directory: " + ec.message());
  for (const fs::directory_entry& entry : it) {
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec)) continue;
    const std::string path = entry.path().string();
    if (is_recording_path(path)) found.push_back(path);
  }
  std::sort(found.begin(), found.end());
  if (found.empty())
    throw InputError(directory, "the directory holds no recordings (sound files, .sigmf-meta, .sigmf or raw "
                                "files with a format extension)");
  return found;
}

std::vector<std::string> pattern_matches(const std::string& pattern) {
  glob_t matches{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> found;
  if (rc == 0)
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);
  ::globfree(&matches);
  if (found.empty()) throw InputError(pattern, "the pattern matches no file");
  std::sort(found.begin(), found.end());  // byte order, whatever the locale
  return found;
}

// A path for comparing outputs: absolute and without "." and "..".
std::string comparable(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return (ec ? fs::path(path) : absolute).lexically_normal().string();
}

// What an output occupies: the files it writes, or the name of a stream or device (zmq:,
// audio:, -), which is never complete and which two inputs cannot share either.
std::vector<std::string> claimed_paths(const std::string& output) {
  std::vector<std::string> files = output_files(output);
  if (files.empty()) files.push_back(output);
  return files;
}

// Complete outputs exist under their final names (sinks write "<name>.partial" and rename it
// into place when they finish).
bool outputs_complete(const BatchItem& item) {
  for (const std::string& output : item.outputs)
    for (const std::string& file : claimed_paths(output)) {
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) return false;
    }
  return true;
}

void remove_outputs(const BatchItem& item) {
  for (const std::string& output : item.outputs)
    for (const std::string& file : output_files(output)) {  // files only: never a stream's name
      std::error_code ec;
      fs::remove(file, ec);
    }
}

std::uint64_t input_bytes(const std::string& input) {
  std::string data = input;
  if (data.ends_with(".sigmf-meta")) data = data.substr(0, data.size() - 4) + "data";
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(data, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : " ") + p;
  return text;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  return text;
}

enum class FileStatus { not_started, done, skipped, failed, interrupted };

const char* status_name(FileStatus s) {
  switch (s) {
    case FileStatus::not_started: return "not started";
    case FileStatus::done: return "done";
    case FileStatus::skipped: return "skipped";
    case FileStatus::failed: return "failed";
    case FileStatus::interrupted: return "interrupted";
  }
  return "?";
}

struct FileResult {
  FileStatus status = FileStatus::not_started;
  std::string error;
  std::vector<std::string> warnings;  // about the input, in the order they came
  double elapsed_seconds = 0.0;
  std::optional<int> device;  // the device its worker gave its GPU stages (none: not started)
  std::optional<RunReport> report;
};

// One bar over the whole batch, in bytes of input: the files finished plus the fractions of
// the files in progress. Lines printed while it shows clear it first.
class BatchProgress {
 public:
  BatchProgress(std::uint64_t total_bytes, std::size_t workers, bool enabled)
      : total_(total_bytes), current_(workers), bar_("bytes", enabled), start_(std::chrono::steady_clock::now()) {
    for (auto& c : current_) c.store(0);
  }

  void file_progress(std::size_t worker, std::uint64_t bytes) {
    current_[worker].store(bytes, std::memory_order_relaxed);
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) draw();
  }
  void file_finished(std::size_t worker, std::uint64_t bytes) {
    current_[worker].store(0, std::memory_order_relaxed);
    finished_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // Prints `line` to `stream` above the bar.
  void print(std::FILE* stream, const std::string& line) {
    std::lock_guard lock(mutex_);
    bar_.clear();
    std::fputs(line.c_str(), stream);
    std::fflush(stream);
    draw();
  }
  void clear() {
    std::lock_guard lock(mutex_);
    bar_.clear();
  }

 private:
  void draw() {
    std::uint64_t done = finished_.load(std::memory_order_relaxed);
    for (const auto& c : current_) done += c.load(std::memory_order_relaxed);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    bar_.update(std::min(done, total_), total_, elapsed);
  }

  std::uint64_t total_;
  std::atomic<std::uint64_t> finished_{0};
  std::vector<std::atomic<std::uint64_t>> current_;
  std::mutex mutex_;
  ProgressBar bar_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

void add_batch_options(CLI::App& cmd, BatchOptions& o) {
  const std::string group = "Batch (several inputs)";
  whole_number_in(cmd.add_option("--jobs", o.jobs, "Files processed at once in a batch [default: one per core]"), 1,
                  1024)
      ->group(group);
  cmd.add_flag("--overwrite", o.overwrite,
               "Redo files whose outputs exist and are complete (a batch skips them otherwise)")
      ->group(group);
}

bool is_batch(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  if (inputs.size() > 1) return true;
  for (const std::string& input : inputs)
    if (is_directory(input) || is_pattern(input)) return true;
  for (const std::string& output : outputs)
    if (output.find('{') != std::string::npos) return true;
  return false;
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& arguments) {
  std::vector<std::string> inputs;
  std::set<std::string> seen;
  auto add = [&](const std::string& path) {
    if (seen.insert(comparable(path)).second) inputs.push_back(path);
  };
  for (const std::string& argument : arguments) {
    if (is_directory(argument)) {
      for (const std::string& path : directory_recordings(argument)) add(path);
    } else if (is_pattern(argument)) {
      for (const std::string& path : pattern_matches(argument))
        if (is_directory(path)) {
          for (const std::string& inner : directory_recordings(path)) add(inner);
        } else {
          add(path);
        }
    } else {
      add(argument);  // opening it says what is wrong with it, as for a single input
    }
  }
  return inputs;
}

std::vector<BatchItem> plan_batch(const std::vector<std::string>& inputs, const std::vector<std::string>& templates) {
  std::vector<BatchItem> items;
  std::map<std::string, std::string> writer;  // comparable output file -> the input writing it
  std::map<std::string, std::string> input_paths;
  for (const std::string& input : inputs) input_paths[comparable(input)] = input;
  for (const std::string& input : inputs) {
    BatchItem item{input, {}};
    for (const std::string& pattern : templates) {
      const std::string output = expand_output_template(pattern, input);
      for (const std::string& file : claimed_paths(output)) {
        const std::string key = comparable(file);
        if (const auto it = input_paths.find(key); it != input_paths.end())
          throw UsageError("output '" + printable(pattern) + "' for " + printable(input) + " is the input " +
                           printable(it->second) + "; nothing was run");
        const auto [it, inserted] = writer.emplace(key, input);
        if (!inserted)
          throw UsageError("two outputs map to " + printable(file) + ": from " + printable(it->second) + " and " +
                           printable(input) + "; put {stem} or {name} in the output names (placeholders: " +
                           kOutputTemplateHelp + "); nothing was run");
      }
      item.outputs.push_back(output);
    }
    items.push_back(std::move(item));
  }
  return items;
}

int run_batch(const std::vector<BatchItem>& items, const BatchOptions& batch, const RunOptions& run,
              const PrepareRun& prepare) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::clamp<std::size_t>(batch.jobs != 0 ? batch.jobs : cores, 1, items.size());
  RunOptions per_file = run;
  // The files share the cores: each file's stages get their share unless --threads says.
  if (per_file.threads == 0 && workers > 1) per_file.threads = std::max<unsigned>(1, cores / workers);
  // Several devices: worker w runs its files on device w mod their number, so each device has
  // its share of the workers and every file one device.
  const std::vector<int> devices = device_list(run.device);
  std::string device_names;
  for (const int d : devices) device_names += (device_names.empty() ? "" : ",") + std::to_string(d);

  std::uint64_t total_bytes = 0;
  std::vector<std::uint64_t> sizes;
  for (const BatchItem& item : items) total_bytes += sizes.emplace_back(input_bytes(item.input));

  const bool show_progress = !run.quiet && ProgressBar::stderr_is_terminal();
  BatchProgress progress(total_bytes, workers, show_progress);
  std::vector<FileResult> results(items.size());
  std::atomic<std::size_t> next{0};
  std::mutex notes_mutex;
  std::set<std::string> notes_shown;
  auto note = [&](const std::string& text) {
    std::lock_guard lock(notes_mutex);
    if (!run.quiet && notes_shown.insert(text).second) progress.print(stderr, "prism: note: " + text + "\n");
  };
  if (workers < devices.size())
    note("--device " + device_names + ": " + std::to_string(workers) + " worker(s) take the first " +
         std::to_string(workers) + " of the " + std::to_string(devices.size()) + " devices (--jobs sets the workers)");

  // A file's warnings come from its worker and, while its graph reads, from the graph's source
  // thread: printed as they come and kept for the summary.
  std::mutex warnings_mutex;
  auto warner = [&](std::size_t index) {
    return [&, index](const std::string& text) {
      {
        std::lock_guard lock(warnings_mutex);
        results[index].warnings.push_back(text);
      }
      progress.print(stderr, "prism: warning: " + printable(text) + "\n");
    };
  };

  StopToken stop;
  const auto start = std::chrono::steady_clock::now();
  auto work = [&](std::size_t worker) {
    RunOptions on_device = per_file;
    const int device = devices[worker % devices.size()];
    on_device.device = std::to_string(device);
    while (!stop.stop_requested()) {
      const std::size_t index = next.fetch_add(1);
      if (index >= items.size()) return;
      const BatchItem& item = items[index];
      FileResult& result = results[index];
      result.device = device;
      const auto file_start = std::chrono::steady_clock::now();
      if (!batch.overwrite && outputs_complete(item)) {
        result.status = FileStatus::skipped;
        progress.file_finished(worker, sizes[index]);
        if (!run.quiet) progress.print(stdout, "skipped " + printable(item.input) + " (outputs exist)\n");
        continue;
      }
      try {
        for (const std::string& output : item.outputs) {
          const fs::path parent = fs::path(output).parent_path();
          std::error_code ec;
          if (!parent.empty()) fs::create_directories(parent, ec);  // opening the output reports a failure
        }
        PreparedRun prepared = prepare(item.input, item.outputs, on_device, note, warner(index));
        RunConfig config = prepared.config;
        const std::uint64_t bytes = sizes[index];
        config.on_progress = [&progress, worker, bytes](const ProgressUpdate& u) {
          if (u.samples_total && *u.samples_total > 0)
            progress.file_progress(worker, static_cast<std::uint64_t>(
                                               static_cast<double>(bytes) *
                                               std::min(1.0, static_cast<double>(u.samples_done) /
                                                                 static_cast<double>(*u.samples_total))));
        };
        prepared.graph->configure(config);
        RunReport report = prepared.graph->run(config, stop);
        if (report.outcome == RunOutcome::failed) {
          result.status = FileStatus::failed;
          result.error = report.error;
        } else if (report.outcome == RunOutcome::interrupted) {
          result.status = FileStatus::interrupted;
          remove_outputs(item);  // cut short: a rerun must not take them for complete
        } else if (const std::string mismatch = report.accounting_mismatch(); !mismatch.empty()) {
          result.status = FileStatus::failed;
          result.error = "accounting mismatch: " + mismatch;
          remove_outputs(item);  // not to be taken for complete by a rerun
        } else {
          result.status = FileStatus::done;
        }
        result.report = std::move(report);
      } catch (const std::exception& e) {
        result.status = FileStatus::failed;
        result.error = e.what();
      }
      result.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - file_start).count();
      progress.file_finished(worker, sizes[index]);
      if (result.status == FileStatus::failed) {
        // Errors about the input usually name it already.
        const bool names_input = result.error.starts_with(item.input + ":");
        progress.print(stderr, "failed  " + (names_input ? "" : printable(item.input) + ": ") +
                                   printable(result.error) + "\n");
      } else if (result.status == FileStatus::done && !run.quiet) {
        const std::uint64_t samples = result.report ? result.report->samples_read : 0;
        progress.print(stdout, "done    " + printable(item.input) + " -> " + printable(joined(item.outputs)) + "  (" +
                                   std::to_string(samples) + " samples, " + seconds_text(result.elapsed_seconds) +
                                   ")\n");
      }
    }
  };
  {
    InterruptGuard guard(stop);
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work, w);
    work(0);
    for (std::thread& t : threads) t.join();
  }
  progress.clear();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::map<FileStatus, std::size_t> counts;
  for (const FileResult& r : results) ++counts[r.status];
  const bool interrupted = InterruptGuard::interrupted() || counts[FileStatus::interrupted] > 0;

  if (!run.summary_json.empty()) {
    nlohmann::json files = nlohmann::json::array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const FileResult& r = results[i];
      files.push_back({{"input", items[i].input},
                       {"outputs", items[i].outputs},
                       {"status", status_name(r.status)},
                       {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
                       {"warnings", r.warnings},
                       {"elapsed_seconds", r.elapsed_seconds},
                       {"device", r.device ? nlohmann::json(*r.device) : nlohmann::json(nullptr)},
                       {"run", r.report ? nlohmann::json::parse(run_summary_json(*r.report)) : nlohmann::json(nullptr)}});
    }
    const nlohmann::json summary = {
        {"files", files},
        {"total",
         {{"files", items.size()},
          {"done", counts[FileStatus::done]},
          {"skipped", counts[FileStatus::skipped]},
          {"failed", counts[FileStatus::failed]},
          {"interrupted", counts[FileStatus::interrupted]},
          {"not_started", counts[FileStatus::not_started]},
          {"jobs", workers},
          {"devices", devices},
          {"elapsed_seconds", elapsed}}}};
    std::ofstream json(run.summary_json);
    json << summary.dump(2) << "\n";
    if (!json) std::fprintf(stderr, "prism: cannot write the summary to %s\n", run.summary_json.c_str());
  }

  if (!run.quiet) {
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.2f files/s", elapsed > 0 ? static_cast<double>(items.size()) / elapsed : 0.0);
    std::string total = "batch: " + std::to_string(items.size()) + " files in " + seconds_text(elapsed) + " (" + rate +
                        ", " + std::to_string(workers) + " jobs" + (devices.size() > 1 ? " on devices " + device_names : "") +
                        "): " + std::to_string(counts[FileStatus::done]) +
                        " done, " + std::to_string(counts[FileStatus::skipped]) + " skipped, " +
                        std::to_string(counts[FileStatus::failed]) + " failed";
    if (interrupted)
      total += ", " + std::to_string(counts[FileStatus::interrupted]) + " interrupted, " +
               std::to_string(counts[FileStatus::not_started]) + " not started";
    std::printf("%s\n", total.c_str());
  }
  if (interrupted) {
    std::fprintf(stderr, "prism: interrupted; the outputs of the files cut short were removed (a rerun redoes them)\n");
    return kExitInterrupted;
  }
  return counts[FileStatus::failed] > 0 ? kExitFailure : kExitOk;
}

}  // namespace prism::app
