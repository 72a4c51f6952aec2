// Fuzz target: sound files through libsndfile (sources/sndfile_source.hpp). The input is the
// file: SndfileSource reads it from memory through libsndfile's virtual I/O, so WAV, FLAC,
// OGG, AIFF, AU, CAF... headers go through the same checks as a file on disk (the truncation
// check on libsndfile's log, the channel and rate checks), then its samples are read to the
// end, out of an odd address as well as an aligned one, and it is described as `prism info`
// describes it. Any exception but InputError is a failure of the source's contract, as is a
// crash or a sanitizer report.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "sources/sndfile_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  try {
    prism::SndfileSource source("fuzz-input", std::vector<std::byte>(bytes, bytes + size));
    (void)prism::describe_sound_file(source).dump();
    const std::size_t frame = source.info().frame_bytes();
    // Reads of a few frames, so a file of many channels never asks for a huge buffer, and a
    // bounded total, in frames and in bytes: a header may claim any length, and decoders may make
    // samples from little input (2^20 frames of 1024 channels would be 4 GiB to decode).
    const std::size_t samples = std::max<std::size_t>(1, 4096 / frame);
    std::vector<std::byte> buffer(samples * frame + 1);
    std::uint64_t total = 0;
    bool odd = false;
    while (total < (std::uint64_t{1} << 20) && total * frame < (std::uint64_t{4} << 20)) {
      const std::size_t got = source.read(buffer.data() + (odd ? 1 : 0), samples);
      if (got == 0) break;
      if (got > samples) __builtin_trap();
      total += got;
      odd = !odd;
    }
    if (source.info().length && total > *source.info().length) __builtin_trap();
  } catch (const prism::InputError&) {
  }
  return 0;
}
