// DejaVu Sans through fontconfig, and Cairo text helpers (see plot_font.hpp).
#include "sinks/plot_font.hpp"

#include <cairo-ft.h>
#include <fontconfig/fontconfig.h>

#include <numbers>
#include <stdexcept>

namespace prism {
namespace {

// The matched face, or the reason there is none; looked up once per process.
struct FontLookup {
  cairo_font_face_t* face = nullptr;
  std::string error;
};

FontLookup find_font() {
  FontLookup found;
  FcPattern* wanted = FcNameParse(reinterpret_cast<const FcChar8*>(kPlotFontFamily));
  if (!wanted) {
    found.error = "fontconfig could not parse the font name";
    return found;
  }
  FcConfigSubstitute(nullptr, wanted, FcMatchPattern);
  FcDefaultSubstitute(wanted);
  FcResult result = FcResultNoMatch;
  FcPattern* match = FcFontMatch(nullptr, wanted, &result);
  FcPatternDestroy(wanted);
  FcChar8* family = nullptr;
  // fontconfig always offers some face; only DejaVu Sans itself will do, since the layout and
  // the tests assume its metrics.
  if (!match || FcPatternGetString(match, FC_FAMILY, 0, &family) != FcResultMatch ||
      std::string(reinterpret_cast<const char*>(family)) != kPlotFontFamily) {
    found.error = std::string("the plot font ") + kPlotFontFamily + " was not found" +
                  (family ? std::string(" (fontconfig offers '") + reinterpret_cast<const char*>(family) + "')"
                          : std::string()) +
                  ": install Debian's fonts-dejavu-core";
    if (match) FcPatternDestroy(match);
    return found;
  }
  found.face = cairo_ft_font_face_create_for_pattern(match);  // keeps its own reference
  FcPatternDestroy(match);
  if (cairo_font_face_status(found.face) != CAIRO_STATUS_SUCCESS) {
    found.error = std::string("Cairo cannot use the plot font ") + kPlotFontFamily + ": " +
                  cairo_status_to_string(cairo_font_face_status(found.face));
    found.face = nullptr;
  }
  return found;
}

}  // namespace

cairo_font_face_t* plot_font_face() {
  static const FontLookup lookup = find_font();
  if (!lookup.face) throw std::runtime_error(lookup.error);
  return lookup.face;
}

void use_plot_font(cairo_t* cr, double size) {
  cairo_set_font_face(cr, plot_font_face());
  cairo_set_font_size(cr, size);
  cairo_font_options_t* options = cairo_font_options_create();
  cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, options);
  cairo_font_options_destroy(options);
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

void draw_text(cairo_t* cr, const std::string& text, double x, double y, double align_x, double align_y, bool up) {
  if (text.empty()) return;
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  if (up) cairo_rotate(cr, -std::numbers::pi / 2);
  cairo_move_to(cr, -extents.x_bearing - align_x * extents.width, -extents.y_bearing - align_y * extents.height);
  cairo_show_text(cr, text.c_str());
  cairo_restore(cr);
}

}  // namespace prism
