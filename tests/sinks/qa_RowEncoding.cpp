// The float16 and uint8 encodings of rows (sinks/row_encoding.hpp): half_bits against values
// worked out by hand, encode_halves (the processor's conversion where it has one) bit for bit
// against half_bits over sweeps of float bit patterns that cross every rounding boundary, and
// encode_levels against std::lround's rounding at and beside every half step.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "sinks/row_encoding.hpp"

namespace prism {
namespace {

TEST(RowEncoding, HalfBitsOfKnownValues) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);                  // the largest half
  EXPECT_EQ(half_bits(65519.996f), 0x7bff);                // below the midpoint to 2^16
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);                  // the midpoint rounds (to even) to infinity
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -14)), 0x0400);     // the smallest normal half
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -24)), 0x0001);     // the smallest subnormal half
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -25)), 0x0000);     // half of it: a tie, to even (zero)
  EXPECT_EQ(half_bits(std::ldexp(1.5f, -25)), 0x0001);     // above the tie
  EXPECT_EQ(half_bits(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 steps: a tie, to even (2)
  EXPECT_EQ(half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // a tie at 1: to even
  EXPECT_EQ(half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // a tie at 1 + 2^-10: to even
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(half_bits(std::bit_cast<float>(0x7f800001u)), 0x7e00);  // a signalling NaN, quieted
  EXPECT_EQ(half_bits(std::bit_cast<float>(0xffc02000u)), 0xfe01);  // sign and payload's top kept
}

// encode_halves over `patterns`, and over every length up to 19 from the first four starts (the
// vector body and every tail, aligned or not), equals half_bits of each.
void expect_halves_match(const std::vector<std::uint32_t>& patterns) {
  std::vector<float> values(patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) values[i] = std::bit_cast<float>(patterns[i]);
  std::vector<std::uint16_t> halves(values.size() + 1, 0xdead);
  encode_halves(values.data(), values.size(), halves.data());
  EXPECT_EQ(halves.back(), 0xdead) << "wrote past the end";
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t expected = half_bits(values[i]);
    if (halves[i] != expected && ++mismatches <= 5)
      ADD_FAILURE() << std::hex << "0x" << patterns[i] << ": 0x" << halves[i] << ", expected 0x" << expected;
  }
  EXPECT_EQ(mismatches, 0u);
  for (std::size_t start = 0; start < 4; ++start)
    for (std::size_t length = 0; length <= 19 && start + length <= values.size(); ++length) {
      std::vector<std::uint16_t> part(length + 1, 0xbeef);
      encode_halves(values.data() + start, length, part.data());
      for (std::size_t i = 0; i < length; ++i)
        ASSERT_EQ(part[i], half_bits(values[start + i])) << "start " << start << ", length " << length;
      EXPECT_EQ(part[length], 0xbeef) << "start " << start << ", length " << length;
    }
}

TEST(RowEncoding, HalvesEqualHalfBitsAcrossTheFloats) {
  // Without F16C both sides are half_bits: the test then checks only the loop around it.
  RecordProperty("halves_in_hardware", halves_in_hardware() ? "yes" : "no");
  if (!halves_in_hardware()) std::printf("note: this processor has no F16C; encode_halves is half_bits here\n");
  std::vector<std::uint32_t> patterns;
  // Every sign, exponent and a spread of mantissas: 2^32 / 65521 patterns, a prime stride.
  for (std::uint64_t x = 0; x <= 0xffffffffu; x += 65521) patterns.push_back(static_cast<std::uint32_t>(x));
  // Densely where rounding decides: the subnormal halves, the top of the range, each side of
  // zero, and the 13 dropped bits of a normal half in full (every tie and its neighbours).
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t x = 0x32f00000u; x < 0x38900000u; x += 61) patterns.push_back(sign | x);
    for (std::uint32_t x = 0x477fe000u; x < 0x47801000u; ++x) patterns.push_back(sign | x);
    for (std::uint32_t x = 0x3f800000u; x < 0x3f804000u; ++x) patterns.push_back(sign | x);
    for (std::uint32_t x = 0x7f800000u; x < 0x7f800010u; ++x) patterns.push_back(sign | x);  // inf, NaNs
    for (std::uint32_t x = 0x7fffe000u; x <= 0x7fffffffu; x += 7) patterns.push_back(sign | x);
  }
  expect_halves_match(patterns);
}

// std::lround's rounding (half away from zero), clamped to 0..255, NaN to 0: the sink's rule
// before encode_levels vectorised it.
std::uint8_t reference_level(float value, double zero_db, double step) {
  const double level = (static_cast<double>(value) - zero_db) * (1.0 / step);
  return level >= 255.0 ? 255 : level > 0.0 ? static_cast<std::uint8_t>(std::lround(level)) : 0;
}

TEST(RowEncoding, LevelsRoundHalfAwayFromZeroAndClamp) {
  RecordProperty("levels_in_avx2", levels_in_avx2() ? "yes" : "no");
  if (!levels_in_avx2()) std::printf("note: this processor has no AVX2; encode_levels runs its SSE2 or scalar loop\n");
  for (const auto& [zero_db, step] : {std::pair{-120.0, 0.5}, std::pair{-90.0, 80.0 / 255.0}, std::pair{0.0, 1.0}}) {
    std::vector<float> values;
    // At, just below and just above every half step of the range, and past both ends.
    for (int k = -3; k <= 258; ++k) {
      const float at = static_cast<float>(zero_db + (k + 0.5) * step);
      values.insert(values.end(), {at, std::nextafter(at, -1e30f), std::nextafter(at, 1e30f),
                                   static_cast<float>(zero_db + k * step)});
    }
    std::mt19937 random(7);
    std::uniform_real_distribution<float> spread(static_cast<float>(zero_db - 10 * step),
                                                 static_cast<float>(zero_db + 265 * step));
    for (int i = 0; i < 10000; ++i) values.push_back(spread(random));
    values.insert(values.end(), {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), 3e38f, -3e38f});
    std::vector<std::uint8_t> levels(values.size() + 1, 0xa5);
    encode_levels(values.data(), values.size(), zero_db, step, levels.data());
    EXPECT_EQ(levels.back(), 0xa5) << "wrote past the end";
    for (std::size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(int{levels[i]}, int{reference_level(values[i], zero_db, step)})
          << "value " << values[i] << ", zero " << zero_db << " dB, step " << step;
    // Every tail of the eight- and four-at-a-time loops, from unaligned starts.
    for (std::size_t start = 0; start < 8; ++start)
      for (std::size_t length = 0; length <= 27; ++length) {
        std::vector<std::uint8_t> part(length + 1, 0x5a);
        encode_levels(values.data() + start, length, zero_db, step, part.data());
        for (std::size_t i = 0; i < length; ++i)
          ASSERT_EQ(int{part[i]}, int{reference_level(values[start + i], zero_db, step)})
              << "start " << start << ", length " << length;
        EXPECT_EQ(part[length], 0x5a) << "start " << start << ", length " << length;
      }
  }
}

}  // namespace
}  // namespace prism
