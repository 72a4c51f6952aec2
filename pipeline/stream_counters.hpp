// StreamCounters: the items a streaming object (Resampler, Mixer, Demodulator, Gain) has taken
// in and given out, for the accounting on each edge of a graph (items out of a producer =
// items in of its consumers).
#pragma once

#include <cstdint>

namespace prism {

struct StreamCounters {
  std::uint64_t items_in = 0;   // input items given to process()
  std::uint64_t items_out = 0;  // outputs returned by process() and flush()
};

}  // namespace prism
