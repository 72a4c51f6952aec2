// prism view: the live spectrogram viewer (gui/). Parses the options into ViewSettings on top of
// the saved ones, opens the input and runs the window. Without GLFW/ImGui in the build it says
// what to install.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "apps/commands.hpp"
#include "apps/option_checks.hpp"
#include "apps/input_options.hpp"
#include "apps/run_graph.hpp"
#include "fft/fft.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "sources/open_source.hpp"

#if PRISM_HAVE_VIEWER
#include "gui/channel_receiver.hpp"
#include "gui/viewer.hpp"
#endif
#if PRISM_HAVE_PORTAUDIO
#include "sources/portaudio_source.hpp"
#endif

namespace prism::app {

namespace {

struct ViewOptions {
  std::string input = "gen:duration=inf";
  // input: the options every command that reads samples takes (apps/input_options.hpp)
  InputOptions in;
  bool channels_given = false;  // --channels given; else an audio device captures up to 2
  unsigned audio_block = 0;
  std::optional<double> stall_timeout;  // live inputs; unset: default_stall_timeout_s
  // settings (unset: the saved value, else the default)
  std::optional<std::size_t> fft_size;
  std::optional<std::string> window;
  std::optional<double> overlap;
  std::optional<unsigned> channel;
  std::optional<double> averaging;
  std::optional<bool> peak_hold, min_hold, loop;
  std::optional<double> hold_decay;
  std::optional<std::string> db_range;
  std::optional<std::string> colormap;
  std::optional<double> lines_per_second;
  std::optional<std::string> speed;
  std::optional<std::string> frequency_range;
  std::optional<double> listen;
  std::optional<std::string> demodulator;
  std::optional<double> listen_bandwidth;
  std::optional<double> volume;
  // window and headless use
  std::string size = "1280x800";
  long frames = 0;
  std::string screenshot;
  std::string report;
  std::string script;
  double fps = 60;
  bool auto_range = false;
  std::string config;
  bool no_config = false;
  // processing
  std::string backend = "auto";
  int device = 0;
};

std::pair<double, double> parse_pair(const std::string& text, const std::string& option, char separator) {
  const std::size_t at = text.find(separator);
  try {
    if (at == std::string::npos) throw std::invalid_argument("no separator");
    std::size_t used_a = 0, used_b = 0;
    const std::string a = text.substr(0, at), b = text.substr(at + 1);
    const double x = std::stod(a, &used_a), y = std::stod(b, &used_b);
    if (used_a != a.size() || used_b != b.size()) throw std::invalid_argument("junk");
    return {x, y};
  } catch (const std::exception&) {
    throw UsageError(option + " '" + text + "': expected A" + separator + "B, two numbers");
  }
}

#if PRISM_HAVE_VIEWER
int run_view(const ViewOptions& o) {
  view::ViewerOptions viewer;
  viewer.config_path = o.no_config ? std::string() : (o.config.empty() ? view::default_config_path() : o.config);
  if (!viewer.config_path.empty()) view::load_settings_file(viewer.config_path, viewer.settings);

  view::ViewSettings& s = viewer.settings;
  if (o.fft_size) s.fft_size = *o.fft_size;
  if (o.window) {
    try {
      (void)parse_window(*o.window);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--window: ") + e.what());
    }
    s.window = *o.window;
  }
  if (o.overlap) s.overlap = *o.overlap;
  if (o.channel) s.channel = *o.channel;
  if (o.averaging) s.averaging_s = *o.averaging;
  if (o.peak_hold) s.peak_hold = *o.peak_hold;
  if (o.min_hold) s.min_hold = *o.min_hold;
  if (o.hold_decay) s.hold_decay_db_per_s = *o.hold_decay;
  if (o.db_range) std::tie(s.db_min, s.db_max) = parse_pair(*o.db_range, "--db-range", ':');
  if (o.colormap) s.colormap = *o.colormap;
  if (o.lines_per_second) s.lines_per_second = *o.lines_per_second;
  if (o.loop) s.loop = *o.loop;
  if (o.speed) {
    if (*o.speed == "max") s.speed = 0;
    else s.speed = parse_pair(*o.speed + "x0", "--speed", 'x').first;
  }
  if (o.frequency_range) {
    // Given as on the axis (centre frequency included), checked as given; made baseband below,
    // once the input's centre frequency is known.
    std::tie(s.view_low_hz, s.view_high_hz) = parse_pair(*o.frequency_range, "--frequency-range", ':');
    viewer.zoom_given = true;
  }
  if (o.listen) {
    if (!std::isfinite(*o.listen)) throw UsageError("--listen must be a finite frequency in Hz");
    s.listen = true;
    s.listen_hz = *o.listen;
  }
  if (o.demodulator) {
    if (!view::parse_demodulation(*o.demodulator))
      throw UsageError("--demodulator '" + *o.demodulator + "' is unknown (known: " +
                       view::demodulation_names_help() + ")");
    s.demodulator = *o.demodulator;
  }
  if (o.listen_bandwidth) {
    const view::BandwidthRange range =
        view::bandwidth_range(*view::parse_demodulation(s.demodulator));
    if (!(*o.listen_bandwidth >= range.min_hz && *o.listen_bandwidth <= range.max_hz))
      throw UsageError("--listen-bandwidth " + number_text(*o.listen_bandwidth) + " is out of range for " +
                       s.demodulator + ": " + number_text(range.min_hz) + " ... " + number_text(range.max_hz) +
                       " Hz");
    s.listen_bandwidth_hz = *o.listen_bandwidth;
  }
  if (o.volume) {
    if (!(*o.volume >= -60 && *o.volume <= 40)) throw UsageError("--volume must be in [-60, 40] dB");
    s.volume_db = *o.volume;
  }
  s.validate(view::view_option_names());

  const auto [width, height] = parse_pair(o.size, "--size", 'x');
  if (width < 640 || height < 400 || width > 8192 || height > 8192)
    throw UsageError("--size " + o.size + ": the window must be between 640x400 and 8192x8192");
  viewer.width = static_cast<int>(width);
  viewer.height = static_cast<int>(height);
  viewer.frames = o.frames;
  viewer.screenshot_path = o.screenshot;
  viewer.report_path = o.report;
  if (!o.script.empty()) viewer.script = view::load_script(o.script);
  viewer.max_fps = o.fps;
  viewer.auto_range_at_start = o.auto_range;
  viewer.title = "prism view: " + o.input;
  viewer.processing.field_namer = option_name_of_field;
  viewer.processing.backend = fft::parse_backend(o.backend);
  viewer.processing.device = o.device;
  // An explicit GPU backend that cannot run here is reported before a window opens.
  if (viewer.processing.backend != fft::BackendKind::cpu && viewer.processing.backend != fft::BackendKind::automatic) {
    const fft::Availability available = fft::backend_availability(viewer.processing.backend);
    if (!available.available)
      throw std::runtime_error("--backend " + o.backend + ": " + available.reason);
  }

  viewer.live_stall_timeout_s = o.stall_timeout;
  const std::string input = o.input;
  view::ViewEngine::SourceFactory open = [input, o]() -> std::unique_ptr<Source> {
#if PRISM_HAVE_PORTAUDIO  // (without it open_input says why audio: cannot open)
    // An audio device with the viewer's own settings (--audio-block, and up to 2 channels
    // unless --channels is given), and the checks of every input.
    if (is_audio_input(input))
      return open_audio_input(input, to_source_options(o.in), o.channels_given ? o.in.channels : 0, o.audio_block);
#endif
    // As the processing commands open it: an input without samples is refused, a recording
    // cut short is read to its last whole sample (or refused with --strict); a stream's wait
    // for its first message takes --stall-timeout.
    SourceOptions options = to_source_options(o.in);
    options.opening.stall_timeout_s = o.stall_timeout;
    return open_input(input, options, o.in.start);
  };
  // Opened here, so that a bad input is reported before a window appears; the viewer's first
  // open takes this source, so an audio device is opened once (a JACK user's connections to
  // prism's ports would not survive a second open).
  auto opened = std::make_shared<std::unique_ptr<Source>>(open());
  view::ViewEngine::SourceFactory open_reusing_first = [opened, open]() -> std::unique_ptr<Source> {
    if (*opened) return std::move(*opened);
    return open();
  };
  if (o.frequency_range) {  // the input's centre frequency (SigMF's, or --center-frequency) comes off
    const double centre = (*opened)->info().center_frequency;
    *s.view_low_hz -= centre;
    *s.view_high_hz -= centre;
  }
  return view::run_viewer(open_reusing_first, viewer);
}
#endif

}  // namespace

Runner add_view_command(CLI::App& app) {
  auto o = std::make_shared<ViewOptions>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "Open the live spectrogram viewer: a spectrum above a scrolling waterfall, on an audio "
      "device, a file or the test signal. Settings persist in $XDG_CONFIG_HOME/prism/view.json.");
  cmd->footer(
      "INPUT: audio: (default input device), audio:NAME or audio:INDEX (see prism devices), an SDR, "
      "a file (WAV/FLAC, SigMF, raw with --format/--rate), or the generator (gen:..., the default: "
      "an endless test signal).\n" +
      std::string(kSdrInputHelp) +
      "Keys: space pause/play, A auto range, F freeze, R reset zoom. Mouse over the plots: wheel "
      "zooms around the cursor, drag pans, double-click shows the whole band, right-click sets "
      "markers A/B (levels and B-A difference shown), middle-click clears them, Shift-drag listens "
      "to the band dragged across, Shift-click to the channel there. Zoom and pan persist with the "
      "other settings.\n"
      "Headless (tests, screenshots): xvfb-run prism view gen --frames 120 --screenshot view.png");
  cmd->add_option("input", o->input, "audio:[NAME|INDEX], sdr[:ARGS], zmq:sub:..., a file, or gen[:KEY=VALUE,...]")->capture_default_str();
  add_input_options(*cmd, o->in, "Input");
  CLI::Option* channels = cmd->get_option("--channels");
  const std::string range = channels->get_description().substr(channels->get_description().rfind(" ["));
  channels
      ->description("Interleaved channels of raw input; audio devices: how many to capture "
                    "[default: 1; audio: up to 2]" + range)
      ->default_str("")
      ->each([o](const std::string&) { o->channels_given = true; });
  whole_number_in(cmd->add_option("--audio-block", o->audio_block, "Audio device frames per callback [default: PortAudio's choice]"), 1, 1 << 20)
      ->group("Input");
  finite_number_in(cmd->add_option("--stall-timeout", o->stall_timeout,
                                   "Seconds a live input (audio device, SDR, stream) may deliver nothing before the "
                                   "viewer shows an error and stops it (0: wait for ever); files and the generator "
                                   "are paced by the viewer [default: 10; zmq:...?timeout=S: S]"),
                   0.0, 365.0 * 86400.0)
      ->group("Input");
  whole_number_in(cmd->add_option("--fft-size", o->fft_size, "FFT size [default: 4096]"), 256, 1 << 20);
  cmd->add_option("--window", o->window, "Window NAME[:PARAM] as in prism spectrogram [default: hann]");
  cmd->add_option("--overlap", o->overlap, "Overlap of consecutive frames, 0 ... 0.95 [default: 0.5]");
  whole_number_in(cmd->add_option("--channel", o->channel, "Channel shown (0-based) [default: 0]"), 0, kMaxRawChannels - 1);
  cmd->add_option("--averaging", o->averaging, "Exponential averaging time constant in s, 0 = off [default: 0]");
  cmd->add_option("--peak-hold", o->peak_hold, "Show the peak-hold trace (true/false) [default: false]");
  cmd->add_option("--min-hold", o->min_hold, "Show the min-hold trace (true/false) [default: false]");
  cmd->add_option("--hold-decay", o->hold_decay, "How fast the held traces fall back, dB/s [default: 10]");
  cmd->add_option("--db-range", o->db_range, "Colour and plot range MIN:MAX in dB [default: -120:-20]");
  cmd->add_option("--colormap", o->colormap, "viridis, inferno, magma, turbo or grayscale [default: viridis]");
  cmd->add_option("--lines-per-second", o->lines_per_second, "Waterfall lines per second, 1 ... 10000 [default: 50]");
  cmd->add_option("--speed", o->speed, "Playback speed of files: 1, 2, 10 ... or max [default: 1]");
  cmd->add_option("--loop", o->loop, "Loop files at their end (true/false) [default: true]");
  cmd->add_option("--frequency-range", o->frequency_range, "Zoom to LOW:HIGH Hz (as on the axis)");
  cmd->add_option("--listen", o->listen, "Listen to the channel at HZ (as on the axis) through the default audio output");
  cmd->add_option("--demodulator", o->demodulator, "The channel's demodulator: am, nfm, wfm, usb, lsb or cw [default: am]");
  cmd->add_option("--listen-bandwidth", o->listen_bandwidth,
                  "The channel's bandwidth in Hz (am 1k ... 50k, nfm 2.5k ... 50k, wfm 50k ... 300k, usb/lsb 500 ... 10k, "
                  "cw 50 ... 3k) [default: 10000]");
  cmd->add_option("--volume", o->volume, "The channel's volume in dB, -60 ... 40 [default: 0]");
  cmd->add_option("--size", o->size, "Window size WIDTHxHEIGHT")->capture_default_str();
  whole_number_in(cmd->add_option("--frames", o->frames, "Render N frames, then exit (0 = until the window closes)"), 0, std::int64_t{1} << 40);
  cmd->add_option("--screenshot", o->screenshot, "Save the window as PNG when the viewer ends: after --frames N, Ctrl-C or closing the window");
  cmd->add_option("--report", o->report, "Write a JSON report at exit: layout, axis ticks, settings, status, playback position, markers, cursor readout, where the controls are, frame times");
  cmd->add_option("--script", o->script, "JSON list of {\"frame\"|\"time_s\": ..., \"set\": {settings}} steps");
  finite_number_in(cmd->add_option("--fps", o->fps, "Frame rate cap (0 = none)"), 0.0, 10000.0)->capture_default_str();
  cmd->add_flag("--auto-range", o->auto_range, "Set the dB range from the signal after half a second");
  cmd->add_option("--backend", o->backend,
                  "Spectrogram backend: cpu, cuda (the CUDA engine on prism's kernels), cufft, or auto "
                  "(the GPU when one can be set up, else the CPU)")
      ->capture_default_str();
  whole_number_in(cmd->add_option("--device", o->device, "CUDA device for the GPU backends (0-based)"), 0, kMaxDeviceIndex)
      ->capture_default_str();
  cmd->add_option("--config", o->config, "Settings file [default: $XDG_CONFIG_HOME/prism/view.json]");
  cmd->add_flag("--no-config", o->no_config, "Neither read nor save the settings file");
  return [o]() -> int {
#if PRISM_HAVE_VIEWER
    return run_view(*o);
#else
    std::fprintf(stderr,
                 "prism: view is not in this build: GLFW or Dear ImGui was not found when it was "
                 "configured (install libglfw3-dev libimgui-dev libstb-dev, e.g. with "
                 "scripts/install-deps, and rebuild)\n");
    return kExitFailure;
#endif
  };
}

}  // namespace prism::app
