// The viewer window (see viewer.hpp).
//
// Contents:
//   Window and GL set-up ......... GLFW window, ImGui, font, texture limits
//   DisplayState ................. what the render thread keeps: texture, newest line, holds,
//                                  a host copy of the history for the cursor readout
//   Layout ....................... where the plots go in the window
//   Drawing ...................... axes, spectrum traces, markers, colour bar labels, status
//   Controls ..................... the control panel (the channel listened to among them)
//   Frame loop ................... rows in, script steps, input, render, screenshot, report
//
// Threads: this file runs on the main (render) thread only. It reads rows from the session's
// lock-free queue and the engine's status; it never waits on the processing.
#include "gui/viewer.hpp"
#include "pipeline/run_summary.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <png.h>

#include "gui/channel_receiver.hpp"
#include "gui/gl_api.hpp"
#include "gui/waterfall_renderer.hpp"
#if PRISM_HAVE_CUDA
#include "gui/cuda/cuda_gl_texture.hpp"
#include "gui/cuda/gpu_display_lines.hpp"
#endif
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "pipeline/stop_token.hpp"
#include "sinks/colormap.hpp"
#include "sinks/decibel_range.hpp"
#include "sinks/spectrogram_plot.hpp"

namespace prism::view {

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

constexpr std::size_t kHistoryRows = 1024;      // waterfall lines kept (texture height)
constexpr std::size_t kMaxTextureColumns = 16384;
constexpr float kPanelWidth = 290.0f;
constexpr float kStatusLineStep = 20.0f;  // status line text: one line every this many pixels

const std::vector<std::size_t>& fft_size_choices() {
  static const std::vector<std::size_t> sizes = [] {
    std::vector<std::size_t> v;
    for (std::size_t n = kMinFftSize; n <= kMaxFftSize; n *= 2) v.push_back(n);
    return v;
  }();
  return sizes;
}

// A heading in the control panel (ImGui 1.86 has no SeparatorText).
void section_heading(const char* name) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.62f, 0.66f, 0.74f, 1.0f), "%s", name);
  ImGui::Separator();
}

std::string glfw_error_text;
void on_glfw_error(int, const char* description) { glfw_error_text = description ? description : "?"; }

// Shortcut keys pressed since the last frame, recorded as GLFW delivers them: Dear ImGui 1.86
// only sees whether a key is down when a frame starts, so a tap shorter than a frame (a quick
// key, or a slow frame) would be lost. Dear ImGui chains to this callback (installed before it).
std::vector<int> pressed_keys;
void on_glfw_key(GLFWwindow*, int key, int, int action, int) {
  if (action == GLFW_PRESS) pressed_keys.push_back(key);
}

// Left-button presses and releases, with where the pointer was, whether Shift was held and
// when, in the order GLFW delivers them: a channel's band and double-clicks are taken from
// these, so that a drag or a double-click shorter than a frame (or across slow frames, as with
// software OpenGL on a busy machine) still counts.
struct PointerEvent {
  bool press = false;
  bool shift = false;
  double x = 0, y = 0;
  double time_s = 0;
};
constexpr double kDoubleClickSeconds = 0.3;  // as Dear ImGui's
constexpr double kDoubleClickPixels = 6.0;
std::vector<PointerEvent> pointer_events;
double pointer_x = 0, pointer_y = 0;
void on_glfw_cursor(GLFWwindow*, double x, double y) {
  pointer_x = x;
  pointer_y = y;
}
void on_glfw_mouse_button(GLFWwindow*, int button, int action, int mods) {
  if (button == GLFW_MOUSE_BUTTON_LEFT)
    pointer_events.push_back({action == GLFW_PRESS, (mods & GLFW_MOD_SHIFT) != 0, pointer_x, pointer_y, glfwGetTime()});
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

std::string frequency_text(double hz) {
  const AxisUnit unit = frequency_unit(std::abs(hz));
  char text[48];
  std::snprintf(text, sizeof text, "%.4g %s", hz * unit.factor, unit.name.c_str());
  return text;
}

// Writes the framebuffer (RGB, rows bottom-up as OpenGL reads them) to a PNG.
void write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
  const std::string temporary = path + ".partial";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) throw InputError(path, "cannot create the screenshot");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    std::remove(temporary.c_str());
    throw InputError(path, "cannot write the screenshot (libpng error)");
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 9);
  png_write_info(png, info);
  for (int y = height - 1; y >= 0; --y)
    png_write_row(png, const_cast<png_bytep>(rgb.data() + static_cast<std::size_t>(y) * width * 3));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  const bool closed = std::fclose(file) == 0;
  if (!closed || std::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError(path, "cannot write the screenshot");
}

// ---- DisplayState --------------------------------------------------------------------------------

struct DisplayState {
  std::shared_ptr<DisplaySession> session;
  std::uint64_t generation = 0;
  WaterfallTexture texture;
  std::vector<float> history;          // host copy of the texture's rows (cursor readout)
  std::vector<double> history_times;   // stream time of each ring row
  // Per ring row: set where the row starts a new segment of the history (the input looped or
  // was sought, or the processing restarted): why, for the line drawn across the waterfall.
  std::vector<std::optional<SessionStart>> history_breaks;
  std::optional<SessionStart> pending_break;  // for the next row taken
  std::vector<float> latest, peak, minimum;
  bool have_line = false;
  std::uint64_t lines = 0;
  std::vector<float> upload;           // rows taken this frame, uploaded in one call
  // How the waterfall's rows reach the texture: counts per path, and why not from the device
  // when a GPU session's texture could not be shared with CUDA.
  std::uint64_t rows_from_device = 0, rows_from_host = 0;
  std::string interop_note;
#if PRISM_HAVE_CUDA
  std::unique_ptr<CudaGlTexture> interop;
  std::vector<const float*> device_rows;  // this frame's rows in the session's DeviceLineRing
  std::optional<std::uint64_t> pending_release;  // lines before it wait to be released
#endif

  std::size_t columns() const { return session ? session->format.columns : 0; }

  // Takes the rows of a new session. A session on the same frequency axis (the file looped or
  // was sought, or processing settings that keep the axis) continues the history, and its first
  // row starts a new segment of it; any other starts a new history.
  void start(std::shared_ptr<DisplaySession> next) {
    const bool continues = session && texture.filled() > 0 && next->format.same_axis_as(session->format);
    session = std::move(next);
    generation = session->format.generation;
    const std::size_t c = session->format.columns;
#if PRISM_HAVE_CUDA
    interop.reset();  // registered with the old storage (its destructor waits for its copies)
    pending_release.reset();
#endif
    if (continues) {
      pending_break = session->format.started_by;
    } else {
      texture.reset(c, kHistoryRows);
      history.assign(c * kHistoryRows, -300.0f);
      history_times.assign(kHistoryRows, 0.0);
      history_breaks.assign(kHistoryRows, std::nullopt);
      pending_break.reset();
      latest.assign(c, -300.0f);
      peak.assign(c, -300.0f);
      minimum.assign(c, 300.0f);
      have_line = false;
    }
#if PRISM_HAVE_CUDA
    if (session->device_lines) {
      try {
        interop = std::make_unique<CudaGlTexture>(texture.texture(), c, kHistoryRows, session->device_lines->device());
        interop_note.clear();
      } catch (const std::exception& e) {
        interop_note = e.what();
      }
    }
#endif
  }

  // Takes every line waiting in the queue. Frozen: takes them and drops them, so the
  // processing never sees a full queue because the picture is frozen.
  void take_rows(bool frozen) {
    if (!session) return;
    const std::size_t c = columns();
    upload.clear();
    double time_s = 0;
    LineTag tag;
#if PRISM_HAVE_CUDA
    device_rows.clear();
    DeviceLineRing* ring = session->device_lines.get();
    bool all_on_device = ring != nullptr;
    std::optional<std::uint64_t> last_line;
#endif
    while (const float* row = session->queue.front(&time_s, &tag)) {
#if PRISM_HAVE_CUDA
      last_line = tag.line;
#endif
      if (!frozen) {
        const std::size_t ring_row = (texture.head() + upload.size() / c) % kHistoryRows;
        std::copy(row, row + c, history.begin() + static_cast<std::ptrdiff_t>(ring_row * c));
        history_times[ring_row] = time_s;
        history_breaks[ring_row] = std::exchange(pending_break, std::nullopt);
        upload.insert(upload.end(), row, row + c);
        std::copy(row, row + c, latest.begin());
        for (std::size_t i = 0; i < c; ++i) {
          peak[i] = std::max(peak[i], row[i]);
          minimum[i] = std::min(minimum[i], row[i]);
        }
        have_line = true;
        ++lines;
#if PRISM_HAVE_CUDA
        if (all_on_device && tag.device_slot >= 0)
          device_rows.push_back(ring->slot(static_cast<std::size_t>(tag.device_slot)));
        else
          all_on_device = false;
#endif
      }
      session->queue.release();
      if (upload.size() / c >= kHistoryRows) break;  // a full history per frame is plenty
    }
    const std::size_t count = upload.size() / std::max<std::size_t>(c, 1);
    bool written = false;
#if PRISM_HAVE_CUDA
    if (count > 0 && all_on_device && interop) {
      try {
        interop->write_rows(device_rows.data(), count, texture.head());
        texture.advance(count);
        rows_from_device += count;
        written = true;
      } catch (const std::exception& e) {  // the host copy of the same lines still works
        interop_note = e.what();
        interop.reset();
      }
    }
    // A line's ring slot is free again once the texture has it: at once for lines that went
    // through host memory, after the interop copies for the others.
    if (last_line) pending_release = *last_line + 1;
    if (ring != nullptr && pending_release && (!interop || interop->copies_done()))
      ring->release_before(*pending_release);
#endif
    if (!written && count > 0) {
      texture.upload_rows(upload.data(), count);
      rows_from_host += count;
    }
  }

  void decay_holds(double seconds, double db_per_s) {
    const float fall = static_cast<float>(seconds * db_per_s);
    for (std::size_t i = 0; i < latest.size(); ++i) {
      peak[i] = std::max(latest[i], peak[i] - fall);
      minimum[i] = std::min(latest[i], minimum[i] + fall);
    }
  }

  std::size_t ring_row_of_age(std::size_t age) const { return (texture.head() + kHistoryRows - 1 - age) % kHistoryRows; }

  // The value `age` lines back at column c (for the cursor readout).
  float history_value(std::size_t age, std::size_t c, double* time_s) const {
    const std::size_t row = ring_row_of_age(age);
    if (time_s) *time_s = history_times[row];
    return history[row * columns() + c];
  }
  double history_time(std::size_t age) const { return history_times[ring_row_of_age(age)]; }
  // Why the line `age` lines back starts a new segment of the history, if it does.
  std::optional<SessionStart> history_break(std::size_t age) const { return history_breaks[ring_row_of_age(age)]; }
};

// ---- Layout --------------------------------------------------------------------------------------

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;  // screen pixels, origin top left
  bool contains(ImVec2 p) const { return p.x >= x && p.x < x + w && p.y >= y && p.y < y + h; }
  json to_json() const { return {{"x", x}, {"y", y}, {"width", w}, {"height", h}}; }
};

struct Layout {
  Rect spectrum, waterfall, colorbar, frequency_axis, status;
};

// status_height: the status line's, as many text lines as its fields need at this width.
Layout compute_layout(float width, float height, float status_height) {
  Layout l;
  const float left = kPanelWidth + 70.0f;
  const float right = width - 90.0f;
  const float top = 14.0f;
  const float bottom = height - status_height - 10.0f;
  const float plots = std::max(bottom - top, 60.0f);
  const float spectrum_h = std::floor(plots * 0.30f);
  const float axis_h = 28.0f;
  l.spectrum = {left, top, std::max(right - left, 10.0f), spectrum_h};
  l.frequency_axis = {left, top + spectrum_h, l.spectrum.w, axis_h};
  l.waterfall = {left, top + spectrum_h + axis_h, l.spectrum.w, std::max(plots - spectrum_h - axis_h, 10.0f)};
  l.colorbar = {right + 16.0f, l.waterfall.y, 16.0f, l.waterfall.h};
  l.status = {0, height - status_height, width, status_height};
  return l;
}

// ---- The viewer ----------------------------------------------------------------------------------

struct FrequencyView {
  double low = 0, high = 1;  // baseband Hz shown across the plots
};

struct Marker {
  bool set = false;
  double frequency = 0;  // baseband Hz
};

// What the markers show: each set marker's frequency (on the axis, centre frequency applied)
// and level in the newest line, and B-A when both are set. Drawn over the spectrum and written
// to the report.
struct MarkerReadout {
  struct Point {
    double hz = 0, db = 0;
  };
  std::optional<Point> marker[2];
  std::optional<Point> difference;  // B-A
  std::string text;
};

class Viewer {
 public:
  Viewer(ViewEngine::SourceFactory open, const ViewerOptions& options);
  ~Viewer();
  int run();

 private:
  void apply_settings(const ViewSettings& next);
  void run_script(long frame, double elapsed_s);
  void handle_new_session();
  FrequencyView frequency_view() const;
  double x_of(double hz, const Rect& r) const;
  double hz_at(float x, const Rect& r) const;
  double y_of_db(double db, const Rect& r) const;
  void auto_range();
  void build_frame(const Layout& layout, double frame_seconds);
  void draw_axes(ImDrawList* draw, const Layout& layout);
  void draw_spectrum(ImDrawList* draw, const Rect& r);
  void draw_markers_and_cursor(ImDrawList* draw, const Layout& layout);
  void draw_channel_band(ImDrawList* draw, const Layout& layout);
  // Listens to the band [low, high] (baseband Hz) that a drag selected, in the current
  // demodulation; a click (low == high) keeps the bandwidth.
  void select_channel(double low, double high);
  void draw_listen_controls(ViewSettings& next);
  void handle_plot_mouse(const Layout& layout);
  MarkerReadout marker_readout() const;
  void remember_control(const char* name, float frame_width = 0);
  void draw_controls();
  // The status line's text, wrapped at field boundaries to the window's width (a field wider
  // than the window is shortened with "..."); sets status_height_.
  void compose_status(float width);
  void draw_status(const Layout& layout);
  void draw_time_axis(ImDrawList* draw, const Layout& layout);
  void draw_history_breaks(ImDrawList* draw, const Layout& layout);
  void draw_stream_marks(ImDrawList* draw, const Layout& layout);
  void render_gl(const Layout& layout);
  json report_json(const Layout& layout) const;

  ViewerOptions options_;
  ViewSettings settings_;
  GLFWwindow* window_ = nullptr;
  std::unique_ptr<WaterfallRenderer> renderer_;
  std::unique_ptr<DisplayState> display_;
  std::unique_ptr<ViewEngine> engine_;
  std::size_t max_columns_ = 0;
  std::string gl_renderer_;

  bool frozen_ = false;
  bool seeking_ = false;
  float seek_value_ = 0;
  Marker markers_[2];
  int next_marker_ = 0;
  std::size_t script_next_ = 0;
  bool drag_active_ = false;
  bool select_active_ = false;  // a Shift-drag selecting a channel
  std::optional<PointerEvent> last_press_;  // for double-clicks
  double select_from_hz_ = 0, select_to_hz_ = 0;
  std::string cursor_text_;
  std::vector<json> axis_ticks_;  // frequency ticks of the last frame, for the report
  json time_ticks_;               // the waterfall's time labels as drawn, for the report
  json history_breaks_;           // the lines drawn across the waterfall, for the report
  json annotation_boxes_;         // the input's annotations as drawn over the waterfall
  json retune_lines_;             // the input's retunes as drawn across the waterfall
  json spectrum_labels_;          // the texts over the spectrum (markers, cursor), for the report
  // What this frame shows of the engine, read once as the frame starts: the status line, the
  // controls and the report all describe the same moment.
  EngineStatus frame_status_;
  bool frame_paused_ = false;
  struct StatusLine {
    std::string text;
    bool counters = false;  // the counters' lines (coloured when samples were lost)
  };
  std::vector<StatusLine> status_lines_;
  float status_height_ = 2 * kStatusLineStep + 4;
  json control_rects_;            // where the panel's controls were drawn, for the report

  // rates for the status line, measured over about a second
  Clock::time_point rate_since_ = Clock::now();
  std::uint64_t rate_samples_ = 0, rate_spectra_ = 0;
  long rate_frames_ = 0;
  double input_rate_ = 0, fft_rate_ = 0, fps_ = 0;
  std::vector<double> frame_ms_;
};

Viewer::Viewer(ViewEngine::SourceFactory open, const ViewerOptions& options)
    : options_(options), settings_(options.settings) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit())
    throw std::runtime_error("cannot open a window: " + glfw_error_text +
                             " (no display? for headless use run under xvfb-run)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (window_ == nullptr) {
    glfwTerminate();
    throw std::runtime_error("cannot open a window with OpenGL 3.3 core: " + glfw_error_text);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  if (const auto* name = glGetString(GL_RENDERER)) gl_renderer_ = reinterpret_cast<const char*>(name);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // prism keeps its own settings file
  const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (std::FILE* f = std::fopen(font, "rb")) {
    std::fclose(f);
    io.Fonts->AddFontFromFileTTF(font, 15.0f);
  }
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.ItemSpacing = ImVec2(6, 5);
  glfwSetKeyCallback(window_, on_glfw_key);
  glfwSetCursorPosCallback(window_, on_glfw_cursor);
  glfwSetMouseButtonCallback(window_, on_glfw_mouse_button);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  GLint max_texture = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
  max_columns_ = std::min<std::size_t>(kMaxTextureColumns, static_cast<std::size_t>(std::max(max_texture, 1024)));
  renderer_ = std::make_unique<WaterfallRenderer>();
  renderer_->set_colormap(*find_colormap(settings_.colormap));
  display_ = std::make_unique<DisplayState>();
  engine_ = std::make_unique<ViewEngine>(std::move(open), settings_, max_columns_, options.processing,
                                         options.live_stall_timeout_s);
  // A saved zoom belongs to the band it was set on.
  const StreamInfo& stream = engine_->stream();
  const auto [band_low, band_high] = input_band(stream.sample_rate, stream.center_frequency, is_complex(stream.format));
  if (options.zoom_given) {
    settings_.view_band_low_hz = band_low;
    settings_.view_band_high_hz = band_high;
  } else {
    settings_.keep_zoom_for_band(band_low, band_high);
  }
}

Viewer::~Viewer() {
  engine_.reset();  // stop the processing first: it does not touch GL, but the window goes next
  display_.reset();
  renderer_.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

void Viewer::apply_settings(const ViewSettings& next) {
  if (next.colormap != settings_.colormap) renderer_->set_colormap(*find_colormap(next.colormap));
  settings_ = next;
  engine_->apply(settings_);
}

void Viewer::run_script(long frame, double elapsed_s) {
  while (script_next_ < options_.script.size()) {
    const ScriptStep& step = options_.script[script_next_];
    const bool due = step.frame ? frame >= *step.frame : elapsed_s >= step.time_s.value_or(0);
    if (!due) break;
    ViewSettings next = settings_;
    try {
      next.apply_json_text(step.set, "script step " + std::to_string(script_next_ + 1));
      apply_settings(next);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "prism view: %s\n", e.what());
    }
    ++script_next_;
  }
}

void Viewer::handle_new_session() {
  auto session = engine_->session();
  if (session && session->format.generation != display_->generation) {
    display_->start(session);
    // A zoom outside the new band (another input or channel) falls back to the whole band.
    const FrequencyView v = frequency_view();
    if (v.high <= session->format.frequency_low || v.low >= session->format.frequency_high) {
      settings_.view_low_hz.reset();
      settings_.view_high_hz.reset();
    }
  }
}

FrequencyView Viewer::frequency_view() const {
  FrequencyView v;
  if (display_->session) {
    v.low = display_->session->format.frequency_low;
    v.high = display_->session->format.frequency_high;
  } else {
    v.low = 0;
    v.high = engine_->stream().sample_rate / 2;
  }
  if (settings_.view_low_hz && settings_.view_high_hz && *settings_.view_low_hz < *settings_.view_high_hz) {
    v.low = *settings_.view_low_hz;
    v.high = *settings_.view_high_hz;
  }
  return v;
}

double Viewer::x_of(double hz, const Rect& r) const {
  const FrequencyView v = frequency_view();
  return r.x + (hz - v.low) / (v.high - v.low) * r.w;
}

double Viewer::hz_at(float x, const Rect& r) const {
  const FrequencyView v = frequency_view();
  return v.low + (x - r.x) / r.w * (v.high - v.low);
}

double Viewer::y_of_db(double db, const Rect& r) const {
  const double t = (db - settings_.db_min) / (settings_.db_max - settings_.db_min);
  return r.y + r.h - std::clamp(t, 0.0, 1.0) * r.h;
}

void Viewer::auto_range() {
  if (!display_->have_line) return;
  // The PNG's automatic range, with margins rounded to 5 dB for the line plot.
  const std::optional<DecibelRange> signal = signal_decibel_range(display_->latest);
  if (!signal) return;
  settings_.db_min = std::floor((signal->low - 10.0) / 5.0) * 5.0;
  settings_.db_max = std::max(settings_.db_min + 10.0, std::ceil((signal->high + 5.0) / 5.0) * 5.0);
}

void Viewer::draw_axes(ImDrawList* draw, const Layout& layout) {
  const ImU32 text = IM_COL32(215, 218, 225, 255);
  const ImU32 dim = IM_COL32(150, 155, 165, 255);
  const ImU32 grid = IM_COL32(255, 255, 255, 28);
  const ImU32 tick = IM_COL32(200, 200, 210, 255);
  const float font = ImGui::GetFontSize();

  // Frequency: the strip between the spectrum and the waterfall, labels in the unit the band needs.
  const FrequencyView v = frequency_view();
  const double centre = display_->session ? display_->session->format.center_frequency : 0.0;
  const AxisUnit unit = frequency_unit(std::max(std::abs(v.low + centre), std::abs(v.high + centre)));
  double step = 1;
  const int target = std::max(2, static_cast<int>(layout.frequency_axis.w / 110));
  const std::vector<double> ticks = nice_ticks((v.low + centre) * unit.factor, (v.high + centre) * unit.factor, target, &step);
  axis_ticks_.clear();
  const Rect& fa = layout.frequency_axis;
  for (double t : ticks) {
    const double hz = t / unit.factor - centre;
    const float x = static_cast<float>(std::round(x_of(hz, fa)));
    if (x < fa.x - 0.5f || x > fa.x + fa.w + 0.5f) continue;
    const std::string label = format_tick(t, step);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    draw->AddLine(ImVec2(x, fa.y), ImVec2(x, fa.y + 5), tick);
    draw->AddLine(ImVec2(x, layout.spectrum.y), ImVec2(x, layout.spectrum.y + layout.spectrum.h), grid);
    draw->AddText(ImVec2(std::clamp(x - w / 2, fa.x - w / 2, fa.x + fa.w - w / 2), fa.y + 6), text, label.c_str());
    axis_ticks_.push_back({{"hz", hz + centre}, {"x", x}, {"label", label}});
  }
  draw->AddText(ImVec2(fa.x - 62, fa.y + 6), dim, unit.name.c_str());

  // dB axis of the spectrum.
  const Rect& s = layout.spectrum;
  double db_step = 10;
  for (double db : nice_ticks(settings_.db_min, settings_.db_max, std::max(2, static_cast<int>(s.h / 34)), &db_step)) {
    const float y = static_cast<float>(std::round(y_of_db(db, s)));
    const std::string label = format_tick(db, db_step);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    draw->AddLine(ImVec2(s.x - 5, y), ImVec2(s.x, y), tick);
    draw->AddLine(ImVec2(s.x, y), ImVec2(s.x + s.w, y), grid);
    draw->AddText(ImVec2(s.x - 9 - w, y - font / 2), text, label.c_str());
  }
  draw->AddText(ImVec2(s.x - 62, s.y - 2), dim, "dB");

  draw_time_axis(draw, layout);

  // Colour bar labels.
  const Rect& cb = layout.colorbar;
  for (double db : nice_ticks(settings_.db_min, settings_.db_max, std::max(2, static_cast<int>(cb.h / 50)), &db_step)) {
    const float y = static_cast<float>(std::round(cb.y + cb.h - (db - settings_.db_min) / (settings_.db_max - settings_.db_min) * cb.h));
    draw->AddLine(ImVec2(cb.x + cb.w, y), ImVec2(cb.x + cb.w + 4, y), tick);
    draw->AddText(ImVec2(cb.x + cb.w + 7, y - font / 2), text, format_tick(db, db_step).c_str());
  }
  draw->AddText(ImVec2(cb.x - 2, cb.y - font - 4), dim, "dB");

  // Frames around the plots.
  const ImU32 frame = IM_COL32(110, 115, 125, 255);
  for (const Rect* r : {&layout.spectrum, &layout.waterfall, &layout.colorbar})
    draw->AddRect(ImVec2(r->x - 1, r->y - 1), ImVec2(r->x + r->w + 1, r->y + r->h + 1), frame);
}

// The waterfall's time axis: the stream time of its lines, newest at the top. Each segment of
// the history (a loop or a seek starts a new one, with its own times) is labelled on its own,
// with as many labels as its height has room for, and no label closer to another than a line
// of text.
void Viewer::draw_time_axis(ImDrawList* draw, const Layout& layout) {
  time_ticks_ = json::array();
  const Rect& wf = layout.waterfall;
  const std::size_t visible = std::min<std::size_t>(kHistoryRows, static_cast<std::size_t>(wf.h));
  const std::size_t shown = std::min(visible, display_->texture.filled());
  const double row_height = wf.h / static_cast<double>(visible);
  const float font = ImGui::GetFontSize();
  struct Label {
    float y = 0;
    double time_s = 0;
    std::string text;
  };
  std::vector<Label> labels;
  std::size_t newest = 0;  // the current segment's newest line (age)
  for (std::size_t age = 0; age < shown; ++age) {
    if (age + 1 != shown && !display_->history_break(age)) continue;
    const std::size_t oldest = age;  // the segment is [newest, oldest]
    const double t_new = display_->history_time(newest), t_old = display_->history_time(oldest);
    const double per_row = oldest > newest ? (t_new - t_old) / static_cast<double>(oldest - newest) : 0.0;
    if (per_row > 0) {
      const AxisUnit unit = time_unit(std::max(t_new, 1e-3));
      const double pixels = static_cast<double>(oldest - newest + 1) * row_height;
      double step = 1;
      for (double t : nice_ticks(t_old * unit.factor, t_new * unit.factor, std::max(2, static_cast<int>(pixels / 60)),
                                 &step)) {
        const double age_rows = static_cast<double>(newest) + (t_new - t / unit.factor) / per_row;
        if (age_rows < static_cast<double>(newest) - 0.5 || age_rows > static_cast<double>(oldest) + 0.5) continue;
        const float y = static_cast<float>(std::round(wf.y + (age_rows + 0.5) * row_height));
        if (y < wf.y || y > wf.y + wf.h) continue;
        labels.push_back({y, t / unit.factor, format_tick(t, step) + " " + unit.name});
      }
    }
    newest = age + 1;
  }
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  const ImU32 text = IM_COL32(215, 218, 225, 255), tick = IM_COL32(200, 200, 210, 255);
  std::optional<float> last_y;
  for (const Label& label : labels) {
    if (last_y && label.y - *last_y < font + 2) continue;
    last_y = label.y;
    const float w = ImGui::CalcTextSize(label.text.c_str()).x;
    draw->AddLine(ImVec2(wf.x - 5, label.y), ImVec2(wf.x, label.y), tick);
    draw->AddText(ImVec2(wf.x - 9 - w, label.y - font / 2), text, label.text.c_str());
    time_ticks_.push_back({{"label", label.text}, {"y", label.y}, {"time_s", label.time_s}, {"height", font}});
  }
}

// A line across the waterfall where its history is discontinuous (the input looped or was
// sought, or the processing restarted), named at its right end.
void Viewer::draw_history_breaks(ImDrawList* draw, const Layout& layout) {
  history_breaks_ = json::array();
  const Rect& wf = layout.waterfall;
  const std::size_t visible = std::min<std::size_t>(kHistoryRows, static_cast<std::size_t>(wf.h));
  const std::size_t shown = std::min(visible, display_->texture.filled());
  const double row_height = wf.h / static_cast<double>(visible);
  for (std::size_t age = 0; age + 1 < shown; ++age) {  // a break with older lines shown below it
    const std::optional<SessionStart> why = display_->history_break(age);
    if (!why) continue;
    const float y = static_cast<float>(std::round(wf.y + static_cast<double>(age + 1) * row_height));
    const char* name = session_start_name(*why);
    draw->AddLine(ImVec2(wf.x, y), ImVec2(wf.x + wf.w, y), IM_COL32(255, 255, 255, 255), 1.0f);
    const ImVec2 size = ImGui::CalcTextSize(name);
    // The name above the line, or below it where the line is too near the top.
    const ImVec2 at(wf.x + wf.w - size.x - 6, y - size.y - 1 >= wf.y ? y - size.y - 1 : y + 2);
    draw->AddRectFilled(ImVec2(at.x - 3, at.y), ImVec2(at.x + size.x + 3, at.y + size.y), IM_COL32(0, 0, 0, 160));
    draw->AddText(at, IM_COL32(255, 255, 255, 255), name);
    history_breaks_.push_back({{"reason", name},
                               {"y", y},
                               {"age_rows", age + 1},
                               {"time_after_s", display_->history_time(age)},
                               {"time_before_s", display_->history_time(age + 1)}});
  }
}

// The input's SigMF annotations as labelled boxes over the waterfall and its retunes as dashed
// lines named with the new centre frequency, as the PNG output draws them. They are placed by
// the stream times of the lines shown, not by the clock: they scroll with the lines, follow the
// zoom, and a looping file's history shows them once for each pass it holds (a box ends where
// its segment of the history does). The frequency axis is the first capture's, as the lines'.
void Viewer::draw_stream_marks(ImDrawList* draw, const Layout& layout) {
  annotation_boxes_ = json::array();
  retune_lines_ = json::array();
  const StreamInfo& info = engine_->stream();
  if (!display_->session || (info.annotations.empty() && info.retunes.empty())) return;
  const Rect& wf = layout.waterfall;
  const std::size_t visible = std::min<std::size_t>(kHistoryRows, static_cast<std::size_t>(wf.h));
  const std::size_t shown = std::min(visible, display_->texture.filled());
  const double row_height = wf.h / static_cast<double>(visible);
  const DisplayFormat& format = display_->session->format;
  const double centre = format.center_frequency;
  const ImU32 box_colour = IM_COL32(255, 0, 255, 255);     // magenta: in none of the colormaps
  const ImU32 retune_colour = IM_COL32(0, 255, 255, 255);  // cyan: neither
  const float right = wf.x + wf.w, bottom = wf.y + wf.h;
  // A label where it lies over no other (short passes of a looping file put marks close
  // together); returns whether it was drawn.
  std::vector<ImVec4> labels_drawn;  // x0, y0, x1, y1
  auto label_at = [&](const std::string& text, float x, float y, ImU32 colour) {
    if (text.empty()) return false;
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const ImVec4 area(x - 2, y, x + size.x + 2, y + size.y);
    for (const ImVec4& other : labels_drawn)
      if (area.x < other.z && other.x < area.z && area.y < other.w && other.y < area.w) return false;
    labels_drawn.push_back(area);
    draw->AddRectFilled(ImVec2(area.x, area.y), ImVec2(area.z, area.w), IM_COL32(0, 0, 0, 170));
    draw->AddText(ImVec2(x, y), colour, text.c_str());
    return true;
  };
  draw->PushClipRect(ImVec2(wf.x, wf.y), ImVec2(right, bottom), true);

  for (const Annotation& a : info.annotations) {
    const double end = a.duration ? a.start + *a.duration : std::numeric_limits<double>::infinity();
    const double low = a.frequency_low ? *a.frequency_low - centre : format.frequency_low;
    const double high = a.frequency_high ? *a.frequency_high - centre : format.frequency_high;
    const float x0 = std::max(static_cast<float>(std::round(x_of(low, wf))), wf.x);
    const float x1 = std::min(static_cast<float>(std::round(x_of(high, wf))), right - 1);
    if (x1 < x0) continue;  // outside the zoom
    const std::string& label = a.label.empty() ? a.comment : a.label;
    // One box per run of consecutive lines inside the annotation's time, within one segment.
    auto box = [&](std::size_t newest, std::size_t oldest) {
      const float y0 = static_cast<float>(std::round(wf.y + static_cast<double>(newest) * row_height));
      const float y1 = std::min(static_cast<float>(std::round(wf.y + static_cast<double>(oldest + 1) * row_height)),
                                bottom - 1);
      draw->AddRect(ImVec2(x0, y0), ImVec2(x1 + 1, y1 + 1), box_colour, 0.0f, 0, 2.0f);
      const bool labelled = label_at(label, x0 + 4, y0 + 3, box_colour);
      annotation_boxes_.push_back({{"label", label},
                                   {"label_drawn", labelled},
                                   {"x0", x0}, {"x1", x1}, {"y0", y0}, {"y1", y1},
                                   {"time_start_s", a.start},
                                   {"time_end_s", a.duration ? json(end) : json(nullptr)},
                                   {"frequency_low_hz", low + centre},
                                   {"frequency_high_hz", high + centre},
                                   {"newest_line_time_s", display_->history_time(newest)},
                                   {"oldest_line_time_s", display_->history_time(oldest)}});
    };
    std::optional<std::size_t> run_newest;
    for (std::size_t age = 0; age < shown; ++age) {
      const double t = display_->history_time(age);
      const bool inside = t >= a.start && t < end;
      // Line age - 1 starting a segment: this line belongs to an earlier pass.
      if (run_newest && (!inside || display_->history_break(age - 1))) {
        box(*run_newest, age - 1);
        run_newest.reset();
      }
      if (inside && !run_newest) run_newest = age;
    }
    if (run_newest) box(*run_newest, shown - 1);
  }

  for (std::size_t age = 0; age + 1 < shown; ++age) {
    if (display_->history_break(age)) continue;  // the lines on either side are not consecutive
    const double t_new = display_->history_time(age), t_old = display_->history_time(age + 1);
    for (const Retune& r : info.retunes) {
      if (!(t_old < r.time && r.time <= t_new)) continue;
      const float y = static_cast<float>(std::round(wf.y + static_cast<double>(age + 1) * row_height));
      for (float x = wf.x; x < right; x += 12)  // dashed, as on the PNG
        draw->AddLine(ImVec2(x, y), ImVec2(std::min(x + 7, right), y), retune_colour, 2.0f);
      const AxisUnit unit = frequency_unit(std::abs(r.center_frequency));
      char text[64];  // all the digits a SigMF capture gives, not the axis labels' four
      std::snprintf(text, sizeof text, "centre %.9g %s", r.center_frequency * unit.factor, unit.name.c_str());
      const bool labelled = label_at(
          text, wf.x + 4, y + 3 + ImGui::GetFontSize() < bottom ? y + 3 : y - 3 - ImGui::GetFontSize(), retune_colour);
      retune_lines_.push_back({{"label", text}, {"label_drawn", labelled}, {"y", y}, {"age_rows", age + 1},
                               {"time_s", r.time}, {"center_frequency", r.center_frequency}});
    }
  }
  draw->PopClipRect();
}

void Viewer::draw_spectrum(ImDrawList* draw, const Rect& r) {
  draw->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.x + r.w, r.y + r.h), IM_COL32(16, 17, 22, 255));
  if (!display_->have_line || !display_->session) return;
  const DisplayFormat& f = display_->session->format;
  const std::size_t columns = f.columns;
  const int pixels = static_cast<int>(r.w);
  std::vector<ImVec2> points(static_cast<std::size_t>(pixels));
  auto trace = [&](const std::vector<float>& values, ImU32 colour, float thickness, bool fill) {
    for (int px = 0; px < pixels; ++px) {
      const double hz0 = hz_at(r.x + static_cast<float>(px), r), hz1 = hz_at(r.x + static_cast<float>(px + 1), r);
      const double span = f.frequency_high - f.frequency_low;
      auto c0 = static_cast<long>(std::floor((hz0 - f.frequency_low) / span * static_cast<double>(columns)));
      auto c1 = static_cast<long>(std::ceil((hz1 - f.frequency_low) / span * static_cast<double>(columns)));
      c0 = std::clamp<long>(c0, 0, static_cast<long>(columns) - 1);
      c1 = std::clamp<long>(c1, c0 + 1, static_cast<long>(columns));
      float v = -1e30f;
      for (long c = c0; c < c1; ++c) v = std::max(v, values[static_cast<std::size_t>(c)]);
      points[static_cast<std::size_t>(px)] = ImVec2(r.x + static_cast<float>(px) + 0.5f, static_cast<float>(y_of_db(v, r)));
    }
    if (fill)
      for (int px = 0; px < pixels; ++px)
        draw->AddLine(points[static_cast<std::size_t>(px)], ImVec2(points[static_cast<std::size_t>(px)].x, r.y + r.h),
                      IM_COL32(90, 170, 255, 40));
    draw->AddPolyline(points.data(), pixels, colour, ImDrawFlags_None, thickness);
  };
  draw->PushClipRect(ImVec2(r.x, r.y), ImVec2(r.x + r.w, r.y + r.h), true);
  if (settings_.min_hold) trace(display_->minimum, IM_COL32(120, 200, 255, 200), 1.0f, false);
  if (settings_.peak_hold) trace(display_->peak, IM_COL32(255, 170, 60, 220), 1.0f, false);
  trace(display_->latest, IM_COL32(235, 240, 255, 255), 1.3f, true);
  draw->PopClipRect();
}

void Viewer::handle_plot_mouse(const Layout& layout) {
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  const Rect& s = layout.spectrum;
  const Rect& wf = layout.waterfall;
  const Rect plots{s.x, s.y, s.w, wf.y + wf.h - s.y};
  const bool over = plots.contains(mouse) && !io.WantCaptureMouse;
  const std::vector<PointerEvent> events = std::exchange(pointer_events, {});
  if (!display_->session) return;
  const DisplayFormat& f = display_->session->format;
  const FrequencyView v = frequency_view();
  auto set_view = [&](double low, double high) {
    const double full = f.frequency_high - f.frequency_low;
    const double min_span = full / static_cast<double>(std::max<std::size_t>(f.columns, 1)) * 8;
    double span = std::clamp(high - low, min_span, full);
    low = std::clamp(low, f.frequency_low, f.frequency_high - span);
    if (span >= full * 0.9999) {
      settings_.view_low_hz.reset();
      settings_.view_high_hz.reset();
    } else {
      settings_.view_low_hz = low;
      settings_.view_high_hz = low + span;
    }
  };
  if (over && io.MouseWheel != 0) {  // zoom around the cursor
    const double at = hz_at(mouse.x, s);
    const double factor = std::pow(0.8, io.MouseWheel);
    set_view(at - (at - v.low) * factor, at + (v.high - at) * factor);
  }
  // Shift + left button: select a channel, from the press to the release; else drag to pan.
  bool shift_press = false, double_click = false;
  for (const PointerEvent& e : events) {
    const ImVec2 at(static_cast<float>(e.x), static_cast<float>(e.y));
    if (e.press && !e.shift && plots.contains(at) && !io.WantCaptureMouse) {
      double_click = last_press_ && e.time_s - last_press_->time_s < kDoubleClickSeconds &&
                     std::hypot(e.x - last_press_->x, e.y - last_press_->y) < kDoubleClickPixels;
      last_press_ = double_click ? std::nullopt : std::optional<PointerEvent>(e);
    }
    if (e.press && e.shift && plots.contains(at) && !io.WantCaptureMouse) {
      shift_press = true;
      select_active_ = true;
      select_from_hz_ = select_to_hz_ = std::clamp(hz_at(at.x, s), f.frequency_low, f.frequency_high);
    } else if (!e.press && select_active_) {
      select_active_ = false;
      select_to_hz_ = std::clamp(hz_at(at.x, s), f.frequency_low, f.frequency_high);
      const double pixel_hz = (v.high - v.low) / s.w;
      const double low = std::min(select_from_hz_, select_to_hz_), high = std::max(select_from_hz_, select_to_hz_);
      if (high - low < 3 * pixel_hz) select_channel(select_from_hz_, select_from_hz_);
      else select_channel(low, high);
    }
  }
  if (select_active_) select_to_hz_ = std::clamp(hz_at(mouse.x, s), f.frequency_low, f.frequency_high);
  if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && !shift_press && !select_active_) drag_active_ = true;
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) drag_active_ = false;
  if (drag_active_ && io.MouseDelta.x != 0) {  // pan
    const double shift = -io.MouseDelta.x / s.w * (v.high - v.low);
    set_view(v.low + shift, v.high + shift);
  }
  if (double_click) set_view(f.frequency_low, f.frequency_high);
  if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
    markers_[next_marker_] = {true, hz_at(mouse.x, s)};
    next_marker_ = 1 - next_marker_;
  }
  if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Middle)) markers_[0] = markers_[1] = {};

  cursor_text_.clear();
  if (over && display_->have_line) {
    const double hz = hz_at(mouse.x, s);
    const auto column = static_cast<std::size_t>(std::clamp(
        (hz - f.frequency_low) / (f.frequency_high - f.frequency_low) * static_cast<double>(f.columns), 0.0,
        static_cast<double>(f.columns - 1)));
    char text[160];
    if (wf.contains(mouse)) {
      const std::size_t visible = std::min<std::size_t>(kHistoryRows, static_cast<std::size_t>(wf.h));
      const auto age = static_cast<std::size_t>((mouse.y - wf.y) / wf.h * static_cast<float>(visible));
      if (age < display_->texture.filled()) {
        double t = 0;
        const float level = display_->history_value(age, column, &t);
        std::snprintf(text, sizeof text, "cursor  %s   %.3f s   %.1f dB", frequency_text(hz + f.center_frequency).c_str(), t, level);
        cursor_text_ = text;
      }
    } else {
      std::snprintf(text, sizeof text, "cursor  %s   %.1f dB (now)", frequency_text(hz + f.center_frequency).c_str(),
                    display_->latest[column]);
      cursor_text_ = text;
    }
  }
}

void Viewer::select_channel(double low, double high) {
  const Demodulation d = parse_demodulation(settings_.demodulator).value_or(Demodulation::am);
  const BandwidthRange range = bandwidth_range(d);
  double carrier = (low + high) / 2;
  if (high > low) {
    const double bandwidth = std::clamp(high - low, range.min_hz, range.max_hz);
    settings_.listen_bandwidth_hz = std::round(bandwidth);
    // The suppressed carrier sits at the band's lower edge for usb, the upper for lsb.
    if (d == Demodulation::usb) carrier = low;
    if (d == Demodulation::lsb) carrier = high;
  }
  settings_.listen = true;
  settings_.listen_hz = std::round(carrier + display_->session->format.center_frequency);
  apply_settings(settings_);
}

void Viewer::draw_channel_band(ImDrawList* draw, const Layout& layout) {
  if (!display_->session) return;
  const Rect& s = layout.spectrum;
  const Rect& wf = layout.waterfall;
  const double centre = display_->session->format.center_frequency;
  draw->PushClipRect(ImVec2(s.x, s.y), ImVec2(s.x + s.w, wf.y + wf.h), true);
  if (select_active_) {  // the band being dragged
    const float x0 = static_cast<float>(x_of(std::min(select_from_hz_, select_to_hz_), s));
    const float x1 = static_cast<float>(x_of(std::max(select_from_hz_, select_to_hz_), s));
    draw->AddRectFilled(ImVec2(x0, s.y), ImVec2(std::max(x1, x0 + 1), wf.y + wf.h), IM_COL32(255, 220, 80, 50));
  }
  if (settings_.listen) {
    ChannelSettings channel;
    channel.demodulation = parse_demodulation(settings_.demodulator).value_or(Demodulation::am);
    channel.bandwidth_hz = settings_.listen_bandwidth_hz;
    channel.carrier_hz = settings_.listen_hz ? *settings_.listen_hz - centre : 0.0;
    const auto [low, high] = channel_band(channel);
    const float x0 = static_cast<float>(x_of(low, s)), x1 = static_cast<float>(x_of(high, s));
    const float xc = static_cast<float>(x_of(channel.carrier_hz, s));
    draw->AddRectFilled(ImVec2(x0, s.y), ImVec2(std::max(x1, x0 + 1), wf.y + wf.h), IM_COL32(255, 220, 80, 36));
    draw->AddRect(ImVec2(x0, s.y), ImVec2(std::max(x1, x0 + 1), wf.y + wf.h), IM_COL32(255, 220, 80, 160));
    draw->AddLine(ImVec2(xc, s.y), ImVec2(xc, wf.y + wf.h), IM_COL32(255, 220, 80, 220), 1.0f);
  }
  draw->PopClipRect();
}

// The texts over the spectrum: the markers' readout at the top left, the cursor's at the top
// right (under the readout when both do not fit on one line), an error under them, and the
// markers' letters under all of these, so that no text covers another.
void Viewer::draw_markers_and_cursor(ImDrawList* draw, const Layout& layout) {
  spectrum_labels_ = json::array();
  const Rect& s = layout.spectrum;
  const Rect& wf = layout.waterfall;
  const float line_step = ImGui::GetFontSize() + 3;
  // Texts wrap at the spectrum's right edge.
  auto put = [&](const char* what, float x, float y, const std::string& text, ImU32 colour) {
    const float wrap = std::max(s.x + s.w - 8 - x, 40.0f);
    const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
    draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(x, y), colour, text.c_str(), nullptr, wrap);
    spectrum_labels_.push_back({{"what", what}, {"text", text}, {"x", x}, {"y", y}, {"width", size.x}, {"height", size.y}});
  };
  float y = s.y + 4;
  const MarkerReadout readout = marker_readout();
  float readout_end = s.x;
  if (!readout.text.empty()) {
    put("markers", s.x + 8, y, readout.text, IM_COL32(230, 230, 230, 255));
    readout_end = s.x + 8 + ImGui::CalcTextSize(readout.text.c_str()).x;
  }
  if (!cursor_text_.empty()) {
    const float x = s.x + s.w - ImGui::CalcTextSize(cursor_text_.c_str()).x - 8;
    if (!readout.text.empty() && x < readout_end + 16) y += line_step;
    put("cursor", x, y, cursor_text_, IM_COL32(255, 240, 160, 255));
  }
  if (!readout.text.empty() || !cursor_text_.empty()) y += line_step;
  if (!frame_status_.error.empty()) {
    const std::string error = "error: " + frame_status_.error;
    put("error", s.x + 8, y, error, IM_COL32(255, 110, 110, 255));
    y += ImGui::CalcTextSize(error.c_str(), nullptr, false, std::max(s.w - 16, 40.0f)).y + 3;
  }
  if (!display_->session) return;
  const ImU32 colours[2] = {IM_COL32(255, 90, 90, 255), IM_COL32(90, 255, 140, 255)};
  const char* names[2] = {"A", "B"};
  std::optional<float> a_x;
  for (int i = 0; i < 2; ++i) {
    if (!markers_[i].set) continue;
    const float x = static_cast<float>(x_of(markers_[i].frequency, s));
    if (x < s.x || x > s.x + s.w) continue;
    draw->AddLine(ImVec2(x, s.y), ImVec2(x, wf.y + wf.h), colours[i], 1.0f);
    // B's letter goes a line lower when A's is too close beside it.
    const bool crowded = i == 1 && a_x && std::abs(x - *a_x) < ImGui::CalcTextSize("A").x + 6;
    put(names[i], x + 3, y + (crowded ? line_step : 0.0f), names[i], colours[i]);
    if (i == 0) a_x = x;
  }
}

MarkerReadout Viewer::marker_readout() const {
  MarkerReadout r;
  if (!display_->session) return r;
  const DisplayFormat& f = display_->session->format;
  const char* names[2] = {"A", "B"};
  char line[200];
  for (int i = 0; i < 2; ++i) {
    if (!markers_[i].set) continue;
    const auto column = static_cast<std::size_t>(std::clamp(
        (markers_[i].frequency - f.frequency_low) / (f.frequency_high - f.frequency_low) * static_cast<double>(f.columns),
        0.0, static_cast<double>(f.columns - 1)));
    const double level = display_->latest.empty() ? 0.0 : display_->latest[column];
    r.marker[i] = MarkerReadout::Point{markers_[i].frequency + f.center_frequency, level};
    std::snprintf(line, sizeof line, "%s %s %.1f dB   ", names[i], frequency_text(r.marker[i]->hz).c_str(), level);
    r.text += line;
  }
  if (r.marker[0] && r.marker[1]) {
    r.difference = MarkerReadout::Point{r.marker[1]->hz - r.marker[0]->hz, r.marker[1]->db - r.marker[0]->db};
    std::snprintf(line, sizeof line, "B-A %s %+.1f dB", frequency_text(r.difference->hz).c_str(), r.difference->db);
    r.text += line;
  }
  return r;
}

// Notes where the last widget was drawn (screen pixels), so that the report can say where each
// control is: scripts and tests that drive the viewer with real mouse events click there.
// frame_width: a slider's frame without its label (ImGui's item rectangle includes the label).
void Viewer::remember_control(const char* name, float frame_width) {
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  control_rects_[name] = Rect{min.x, min.y, frame_width > 0 ? frame_width : max.x - min.x, max.y - min.y}.to_json();
}

void Viewer::draw_controls() {
  control_rects_ = json::object();
  ViewSettings next = settings_;
  const StreamInfo& stream = engine_->stream();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(kPanelWidth, ImGui::GetIO().DisplaySize.y - status_height_));
  ImGui::Begin("controls", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "prism view");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", frame_status_.live ? "live" : "playback");
  ImGui::PushItemWidth(150);

  section_heading("Processing");
  const auto& sizes = fft_size_choices();
  std::size_t size_index = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] <= next.fft_size) size_index = i;
  if (ImGui::BeginCombo("FFT size", std::to_string(next.fft_size).c_str())) {
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (ImGui::Selectable(std::to_string(sizes[i]).c_str(), i == size_index)) next.fft_size = sizes[i];
    ImGui::EndCombo();
  }
  static const char* windows[] = {"hann", "hamming", "blackman", "blackmanharris", "flattop", "kaiser:8.6", "boxcar"};
  if (ImGui::BeginCombo("window", next.window.c_str())) {
    for (const char* w : windows)
      if (ImGui::Selectable(w, next.window == w)) next.window = w;
    ImGui::EndCombo();
  }
  float overlap_percent = static_cast<float>(next.overlap * 100);
  if (ImGui::SliderFloat("overlap", &overlap_percent, 0, 95, "%.0f %%")) next.overlap = std::round(overlap_percent) / 100.0;
  if (stream.channels > 1) {
    int channel = static_cast<int>(next.channel);
    if (ImGui::SliderInt("channel", &channel, 0, static_cast<int>(stream.channels) - 1))
      next.channel = static_cast<unsigned>(channel);
  }
  float averaging = static_cast<float>(next.averaging_s);
  if (ImGui::SliderFloat("averaging", &averaging, 0, 10, averaging == 0 ? "off" : "%.2f s", ImGuiSliderFlags_Logarithmic))
    next.averaging_s = averaging;
  float lines = static_cast<float>(next.lines_per_second);
  if (ImGui::SliderFloat("lines/s", &lines, 1, 1000, "%.0f", ImGuiSliderFlags_Logarithmic)) next.lines_per_second = lines;

  section_heading("Display");
  if (ImGui::BeginCombo("colormap", next.colormap.c_str())) {
    for (const std::string& name : colormap_names())
      if (ImGui::Selectable(name.c_str(), next.colormap == name)) next.colormap = name;
    ImGui::EndCombo();
  }
  float range[2] = {static_cast<float>(next.db_min), static_cast<float>(next.db_max)};
  if (ImGui::DragFloat2("dB range", range, 0.5f, -300, 300, "%.0f") && range[0] < range[1]) {
    next.db_min = range[0];
    next.db_max = range[1];
  }
  if (ImGui::Button("Auto range (A)")) {
    settings_ = next;
    auto_range();
    next = settings_;
  }
  remember_control("auto_range");
  ImGui::Checkbox("peak hold", &next.peak_hold);
  ImGui::SameLine();
  ImGui::Checkbox("min hold", &next.min_hold);
  float decay = static_cast<float>(next.hold_decay_db_per_s);
  if (ImGui::SliderFloat("hold decay", &decay, 0, 60, "%.0f dB/s")) next.hold_decay_db_per_s = decay;
  ImGui::Checkbox("freeze display (F)", &frozen_);
  remember_control("freeze");
  if (ImGui::Button("Reset zoom (R)")) {
    next.view_low_hz.reset();
    next.view_high_hz.reset();
  }
  remember_control("reset_zoom");
  ImGui::SameLine();
  if (ImGui::Button("Clear markers")) markers_[0] = markers_[1] = {};
  remember_control("clear_markers");

  const EngineStatus& status = frame_status_;
  if (!status.live) {
    section_heading("Playback");
    const bool paused = engine_->paused();
    if (ImGui::Button(paused ? "Play (space)" : "Pause (space)")) engine_->set_paused(!paused);
    remember_control("pause");
    ImGui::SameLine();
    ImGui::Checkbox("loop", &next.loop);
    remember_control("loop");
    const double speeds[] = {1, 2, 10, 0};
    const char* speed_names[] = {"1x", "2x", "10x", "max"};
    for (int i = 0; i < 4; ++i) {
      if (i > 0) ImGui::SameLine();
      if (ImGui::RadioButton(speed_names[i], next.speed == speeds[i])) next.speed = speeds[i];
      remember_control((std::string("speed_") + speed_names[i]).c_str());
    }
    if (status.duration_s) {
      // Seek once the slider is let go: every seek restarts the processing.
      float position = seeking_ ? seek_value_ : static_cast<float>(status.position_s);
      const float slider_width = ImGui::CalcItemWidth();
      if (ImGui::SliderFloat("seek", &position, 0, static_cast<float>(*status.duration_s), "%.1f s")) seek_value_ = position;
      remember_control("seek", slider_width);
      seeking_ = ImGui::IsItemActive();
      if (ImGui::IsItemDeactivatedAfterEdit()) engine_->seek(seek_value_);
    }
  }
  draw_listen_controls(next);
  ImGui::PopItemWidth();

  section_heading("Help");
  ImGui::TextDisabled("wheel: zoom   drag: pan\ndouble-click: whole band\nright-click: markers A/B\nmiddle-click: clear markers\n"
                      "shift-drag: listen to a band\nshift-click: listen there");

  // Keyboard shortcuts (when no text field has the keyboard).
  const bool typing = ImGui::GetIO().WantTextInput;
  for (const int key : std::exchange(pressed_keys, {})) {
    if (typing) break;
    if (key == GLFW_KEY_SPACE && !status.live) engine_->set_paused(!engine_->paused());
    if (key == GLFW_KEY_A) {
      settings_ = next;
      auto_range();
      next = settings_;
    }
    if (key == GLFW_KEY_F) frozen_ = !frozen_;
    if (key == GLFW_KEY_R) {
      next.view_low_hz.reset();
      next.view_high_hz.reset();
    }
  }
  ImGui::End();
  try {
    next.validate();
    if (!(next == settings_)) apply_settings(next);
  } catch (const UsageError&) {
    // A half-typed value: keep the last valid settings.
  }
}

void Viewer::draw_listen_controls(ViewSettings& next) {
  section_heading("Listen");
  const double centre = display_->session ? display_->session->format.center_frequency : 0.0;
  ImGui::Checkbox("listen", &next.listen);
  remember_control("listen");
  ImGui::SameLine();
  ImGui::Checkbox("mute", &next.mute);
  remember_control("mute");
  ImGui::SameLine();
  const bool recording = engine_->recording();
  if (ImGui::Button(recording ? "Stop rec" : "Record")) engine_->set_recording(!recording);
  remember_control("record");

  if (ImGui::BeginCombo("demodulator", next.demodulator.c_str())) {
    for (Demodulation d : {Demodulation::am, Demodulation::nfm, Demodulation::wfm, Demodulation::usb,
                           Demodulation::lsb, Demodulation::cw}) {
      const std::string name(demodulation_name(d));
      if (ImGui::Selectable(name.c_str(), next.demodulator == name)) {
        next.demodulator = name;
        const BandwidthRange range = bandwidth_range(d);
        if (next.listen_bandwidth_hz < range.min_hz || next.listen_bandwidth_hz > range.max_hz)
          next.listen_bandwidth_hz = range.default_hz;
      }
    }
    ImGui::EndCombo();
  }
  double khz = (next.listen_hz ? *next.listen_hz : centre) / 1e3;
  if (ImGui::InputDouble("kHz", &khz, 0, 0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue))
    next.listen_hz = std::round(khz * 1e3);
  const BandwidthRange range = bandwidth_range(parse_demodulation(next.demodulator).value_or(Demodulation::am));
  float bandwidth = static_cast<float>(next.listen_bandwidth_hz);
  if (ImGui::SliderFloat("bandwidth", &bandwidth, static_cast<float>(range.min_hz), static_cast<float>(range.max_hz),
                         "%.0f Hz", ImGuiSliderFlags_Logarithmic))
    next.listen_bandwidth_hz = std::round(bandwidth);
  float volume = static_cast<float>(next.volume_db);
  if (ImGui::SliderFloat("volume", &volume, -60, 40, "%.0f dB")) next.volume_db = std::round(volume);
  bool squelch = next.squelch_db.has_value();
  if (ImGui::Checkbox("squelch", &squelch)) next.squelch_db = squelch ? std::optional<double>(-60.0) : std::nullopt;
  if (next.squelch_db) {
    ImGui::SameLine();
    float level = static_cast<float>(*next.squelch_db);
    ImGui::PushItemWidth(90);
    if (ImGui::SliderFloat("##squelch", &level, -150, 0, "%.0f dB")) next.squelch_db = std::round(level);
    ImGui::PopItemWidth();
  }

  const ListenStatus& l = frame_status_.listen;
  if (!l.error.empty()) {
    ImGui::PushTextWrapPos(kPanelWidth - 8);
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%s", l.error.c_str());
    ImGui::PopTextWrapPos();
  }
  if (l.on) {
    ImGui::PushTextWrapPos(kPanelWidth - 8);
    ImGui::TextDisabled("%s", l.description.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Text("level %.1f dB%s", l.level_db, l.squelched ? "  (squelched)" : "");
    ImGui::TextColored(l.dropped || l.underflows ? ImVec4(1.0f, 0.75f, 0.47f, 1.0f) : ImVec4(0.78f, 0.8f, 0.84f, 1.0f),
                       "audio dropped %llu  underflows %llu", static_cast<unsigned long long>(l.dropped),
                       static_cast<unsigned long long>(l.underflows));
  }
  if (!l.recording.empty())
    ImGui::Text("rec %s + %s (%.1f s)", l.recording.c_str(), l.iq_recording.c_str(),
                l.audio_rate > 0 ? static_cast<double>(l.recorded_samples) / l.audio_rate : 0.0);
}

namespace {

// `text` cut to at most `width` pixels, ending in "..." when cut.
std::string fit_text(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::size_t keep = text.size();
  while (keep > 0 && ImGui::CalcTextSize((text.substr(0, keep) + "...").c_str()).x > width) --keep;
  return text.substr(0, keep) + "...";
}

// Fields joined by " | " into lines no wider than `width` pixels: a field goes on the next line
// when it does not fit on the current one.
std::vector<std::string> wrap_fields(const std::vector<std::string>& fields, float width) {
  std::vector<std::string> lines;
  for (const std::string& field : fields) {
    const std::string fitted = fit_text(field, width);
    if (!lines.empty()) {
      const std::string joined = lines.back() + "  |  " + fitted;
      if (ImGui::CalcTextSize(joined.c_str()).x <= width) {
        lines.back() = joined;
        continue;
      }
    }
    lines.push_back(fitted);
  }
  return lines;
}

std::string printed(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printed(const char* format, ...) {
  char text[512];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(text, sizeof text, format, arguments);
  va_end(arguments);
  return text;
}

}  // namespace

void Viewer::compose_status(float width) {
  const EngineStatus& s = frame_status_;
  const auto now = Clock::now();
  const double since = std::chrono::duration<double>(now - rate_since_).count();
  if (since >= 1.0) {
    input_rate_ = static_cast<double>(s.samples_received - rate_samples_) / since;
    fft_rate_ = static_cast<double>(s.spectra_computed - rate_spectra_) / since;
    fps_ = static_cast<double>(rate_frames_) / since;
    rate_samples_ = s.samples_received;
    rate_spectra_ = s.spectra_computed;
    rate_frames_ = 0;
    rate_since_ = now;
  }
  ++rate_frames_;
  const float room = std::max(width - 16.0f, 100.0f);
  status_lines_.clear();
  // The input's name and the processing parameters.
  if (display_->session) {
    const DisplayFormat& f = display_->session->format;
    for (const std::string& line :
         wrap_fields({s.source, printed("%.6g Hz, ch %u/%u", f.sample_rate, f.channel + 1, f.channels),
                      printed("N %zu  %s  %.0f %% overlap", f.fft_size, f.window.c_str(), f.overlap * 100),
                      printed("%.3g Hz/bin", f.sample_rate / static_cast<double>(f.fft_size))},
                     room))
      status_lines_.push_back({line, false});
  }
  const std::string items = s.rows ? "rows" : "samples";
  std::vector<std::string> counters = {
      "input " + format_count(input_rate_) + (s.rows ? "rows" : "S") + "/s", printed("FFT %.1f /s", fft_rate_),
      printed("%.0f fps", fps_), s.processor, "received " + format_count(static_cast<double>(s.samples_received)) + items,
      printed("overruns %llu ", static_cast<unsigned long long>(s.overrun_samples)) + items +
          (s.device_overflows != 0
               ? printed(" + %llu device overflows", static_cast<unsigned long long>(s.device_overflows))
               : std::string()),
      printed("display rows skipped %llu", static_cast<unsigned long long>(s.display_rows_skipped))};
  if (display_->rows_from_device > 0) counters.push_back("waterfall from GPU memory (CUDA-GL)");
  if (!s.live) {
    const char* paused = frame_paused_ ? " (paused)" : "";
    counters.push_back(s.duration_s ? printed("%.1f / %.1f s%s", s.position_s, *s.duration_s, paused)
                                    : printed("%.1f s%s", s.position_s, paused));
  }
  if (frozen_) counters.push_back("FROZEN");
  for (const std::string& line : wrap_fields(counters, room)) status_lines_.push_back({line, true});
  status_height_ = static_cast<float>(status_lines_.size()) * kStatusLineStep + 4.0f;
}

void Viewer::draw_status(const Layout& layout) {
  const EngineStatus& s = frame_status_;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const Rect& r = layout.status;
  draw->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.x + r.w, r.y + r.h), IM_COL32(30, 33, 40, 255));
  const ImU32 counters = s.overrun_samples || s.device_overflows ? IM_COL32(255, 190, 120, 255) : IM_COL32(200, 205, 215, 255);
  float y = r.y + 4;
  for (const StatusLine& line : status_lines_) {
    draw->AddText(ImVec2(r.x + 8, y), line.counters ? counters : IM_COL32(150, 155, 165, 255), line.text.c_str());
    y += kStatusLineStep;
  }
}

void Viewer::render_gl(const Layout& layout) {
  int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  glfwGetWindowSize(window_, &win_w, &win_h);
  const float sx = win_w > 0 ? static_cast<float>(fb_w) / static_cast<float>(win_w) : 1.0f;
  const float sy = win_h > 0 ? static_cast<float>(fb_h) / static_cast<float>(win_h) : 1.0f;
  auto to_gl = [&](const Rect& r) {
    GlRect g;
    g.x = static_cast<int>(std::lround(r.x * sx));
    g.width = static_cast<int>(std::lround(r.w * sx));
    g.height = static_cast<int>(std::lround(r.h * sy));
    g.y = fb_h - static_cast<int>(std::lround(r.y * sy)) - g.height;
    return g;
  };
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.11f, 0.12f, 0.14f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (display_->session) {
    const DisplayFormat& f = display_->session->format;
    const FrequencyView v = frequency_view();
    const double span = f.frequency_high - f.frequency_low;
    const std::size_t visible = std::min<std::size_t>(kHistoryRows, static_cast<std::size_t>(layout.waterfall.h));
    renderer_->draw_waterfall(display_->texture, to_gl(layout.waterfall), (v.low - f.frequency_low) / span,
                              (v.high - f.frequency_low) / span, visible, static_cast<float>(settings_.db_min),
                              static_cast<float>(settings_.db_max));
  }
  renderer_->draw_colorbar(to_gl(layout.colorbar));
  glViewport(0, 0, fb_w, fb_h);
}

json Viewer::report_json(const Layout& layout) const {
  const EngineStatus& s = frame_status_;
  json j;
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  j["framebuffer"] = {{"width", fb_w}, {"height", fb_h}};
  j["spectrum"] = layout.spectrum.to_json();
  j["waterfall"] = layout.waterfall.to_json();
  j["colorbar"] = layout.colorbar.to_json();
  j["frequency_axis"] = layout.frequency_axis.to_json();
  j["frequency_ticks"] = axis_ticks_;
  j["time_ticks"] = time_ticks_;
  j["spectrum_labels"] = spectrum_labels_;
  json status_lines = json::array();
  for (std::size_t i = 0; i < status_lines_.size(); ++i)
    status_lines.push_back({{"text", status_lines_[i].text},
                            {"x", layout.status.x + 8},
                            {"y", layout.status.y + 4 + static_cast<float>(i) * kStatusLineStep},
                            {"width", ImGui::CalcTextSize(status_lines_[i].text.c_str()).x}});
  j["status_line"] = status_lines;
  j["status_area"] = layout.status.to_json();
  json newest_line = nullptr;
  if (display_->texture.filled() > 0) newest_line = display_->history_time(0);
  j["waterfall_history"] = {{"rows", display_->texture.filled()},
                            {"newest_line_time_s", newest_line},
                            {"breaks", history_breaks_},
                            {"annotations", annotation_boxes_},
                            {"retunes", retune_lines_}};
  const FrequencyView v = frequency_view();
  const double centre = display_->session ? display_->session->format.center_frequency : 0.0;
  j["frequency_view_hz"] = {v.low + centre, v.high + centre};
  j["settings"] = json::parse(settings_.to_json_text());
  j["gl_renderer"] = gl_renderer_;
  j["status"] = {{"rows_in", s.rows}, {"samples_received", s.samples_received}, {"spectra_computed", s.spectra_computed},
                 {"overrun_samples", s.overrun_samples}, {"device_overflows", s.device_overflows},
                 {"display_rows_skipped", s.display_rows_skipped},
                 {"processor", s.processor}, {"source", s.source}, {"error", s.error},
                 {"input_rate", input_rate_}, {"fft_rate", fft_rate_}, {"fps", fps_}};
  j["playback"] = {{"live", s.live}, {"paused", frame_paused_}, {"position_s", s.position_s},
                   {"duration_s", s.duration_s ? json(*s.duration_s) : json(nullptr)}, {"ended", s.ended}};
  j["controls"] = control_rects_;
  const MarkerReadout readout = marker_readout();
  auto point = [](const std::optional<MarkerReadout::Point>& p) {
    return p ? json{{"hz", p->hz}, {"db", p->db}} : json(nullptr);
  };
  j["markers"] = {{"A", point(readout.marker[0])}, {"B", point(readout.marker[1])},
                  {"B-A", point(readout.difference)}, {"text", readout.text}};
  const ListenStatus& l = s.listen;
  json band = nullptr;
  if (settings_.listen) {
    ChannelSettings channel;
    channel.demodulation = parse_demodulation(settings_.demodulator).value_or(Demodulation::am);
    channel.bandwidth_hz = settings_.listen_bandwidth_hz;
    channel.carrier_hz = settings_.listen_hz.value_or(centre) - centre;
    const auto [low, high] = channel_band(channel);
    band = {low + centre, high + centre};
  }
  j["listen"] = {{"on", l.on}, {"band_hz", band}, {"description", l.description}, {"error", l.error},
                 {"level_db", std::isfinite(l.level_db) ? json(l.level_db) : json(nullptr)},
                 {"squelched", l.squelched}, {"audio_rate", l.audio_rate}, {"audio_samples", l.audio_samples},
                 {"dropped", l.dropped}, {"underflows", l.underflows}, {"host_xruns", l.host_xruns},
                 {"receivers_built", l.receivers_built}, {"taps_replaced", l.taps_replaced},
                 {"recording", l.recording}, {"recorded_samples", l.recorded_samples},
                 {"iq_recording", l.iq_recording}, {"iq_recorded_samples", l.iq_recorded_samples},
                 {"recordings", l.recordings}};
  j["cursor"] = cursor_text_;
  j["frozen"] = frozen_;
  j["display_lines"] = display_->lines;
  j["waterfall_rows"] = {{"from_device", display_->rows_from_device}, {"from_host", display_->rows_from_host},
                         {"interop_note", display_->interop_note}};
  if (display_->session && display_->have_line) {
    const DisplayFormat& f = display_->session->format;
    const auto peak = static_cast<std::size_t>(std::max_element(display_->latest.begin(), display_->latest.end()) -
                                               display_->latest.begin());
    const double hz = f.frequency_low + (static_cast<double>(peak) + 0.5) / static_cast<double>(f.columns) *
                                            (f.frequency_high - f.frequency_low);
    j["spectrum_peak"] = {{"hz", hz + f.center_frequency}, {"db", display_->latest[peak]},
                          {"bin_hz", (f.frequency_high - f.frequency_low) / static_cast<double>(f.columns)}};
    j["display_format"] = {{"columns", f.columns}, {"fft_bins", f.fft_bins}, {"fft_size", f.fft_size},
                           {"frequency_low", f.frequency_low + centre}, {"frequency_high", f.frequency_high + centre}};
  }
  return j;
}

int Viewer::run() {
  StopToken stop;
  InterruptGuard guard(stop);
  const auto start = Clock::now();
  const double start_cpu = process_cpu_seconds();
  auto last = start;
  bool auto_ranged = false;
  long frame = 0;
  Layout layout;
  json report;
  while (true) {
    const auto frame_start = Clock::now();
    const double dt = std::chrono::duration<double>(frame_start - last).count();
    last = frame_start;
    glfwPollEvents();
    // Ctrl-C or the window closed: this frame is still drawn, as the last one, so that the
    // screenshot and the report show the state the viewer ended in.
    const bool closing = glfwWindowShouldClose(window_) || stop.stop_requested();
    run_script(frame, std::chrono::duration<double>(frame_start - start).count());
    handle_new_session();
    display_->take_rows(frozen_);
    if (!frozen_) display_->decay_holds(dt, settings_.hold_decay_db_per_s);
    if (options_.auto_range_at_start && !auto_ranged && std::chrono::duration<double>(frame_start - start).count() > 0.5 &&
        display_->have_line) {
      auto_range();
      engine_->apply(settings_);
      auto_ranged = true;
    }

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    frame_status_ = engine_->status();
    frame_paused_ = engine_->paused();
    compose_status(size.x);
    layout = compute_layout(size.x, size.y, status_height_);
    draw_controls();
    handle_plot_mouse(layout);
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    draw_spectrum(draw, layout.spectrum);
    draw_axes(draw, layout);
    draw_history_breaks(draw, layout);
    draw_stream_marks(draw, layout);
    draw_channel_band(draw, layout);
    draw_markers_and_cursor(draw, layout);
    draw_status(layout);
    // The report describes this frame, the one the screenshot shows.
    const bool last_frame = closing || (options_.frames > 0 && frame + 1 >= options_.frames);
    if (last_frame && !options_.report_path.empty()) report = report_json(layout);
    ImGui::Render();

    render_gl(layout);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame;
    if (last_frame && !options_.screenshot_path.empty()) {
      int fb_w = 0, fb_h = 0;
      glfwGetFramebufferSize(window_, &fb_w, &fb_h);
      std::vector<unsigned char> pixels(static_cast<std::size_t>(fb_w) * fb_h * 3);
      glPixelStorei(GL_PACK_ALIGNMENT, 1);
      glReadBuffer(GL_BACK);
      glReadPixels(0, 0, fb_w, fb_h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
      write_png(options_.screenshot_path, fb_w, fb_h, pixels);
    }
    glfwSwapBuffers(window_);
    glFinish();  // count the GPU's (llvmpipe's) work in the frame time
    frame_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count());
    if (frame_ms_.size() > 100000) frame_ms_.erase(frame_ms_.begin(), frame_ms_.begin() + 50000);
    if (last_frame) break;
    if (options_.max_fps > 0) {  // cap the rate: swap intervals do nothing on Xvfb
      const auto next = frame_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / options_.max_fps));
      std::this_thread::sleep_until(next);
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = process_cpu_seconds() - start_cpu;

  if (!options_.config_path.empty()) {
    const std::string error = save_settings_file(options_.config_path, settings_);
    if (!error.empty()) std::fprintf(stderr, "prism view: settings not saved: %s\n", error.c_str());
  }
  if (!options_.report_path.empty()) {
    report["frames"] = frame;
    if (!frame_ms_.empty()) {
      std::vector<double> sorted = frame_ms_;
      std::sort(sorted.begin(), sorted.end());
      report["frame_ms"] = {{"mean", std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size())},
                            {"median", sorted[sorted.size() / 2]},
                            {"p95", sorted[sorted.size() * 95 / 100]},
                            {"max", sorted.back()}};
    }
    report["wall_seconds"] = wall;
    report["cpu_seconds"] = cpu;
    report["cpu_percent"] = wall > 0 ? 100.0 * cpu / wall : 0.0;
    std::ofstream out(options_.report_path);
    out << report.dump(2) << "\n";
    if (!out) std::fprintf(stderr, "prism view: cannot write the report %s\n", options_.report_path.c_str());
  }
  const EngineStatus s = engine_->status();
  if (!s.error.empty()) {
    std::fprintf(stderr, "prism view: %s\n", s.error.c_str());
    return 1;
  }
  return InterruptGuard::interrupted() ? 130 : 0;
}

}  // namespace

int run_viewer(ViewEngine::SourceFactory open, const ViewerOptions& options) {
  Viewer viewer(std::move(open), options);
  return viewer.run();
}

}  // namespace prism::view
