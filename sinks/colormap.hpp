// Colormaps for the PNG spectrogram: 256-entry RGB tables (viridis, inferno, magma, turbo,
// grayscale) looked up by name. The tables are generated (scripts/gen-colormaps.py).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace prism {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

using ColormapTable = std::array<Rgb, 256>;

// The table of a colormap by its name, or nullptr when the name is unknown.
const ColormapTable* find_colormap(std::string_view name);

// The colormap names, in the order --help lists them (the default, viridis, first).
const std::vector<std::string>& colormap_names();

// "viridis, inferno, magma, turbo, grayscale": for help texts and error messages.
std::string colormap_names_help();

}  // namespace prism
