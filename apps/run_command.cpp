// prism run: the general form of every command that processes samples — an input, a chain of
// stages, and one or more outputs, each of which may have stages of its own:
//
//   prism run INPUT [! STAGE[:KEY=VALUE,...]]... -o [STAGE[:KEY=VALUE,...] !]... OUTPUT
//
// The stages after INPUT feed every -o; each -o branches off their end. Stage specs name a stage
// of the registry (prism stages) and its settings; outputs are chosen by extension.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  std::vector<std::string> chain;    // INPUT ! STAGE ! ..., as the shell split it
  std::vector<std::string> outputs;  // each "[STAGE ! ]... OUTPUT"
  InputOptions raw;
  RunOptions run;
  ImageOptions image;
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

// As prism spectrogram and scipy: a spectrogram whose nperseg is longer than the `samples` it
// will be given (known when it reads the input itself) shrinks to them, with a warning.
void shrink_segment_to_input(StageSpec& spec, std::optional<std::uint64_t> samples) {
  if (spec.name != "spectrogram" || !samples || *samples == 0) return;
  const auto given = spec.settings.find("nperseg");
  const std::optional<std::int64_t> nperseg =
      given == spec.settings.end() ? std::optional<std::int64_t>{256} : parse_integer(given->second);
  if (!nperseg || *nperseg <= 0 || static_cast<std::uint64_t>(*nperseg) <= *samples) return;  // checked by the stage
  std::fprintf(stderr, "prism: warning: spectrogram: nperseg %lld is longer than the input (%llu samples); using "
                 "nperseg %llu, as scipy does\n", static_cast<long long>(*nperseg),
                 static_cast<unsigned long long>(*samples), static_cast<unsigned long long>(*samples));
  spec.settings["nperseg"] = std::to_string(*samples);
}

// Adds the stages of `specs` after `from`; returns the last node. `input_samples`: what the
// first of them gets when `from` is the input and its length is known.
Graph::Node add_stages(Graph& graph, Graph::Node from, const std::vector<std::string>& specs, std::size_t count,
                       const StageEnvironment& environment, bool quiet,
                       std::optional<std::uint64_t> input_samples = std::nullopt) {
  for (std::size_t i = 0; i < count; ++i) {
    StageSpec spec = parse_stage_spec(specs[i]);
    if (i == 0) shrink_segment_to_input(spec, input_samples);
    MadeStage made = make_stage(spec, environment);
    if (!made.note.empty() && !quiet) std::fprintf(stderr, "prism: note: %s\n", made.note.c_str());
    const Graph::Node node = graph.add_stage(std::move(made.stage));
    graph.connect(from, node);
    from = node;
  }
  return from;
}

int run_chain(const RunCommandOptions& o) {
  if (o.chain.empty()) throw UsageError("give an INPUT (a file, -, audio:..., sdr:..., gen:...)");
  if (o.outputs.empty()) throw UsageError("give at least one output: -o OUTPUT, or -o 'STAGE ! OUTPUT'");
  const std::vector<std::string> main = split_chain(o.chain, "the chain");
  const StageEnvironment environment = stage_environment(o.run);
  SinkOptions sinks = sink_options(o.image, o.array);

  std::vector<std::string> output_paths;
  for (const std::string& output : o.outputs) output_paths.push_back(split_chain({output}, "-o").back());
  RunOptions run = o.run;
  run.summary_to_stderr = check_stdout_outputs(output_paths, o.array);
  check_distinct_outputs(output_paths, o.array.sidecar);

  Graph graph;
  std::unique_ptr<Source> source = open_run_input(main.front(), o.raw, o.run);
  sinks.input_label = source->describe();
  check_image_options_suit(sinks, main.front(), source->info());
  const double rate = source->info().sample_rate;
  std::optional<std::uint64_t> input_samples = source->info().length;
  if (const std::optional<std::uint64_t> limit = run_config(o.run, 1, rate).max_samples)
    input_samples = input_samples ? std::min(*input_samples, *limit) : limit;
  const Graph::Node in = graph.add_source(std::move(source));
  const Graph::Node trunk = add_stages(graph, in, std::vector<std::string>(main.begin() + 1, main.end()),
                                       main.size() - 1, environment, o.run.quiet, input_samples);
  const bool trunk_is_input = main.size() == 1;
  for (const std::string& output : o.outputs) {
    const std::vector<std::string> branch = split_chain({output}, "-o");
    const std::string& path = branch.back();
    if (names_a_stage(path))
      throw UsageError("-o '" + printable(output) + "': it ends with the stage '" + printable(path) +
                       "'; an output (a file or audio:) must come last");
    for (std::size_t i = 0; i + 1 < branch.size(); ++i)
      if (!names_a_stage(branch[i]) && names_an_output(branch[i]) && branch[i].find('.') != std::string::npos)
        throw UsageError("-o '" + printable(output) + "': '" + printable(branch[i]) +
                         "' is an output; an output (a file or audio:) must come last");
    const Graph::Node end = add_stages(graph, trunk, branch, branch.size() - 1, environment, o.run.quiet,
                                       trunk_is_input ? input_samples : std::nullopt);
    graph.connect(end, graph.add_sink(open_sink(path, sinks)));
  }
  return run_and_report(graph, run_config(run, std::size_t{1} << 16, rate), run);
}

}  // namespace

Runner add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an input through a chain of stages into one or more outputs (the general form of spectrogram "
             "and generate).");
  cmd->footer(
      "Usage: prism run INPUT [! STAGE[:KEY=VALUE,...]]... -o [STAGE[:KEY=VALUE,...] !]... OUTPUT ...\n"
      "The stages after INPUT feed every output; each -o may add stages of its own (quote it). prism stages lists\n"
      "the stages and their keys. Outputs by extension: rows go to " + row_outputs_help() +
      "; samples to " + sample_outputs_help() + ".\n"
      "Examples:\n"
      "  prism run rec.sigmf-meta -o 'spectrogram:nperseg=1024,window=hann ! spec.png' -o copy.sigmf-meta\n"
      "  prism run talk.wav ! spectrogram:nperseg=512,db -o talk.npy -o talk.png\n"
      "  prism run gen:rate=1e6,complex,tone=1e5 -o iq.sigmf-meta -o 'spectrogram ! iq.png' --backend cuda\n"
      "Exit codes: 0 done, 1 bad input or failed run, 2 usage error (a bad chain names the stage and the key), "
      "130 interrupted.");
  cmd->add_option("chain", o->chain, "INPUT [! STAGE[:KEY=VALUE,...]]...")->required()->allow_extra_args();
  cmd->add_option("-o,--output", o->outputs, "[STAGE[:KEY=VALUE,...] !]... OUTPUT (repeat to branch)");
  add_run_options(*cmd, o->run);
  add_input_options(*cmd, o->raw);
  add_start_option(*cmd, o->raw, "Input");
  add_image_options(*cmd, o->image);
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
