// Spectrogram figure rendering (see spectrogram_plot.hpp).
//
// Contents: Cairo surface and text helpers · ticks and units · margins · the figure (plot area,
// frame, axes, colour bar, labels, title). Data and colour-bar cells are written as exact
// colormap pixels; lines and text are drawn by Cairo, lines on whole pixels so they stay crisp.
#include "sinks/spectrogram_plot.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>

#include "sinks/plot_font.hpp"

namespace prism {
namespace {

constexpr Rgb kInk{25, 25, 25};
constexpr Rgb kNoData{200, 200, 200};
constexpr Rgb kMark{255, 255, 255};
constexpr int kMaxTicks = 12;

struct SurfaceFree {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextFree {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

void set_colour(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

// A filled rectangle on whole pixels (no antialiased edge).
void fill(cairo_t* cr, int x, int y, int w, int h, Rgb c) {
  if (w <= 0 || h <= 0) return;
  set_colour(cr, c);
  cairo_rectangle(cr, x, y, w, h);
  cairo_fill(cr);
}

// A 1-pixel rectangle outline just outside the area (x, y, w, h).
void frame(cairo_t* cr, int x, int y, int w, int h, Rgb c) {
  fill(cr, x - 1, y - 1, w + 2, 1, c);
  fill(cr, x - 1, y + h, w + 2, 1, c);
  fill(cr, x - 1, y - 1, 1, h + 2, c);
  fill(cr, x + w, y - 1, 1, h + 2, c);
}

// Shortens `text` with "..." until it fits `max_width` pixels in the current font.
std::string fit_text(cairo_t* cr, std::string text, double max_width) {
  if (text_width(cr, text) <= max_width) return text;
  while (!text.empty() && text_width(cr, text + "...") > max_width) {
    text.pop_back();
    // Never leave half a UTF-8 character behind.
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  }
  return text.empty() ? std::string() : text + "...";
}

// Breaks `text` at spaces into lines of at most `max_width` pixels, at most `max_lines` of them;
// a word wider than a line, or text beyond the last line, is shortened with "...".
std::vector<std::string> wrap_text(cairo_t* cr, const std::string& text, double max_width, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    const std::string joined = line.empty() ? word : line + " " + word;
    if (line.empty() || text_width(cr, joined) <= max_width) {
      line = joined;
      continue;
    }
    if (lines.size() + 1 == max_lines) {  // the last line takes the rest, shortened
      line = joined + text.substr(std::min(start - 1, text.size()));
      break;
    }
    lines.push_back(fit_text(cr, line, max_width));
    line = word;
  }
  if (!line.empty()) lines.push_back(fit_text(cr, line, max_width));
  return lines;
}

int to_pixel(double v) {
  if (!std::isfinite(v)) return 0;
  return static_cast<int>(std::floor(std::clamp(v, -1e6, 1e6)));
}

// ---------------------------------------------------------------------------------------------
// Ticks: values, labels and positions for one axis; fewer ticks until the labels do not touch.

// `position_of(value)` gives the tick's pixel; `extent` its label's size along the axis.
std::vector<PlotTick> make_ticks(double low, double high, int target, int min_gap,
                                 const std::function<int(double)>& position_of,
                                 const std::function<int(const std::string&)>& extent) {
  for (int want = std::clamp(target, 2, kMaxTicks); want >= 1; --want) {
    double step = 0.0;
    const std::vector<double> values = nice_ticks(low, high, want, &step);
    std::vector<PlotTick> ticks;
    for (double v : values) ticks.push_back({v, position_of(v), format_tick(v, step)});
    bool crowded = false;
    for (std::size_t i = 1; i < ticks.size() && !crowded; ++i) {
      const int distance = std::abs(ticks[i].position - ticks[i - 1].position);
      const int needed = (extent(ticks[i].label) + extent(ticks[i - 1].label)) / 2 + min_gap;
      crowded = distance < needed;
    }
    if (!crowded || want == 1) return ticks;
  }
  return {};
}

}  // namespace

Rgb RgbImage::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height) return {};
  const auto* p = &pixels[(static_cast<std::size_t>(y) * width + x) * 3];
  return {p[0], p[1], p[2]};
}

std::vector<double> nice_ticks(double low, double high, int target, double* step_out) {
  if (step_out) *step_out = 0.0;
  if (!std::isfinite(low) || !std::isfinite(high)) return {};
  if (high < low) std::swap(low, high);
  if (!(high > low)) return {low};
  target = std::max(target, 1);
  const double raw = (high - low) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  double step = magnitude * (fraction <= 1.0 ? 1.0 : fraction <= 2.0 ? 2.0 : fraction <= 5.0 ? 5.0 : 10.0);
  if (!(step > 0.0) || !std::isfinite(step)) return {low};
  if (step_out) *step_out = step;
  std::vector<double> values;
  const double first = std::ceil(low / step - 1e-9);
  for (int i = 0; i <= 4 * kMaxTicks; ++i) {
    double v = (first + i) * step;
    if (v > high + step * 1e-9) break;
    if (std::abs(v) < step * 1e-9) v = 0.0;  // no "-0"
    values.push_back(v);
  }
  return values;
}

AxisUnit frequency_unit(double max_abs_hz) {
  if (!(max_abs_hz < 1e3)) {
    if (max_abs_hz < 1e6) return {1e-3, "kHz"};
    if (max_abs_hz < 1e9) return {1e-6, "MHz"};
    return {1e-9, "GHz"};
  }
  return {1.0, "Hz"};
}

AxisUnit time_unit(double span_seconds) {
  if (span_seconds < 1.0) return {1e3, "ms"};
  if (span_seconds <= 600.0) return {1.0, "s"};
  if (span_seconds <= 36000.0) return {1.0 / 60.0, "min"};
  return {1.0 / 3600.0, "h"};
}

std::string format_tick(double value, double step) {
  int decimals = 0;
  if (step > 0.0 && std::isfinite(step)) {
    decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string s = text;
  if (s.rfind("-0", 0) == 0 && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string clock_time_label(double epoch_seconds, double step) {
  int decimals = 0;
  while (decimals < 6 && step > 0 && step * std::pow(10.0, decimals) < 0.999) ++decimals;
  const double day = 86400.0;
  double of_day = std::fmod(epoch_seconds, day);
  if (of_day < 0) of_day += day;
  const double scale = std::pow(10.0, decimals);
  of_day = std::round(of_day * scale) / scale;
  const int hours = static_cast<int>(of_day / 3600) % 24;
  const int minutes = static_cast<int>(std::fmod(of_day, 3600.0) / 60);
  const double seconds = std::fmod(of_day, 60.0);
  char text[48];
  std::snprintf(text, sizeof text, "%02d:%02d:%0*.*f", hours, minutes, decimals ? decimals + 3 : 2, decimals,
                seconds);
  return text;
}

std::string utc_date_label(double epoch_seconds) {
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  long long z = static_cast<long long>(std::floor(epoch_seconds / 86400.0)) + 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const long long doe = z - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long d = doy - (153 * mp + 2) / 5 + 1;
  const long long m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char text[80];
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lld", y, m, d);
  return text;
}

RgbImage render_spectrogram_plot(const SpectrogramPlotInput& in, PlotGeometry* geometry_out) {
  PlotGeometry g;
  const int plot_w = std::max(in.width, 1);
  const int plot_h = std::max(in.height, 1);
  const bool has_data =
      in.decibels.size() == static_cast<std::size_t>(plot_w) * static_cast<std::size_t>(plot_h);
  // Larger text on large figures; every other length follows the text's size.
  const double font_size = std::min(plot_w, plot_h) >= 300 ? 15.0 : 11.0;
  const int s = font_size >= 15.0 ? 2 : 1;  // unit of spacing and stroke lengths
  g.font_size = font_size;

  // Text is measured on a scratch surface: the image's size depends on the labels' widths.
  std::unique_ptr<cairo_surface_t, SurfaceFree> scratch(cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1));
  std::unique_ptr<cairo_t, ContextFree> measure(cairo_create(scratch.get()));
  cairo_t* mc = measure.get();
  use_plot_font(mc, font_size);
  cairo_font_extents_t font;
  cairo_font_extents(mc, &font);
  cairo_text_extents_t digit;
  cairo_text_extents(mc, "0", &digit);
  const int text_h = static_cast<int>(std::ceil(font.ascent + font.descent));
  const int cap_h = static_cast<int>(std::ceil(digit.height));
  const int pad = 6 * s;
  const int tick_len = 4 * s;
  const int label_gap = 3 * s;
  auto width_of = [&](const std::string& t) { return static_cast<int>(std::ceil(text_width(mc, t))); };

  // Units and ranges in display units.
  const AxisUnit f_unit =
      frequency_unit(std::max(std::abs(in.frequency_low), std::abs(in.frequency_high)));
  const double f_lo = in.frequency_low * f_unit.factor;
  const double f_hi = in.frequency_high * f_unit.factor;
  const bool absolute_time = in.time_origin_epoch.has_value() && std::isfinite(*in.time_origin_epoch);
  // Clock labels count seconds.
  const AxisUnit t_unit = absolute_time ? AxisUnit{1.0, "s"} : time_unit(in.time_end - in.time_start);
  const double t_lo = in.time_start * t_unit.factor;
  const double t_hi = in.time_end * t_unit.factor;
  g.frequency_unit = f_unit.name;
  g.time_unit = t_unit.name;
  const double db_lo = in.db_min;
  const double db_hi = in.db_max;

  // Tick values first (positions relative to the plot area), since label widths set margins.
  auto freq_y = [&](double v) {  // from the plot's top
    const double span = f_hi - f_lo;
    return span > 0 ? std::clamp(to_pixel((f_hi - v) / span * plot_h), 0, plot_h - 1) : plot_h / 2;
  };
  auto time_x = [&](double v) {
    const double span = t_hi - t_lo;
    return span > 0 ? std::clamp(to_pixel((v - t_lo) / span * plot_w), 0, plot_w - 1) : 0;
  };
  auto db_y = [&](double v) {
    const double span = db_hi - db_lo;
    return span > 0 ? std::clamp(static_cast<int>(std::lround(
                                     std::clamp((db_hi - v) / span, 0.0, 1.0) * (plot_h - 1))),
                                 0, plot_h - 1)
                    : 0;
  };
  auto label_height = [&](const std::string&) { return cap_h; };
  // A tick every 2.5 lines of text at most, fewer where their labels would crowd.
  const int vertical_ticks = plot_h * 2 / (text_h * 5);
  g.frequency_ticks = make_ticks(f_lo, f_hi, vertical_ticks, text_h, freq_y, label_height);
  g.colorbar_ticks = make_ticks(db_lo, db_hi, vertical_ticks, text_h, db_y, label_height);
  const int typical_time_label = width_of(absolute_time ? "00:00:00.0" : "000.00");
  g.time_ticks = make_ticks(t_lo, t_hi, plot_w / (typical_time_label + 8 * s), 4 * s, time_x, width_of);
  if (absolute_time && !g.time_ticks.empty()) {
    const double step = g.time_ticks.size() > 1 ? g.time_ticks[1].value - g.time_ticks[0].value : 1.0;
    for (auto& t : g.time_ticks) t.label = clock_time_label(*in.time_origin_epoch + t.value, step);
  }

  auto widest = [&](const std::vector<PlotTick>& ticks) {
    int w = 0;
    for (const auto& t : ticks) w = std::max(w, width_of(t.label));
    return w;
  };
  const std::string freq_label = "Frequency (" + f_unit.name + ")";
  const std::string time_label = absolute_time ? "Time (UTC, " + utc_date_label(*in.time_origin_epoch + t_lo) + ")"
                                               : "Time (" + t_unit.name + ")";
  const std::string bar_label = in.colorbar_label.empty() ? "dB" : in.colorbar_label;

  // Margins; the title wraps onto as many lines (up to 4) as the image's width needs.
  const int left = pad + text_h + pad + widest(g.frequency_ticks) + label_gap + tick_len + 1;
  const int bottom = 1 + tick_len + label_gap + text_h + pad + text_h + pad;
  const int bar_gap = 10 * s;
  const int bar_w = 12 * s;
  const int right = 1 + bar_gap + bar_w + 1 + tick_len + label_gap + widest(g.colorbar_ticks) + pad + text_h + pad;
  const int image_width = left + plot_w + right;
  const std::vector<std::string> title_lines = wrap_text(mc, in.title, image_width - 2 * pad, 4);
  const int title_line_h = text_h + s;
  const int top = pad + static_cast<int>(title_lines.size()) * title_line_h + pad;

  g.image_width = image_width;
  g.image_height = top + plot_h + bottom;
  g.plot_left = left;
  g.plot_top = top;
  g.plot_width = plot_w;
  g.plot_height = plot_h;
  g.colorbar_left = left + plot_w + 1 + bar_gap;
  g.colorbar_width = bar_w;

  std::unique_ptr<cairo_surface_t, SurfaceFree> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, g.image_width, g.image_height));
  if (cairo_surface_status(surface.get()) == CAIRO_STATUS_NO_MEMORY) throw std::bad_alloc();
  std::unique_ptr<cairo_t, ContextFree> context(cairo_create(surface.get()));
  cairo_t* cr = context.get();
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("Cairo: ") + cairo_status_to_string(cairo_status(cr)));
  use_plot_font(cr, font_size);
  set_colour(cr, {255, 255, 255});
  cairo_paint(cr);

  // Plot area and colour bar: colormap cells written as pixels, so every cell has its exact
  // colour (colormap[255] at the colour bar's top row, colormap[0] at its bottom row).
  const ColormapTable* cmap = in.colormap ? in.colormap : find_colormap("viridis");
  const double db_span = db_hi - db_lo;
  auto colour_of = [&](double db) {
    double t = db_span > 0 ? (db - db_lo) / db_span : 0.5;
    if (!(t >= 0.0)) t = 0.0;  // also NaN
    if (t > 1.0) t = 1.0;
    return (*cmap)[static_cast<std::size_t>(std::lround(t * 255.0))];
  };
  cairo_surface_flush(surface.get());
  unsigned char* data = cairo_image_surface_get_data(surface.get());
  const int stride = cairo_image_surface_get_stride(surface.get());
  auto put = [&](int x, int y, Rgb c) {
    reinterpret_cast<std::uint32_t*>(data + static_cast<std::size_t>(y) * stride)[x] =
        (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b;
  };
  if (has_data) {
    for (int x = 0; x < plot_w; ++x) {
      const float* column = &in.decibels[static_cast<std::size_t>(x) * plot_h];
      for (int p = 0; p < plot_h; ++p) put(left + x, top + plot_h - 1 - p, colour_of(column[p]));
    }
  }
  const int bar_x = g.colorbar_left;
  for (int i = 0; i < plot_h; ++i) {
    const int index = plot_h > 1 ? static_cast<int>(std::lround(255.0 * (plot_h - 1 - i) / (plot_h - 1))) : 255;
    for (int x = bar_x; x < bar_x + bar_w; ++x) put(x, top + i, (*cmap)[static_cast<std::size_t>(index)]);
  }
  cairo_surface_mark_dirty(surface.get());
  if (!has_data) {
    fill(cr, left, top, plot_w, plot_h, kNoData);
    set_colour(cr, kInk);
    draw_text(cr, fit_text(cr, "no rows", plot_w), left + plot_w / 2.0, top + plot_h / 2.0, 0.5, 0.5);
  }
  frame(cr, left, top, plot_w, plot_h, kInk);
  frame(cr, bar_x, top, bar_w, plot_h, kInk);

  // Retunes and annotations over the data, clipped to the plot area: white strokes, labels
  // white on dark ink.
  const int stroke = std::max(1, s / 2);
  auto plot_x = [&](double seconds) {  // unclamped, relative to the plot's left edge
    const double span = t_hi - t_lo;
    return span > 0 ? to_pixel((seconds * t_unit.factor - t_lo) / span * plot_w) : 0;
  };
  auto plot_y = [&](double hz) {  // unclamped, relative to the plot's top
    const double span = f_hi - f_lo;
    return span > 0 ? to_pixel((f_hi - hz * f_unit.factor) / span * plot_h) : 0;
  };
  cairo_save(cr);
  cairo_rectangle(cr, left, top, plot_w, plot_h);
  cairo_clip(cr);
  auto mark = [&](int x, int y, int w, int h) { fill(cr, left + x, top + y, w, h, kMark); };
  auto label_at = [&](const std::string& text, int x, int y) {  // inside the plot area
    if (text.empty()) return;
    const std::string shown = fit_text(cr, text, std::max(plot_w - x - 2 * s - 2, 0));
    if (shown.empty()) return;
    fill(cr, left + x, top + y, width_of(shown) + 2 * s + 2, cap_h + 2 * s + 2, kInk);
    set_colour(cr, kMark);
    draw_text(cr, shown, left + x + s + 1, top + y + s + 1, 0.0, 0.0);
  };
  for (const PlotBox& box : in.boxes) {
    const int x0 = plot_x(box.time_start), x1 = plot_x(box.time_end);
    const int y0 = plot_y(box.frequency_high), y1 = plot_y(box.frequency_low);
    if (x1 < 0 || x0 >= plot_w || y1 < 0 || y0 >= plot_h) continue;  // outside the plot
    mark(x0, y0, x1 - x0 + stroke, stroke);
    mark(x0, y1, x1 - x0 + stroke, stroke);
    mark(x0, y0, stroke, y1 - y0 + stroke);
    mark(x1, y0, stroke, y1 - y0 + stroke);
    label_at(box.label, std::clamp(x0 + stroke, 0, plot_w - 1), std::clamp(y0 + stroke, 0, plot_h - 1));
  }
  for (const PlotTimeMarker& marker : in.time_markers) {
    const int x = plot_x(marker.time);
    if (x < 0 || x >= plot_w) continue;
    for (int y = 0; y < plot_h; y += 6 * s) mark(x, y, stroke, 3 * s);  // dashed
    // At the bottom, clear of the annotations' labels at their boxes' tops.
    label_at(marker.label, std::min(x + 2 * s, plot_w - 1), std::max(plot_h - cap_h - 4 * s - 2, 0));
  }
  cairo_restore(cr);

  // Frequency axis: ticks and labels to the left, the axis label rotated beyond them.
  const int tick_w = std::max(1, s / 2);
  for (auto& t : g.frequency_ticks) {
    t.position += top;
    fill(cr, left - 1 - tick_len, t.position, tick_len, tick_w, kInk);
    set_colour(cr, kInk);
    draw_text(cr, t.label, left - 1 - tick_len - label_gap, t.position + tick_w / 2.0, 1.0, 0.5);
  }
  set_colour(cr, kInk);
  draw_text(cr, fit_text(cr, freq_label, plot_h + top + bottom - 2 * pad), pad, top + plot_h / 2.0, 0.5, 0.0,
            /*up=*/true);

  // Time axis: ticks and labels below, the axis label under them.
  const int below = top + plot_h + 1;
  for (auto& t : g.time_ticks) {
    t.position += left;
    fill(cr, t.position, below, tick_w, tick_len, kInk);
    const int w = width_of(t.label);
    const int x = std::clamp(t.position - w / 2, 0, std::max(0, g.image_width - w));
    set_colour(cr, kInk);
    draw_text(cr, t.label, x, below + tick_len + label_gap, 0.0, 0.0);
  }
  draw_text(cr, fit_text(cr, time_label, g.image_width - 2 * pad), left + plot_w / 2.0,
            below + tick_len + label_gap + text_h + pad, 0.5, 0.0);

  // Colour bar ticks and label.
  const int bar_right = bar_x + bar_w + 1;
  for (auto& t : g.colorbar_ticks) {
    t.position += top;
    fill(cr, bar_right, t.position, tick_len, tick_w, kInk);
    set_colour(cr, kInk);
    draw_text(cr, t.label, bar_right + tick_len + label_gap, t.position + tick_w / 2.0, 0.0, 0.5);
  }
  draw_text(cr, fit_text(cr, bar_label, plot_h + top + bottom - 2 * pad), g.image_width - pad - text_h,
            top + plot_h / 2.0, 0.5, 0.0, /*up=*/true);

  // Title lines on their baselines, each centred over the plot area where it fits, else over
  // the image.
  for (std::size_t i = 0; i < title_lines.size(); ++i) {
    const int w = width_of(title_lines[i]);
    const int x = std::clamp(left + (plot_w - w) / 2, pad, std::max(pad, g.image_width - pad - w));
    cairo_move_to(cr, x, pad + static_cast<double>(i) * title_line_h + font.ascent);
    cairo_show_text(cr, title_lines[i].c_str());
  }
  g.title_lines = title_lines;
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("Cairo: ") + cairo_status_to_string(cairo_status(cr)));

  // The RGB image the PNG encoder takes.
  cairo_surface_flush(surface.get());
  RgbImage image;
  image.width = g.image_width;
  image.height = g.image_height;
  image.pixels.resize(static_cast<std::size_t>(image.width) * image.height * 3);
  for (int y = 0; y < image.height; ++y) {
    const auto* row = reinterpret_cast<const std::uint32_t*>(data + static_cast<std::size_t>(y) * stride);
    std::uint8_t* out = &image.pixels[static_cast<std::size_t>(y) * image.width * 3];
    for (int x = 0; x < image.width; ++x) {
      out[3 * x] = static_cast<std::uint8_t>(row[x] >> 16);
      out[3 * x + 1] = static_cast<std::uint8_t>(row[x] >> 8);
      out[3 * x + 2] = static_cast<std::uint8_t>(row[x]);
    }
  }
  if (geometry_out) *geometry_out = std::move(g);
  return image;
}

}  // namespace prism
