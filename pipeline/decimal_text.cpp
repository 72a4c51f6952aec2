// Decimal text of a double that reads back as the same double (see decimal_text.hpp).
#include "pipeline/decimal_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

namespace prism {

namespace {

// Appends the shortest text of `value`; returns it (a view into `text`).
std::string_view append_shortest(std::string& text, double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  const auto length = static_cast<std::size_t>(result.ptr - buffer.data());
  text.append(buffer.data(), length);
  return std::string_view(text).substr(text.size() - length);
}

}  // namespace

std::string number_text(double value) {
  if (std::abs(value) < 1e15 && value == std::trunc(value)) return std::to_string(static_cast<long long>(value));
  return shortest_decimal(value);
}

std::string shortest_decimal(double value) {
  std::string text;
  append_shortest(text, value);
  return text;
}

void append_python_float(std::string& text, double value) {
  if (append_shortest(text, value).find_first_of(".en") == std::string_view::npos) text += ".0";
}

std::string python_float(double value) {
  std::string text;
  append_python_float(text, value);
  return text;
}

}  // namespace prism
