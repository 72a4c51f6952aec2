// Fuzz target: window spec strings (pipeline/window.hpp), "NAME[:P...]" as --window and the
// window= keys take them. A spec that parses reads back from its own text (to_string) as the
// same spec; where window_problem finds nothing wrong for a length, make_window makes it, both
// periodic and symmetric, with that many values. Any exception but UsageError is a failure of
// the contract, as is a crash or a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pipeline/errors.hpp"
#include "pipeline/window.hpp"

namespace {

// WindowSpec's equality with NaN equal to NaN: exponential's center None is a NaN.
bool same_spec(const prism::WindowSpec& a, const prism::WindowSpec& b) {
  if (a.kind != b.kind || a.parameters.size() != b.parameters.size()) return false;
  for (std::size_t i = 0; i < a.parameters.size(); ++i) {
    const double x = a.parameters[i], y = b.parameters[i];
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  prism::WindowSpec spec;
  try {
    spec = prism::parse_window(text);
  } catch (const prism::UsageError&) {
    return 0;
  }
  if (!same_spec(prism::parse_window(spec.to_string()), spec)) __builtin_trap();
  (void)spec.scipy_argument();
  // Short windows keep every run quick (dpss and chebwin cost more than linear time in n).
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}}) {
    for (const prism::WindowSymmetry symmetry : {prism::WindowSymmetry::periodic, prism::WindowSymmetry::symmetric}) {
      if (!prism::window_problem(spec, n, symmetry).empty()) continue;
      try {
        if (prism::make_window(spec, n, symmetry).size() != n) __builtin_trap();
      } catch (const prism::UsageError&) {
        __builtin_trap();  // window_problem said this window could be made
      }
    }
  }
  return 0;
}
