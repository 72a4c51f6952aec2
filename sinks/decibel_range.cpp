// The automatic colour range from the signal-carrying cells (decibel_range.hpp).
#include "sinks/decibel_range.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace prism {

std::optional<DecibelRange> signal_decibel_range(std::span<const float> decibels) {
  std::vector<float> signal;
  signal.reserve(decibels.size());
  for (const float v : decibels)
    if (std::isfinite(v) && v > kFlooredDecibels) signal.push_back(v);
  if (signal.empty()) return std::nullopt;
  const auto k = static_cast<std::size_t>(kAutoRangeLowPercentile * static_cast<double>(signal.size() - 1));
  std::nth_element(signal.begin(), signal.begin() + static_cast<std::ptrdiff_t>(k), signal.end());
  DecibelRange range;
  range.high = *std::max_element(signal.begin() + static_cast<std::ptrdiff_t>(k), signal.end());
  range.low = std::max<double>(signal[k], range.high - kMaxAutoSpanDb);
  range.signal_cells = signal.size();
  return range;
}

}  // namespace prism
