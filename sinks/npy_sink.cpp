// NpySink: rows or samples streamed into a .npy file, with a JSON sidecar (see npy_sink.hpp).
#include "sinks/npy_sink.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/iso8601.hpp"
#include "sinks/row_encoding.hpp"

namespace prism {
namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr std::size_t kNpyPreambleBytes = 10;  // magic (6), version (2), header length (2)
constexpr std::size_t kNpyAlignment = 64;       // the NPY spec's alignment of the data
constexpr std::uint64_t kWidestRowCount = 18446744073709551615ull;  // 20 digits

std::string quantity_name(SpectrumQuantity q) {
  switch (q) {
    case SpectrumQuantity::power_spectral_density: return "power_spectral_density";
    case SpectrumQuantity::power_spectrum: return "power_spectrum";
    case SpectrumQuantity::magnitude_density: return "magnitude_density";
    case SpectrumQuantity::magnitude_spectrum: return "magnitude_spectrum";
    case SpectrumQuantity::complex_density: return "complex_density";
    case SpectrumQuantity::complex_spectrum: return "complex_spectrum";
    case SpectrumQuantity::angle: return "angle";
    case SpectrumQuantity::phase: return "phase";
    case SpectrumQuantity::mel: return "mel_spectrogram";
    case SpectrumQuantity::mfcc_of_decibels: return "mfcc";
    case SpectrumQuantity::mfcc_of_log: return "mfcc_of_log_mels";
  }
  return "unknown";
}

// What the columns are (sidecar key column_axis).
std::string column_axis_name(ColumnAxis axis) {
  switch (axis) {
    case ColumnAxis::frequency: return "frequency";
    case ColumnAxis::mel_band: return "mel_band";
    case ColumnAxis::cepstral_coefficient: return "cepstral_coefficient";
  }
  return "unknown";
}

std::string npy_dictionary(const std::string& descr, std::uint64_t rows, const std::vector<std::size_t>& trailing) {
  std::string shape = "(" + std::to_string(rows) + ",";
  for (std::size_t d : trailing) shape += " " + std::to_string(d) + ",";
  if (!trailing.empty()) shape.pop_back();
  shape += ")";
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

// numpy's description of one component of a sample format, and whether numpy has a complex type
// for it (complex integers get a trailing axis of 2 instead).
struct NumpyType {
  std::string descr;
  bool complex_type = false;
};
NumpyType numpy_type(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32: return {"<f4", false};
    case SampleFormat::cf32: return {"<c8", true};
    case SampleFormat::i16:
    case SampleFormat::ci16: return {"<i2", false};
    case SampleFormat::i8:
    case SampleFormat::ci8: return {"|i1", false};
    case SampleFormat::u8:
    case SampleFormat::cu8: return {"|u1", false};
    case SampleFormat::f64: return {"<f8", false};
    case SampleFormat::cf64: return {"<c16", true};
    case SampleFormat::i32:
    case SampleFormat::ci32: return {"<i4", false};
    case SampleFormat::u16:
    case SampleFormat::cu16: return {"<u2", false};
    case SampleFormat::u32:
    case SampleFormat::cu32: return {"<u4", false};
  }
  return {"<f4", false};
}

// The stream's retunes and annotations, and its start as seconds since 1970 when its start time
// is an ISO 8601 date-time, for sidecars. `row_of` gives the first row at or after a time
// (null for samples).
void add_stream_labels(nlohmann::json& out, const StreamInfo& in,
                       const std::function<std::optional<std::uint64_t>(double)>& row_of) {
  const auto epoch = iso8601_epoch_seconds(in.start_time);
  out["start_epoch_s"] = epoch ? nlohmann::json(*epoch) : nlohmann::json(nullptr);
  nlohmann::json retunes = nlohmann::json::array();
  for (const Retune& r : in.retunes) {
    nlohmann::json entry = {{"time_s", r.time}, {"center_frequency", r.center_frequency}};
    if (const auto row = row_of(r.time)) entry["first_row"] = *row;
    retunes.push_back(std::move(entry));
  }
  out["retunes"] = retunes;
  nlohmann::json annotations = nlohmann::json::array();
  for (const Annotation& a : in.annotations) {
    auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    annotations.push_back({{"time_start_s", a.start}, {"duration_s", optional(a.duration)},
                           {"freq_lower_edge", optional(a.frequency_low)},
                           {"freq_upper_edge", optional(a.frequency_high)}, {"label", a.label},
                           {"comment", a.comment}});
  }
  out["annotations"] = annotations;
}

std::string dtype_descr(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::float32: return "<f4";
    case NpyDtype::float16: return "<f2";
    case NpyDtype::uint8: return "|u1";
  }
  return "<f4";
}

std::string dtype_name(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::float32: return "float32";
    case NpyDtype::float16: return "float16";
    case NpyDtype::uint8: return "uint8";
  }
  return "float32";
}

std::size_t dtype_bytes(NpyDtype dtype) {
  return dtype == NpyDtype::float32 ? 4 : dtype == NpyDtype::float16 ? 2 : 1;
}

// One JSON value on one line.
std::string compact(const nlohmann::json& value) {
  // Non-ASCII text is escaped and invalid UTF-8 replaced, so that no parameter string can make
  // the sidecar unreadable or make dump() throw.
  return value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace

NpySink::NpySink(std::string path, const SinkOptions& options)
    : path_(std::move(path)),
      sidecar_path_(path_ == PartialFile::kStdout ? options.stdout_sidecar : sidecar_path_for(path_)),
      dtype_(options.npy_dtype),
      data_file_(path_) {
  if (!sidecar_path_.empty()) sidecar_file_ = std::make_unique<PartialFile>(sidecar_path_);
  if (dtype_ == NpyDtype::uint8) {
    if (!options.db_min || !options.db_max || !std::isfinite(*options.db_min) || !std::isfinite(*options.db_max) ||
        !(*options.db_min < *options.db_max))
      throw UsageError(path_ + ": uint8 rows need the dB range they span (db_min < db_max)");
    scale_offset_ = *options.db_min;
    scale_step_ = (*options.db_max - *options.db_min) / 255.0;
  }
}

NpySink::~NpySink() = default;  // the PartialFiles remove what was not committed

std::string NpySink::sidecar_path_for(const std::string& npy_path) {
  std::filesystem::path p(npy_path);
  // Never let the sidecar overwrite the data (a data file that is itself called *.json).
  if (p.extension() == ".json") return npy_path + ".json";
  p.replace_extension(".json");
  return p.string();
}

std::string NpySink::npy_header(const std::string& descr, std::uint64_t rows, const std::vector<std::size_t>& trailing,
                                std::size_t total_bytes) {
  if (total_bytes == 0) {
    const std::size_t widest = kNpyPreambleBytes + npy_dictionary(descr, kWidestRowCount, trailing).size() + 1;
    total_bytes = (widest + kNpyAlignment - 1) / kNpyAlignment * kNpyAlignment;
  }
  const std::string dictionary = npy_dictionary(descr, rows, trailing);
  const std::size_t used = kNpyPreambleBytes + dictionary.size() + 1;  // + '\n'
  if (used > total_bytes || total_bytes - kNpyPreambleBytes > 0xFFFF)
    throw std::logic_error("NPY header does not fit the reserved size");
  const std::size_t header_length = total_bytes - kNpyPreambleBytes;

  std::string header(kNpyMagic, 6);
  header += '\x01';  // format version 1.0
  header += '\x00';
  header += static_cast<char>(header_length & 0xFF);  // little-endian uint16
  header += static_cast<char>((header_length >> 8) & 0xFF);
  header += dictionary;
  header.append(total_bytes - used, ' ');
  header += '\n';
  return header;
}

void NpySink::check_input(const PortDescription& input) const {
  if (dtype_ == NpyDtype::float32 || input.kind != PortKind::rows) return;  // samples keep their format
  const std::string output = path_ == PartialFile::kStdout ? "stdout" : path_;
  if (input.rows.complex_values)
    throw UsageError(output + ": " + dtype_name(dtype_) + " cannot hold complex rows; store them as float32");
  if (input.rows.double_values)
    throw UsageError(output + ": the rows are in double precision (the spectrogram's precision double), written as "
                     "float64; a " + dtype_name(dtype_) + " output dtype would throw that precision away: ask for one "
                     "or the other");
  if (dtype_ == NpyDtype::uint8 && !input.rows.decibels) {
    if (input.rows.has_decibel_form())
      throw UsageError(output + ": uint8 holds dB values, but these rows are " + input.rows.unit() +
                       "; have the spectrogram give dB (its db setting)");
    const std::string what = input.rows.column_axis == ColumnAxis::cepstral_coefficient
                                 ? "cepstral coefficients"
                                 : "angles in " + input.rows.unit();
    throw UsageError(output + ": uint8 holds levels in dB, but these rows are " + what +
                     ", not levels; store them as float32 or float16");
  }
}

void NpySink::begin(const PortDescription& input) {
  if (begun_) throw std::logic_error("NpySink::begin called twice");
  check_input(input);
  input_ = input;
  if (input.kind == PortKind::rows) {
    descr_ = input.rows.double_values ? (input.rows.complex_values ? "<c16" : "<f8")
                                      : (input.rows.complex_values ? "<c8" : dtype_descr(dtype_));
    trailing_ = {input.rows.columns};
    if (input.rows.full_scale_power) full_scale_db_ = 10.0 * std::log10(*input.rows.full_scale_power);
  } else {
    const NumpyType type = numpy_type(input.samples.format);
    descr_ = type.descr;
    trailing_.clear();
    if (input.samples.channels > 1) trailing_.push_back(input.samples.channels);
    if (is_complex(input.samples.format) && !type.complex_type) trailing_.push_back(2);
  }
  const std::string header = npy_header(descr_, 0, trailing_);
  header_bytes_ = header.size();
  data_file_.open();
  try {
    data_file_.write(header.data(), header.size());
    // Create the sidecar's partial file now too, so that a problem with it shows before any
    // processing rather than at the end of a long run.
    if (sidecar_file_) sidecar_file_->open();
  } catch (...) {
    data_file_.discard();
    if (sidecar_file_) sidecar_file_->discard();
    throw;
  }
  begun_ = true;
}

void NpySink::write(const Chunk& chunk) {
  const std::size_t count = chunk.items;
  const std::uint64_t first_row = chunk.first_item;
  if (!begun_ || finished_) throw std::logic_error("NpySink::write outside begin()/finish()");
  if (count == 0) return;
  if (chunk.data == nullptr) throw std::invalid_argument("NpySink::write: no data");
  if (!first_row_) first_row_ = first_row;
  if (first_row != *first_row_ + rows_written_) {
    throw std::logic_error("NpySink::write: item " + std::to_string(first_row) + " arrived where item " +
                           std::to_string(*first_row_ + rows_written_) + " was due");
  }
  // Items are little-endian already (rows are written on little-endian hosts only: the file's
  // descr says '<').
  static_assert(std::endian::native == std::endian::little, "NPY output assumes a little-endian host");
  if (input_.kind == PortKind::rows && dtype_ != NpyDtype::float32) {
    write_converted(reinterpret_cast<const float*>(chunk.data), count * input_.rows.columns);
  } else {
    data_file_.write(chunk.data, count * input_.item_bytes());
  }
  rows_written_ += count;
}

void NpySink::write_converted(const float* values, std::size_t count) {
  const std::size_t bytes = count * dtype_bytes(dtype_);
  converted_.resize((bytes + 1) / 2);
  if (dtype_ == NpyDtype::float16) {
    encode_halves(values, count, converted_.data());
  } else {
    const double zero_db = full_scale_db_.value_or(0.0) + scale_offset_;  // the rows' dB of level 0
    encode_levels(values, count, zero_db, scale_step_, reinterpret_cast<std::uint8_t*>(converted_.data()));
  }
  data_file_.write(converted_.data(), bytes);
}

void NpySink::write_sidecar(bool complete) {
  const StreamInfo& in = input_.kind == PortKind::rows ? input_.rows.stream : input_.samples;
  nlohmann::json input = {
      {"format", std::string(format_name(in.format))},
      {"sample_rate", in.sample_rate},
      {"channels", in.channels},
      {"center_frequency", in.center_frequency},
      {"start_time", in.start_time.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.start_time)},
      {"length", in.length ? nlohmann::json(*in.length) : nlohmann::json(nullptr)},
      {"live", in.live},
  };
  if (input_.kind == PortKind::samples) {
    write_samples_sidecar(complete);
    return;
  }
  const SpectrumLayout& layout = input_.rows;
  const nlohmann::json parameters = layout.parameters_json.empty()
                                        ? nlohmann::json::object()
                                        : nlohmann::json::parse(layout.parameters_json);

  // Small fields first, so that the head of the file is readable; the long arrays last,
  // written value by value so that a long recording's times need no second copy in memory.
  std::string text = "{\n";
  auto field = [&text](const char* key, const nlohmann::json& value) {
    text += "  \"";
    text += key;
    text += "\": ";
    text += compact(value);
    text += ",\n";
  };
  field("data", data_name());
  field("dtype", layout.double_values ? (layout.complex_values ? "complex128" : "float64")
                                     : (layout.complex_values ? "complex64" : dtype_name(dtype_)));
  field("precision", layout.double_values ? "double" : "single");
  if (dtype_ == NpyDtype::uint8)
    field("scale", {{"offset", scale_offset_}, {"step", scale_step_}, {"unit", full_scale_db_ ? "dBFS" : "dB"}});
  field("shape", {rows_written_, layout.columns});
  field("rows", rows_written_);
  field("complete", complete);
  field("quantity", quantity_name(layout.quantity));
  field("unit", layout.unit());
  field("decibels", layout.decibels);
  // Integer input: the 0 dBFS reference in the rows' linear quantity (spectrum_layout.hpp).
  field("full_scale_power", layout.full_scale_power ? nlohmann::json(*layout.full_scale_power) : nlohmann::json(nullptr));
  field("column_axis", column_axis_name(layout.column_axis));
  if (layout.column_axis == ColumnAxis::cepstral_coefficient) {
    nlohmann::json coefficients = nlohmann::json::array();
    for (std::size_t i = 0; i < layout.columns; ++i) coefficients.push_back(i);
    field("coefficients", coefficients);
  }
  field("center_frequency", in.center_frequency);
  field("first_row_time", layout.row_time(first_row_.value_or(0)));
  field("row_interval", layout.row_interval);
  field("input", input);
  field("parameters", parameters);
  {
    // A retune's first row: the first whose centre time is at or after it.
    nlohmann::json labels = nlohmann::json::object();
    add_stream_labels(labels, in, [&layout](double time) -> std::optional<std::uint64_t> {
      if (!(layout.row_interval > 0.0)) return std::nullopt;
      const double rows = std::ceil((time - layout.first_row_time) / layout.row_interval);
      return static_cast<std::uint64_t>(std::max(rows, 0.0));
    });
    for (const auto& [key, value] : labels.items()) field(key.c_str(), value);
  }
  text += "  \"frequencies\": [";
  for (std::size_t i = 0; i < layout.frequencies.size(); ++i) {
    if (i) text += ", ";
    text += compact(layout.frequencies[i]);
  }
  text += "],\n  \"times\": [";
  sidecar_file_->write(text.data(), text.size());

  const std::uint64_t first = first_row_.value_or(0);
  std::string chunk;
  // One time per row, a long recording's millions: each is appended as text directly, since a
  // JSON value of its own per row is several times slower and this runs after the last row.
  for (std::uint64_t i = 0; i < rows_written_; ++i) {
    if (i) chunk += ", ";
    const double time = layout.row_time(first + i);
    if (std::isfinite(time)) {
      append_python_float(chunk, time);
    } else {
      chunk += "null";  // as nlohmann::json writes a number JSON cannot hold
    }
    if (chunk.size() > 60000) {
      sidecar_file_->write(chunk.data(), chunk.size());
      chunk.clear();
    }
  }
  chunk += "]\n}\n";
  sidecar_file_->write(chunk.data(), chunk.size());
}

void NpySink::write_samples_sidecar(bool complete) {
  const StreamInfo& in = input_.samples;
  std::vector<std::uint64_t> shape = {rows_written_};
  shape.insert(shape.end(), trailing_.begin(), trailing_.end());
  nlohmann::json sidecar = {
      {"data", data_name()},
      {"dtype", descr_},
      {"shape", shape},
      {"samples", rows_written_},
      {"complete", complete},
      {"format", std::string(format_name(in.format))},
      {"sample_rate", in.sample_rate},
      {"center_frequency", in.center_frequency},
      {"channels", in.channels},
      {"start_time", in.start_time.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.start_time)},
      {"first_sample", first_row_.value_or(0)},
      {"start_offset_s", in.start_offset_s},
  };
  // The sample of this output a time from the recording's start falls on (counted from its first
  // sample, as the SigMF writer counts).
  add_stream_labels(sidecar, in, [&in](double time) -> std::optional<std::uint64_t> {
    return static_cast<std::uint64_t>(std::llround(std::max(time - in.start_offset_s, 0.0) * in.sample_rate));
  });
  const std::string text = sidecar.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
  sidecar_file_->write(text.data(), text.size());
}

nlohmann::json NpySink::data_name() const {
  if (path_ == PartialFile::kStdout) return nullptr;  // stdout has no file name
  return std::filesystem::path(path_).filename().string();
}

void NpySink::finish(bool complete) {
  if (!begun_ || finished_) return;
  try {
    const std::string header = npy_header(descr_, rows_written_, trailing_, header_bytes_);
    data_file_.write_at(0, header.data(), header.size());
    data_file_.close();
    if (sidecar_file_) {
      write_sidecar(complete);
      sidecar_file_->close();
    }
    data_file_.publish();
    if (sidecar_file_) sidecar_file_->publish();
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void NpySink::abort() noexcept {
  if (finished_) return;  // committed output stays
  data_file_.discard();
  if (sidecar_file_) sidecar_file_->discard();
  finished_ = true;
}

std::string NpySink::describe() const {
  const std::string data = path_ == PartialFile::kStdout ? "stdout (.npy)" : path_;
  return sidecar_path_.empty() ? data : data + " (+ " + sidecar_path_ + ")";
}

}  // namespace prism
