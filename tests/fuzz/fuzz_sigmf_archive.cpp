// Fuzz target: SigMF archives (.sigmf, a tar file holding the metadata and the data;
// sources/sigmf.hpp). The input is the archive: it is written to a file in a private temporary
// folder and opened as `prism spectrogram` opens one (SigmfSource), its samples read to the
// end. Any exception but InputError is a failure of the source's contract, as is a crash or a
// sanitizer report.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "sources/sigmf.hpp"

namespace {

// The archive's file, in a folder of this process's own (in /dev/shm where it can: no disk
// writes per input); both removed at exit.
struct ScratchFile {
  std::string folder;
  std::string path;
  ScratchFile() {
    folder = (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
             std::string("/prism-fuzz-sigmf-XXXXXX");
    if (::mkdtemp(folder.data()) == nullptr) std::abort();
    path = folder + "/input.sigmf";
  }
  ~ScratchFile() {
    std::remove(path.c_str());
    ::rmdir(folder.c_str());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile scratch;
  const std::string& path = scratch.path;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0)
    std::abort();
  try {
    prism::SigmfSource source(path);
    (void)prism::describe_sigmf(source.recording()).dump();
    const std::size_t frame = source.info().frame_bytes();
    // Enough for any archive of the fuzzer's sizes, and never a huge buffer for a frame of
    // many channels.
    const std::size_t samples = std::max<std::size_t>(1, 65536 / frame);
    std::vector<std::byte> buffer(samples * frame);
    std::uint64_t total = 0;
    while (const std::size_t got = source.read(buffer.data(), samples)) total += got;
    if (total != *source.info().length) __builtin_trap();
  } catch (const prism::InputError&) {
  }
  return 0;
}
