// Fuzz target: the FFT wisdom file (fft/cuda/fft_wisdom.hpp; host code, built without CUDA).
// A file that parses must write a file that parses back to the same text, and each of its
// entries' options must plan (make_plan_layout) or be refused with std::invalid_argument, as
// the plan-time lookup uses them. Any other exception from the parser than WisdomError is a
// failure of its contract, as is a crash or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_wisdom.hpp"

namespace gpu = prism::fft::gpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpu::Wisdom wisdom;
  try {
    wisdom = gpu::Wisdom::parse(text, "fuzz-wisdom.json");
  } catch (const gpu::WisdomError&) {
    return 0;
  }
  const std::string written = wisdom.to_text();
  try {
    if (gpu::Wisdom::parse(written, "written").to_text() != written) __builtin_trap();
  } catch (const gpu::WisdomError&) {
    __builtin_trap();  // what we write must read back
  }
  // Plans cost time and memory with the length: the small ones are enough to reach every
  // option's use but the four-step split's, which needs lengths above one pass (up to 2^17).
  std::size_t planned = 0;
  for (const gpu::WisdomEntry& entry : wisdom.entries()) {
    const std::size_t longest = entry.best.four_step_columns != 0 ? std::size_t{1} << 17 : 4096;
    if (entry.key.n > longest || ++planned > 4) continue;
    prism::fft::PlanSpec spec;
    spec.n = entry.key.n;
    spec.batch = 1;
    spec.transform = entry.key.transform;
    const gpu::WisdomEntry* found = wisdom.find_nearest(entry.key.device, spec);
    if (found == nullptr) __builtin_trap();
    gpu::PlannerOptions options = found->best;
    // As lookup_planner_options: a convolution length the planner cannot use is dropped.
    if (options.bluestein_length != 0 &&
        !gpu::bluestein_length_problem(static_cast<long long>(spec.n), options.bluestein_length).empty())
      options.bluestein_length = 0;
    // And a four-step split that is no split of the length.
    if (!gpu::can_take_four_step_columns(gpu::planner_complex_length(spec), options.four_step_columns))
      options.four_step_columns = 0;
    try {
      (void)gpu::make_plan_layout(spec, options);
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
