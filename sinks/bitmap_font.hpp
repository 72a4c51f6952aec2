// BitmapFont: a small built-in pixel font (printable ASCII 32–126) for the labels of the PNG
// spectrogram, so that rendering needs no font files. Each glyph is 5 pixels wide and 9 tall:
// 7 rows from the cap height down to the baseline, and 2 rows of descender (g, j, p, q, y).
// Glyphs advance by 6 pixels; text can be scaled by an integer and drawn rotated (upwards,
// for a vertical axis label). Characters outside ASCII 32–126 are drawn as '?' (one per UTF-8
// character, not per byte).
#pragma once

#include <functional>
#include <string_view>

namespace prism {

enum class TextDirection {
  right,  // normal, left to right
  up,     // rotated 90° counter-clockwise: reads from the bottom to the top
};

class BitmapFont {
 public:
  static constexpr int kGlyphWidth = 5;
  static constexpr int kGlyphHeight = 9;  // including the descender
  static constexpr int kAscent = 7;       // rows from the top of a capital to the baseline
  static constexpr int kAdvance = 6;      // glyph width plus one column of spacing
  static constexpr int kLineHeight = 11;  // glyph height plus two rows of spacing

  // Whether the pixel at (column, row) of the glyph of `c` is set; false outside the glyph.
  static bool glyph_pixel(char c, int column, int row);

  // Characters the text draws (UTF-8 sequences count as one).
  static int glyph_count(std::string_view text);
  // Width in pixels of `text` drawn to the right at `scale` (no trailing spacing).
  static int text_width(std::string_view text, int scale = 1);
  // Height in pixels of a line of text at `scale`, descender included.
  static int text_height(int scale = 1) { return kGlyphHeight * scale; }

  // Draws `text`. (x, y) is the top-left corner of the box the drawn text occupies: for
  // TextDirection::right that box is text_width × text_height, for TextDirection::up it is
  // text_height wide and text_width tall. `plot(x, y)` is called once per set pixel; it is the
  // caller's job to clip.
  static void draw(std::string_view text, int x, int y, int scale, TextDirection direction,
                   const std::function<void(int, int)>& plot);
};

}  // namespace prism
