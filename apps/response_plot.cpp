// The frequency response plot of `prism design --plot` (response_plot.hpp), drawn with Cairo in
// the plots' font (sinks/plot_font.hpp).
//
// The response is sampled on a grid of at least 8 points per fs/M; each pixel column draws the
// whole range of the samples that fall in it, so that the stopband's lobes of a long filter show
// as the band they fill rather than as an aliased line.
#include "apps/response_plot.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sinks/plot_font.hpp"

namespace prism::app {
namespace {

struct CairoSurfaceFree {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct CairoFree {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

// 1, 2 or 5 times a power of ten, about range/target.
double nice_step(double range, double target) {
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  const double factor = normalised < 1.5 ? 1 : normalised < 3 ? 2 : normalised < 7 ? 5 : 10;
  return factor * magnitude;
}

struct FrequencyUnit {
  double scale;
  const char* name;
};

FrequencyUnit unit_for(double largest) {
  if (largest >= 1e9) return {1e9, "GHz"};
  if (largest >= 1e6) return {1e6, "MHz"};
  if (largest >= 1e3) return {1e3, "kHz"};
  return {1.0, "Hz"};
}

std::string tick_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", std::abs(value) < 1e-12 ? 0.0 : value);
  return text;
}

std::size_t next_power_of_two(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// (frequency, |H| in dB) from low to high frequency over the plotted range.
std::vector<std::pair<double, double>> response_curve(const FilterTaps& taps, double fs) {
  const std::size_t points = std::clamp<std::size_t>(next_power_of_two(8 * taps.size()), 8192, std::size_t{1} << 21);
  std::vector<std::pair<double, double>> curve;
  auto db = [](std::complex<double> h) { return 20.0 * std::log10(std::abs(h)); };
  if (!taps.is_complex) {
    const FrequencyResponse r = freqz(taps, points, false, fs);
    curve.reserve(points + 1);
    for (std::size_t k = 0; k < points; ++k) curve.emplace_back(r.frequencies[k], db(r.values[k]));
    curve.emplace_back(fs / 2, db(response_at(taps, fs / 2, fs)));
    return curve;
  }
  const FrequencyResponse r = freqz(taps, points, true, fs);
  curve.reserve(points + 1);
  for (std::size_t k = points / 2; k < points; ++k) curve.emplace_back(r.frequencies[k] - fs, db(r.values[k]));
  for (std::size_t k = 0; k < points / 2; ++k) curve.emplace_back(r.frequencies[k], db(r.values[k]));
  curve.emplace_back(fs / 2, db(response_at(taps, fs / 2, fs)));
  return curve;
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}


}  // namespace

std::string render_response_png(const FilterDesign& design, const ResponseFigures& figures,
                                const std::string& title, int width, int height) {
  width = std::max(width, 320);
  height = std::max(height, 200);
  const double fs = design.spec.sample_rate;
  const double f_low = design.taps.is_complex ? -fs / 2 : 0.0;
  const double f_high = fs / 2;
  const std::vector<std::pair<double, double>> curve = response_curve(design.taps, fs);

  // The dB range: a little above the passband, 20 dB below the stopband's peak.
  double top = 5.0;
  for (const auto& point : curve)
    if (std::isfinite(point.second)) top = std::max(top, 5.0 * std::ceil((point.second + 1.0) / 5.0));
  double bottom = -100.0;
  if (std::isfinite(figures.stopband_attenuation_db))
    bottom = -20.0 * std::ceil((figures.stopband_attenuation_db + 20.0) / 20.0);
  bottom = std::clamp(bottom, -320.0, -40.0);

  const double left = 78, right = 24, upper = 52, lower = 56;
  const double plot_w = width - left - right;
  const double plot_h = height - upper - lower;
  auto x_of = [&](double f) { return left + (f - f_low) / (f_high - f_low) * plot_w; };
  auto y_of = [&](double db) {
    const double clamped = std::clamp(std::isnan(db) ? bottom : db, bottom, top);
    return upper + (top - clamped) / (top - bottom) * plot_h;
  };

  std::unique_ptr<cairo_surface_t, CairoSurfaceFree> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height));
  std::unique_ptr<cairo_t, CairoFree> context(cairo_create(surface.get()));
  cairo_t* cr = context.get();
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("Cairo: ") + cairo_status_to_string(cairo_status(cr)));
  use_plot_font(cr, 13);

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);

  // Transition bands (between the figures' bands) shaded, edges dashed.
  cairo_save(cr);
  cairo_rectangle(cr, left, upper, plot_w, plot_h);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
  const double half = design.transition / 2;
  const std::vector<double>& edges = design.spec.edges;
  for (double edge : edges) {
    cairo_rectangle(cr, x_of(edge - half), upper, x_of(edge + half) - x_of(edge - half), plot_h);
    cairo_fill(cr);
  }
  cairo_restore(cr);

  // Grid and ticks.
  cairo_set_font_size(cr, 12);
  const FrequencyUnit unit = unit_for(std::max(std::abs(f_low), f_high));
  const double x_step = nice_step((f_high - f_low) / unit.scale, 10) * unit.scale;
  const double y_step = nice_step(top - bottom, 8);
  cairo_set_line_width(cr, 1);
  for (double f = std::ceil(f_low / x_step) * x_step; f <= f_high + 1e-9 * x_step; f += x_step) {
    const double x = std::round(x_of(f)) + 0.5;
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    cairo_move_to(cr, x, upper);
    cairo_line_to(cr, x, upper + plot_h);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    draw_text(cr, tick_text(f / unit.scale), x, upper + plot_h + 6, 0.5, 0.0);
  }
  for (double db = std::ceil(bottom / y_step) * y_step; db <= top + 1e-9; db += y_step) {
    const double y = std::round(y_of(db)) + 0.5;
    cairo_set_source_rgb(cr, db == 0.0 ? 0.6 : 0.85, db == 0.0 ? 0.6 : 0.85, db == 0.0 ? 0.6 : 0.85);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left + plot_w, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    draw_text(cr, tick_text(db), left - 6, y, 1.0, 0.5);
  }

  cairo_save(cr);
  cairo_rectangle(cr, left, upper, plot_w, plot_h);
  cairo_clip(cr);
  // Band edges.
  const double dashes[] = {6.0, 4.0};
  cairo_set_dash(cr, dashes, 2, 0);
  cairo_set_source_rgb(cr, 0.80, 0.15, 0.15);
  cairo_set_line_width(cr, 1.2);
  for (double edge : edges) {
    cairo_move_to(cr, x_of(edge), upper);
    cairo_line_to(cr, x_of(edge), upper + plot_h);
    cairo_stroke(cr);
  }
  // The stopband attenuation.
  if (std::isfinite(figures.stopband_attenuation_db)) {
    const double dots[] = {2.0, 3.0};
    cairo_set_dash(cr, dots, 2, 0);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    const double y = y_of(-figures.stopband_attenuation_db);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left + plot_w, y);
    cairo_stroke(cr);
  }
  cairo_set_dash(cr, nullptr, 0, 0);

  // The response: per pixel column, every sample's range.
  cairo_set_source_rgb(cr, 0.10, 0.30, 0.75);
  cairo_set_line_width(cr, 1.5);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  long column = -1;
  double column_min = 0, column_max = 0, column_last = 0;
  bool started = false;
  auto flush_column = [&]() {
    if (column < 0) return;
    const double x = left + static_cast<double>(column) + 0.5;
    if (!started) {
      cairo_move_to(cr, x, y_of(column_min));
      started = true;
    }
    cairo_line_to(cr, x, y_of(column_min));
    cairo_line_to(cr, x, y_of(column_max));
    cairo_line_to(cr, x, y_of(column_last));
  };
  for (const auto& [f, db] : curve) {
    const double value = std::isfinite(db) ? db : bottom;
    const long c = std::clamp(static_cast<long>(std::floor(x_of(f) - left)), 0L, static_cast<long>(plot_w) - 1);
    if (c != column) {
      flush_column();
      column = c;
      column_min = column_max = value;
    }
    column_min = std::min(column_min, value);
    column_max = std::max(column_max, value);
    column_last = value;
  }
  flush_column();
  cairo_stroke(cr);
  cairo_restore(cr);

  // Frame, labels, title.
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left + 0.5, upper + 0.5, plot_w - 1, plot_h - 1);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 13);
  draw_text(cr, std::string("Frequency (") + unit.name + ")", left + plot_w / 2, height - 8, 0.5, 1.0);
  draw_text(cr, "|H(f)| (dB)", 16, upper + plot_h / 2, 0.5, 0.5, /*up=*/true);
  cairo_set_font_size(cr, 14);
  draw_text(cr, title, left, 10, 0.0, 0.0);
  char figures_text[160];
  if (std::isfinite(figures.stopband_attenuation_db))
    std::snprintf(figures_text, sizeof figures_text, "passband ripple %.3g dB, stopband attenuation %.1f dB",
                  figures.passband_ripple_db, figures.stopband_attenuation_db);
  else
    std::snprintf(figures_text, sizeof figures_text, "passband ripple %.3g dB", figures.passband_ripple_db);
  cairo_set_font_size(cr, 12);
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  draw_text(cr, figures_text, left, 32, 0.0, 0.0);

  cairo_surface_flush(surface.get());
  std::string png;
  const cairo_status_t status = cairo_surface_write_to_png_stream(surface.get(), append_to_string, &png);
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("Cairo could not encode the plot: ") + cairo_status_to_string(status));
  return png;
}

}  // namespace prism::app
