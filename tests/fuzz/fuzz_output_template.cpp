// Fuzz target: a batch's output templates (apps/output_template.hpp), 'out/{stem}.npy' filled in
// for one input. The bytes are the template, a NUL, then the input's path. Only UsageError may
// escape (an unknown or unclosed placeholder), and the expansion keeps its documented
// properties: a template without '{' is its own expansion, the expansion depends on the two
// texts only (twice the same), {stem} is the start of {name}, {dir} is never empty, and the
// template's literal text stays in the result around the placeholders.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/output_template.hpp"
#include "pipeline/errors.hpp"

namespace {

std::string expand(const std::string& pattern, const std::string& input) {
  return prism::app::expand_output_template(pattern, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t split = bytes.find('\0');
  const std::string pattern = bytes.substr(0, split);
  const std::string input = split == std::string::npos ? "rec.wav" : bytes.substr(split + 1);

  const std::string stem = expand("{stem}", input);
  const std::string name = expand("{name}", input);
  const std::string dir = expand("{dir}", input);
  if (name.compare(0, stem.size(), stem) != 0) __builtin_trap();
  if (dir.empty()) __builtin_trap();
  if (expand("a{stem}b{name}c{dir}d", input) != "a" + stem + "b" + name + "c" + dir + "d") __builtin_trap();

  std::string out;
  try {
    out = expand(pattern, input);
  } catch (const prism::UsageError&) {
    if (pattern.find('{') == std::string::npos) __builtin_trap();  // nothing to refuse
    return 0;
  }
  if (pattern.find('{') == std::string::npos && out != pattern) __builtin_trap();
  if (expand(pattern, input) != out) __builtin_trap();
  // The literal text before the first placeholder leads the result.
  const std::string head = pattern.substr(0, pattern.find('{'));
  if (out.compare(0, head.size(), head) != 0) __builtin_trap();
  return 0;
}
