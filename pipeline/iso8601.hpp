// ISO 8601 date-times as SigMF's core:datetime writes them ("2024-05-01T12:00:00.25Z", an offset
// "+02:00" instead of Z): read into seconds since 1970-01-01T00:00:00 UTC (absolute time axes,
// GNU Radio's rx_time tags) and written back (a stream that starts later than its recording).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace prism {

// UTC time as GNU Radio's rx_time carries it: whole seconds since 1970 kept apart from the
// fraction, so that the years of seconds do not eat the fraction's precision.
struct UnixTime {
  std::uint64_t seconds = 0;
  double fraction = 0;  // [0, 1)
};

// YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM), a space allowed for the T, no zone read as UTC.
// nullopt for any other text and for fields out of range (month 13, second 61).
std::optional<double> iso8601_epoch_seconds(std::string_view text);

// The same reading as UnixTime; nullopt also for times before 1970.
std::optional<UnixTime> iso8601_unix_time(std::string_view text);

// "YYYY-MM-DDTHH:MM:SS[.fraction]Z" of `time` plus `later` seconds (which may be negative), the
// fraction to the nanosecond without trailing zeros; empty when the sum falls before 1970.
std::string iso8601_text(const UnixTime& time, double later = 0);

}  // namespace prism
