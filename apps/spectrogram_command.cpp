// prism spectrogram: any input -> short-time Fourier transform -> .npy / .png outputs.
// Option names and defaults follow scipy.signal.spectrogram, so its users feel at home.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/input_options.hpp"
#include "apps/progress_bar.hpp"
#include "fft/fft.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/pipeline.hpp"
#include "pipeline/processor_factory.hpp"
#include "pipeline/run_summary.hpp"
#include "pipeline/spectrogram_params.hpp"
#include "sinks/open_sink.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct SpectrogramOptions {
  std::string input = "gen";
  std::vector<std::string> outputs;
  std::string window = "tukey:0.25";
  std::size_t nperseg = 256;
  std::optional<std::size_t> noverlap;
  std::optional<std::size_t> nfft;
  std::string detrend = "constant";
  std::string scaling = "density";
  std::string mode = "psd";
  bool decibels = false;
  std::string average = "1";
  unsigned channel = 0;
  std::string integer_scale = "unit";
  std::optional<std::size_t> block_size;  // default: chosen by choose_block_samples
  std::size_t blocks = 4;
  unsigned threads = 0;
  std::string backend = "auto";
  int device = 0;             // CUDA device for the GPU backends
  std::size_t in_flight = 2;  // blocks in flight on the GPU backends
  std::optional<double> duration;  // seconds of input to take, then stop
  // raw input
  InputOptions raw;
  // image
  std::string colormap = "viridis";
  std::string db_range;
  std::optional<unsigned> width;
  std::optional<unsigned> height;
  // reporting
  bool quiet = false;
  std::string summary_json;
};

SpectrogramParams make_params(const SpectrogramOptions& o) {
  SpectrogramParams p;
  try {
    p.window = parse_window(o.window);
  } catch (const UsageError& e) {
    throw UsageError(std::string("--window: ") + e.what());
  }
  p.nperseg = o.nperseg;
  if (o.nperseg == 0) throw UsageError("--nperseg must be at least 1");
  p.noverlap = o.noverlap.value_or(o.nperseg / 8);
  p.nfft = o.nfft.value_or(o.nperseg);
  p.detrend = o.detrend == "none" ? Detrend::none : Detrend::constant;
  p.scaling = o.scaling == "spectrum" ? Scaling::spectrum : Scaling::density;
  p.mode = o.mode == "magnitude" ? SpectrumMode::magnitude : SpectrumMode::psd;
  p.decibels = o.decibels;
  const std::string& avg = o.average;
  const std::size_t colon = avg.find(':');
  const std::string count = avg.substr(0, colon);
  try {
    std::size_t used = 0;
    const long k = std::stol(count, &used);
    if (used != count.size() || k < 1) throw std::invalid_argument("range");
    p.average = static_cast<std::size_t>(k);
  } catch (const std::exception&) {
    throw UsageError("--average '" + avg + "': expected K[:mean|max] with K >= 1, e.g. 8:max");
  }
  if (colon != std::string::npos) {
    const std::string kind = avg.substr(colon + 1);
    if (kind == "mean") p.average_kind = AverageKind::mean;
    else if (kind == "max") p.average_kind = AverageKind::max;
    else throw UsageError("--average '" + avg + "': the kind must be mean or max");
  }
  p.channel = o.channel;
  p.integer_scale = o.integer_scale == "raw" ? IntegerScale::raw : IntegerScale::unit;
  p.validate();
  return p;
}

std::pair<std::optional<double>, std::optional<double>> parse_db_range(const std::string& text) {
  if (text.empty()) return {};
  const std::size_t colon = text.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    std::size_t used_lo = 0, used_hi = 0;
    const std::string lo = text.substr(0, colon), hi = text.substr(colon + 1);
    const double a = std::stod(lo, &used_lo), b = std::stod(hi, &used_hi);
    if (used_lo != lo.size() || used_hi != hi.size()) throw std::invalid_argument("junk");
    if (!(a < b)) throw UsageError("--db-range '" + text + "': MIN must be less than MAX");
    return {a, b};
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception&) {
    throw UsageError("--db-range '" + text + "': expected MIN:MAX in dB, e.g. -120:-20");
  }
}

// The block size when none is given: 64 Ki samples, smaller when the rows of a block would make
// the row buffers large (a huge nfft), so that memory stays modest; never below one hop, which
// keeps a block worth at least one row.
std::size_t choose_block_samples(const SpectrogramOptions& o, const SpectrogramParams& params,
                                 const StreamInfo& stream) {
  if (o.block_size) return *o.block_size;
  constexpr std::size_t kDefault = 65536;
  constexpr std::size_t kRowBudgetBytes = 64u << 20;  // all row buffers together
  const std::size_t columns = is_complex(stream.format) ? params.nfft : params.nfft / 2 + 1;
  const std::size_t row_bytes = columns * sizeof(float) * PipelineConfig{}.row_buffer_count;
  const std::size_t rows = std::max<std::size_t>(kRowBudgetBytes / row_bytes, 2);
  const std::size_t hop = params.hop() * params.average;
  return std::clamp<std::size_t>((rows - 1) * hop, std::min(hop, kDefault), kDefault);
}

int run_spectrogram(const SpectrogramOptions& o) {
  const SpectrogramParams params = make_params(o);
  const fft::BackendKind requested = fft::parse_backend(o.backend);
  if (o.block_size && *o.block_size == 0) throw UsageError("--block-size must be at least 1 sample");
  if (o.blocks < 2) throw UsageError("--blocks must be at least 2 (one filling, one in work)");
  if (o.in_flight < 1) throw UsageError("--in-flight must be at least 1");
  if (o.duration && !(*o.duration > 0 && std::isfinite(*o.duration)))
    throw UsageError("--duration must be a positive number of seconds");

  const SourceOptions source_options = to_source_options(o.raw);

  RowSinkOptions sink_options;
  sink_options.colormap = o.colormap;
  std::tie(sink_options.db_min, sink_options.db_max) = parse_db_range(o.db_range);
  sink_options.width = o.width;
  sink_options.height = o.height;

  std::unique_ptr<Source> source = open_source(o.input, source_options);
  if (params.channel >= source->info().channels)
    throw UsageError("--channel " + std::to_string(params.channel) +
                     " is out of range: the input has " + std::to_string(source->info().channels) +
                     " channel(s)");

  const std::size_t block_samples = choose_block_samples(o, params, source->info());
  ProcessorChoice choice;
  choice.backend = requested;
  choice.device = o.device;
  choice.in_flight = o.in_flight;
  choice.cpu_threads = o.threads;
  MadeProcessor made = make_spectrogram_processor(choice, params, source->info(), block_samples);
  if (!made.note.empty() && !o.quiet) std::fprintf(stderr, "prism: note: %s\n", made.note.c_str());
  const HostMemoryKind memory = made.memory;
  Processor& processor = *made.processor;

  std::vector<std::string> outputs = o.outputs;
  if (outputs.empty()) outputs.push_back("spectrogram.png");
  std::vector<std::unique_ptr<RowSink>> sink_objects;
  std::vector<RowSink*> sinks;
  for (const std::string& path : outputs) {
    sink_options.title = source->describe() + "  " + params.window.to_string() + ", nperseg " +
                         std::to_string(params.nperseg) + ", noverlap " +
                         std::to_string(params.noverlap) + ", nfft " + std::to_string(params.nfft);
    sink_objects.push_back(open_row_sink(path, sink_options));
    sinks.push_back(sink_objects.back().get());
  }

  const bool show_progress = !o.quiet && ProgressBar::stderr_is_terminal();
  ProgressBar bar("samples", show_progress);
  PipelineConfig config;
  config.block_samples = block_samples;
  config.block_count = o.blocks;
  config.memory = memory;
  if (o.duration) {
    const double samples = std::ceil(*o.duration * source->info().sample_rate);
    config.max_samples = static_cast<std::uint64_t>(samples);
  }
  config.on_progress = [&bar](const ProgressUpdate& u) {
    bar.update(u.samples_done, u.samples_total, u.elapsed_seconds);
  };

  StopToken stop;
  RunReport report;
  {
    InterruptGuard guard(stop);
    report = run_pipeline(*source, processor, sinks, config, stop);
  }
  bar.clear();

  if (!o.summary_json.empty()) {
    std::ofstream json(o.summary_json);
    json << run_summary_json(report).dump(2) << "\n";
    if (!json) std::fprintf(stderr, "prism: cannot write the summary to %s\n", o.summary_json.c_str());
  }
  const std::string summary = format_run_summary(report);
  if (report.outcome == RunOutcome::failed) {
    std::fprintf(stderr, "prism: %s\n", printable(report.error).c_str());
    if (report.outputs_kept_incomplete)
      std::fprintf(stderr, "prism: the outputs hold the rows computed before the live input failed and are "
                           "marked incomplete\n");
    if (!o.quiet) std::fputs(summary.c_str(), stderr);
    return kExitFailure;
  }
  if (!o.quiet) std::fputs(summary.c_str(), stdout);
  if (report.outcome == RunOutcome::interrupted) {
    std::fprintf(stderr, "prism: interrupted; the outputs hold the rows computed so far and are marked incomplete\n");
    return kExitInterrupted;
  }
  if (const std::string mismatch = report.accounting_mismatch(); !mismatch.empty()) {
    std::fprintf(stderr, "prism: accounting mismatch: %s\n", mismatch.c_str());
    return kExitFailure;
  }
  return kExitOk;
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
      "or the test-signal generator:\n"
      "  gen                                  tones at 1 and 6 kHz, a chirp and noise, 48 kHz, 10 s\n"
      "  gen:rate=2e6,complex,tone=-250e3@0.5,noise=0.01,duration=5\n"
      "  keys: rate, duration (inf = endless), tone=F[@A] (repeatable), chirp=F0-F1[@A], "
      "noise=A, complex, seed, format\n"
      "Real input gives one-sided spectra (nfft/2+1 bins); complex input gives two-sided spectra "
      "centred on 0 Hz.\n"
      "Exit codes: 0 done, 1 bad input or failed run, 2 usage error, 130 interrupted (Ctrl-C).");
  cmd->add_option("input", o->input, "Input file, '-' for stdin, audio:..., sdr:..., or gen[:KEY=VALUE,...]")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->outputs,
                  "Output file(s), by extension: .png (image), .npy (float32 rows x bins, with a "
                  ".json sidecar). Repeat for several. Default: spectrogram.png");
  cmd->add_option("--window", o->window,
                  "Window NAME[:PARAM]: " + window_names_help() +
                      " [default: " + o->window + ", scipy.signal.spectrogram's]");
  cmd->add_option("--nperseg", o->nperseg, "Samples per segment (frame)")->capture_default_str();
  cmd->add_option("--noverlap", o->noverlap, "Samples shared by consecutive segments [default: nperseg/8]");
  cmd->add_option("--nfft", o->nfft, "FFT length >= nperseg; segments are zero-padded [default: nperseg]");
  cmd->add_option("--detrend", o->detrend, "Remove each segment's mean (constant) or not (none)")
      ->check(CLI::IsMember({"none", "constant"}))
      ->capture_default_str();
  cmd->add_option("--scaling", o->scaling, "density (V**2/Hz) or spectrum (V**2)")
      ->check(CLI::IsMember({"density", "spectrum"}))
      ->capture_default_str();
  cmd->add_option("--mode", o->mode, "psd (power) or magnitude (|X|)")
      ->check(CLI::IsMember({"psd", "magnitude"}))
      ->capture_default_str();
  cmd->add_flag("--db", o->decibels, "Output in dB: 10*log10(power), 20*log10(magnitude)");
  cmd->add_option("--average", o->average,
                  "Average K consecutive frames per output row: K[:mean|max] (max = peak hold)")
      ->capture_default_str();
  cmd->add_option("--channel", o->channel, "Channel to analyse in a multi-channel input (0-based)")
      ->capture_default_str();
  cmd->add_option("--integer-scale", o->integer_scale,
                  "Integer samples (i16, ci16, i8, u8 ..., 16-bit PCM WAV) as unit: scaled to "
                  "[-1, 1), or raw: the stored values, as numpy/scipy.io.wavfile see them")
      ->check(CLI::IsMember({"unit", "raw"}))
      ->capture_default_str();
  cmd->add_option("--block-size", o->block_size,
                  "Samples per block moving through the pipeline; the output does not depend on "
                  "it [default: 65536, less for a huge --nfft]");
  cmd->add_option("--duration", o->duration,
                  "Seconds of input to take, then stop (a capture of that length from a live input; "
                  "the start of a file) [default: all]");
  cmd->add_option("--blocks", o->blocks, "Blocks in the pool (bounds memory)")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU worker threads [default: all cores]");
  cmd->add_option("--backend", o->backend, "cpu, cuda (prism's kernels), cufft, or auto (GPU if present)")
      ->check(CLI::IsMember({"cpu", "cuda", "cufft", "auto"}))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "CUDA device for the GPU backends (0-based)")->capture_default_str();
  cmd->add_option("--in-flight", o->in_flight,
                  "Blocks in flight on the GPU backends: copies of one block overlap the work on "
                  "the others (rows come out this many blocks later)")
      ->capture_default_str();
  add_input_options(*cmd, o->raw);
  auto* image = "Image output";
  cmd->add_option("--colormap", o->colormap, "viridis, inferno, magma, turbo or grayscale")
      ->capture_default_str()
      ->group(image);
  cmd->add_option("--db-range", o->db_range, "Colour range MIN:MAX in dB [default: automatic]")
      ->group(image);
  cmd->add_option("--width", o->width, "Plot width in pixels [default: rows, clamped to 400..1600]")->group(image);
  cmd->add_option("--height", o->height, "Plot height in pixels [default: bins, clamped to 400..800]")->group(image);
  cmd->add_flag("-q,--quiet", o->quiet, "No progress bar and no summary");
  cmd->add_option("--summary-json", o->summary_json, "Also write the run summary as JSON to this file");
  return [o] { return run_spectrogram(*o); };
}

}  // namespace prism::app
