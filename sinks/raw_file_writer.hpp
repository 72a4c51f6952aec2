// RawFileWriter: writes samples as they travel, headerless, to a raw file whose extension names
// their format (.cf32, .cs16, .cs8, .cu8, .f32, .s16 ...: the extensions the raw reader knows,
// sources/raw_file.hpp), so that `prism spectrogram x.cs8 --rate R` reads back what was written.
// A stream of another format is refused at begin() (UsageError naming both formats). Channels
// interleaved, little-endian. Written as "<path>.partial", renamed at finish().
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/format.hpp"
#include "pipeline/stage.hpp"
#include "sinks/output_file.hpp"

namespace prism {

class RawFileWriter final : public Sink {
 public:
  // `format`: the format the extension of `path` names.
  RawFileWriter(std::string path, SampleFormat format);

  bool accepts(PortKind kind) const override { return kind == PortKind::samples; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return samples_written_; }
  std::string describe() const override;

 private:
  std::string path_;
  SampleFormat format_;
  PartialFile file_;
  std::size_t frame_bytes_ = 0;
  std::uint64_t samples_written_ = 0;
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace prism
