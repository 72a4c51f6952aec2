// Spectrogram figure rendering (see spectrogram_plot.hpp).
//
// Contents: canvas helpers · ticks and units · margins · the figure (plot area, frame, axes,
// colour bar, labels, title).
#include "sinks/spectrogram_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "sinks/bitmap_font.hpp"

namespace prism {
namespace {

constexpr Rgb kInk{25, 25, 25};
constexpr Rgb kNoData{200, 200, 200};
constexpr int kMaxTicks = 12;

// ---------------------------------------------------------------------------------------------
// Canvas helpers: every write is clipped, so no label or tick can write outside the image.

class Canvas {
 public:
  explicit Canvas(RgbImage& image) : image_(image) {}

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= image_.width || y >= image_.height) return;
    auto* p = &image_.pixels[(static_cast<std::size_t>(y) * image_.width + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void fill(int x, int y, int w, int h, Rgb c) {
    for (int j = y; j < y + h; ++j)
      for (int i = x; i < x + w; ++i) set(i, j, c);
  }
  void text(std::string_view s, int x, int y, int scale, TextDirection direction, Rgb c) {
    BitmapFont::draw(s, x, y, scale, direction, [&](int px, int py) { set(px, py, c); });
  }

 private:
  RgbImage& image_;
};

// A 1-pixel rectangle outline just outside the area (x, y, w, h).
void frame(Canvas& canvas, int x, int y, int w, int h, Rgb c) {
  canvas.fill(x - 1, y - 1, w + 2, 1, c);
  canvas.fill(x - 1, y + h, w + 2, 1, c);
  canvas.fill(x - 1, y - 1, 1, h + 2, c);
  canvas.fill(x + w, y - 1, 1, h + 2, c);
}

// Shortens `text` with "..." until it fits `max_width` pixels.
std::string fit_text(std::string text, int max_width, int scale) {
  if (BitmapFont::text_width(text, scale) <= max_width) return text;
  while (!text.empty() && BitmapFont::text_width(text + "...", scale) > max_width) {
    text.pop_back();
    // Never leave half a UTF-8 character behind.
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80)
      text.pop_back();
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  }
  return text.empty() ? std::string() : text + "...";
}

// Breaks `text` at spaces into lines of at most `max_width` pixels, at most `max_lines` of them;
// a word wider than a line, or text beyond the last line, is shortened with "...".
std::vector<std::string> wrap_text(const std::string& text, int max_width, int scale, std::size_t max_lines) {
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
    if (line.empty() || BitmapFont::text_width(joined, scale) <= max_width) {
      line = joined;
      continue;
    }
    if (lines.size() + 1 == max_lines) {  // the last line takes the rest, shortened
      line = joined + text.substr(std::min(start - 1, text.size()));
      break;
    }
    lines.push_back(fit_text(line, max_width, scale));
    line = word;
  }
  if (!line.empty()) lines.push_back(fit_text(line, max_width, scale));
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
  // Text at twice the font's size on large figures, where one-pixel strokes would be too thin
  // to read comfortably.
  const int s = std::min(plot_w, plot_h) >= 300 ? 2 : 1;
  g.text_scale = s;
  const int text_h = BitmapFont::text_height(s);
  const int cap_h = BitmapFont::kAscent * s;
  const int pad = 6 * s;
  const int tick_len = 4 * s;
  const int label_gap = 2 * s;

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
  auto label_width = [&](const std::string& t) { return BitmapFont::text_width(t, s); };
  g.frequency_ticks =
      make_ticks(f_lo, f_hi, plot_h / (text_h * 3), text_h, freq_y, label_height);
  g.colorbar_ticks =
      make_ticks(db_lo, db_hi, plot_h / (text_h * 3), text_h, db_y, label_height);
  const int typical_time_label = BitmapFont::text_width(absolute_time ? "00:00:00.0" : "000.00", s);
  g.time_ticks = make_ticks(t_lo, t_hi, plot_w / (typical_time_label + 8 * s), 4 * s, time_x,
                            label_width);
  if (absolute_time && !g.time_ticks.empty()) {
    const double step = g.time_ticks.size() > 1 ? g.time_ticks[1].value - g.time_ticks[0].value : 1.0;
    for (auto& t : g.time_ticks) t.label = clock_time_label(*in.time_origin_epoch + t.value, step);
  }

  auto widest = [&](const std::vector<PlotTick>& ticks) {
    int w = 0;
    for (const auto& t : ticks) w = std::max(w, BitmapFont::text_width(t.label, s));
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
  const int right = 1 + bar_gap + bar_w + 1 + tick_len + label_gap + widest(g.colorbar_ticks) +
                    pad + text_h + pad;
  const int image_width = left + plot_w + right;
  const std::vector<std::string> title_lines = wrap_text(in.title, image_width - 2 * pad, s, 4);
  const int title_line_h = text_h + 2 * s;
  const int top = title_lines.empty()
                      ? pad + text_h
                      : pad + static_cast<int>(title_lines.size()) * title_line_h - 2 * s + pad + cap_h / 2 + 1;

  RgbImage image;
  image.width = image_width;
  image.height = top + plot_h + bottom;
  image.pixels.assign(static_cast<std::size_t>(image.width) * image.height * 3, 255);  // white
  Canvas canvas(image);

  g.image_width = image.width;
  g.image_height = image.height;
  g.plot_left = left;
  g.plot_top = top;
  g.plot_width = plot_w;
  g.plot_height = plot_h;
  g.colorbar_left = left + plot_w + 1 + bar_gap;
  g.colorbar_width = bar_w;

  // Plot area.
  const ColormapTable* cmap = in.colormap ? in.colormap : find_colormap("viridis");
  const double db_span = db_hi - db_lo;
  auto colour_of = [&](double db) {
    double t = db_span > 0 ? (db - db_lo) / db_span : 0.5;
    if (!(t >= 0.0)) t = 0.0;  // also NaN
    if (t > 1.0) t = 1.0;
    return (*cmap)[static_cast<std::size_t>(std::lround(t * 255.0))];
  };
  if (has_data) {
    for (int x = 0; x < plot_w; ++x) {
      const float* column = &in.decibels[static_cast<std::size_t>(x) * plot_h];
      for (int p = 0; p < plot_h; ++p) canvas.set(left + x, top + plot_h - 1 - p, colour_of(column[p]));
    }
  } else {
    canvas.fill(left, top, plot_w, plot_h, kNoData);
    const std::string note = fit_text("no rows", plot_w, s);
    canvas.text(note, left + (plot_w - BitmapFont::text_width(note, s)) / 2,
                top + (plot_h - cap_h) / 2, s, TextDirection::right, kInk);
  }
  frame(canvas, left, top, plot_w, plot_h, kInk);

  // Retunes and annotations over the data: white strokes, labels white on dark ink.
  constexpr Rgb kMark{255, 255, 255};
  const int stroke = std::max(1, s / 2);
  auto plot_x = [&](double seconds) {  // unclamped, relative to the plot's left edge
    const double span = t_hi - t_lo;
    return span > 0 ? to_pixel((seconds * t_unit.factor - t_lo) / span * plot_w) : 0;
  };
  auto plot_y = [&](double hz) {  // unclamped, relative to the plot's top
    const double span = f_hi - f_lo;
    return span > 0 ? to_pixel((f_hi - hz * f_unit.factor) / span * plot_h) : 0;
  };
  auto clipped_fill = [&](int x, int y, int w, int h) {
    const int x0 = std::max(x, 0), y0 = std::max(y, 0);
    const int x1 = std::min(x + w, plot_w), y1 = std::min(y + h, plot_h);
    if (x1 > x0 && y1 > y0) canvas.fill(left + x0, top + y0, x1 - x0, y1 - y0, kMark);
  };
  auto label_at = [&](const std::string& text, int x, int y) {  // inside the plot area
    if (text.empty()) return;
    const std::string shown = fit_text(text, std::max(plot_w - x - 2 * s, 0), s);
    if (shown.empty()) return;
    const int w = BitmapFont::text_width(shown, s);
    canvas.fill(left + x, top + y, w + 2 * s, cap_h + 2 * s, kInk);
    canvas.text(shown, left + x + s, top + y + s, s, TextDirection::right, kMark);
  };
  for (const PlotBox& box : in.boxes) {
    const int x0 = plot_x(box.time_start), x1 = plot_x(box.time_end);
    const int y0 = plot_y(box.frequency_high), y1 = plot_y(box.frequency_low);
    if (x1 < 0 || x0 >= plot_w || y1 < 0 || y0 >= plot_h) continue;  // outside the plot
    clipped_fill(x0, y0, x1 - x0 + stroke, stroke);
    clipped_fill(x0, y1, x1 - x0 + stroke, stroke);
    clipped_fill(x0, y0, stroke, y1 - y0 + stroke);
    clipped_fill(x1, y0, stroke, y1 - y0 + stroke);
    label_at(box.label, std::clamp(x0 + stroke, 0, plot_w - 1), std::clamp(y0 + stroke, 0, plot_h - 1));
  }
  for (const PlotTimeMarker& marker : in.time_markers) {
    const int x = plot_x(marker.time);
    if (x < 0 || x >= plot_w) continue;
    for (int y = 0; y < plot_h; y += 6 * s) clipped_fill(x, y, stroke, 3 * s);  // dashed
    // At the bottom, clear of the annotations' labels at their boxes' tops.
    label_at(marker.label, std::min(x + 2 * s, plot_w - 1), std::max(plot_h - cap_h - 4 * s, 0));
  }

  // Frequency axis: ticks and labels to the left, the axis label rotated beyond them.
  for (auto& t : g.frequency_ticks) {
    t.position += top;
    canvas.fill(left - 1 - tick_len, t.position, tick_len, std::max(1, s / 2), kInk);
    const int w = BitmapFont::text_width(t.label, s);
    canvas.text(t.label, left - 1 - tick_len - label_gap - w, t.position - cap_h / 2, s,
                TextDirection::right, kInk);
  }
  {
    const std::string label = fit_text(freq_label, plot_h + top + bottom - 2 * pad, s);
    const int w = BitmapFont::text_width(label, s);
    canvas.text(label, pad, top + (plot_h - w) / 2, s, TextDirection::up, kInk);
  }

  // Time axis: ticks and labels below, the axis label under them.
  const int below = top + plot_h + 1;
  for (auto& t : g.time_ticks) {
    t.position += left;
    canvas.fill(t.position, below, std::max(1, s / 2), tick_len, kInk);
    const int w = BitmapFont::text_width(t.label, s);
    const int x = std::clamp(t.position - w / 2, 0, std::max(0, image.width - w));
    canvas.text(t.label, x, below + tick_len + label_gap, s, TextDirection::right, kInk);
  }
  {
    const std::string label = fit_text(time_label, image.width - 2 * pad, s);
    const int w = BitmapFont::text_width(label, s);
    canvas.text(label, left + (plot_w - w) / 2, below + tick_len + label_gap + text_h + pad, s,
                TextDirection::right, kInk);
  }

  // Colour bar: colormap[255] at the top row, colormap[0] at the bottom row.
  const int bar_x = g.colorbar_left;
  for (int i = 0; i < plot_h; ++i) {
    const int index = plot_h > 1 ? static_cast<int>(std::lround(255.0 * (plot_h - 1 - i) / (plot_h - 1))) : 255;
    canvas.fill(bar_x, top + i, bar_w, 1, (*cmap)[static_cast<std::size_t>(index)]);
  }
  frame(canvas, bar_x, top, bar_w, plot_h, kInk);
  const int bar_right = bar_x + bar_w + 1;
  for (auto& t : g.colorbar_ticks) {
    t.position += top;
    canvas.fill(bar_right, t.position, tick_len, std::max(1, s / 2), kInk);
    canvas.text(t.label, bar_right + tick_len + label_gap, t.position - cap_h / 2, s,
                TextDirection::right, kInk);
  }
  {
    const std::string label = fit_text(bar_label, plot_h + top + bottom - 2 * pad, s);
    const int w = BitmapFont::text_width(label, s);
    canvas.text(label, image.width - pad - text_h, top + (plot_h - w) / 2, s, TextDirection::up,
                kInk);
  }

  // Title lines, each centred over the plot area where it fits, else over the image.
  for (std::size_t i = 0; i < title_lines.size(); ++i) {
    const int w = BitmapFont::text_width(title_lines[i], s);
    int x = left + (plot_w - w) / 2;
    x = std::clamp(x, pad, std::max(pad, image.width - pad - w));
    canvas.text(title_lines[i], x, pad + static_cast<int>(i) * title_line_h, s, TextDirection::right, kInk);
  }
  g.title_lines = title_lines;

  if (geometry_out) *geometry_out = std::move(g);
  return image;
}

}  // namespace prism
