// StreamInfo: what a source delivers — format, rate, centre frequency, channels, start time
// and, for files, the length. Every stage downstream reads it; no stage guesses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format.hpp"

namespace prism {

// The centre frequency changes `time` seconds from the stream's start (a SigMF capture after the
// first: a retune). Times, not sample indices, so that stages that change the rate keep them.
struct Retune {
  double time = 0.0;              // s from the stream's start, > 0
  double center_frequency = 0.0;  // Hz from then on
};

// A labelled region of the stream (a SigMF annotation).
struct Annotation {
  double start = 0.0;                    // s from the stream's start
  std::optional<double> duration;        // s; unset: to the end
  std::optional<double> frequency_low;   // Hz (RF, centre frequency included); unset: the band's edge
  std::optional<double> frequency_high;  // Hz
  std::string label;                     // may be empty
  std::string comment;                   // may be empty
};

struct StreamInfo {
  SampleFormat format = SampleFormat::f32;
  double sample_rate = 0.0;        // Hz, > 0
  double center_frequency = 0.0;   // Hz; the RF frequency of bin 0 for complex baseband
  unsigned channels = 1;           // interleaved in each block, >= 1
  std::string start_time;          // ISO 8601 (UTC) when the source knows it, else empty
  std::optional<std::uint64_t> length;  // samples per channel, when known in advance
  bool live = false;               // a live source never waits for a free block
  // Float samples whose full scale is ±1.0 by their container's convention (sound files, audio
  // devices), as integers scaled to unit are: the 0 dBFS reference of SpectrumLayout applies.
  bool float_full_scale = false;
  std::vector<Retune> retunes;     // ascending in time; center_frequency holds before the first
  std::vector<Annotation> annotations;

  // Whether the floats a stage makes of these samples have a full scale of ±1.0: integers are
  // read scaled to ±1.0, and float samples keep their container's convention.
  bool floats_have_full_scale() const { return float_full_scale || !is_float(format); }

  // Adds `hz` to every frequency the stream is labelled with (a stage that shifts the band).
  void shift_frequencies(double hz) {
    center_frequency += hz;
    for (Retune& r : retunes) r.center_frequency += hz;
    for (Annotation& a : annotations) {
      if (a.frequency_low) *a.frequency_low += hz;
      if (a.frequency_high) *a.frequency_high += hz;
    }
  }
  // Seconds from the recording's start to the stream's first sample (--start). Times downstream
  // (rows, retunes, annotations) count from the recording's start, so that a part of a file keeps
  // the file's time axis; seconds, not samples, so that stages that change the rate keep it.
  double start_offset_s = 0.0;

  // Bytes of one sample of every channel (one "frame" of interleaved data).
  std::size_t frame_bytes() const { return sample_bytes(format) * channels; }
};

}  // namespace prism
