// Fuzz target: the viewer's settings file, view.json (gui/view_settings.hpp). The input is the
// file's text, applied as `prism view` applies it at start (apply_settings_text). What it
// accepts must be valid settings that survive a JSON round trip. Any exception but InputError
// (not JSON) and UsageError (a bad value) is a failure of the contract, as is a crash or a
// sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gui/view_settings.hpp"
#include "pipeline/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  prism::view::ViewSettings settings;
  std::vector<std::string> unknown;
  try {
    prism::view::apply_settings_text(text, "view.json", settings, &unknown);
  } catch (const prism::InputError&) {
    return 0;
  } catch (const prism::UsageError&) {
    return 0;
  }
  try {
    settings.validate();
    prism::view::ViewSettings again;
    again.apply_json_text(settings.to_json_text(), "round trip");
    if (!(again == settings)) __builtin_trap();
  } catch (const prism::UsageError&) {
    __builtin_trap();  // accepted settings must be valid, and read back
  }
  return 0;
}
