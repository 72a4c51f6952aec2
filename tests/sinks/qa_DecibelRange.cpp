// Tests of signal_decibel_range (the automatic colour range of the PNG and the viewer) and of
// the PNG's range on a recording with digital silence: floored cells are left out, the low end
// is a percentile of the rest, the span is capped.
#include <cstddef>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "sinks/decibel_range.hpp"
#include "sinks/png_sink.hpp"
#include "sink_test_support.hpp"

namespace prism {
namespace {

TEST(DecibelRange, FlooredAndNonFiniteCellsAreLeftOut) {
  // 30% digital silence (floored at -300 dB), a NaN, the signal between -90 and -30 dB.
  std::vector<float> cells(700, -300.0f);
  cells.push_back(std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i <= 1000; ++i) cells.push_back(-90.0f + 60.0f * static_cast<float>(i) / 1000.0f);
  const auto range = signal_decibel_range(cells);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->signal_cells, 1001u);
  EXPECT_FLOAT_EQ(range->high, -30.0f);
  EXPECT_FLOAT_EQ(range->low, -90.0f + 60.0f * 50 / 1000.0f) << "the 5th percentile of the signal cells";
}

TEST(DecibelRange, SpanIsCappedBelowTheTop) {
  // A few cells far down (leakage into nearly silent segments) beyond the percentile's reach.
  std::vector<float> cells(100, -250.0f);
  cells.insert(cells.end(), 900, -20.0f);
  cells.push_back(0.0f);
  const auto range = signal_decibel_range(cells);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->high, 0.0);
  EXPECT_EQ(range->low, -kMaxAutoSpanDb);
}

TEST(DecibelRange, NoSignalGivesNothing) {
  EXPECT_FALSE(signal_decibel_range({}).has_value());
  const std::vector<float> silent(64, -300.0f);
  EXPECT_FALSE(signal_decibel_range(silent).has_value());
}

// The case: speech with digital silence between words, as a PNG with an automatic
// range. Before, the 5th percentile of all cells was the -300 dB floor.
TEST(DecibelRange, PngRangeIgnoresDigitalSilence) {
  test::ScratchDir dir;
  auto layout = test::make_layout(64, 100.0, /*decibels=*/true);
  layout.row_interval = 0.01;
  PngSink sink(dir.file("speech.png"), SinkOptions{});
  test::begin_rows(sink, layout);
  std::vector<float> row(64);
  for (std::size_t r = 0; r < 400; ++r) {
    const bool silent = r % 20 < 4;  // 20% of the rows are exact zeros
    for (std::size_t b = 0; b < row.size(); ++b)
      row[b] = silent ? -300.0f : (b % 8 == 2 ? -40.0f : -95.0f + static_cast<float>((r * 7 + b * 13) % 10));
    test::write_rows(sink, row.data(), 1, r, row.size());
  }
  sink.finish(true);
  EXPECT_EQ(sink.used_db_max(), -40.0);
  EXPECT_GE(sink.used_db_min(), -95.0);
  EXPECT_LE(sink.used_db_min(), -85.0);
}

}  // namespace
}  // namespace prism
