// Range checks for numeric options and suggestions for mistyped ones (see option_checks.hpp).
#include "apps/option_checks.hpp"

#include <cmath>

#include "pipeline/errors.hpp"
#include "pipeline/settings.hpp"

namespace prism::app {

std::string range_text(double min, double max, bool min_exclusive) {
  Setting s;
  s.type = SettingType::number;
  s.min = min;
  s.max = max;
  std::string text = s.range_text();
  if (min_exclusive && text.rfind(">= ", 0) == 0) text.replace(0, 2, ">");
  return text;
}

namespace {

void append_range(CLI::Option* option, const std::string& range) {
  if (range.empty()) return;
  std::string help = option->get_description();
  // Before a trailing "[default: ...]", so that it stays last where --help readers look for it.
  const std::size_t default_at = help.rfind(" [default: ");
  const std::string text = " [" + range + "]";
  if (default_at == std::string::npos) help += text;
  else help.insert(default_at, text);
  option->description(help);
}

}  // namespace

CLI::Option* whole_number_in(CLI::Option* option, std::int64_t min, std::int64_t max) {
  const std::string range = range_text(static_cast<double>(min), static_cast<double>(max));
  option->check(CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const std::optional<std::int64_t> value = parse_integer(text);
        if (!value) return "'" + printable(text) + "' is not a whole number (" + range + ")";
        if (*value < min || *value > max) return std::to_string(*value) + " is out of range (" + range + ")";
        return {};
      },
      ""));
  append_range(option, range);
  return option;
}

CLI::Option* finite_number_in(CLI::Option* option, double min, double max, bool min_exclusive) {
  const std::string range = range_text(min, max, min_exclusive);
  option->check(CLI::Validator(
      [min, max, min_exclusive, range](std::string& text) -> std::string {
        const std::optional<double> value = parse_number(text);
        if (!value) return "'" + printable(text) + "' is not a finite number" + (range.empty() ? "" : " (" + range + ")");
        const bool below = min_exclusive ? !(*value > min) : *value < min;
        if (below || *value > max) return "'" + printable(text) + "' is out of range (" + range + ")";
        return {};
      },
      ""));
  append_range(option, range);
  return option;
}

std::optional<std::string> suggest_option(const CLI::App& command, const std::vector<std::string>& unexpected) {
  for (const std::string& word : unexpected) {
    if (word.size() < 3 || word.rfind("--", 0) != 0) continue;
    const std::string name = word.substr(0, word.find('='));
    std::string best;
    std::size_t best_distance = 3;  // suggest only close misspellings
    for (const CLI::Option* option : command.get_options()) {
      for (const std::string& long_name : option->get_lnames()) {
        const std::size_t d = edit_distance(name, "--" + long_name);
        if (d < best_distance) {
          best_distance = d;
          best = "--" + long_name;
        }
      }
    }
    if (!best.empty()) return printable(name) + ": no such option; did you mean " + best + "?";
  }
  return std::nullopt;
}

}  // namespace prism::app
