// Colormap tables by name (see colormap.hpp); the data is in the generated colormap_tables.inc.
#include "sinks/colormap.hpp"

#include <algorithm>

namespace prism {
namespace {

#include "sinks/colormap_tables.inc"

ColormapTable to_table(const Rgb (&entries)[256]) {
  ColormapTable table;
  std::copy(std::begin(entries), std::end(entries), table.begin());
  return table;
}

struct NamedColormap {
  std::string name;
  ColormapTable table;
};

const std::vector<NamedColormap>& all_colormaps() {
  static const std::vector<NamedColormap> colormaps = {
      {"viridis", to_table(k_viridis)}, {"inferno", to_table(k_inferno)},
      {"magma", to_table(k_magma)},     {"turbo", to_table(k_turbo)},
      {"grayscale", to_table(k_grayscale)},
  };
  return colormaps;
}

}  // namespace

const ColormapTable* find_colormap(std::string_view name) {
  // "gray"/"grey" are matplotlib's and common spellings of the same ramp.
  if (name == "gray" || name == "grey" || name == "greyscale") name = "grayscale";
  for (const auto& c : all_colormaps())
    if (c.name == name) return &c.table;
  return nullptr;
}

const std::vector<std::string>& colormap_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : all_colormaps()) v.push_back(c.name);
    return v;
  }();
  return names;
}

std::string colormap_names_help() {
  std::string text;
  for (const auto& name : colormap_names()) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

}  // namespace prism
