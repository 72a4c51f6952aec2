// The viewer window of `prism view`: GLFW + OpenGL 3.3 core + Dear ImGui. A spectrum plot above
// a scrolling waterfall, shared frequency axis, time axis, colour bar, a control panel and a
// status line; the same renderer draws on screen and, for tests and the README, headless under
// Xvfb, saving the window to a PNG after N frames (or when the viewer is closed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "view_engine.hpp"
#include "view_settings.hpp"

namespace prism::view {

struct ViewerOptions {
  ViewSettings settings;
  std::string config_path;           // where settings persist; empty: nowhere
  int width = 1280, height = 800;    // window size in screen pixels
  long frames = 0;                   // render this many frames, then exit; 0 = until closed
  std::string screenshot_path;       // PNG of the last frame (after `frames`, Ctrl-C or closing)
  std::string report_path;           // JSON at exit: layout, axis ticks, status, playback,
                                     // markers, control positions, frame times
  std::vector<ScriptStep> script;    // settings to apply at given frames or times
  double max_fps = 60;               // frame rate cap (software GL would otherwise spin)
  bool auto_range_at_start = false;  // set the dB range from the signal after 0.5 s
  // A live input that delivers nothing this long fails (0: never; unset: 10 s, unless the input
  // has a timeout of its own, as zmq:...?timeout=S).
  std::optional<double> live_stall_timeout_s;
  bool zoom_given = false;           // the zoom was given for this input (--frequency-range): kept
                                     // whatever band a saved zoom belonged to
  std::string title = "prism view";
  StageEnvironment processing;       // the spectrogram's backend (status line names it)
};

// Opens the window, starts the engine on the input `open` returns and runs until the window
// closes, Ctrl-C, or options.frames frames. Returns the process exit code. Throws
// std::runtime_error when no window can be opened (the message says why: no display, no GL 3.3).
int run_viewer(ViewEngine::SourceFactory open, const ViewerOptions& options);

}  // namespace prism::view
