// Options of the sinks, as the command line and the API set them: one set for every output, each
// sink reading the fields that concern it (the PNG its colours and size, WAV/FLAC its encoding).
#pragma once

#include <optional>
#include <string>

namespace prism {

// How a PNG combines rows or frequency bins that outnumber its pixels: the largest power (a
// narrow tone or a short click keeps its full level) or the mean power (levels as a longer
// averaging would show them). Either way in linear power, before dB.
enum class PlotReduction { max, mean };

// The element type of .npy rows: float32 as computed; float16 rounded to nearest (half the
// bytes); uint8 dB values quantised linearly over [db_min, db_max] (a quarter of the bytes; the
// sidecar's "scale" gives offset and step: dB = offset + step * value).
enum class NpyDtype { float32, float16, uint8 };

struct SinkOptions {
  // PNG (rows)
  std::string colormap = "viridis";  // colormap_names(): viridis, inferno, magma, turbo, grayscale
  std::optional<double> db_min;      // colour range in dB; automatic when not set:
  std::optional<double> db_max;      //   signal_decibel_range() of the plotted values
  std::optional<unsigned> width;     // plot area in pixels, 1..10000; default 1200
  std::optional<unsigned> height;    // plot area in pixels, 1..10000; default 700
  PlotReduction reduce = PlotReduction::max;
  std::string title;                 // empty: a title made from the input and the parameters
  std::string input_label;           // the input as the default title names it ("speech.wav")
  bool absolute_time = false;        // time axis as UTC clock times from the input's start time

  // WAV/FLAC (samples): the sample encoding, "float" (WAV only), "pcm16", "pcm24" (also "PCM_16",
  // "PCM_24", "FLOAT"). Empty: float for f32 input into WAV, pcm24 for f32 into FLAC, pcm16
  // otherwise.
  std::string subtype;
  // SigMF (samples): core:description; empty: none.
  std::string description;

  // .npy (rows): the element type; uint8 needs dB rows and db_min/db_max (the range it spans).
  NpyDtype npy_dtype = NpyDtype::float32;
  // .npy to stdout (the path "-"): the file its JSON sidecar goes to; empty: none.
  std::string stdout_sidecar;
};

}  // namespace prism
