// Tests of the ISO 8601 date-time reader (pipeline/iso8601.hpp) that absolute time axes use.
#include <gtest/gtest.h>

#include "pipeline/iso8601.hpp"

namespace prism {
namespace {

TEST(Iso8601, ReadsSigmfDatetimesAsSecondsSince1970) {
  EXPECT_EQ(iso8601_epoch_seconds("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(iso8601_epoch_seconds("2024-05-01T12:00:00Z"), 1714564800.0);
  EXPECT_DOUBLE_EQ(*iso8601_epoch_seconds("2024-05-01T12:00:00.25Z"), 1714564800.25);
  // An offset: 14:00 at +02:00 is 12:00 UTC.
  EXPECT_EQ(iso8601_epoch_seconds("2024-05-01T14:00:00+02:00"), 1714564800.0);
  EXPECT_EQ(iso8601_epoch_seconds("2024-05-01T11:30:00-0030"), 1714564800.0);
  EXPECT_EQ(iso8601_epoch_seconds("2024-05-01 12:00:00"), 1714564800.0);  // no zone: UTC
  EXPECT_EQ(iso8601_epoch_seconds("2000-02-29T00:00:00Z"), 951782400.0);  // a leap day
}

TEST(Iso8601, RefusesOtherText) {
  for (const char* bad : {"", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z",
                          "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Zjunk", "24-05-01T12:00:00Z",
                          "2024-05-01T12:00:00+25:00", "yesterday"})
    EXPECT_FALSE(iso8601_epoch_seconds(bad).has_value()) << bad;
}

TEST(Iso8601, WholeSecondsApartAndBackToText) {
  const std::optional<UnixTime> t = iso8601_unix_time("2024-05-01T14:00:00.25+02:00");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->seconds, 1714564800u);
  EXPECT_DOUBLE_EQ(t->fraction, 0.25);
  EXPECT_EQ(iso8601_text(*t), "2024-05-01T12:00:00.25Z");
  EXPECT_EQ(iso8601_text(*t, 2.75), "2024-05-01T12:00:03Z");       // the fraction carries
  EXPECT_EQ(iso8601_text(*t, -0.5), "2024-05-01T11:59:59.75Z");    // and borrows
  EXPECT_EQ(iso8601_text(UnixTime{0, 0.0}, -1.0), "");              // before 1970
  EXPECT_FALSE(iso8601_unix_time("1969-12-31T23:59:59Z").has_value());
}

}  // namespace
}  // namespace prism
