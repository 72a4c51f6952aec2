// Fuzz target: the stage specs of `prism run` chains (pipeline/stage_registry.hpp),
// "NAME[:KEY=VALUE,...]". A spec that parses names a stage exactly when names_a_stage says so;
// one that names a stage is made on the CPU, so every setting's parser and range check runs.
// Any exception but UsageError and InputError (a taps_file that cannot be read) is a failure of
// the contract, as is a crash or a sanitizer report.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "pipeline/errors.hpp"
#include "pipeline/stage_registry.hpp"

namespace {

// Sizes up to the limits (2^24-point FFTs, 4 Mi taps) take seconds and gigabytes to make: their
// range checks are unit-tested; here numbers stay below 10^5.
bool has_large_number(const std::string& text) {
  std::size_t digits = 0;
  for (char c : text) {
    digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0;
    if (digits > 5 || c == 'e' || c == 'E') return true;  // an exponent can make any size
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  prism::StageSpec spec;
  try {
    spec = prism::parse_stage_spec(text);
  } catch (const prism::UsageError&) {
    return 0;
  }
  if (spec.name.empty()) __builtin_trap();
  const bool known = prism::find_stage_kind(spec.name) != nullptr;
  if (known != prism::names_a_stage(text)) __builtin_trap();
  // A path could name /dev/zero or a huge file for taps_file: files are the taps target's.
  if (!known || has_large_number(text) || text.find('/') != std::string::npos) return 0;
  prism::StageEnvironment environment;
  environment.backend = prism::fft::BackendKind::cpu;
  environment.cpu_threads = 1;
  try {
    (void)prism::make_stage(spec, environment);
  } catch (const prism::UsageError&) {
  } catch (const prism::InputError&) {
  }
  return 0;
}
