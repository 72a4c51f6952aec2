// Decimal text of doubles (pipeline/decimal_text.hpp): the shortest text that reads back as the
// same double, the text of messages (whole numbers in full), and Python's repr of a float, which
// the sidecars' arrays and the scipy lines use.
#include "pipeline/decimal_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

namespace prism {
namespace {

TEST(DecimalText, ShortestTextOfKnownValues) {
  EXPECT_EQ(shortest_decimal(0.25), "0.25");
  EXPECT_EQ(shortest_decimal(24000.0), "24000");
  EXPECT_EQ(shortest_decimal(1e-05), "1e-05");
  EXPECT_EQ(shortest_decimal(-8.6), "-8.6");
  EXPECT_EQ(shortest_decimal(0.1 + 0.2), "0.30000000000000004");
}

TEST(DecimalText, NumberTextWritesWholeNumbersInFull) {
  EXPECT_EQ(number_text(2.4e6), "2400000");
  EXPECT_EQ(number_text(24e6), "24000000");  // shortest_decimal: "2.4e+07"
  EXPECT_EQ(number_text(-48000.0), "-48000");
  EXPECT_EQ(number_text(-0.0), "0");
  EXPECT_EQ(number_text(999999999999999.0), "999999999999999");
  EXPECT_EQ(number_text(1e15), "1e+15");  // from 1e15 on, as shortest_decimal
  EXPECT_EQ(number_text(0.001), "0.001");
  EXPECT_EQ(number_text(1e-4), "1e-04");
  EXPECT_EQ(number_text(2400000.5), "2400000.5");
  EXPECT_EQ(number_text(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(number_text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(number_text(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(DecimalText, PythonFloatKeepsAPointWhereTheTextWouldReadAsAnInteger) {
  EXPECT_EQ(python_float(30.0), "30.0");
  EXPECT_EQ(python_float(0.0), "0.0");
  EXPECT_EQ(python_float(-2.0), "-2.0");
  EXPECT_EQ(python_float(8.6), "8.6");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(std::numeric_limits<double>::infinity()), "inf");
  std::string text = "[1.5, ";
  append_python_float(text, 2.0);
  EXPECT_EQ(text, "[1.5, 2.0");
}

TEST(DecimalText, EveryTextReadsBackAsTheSameDouble) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> spread(-1e6, 1e6);
  for (int i = 0; i < 100000; ++i) {
    // Values of every magnitude: a uniform one scaled by a power of ten from 1e-300 to 1e300.
    const double value = spread(random) * std::pow(10.0, static_cast<int>(random() % 601) - 300);
    const std::string shortest = shortest_decimal(value), python = python_float(value), number = number_text(value);
    ASSERT_EQ(std::strtod(shortest.c_str(), nullptr), value) << shortest;
    ASSERT_EQ(std::strtod(number.c_str(), nullptr), value) << number;
    ASSERT_EQ(std::strtod(python.c_str(), nullptr), value) << python;
    ASSERT_LE(shortest.size(), 24u) << shortest;
  }
}

}  // namespace
}  // namespace prism
