// ViewEngine: the processing side of `prism view`. It owns the input and runs a graph on its own
// thread — the input, the spectrogram stage of the chosen backend (the CPU, or the GPU) and the
// display lines: spectra reduced to at most a texture row's width, averaged (exponential, with a
// time constant) and thinned to the lines per second asked for (gui/display_line_plan.hpp) — on
// the CPU in the display's sink, or on the GPU by a stage of their own behind the spectrogram
// (gui/cuda/gpu_display_lines.hpp), which also keeps the lines in device memory for the texture. Rows go to the render thread through the session's
// DisplayRowQueue; the render thread reads the rest (status, session) without waiting on the
// processing.
//
// Changing FFT size, window, overlap or channel ends the current graph's run and starts a new
// one on the same input (a new DisplaySession); a live input keeps running meanwhile, and what
// its ring cannot hold in that moment is counted as overrun.
//
// The channel listened to (settings listen, listen_hz, ...) is a second sink on the input, a
// ChannelListener that outlives the graph's runs (gui/channel_listener.hpp).
//
// Files and the generator play at real time (times the speed; 0 = as fast as possible), can be
// paused, sought (the input is reopened and read up to the position) and looped.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "channel_listener.hpp"
#include "display_rows.hpp"
#include "view_settings.hpp"
#include "../pipeline/stage_registry.hpp"
#include "../pipeline/source.hpp"
#include "../pipeline/stop_token.hpp"

namespace prism::view {

struct EngineStatus {
  // The input's items: samples, or rows computed elsewhere (a zmq: stream of spectra), which
  // the counts below then count instead of samples and spectra.
  bool rows = false;
  std::uint64_t samples_received = 0;     // per channel, since the start
  std::uint64_t spectra_computed = 0;     // FFT frames, since the start
  std::uint64_t overrun_samples = 0;      // live input dropped (device ring + no free block)
  std::uint64_t device_overflows = 0;     // losses the device reported without a length
  std::uint64_t display_rows_skipped = 0; // rows the render thread had no room for
  double position_s = 0;                  // playback position in the input
  std::optional<double> duration_s;       // files: their length
  bool ended = false;                     // the input ended (and does not loop)
  bool live = false;
  std::string processor;                  // "cpu: FFTW 3.3.10 ..., 1 thread", or the GPU engine's
  std::string source;                     // the input's description
  std::string error;                      // what stopped the processing, when it failed
  ListenStatus listen;                    // the channel listened to
};

class ViewEngine {
 public:
  using SourceFactory = std::function<std::unique_ptr<Source>()>;

  // open: opens the input; called once now (errors propagate to the caller) and again to loop
  //   or seek a file. max_display_columns: the widest row the display takes (its texture limit).
  // processing: the backend (automatic: the GPU when one can be set up, else the CPU).
  // live_stall_timeout_s: a live input that delivers nothing this long ends the processing with
  // an error (0: never; unset: default_stall_timeout_s, 10 s unless the input has a timeout of
  // its own); files and the generator are paced here, and wait while paused.
  ViewEngine(SourceFactory open, const ViewSettings& settings, std::size_t max_display_columns,
             const StageEnvironment& processing = {}, std::optional<double> live_stall_timeout_s = {});
  ~ViewEngine();  // stops the processing and joins its thread
  ViewEngine(const ViewEngine&) = delete;
  ViewEngine& operator=(const ViewEngine&) = delete;

  const StreamInfo& stream() const;

  // New settings from the UI: processing changes restart the graph; display and playback
  // changes act at once.
  void apply(const ViewSettings& settings);
  void set_paused(bool paused);
  bool paused() const;
  // Files and the generator: continue from `seconds` (clamped to the input). While paused, the
  // display still gets a line of the new position, and the playback stays paused there.
  void seek(double seconds);

  // Records the channel's audio to a new WAV file in the working folder while set (and
  // listening).
  void set_recording(bool recording);
  bool recording() const;

  // The session whose rows the display shows now (null before the first starts).
  std::shared_ptr<DisplaySession> session() const;
  EngineStatus status() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::view
