// SigmfWriter: writes a stream's samples as a SigMF recording: "<base>.sigmf-data" (the
// samples as they arrive, in the stream's own format, little-endian) and "<base>.sigmf-meta"
// (JSON: core:datatype, core:sample_rate, core:version, core:recorder, core:num_channels when
// more than one, core:description when set; one capture at sample 0 with core:frequency and,
// when the start time is known, core:datetime; no annotations).
//
// The path may end in .sigmf-meta, .sigmf-data or .sigmf, or have no extension: all name the
// same pair. Both files are written as ".partial" and renamed at finish(), the data first, so
// that a .sigmf-meta file only exists beside complete data. An interrupted run
// (finish(false)) is committed with a core:description saying so.
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/stage.hpp"
#include "pipeline/stream_info.hpp"
#include "sinks/output_file.hpp"
#include "sinks/sink_options.hpp"

namespace prism {

class SigmfWriter final : public Sink {
 public:
  explicit SigmfWriter(std::string path, SinkOptions options = {});
  ~SigmfWriter() override;

  bool accepts(PortKind kind) const override { return kind == PortKind::samples; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return samples_written_; }
  std::string describe() const override;

  const std::string& data_path() const { return data_file_.path(); }
  const std::string& meta_path() const { return meta_file_.path(); }

  // The recording's base name: `path` without a .sigmf-meta, .sigmf-data or .sigmf extension.
  static std::string base_path(const std::string& path);

 private:
  std::string base_;
  SinkOptions options_;
  PartialFile data_file_;
  PartialFile meta_file_;
  StreamInfo info_;
  std::uint64_t samples_written_ = 0;
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace prism
