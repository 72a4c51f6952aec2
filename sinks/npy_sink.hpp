// NpySink: writes rows or samples to a NumPy .npy file (format version 1.0, C order) as they
// arrive, in constant memory, plus a JSON sidecar that says what the numbers mean (out.npy ->
// out.json).
//   rows     dtype '<f4' ('<c8' complex; '<f8', '<c16' for double rows), shape (rows, columns)
//   samples  their native format: f32 '<f4', cf32 '<c8', i16 '<i2', i8 '|i1', u8 '|u1', shape
//            (samples,), (samples, channels) for several channels; complex integers, which
//            numpy has no type for, with a last axis of 2 (real, imaginary)
//
// The header is reserved at begin() with room for a 20-digit row count and rewritten with the
// final count at finish(). Both files are written as "<name>.partial" and renamed into place.
// The path "-" is stdout (PartialFile: written in place when it is a regular file, spooled in
// $TMPDIR and copied at the end when it is a pipe); its sidecar goes to
// SinkOptions::stdout_sidecar, or nowhere when that is empty.
//
// Rows may be stored smaller (SinkOptions::npy_dtype): float16 '<f2', or uint8 '|u1' holding dB
// values quantised over [db_min, db_max]; the sidecar's "scale" {"offset", "step"} turns them
// back into dB (offset + step * value; values outside the range are clipped to 0 and 255).
//
// Sidecar keys of rows: frequencies (Hz, baseband: the FFT bins', or the mel bands' centres;
// empty for cepstral coefficients), column_axis (frequency, mel_band or cepstral_coefficient),
// coefficients (their indices, cepstral_coefficient only), center_frequency (Hz), times (s from the
// stream's start, one per row: layout.row_time), shape, dtype, precision (single or double),
// quantity, unit, decibels,
// parameters (every processing parameter), input (format, sample_rate, channels,
// center_frequency, start_time, length), complete, rows, data (the .npy's file name). Of
// samples: data, dtype, shape, samples, complete, format, sample_rate, center_frequency,
// channels, start_time, first_sample (of the stream, from its first chunk), start_offset_s (s
// from the recording's start to the stream's first sample: --start).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/stage.hpp"
#include "pipeline/spectrum_layout.hpp"
#include "sinks/output_file.hpp"
#include "sinks/sink_options.hpp"

namespace prism {

class NpySink final : public Sink {
 public:
  // `path` is the .npy file ("-": stdout); the sidecar is `path` with its extension replaced by
  // .json (for stdout: options.stdout_sidecar). Throws UsageError for a uint8 dtype without a
  // dB range.
  explicit NpySink(std::string path, const SinkOptions& options = {});
  ~NpySink() override;

  bool accepts(PortKind) const override { return true; }
  // A dtype other than float32 takes real dB rows (uint8) or real rows (float16) only.
  void check_input(const PortDescription& input) const override;
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return rows_written_; }
  std::string describe() const override;

  // Empty when there is none (stdout without options.stdout_sidecar).
  const std::string& sidecar_path() const { return sidecar_path_; }

  // The sidecar path that goes with an .npy path: the extension replaced by ".json".
  static std::string sidecar_path_for(const std::string& npy_path);

  // The NPY 1.0 header for a C-order array of numpy type `descr` ("<f4") and shape (rows,
  // trailing...), padded with spaces to `total_bytes` (a multiple of 64, including the 10-byte
  // preamble). With total_bytes == 0 the header is padded to the size that fits any 20-digit
  // row count.
  static std::string npy_header(const std::string& descr, std::uint64_t rows, const std::vector<std::size_t>& trailing,
                                std::size_t total_bytes = 0);

 private:
  void write_sidecar(bool complete);
  void write_samples_sidecar(bool complete);

  void write_converted(const float* values, std::size_t count);
  // The sidecar's "data": the .npy's file name, null for stdout.
  nlohmann::json data_name() const;

  std::string path_;
  std::string sidecar_path_;
  NpyDtype dtype_ = NpyDtype::float32;
  double scale_offset_ = 0.0;  // uint8: the dB value of 0
  double scale_step_ = 1.0;    // uint8: dB per step
  // uint8 of rows with a full scale: the 0 dBFS reference in dB, so that --db-range is in dBFS
  // as on the PNG (0 for other rows, whose range is in dB re the quantity's unit).
  std::optional<double> full_scale_db_;
  PartialFile data_file_;
  std::unique_ptr<PartialFile> sidecar_file_;  // null: no sidecar
  std::vector<std::uint16_t> converted_;  // rows in a smaller dtype (halves, or bytes two to an element)
  PortDescription input_;
  std::string descr_;                   // numpy's type of the items' values
  std::vector<std::size_t> trailing_;   // the array's shape after its first axis
  std::size_t header_bytes_ = 0;
  std::optional<std::uint64_t> first_row_;  // number of the first item written
  std::uint64_t rows_written_ = 0;
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace prism
