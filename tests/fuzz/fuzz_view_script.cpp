// Fuzz target: `prism view --script` files (gui/view_settings.hpp). The input is the script's
// text, parsed as `prism view` parses it (parse_script); each step's settings are then applied
// in turn as the viewer applies them when the step is due. Any exception but InputError (from
// the parser) and UsageError (a step's bad value) is a failure of the contract, as is a crash
// or a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gui/view_settings.hpp"
#include "pipeline/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<prism::view::ScriptStep> steps;
  try {
    steps = prism::view::parse_script(text, "script.json");
  } catch (const prism::InputError&) {
    return 0;
  }
  prism::view::ViewSettings settings;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const prism::view::ScriptStep& step = steps[i];
    if (step.frame.has_value() == step.time_s.has_value()) __builtin_trap();
    if (step.frame && *step.frame < 0) __builtin_trap();
    if (step.time_s && !(std::isfinite(*step.time_s) && *step.time_s >= 0)) __builtin_trap();
    prism::view::ViewSettings next = settings;
    try {
      next.apply_json_text(step.set, "script step " + std::to_string(i + 1));
      next.validate();
      settings = next;
    } catch (const prism::UsageError&) {
    }
  }
  return 0;
}
