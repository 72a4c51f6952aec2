// prism filter: an input through the fir stage (FFT convolution, exact state, optional shift
// and decimation) into one or more outputs; a preset that builds the graph
// INPUT ! fir:KEY=VALUE,... -o OUTPUT... Its options are the fir stage's settings.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/input_options.hpp"
#include "apps/run_graph.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/open_sink.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct FilterOptions {
  std::string input;
  std::vector<std::string> outputs;
  std::unique_ptr<SettingOptions> settings;  // the fir stage's settings as options
  InputOptions raw;
  RunOptions run;
  ArrayOptions array;
};

int run_filter(const FilterOptions& o) {
  if (o.outputs.empty()) throw UsageError("give an output: -o FILE (.wav, .flac, .sigmf-meta, .npy) or -o audio:");
  RunOptions run = o.run;
  run.summary_to_stderr = check_stdout_outputs(o.outputs, o.array);
  check_distinct_outputs(o.outputs, o.array.sidecar);
  SinkOptions sinks;
  sinks.stdout_sidecar = o.array.sidecar;
  const StageKind& fir = *find_stage_kind("fir");
  const SettingValues values = o.settings->values();
  MadeStage made = fir.make(values, stage_environment(o.run));
  if (!made.note.empty() && !o.run.quiet) std::fprintf(stderr, "prism: note: %s\n", made.note.c_str());
  std::unique_ptr<Source> source = open_run_input(o.input, o.raw, o.run);
  const double rate = source->info().sample_rate;
  Graph graph;
  const Graph::Node in = graph.add_source(std::move(source));
  const Graph::Node filter = graph.add_stage(std::move(made.stage));
  graph.connect(in, filter);
  for (const std::string& path : o.outputs) {
    std::unique_ptr<Sink> sink = open_sink(path, sinks);
    if (!sink->accepts(PortKind::samples))
      throw UsageError(path + ": the filtered samples go to " + sample_outputs_help());
    graph.connect(filter, graph.add_sink(std::move(sink)));
  }
  return run_and_report(graph, run_config(run, std::size_t{1} << 16, rate), run);
}

}  // namespace

Runner add_filter_command(CLI::App& app) {
  auto o = std::make_shared<FilterOptions>();
  CLI::App* cmd = app.add_subcommand(
      "filter", "Filter an input with an FIR filter by FFT convolution (taps designed as scipy.signal.firwin, or from "
                "a file), optionally shifted before and decimated inside, into recordings or sound.");
  cmd->footer(
      "The filter, one of: --lowpass F, --highpass F, --bandpass F1:F2, --bandstop F1:F2, --complex-bandpass F1:F2 "
      "(Hz), or --taps FILE (.npy/.txt/.json, as prism design writes them).\n"
      "Its length, one of: --numtaps N [--window W], --transition W --attenuation DB (Kaiser's formula), or "
      "--numtaps N --transition W.\n"
      "--shift HZ moves the signal at +HZ to 0 Hz first (the output's centre frequency moves by HZ); --decimate D keeps "
      "every D-th output (only those are computed); --align causal gives scipy.signal.lfilter(h, 1, x)[::D], --align "
      "same oaconvolve(x, h, 'same')[::D]. Complex input, complex taps or a shift give complex output. "
      "--precision double filters in float64 (on the CPU; with --backend cuda or cufft on a GPU, on our FP64 FFT or "
      "cuFFT's) and writes f64/cf64 samples.\n"
      "Outputs: " + sample_outputs_help() + ".\n"
      "The same as: prism run INPUT ! fir:KEY=VALUE,... -o OUTPUT (prism stages lists the keys).\n"
      "Examples:\n"
      "  prism filter talk.wav -o low.wav --lowpass 3000 --numtaps 255\n"
      "  prism filter iq.sigmf-meta -o channel.sigmf-meta --shift -250e3 --lowpass 100e3 --transition 20e3 "
      "--attenuation 70 --decimate 8\n"
      "  prism filter rec.wav -o out.flac --taps taps.npy --align same\n"
      "Exit codes: 0 done, 1 bad input or failed run, 2 usage error, 130 interrupted (Ctrl-C).");
  cmd->add_option("input", o->input, "Input file, '-' for stdin, audio:..., sdr:..., or gen[:KEY=VALUE,...]")->required();
  cmd->add_option("-o,--output", o->outputs, "Output(s), by extension: " + sample_outputs_help() + "; repeat for several");
  o->settings = std::make_unique<SettingOptions>(*cmd, find_stage_kind("fir")->settings, "Filter (scipy.signal.firwin)");
  add_run_options(*cmd, o->run, "65536", false);
  add_array_options(*cmd, o->array, false);
  add_input_options(*cmd, o->raw);
  add_start_option(*cmd, o->raw, "Input");
  return [o] { return run_filter(*o); };
}

}  // namespace prism::app
