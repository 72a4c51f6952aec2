// The sink registry: opens the right sink for an output, by its extension (or audio:). The CLI
// calls it while reading its command line, so that a wrong extension, an unknown colormap or an
// unwritable directory is reported before any processing starts.
//
//   rows (spectrogram):  .npy → NpySink (+ .json sidecar);  .png → PngSink
//   samples:             .npy → NpySink (+ .json sidecar);
//                        .sigmf-meta, .sigmf-data, .sigmf or no extension → SigmfWriter;
//                        .wav, .flac, .ogg, .aif, .aiff → SndfileWriter (when built with libsndfile);
//                        .cf32, .cs16, .cs8, .cu8, .f32 ... (raw_format_from_extension) →
//                        RawFileWriter;
//                        audio:[NAME|INDEX] → PortAudioSink, playback (when built with PortAudio)
//   either:              zmq:pub:..., zmq:push:... → ZmqSink, a ZeroMQ stream (when built with
//                        libzmq); "-" → NpySink on stdout (refused when stdout is a terminal),
//                        its sidecar to SinkOptions::stdout_sidecar or nowhere
// Whether a sink suits what its producer gives is the graph's check (Sink::accepts).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../pipeline/stage.hpp"
#include "sink_options.hpp"

namespace prism {

// Throws UsageError for an unsupported extension (naming the path and the supported ones) or
// bad options (an unknown colormap, listing the names); InputError (path and reason) when the
// output's directory does not exist or is not writable.
std::unique_ptr<Sink> open_sink(const std::string& path, const SinkOptions& options = {});

// The files the sink for `output` writes, sidecars included, as the sinks name them (a.npy:
// a.npy and a.json; a.sigmf-meta, a.sigmf or a: a.sigmf-data and a.sigmf-meta); none for audio:,
// zmq: and "-".
std::vector<std::string> output_files(const std::string& output);

// Two outputs of one run that would write the same file: `first` and `second` as given, and
// `file`, absolute and normalised (symbolic links resolved as far as they exist).
struct OutputClash {
  std::string first;
  std::string second;
  std::string file;
};
// The first clash among `outputs`, so that a run is refused before it starts rather than failing
// at its end when the second output cannot be renamed into place.
std::optional<OutputClash> find_output_clash(const std::vector<std::string>& outputs);

// Whether `path` names an output the registry knows (an extension it takes, audio: or zmq:).
bool names_an_output(const std::string& path);

// The outputs each kind of item can go to, for --help and messages:
// ".npy (array + .json sidecar), .png (image)" and ".sigmf-meta, ...".
std::string row_outputs_help();
std::string sample_outputs_help();

}  // namespace prism
