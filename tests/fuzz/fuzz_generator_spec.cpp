// Fuzz target: the generator spec (sources/generator.hpp), the text after `gen:`. A spec that
// parses must print as a spec that parses back to the same signal (to_string), describe
// itself, and make samples: a generator of it reads a block at the start and one far into the
// signal, and every value is finite. Any exception but UsageError is a failure of the parser's
// contract, as is a crash or a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "sources/generator.hpp"

namespace {

bool same_spec(const prism::GeneratorSpec& a, const prism::GeneratorSpec& b) {
  // to_string writes numbers so that they read back exactly.
  return a.to_string() == b.to_string();
}

void check_samples(prism::GeneratorSource& source, std::size_t samples) {
  const prism::StreamInfo& info = source.info();
  std::vector<std::byte> block(samples * info.frame_bytes());
  const std::size_t got = source.read(block.data(), samples);
  if (got > samples) __builtin_trap();
  std::vector<double> values(got * prism::components_per_sample(info.format));
  prism::convert_to_double(info.format, block.data(), values.size(), values.data());
  for (double v : values)
    if (!std::isfinite(v)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  prism::GeneratorSpec spec;
  try {
    spec = prism::parse_generator_spec("gen:" + text);
  } catch (const prism::UsageError&) {
    return 0;
  }
  try {
    const prism::GeneratorSpec again = prism::parse_generator_spec(spec.to_string());
    if (!same_spec(spec, again)) __builtin_trap();
  } catch (const prism::UsageError&) {
    __builtin_trap();  // a parsed spec's own text must parse
  }
  (void)spec.describe();
  // Each tone and chirp costs time per sample (and a tone a 64 KiB table): a few are enough to
  // check the synthesis.
  if (spec.tones.size() + spec.chirps.size() > 8) return 0;
  // A live spec paces its reads in real time (and a stalled one waits until interrupted): the
  // same signal unpaced checks the synthesis.
  spec.live = false;
  spec.stall_s.reset();
  prism::GeneratorSource source(spec);
  check_samples(source, 5000);  // crosses a piece boundary (4096)
  check_samples(source, 100);  // on from where the first read ended
  return 0;
}
