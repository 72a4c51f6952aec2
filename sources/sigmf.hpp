// SigMF recordings (https://sigmf.org): a JSON metadata file (.sigmf-meta) beside a raw data
// file (.sigmf-data), or both in one tar archive (.sigmf). The source accepts the path of
// either file, the base name, or the archive.
//
// Read from the metadata: global core:datatype (every core type: cf64, cf32, ci32, ci16, cu32,
// cu16, rf64, rf32, ri32, ri16, ru32, ru16 with _le or _be, the _be ones byte-swapped after each
// read, and ci8, cu8, ri8, ru8),
// core:sample_rate (required, > 0), core:num_channels (default 1), core:dataset (a data file
// of another name), core:metadata_only (rejected: no samples); from captures[0]:
// core:frequency (the centre frequency, default 0), core:datetime (the start time) and
// core:header_bytes (bytes before the samples); from each later capture a core:frequency that
// differs, a retune from its core:sample_start on (StreamInfo::retunes); and every annotation
// (core:sample_start, core:sample_count, core:freq_lower_edge, core:freq_upper_edge, core:label,
// core:comment) as StreamInfo::annotations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/source.hpp"
#include "pipeline/stream_info.hpp"
#include "sources/input_file.hpp"
#include "sources/open_source.hpp"

namespace prism {

// A SigMF recording located and checked, its samples not yet read.
struct SigmfRecording {
  std::string meta_path;        // the .sigmf-meta, or the archive
  std::string data_path;        // the .sigmf-data, or the archive
  bool archive = false;         // both live in the tar archive at data_path
  std::string meta_name;        // the meta file's name for messages (archive: "x.sigmf:rec/rec.sigmf-meta")
  std::string data_name;        // the same for the data
  std::uint64_t data_offset = 0;  // bytes into data_path where the samples begin
  std::uint64_t data_bytes = 0;   // bytes of samples
  std::string datatype;         // as the metadata spells it, e.g. "ci16_le"
  bool big_endian = false;      // the samples need byte-swapping
  StreamInfo info;              // format, rate, centre frequency, channels, start, length
  std::string truncation;       // what is missing when the data ends in a partial sample
  nlohmann::json meta;          // the whole metadata document
};

// True when `input` names a SigMF recording by its form: it ends with .sigmf-meta,
// .sigmf-data or .sigmf, or `input`.sigmf-meta exists.
bool is_sigmf_input(const std::string& input);

// Locates and checks the recording `path` names. Throws InputError naming the metadata or
// data file and what is wrong: missing data file, invalid JSON (with the parser's position),
// a missing or wrong field, an unsupported datatype (listing the supported ones), a data
// length that is not a whole number of samples.
SigmfRecording read_sigmf_recording(const std::string& path);

// The checks read_sigmf_recording makes once the files are found, on metadata already read:
// `meta_text` parsed as the metadata named `meta_name`, its samples being the `data_bytes` bytes
// of the data file `data_name` (core:dataset is not followed). Touches no file. Throws like
// read_sigmf_recording.
SigmfRecording parse_sigmf_recording(const std::string& meta_text, const std::string& meta_name,
                                     const std::string& data_name, std::uint64_t data_bytes);

// The recording described for `prism info`: container, paths, datatype, format, channels,
// sample_rate, center_frequency, length_samples, duration_s, start_time, file_size, the count of
// captures, the retunes (sample_start, time_s, center_frequency), the annotations (sample_start,
// time_s, sample_count, freq_lower_edge, freq_upper_edge, label, comment), and the global core fields that describe it (description, author,
// hw, recorder, version, license) where present.
nlohmann::json describe_sigmf(const std::string& path);
nlohmann::json describe_sigmf(const SigmfRecording& recording);

// The datatypes the source reads, for messages: "cf32_le, ci16_le, ...".
std::string sigmf_supported_datatypes();

class SigmfSource final : public Source {
 public:
  // Throws like read_sigmf_recording.
  // Data ending in a partial sample is handled by `truncation`.
  explicit SigmfSource(const std::string& path, TruncationPolicy truncation = {});

  const StreamInfo& info() const override { return recording_.info; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  bool start_at(std::uint64_t sample) override;
  std::string describe() const override { return recording_.meta_path; }

  const SigmfRecording& recording() const { return recording_; }

  // Labels the stream with another centre frequency; retunes and annotations move with it.
  // Call before the run starts.
  void set_center_frequency(double hz) {
    recording_.info.shift_frequencies(hz - recording_.info.center_frequency);
  }

 private:
  FileDescriptor data_fd_;  // before recording_: the constructor fills it while building that
  SigmfRecording recording_;
  std::uint64_t position_ = 0;  // bytes of samples read so far
  ParallelFileReader reader_;   // of data_fd_
};

}  // namespace prism
