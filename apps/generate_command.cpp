// prism generate: write the built-in test signal to a sound file (WAV, FLAC, OGG, AIFF), a SigMF
// recording or a raw file (.cf32, .cs8 ...), or play it on an audio device (-o audio:); a preset
// that builds the graph gen:... -o OUTPUT.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/run_graph.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "sinks/open_sink.hpp"
#include "sources/generator.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct GenerateOptions {
  std::string spec = "gen";
  std::string output;
  bool quiet = false;
};

int run_generate(const GenerateOptions& o) {
  if (o.spec.rfind("gen", 0) != 0)
    throw UsageError("the signal must be a generator spec, gen[:KEY=VALUE,...]; got '" + o.spec + "'");
  GeneratorSpec spec = parse_generator_spec(o.spec);
  // A raw output's extension names the format its samples are written in.
  if (const auto raw = raw_format_from_extension(o.output)) {
    if (spec.format && *spec.format != *raw)
      throw UsageError(o.output + ": the extension names " + std::string(format_name(*raw)) + " samples, but '" +
                       o.spec + "' asks for format=" + std::string(format_name(*spec.format)));
    spec.format = *raw;
    spec.complex_output = is_complex(*raw);
  }
  std::unique_ptr<Source> source = std::make_unique<GeneratorSource>(spec);
  const StreamInfo info = source->info();
  const auto* generator = dynamic_cast<const GeneratorSource*>(source.get());
  std::unique_ptr<Sink> sink = open_sink(o.output, SinkOptions{});
  if (!sink->accepts(PortKind::samples))
    throw UsageError(o.output + ": the signal goes to a recording (" + sample_outputs_help() + ")");
  const bool playback = o.output == "audio" || o.output.rfind("audio:", 0) == 0;
  // Playback may go on until Ctrl-C; a file needs an end.
  if (!info.length && !playback)
    throw UsageError("'" + o.spec + "' is endless; give a duration (e.g. duration=10) to write a file");

  Graph graph;
  graph.connect(graph.add_source(std::move(source)), graph.add_sink(std::move(sink)));
  RunOptions run;
  run.quiet = o.quiet;
  run.print_summary = false;  // one line below says what was written
  run.summary_to_stderr = o.output == "-";
  RunReport report;
  const int code = run_and_report(graph, RunConfig{}, run, &report);
  const std::vector<const NodeReport*> outputs = report.sinks();
  if (report.outcome == RunOutcome::failed || outputs.empty()) return code;
  const NodeReport& written = *outputs.front();
  std::uint64_t underflows = 0, host_xruns = 0;
  for (const Counter& c : written.counters.extras) {
    if (c.name == "underflows") underflows = c.value;
    if (c.name == "host xruns") host_xruns = c.value;
  }
  if (!o.quiet) {
    std::string playback_text;
    if (playback) {
      playback_text = ", " + std::to_string(underflows) + " underflow(s)";
      if (host_xruns != 0) playback_text += ", " + std::to_string(host_xruns) + " xrun(s) reported by the audio system";
    }
    // With -o - the samples are on stdout: the line goes to stderr.
    std::fprintf(o.output == "-" ? stderr : stdout, "%s %s: %llu samples, %s, %u channel(s), %g Hz%s%s\n",
                playback ? "played" : "wrote",
                written.description.c_str(), static_cast<unsigned long long>(written.counters.items_out),
                std::string(format_name(info.format)).c_str(), info.channels, info.sample_rate, playback_text.c_str(),
                report.outcome == RunOutcome::interrupted ? " (interrupted: incomplete)" : "");
  }
  if (underflows != 0)
    std::fprintf(stderr, "prism: warning: the audio device ran dry %llu time(s) waiting for prism: the sound "
                         "has gaps\n", static_cast<unsigned long long>(underflows));
  if (generator != nullptr && generator->clipped_samples() != 0)
    std::fprintf(stderr, "prism: warning: %llu sample values exceeded the %s range and were clipped; "
                         "lower the amplitudes or write f32/cf32\n",
                 static_cast<unsigned long long>(generator->clipped_samples()), std::string(format_name(info.format)).c_str());
  return code;
}

}  // namespace

Runner add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "Write a test signal (tones, chirp, noise; real or complex) to a file, or play it.");
  cmd->footer(
      "SIGNAL is gen[:KEY=VALUE,...] with keys rate, duration, tone=F[@A] (repeatable), "
      "chirp=F0-F1[@A], noise=A, complex, seed, format (f32, cf32, f64, cf64, i16, ci16, i8, ci8, u8, cu8), "
      "channels=N (each the same signal).\n"
      "The output's extension picks the container (see -o); WAV, FLAC, OGG and AIFF take real signals "
      "only, SigMF any; a raw extension (" + raw_extensions_help() + ") also names the format the samples "
      "are written in (a complex one makes the signal complex). -o audio: plays a real signal on the default audio "
      "output at the device's pace (JACK's when a JACK server runs); audio:NAME or audio:INDEX "
      "picks another (prism devices); duration=inf plays until Ctrl-C.\n"
      "Example: prism generate gen:rate=1e6,complex,tone=100e3,noise=0.01,duration=2 -o iq.sigmf-meta\n"
      "Example: prism generate gen:tone=440,duration=3 -o audio:");
  cmd->add_option("signal", o->spec, "Generator spec")->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Output, by extension: " + sample_outputs_help())
      ->required();
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar and no summary line");
  return [o] { return run_generate(*o); };
}

}  // namespace prism::app
