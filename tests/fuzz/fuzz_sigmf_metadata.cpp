// Fuzz target: SigMF metadata (sources/sigmf.hpp) with the length of its data. The input is
// eight bytes of data length (little-endian) followed by the metadata text; the recording is
// checked as read_sigmf_recording checks one (parse_sigmf_recording) and described as
// `prism info` describes it, its start time read as an absolute time axis reads it. Any exception but InputError is a failure of the parser's
// contract, as is a crash or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "pipeline/errors.hpp"
#include "pipeline/iso8601.hpp"
#include "sources/sigmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return -1;  // not an input of this target: kept out of the corpus
  std::uint64_t data_bytes = 0;
  std::memcpy(&data_bytes, data, 8);
  const std::string meta(reinterpret_cast<const char*>(data + 8), size - 8);
  try {
    const prism::SigmfRecording recording =
        prism::parse_sigmf_recording(meta, "fuzz.sigmf-meta", "fuzz.sigmf-data", data_bytes);
    // What a run relies on: a whole number of frames of the named format.
    if (recording.data_bytes % recording.info.frame_bytes() != 0 ||
        *recording.info.length != recording.data_bytes / recording.info.frame_bytes())
      __builtin_trap();
    // Retunes come in the order of their captures, after the start.
    double previous = 0.0;
    for (const prism::Retune& r : recording.info.retunes) {
      if (!(r.time > 0.0) || r.time < previous) __builtin_trap();
      previous = r.time;
    }
    (void)prism::iso8601_epoch_seconds(recording.info.start_time);
    (void)prism::describe_sigmf(recording).dump();
  } catch (const prism::InputError&) {
  }
  return 0;
}
