// The automatic colour range of a spectrogram picture, shared by the PNG sink and the viewer:
// taken from the cells that carry signal only. Cells at the decibel floor (exact zeros: digital
// silence, which the spectrogram stages floor at -300 dB) and non-finite cells are left out, so
// that silence in a recording does not stretch the range down to the floor; the low end is a
// percentile (robust against the few cells that leakage or rounding puts far below the rest)
// and the range spans at most kMaxAutoSpanDb below the top, as sox's spectrogram does.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace prism {

// Cells at or below this are floored (silent) cells: the stages' floor is -300 dB.
inline constexpr double kFlooredDecibels = -299.0;
// The low end: this fraction of the signal-carrying cells lie below it.
inline constexpr double kAutoRangeLowPercentile = 0.05;
// The widest automatic range, in dB (sox's spectrogram default, -z 120).
inline constexpr double kMaxAutoSpanDb = 120.0;

struct DecibelRange {
  double low = 0.0;
  double high = 0.0;
  std::size_t signal_cells = 0;  // the cells the range was taken from
};

// The range of the cells that carry signal: low = the kAutoRangeLowPercentile percentile (raised
// to high - kMaxAutoSpanDb when it lies further down), high = the largest value. nullopt when no
// cell carries signal (all floored, non-finite or none at all).
std::optional<DecibelRange> signal_decibel_range(std::span<const float> decibels);

}  // namespace prism
