// NpySink: writes spectrogram rows to a NumPy .npy file (format version 1.0, dtype '<f4',
// C order, shape (rows, columns)) as they arrive, in constant memory, plus a JSON sidecar that
// says what the numbers mean (out.npy -> out.json).
//
// The header is reserved at begin() with room for a 20-digit row count and rewritten with the
// final count at finish(). Both files are written as "<name>.partial" and renamed into place.
//
// Sidecar keys: frequencies (Hz, baseband), center_frequency (Hz), times (s from the stream's
// start, one per row: layout.row_time), shape, dtype, quantity, unit, decibels, parameters
// (every processing parameter), input (format, sample_rate, channels, center_frequency,
// start_time, length), complete, rows, data (the .npy's file name).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/stage.hpp"
#include "pipeline/spectrum_layout.hpp"
#include "sinks/output_file.hpp"

namespace prism {

class NpySink final : public Sink {
 public:
  // `path` is the .npy file; the sidecar is `path` with its extension replaced by .json.
  explicit NpySink(std::string path);
  ~NpySink() override;

  bool accepts(PortKind kind) const override { return kind == PortKind::rows; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return rows_written_; }
  std::string describe() const override;

  const std::string& sidecar_path() const { return sidecar_path_; }

  // The sidecar path that goes with an .npy path: the extension replaced by ".json".
  static std::string sidecar_path_for(const std::string& npy_path);

  // The NPY 1.0 header for a float32 C-order array of shape (rows, columns), padded with
  // spaces to `total_bytes` (a multiple of 64, including the 10-byte preamble). With
  // total_bytes == 0 the header is padded to the size that fits any 20-digit row count.
  static std::string npy_header(std::uint64_t rows, std::size_t columns,
                                std::size_t total_bytes = 0);

 private:
  void write_sidecar(bool complete);

  std::string path_;
  std::string sidecar_path_;
  PartialFile data_file_;
  PartialFile sidecar_file_;
  SpectrumLayout layout_;
  std::size_t header_bytes_ = 0;
  std::optional<std::uint64_t> first_row_;  // row number of the first row written
  std::uint64_t rows_written_ = 0;
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace prism
