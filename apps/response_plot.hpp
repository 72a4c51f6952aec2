// The picture `prism design --plot` draws: a filter's |H(f)| in dB (0 to fs/2 for real taps,
// −fs/2 to fs/2 for complex ones), its transition bands shaded, its band edges as dashed lines,
// the stopband attenuation as a dotted line, a title with the figures. Drawn with Cairo in DejaVu
// Sans (sinks/plot_font).
#pragma once

#include <string>

#include "pipeline/filter_design.hpp"

namespace prism::app {

// The PNG's bytes, width × height pixels (each at least 320 × 200).
std::string render_response_png(const FilterDesign& design, const ResponseFigures& figures,
                                const std::string& title, int width = 1000, int height = 560);

}  // namespace prism::app
