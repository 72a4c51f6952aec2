// Tests of PngSink: where a tone lands on the frequency axis, colour mapping and its
// endpoints, dB conversion of linear values, the bounded memory of long recordings (pairwise
// merge by mean power), the PNG's text chunks and the life cycle. The PNG is decoded with
// libpng here, independently of the writer.
#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <png.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "sinks/colormap.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/plot_font.hpp"
#include "sinks/png_sink.hpp"
#include "sink_test_support.hpp"

namespace prism {
namespace {

using test::ScratchDir;

struct DecodedPng {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::multimap<std::string, std::string> text;
  Rgb at(int x, int y) const {
    const auto* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    return {p[0], p[1], p[2]};
  }
};

bool decode_png(const std::string& path, DecodedPng* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    return false;
  }
  png_init_io(png, f);
  png_read_png(png, info, PNG_TRANSFORM_STRIP_ALPHA | PNG_TRANSFORM_STRIP_16 | PNG_TRANSFORM_EXPAND,
               nullptr);
  out->width = static_cast<int>(png_get_image_width(png, info));
  out->height = static_cast<int>(png_get_image_height(png, info));
  const bool rgb = png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB;
  png_bytepp rows = png_get_rows(png, info);
  out->rgb.resize(static_cast<std::size_t>(out->width) * out->height * 3);
  for (int y = 0; rgb && y < out->height; ++y)
    std::memcpy(&out->rgb[static_cast<std::size_t>(y) * out->width * 3], rows[y], out->width * 3);
  png_textp texts = nullptr;
  const int count = png_get_text(png, info, &texts, nullptr);
  for (int i = 0; i < count; ++i) out->text.emplace(texts[i].key, texts[i].text);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(f);
  return rgb;
}

// A layout whose frequency axis puts bin centres exactly on round numbers: `bins` bins from
// 0 Hz in steps of `bin_hz` (real input).
SpectrumLayout tone_layout(std::size_t bins, double bin_hz) {
  auto layout = test::make_layout(bins, bin_hz, /*decibels=*/true);
  layout.row_interval = 0.01;
  layout.first_row_time = 0.005;
  return layout;
}

// `rows` rows at `floor_db`, bin `tone_bin` at `tone_db`.
void write_tone(PngSink& sink, const SpectrumLayout& layout, std::size_t rows, std::size_t tone_bin,
                float floor_db = -100.0f, float tone_db = 0.0f) {
  std::vector<float> row(layout.columns, floor_db);
  row[tone_bin] = tone_db;
  for (std::size_t r = 0; r < rows; ++r) test::write_rows(sink, row.data(), 1, r, row.size());
}

// Width in pixels of `text` in the plots' font at `size`, measured as the renderer measures.
double plot_text_width(const std::string& text, double size) {
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t* cr = cairo_create(surface);
  use_plot_font(cr, size);
  const double width = text_width(cr, text);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  return width;
}

const PlotTick* find_tick(const std::vector<PlotTick>& ticks, double value) {
  for (const auto& t : ticks)
    if (std::abs(t.value - value) < 1e-9 * std::max(1.0, std::abs(value))) return &t;
  return nullptr;
}

// Rows of the plot area's middle column that have the colormap's top colour.
std::vector<int> brightest_rows(const DecodedPng& image, const PlotGeometry& g, const ColormapTable& cmap) {
  std::vector<int> ys;
  const int x = g.plot_left + g.plot_width / 2;
  for (int y = g.plot_top; y < g.plot_top + g.plot_height; ++y)
    if (image.at(x, y) == cmap[255]) ys.push_back(y);
  return ys;
}

TEST(PngSink, ToneSitsAtItsTickOnTheFrequencyAxis) {
  ScratchDir dir;
  // 257 bins of 100 Hz: 0 .. 25.6 kHz; a tone at 10 kHz (bin 100), which is a tick value.
  const auto layout = tone_layout(257, 100.0);
  SinkOptions one_pixel_per_bin;
  one_pixel_per_bin.width = 300;
  one_pixel_per_bin.height = 257;
  PngSink sink(dir.file("tone.png"), one_pixel_per_bin);
  test::begin_rows(sink, layout);
  write_tone(sink, layout, 300, 100);
  sink.finish(true);

  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("tone.png"), &image));
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(image.width, g.image_width);
  EXPECT_EQ(image.height, g.image_height);
  EXPECT_EQ(g.plot_width, 300);
  EXPECT_EQ(g.plot_height, 257);
  EXPECT_EQ(g.frequency_unit, "kHz");
  EXPECT_EQ(sink.used_db_max(), 0.0);
  EXPECT_EQ(sink.used_db_min(), -100.0) << "5th percentile of the plotted values";

  const PlotTick* tick = find_tick(g.frequency_ticks, 10.0);
  ASSERT_NE(tick, nullptr) << "a 10 kHz tick";
  EXPECT_EQ(tick->label, "10");
  const auto bright = brightest_rows(image, g, *find_colormap("viridis"));
  ASSERT_EQ(bright.size(), 1u);
  EXPECT_EQ(bright[0], tick->position);
  // The axis maps bin i's centre to pixel row floor((i + 0.5) · H / bins) from the bottom.
  EXPECT_EQ(bright[0], g.plot_top + g.plot_height - 1 - (100 * 2 + 1) * 257 / (2 * 257));
  // Frequency grows upwards: the 20 kHz tick is above the 10 kHz one.
  const PlotTick* higher = find_tick(g.frequency_ticks, 20.0);
  ASSERT_NE(higher, nullptr);
  EXPECT_LT(higher->position, tick->position);
}

TEST(PngSink, BinsBeyondTheHeightAreReducedByTheirMaximum) {
  ScratchDir dir;
  const auto layout = tone_layout(257, 100.0);
  SinkOptions options;
  options.height = 100;
  options.width = 64;
  PngSink sink(dir.file("tone.png"), options);
  test::begin_rows(sink, layout);
  EXPECT_EQ(sink.kept_rows_per_column(), 100u);
  write_tone(sink, layout, 300, 100);
  sink.finish(true);

  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("tone.png"), &image));
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(g.plot_width, 64);
  EXPECT_EQ(g.plot_height, 100);
  const PlotTick* tick = find_tick(g.frequency_ticks, 10.0);
  ASSERT_NE(tick, nullptr);
  const auto bright = brightest_rows(image, g, *find_colormap("viridis"));
  ASSERT_EQ(bright.size(), 1u) << "the tone survives the reduction, in one pixel row";
  EXPECT_EQ(bright[0], tick->position);
}

TEST(PngSink, FewBinsAreStretchedToTheHeight) {
  ScratchDir dir;
  const auto layout = tone_layout(16, 100.0);  // -0.05 .. 1.55 kHz
  SinkOptions options;
  options.height = 64;
  PngSink sink(dir.file("tall.png"), options);
  test::begin_rows(sink, layout);
  EXPECT_EQ(sink.kept_rows_per_column(), 16u);
  write_tone(sink, layout, 20, 10);  // 1 kHz
  sink.finish(true);
  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("tall.png"), &image));
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(g.plot_height, 64);
  const auto bright = brightest_rows(image, g, *find_colormap("viridis"));
  ASSERT_EQ(bright.size(), 4u) << "each bin is 4 pixel rows tall";
  const PlotTick* tick = find_tick(g.frequency_ticks, 1.0);
  ASSERT_NE(tick, nullptr) << "a 1 kHz tick";
  EXPECT_GE(tick->position, bright.front());
  EXPECT_LE(tick->position, bright.back());
}

TEST(PngSink, LayoutWithoutBinsGivesAnEmptyPlot) {
  ScratchDir dir;
  SpectrumLayout layout;
  layout.stream.sample_rate = 1000;
  PngSink sink(dir.file("none.png"), {});
  test::begin_rows(sink, layout);
  test::write_rows(sink, nullptr, 0, 0, 0);
  const float nothing = 0.0f;
  test::write_rows(sink, &nothing, 3, 0, 0);  // three rows of zero values each
  sink.finish(true);
  DecodedPng image;
  EXPECT_TRUE(decode_png(dir.file("none.png"), &image));
}

TEST(PngSink, UncreatableFileIsAnInputError) {
  ScratchDir dir;
  PngSink sink(dir.file("missing/out.png"), {});
  EXPECT_THROW(test::begin_rows(sink, tone_layout(4, 1.0)), InputError);
}

TEST(PngSink, ComplexInputWithCentreFrequencySpansBothSides) {
  ScratchDir dir;
  // 200 bins of 5 kHz from -500 kHz, around 100 MHz; a tone at +200 kHz = 100.2 MHz (bin 140).
  SpectrumLayout layout = tone_layout(200, 5000.0);
  for (std::size_t i = 0; i < 200; ++i) layout.frequencies[i] = -500e3 + 5e3 * i;
  layout.stream.format = SampleFormat::cf32;
  layout.stream.sample_rate = 1e6;
  layout.stream.center_frequency = 100e6;
  SinkOptions one_pixel_per_bin;
  one_pixel_per_bin.height = 200;
  PngSink sink(dir.file("iq.png"), one_pixel_per_bin);
  test::begin_rows(sink, layout);
  write_tone(sink, layout, 50, 140);
  sink.finish(true);

  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("iq.png"), &image));
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(g.frequency_unit, "MHz");
  ASSERT_FALSE(g.frequency_ticks.empty());
  EXPECT_LT(g.frequency_ticks.front().value, 100.0);
  EXPECT_GT(g.frequency_ticks.back().value, 100.0);
  const PlotTick* tick = find_tick(g.frequency_ticks, 100.2);
  ASSERT_NE(tick, nullptr) << "ticks: " << g.frequency_ticks.front().label << " .. "
                           << g.frequency_ticks.back().label;
  EXPECT_EQ(tick->label, "100.2");
  const auto bright = brightest_rows(image, g, *find_colormap("viridis"));
  ASSERT_EQ(bright.size(), 1u);
  EXPECT_EQ(bright[0], tick->position);
}

TEST(PngSink, ColourRangeEndpointsUseTheTableEnds) {
  for (const std::string& name : colormap_names()) {
    SCOPED_TRACE(name);
    ScratchDir dir;
    const auto layout = tone_layout(64, 10.0);
    SinkOptions options;
    options.colormap = name;
    options.db_min = -50.0;
    options.db_max = 0.0;
    PngSink sink(dir.file("ends.png"), options);
    test::begin_rows(sink, layout);
    std::vector<float> row(64);
    for (std::size_t i = 0; i < 64; ++i) row[i] = i < 32 ? -80.0f : 10.0f;  // beyond both ends
    for (std::uint64_t r = 0; r < 20; ++r) test::write_rows(sink, row.data(), 1, r, row.size());
    sink.finish(true);

    DecodedPng image;
    ASSERT_TRUE(decode_png(dir.file("ends.png"), &image));
    const auto& cmap = *find_colormap(name);
    const PlotGeometry& g = sink.geometry();
    const int x = g.plot_left + 3;
    EXPECT_EQ(image.at(x, g.plot_top + g.plot_height - 1), cmap[0]);  // lowest bin
    EXPECT_EQ(image.at(x, g.plot_top), cmap[255]);                    // highest bin
    // The colour bar runs from table[0] at the bottom to table[255] at the top.
    const int bar_x = g.colorbar_left + g.colorbar_width / 2;
    EXPECT_EQ(image.at(bar_x, g.plot_top), cmap[255]);
    EXPECT_EQ(image.at(bar_x, g.plot_top + g.plot_height - 1), cmap[0]);
    ASSERT_FALSE(g.colorbar_ticks.empty());
    EXPECT_EQ(g.colorbar_ticks.front().value, -50.0);
    EXPECT_EQ(g.colorbar_ticks.back().value, 0.0);
  }
}

// Renders one row of constant `value` with the given quantity and colour range, and returns the
// colour of a plot pixel.
Rgb render_constant(const SpectrumLayout& layout, float value, double db_min, double db_max) {
  ScratchDir dir;
  SinkOptions options;
  options.colormap = "grayscale";
  options.db_min = db_min;
  options.db_max = db_max;
  PngSink sink(dir.file("c.png"), options);
  test::begin_rows(sink, layout);
  std::vector<float> row(layout.columns, value);
  for (std::uint64_t r = 0; r < 4; ++r) test::write_rows(sink, row.data(), 1, r, row.size());
  sink.finish(true);
  DecodedPng image;
  EXPECT_TRUE(decode_png(dir.file("c.png"), &image));
  const PlotGeometry& g = sink.geometry();
  return image.at(g.plot_left + 1, g.plot_top + 1);
}

TEST(PngSink, LinearValuesAreConvertedToDecibels) {
  // Each case puts its value 40 % up its colour range: grey round(0.4 · 255) = 102.
  const Rgb expected{102, 102, 102};
  auto layout = tone_layout(16, 10.0);
  layout.decibels = false;
  // Power: 1e-3 → 10·log10 → -30 dB.
  layout.quantity = SpectrumQuantity::power_spectral_density;
  EXPECT_EQ(render_constant(layout, 1e-3f, -40, -15), expected);
  // Magnitude: 1e-3 → 20·log10 → -60 dB.
  layout.quantity = SpectrumQuantity::magnitude_spectrum;
  EXPECT_EQ(render_constant(layout, 1e-3f, -70, -45), expected);
  // Zero power is floored at -300 dB, not -inf.
  layout.quantity = SpectrumQuantity::power_spectrum;
  EXPECT_EQ(render_constant(layout, 0.0f, -304, -294), expected);
  // dB input is used as it is.
  layout.decibels = true;
  EXPECT_EQ(render_constant(layout, -30.0f, -40, -15), expected);
}

// The default plot area is the same whatever the data's shape: few rows or bins are stretched,
// many reduced.
TEST(PngSink, DefaultSizeIsFixedWhateverTheDataShape) {
  struct Case {
    std::size_t rows, bins;
    int width, height;
  };
  for (const Case c : {Case{50, 33, 1200, 700}, Case{900, 513, 1200, 700}, Case{5000, 4097, 1200, 700}}) {
    ScratchDir dir;
    const auto layout = tone_layout(c.bins, 10.0);
    PngSink sink(dir.file("size.png"), {});
    test::begin_rows(sink, layout);
    write_tone(sink, layout, c.rows, c.bins / 2);
    sink.finish(true);
    EXPECT_EQ(sink.geometry().plot_width, c.width) << c.rows << " rows";
    EXPECT_EQ(sink.geometry().plot_height, c.height) << c.bins << " bins";
  }
}

TEST(PngSink, LongRecordingsKeepBoundedColumns) {
  ScratchDir dir;
  const auto layout = tone_layout(64, 10.0);
  PngSink sink(dir.file("long.png"), {});
  test::begin_rows(sink, layout);
  EXPECT_EQ(sink.kept_column_limit(), 2u * PngSink::kDefaultWidth);
  std::vector<float> rows(1000 * 64);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = -static_cast<float>(i % 64);
  std::size_t most_kept = 0;
  for (std::uint64_t first = 0; first < 100000; first += 1000) {
    test::write_rows(sink, rows.data(), 1000, first, rows.size() / 1000);
    most_kept = std::max(most_kept, sink.kept_columns());
    ASSERT_LE(sink.kept_columns(), sink.kept_column_limit()) << "after row " << first + 1000;
  }
  EXPECT_GT(most_kept, PngSink::kDefaultWidth);
  EXPECT_GE(sink.rows_per_column(), 32u);
  EXPECT_EQ(sink.items_written(), 100000u);
  sink.finish(true);
  EXPECT_EQ(sink.geometry().plot_width, static_cast<int>(PngSink::kDefaultWidth));
  EXPECT_EQ(sink.geometry().plot_height, static_cast<int>(PngSink::kDefaultHeight)) << "64 bins stretched";
  EXPECT_EQ(sink.geometry().time_unit, "min") << "1000 s of rows";
  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("long.png"), &image));
}

// Merged columns under --reduce mean average linear power; under max they keep the largest.
Rgb merged_colour(PlotReduction reduce) {
  ScratchDir dir;
  auto layout = tone_layout(8, 10.0);
  layout.decibels = false;
  layout.quantity = SpectrumQuantity::power_spectrum;
  SinkOptions options;
  options.width = 100;
  options.colormap = "grayscale";
  options.reduce = reduce;
  options.db_min = 0.0;
  options.db_max = 10.0 * std::log10(2.0) * 255.0 / 100.0;
  PngSink sink(dir.file("mean.png"), options);
  test::begin_rows(sink, layout);
  EXPECT_EQ(sink.kept_column_limit(), 200u);
  // Power alternating 1 and 3: every pixel's mean power is 2.
  for (std::uint64_t r = 0; r < 10000; ++r) {
    std::vector<float> row(8, r % 2 == 0 ? 1.0f : 3.0f);
    test::write_rows(sink, row.data(), 1, r, row.size());
    EXPECT_LE(sink.kept_columns(), 200u);
  }
  sink.finish(true);
  DecodedPng image;
  if (!decode_png(dir.file("mean.png"), &image)) {
    ADD_FAILURE() << "cannot decode mean.png";
    return {};
  }
  const PlotGeometry& g = sink.geometry();
  const Rgb first = image.at(g.plot_left, g.plot_top + 2);
  for (int x = 0; x < g.plot_width; x += 7)
    EXPECT_EQ(image.at(g.plot_left + x, g.plot_top + 2), first) << "x " << x;
  return first;
}

TEST(PngSink, MergedColumnsAverageOrKeepTheMaximumOfLinearPower) {
  // Mean power 2 (3.01 dB) maps to grey 100; the max (3: 4.77 dB) to 158; the mean of the dB
  // values (2.39 dB) would be 79.
  EXPECT_EQ(merged_colour(PlotReduction::mean), (Rgb{100, 100, 100}));
  EXPECT_EQ(merged_colour(PlotReduction::max), (Rgb{158, 158, 158}));
}

// The brightest dB value in the plot area of a PNG with `rows` rows of `bins` bins at -100 dB,
// bin `tone_bin` of every row at 0 dB (a narrow tone), or every bin of row `click_row` at 0 dB
// (a click), drawn on a 50 × 40 plot; grayscale from -100 to 0 dB.
double brightest_db(PlotReduction reduce, std::size_t rows, std::size_t bins, std::optional<std::size_t> tone_bin,
                    std::optional<std::size_t> click_row) {
  ScratchDir dir;
  const auto layout = tone_layout(bins, 10.0);
  SinkOptions options;
  options.width = 50;
  options.height = 40;
  options.colormap = "grayscale";
  options.db_min = -100.0;
  options.db_max = 0.0;
  options.reduce = reduce;
  PngSink sink(dir.file("r.png"), options);
  test::begin_rows(sink, layout);
  std::vector<float> row(bins);
  for (std::size_t r = 0; r < rows; ++r) {
    std::fill(row.begin(), row.end(), click_row == r ? 0.0f : -100.0f);
    if (tone_bin) row[*tone_bin] = 0.0f;
    test::write_rows(sink, row.data(), 1, r, row.size());
  }
  sink.finish(true);
  DecodedPng image;
  EXPECT_TRUE(decode_png(dir.file("r.png"), &image));
  const PlotGeometry& g = sink.geometry();
  int brightest = 0;
  for (int y = g.plot_top; y < g.plot_top + g.plot_height; ++y)
    for (int x = g.plot_left; x < g.plot_left + g.plot_width; ++x) brightest = std::max<int>(brightest, image.at(x, y).r);
  return -100.0 + 100.0 * brightest / 255.0;
}

TEST(PngSink, NarrowToneSurvivesMaxReductionAndMeanAttenuatesIt) {
  // 4001 bins onto 40 pixel rows: about 100 bins each; a one-bin tone among them.
  EXPECT_NEAR(brightest_db(PlotReduction::max, 60, 4001, 1234, std::nullopt), 0.0, 0.5);
  EXPECT_NEAR(brightest_db(PlotReduction::mean, 60, 4001, 1234, std::nullopt), -10.0 * std::log10(100.0), 1.0);
}

TEST(PngSink, ShortClickSurvivesMaxReductionAndMeanAttenuatesIt) {
  // 20000 rows onto 50 pixel columns (the kept columns merged pairwise several times); one row
  // is a click.
  EXPECT_NEAR(brightest_db(PlotReduction::max, 20000, 16, std::nullopt, 12345), 0.0, 0.5);
  EXPECT_LT(brightest_db(PlotReduction::mean, 20000, 16, std::nullopt, 12345), -20.0);
}

TEST(PngSink, TimeAxisTicksAreAtTheirTimes) {
  ScratchDir dir;
  const auto layout = tone_layout(32, 10.0);  // rows every 10 ms; 1000 rows: 0 .. 10 s
  PngSink sink(dir.file("t.png"), {});
  test::begin_rows(sink, layout);
  std::vector<float> row(32, -10.0f);
  for (std::uint64_t r = 0; r < 1000; ++r) test::write_rows(sink, row.data(), 1, r, row.size());
  sink.finish(true);
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(g.time_unit, "s");
  const PlotTick* five = find_tick(g.time_ticks, 5.0);
  ASSERT_NE(five, nullptr);
  EXPECT_EQ(five->position, g.plot_left + 600);  // 5 s of 10 s over the default 1200 px
  const PlotTick* zero = find_tick(g.time_ticks, 0.0);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->position, g.plot_left);
}

TEST(PngSink, ShortRecordingsUseMilliseconds) {
  ScratchDir dir;
  const auto layout = tone_layout(16, 10.0);
  PngSink sink(dir.file("ms.png"), {});
  test::begin_rows(sink, layout);
  std::vector<float> row(16, -10.0f);
  for (std::uint64_t r = 0; r < 20; ++r) test::write_rows(sink, row.data(), 1, r, row.size());  // 200 ms
  sink.finish(true);
  EXPECT_EQ(sink.geometry().time_unit, "ms");
}

TEST(PngSink, TextChunksSayWhetherTheRunWasComplete) {
  for (bool complete : {true, false}) {
    ScratchDir dir;
    const auto layout = tone_layout(16, 10.0);
    SinkOptions options;
    options.title = "my title";
    PngSink sink(dir.file("t.png"), options);
    test::begin_rows(sink, layout);
    write_tone(sink, layout, 10, 3);
    sink.finish(complete);
    DecodedPng image;
    ASSERT_TRUE(decode_png(dir.file("t.png"), &image));
    const auto comment = image.text.find("Comment");
    ASSERT_NE(comment, image.text.end());
    EXPECT_EQ(comment->second, complete ? "prism:complete=true" : "prism:complete=false");
    ASSERT_EQ(image.text.count("prism:parameters"), 1u);
    EXPECT_EQ(nlohmann::json::parse(image.text.find("prism:parameters")->second),
              nlohmann::json::parse(layout.parameters_json));
    ASSERT_EQ(image.text.count("prism:plot"), 1u);
    const auto plot = nlohmann::json::parse(image.text.find("prism:plot")->second);
    EXPECT_EQ(plot["rows"], 10);
    EXPECT_EQ(plot["complete"], complete);
    EXPECT_EQ(image.text.find("Title")->second, "my title");
  }
}

TEST(PngSink, DefaultTitleNamesInputAndParameters) {
  ScratchDir dir;
  auto layout = tone_layout(16, 10.0);
  layout.stream.sample_rate = 48000;
  PngSink sink(dir.file("t.png"), {});
  test::begin_rows(sink, layout);
  write_tone(sink, layout, 4, 3);
  sink.finish(true);
  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("t.png"), &image));
  const std::string title = image.text.find("Title")->second;
  EXPECT_NE(title.find("48 kHz"), std::string::npos) << title;
  EXPECT_NE(title.find("window hann"), std::string::npos) << title;
  EXPECT_NE(title.find("nperseg 30"), std::string::npos) << title;
}

// On a narrow plot the title wraps onto more lines instead of being cut with "...".
TEST(PngSink, LongTitleWrapsOnNarrowPlots) {
  ScratchDir dir;
  const auto layout = tone_layout(16, 10.0);
  SinkOptions options;
  options.width = 60;
  options.height = 60;
  options.title = "speech.wav | i16, 22.05 kHz | window hann, nperseg 256, noverlap 32, average 64 (mean)";
  PngSink sink(dir.file("narrow.png"), options);
  test::begin_rows(sink, layout);
  write_tone(sink, layout, 8, 3);
  sink.finish(true);
  const std::vector<std::string>& lines = sink.geometry().title_lines;
  ASSERT_GT(lines.size(), 1u);
  std::string joined;
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("..."), std::string::npos) << line;
    EXPECT_LE(plot_text_width(line, sink.geometry().font_size), sink.geometry().image_width) << line;
    joined += (joined.empty() ? "" : " ") + line;
  }
  EXPECT_EQ(joined, options.title);
  EXPECT_GT(sink.geometry().plot_top, static_cast<int>(lines.size() * sink.geometry().font_size))
      << "the plot starts below every title line";
}

// The text is antialiased: the title's pixels take many grey levels between the ink and the
// white background (a bitmap font gives two), and its ink lies above the plot area.
TEST(PngSink, TextIsAntialiased) {
  ScratchDir dir;
  const auto layout = tone_layout(64, 10.0);
  SinkOptions options;
  options.width = 300;
  options.height = 300;
  options.title = "Antialiased title";
  PngSink sink(dir.file("aa.png"), options);
  test::begin_rows(sink, layout);
  write_tone(sink, layout, 20, 3);
  sink.finish(true);
  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("aa.png"), &image));
  const PlotGeometry& g = sink.geometry();
  std::set<int> greys;
  int dark = 0;
  for (int y = 0; y < g.plot_top - 1; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const Rgb c = image.at(x, y);
      ASSERT_TRUE(c.r == c.g && c.g == c.b) << "ink on white is grey, at " << x << "," << y;
      if (c.r < 255) greys.insert(c.r);
      if (c.r <= 60) ++dark;
    }
  }
  EXPECT_GE(greys.size(), 16u) << "antialiased edges";
  EXPECT_GT(dark, 50) << "the title's strokes";
}

TEST(PngSink, AbortLeavesNoFile) {
  ScratchDir dir;
  const auto layout = tone_layout(16, 10.0);
  PngSink sink(dir.file("a.png"), {});
  test::begin_rows(sink, layout);
  EXPECT_TRUE(test::exists(dir.file("a.png.partial")));
  write_tone(sink, layout, 10, 3);
  sink.abort();
  EXPECT_TRUE(dir.names().empty());
}

TEST(PngSink, NoRowsStillGiveAnImage) {
  ScratchDir dir;
  PngSink sink(dir.file("empty.png"), {});
  test::begin_rows(sink, tone_layout(16, 10.0));
  sink.finish(false);
  DecodedPng image;
  ASSERT_TRUE(decode_png(dir.file("empty.png"), &image));
  EXPECT_GT(image.width, 0);
  // A grey plot area with "no rows" written dark across its middle.
  const PlotGeometry& g = sink.geometry();
  EXPECT_EQ(image.at(g.plot_left + 2, g.plot_top + 2), (Rgb{200, 200, 200}));
  int ink = 0;
  const int y_mid = g.plot_top + g.plot_height / 2;
  for (int y = y_mid - 6; y <= y_mid + 6; ++y)
    for (int x = g.plot_left; x < g.plot_left + g.plot_width; ++x) ink += image.at(x, y).r < 100 ? 1 : 0;
  EXPECT_GT(ink, 20) << "the note's strokes";
}

TEST(PngSink, OddValuesDoNotBreakIt) {
  ScratchDir dir;
  const auto layout = tone_layout(8, 10.0);
  PngSink sink(dir.file("odd.png"), {});
  test::begin_rows(sink, layout);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> row = {nan, inf, -inf, 1e30f, -1e30f, 0.0f, nan, -3.0f};
  for (std::uint64_t r = 0; r < 5; ++r) test::write_rows(sink, row.data(), 1, r, row.size());
  sink.finish(true);
  DecodedPng image;
  EXPECT_TRUE(decode_png(dir.file("odd.png"), &image));
  EXPECT_TRUE(std::isfinite(sink.used_db_min()));
  EXPECT_TRUE(std::isfinite(sink.used_db_max()));
}

TEST(PngSink, BadOptionsAreUsageErrors) {
  SinkOptions bad_colormap;
  bad_colormap.colormap = "jet";
  try {
    PngSink sink("x.png", bad_colormap);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    for (const auto& name : colormap_names()) EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  SinkOptions inverted;
  inverted.db_min = 0;
  inverted.db_max = -10;
  EXPECT_THROW(PngSink("x.png", inverted), UsageError);
  SinkOptions zero_width;
  zero_width.width = 0;
  EXPECT_THROW(PngSink("x.png", zero_width), UsageError);
  SinkOptions huge;
  huge.height = 100000;
  EXPECT_THROW(PngSink("x.png", huge), UsageError);
  SinkOptions gray;
  gray.colormap = "gray";  // matplotlib's name is accepted too
  EXPECT_NO_THROW(PngSink("x.png", gray));
}

TEST(PngPlot, NiceTicksAreOneTwoFiveTimesAPowerOfTen) {
  double step = 0;
  EXPECT_EQ(nice_ticks(0, 24, 5, &step), (std::vector<double>{0, 5, 10, 15, 20}));
  EXPECT_EQ(step, 5);
  EXPECT_EQ(nice_ticks(-1, 1, 4, &step), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(nice_ticks(99.5, 100.5, 5, &step).size(), 5u);
  EXPECT_DOUBLE_EQ(step, 0.2);
  EXPECT_EQ(nice_ticks(3, 3, 5), (std::vector<double>{3}));
  EXPECT_TRUE(nice_ticks(0, std::numeric_limits<double>::quiet_NaN(), 5).empty());
  EXPECT_EQ(format_tick(2.5, 0.5), "2.5");
  EXPECT_EQ(format_tick(2000, 1000), "2000");
  EXPECT_EQ(format_tick(-0.0, 0.1), "0.0");
  EXPECT_EQ(format_tick(100.2, 0.2), "100.2");
  EXPECT_EQ(frequency_unit(999).name, "Hz");
  EXPECT_EQ(frequency_unit(24000).name, "kHz");
  EXPECT_EQ(frequency_unit(2.4e9).name, "GHz");
  EXPECT_EQ(time_unit(0.5).name, "ms");
  EXPECT_EQ(time_unit(3600).name, "min");
}

}  // namespace
}  // namespace prism
