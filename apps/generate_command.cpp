// prism generate: write the built-in test signal to a WAV/FLAC file or a SigMF recording, or
// play it on an audio device (-o audio:).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/progress_bar.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/stop_token.hpp"
#include "sinks/open_sink.hpp"
#include "sources/generator.hpp"
#include "sources/open_source.hpp"
#if PRISM_HAVE_PORTAUDIO
#include "sinks/portaudio_sink.hpp"
#endif

namespace prism::app {

namespace {

// Playback counts the times the device ran dry because prism was late, and the xruns the audio
// system reported (gaps or glitches in the sound); files have no such thing.
struct PlaybackCounts {
  std::uint64_t underflows = 0, host_xruns = 0;
};
std::optional<PlaybackCounts> playback_counts(const SampleSink& sink) {
#if PRISM_HAVE_PORTAUDIO
  if (const auto* audio = dynamic_cast<const PortAudioSink*>(&sink))
    return PlaybackCounts{audio->underflows(), audio->host_underflows()};
#endif
  (void)sink;
  return std::nullopt;
}

struct GenerateOptions {
  std::string spec = "gen";
  std::string output;
  bool quiet = false;
};

int run_generate(const GenerateOptions& o) {
  if (o.spec.rfind("gen", 0) != 0)
    throw UsageError("the signal must be a generator spec, gen[:KEY=VALUE,...]; got '" + o.spec + "'");
  std::unique_ptr<Source> source = open_source(o.spec, SourceOptions{});
  const StreamInfo& info = source->info();
  std::unique_ptr<SampleSink> sink = open_sample_sink(o.output, SampleSinkOptions{});
  // Playback may go on until Ctrl-C; a file needs an end.
  if (!info.length && !playback_counts(*sink))
    throw UsageError("'" + o.spec + "' is endless; give a duration (e.g. duration=10) to write a file");
  sink->begin(info);

  const std::size_t chunk = 65536;
  std::vector<std::byte> buffer(chunk * info.frame_bytes());
  ProgressBar bar("samples", !o.quiet && ProgressBar::stderr_is_terminal());
  StopToken stop;
  InterruptGuard guard(stop);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  try {
    while (!stop.stop_requested()) {
      const std::size_t n = source->read(buffer.data(), chunk);
      if (n == 0) break;
      sink->write(buffer.data(), n);
      done += n;
      bar.update(done, info.length,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    bar.clear();
    sink->finish(!stop.stop_requested());
  } catch (...) {
    bar.clear();
    sink->abort();
    throw;
  }
  const std::optional<PlaybackCounts> playback = playback_counts(*sink);
  if (!o.quiet) {
    std::string playback_text;
    if (playback) {
      playback_text = ", " + std::to_string(playback->underflows) + " underflow(s)";
      if (playback->host_xruns != 0)
        playback_text += ", " + std::to_string(playback->host_xruns) + " xrun(s) reported by the audio system";
    }
    std::printf("%s %s: %llu samples, %s, %u channel(s), %g Hz%s%s\n", playback ? "played" : "wrote",
                sink->describe().c_str(), static_cast<unsigned long long>(sink->samples_written()),
                std::string(format_name(info.format)).c_str(), info.channels, info.sample_rate,
                playback_text.c_str(), stop.stop_requested() ? " (interrupted: incomplete)" : "");
  }
  if (playback && playback->underflows != 0)
    std::fprintf(stderr, "prism: warning: the audio device ran dry %llu time(s) waiting for prism: the sound "
                         "has gaps\n", static_cast<unsigned long long>(playback->underflows));
  if (const auto* generator = dynamic_cast<const GeneratorSource*>(source.get());
      generator != nullptr && generator->clipped_samples() != 0)
    std::fprintf(stderr, "prism: warning: %llu sample values exceeded the %s range and were clipped; "
                         "lower the amplitudes or write f32/cf32\n",
                 static_cast<unsigned long long>(generator->clipped_samples()),
                 std::string(format_name(info.format)).c_str());
  return stop.stop_requested() ? kExitInterrupted : kExitOk;
}

}  // namespace

Runner add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate", "Write a test signal (tones, chirp, noise; real or complex) to a file, or play it.");
  cmd->footer(
      "SIGNAL is gen[:KEY=VALUE,...] with keys rate, duration, tone=F[@A] (repeatable), "
      "chirp=F0-F1[@A], noise=A, complex, seed, format (f32, cf32, i16, ci16).\n"
      "The output's extension picks the container (see -o); WAV, FLAC and OGG take real signals "
      "only, SigMF any. -o audio: plays a real signal on the default audio "
      "output at the device's pace (JACK's when a JACK server runs); audio:NAME or audio:INDEX "
      "picks another (prism devices); duration=inf plays until Ctrl-C.\n"
      "Example: prism generate gen:rate=1e6,complex,tone=100e3,noise=0.01,duration=2 -o iq.sigmf-meta\n"
      "Example: prism generate gen:tone=440,duration=3 -o audio:");
  cmd->add_option("signal", o->spec, "Generator spec")->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Output, by extension: " + sample_sink_extensions_help())
      ->required();
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar and no summary line");
  return [o] { return run_generate(*o); };
}

}  // namespace prism::app
