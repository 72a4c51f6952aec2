// ViewSettings: validation, JSON, the config file and scripts (see view_settings.hpp).
#include "gui/view_settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "gui/channel_receiver.hpp"
#include "sinks/colormap.hpp"

namespace prism::view {

using json = nlohmann::json;

void ViewSettings::validate(const KeyNamer& name) const {
  if (fft_size < kMinFftSize || fft_size > kMaxFftSize)
    throw UsageError(name("fft_size") + " " + std::to_string(fft_size) + " is out of range [256, 1048576]");
  try {
    (void)parse_window(window);
  } catch (const UsageError& e) {
    throw UsageError(name("window") + ": " + e.what());
  }
  if (!(overlap >= 0.0 && overlap <= 0.95))
    throw UsageError(name("overlap") + " " + number_text(overlap) + " is out of range [0, 0.95]");
  if (!(averaging_s >= 0.0 && averaging_s <= 3600.0))
    throw UsageError(name("averaging_s") + " must be in [0, 3600] seconds");
  if (!(hold_decay_db_per_s >= 0.0 && std::isfinite(hold_decay_db_per_s)))
    throw UsageError(name("hold_decay_db_per_s") + " must be a finite number >= 0");
  if (!(std::isfinite(db_min) && std::isfinite(db_max) && db_min < db_max))
    throw UsageError(name("db_min") == name("db_max")
                         ? name("db_min") + " needs finite MIN < MAX"
                         : "the dB range needs finite " + name("db_min") + " < " + name("db_max"));
  if (find_colormap(colormap) == nullptr)
    throw UsageError(name("colormap") + " '" + colormap + "' is unknown (known: " + colormap_names_help() + ")");
  if (!(lines_per_second >= 1.0 && lines_per_second <= 10000.0))
    throw UsageError(name("lines_per_second") + " must be in [1, 10000]");
  if (!(speed >= 0.0 && std::isfinite(speed)))
    throw UsageError(name("speed") + " must be >= 0 (0 = as fast as possible)");
  if (view_low_hz && view_high_hz && !(*view_low_hz < *view_high_hz))
    throw UsageError(name("view_low_hz") == name("view_high_hz")
                         ? name("view_low_hz") + " needs LOW < HIGH"
                         : "the frequency view needs " + name("view_low_hz") + " < " + name("view_high_hz"));
  if (view_band_low_hz && view_band_high_hz && !(*view_band_low_hz < *view_band_high_hz))
    throw UsageError("the zoom's band needs " + name("view_band_low_hz") + " < " + name("view_band_high_hz"));
  if (listen_hz && !std::isfinite(*listen_hz)) throw UsageError(name("listen_hz") + " must be a finite frequency");
  if (!(listen_bandwidth_hz > 0 && std::isfinite(listen_bandwidth_hz)))
    throw UsageError(name("listen_bandwidth_hz") + " must be a finite number > 0");
  if (!parse_demodulation(demodulator))
    throw UsageError(name("demodulator") + " '" + demodulator + "' is unknown (known: " + demodulation_names_help() +
                     ")");
  if (!(volume_db >= -60.0 && volume_db <= 40.0)) throw UsageError(name("volume_db") + " must be in [-60, 40] dB");
  if (squelch_db && !(*squelch_db >= -200.0 && *squelch_db <= 0.0))
    throw UsageError(name("squelch_db") + " must be in [-200, 0] dB (or null: open)");
}

namespace {

// The JSON of the settings: kept here, so that the header needs no JSON library.
json settings_json(const ViewSettings& s) {
  json j = {{"fft_size", s.fft_size},
            {"window", s.window},
            {"overlap", s.overlap},
            {"channel", s.channel},
            {"averaging_s", s.averaging_s},
            {"peak_hold", s.peak_hold},
            {"min_hold", s.min_hold},
            {"hold_decay_db_per_s", s.hold_decay_db_per_s},
            {"db_min", s.db_min},
            {"db_max", s.db_max},
            {"colormap", s.colormap},
            {"lines_per_second", s.lines_per_second},
            {"speed", s.speed},
            {"loop", s.loop},
            {"listen", s.listen},
            {"listen_bandwidth_hz", s.listen_bandwidth_hz},
            {"demodulator", s.demodulator},
            {"volume_db", s.volume_db},
            {"mute", s.mute}};
  j["listen_hz"] = s.listen_hz ? json(*s.listen_hz) : json(nullptr);
  j["squelch_db"] = s.squelch_db ? json(*s.squelch_db) : json(nullptr);
  j["view_low_hz"] = s.view_low_hz ? json(*s.view_low_hz) : json(nullptr);
  j["view_high_hz"] = s.view_high_hz ? json(*s.view_high_hz) : json(nullptr);
  j["view_band_low_hz"] = s.view_band_low_hz ? json(*s.view_band_low_hz) : json(nullptr);
  j["view_band_high_hz"] = s.view_band_high_hz ? json(*s.view_band_high_hz) : json(nullptr);
  return j;
}

// A JSON value as a whole number of type T: an integer within T's range. A fraction, or a
// number T cannot hold, is no such value (nlohmann's get<T>() would truncate or wrap it).
template <typename T>
std::optional<T> whole_number(const json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
    return static_cast<T>(v);
  }
  if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    if (v < 0 && !std::numeric_limits<T>::is_signed) return std::nullopt;
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (v > 0 && static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      return std::nullopt;
    return static_cast<T>(v);
  }
  return std::nullopt;
}

template <typename T>
T whole_number_setting(const json& value, const std::string& where, const std::string& key) {
  const auto v = whole_number<T>(value);
  if (!v)
    throw UsageError(where + ": '" + key + "' must be a whole number from " +
                     std::to_string(std::numeric_limits<T>::min()) + " to " +
                     std::to_string(std::numeric_limits<T>::max()) + " (found " + value.dump() + ")");
  return *v;
}

// Applies the keys of the JSON object `j` onto `settings` (see apply_json_text).
void apply_settings_object(ViewSettings& settings, const json& j, const std::string& where,
                           std::vector<std::string>* unknown) {
  if (!j.is_object()) throw UsageError(where + ": settings must be a JSON object");
  ViewSettings next = settings;
  for (const auto& [key, value] : j.items()) {
    try {
      if (key == "fft_size") next.fft_size = whole_number_setting<std::size_t>(value, where, key);
      else if (key == "window") next.window = value.get<std::string>();
      else if (key == "overlap") next.overlap = value.get<double>();
      else if (key == "channel") next.channel = whole_number_setting<unsigned>(value, where, key);
      else if (key == "averaging_s") next.averaging_s = value.get<double>();
      else if (key == "peak_hold") next.peak_hold = value.get<bool>();
      else if (key == "min_hold") next.min_hold = value.get<bool>();
      else if (key == "hold_decay_db_per_s") next.hold_decay_db_per_s = value.get<double>();
      else if (key == "db_min") next.db_min = value.get<double>();
      else if (key == "db_max") next.db_max = value.get<double>();
      else if (key == "colormap") next.colormap = value.get<std::string>();
      else if (key == "lines_per_second") next.lines_per_second = value.get<double>();
      else if (key == "speed") next.speed = value.get<double>();
      else if (key == "loop") next.loop = value.get<bool>();
      else if (key == "listen") next.listen = value.get<bool>();
      else if (key == "listen_hz")
        next.listen_hz = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (key == "listen_bandwidth_hz") next.listen_bandwidth_hz = value.get<double>();
      else if (key == "demodulator") next.demodulator = value.get<std::string>();
      else if (key == "volume_db") next.volume_db = value.get<double>();
      else if (key == "mute") next.mute = value.get<bool>();
      else if (key == "squelch_db")
        next.squelch_db = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (key == "view_low_hz")
        next.view_low_hz = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (key == "view_high_hz")
        next.view_high_hz = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (key == "view_band_low_hz")
        next.view_band_low_hz = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (key == "view_band_high_hz")
        next.view_band_high_hz = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
      else if (unknown != nullptr) unknown->push_back(key);
    } catch (const json::exception& e) {
      throw UsageError(where + ": '" + key + "' has the wrong type (" + value.dump() + ")");
    }
  }
  try {
    next.validate();
  } catch (const UsageError& e) {
    throw UsageError(where + ": " + e.what());
  }
  settings = next;
}

}  // namespace

std::string ViewSettings::to_json_text(int indent) const { return settings_json(*this).dump(indent); }

void ViewSettings::apply_json_text(const std::string& text, const std::string& where,
                                   std::vector<std::string>* unknown) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(where + ": the settings are not valid JSON: " + e.what());
  }
  apply_settings_object(*this, j, where, unknown);
}

bool ViewSettings::processing_differs(const ViewSettings& o) const {
  return fft_size != o.fft_size || window != o.window || overlap != o.overlap || channel != o.channel;
}

void ViewSettings::keep_zoom_for_band(double low_hz, double high_hz) {
  const double tolerance = 1e-9 * std::max({std::abs(low_hz), std::abs(high_hz), 1.0});
  const bool same_band = view_band_low_hz && view_band_high_hz && std::abs(*view_band_low_hz - low_hz) <= tolerance &&
                         std::abs(*view_band_high_hz - high_hz) <= tolerance;
  if (!same_band) {
    view_low_hz.reset();
    view_high_hz.reset();
  }
  view_band_low_hz = low_hz;
  view_band_high_hz = high_hz;
}

std::pair<double, double> input_band(double sample_rate, double center_frequency, bool complex_samples) {
  if (complex_samples) return {center_frequency - sample_rate / 2, center_frequency + sample_rate / 2};
  return {center_frequency, center_frequency + sample_rate / 2};
}

KeyNamer view_option_names() {
  return [](std::string_view key) -> std::string {
    static const std::pair<std::string_view, std::string_view> options[] = {
        {"fft_size", "--fft-size"},        {"window", "--window"},
        {"overlap", "--overlap"},          {"channel", "--channel"},
        {"averaging_s", "--averaging"},    {"peak_hold", "--peak-hold"},
        {"min_hold", "--min-hold"},        {"hold_decay_db_per_s", "--hold-decay"},
        {"db_min", "--db-range"},          {"db_max", "--db-range"},
        {"colormap", "--colormap"},        {"lines_per_second", "--lines-per-second"},
        {"speed", "--speed"},              {"loop", "--loop"},
        {"view_low_hz", "--frequency-range"}, {"view_high_hz", "--frequency-range"},
        {"listen_hz", "--listen"},         {"listen_bandwidth_hz", "--listen-bandwidth"},
        {"demodulator", "--demodulator"},  {"volume_db", "--volume"}};
    for (const auto& [k, option] : options)
      if (k == key) return std::string(option);
    return std::string(key);
  };
}

std::string default_config_path() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/prism/view.json";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.config/prism/view.json";
  return {};
}

void apply_settings_text(const std::string& text, const std::string& path, ViewSettings& settings,
                         std::vector<std::string>* unknown) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(path, std::string("is not valid JSON: ") + e.what());
  }
  apply_settings_object(settings, j, path, unknown);
}

bool load_settings_file(const std::string& path, ViewSettings& settings) {
  std::ifstream in(path);
  if (!in) return false;
  try {
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<std::string> unknown;
    apply_settings_text(text.str(), path, settings, &unknown);
    for (const auto& key : unknown)
      std::fprintf(stderr, "prism view: %s: ignoring the unknown setting '%s'\n", path.c_str(),
                   printable(key).c_str());
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prism view: ignoring the settings in %s: %s\n", path.c_str(), e.what());
    return false;
  }
}

std::string save_settings_file(const std::string& path, const ViewSettings& settings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return path + ": cannot create its folder: " + ec.message();
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary);
    out << settings_json(settings).dump(2) << "\n";
    if (!out) return temporary + ": cannot write";
  }
  fs::rename(temporary, path, ec);
  if (ec) return path + ": cannot replace: " + ec.message();
  return {};
}

std::vector<ScriptStep> load_script(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the script");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "cannot read the script");
  return parse_script(text.str(), path);
}

std::vector<ScriptStep> parse_script(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(path, std::string("is not valid JSON: ") + e.what());
  }
  if (!j.is_array()) throw InputError(path, "a script is a JSON array of {\"frame\"|\"time_s\", \"set\"} steps");
  std::vector<ScriptStep> steps;
  for (const json& step : j) {
    ScriptStep s;
    if (!step.is_object() || !step.contains("set") || !step["set"].is_object())
      throw InputError(path, "each step needs \"set\": {...}: " + step.dump());
    if (step.contains("frame")) {
      s.frame = whole_number<long>(step["frame"]);
      if (!s.frame || *s.frame < 0)
        throw InputError(path, "a step's \"frame\" must be a whole number >= 0: " + step.dump());
    } else if (step.contains("time_s")) {
      const json& time = step["time_s"];
      if (!time.is_number() || !(time.get<double>() >= 0.0) || !std::isfinite(time.get<double>()))
        throw InputError(path, "a step's \"time_s\" must be a number of seconds >= 0: " + step.dump());
      s.time_s = time.get<double>();
    } else {
      throw InputError(path, "each step needs \"frame\" or \"time_s\": " + step.dump());
    }
    s.set = step["set"].dump();
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace prism::view
