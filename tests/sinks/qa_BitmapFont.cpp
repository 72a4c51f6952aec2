// Tests of BitmapFont: every printable glyph has ink (but space), descenders sit below the
// baseline, widths add up, drawing stays inside the measured box, rotation maps pixels as
// documented, and characters outside ASCII become one '?' each.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "sinks/bitmap_font.hpp"

namespace prism {
namespace {

using Pixels = std::set<std::pair<int, int>>;

Pixels draw(std::string_view text, int x, int y, int scale, TextDirection direction) {
  Pixels pixels;
  BitmapFont::draw(text, x, y, scale, direction, [&](int px, int py) { pixels.insert({px, py}); });
  return pixels;
}

int ink(char c) {
  int n = 0;
  for (int row = 0; row < BitmapFont::kGlyphHeight; ++row)
    for (int column = 0; column < BitmapFont::kGlyphWidth; ++column) n += BitmapFont::glyph_pixel(c, column, row);
  return n;
}

TEST(BitmapFont, EveryPrintableGlyphHasInk) {
  EXPECT_EQ(ink(' '), 0);
  for (int c = 33; c <= 126; ++c) EXPECT_GT(ink(static_cast<char>(c)), 0) << "'" << static_cast<char>(c) << "'";
}

TEST(BitmapFont, GlyphsAreDistinct) {
  std::set<std::string> shapes;
  for (int c = 32; c <= 126; ++c) {
    std::string shape;
    for (int row = 0; row < BitmapFont::kGlyphHeight; ++row)
      for (int column = 0; column < BitmapFont::kGlyphWidth; ++column)
        shape += BitmapFont::glyph_pixel(static_cast<char>(c), column, row) ? '#' : '.';
    EXPECT_TRUE(shapes.insert(shape).second) << "'" << static_cast<char>(c) << "' looks like another glyph";
  }
}

TEST(BitmapFont, DescendersGoBelowTheBaseline) {
  auto below_baseline = [](char c) {
    for (int row = BitmapFont::kAscent; row < BitmapFont::kGlyphHeight; ++row)
      for (int column = 0; column < BitmapFont::kGlyphWidth; ++column)
        if (BitmapFont::glyph_pixel(c, column, row)) return true;
    return false;
  };
  for (char c : std::string("gjpqy,_")) EXPECT_TRUE(below_baseline(c)) << c;
  for (char c : std::string("ABCkx0123456789.-")) EXPECT_FALSE(below_baseline(c)) << c;
}

TEST(BitmapFont, PixelsOutsideTheGlyphAreUnset) {
  EXPECT_FALSE(BitmapFont::glyph_pixel('A', -1, 0));
  EXPECT_FALSE(BitmapFont::glyph_pixel('A', 5, 0));
  EXPECT_FALSE(BitmapFont::glyph_pixel('A', 0, 9));
}

TEST(BitmapFont, WidthsAddUp) {
  EXPECT_EQ(BitmapFont::text_width(""), 0);
  EXPECT_EQ(BitmapFont::text_width("A"), 5);
  EXPECT_EQ(BitmapFont::text_width("AB"), 11);
  EXPECT_EQ(BitmapFont::text_width("Frequency (kHz)"), 15 * 6 - 1);
  EXPECT_EQ(BitmapFont::text_width("AB", 2), 22);
  EXPECT_EQ(BitmapFont::text_height(), 9);
  EXPECT_EQ(BitmapFont::text_height(3), 27);
}

TEST(BitmapFont, NonAsciiCharactersAreOneQuestionMarkEach) {
  EXPECT_EQ(BitmapFont::glyph_count("\xC2\xB5s"), 2);            // "µs"
  EXPECT_EQ(BitmapFont::glyph_count("\xE2\x80\x94"), 1);         // an em dash
  EXPECT_EQ(draw("\xC2\xB5", 0, 0, 1, TextDirection::right), draw("?", 0, 0, 1, TextDirection::right));
  EXPECT_EQ(draw("\x07", 0, 0, 1, TextDirection::right), draw("?", 0, 0, 1, TextDirection::right));
}

TEST(BitmapFont, DrawingStaysInsideTheMeasuredBox) {
  const std::string text = "Time (s) 0.25 gjpqy";
  for (int scale : {1, 2, 3}) {
    const int w = BitmapFont::text_width(text, scale);
    const int h = BitmapFont::text_height(scale);
    const Pixels right = draw(text, 10, 20, scale, TextDirection::right);
    ASSERT_FALSE(right.empty());
    for (const auto& [x, y] : right) {
      EXPECT_GE(x, 10);
      EXPECT_LT(x, 10 + w);
      EXPECT_GE(y, 20);
      EXPECT_LT(y, 20 + h);
    }
    const Pixels up = draw(text, 10, 20, scale, TextDirection::up);
    EXPECT_EQ(up.size(), right.size());
    for (const auto& [x, y] : up) {
      EXPECT_GE(x, 10);
      EXPECT_LT(x, 10 + h);
      EXPECT_GE(y, 20);
      EXPECT_LT(y, 20 + w);
    }
  }
}

TEST(BitmapFont, UpwardTextIsRotatedCounterClockwise) {
  // 'L': its vertical stroke is the left column; rotated upwards, the glyph's top faces left,
  // so that stroke becomes the bottom row and the foot of the L the right-most column.
  const Pixels up = draw("L", 0, 0, 1, TextDirection::up);
  for (int row = 0; row < 7; ++row) EXPECT_TRUE(up.count({row, 4})) << row;  // stroke: bottom row
  for (int column = 0; column < 5; ++column) EXPECT_TRUE(up.count({6, 4 - column})) << column;
  // The first character of a word comes lowest.
  const Pixels word = draw("I.", 0, 0, 1, TextDirection::up);
  const int first_row_of_dot = std::min_element(word.begin(), word.end(), [](auto a, auto b) {
                                 return a.second < b.second;
                               })->second;
  EXPECT_LT(first_row_of_dot, 5) << "the '.' (second character) is at the top";
}

TEST(BitmapFont, ScalingRepeatsEachPixel) {
  const Pixels one = draw("7", 0, 0, 1, TextDirection::right);
  const Pixels two = draw("7", 0, 0, 2, TextDirection::right);
  EXPECT_EQ(two.size(), 4 * one.size());
  for (const auto& [x, y] : one) {
    EXPECT_TRUE(two.count({2 * x, 2 * y}));
    EXPECT_TRUE(two.count({2 * x + 1, 2 * y + 1}));
  }
  EXPECT_TRUE(draw("7", 0, 0, 0, TextDirection::right).empty());
}

}  // namespace
}  // namespace prism
