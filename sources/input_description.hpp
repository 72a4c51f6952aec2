// What `prism info` prints about an input, as JSON: the description of a stream and of an input
// opened through the source registry (open_source.hpp). Not a public header: it names
// nlohmann::json, which the installed headers do not expose.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sources/open_source.hpp"

namespace prism {

// Describes `input` without reading its samples, for `prism info`:
//   container ("generator", "SigMF", "SigMF archive", "WAV", "FLAC", ..., "raw", "stdin"),
//   format, channels, sample_rate, center_frequency, length_samples and duration_s (null when
//   unknown), start_time (null when unknown), file_size (bytes, null for stdin and the
//   generator), and what each container adds (the generator's spec, SigMF's datatype and
//   global fields, the sound file's encoding).
// Throws like open_source.
nlohmann::json describe_input(const std::string& input, const SourceOptions& options);

// The fields every description has, from a StreamInfo: format, channels, sample_rate,
// center_frequency, length_samples, duration_s, start_time (null when unknown), live.
nlohmann::json describe_stream(const StreamInfo& info);

}  // namespace prism
