// prism run: the general form of every command that processes samples — an input, a chain of
// stages, and one or more outputs, each of which may have stages of its own:
//
//   prism run INPUT [! STAGE[:KEY=VALUE,...]]... -o [STAGE[:KEY=VALUE,...] !]... OUTPUT
//
// The stages after INPUT feed every -o; each -o branches off their end. Stage specs name a stage
// of the registry (prism stages) and its settings; outputs are chosen by extension. Several
// inputs (files, directories, quoted globs) before the first '!' make a batch (apps/batch.hpp):
// each runs through the same chain into outputs named by templates such as 'out/{stem}.npy'.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/batch.hpp"
#include "apps/commands.hpp"
#include "apps/input_options.hpp"
#include "apps/run_graph.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/open_sink.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct RunCommandOptions {
  std::vector<std::string> chain;    // INPUT... ! STAGE ! ..., as the shell split it
  std::vector<std::string> outputs;  // each "[STAGE ! ]... OUTPUT"
  InputOptions raw;
  RunOptions run;
  ImageOptions image;
  BatchOptions batch;
  ArrayOptions array;
};

std::string trim(std::string_view text) {
  std::size_t a = 0, b = text.size();
  while (a < b && (text[a] == ' ' || text[a] == '\t')) ++a;
  while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  return std::string(text.substr(a, b - a));
}

// "a ! b ! c" (or the shell's words "a", "!", "b" ...) -> {"a", "b", "c"}; an empty part is a
// usage error naming `what`.
std::vector<std::string> split_chain(const std::vector<std::string>& words, const std::string& what) {
  std::string joined;
  for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t bang = joined.find('!', start);
    const std::string part = trim(std::string_view(joined).substr(start, bang == std::string::npos ? std::string::npos : bang - start));
    if (part.empty())
      throw UsageError(what + " '" + printable(joined) + "': an empty step (two '!' in a row, or one at an end)");
    parts.push_back(part);
    if (bang == std::string::npos) break;
    start = bang + 1;
  }
  return parts;
}

// The chain's words split into its inputs and its stages: the words before the first '!' are
// inputs, one each (several make a batch), and the rest is split at each '!'. A single quoted
// word "in.wav ! fir:..." works as well.
struct Chain {
  std::vector<std::string> inputs;
  std::vector<std::string> stages;
};
Chain parse_chain(const std::vector<std::string>& words) {
  Chain chain;
  std::size_t i = 0;
  for (; i < words.size() && words[i].find('!') == std::string::npos; ++i)
    if (const std::string input = trim(words[i]); !input.empty()) chain.inputs.push_back(input);
  if (i == words.size()) return chain;
  const std::size_t bang = words[i].find('!');
  if (const std::string input = trim(std::string_view(words[i]).substr(0, bang)); !input.empty())
    chain.inputs.push_back(input);
  if (chain.inputs.empty())
    throw UsageError("give an INPUT before the first '!' (a file, -, audio:..., sdr:..., gen:...)");
  std::vector<std::string> rest = {words[i].substr(bang + 1)};
  rest.insert(rest.end(), words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
  chain.stages = split_chain(rest, "the chain");
  return chain;
}

// As prism spectrogram and scipy: a spectrogram whose nperseg is longer than the `samples` it
// will be given (known when it reads the input itself) shrinks to them, with a warning.
void shrink_segment_to_input(StageSpec& spec, std::optional<std::uint64_t> samples, const Message& warn) {
  if (spec.name != "spectrogram" || !samples || *samples == 0) return;
  const auto given = spec.settings.find("nperseg");
  const std::optional<std::int64_t> nperseg =
      given == spec.settings.end() ? std::optional<std::int64_t>{256} : parse_integer(given->second);
  if (!nperseg || *nperseg <= 0 || static_cast<std::uint64_t>(*nperseg) <= *samples) return;  // checked by the stage
  warn("spectrogram: nperseg " + std::to_string(*nperseg) + " is longer than the input (" + std::to_string(*samples) +
       " samples); using nperseg " + std::to_string(*samples) + ", as scipy does");
  spec.settings["nperseg"] = std::to_string(*samples);
}

// The last node of a chain, and whether its output is in GPU memory.
struct ChainEnd {
  Graph::Node node;
  bool on_gpu = false;
};

// Adds the stages of `specs` after `from`; returns the last node. `input_samples`: what the
// first of them gets when `from` is the input and its length is known. `weigh_start_up`: the
// first stage's --backend auto weighs the GPU's start-up against input_samples (one input, not
// live), as prism spectrogram's does, so that the two give the same rows. Each stage learns
// whether the one before it leaves its output on the GPU (StageEnvironment::input_on_gpu).
ChainEnd add_stages(Graph& graph, ChainEnd from, const std::vector<std::string>& specs, std::size_t count,
                    const StageEnvironment& environment, const Message& note, const Message& warn,
                    std::optional<std::uint64_t> input_samples = std::nullopt, bool weigh_start_up = false) {
  for (std::size_t i = 0; i < count; ++i) {
    StageSpec spec = parse_stage_spec(specs[i]);
    StageEnvironment this_stage = environment;
    this_stage.input_on_gpu = from.on_gpu;
    if (i == 0) {
      shrink_segment_to_input(spec, input_samples, warn);
      if (weigh_start_up) this_stage.expected_samples = input_samples;
    }
    MadeStage made = make_stage(spec, this_stage);
    if (!made.note.empty()) note(made.note);
    const bool on_gpu = made.stage->output_domain().on_device();
    const Graph::Node node = graph.add_stage(std::move(made.stage));
    graph.connect(from.node, node);
    from = {node, on_gpu};
  }
  return from;
}

// The graph of `input` through the chain's stages into `output_paths` (one per -o, each -o's own
// stages taken from it). alone: the process's only input (as prepare_spectrogram's).
PreparedRun prepare_chain(const RunCommandOptions& o, const std::vector<std::string>& stages, const std::string& input,
                          const std::vector<std::string>& output_paths, const RunOptions& run, const Message& note,
                          const Message& warn, bool alone) {
  const StageEnvironment environment = stage_environment(run);
  SinkOptions sinks = sink_options(o.image, o.array);
  PreparedRun prepared{std::make_unique<Graph>(), {}};
  Graph& graph = *prepared.graph;
  std::unique_ptr<Source> source = open_run_input(input, o.raw, run, warn);
  sinks.input_label = source->describe();
  check_image_options_suit(sinks, input, source->info());
  const double rate = source->info().sample_rate;
  const bool weigh_start_up = alone && !source->info().live;
  std::optional<std::uint64_t> input_samples = source->info().length;
  if (const std::optional<std::uint64_t> limit = run_config(run, 1, rate).max_samples)
    input_samples = input_samples ? std::min(*input_samples, *limit) : limit;
  const Graph::Node in = graph.add_source(std::move(source));
  const Message warn_about_input = [&](const std::string& text) { warn(input + ": " + text); };
  const ChainEnd trunk = add_stages(graph, ChainEnd{in}, stages, stages.size(), environment, note, warn_about_input,
                                    input_samples, weigh_start_up);
  for (std::size_t i = 0; i < o.outputs.size(); ++i) {
    const std::string& output = o.outputs[i];
    const std::vector<std::string> branch = split_chain({output}, "-o");
    const std::string& path = output_paths[i];
    if (names_a_stage(branch.back()))
      throw UsageError("-o '" + printable(output) + "': it ends with the stage '" + printable(branch.back()) +
                       "'; an output (a file or audio:) must come last");
    for (std::size_t j = 0; j + 1 < branch.size(); ++j)
      if (!names_a_stage(branch[j]) && names_an_output(branch[j]) && branch[j].find('.') != std::string::npos)
        throw UsageError("-o '" + printable(output) + "': '" + printable(branch[j]) +
                         "' is an output; an output (a file or audio:) must come last");
    const ChainEnd end = add_stages(graph, trunk, branch, branch.size() - 1, environment, note, warn_about_input,
                                    stages.empty() ? input_samples : std::nullopt, stages.empty() && weigh_start_up);
    graph.connect(end.node, graph.add_sink(open_sink(path, sinks)));
  }
  prepared.config = run_config(run, std::size_t{1} << 16, rate);
  return prepared;
}

int run_chain(const RunCommandOptions& o) {
  const Chain chain = parse_chain(o.chain);
  if (chain.inputs.empty()) throw UsageError("give an INPUT (a file, -, audio:..., sdr:..., gen:...)");
  if (o.outputs.empty()) throw UsageError("give at least one output: -o OUTPUT, or -o 'STAGE ! OUTPUT'");
  // The paths of the outputs: in a batch, templates filled in for each input.
  std::vector<std::string> output_paths;
  for (const std::string& output : o.outputs) output_paths.push_back(split_chain({output}, "-o").back());
  const PrepareRun prepare = [&o, &chain](const std::string& input, const std::vector<std::string>& paths,
                                          const RunOptions& run, const Message& note, const Message& warn) {
    return prepare_chain(o, chain.stages, input, paths, run, note, warn, false);
  };
  const bool to_stdout = check_stdout_outputs(output_paths, o.array);
  if (is_batch(chain.inputs, output_paths)) {
    if (to_stdout)
      throw UsageError("-o - (stdout) takes the output of one input; a batch writes files (-o 'out/{stem}.npy')");
    return run_batch(plan_batch(expand_inputs(chain.inputs), output_paths), o.batch, o.run, prepare);
  }
  check_distinct_outputs(output_paths, o.array.sidecar);
  RunOptions run = o.run;
  run.summary_to_stderr = to_stdout;
  PreparedRun single = prepare_chain(
      o, chain.stages, chain.inputs.front(), output_paths, run,
      [&o](const std::string& note) {
        if (!o.run.quiet) std::fprintf(stderr, "prism: note: %s\n", note.c_str());
      },
      [](const std::string& warning) { std::fprintf(stderr, "prism: warning: %s\n", printable(warning).c_str()); },
      true);
  return run_and_report(*single.graph, single.config, run);
}

}  // namespace

Runner add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an input through a chain of stages into one or more outputs (the general form of spectrogram "
             "and generate).");
  cmd->footer(
      "Usage: prism run INPUT... [! STAGE[:KEY=VALUE,...]]... -o [STAGE[:KEY=VALUE,...] !]... OUTPUT ...\n"
      "The stages after INPUT feed every output; each -o may add stages of its own (quote it). prism stages lists\n"
      "the stages and their keys. Outputs by extension: rows go to " + row_outputs_help() +
      "; samples to " + sample_outputs_help() + ".\n"
      "Several inputs, directories or quoted globs before the first '!' make a batch: each input runs through the\n"
      "chain into outputs named by templates with " + std::string(kOutputTemplateHelp) + " (docs/batch.md).\n"
      "Examples:\n"
      "  prism run rec.sigmf-meta -o 'spectrogram:nperseg=1024,window=hann ! spec.png' -o copy.sigmf-meta\n"
      "  prism run talk.wav ! spectrogram:nperseg=512,db -o talk.npy -o talk.png\n"
      "  prism run gen:rate=1e6,complex,tone=1e5 -o iq.sigmf-meta -o 'spectrogram ! iq.png' --backend cuda\n"
      "  prism run rec/ 'more/*.wav' ! fir:lowpass=3e3 -o 'out/{stem}.wav' -o 'spectrogram ! out/{stem}.png'\n"
      "Exit codes: 0 done, 1 bad input or failed run, 2 usage error (a bad chain names the stage and the key), "
      "130 interrupted.");
  cmd->add_option("chain", o->chain, "INPUT... [! STAGE[:KEY=VALUE,...]]... (several inputs: a batch)")
      ->required()
      ->allow_extra_args();
  cmd->add_option("-o,--output", o->outputs,
                  "[STAGE[:KEY=VALUE,...] !]... OUTPUT (repeat to branch; in a batch, OUTPUT is a template)");
  add_run_options(*cmd, o->run);
  add_input_options(*cmd, o->raw);
  add_start_option(*cmd, o->raw, "Input");
  add_image_options(*cmd, o->image);
  add_batch_options(*cmd, o->batch);
  add_array_options(*cmd, o->array, true);
  return [o] { return run_chain(*o); };
}

Runner add_stages_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("stages", "List the stages a chain can name, with their ports and settings.");
  cmd->footer("Use them in prism run: INPUT ! NAME:KEY=VALUE,... -o OUTPUT. A flag alone (db) means db=true.");
  return [] {
    std::fputs(stages_help().c_str(), stdout);
    return kExitOk;
  };
}

}  // namespace prism::app
