// Output names of a batch (see output_template.hpp).
#include "apps/output_template.hpp"

#include <filesystem>

#include "pipeline/errors.hpp"

namespace prism::app {

namespace fs = std::filesystem;

namespace {

// The file name without its extension; a SigMF pair's double extension counts as one.
std::string stem_of(const fs::path& path) {
  const std::string name = path.filename().string();
  for (const char* ext : {".sigmf-meta", ".sigmf-data"})
    if (name.size() > std::string(ext).size() && name.ends_with(ext))
      return name.substr(0, name.size() - std::string(ext).size());
  return path.stem().string();
}

}  // namespace

std::string expand_output_template(const std::string& pattern, const std::string& input) {
  const fs::path path(input);
  const std::string directory = path.parent_path().empty() ? "." : path.parent_path().string();
  std::string out;
  std::size_t i = 0;
  while (i < pattern.size()) {
    if (pattern[i] != '{') {
      out += pattern[i++];
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos)
      throw UsageError("output '" + printable(pattern) + "': a '{' without its '}' (placeholders: " +
                       kOutputTemplateHelp + ")");
    const std::string key = pattern.substr(i + 1, close - i - 1);
    if (key == "stem") {
      out += stem_of(path);
    } else if (key == "name") {
      out += path.filename().string();
    } else if (key == "dir") {
      out += directory;
    } else {
      throw UsageError("output '" + printable(pattern) + "': unknown placeholder {" + printable(key) +
                       "} (placeholders: " + kOutputTemplateHelp + ")");
    }
    i = close + 1;
  }
  return out;
}

}  // namespace prism::app
