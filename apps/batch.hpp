// Many recordings in one run (prism spectrogram A.wav DIR/ 'rec*.cf32' -o 'out/{stem}.npy'):
// the inputs expanded (directories to their recordings, quoted globs), output names from
// templates, collisions refused before anything runs, files processed concurrently by --jobs
// workers (with several --device, each worker's files on its device) with one progress bar, one
// line per file and a total, complete outputs skipped unless --overwrite, and --summary-json with
// an entry per file. The command supplies the per-file graph; everything else about a batch
// lives here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apps/output_template.hpp"
#include "apps/run_graph.hpp"
#include "pipeline/graph.hpp"

namespace prism::app {

struct BatchOptions {
  unsigned jobs = 0;  // files processed at once; 0: one per core
  bool overwrite = false;
};

// Registers --jobs and --overwrite in the group "Batch".
void add_batch_options(CLI::App& cmd, BatchOptions& options);

// True when the arguments ask for a batch: more than one input, a directory, a pattern with
// * ? or [ that names no existing file, or an output with a placeholder. Otherwise the
// command runs its single input exactly as it always has.
bool is_batch(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

// The inputs, in order: a directory gives its recordings (sound files, .sigmf-meta, .sigmf and
// raw files with a format extension such as .cf32) sorted by name, not recursing; a pattern
// gives its matches sorted; a file stays as given. A path named twice is kept once. InputError
// for a pattern without matches or a directory without recordings (a missing file fails when
// it is opened, as a single input does).
std::vector<std::string> expand_inputs(const std::vector<std::string>& arguments);

struct BatchItem {
  std::string input;
  std::vector<std::string> outputs;
};

// Each input with its outputs. UsageError when two inputs map to one output path (or an
// output's sidecar), or an output would replace an input.
std::vector<BatchItem> plan_batch(const std::vector<std::string>& inputs, const std::vector<std::string>& templates);

// What the command builds for one file: its graph and the run's configuration.
struct PreparedRun {
  std::unique_ptr<Graph> graph;
  RunConfig config;
};
// Builds the graph of `input` into `outputs` with `run` (its --threads chosen for the batch);
// `note` receives the notes the command would print (about the run: a stage's backend), `warn`
// the warnings about this input (a segment shrunk to a short input, a recording cut short),
// also from the run's source thread while it reads. Throws as the single run does.
using Message = std::function<void(const std::string&)>;
using PrepareRun = std::function<PreparedRun(const std::string& input, const std::vector<std::string>& outputs,
                                             const RunOptions& run, const Message& note, const Message& warn)>;

// Runs the batch and reports it; returns the exit code: 0 all done or skipped, 1 any failed,
// 130 interrupted (the outputs of the files cut short are removed, so that a rerun redoes them).
int run_batch(const std::vector<BatchItem>& items, const BatchOptions& batch, const RunOptions& run,
              const PrepareRun& prepare);

}  // namespace prism::app
