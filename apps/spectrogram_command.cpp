// prism spectrogram: any input -> short-time Fourier transform -> .npy / .png outputs; a preset
// that builds the graph INPUT ! spectrogram -o OUTPUT... Its options are the spectrogram stage's
// settings (names and defaults of scipy.signal.spectrogram, so its users feel at home).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/batch.hpp"
#include "apps/commands.hpp"
#include "apps/input_options.hpp"
#include "apps/run_graph.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/png_sink.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct SpectrogramOptions {
  std::vector<std::string> inputs;  // none: "gen"; several, a directory or a glob: a batch
  std::vector<std::string> outputs;
  std::unique_ptr<SettingOptions> settings;  // the spectrogram stage's settings as options
  InputOptions raw;
  RunOptions run;
  ImageOptions image;
  ArrayOptions array;
  BatchOptions batch;
};

// The chunk size when none is given: 64 Ki samples, smaller when the rows of a chunk would make
// the row pools large (a huge nfft), so that memory stays modest; never below one hop, which
// keeps a chunk worth at least one row.
std::size_t choose_block_samples(const SpectrogramParams& params, const StreamInfo& stream, std::size_t pools) {
  constexpr std::size_t kDefault = 65536;
  constexpr std::size_t kRowBudgetBytes = 64u << 20;  // all row chunks together
  const std::size_t columns = is_complex(stream.format) ? params.nfft : params.nfft / 2 + 1;
  const std::size_t row_bytes = columns * sizeof(float) * pools;
  const std::size_t rows = std::max<std::size_t>(kRowBudgetBytes / row_bytes, 2);
  const std::size_t hop = params.hop() * params.average;
  return std::clamp<std::size_t>((rows - 1) * hop, std::min(hop, kDefault), kDefault);
}

// The samples the run will take from the input, when known in advance.
std::optional<std::uint64_t> samples_to_take(const StreamInfo& info, const RunConfig& config) {
  if (!info.length) return config.max_samples;
  return config.max_samples ? std::min(*info.length, *config.max_samples) : *info.length;
}

// The graph of one input into its outputs; `note` gets what the user should know about it.
// alone: the process's only input, so that --backend auto weighs the GPU's start-up against its
// length (a batch pays the start-up once for all its files).
PreparedRun prepare_spectrogram(const SpectrogramOptions& o, const std::string& input,
                                const std::vector<std::string>& outputs, const RunOptions& run,
                                const Message& note, const Message& warn, bool alone) {
  SettingValues settings = o.settings->values();
  SpectrogramParams params = spectrogram_params_from(settings);
  StageEnvironment environment = stage_environment(run);
  SinkOptions sinks = sink_options(o.image, o.array);

  std::unique_ptr<Source> source = open_run_input(input, o.raw, run, warn);
  const StreamInfo info = source->info();
  check_image_options_suit(sinks, input, info);
  // As scipy.signal.spectrogram: a segment longer than the input shrinks to the input, with a
  // warning, rather than giving no rows (the defaults of noverlap and nfft follow it).
  const std::optional<std::uint64_t> taken = samples_to_take(info, run_config(run, 1, info.sample_rate));
  if (taken && *taken > 0 && *taken < params.nperseg) {
    warn(printable(input) + ": --nperseg " + std::to_string(params.nperseg) + " is longer than the input (" +
         std::to_string(*taken) + " samples); using --nperseg " + std::to_string(*taken) + ", as scipy does");
    settings = o.settings->values({{"nperseg", std::to_string(*taken)}});
    params = spectrogram_params_from(settings);
  }
  if (alone && !info.live) environment.expected_samples = taken;
  sinks.input_label = source->describe();
  // NpySink::check_input's refusals, in the command's names.
  if (sinks.npy_dtype != NpyDtype::float32 && params.mode == SpectrumMode::complex)
    throw UsageError("--output-dtype " + o.array.output_dtype + " cannot hold " + settings.name("mode") +
                     " complex rows; store them as float32");
  if (sinks.npy_dtype != NpyDtype::float32 && params.double_precision)
    throw UsageError("--output-dtype " + o.array.output_dtype + " would throw away the precision of " +
                     settings.name("precision") + " double: ask for one or the other");
  if (sinks.npy_dtype == NpyDtype::uint8 && !params.decibels)
    throw UsageError(params.has_decibel_form()
                         ? "--output-dtype uint8 holds dB values: add " + settings.name("db")
                         : "--output-dtype uint8 holds levels in dB; " + settings.name("mode") + " " +
                               to_string(params.mode) + " rows are not levels: store them as float32 or float16");
  MadeStage made = make_spectrogram_stage(params, environment, settings.namer());
  if (!made.note.empty()) note(made.note);

  PreparedRun prepared{std::make_unique<Graph>(), {}};
  Graph& graph = *prepared.graph;
  const Graph::Node in = graph.add_source(std::move(source));
  const Graph::Node spectrogram = graph.add_stage(std::move(made.stage));
  graph.connect(in, spectrogram);
  for (const std::string& path : outputs) {
    std::unique_ptr<Sink> sink = open_sink(path, sinks);
    if (params.keeps_phase() && dynamic_cast<PngSink*>(sink.get()) != nullptr)
      throw UsageError("-o " + path + ": a PNG shows power or magnitude; " + settings.name("mode") + " " +
                       to_string(params.mode) + " rows go to .npy outputs");
    if (params.double_precision && dynamic_cast<PngSink*>(sink.get()) != nullptr)
      throw UsageError("-o " + path + ": a PNG plots float rows; " + settings.name("precision") +
                       " double rows go to .npy outputs");
    if (params.is_mel() && dynamic_cast<PngSink*>(sink.get()) != nullptr)
      throw UsageError("-o " + path + ": a PNG plots FFT bins on a linear frequency axis; " + settings.name("mode") +
                       " " + to_string(params.mode) + " rows (" +
                       (params.mode == SpectrumMode::mel ? "mel bands" : "cepstral coefficients") +
                       ") go to .npy outputs");
    if (!sink->accepts(PortKind::rows))
      throw UsageError(path + ": spectrogram outputs are " + row_outputs_help());
    graph.connect(spectrogram, graph.add_sink(std::move(sink)));
  }
  prepared.config = run_config(run, choose_block_samples(params, info, run.blocks + run.in_flight), info.sample_rate);
  return prepared;
}

int run_spectrogram(const SpectrogramOptions& o) {
  std::vector<std::string> outputs = o.outputs;
  if (outputs.empty()) outputs.push_back("spectrogram.png");
  const std::vector<std::string> inputs = o.inputs.empty() ? std::vector<std::string>{"gen"} : o.inputs;
  const PrepareRun prepare = [&o](const std::string& input, const std::vector<std::string>& outs,
                                  const RunOptions& run, const Message& note, const Message& warn) {
    return prepare_spectrogram(o, input, outs, run, note, warn, false);
  };
  const bool to_stdout = check_stdout_outputs(outputs, o.array);
  if (is_batch(inputs, outputs)) {
    if (to_stdout)
      throw UsageError("-o - (stdout) takes the output of one input; a batch writes files (-o 'out/{stem}.npy')");
    return run_batch(plan_batch(expand_inputs(inputs), outputs), o.batch, o.run, prepare);
  }
  check_distinct_outputs(outputs, o.array.sidecar);
  RunOptions run = o.run;
  run.summary_to_stderr = to_stdout;
  PreparedRun single = prepare_spectrogram(
      o, inputs.front(), outputs, run,
      [&o](const std::string& note) {
        if (!o.run.quiet) std::fprintf(stderr, "prism: note: %s\n", note.c_str());
      },
      [](const std::string& warning) { std::fprintf(stderr, "prism: warning: %s\n", printable(warning).c_str()); },
      true);
  return run_and_report(*single.graph, single.config, run);
}

}  // namespace

Runner add_spectrogram_command(CLI::App& app) {
  auto o = std::make_shared<SpectrogramOptions>();
  CLI::App* cmd = app.add_subcommand(
      "spectrogram",
      "Compute a spectrogram (short-time Fourier transform) of an input and write it as an image "
      "(.png) and/or an array (.npy with a .json sidecar). Parameters carry the names and the "
      "defaults of scipy.signal.spectrogram.");
  cmd->footer(
      "INPUT is a file (WAV/FLAC/OGG, SigMF .sigmf-meta, raw samples with --format/--rate), '-' "
      "for raw samples on stdin, a live input (which runs until Ctrl-C or --duration):\n"
      "  audio:[NAME|INDEX]   an audio input device (prism devices lists them)\n" +
      std::string(kSdrInputHelp) +
      "  zmq:sub:tcp://HOST:PORT, zmq:pull:...  a ZeroMQ stream (GNU Radio's gr-zeromq format; "
      "docs/network.md)\n"
      "or the test-signal generator:\n"
      "  gen                                  tones at 1 and 6 kHz, a chirp and noise, 48 kHz, 10 s\n"
      "  gen:rate=2e6,complex,tone=-250e3@0.5,noise=0.01,duration=5\n"
      "  keys: rate, duration (inf = endless), tone=F[@A] (repeatable), chirp=F0-F1[@A], "
      "noise=A, complex, seed, format\n"
      "Real input gives one-sided spectra (nfft/2+1 bins); complex input gives two-sided spectra "
      "centred on 0 Hz.\n"
      "The same as: prism run INPUT ! spectrogram:KEY=VALUE,... -o OUTPUT (prism stages lists the keys).\n"
      "Exit codes: 0 done, 1 bad input or failed run, 2 usage error, 130 interrupted (Ctrl-C).");
  cmd->add_option("input", o->inputs,
                  "Input file, '-' for stdin, audio:..., sdr:..., zmq:..., or gen[:KEY=VALUE,...]; several files, "
                  "directories or quoted globs make a batch (docs/batch.md)")
      ->default_str("gen");
  cmd->add_option("-o,--output", o->outputs,
                  "Output file(s), by extension: " + row_outputs_help() + ". Repeat for several. In a batch, a template with " +
                      std::string(kOutputTemplateHelp) + ". Default: spectrogram.png");
  o->settings = std::make_unique<SettingOptions>(*cmd, spectrogram_settings(), "Spectrogram (scipy.signal.spectrogram)");
  add_run_options(*cmd, o->run, "65536, less for a huge --nfft");
  add_input_options(*cmd, o->raw);
  add_start_option(*cmd, o->raw, "Input");
  add_image_options(*cmd, o->image);
  add_array_options(*cmd, o->array, true);
  add_batch_options(*cmd, o->batch);
  return [o] { return run_spectrogram(*o); };
}

}  // namespace prism::app
