// Self-describing settings (see settings.hpp): parsing, range checks and help text.
#include "pipeline/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"

namespace prism {

namespace {

std::string trim(std::string_view text) {
  std::size_t a = 0, b = text.size();
  while (a < b && (text[a] == ' ' || text[a] == '\t')) ++a;
  while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  return std::string(text.substr(a, b - a));
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  std::int64_t value = 0;
  const char* begin = t.data() + (t[0] == '+' ? 1 : 0);
  const auto [end, status] = std::from_chars(begin, t.data() + t.size(), value);
  if (status != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(std::string_view text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

namespace {
Setting declared(std::string key, SettingType type, std::string default_value, std::string help) {
  Setting s;
  s.key = std::move(key);
  s.type = type;
  s.default_value = std::move(default_value);
  s.help = std::move(help);
  return s;
}
}  // namespace

Setting integer_setting(std::string key, std::string default_value, double min, double max, std::string value_help,
                        std::string help) {
  Setting s = declared(std::move(key), SettingType::integer, std::move(default_value), std::move(help));
  s.min = min;
  s.max = max;
  s.value_help = std::move(value_help);
  return s;
}

Setting number_setting(std::string key, std::string default_value, double min, double max, std::string value_help,
                       std::string help) {
  Setting s = integer_setting(std::move(key), std::move(default_value), min, max, std::move(value_help), std::move(help));
  s.type = SettingType::number;
  return s;
}

Setting text_setting(std::string key, std::string default_value, std::string value_help, std::string help) {
  Setting s = declared(std::move(key), SettingType::text, std::move(default_value), std::move(help));
  s.value_help = std::move(value_help);
  return s;
}

Setting choice_setting(std::string key, std::string default_value, std::vector<std::string> choices, std::string help) {
  Setting s = declared(std::move(key), SettingType::choice, std::move(default_value), std::move(help));
  s.choices = std::move(choices);
  return s;
}

Setting flag_setting(std::string key, std::string help) {
  return declared(std::move(key), SettingType::flag, "false", std::move(help));
}

std::string Setting::option() const {
  std::string name = "--" + key;
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string Setting::range_text() const {
  switch (type) {
    case SettingType::choice: {
      std::string text;
      for (const std::string& c : choices) text += (text.empty() ? "" : "|") + c;
      return text;
    }
    case SettingType::integer:
    case SettingType::number: {
      const bool low = std::isfinite(min), high = std::isfinite(max);
      if (low && high) return number_text(min) + ".." + number_text(max);
      if (low) return ">= " + number_text(min);
      if (high) return "<= " + number_text(max);
      return "";
    }
    case SettingType::flag: return "true|false";
    case SettingType::text: return "";
  }
  return "";
}

std::string Setting::default_text() const { return default_value.empty() ? default_help : default_value; }

std::string SettingNaming::name(const std::string& key) const {
  Setting s;
  s.key = key;
  return about(options ? s.option() : key);
}
std::string SettingNaming::about(const std::string& text) const {
  return context.empty() ? text : context + ": " + text;
}
SettingNaming name_as_option() { return {"", true}; }
SettingNaming name_in_stage(const std::string& stage) { return {stage, false}; }
SettingNaming name_as_key() { return {"", false}; }
KeyNamer plain_key_names() {
  return [](std::string_view key) { return std::string(key); };
}

SettingValues::SettingValues(const std::vector<Setting>& declared, const std::map<std::string, std::string>& given,
                             const SettingNaming& naming)
    : declared_(declared), naming_(naming) {
  const auto namer = [&](const Setting& s) { return naming_.name(s.key); };
  for (const Setting& s : declared_) {
    if (!s.default_value.empty()) values_[s.key] = s.default_value;
    given_[s.key] = false;
  }
  for (const auto& [raw_key, value] : given) {
    std::string key = raw_key;
    std::replace(key.begin(), key.end(), '-', '_');
    const auto it = std::find_if(declared_.begin(), declared_.end(), [&](const Setting& s) { return s.key == key; });
    if (it == declared_.end()) {
      Setting unknown;
      unknown.key = raw_key;
      std::string message = namer(unknown) + ": no such setting";
      const Setting* nearest = nullptr;
      std::size_t best = 3;  // suggest only close misspellings
      for (const Setting& s : declared_) {
        const std::size_t d = edit_distance(key, s.key);
        if (d < best) {
          best = d;
          nearest = &s;
        }
      }
      if (nearest != nullptr) message += "; did you mean " + namer(*nearest) + "?";
      std::string keys;
      for (const Setting& s : declared_) keys += (keys.empty() ? "" : ", ") + s.key;
      throw UsageError(message + (keys.empty() ? " (it takes no settings)" : " (settings: " + keys + ")"));
    }
    const Setting& s = *it;
    const std::string name = namer(s);
    const std::string v = trim(value);
    switch (s.type) {
      case SettingType::integer: {
        const std::optional<std::int64_t> n = parse_integer(v);
        if (!n) throw UsageError(name + ": '" + printable(value) + "' is not a whole number" +
                                 (s.range_text().empty() ? "" : " (" + s.range_text() + ")"));
        if (static_cast<double>(*n) < s.min || static_cast<double>(*n) > s.max)
          throw UsageError(name + ": " + std::to_string(*n) + " is out of range (" + s.range_text() + ")");
        values_[s.key] = std::to_string(*n);
        break;
      }
      case SettingType::number: {
        const std::optional<double> n = parse_number(v);
        if (!n) throw UsageError(name + ": '" + printable(value) + "' is not a finite number");
        if (*n < s.min || *n > s.max)
          throw UsageError(name + ": " + number_text(*n) + " is out of range (" + s.range_text() + ")");
        values_[s.key] = v;
        break;
      }
      case SettingType::choice:
        if (std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end())
          throw UsageError(name + ": '" + printable(value) + "' is not one of " + s.range_text());
        values_[s.key] = v;
        break;
      case SettingType::flag:
        if (v.empty() || v == "true" || v == "1" || v == "yes" || v == "on") values_[s.key] = "true";
        else if (v == "false" || v == "0" || v == "no" || v == "off") values_[s.key] = "false";
        else throw UsageError(name + ": '" + printable(value) + "' is not true or false");
        break;
      case SettingType::text:
        values_[s.key] = v;
        break;
    }
    given_[s.key] = true;
  }
}

const Setting& SettingValues::find(std::string_view key) const {
  for (const Setting& s : declared_)
    if (s.key == key) return s;
  throw std::logic_error("no setting '" + std::string(key) + "' is declared");
}

bool SettingValues::given(std::string_view key) const {
  find(key);
  return given_.find(key)->second;
}

std::optional<std::int64_t> SettingValues::integer_if_set(std::string_view key) const {
  find(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return parse_integer(it->second);
}

std::int64_t SettingValues::integer(std::string_view key) const {
  const std::optional<std::int64_t> v = integer_if_set(key);
  if (!v) throw std::logic_error("setting '" + std::string(key) + "' has no value");
  return *v;
}

std::optional<double> SettingValues::number_if_set(std::string_view key) const {
  find(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return parse_number(it->second);
}

double SettingValues::number(std::string_view key) const {
  const std::optional<double> v = number_if_set(key);
  if (!v) throw std::logic_error("setting '" + std::string(key) + "' has no value");
  return *v;
}

const std::string& SettingValues::text(std::string_view key) const {
  static const std::string empty;
  find(key);
  const auto it = values_.find(key);
  return it == values_.end() ? empty : it->second;
}

bool SettingValues::flag(std::string_view key) const { return text(key) == "true"; }

std::string SettingValues::name(std::string_view key) const {
  const Setting& s = find(key);
  return naming_.name(s.key);
}

std::string SettingValues::spelled(const std::vector<std::string>& keys) const {
  const SettingNaming bare{"", naming_.options};
  std::string text;
  for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + bare.name(key);
  return text;
}

KeyNamer SettingValues::namer() const {
  return [values = *this](std::string_view key) { return values.name(key); };
}

std::map<std::string, std::string> split_key_values(std::string_view text, const std::string& context) {
  std::map<std::string, std::string> pairs;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (trim(item).empty()) {
      if (comma == text.size()) break;
      throw UsageError(context + ": an empty setting between commas in '" + printable(text) + "'");
    }
    const std::size_t equals = item.find('=');
    const std::string key = trim(item.substr(0, equals));
    const std::string value = equals == std::string_view::npos ? "" : std::string(item.substr(equals + 1));
    if (key.empty()) throw UsageError(context + ": a setting without a name in '" + printable(text) + "'");
    if (!pairs.emplace(key, value).second) throw UsageError(context + ": '" + key + "' is given twice");
  }
  return pairs;
}

std::string settings_help(const std::vector<Setting>& declared, bool as_options) {
  std::ostringstream out;
  for (const Setting& s : declared) {
    std::string form = as_options ? s.option() : s.key;
    if (s.type != SettingType::flag) form += (as_options ? " " : "=") + (s.value_help.empty() ? std::string("VALUE") : s.value_help);
    out << "  " << form;
    if (form.size() < 26) out << std::string(26 - form.size(), ' ');
    else out << "\n" << std::string(28, ' ');
    out << s.help;
    const std::string range = s.range_text();
    const std::string def = s.default_text();
    if (!range.empty() && s.type != SettingType::flag) out << " [" << range << "]";
    if (!def.empty()) out << " (default " << def << ")";
    out << "\n";
  }
  return out.str();
}

}  // namespace prism
