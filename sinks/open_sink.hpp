// The sink registry: opens the right sink for an output path, by its extension (or audio:).
// The CLI calls these while parsing its command line, so that a wrong extension, an unknown
// colormap or an unwritable directory is reported before any processing starts.
//
//   rows (spectrogram):  .npy → NpySink (+ .json sidecar);  .png → PngSink
//   samples:             .sigmf-meta, .sigmf-data, .sigmf or no extension → SigmfWriter;
//                        .wav, .flac, .ogg → SndfileWriter (when built with libsndfile);
//                        audio:[NAME|INDEX] → PortAudioSink, playback (when built with PortAudio)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/row_sink.hpp"
#include "pipeline/sample_sink.hpp"
#include "sinks/colormap.hpp"
#include "sinks/sink_options.hpp"

namespace prism {

// Throws UsageError for an unsupported extension (naming the path and the supported ones) or
// bad options (e.g. an unknown colormap, listing the names); InputError (path and reason) when
// the output's directory does not exist or is not writable.
std::unique_ptr<RowSink> open_row_sink(const std::string& path, const RowSinkOptions& options = {});

// As open_row_sink, for time-domain outputs. A complex stream into WAV/FLAC is refused at
// begin(), when the stream's format is known (UsageError).
std::unique_ptr<SampleSink> open_sample_sink(const std::string& path,
                                             const SampleSinkOptions& options = {});

// The extensions each registry accepts, for --help: ".npy, .png" and ".sigmf-meta, ...".
std::string row_sink_extensions_help();
std::string sample_sink_extensions_help();

}  // namespace prism
