// StreamInfo: what a source delivers — format, rate, centre frequency, channels, start time
// and, for files, the length. Every stage downstream reads it; no stage guesses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format.hpp"

namespace prism {

struct StreamInfo {
  SampleFormat format = SampleFormat::f32;
  double sample_rate = 0.0;        // Hz, > 0
  double center_frequency = 0.0;   // Hz; the RF frequency of bin 0 for complex baseband
  unsigned channels = 1;           // interleaved in each block, >= 1
  std::string start_time;          // ISO 8601 (UTC) when the source knows it, else empty
  std::optional<std::uint64_t> length;  // samples per channel, when known in advance
  bool live = false;               // a live source never waits for a free block
  // Index in the recording of the stream's first sample (--start): times downstream count from
  // the recording's start, so that a part of a file keeps the file's time axis.
  std::uint64_t first_sample = 0;

  // Bytes of one sample of every channel (one "frame" of interleaved data).
  std::size_t frame_bytes() const { return sample_bytes(format) * channels; }
};

}  // namespace prism
