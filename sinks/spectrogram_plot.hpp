// Spectrogram plot rendering: turns a grid of dB values into an RGB image with a frequency
// axis (left), a time axis (bottom), a colour bar with dB ticks (right) and a title (top),
// drawn with Cairo and lettered in DejaVu Sans (plot_font.hpp). Knows nothing of files or of
// PNG; PngSink feeds it.
//
// Contents: PlotInput / PlotGeometry · RgbImage · tick helpers ("nice numbers": 1, 2, 5 × 10^k)
// and unit choice · render_spectrogram_plot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sinks/colormap.hpp"

namespace prism {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // RGB, rows from the top, 3 bytes per pixel

  Rgb at(int x, int y) const;
};

// A moment marked on the plot: a vertical line across the plot area, labelled at its top
// (a retune: "centre 101.1 MHz").
struct PlotTimeMarker {
  double time = 0.0;  // s, as time_start/time_end
  std::string label;
};

// A labelled region: a rectangle outline over the plot area (a SigMF annotation), clipped to it.
struct PlotBox {
  double time_start = 0.0, time_end = 0.0;            // s
  double frequency_low = 0.0, frequency_high = 0.0;   // Hz, as frequency_low/high of the plot
  std::string label;
};

struct SpectrogramPlotInput {
  int width = 0;   // plot area in pixels (time)
  int height = 0;  // plot area in pixels (frequency)
  // width × height values in dB, column by column: decibels[x * height + p], p = 0 at the
  // bottom (lowest frequency). Empty: no data (the plot area is drawn grey).
  std::vector<float> decibels;
  double db_min = -100.0;  // colour range: db_min → colormap[0], db_max → colormap[255]
  double db_max = 0.0;
  const ColormapTable* colormap = nullptr;
  double frequency_low = 0.0;   // Hz at the bottom edge of the plot area (centre freq. included)
  double frequency_high = 1.0;  // Hz at the top edge
  double time_start = 0.0;      // s at the left edge
  double time_end = 1.0;        // s at the right edge
  std::string title;             // wrapped at spaces onto up to 4 lines to fit the image's width
  std::string colorbar_label;   // e.g. "dB re 1 V**2/Hz"
  std::vector<PlotTimeMarker> time_markers;
  std::vector<PlotBox> boxes;
  // Absolute time axis: seconds since 1970 (UTC) of time 0; ticks are then labelled as UTC clock
  // times (HH:MM:SS, decimals as the spacing needs) and the axis "Time (UTC, <date>)".
  std::optional<double> time_origin_epoch;
};

struct PlotTick {
  double value = 0.0;  // in the axis's display unit (kHz, s, dB ...)
  int position = 0;    // image pixel: y for the frequency axis and the colour bar, x for time
  std::string label;
};

// Where render_spectrogram_plot put things, for callers and tests.
struct PlotGeometry {
  int image_width = 0, image_height = 0;
  int plot_left = 0, plot_top = 0, plot_width = 0, plot_height = 0;
  int colorbar_left = 0, colorbar_width = 0;
  double font_size = 0.0;  // pixels
  std::string frequency_unit, time_unit;  // "kHz", "s" ...
  std::vector<PlotTick> frequency_ticks, time_ticks, colorbar_ticks;
  std::vector<std::string> title_lines;  // the title as drawn, wrapped to the image's width
};

// About `target` tick values in [low, high] at a "nice" spacing (1, 2 or 5 × 10^k), the
// spacing returned in *step. One value when the range is empty; none when it is not finite.
std::vector<double> nice_ticks(double low, double high, int target, double* step = nullptr);

// Unit for frequencies up to `max_abs_hz`: {1, "Hz"}, {1e-3, "kHz"}, {1e-6, "MHz"}, {1e-9, "GHz"}
// (the factor multiplies Hz).
struct AxisUnit {
  double factor = 1.0;
  std::string name;
};
AxisUnit frequency_unit(double max_abs_hz);
// Unit for a time span: ms below 1 s, s up to 10 min, min up to 10 h, h beyond.
AxisUnit time_unit(double span_seconds);

// A tick label with as many decimals as the step needs: (2.5, 0.5) → "2.5", (2000, 1000) → "2000".
std::string format_tick(double value, double step);

// "HH:MM:SS" (UTC) of `epoch_seconds`, with the decimals a tick spacing of `step` seconds needs.
std::string clock_time_label(double epoch_seconds, double step);
// "YYYY-MM-DD" (UTC) of `epoch_seconds`.
std::string utc_date_label(double epoch_seconds);

// Renders the whole figure. Never throws on odd input values (empty or NaN ranges are shown as
// they come); throws std::bad_alloc when memory runs out and std::runtime_error when the font is
// missing (plot_font.hpp).
RgbImage render_spectrogram_plot(const SpectrogramPlotInput& input, PlotGeometry* geometry);

}  // namespace prism
