// The typeface of prism's plots (the PNG spectrogram, `prism design --plot`): DejaVu Sans, from
// Debian's fonts-dejavu-core, found through fontconfig when first needed, and the Cairo text
// helpers both plots use (measuring, aligned and rotated drawing). A missing font is an error
// that names the package, never a silent fallback to another face with other metrics.
#pragma once

#include <string>

#include <cairo.h>

namespace prism {

// The family the plots are set in.
inline constexpr const char* kPlotFontFamily = "DejaVu Sans";

// DejaVu Sans as a Cairo font face, owned by this module (do not destroy it). Throws
// std::runtime_error naming fonts-dejavu-core when fontconfig finds no DejaVu Sans.
cairo_font_face_t* plot_font_face();

// Selects the plot font at `size` pixels, greyscale antialiased, without hinting: text looks
// the same and measures the same on every machine with the same font file.
void use_plot_font(cairo_t* cr, double size);

// Advance width in pixels of `text` in the current font of `cr`.
double text_width(cairo_t* cr, const std::string& text);

// Draws `text` with its ink box aligned to (x, y): align_x 0 = left edge at x, 0.5 = centred,
// 1 = right edge; align_y likewise from the top of the ink (0) to its bottom (1). `up` rotates it
// 90° counter-clockwise (reading upwards) about (x, y), the alignment taken along the rotated text.
void draw_text(cairo_t* cr, const std::string& text, double x, double y, double align_x, double align_y,
               bool up = false);

}  // namespace prism
