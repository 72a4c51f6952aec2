// ISO 8601 date-times to seconds since 1970 (see iso8601.hpp).
#include "pipeline/iso8601.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <ctime>

namespace prism {

namespace {

// Reads exactly `digits` decimal digits at `pos`.
std::optional<int> digits_at(std::string_view text, std::size_t& pos, int digits) {
  if (pos + static_cast<std::size_t>(digits) > text.size()) return std::nullopt;
  int value = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = text[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(digits);
  return value;
}

bool expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

// Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// Seconds since 1970 (negative before), and the fraction apart.
struct ParsedTime {
  long long whole = 0;
  double fraction = 0;
};

std::optional<ParsedTime> parse(std::string_view text) {
  std::size_t pos = 0;
  const auto year = digits_at(text, pos, 4);
  if (!year || !expect(text, pos, '-')) return std::nullopt;
  const auto month = digits_at(text, pos, 2);
  if (!month || !expect(text, pos, '-')) return std::nullopt;
  const auto day = digits_at(text, pos, 2);
  if (!day || pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) return std::nullopt;
  ++pos;
  const auto hour = digits_at(text, pos, 2);
  if (!hour || !expect(text, pos, ':')) return std::nullopt;
  const auto minute = digits_at(text, pos, 2);
  if (!minute || !expect(text, pos, ':')) return std::nullopt;
  const auto second = digits_at(text, pos, 2);
  if (!second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  double fraction = 0.0;
  if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
    ++pos;
    double scale = 0.1;
    const std::size_t first = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      fraction += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == first) return std::nullopt;
  }
  int offset_seconds = 0;
  if (pos < text.size()) {
    if (text[pos] == 'Z' || text[pos] == 'z') {
      ++pos;
    } else if (text[pos] == '+' || text[pos] == '-') {
      const int sign = text[pos] == '-' ? -1 : 1;
      ++pos;
      const auto offset_hours = digits_at(text, pos, 2);
      if (!offset_hours) return std::nullopt;
      expect(text, pos, ':');
      const auto offset_minutes = digits_at(text, pos, 2);
      if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) return std::nullopt;
      offset_seconds = sign * (*offset_hours * 3600 + *offset_minutes * 60);
    }
  }
  if (pos != text.size()) return std::nullopt;
  const long long days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  return ParsedTime{days * 86400 + *hour * 3600 + *minute * 60 + *second - offset_seconds, fraction};
}

}  // namespace

std::optional<double> iso8601_epoch_seconds(std::string_view text) {
  const std::optional<ParsedTime> t = parse(text);
  if (!t) return std::nullopt;
  return static_cast<double>(t->whole) + t->fraction;
}

std::optional<UnixTime> iso8601_unix_time(std::string_view text) {
  const std::optional<ParsedTime> t = parse(text);
  if (!t || t->whole < 0) return std::nullopt;
  return UnixTime{static_cast<std::uint64_t>(t->whole), std::min(t->fraction, 0.999999999999)};
}

std::string iso8601_text(const UnixTime& time, double later) {
  const double shifted = time.fraction + later;
  const double whole = std::floor(shifted);
  const double signed_seconds = static_cast<double>(time.seconds) + whole;
  if (!(signed_seconds >= 0)) return {};
  auto seconds = static_cast<std::time_t>(signed_seconds);
  // Nanoseconds, rounded; a fraction that rounds up to 1 s carries.
  auto nanoseconds = static_cast<long long>(std::llround((shifted - whole) * 1e9));
  if (nanoseconds >= 1000000000LL) {
    ++seconds;
    nanoseconds -= 1000000000LL;
  }
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return {};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  std::string out = text;
  if (nanoseconds != 0) {
    char fraction[32];
    std::snprintf(fraction, sizeof fraction, ".%09lld", nanoseconds);
    std::string digits = fraction;
    while (digits.back() == '0') digits.pop_back();
    out += digits;
  }
  return out + "Z";
}

}  // namespace prism
