// Settings that describe themselves: a stage declares each of its settings once (key, type,
// default, range, help), and from that one declaration come `prism COMMAND --help`, `prism
// stages`, the parsing of `KEY=VALUE` stage specs and of command-line options, and the messages
// for bad values, which name the setting the way its user wrote it (`--nperseg` on the command
// line, `spectrogram: nperseg` in a chain, `nperseg` through the API).
//
// Values are checked when they are parsed, before anything is allocated: an integer is a whole
// number in its range (never wrapped around), a number is finite and in its range, a choice is
// one of its choices.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace prism {

enum class SettingType { integer, number, text, choice, flag };

struct Setting {
  std::string key;  // lower case, words joined by '_' ("integer_scale"); options use '-'
  SettingType type = SettingType::text;
  std::string default_value;  // as text; empty when the default depends on other settings
  std::string default_help;   // that dependency in words ("nperseg/8"), shown instead
  double min = -std::numeric_limits<double>::infinity();  // integer and number ranges, inclusive
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // type choice
  std::string value_help;            // the value's form where it is not obvious: "NAME[:P]", "K[:mean|max]"
  std::string help;

  // "--integer-scale": the command-line option that sets it.
  std::string option() const;
  // The default depends on other settings: said in words instead of a value.
  Setting& default_depends(std::string words) {
    default_value.clear();
    default_help = std::move(words);
    return *this;
  }
  // "1..16777216", "mean|max", ">= 0" ...: the range in words (empty when any value goes).
  std::string range_text() const;
  // "256", or the default_help ("nperseg/8"), or "" for none.
  std::string default_text() const;
};

// Declarations, one per type: key, default (as text), range or choices, the value's form, help.
Setting integer_setting(std::string key, std::string default_value, double min, double max, std::string value_help,
                        std::string help);
Setting number_setting(std::string key, std::string default_value, double min, double max, std::string value_help,
                       std::string help);
Setting text_setting(std::string key, std::string default_value, std::string value_help, std::string help);
Setting choice_setting(std::string key, std::string default_value, std::vector<std::string> choices, std::string help);
Setting flag_setting(std::string key, std::string help);

// How messages name settings (see the top of this file): as options or keys, and in the
// context of a stage or not.
struct SettingNaming {
  std::string context;   // "spectrogram" in a chain, empty otherwise
  bool options = false;  // "--nperseg" rather than "nperseg"
  // "--nperseg", "spectrogram: nperseg", "nperseg".
  std::string name(const std::string& key) const;
  // A message about the settings as a whole: "spectrogram: <text>" in a chain, else the text.
  std::string about(const std::string& text) const;
};
SettingNaming name_as_option();                         // "--nperseg"
SettingNaming name_in_stage(const std::string& stage);  // "spectrogram: nperseg"
SettingNaming name_as_key();                            // "nperseg"
// The same, by key, for checks made outside SettingValues (a parameter struct's validate()).
using KeyNamer = std::function<std::string(std::string_view key)>;
KeyNamer plain_key_names();  // the key itself

// Parsed, checked values of one stage's settings; unset settings read their default.
class SettingValues {
 public:
  SettingValues() = default;
  // `given`: KEY -> VALUE text as written (flags: "true"/"false", or "" for true). Throws
  // UsageError naming the setting (through `namer`) for an unknown key (suggesting the nearest
  // one), a malformed value or one out of range.
  SettingValues(const std::vector<Setting>& declared, const std::map<std::string, std::string>& given,
                const SettingNaming& naming);

  bool given(std::string_view key) const;  // set explicitly, not by its default
  std::int64_t integer(std::string_view key) const;
  double number(std::string_view key) const;
  const std::string& text(std::string_view key) const;  // text and choice
  bool flag(std::string_view key) const;
  // The value when given or defaulted; nullopt when neither (a default that depends on others).
  std::optional<std::int64_t> integer_if_set(std::string_view key) const;
  std::optional<double> number_if_set(std::string_view key) const;

  // Names `key` the way this set was written, for messages of the stage's own checks.
  std::string name(std::string_view key) const;
  // The keys as they are written, without the stage's name: "--lowpass, --highpass" or
  // "lowpass, highpass".
  std::string spelled(const std::vector<std::string>& keys) const;
  // A message about the settings as a whole, in the stage's context.
  std::string about(const std::string& text) const { return naming_.about(text); }
  KeyNamer namer() const;
  const std::vector<Setting>& declared() const { return declared_; }

 private:
  const Setting& find(std::string_view key) const;
  std::vector<Setting> declared_;
  std::map<std::string, std::string, std::less<>> values_;  // given or default, as text
  std::map<std::string, bool, std::less<>> given_;
  SettingNaming naming_;
};

// Splits "KEY=VALUE,KEY=VALUE,FLAG" (a stage spec's part after the colon) into pairs; a bare
// word is a flag set to true. Values may not contain ','. Throws UsageError for an empty key or
// a key given twice, naming `context`.
std::map<std::string, std::string> split_key_values(std::string_view text, const std::string& context);

// The declarations as help text: one line per setting, "  KEY=VALUE  default D  RANGE  help".
std::string settings_help(const std::vector<Setting>& declared, bool as_options);

// Parses a whole number; nullopt for anything else ("-5" is a number: ranges are the caller's).
std::optional<std::int64_t> parse_integer(std::string_view text);
// Parses a finite number (decimal or scientific); nullopt for anything else.
std::optional<double> parse_number(std::string_view text);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace prism
