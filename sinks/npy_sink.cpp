// NpySink: rows streamed into a .npy file, with a JSON sidecar (see npy_sink.hpp).
#include "sinks/npy_sink.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"

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
  }
  return "unknown";
}

std::string npy_dictionary(std::uint64_t rows, std::size_t columns) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
         std::to_string(columns) + "), }";
}

// One JSON value on one line.
std::string compact(const nlohmann::json& value) {
  // Non-ASCII text is escaped and invalid UTF-8 replaced, so that no parameter string can make
  // the sidecar unreadable or make dump() throw.
  return value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace

NpySink::NpySink(std::string path)
    : path_(std::move(path)),
      sidecar_path_(sidecar_path_for(path_)),
      data_file_(path_),
      sidecar_file_(sidecar_path_) {}

NpySink::~NpySink() = default;  // the PartialFiles remove what was not committed

std::string NpySink::sidecar_path_for(const std::string& npy_path) {
  std::filesystem::path p(npy_path);
  // Never let the sidecar overwrite the data (a data file that is itself called *.json).
  if (p.extension() == ".json") return npy_path + ".json";
  p.replace_extension(".json");
  return p.string();
}

std::string NpySink::npy_header(std::uint64_t rows, std::size_t columns,
                                std::size_t total_bytes) {
  if (total_bytes == 0) {
    const std::size_t widest = kNpyPreambleBytes + npy_dictionary(kWidestRowCount, columns).size() + 1;
    total_bytes = (widest + kNpyAlignment - 1) / kNpyAlignment * kNpyAlignment;
  }
  const std::string dictionary = npy_dictionary(rows, columns);
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

void NpySink::begin(const PortDescription& input) {
  const SpectrumLayout& layout = input.rows;
  if (begun_) throw std::logic_error("NpySink::begin called twice");
  layout_ = layout;
  const std::string header = npy_header(0, layout_.columns);
  header_bytes_ = header.size();
  data_file_.open();
  try {
    data_file_.write(header.data(), header.size());
    // Create the sidecar's partial file now too, so that a problem with it shows before any
    // processing rather than at the end of a long run.
    sidecar_file_.open();
  } catch (...) {
    data_file_.discard();
    sidecar_file_.discard();
    throw;
  }
  begun_ = true;
}

void NpySink::write(const Chunk& chunk) {
  const float* rows = chunk.as<float>();
  const std::size_t count = chunk.items;
  const std::uint64_t first_row = chunk.first_item;
  if (!begun_ || finished_) throw std::logic_error("NpySink::write outside begin()/finish()");
  if (count == 0) return;
  if (rows == nullptr) throw std::invalid_argument("NpySink::write: null rows");
  if (!first_row_) first_row_ = first_row;
  if (first_row != *first_row_ + rows_written_) {
    throw std::logic_error("NpySink::write: row " + std::to_string(first_row) +
                           " arrived where row " + std::to_string(*first_row_ + rows_written_) +
                           " was due");
  }
  const std::size_t values = count * layout_.columns;
  if constexpr (std::endian::native == std::endian::little) {
    data_file_.write(rows, values * sizeof(float));
  } else {
    std::vector<float> swapped(rows, rows + values);
    for (auto& v : swapped) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      bits = ((bits & 0xFFu) << 24) | ((bits & 0xFF00u) << 8) | ((bits >> 8) & 0xFF00u) |
             (bits >> 24);
      std::memcpy(&v, &bits, 4);
    }
    data_file_.write(swapped.data(), values * sizeof(float));
  }
  rows_written_ += count;
}

void NpySink::write_sidecar(bool complete) {
  const StreamInfo& in = layout_.stream;
  nlohmann::json input = {
      {"format", std::string(format_name(in.format))},
      {"sample_rate", in.sample_rate},
      {"channels", in.channels},
      {"center_frequency", in.center_frequency},
      {"start_time", in.start_time.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.start_time)},
      {"length", in.length ? nlohmann::json(*in.length) : nlohmann::json(nullptr)},
      {"live", in.live},
  };
  const nlohmann::json parameters =
      layout_.parameters.is_null() ? nlohmann::json::object() : layout_.parameters;

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
  field("data", std::filesystem::path(path_).filename().string());
  field("dtype", "float32");
  field("shape", {rows_written_, layout_.columns});
  field("rows", rows_written_);
  field("complete", complete);
  field("quantity", quantity_name(layout_.quantity));
  field("unit", layout_.unit());
  field("decibels", layout_.decibels);
  field("center_frequency", in.center_frequency);
  field("first_row_time", layout_.row_time(first_row_.value_or(0)));
  field("row_interval", layout_.row_interval);
  field("input", input);
  field("parameters", parameters);
  text += "  \"frequencies\": [";
  for (std::size_t i = 0; i < layout_.frequencies.size(); ++i) {
    if (i) text += ", ";
    text += compact(layout_.frequencies[i]);
  }
  text += "],\n  \"times\": [";
  sidecar_file_.write(text.data(), text.size());

  const std::uint64_t first = first_row_.value_or(0);
  std::string chunk;
  for (std::uint64_t i = 0; i < rows_written_; ++i) {
    if (i) chunk += ", ";
    chunk += compact(layout_.row_time(first + i));
    if (chunk.size() > 60000) {
      sidecar_file_.write(chunk.data(), chunk.size());
      chunk.clear();
    }
  }
  chunk += "]\n}\n";
  sidecar_file_.write(chunk.data(), chunk.size());
}

void NpySink::finish(bool complete) {
  if (!begun_ || finished_) return;
  try {
    const std::string header = npy_header(rows_written_, layout_.columns, header_bytes_);
    data_file_.write_at(0, header.data(), header.size());
    data_file_.close();
    write_sidecar(complete);
    sidecar_file_.close();
    data_file_.publish();
    sidecar_file_.publish();
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void NpySink::abort() noexcept {
  if (finished_) return;  // committed output stays
  data_file_.discard();
  sidecar_file_.discard();
  finished_ = true;
}

std::string NpySink::describe() const {
  return path_ + " (+ " + sidecar_path_ + ")";
}

}  // namespace prism
