// ViewSettings: everything the user can set in `prism view` — processing (FFT size, window,
// overlap, channel), display (averaging, holds, dB range, colormap, lines per second, zoom),
// playback (speed, loop) and the channel listened to (gui/channel_listener.hpp). One struct, read from and written to a small JSON file so that
// settings persist between runs, and changed by the command line and by scripted settings
// files (tests, demos) with the same keys.
//
// Config file: $XDG_CONFIG_HOME/prism/view.json (else ~/.config/prism/view.json). Keys are the
// field names below; unknown keys are ignored with a warning, so old files keep working.
//
// Script file (--script): a JSON array of steps, each {"frame": N, "set": {KEY: VALUE, ...}}
// or {"time_s": T, "set": {...}}: the settings applied when the viewer reaches render frame N,
// or T seconds after it started.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../pipeline/settings.hpp"
#include "../pipeline/window.hpp"

namespace prism::view {

inline constexpr std::size_t kMinFftSize = 256;
inline constexpr std::size_t kMaxFftSize = std::size_t{1} << 20;

struct ViewSettings {
  // processing (a change restarts the processing with the new parameters)
  std::size_t fft_size = 4096;        // 256 ... 1M (any size; powers of two are fastest)
  std::string window = "hann";        // as --window of prism spectrogram
  double overlap = 0.5;               // fraction of a frame shared with the next, [0, 0.95]
  unsigned channel = 0;               // which channel of a multi-channel input
  // display
  double averaging_s = 0.0;           // exponential averaging time constant; 0 = off
  bool peak_hold = false;
  bool min_hold = false;
  double hold_decay_db_per_s = 10.0;  // how fast the held traces fall back
  double db_min = -120.0;
  double db_max = -20.0;
  std::string colormap = "viridis";
  double lines_per_second = 50.0;     // waterfall rows per second, >= 1 (the most it shows)
  std::optional<double> view_low_hz;  // frequency zoom (baseband Hz); unset = whole band
  std::optional<double> view_high_hz;
  // The band (axis Hz, centre frequency included) of the input the zoom belongs to: a saved
  // zoom applies to an input of that band only (keep_zoom_for_band).
  std::optional<double> view_band_low_hz;
  std::optional<double> view_band_high_hz;
  // playback of files and the generator
  double speed = 1.0;                 // 1, 2, 10 ... ; 0 = as fast as possible
  bool loop = true;
  // the channel listened to (no restart: the listener follows at once)
  bool listen = false;
  std::optional<double> listen_hz;    // carrier, as the frequency axis shows it (centre included);
                                      // unset: the band's middle
  double listen_bandwidth_hz = 10e3;  // the demodulation's range (channel_receiver.hpp)
  std::string demodulator = "am";     // am, nfm, wfm, usb, lsb, cw
  double volume_db = 0.0;             // [-60, 40]
  bool mute = false;
  std::optional<double> squelch_db;   // [-200, 0] dB re full scale; unset: open

  // Throws UsageError naming the setting through `name` when a value is out of range: the key
  // by default (view.json, scripts), the option on the command line (view_option_names).
  void validate(const KeyNamer& name = plain_key_names()) const;
  // The settings as a JSON object's text, as view.json holds them (indent < 0: one line).
  std::string to_json_text(int indent = -1) const;
  // Applies the keys present in the JSON object `text` (others keep their values). Throws
  // UsageError for text that is not a JSON object, a bad value or type, naming `where` and the
  // key; unknown keys go to *unknown when given.
  void apply_json_text(const std::string& text, const std::string& where,
                       std::vector<std::string>* unknown = nullptr);

  bool operator==(const ViewSettings&) const = default;

  // Whether the processing must restart to go from `other` to this.
  bool processing_differs(const ViewSettings& other) const;

  // For a viewer of an input whose band is [low_hz, high_hz] (axis Hz): drops a zoom that
  // belongs to another band (a zoom on speech means nothing on a radio recording) and records
  // this band as the zoom's.
  void keep_zoom_for_band(double low_hz, double high_hz);
};

// The band an input covers on the frequency axis: [fc, fc + fs/2] for real samples,
// [fc - fs/2, fc + fs/2] for complex ones.
std::pair<double, double> input_band(double sample_rate, double center_frequency, bool complex_samples);

// The settings as `prism view` takes them on its command line: "--fft-size" for fft_size, ...,
// "--db-range" for db_min and db_max; keys without an option are named as they are.
KeyNamer view_option_names();

// $XDG_CONFIG_HOME/prism/view.json, or ~/.config/prism/view.json; empty when neither is known.
std::string default_config_path();

// Loads `path` onto `settings`. A missing file is not an error (returns false); a broken one
// is reported on stderr and ignored (returns false), so a bad config never stops the viewer.
bool load_settings_file(const std::string& path, ViewSettings& settings);
// What load_settings_file does with the file's text, reporting instead of ignoring: applies the
// JSON `text` of the settings file `path` onto `settings`. Throws InputError when it is not
// JSON, UsageError (naming `path` and the key) for a bad value; the unknown keys go to *unknown.
void apply_settings_text(const std::string& text, const std::string& path, ViewSettings& settings,
                         std::vector<std::string>* unknown);
// Writes atomically (temporary file, rename). Returns an error text, empty on success.
std::string save_settings_file(const std::string& path, const ViewSettings& settings);

struct ScriptStep {
  std::optional<long> frame;
  std::optional<double> time_s;
  std::string set;  // the settings to apply: a JSON object's text (ViewSettings::apply_json_text)
};

// Reads a script file. Throws InputError (path and reason) when it cannot be read or parsed.
std::vector<ScriptStep> load_script(const std::string& path);
// Parses the text of the script file `path` (only named in errors). Throws InputError: not
// JSON, not an array of steps, a step without "set": {...}, a "frame" that is not a whole number
// >= 0 or a "time_s" that is not a finite number >= 0. The "set" objects are checked when they
// are applied (ViewSettings::apply_json_text).
std::vector<ScriptStep> parse_script(const std::string& text, const std::string& path);

}  // namespace prism::view
