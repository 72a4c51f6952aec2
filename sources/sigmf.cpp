// SigMF recordings: locating the files, reading the metadata, reading the samples
// (see sigmf.hpp).
#include "sources/sigmf.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "pipeline/errors.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"

namespace prism {

namespace {

using json = nlohmann::json;

constexpr std::string_view kMetaExtension = ".sigmf-meta";
constexpr std::string_view kDataExtension = ".sigmf-data";
constexpr std::string_view kArchiveExtension = ".sigmf";

// Metadata is JSON text; beyond this it is not metadata but the wrong file.
constexpr std::uint64_t kMaxMetaBytes = 256ull << 20;
constexpr std::uint64_t kMaxChannels = 65536;

struct SigmfDatatype {
  std::string name;
  StoredFormat stored;
};

// SigMF's core datatypes: every format's little-endian name, and "_be" for those of more than
// one byte per component (SigMF gives 8-bit types no byte order).
const std::vector<SigmfDatatype>& sigmf_datatypes() {
  static const std::vector<SigmfDatatype> types = [] {
    std::vector<SigmfDatatype> t;
    for (const SampleFormat f : kAllFormats) t.push_back({std::string(sigmf_datatype(f)), {f, false}});
    for (const SampleFormat f : kAllFormats)
      if (component_bytes(f) > 1) {
        std::string name(sigmf_datatype(f));
        t.push_back({name.substr(0, name.size() - 3) + "_be", {f, true}});
      }
    return t;
  }();
  return types;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string without_suffix(const std::string& path, std::string_view suffix) {
  return path.substr(0, path.size() - suffix.size());
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// nlohmann's message without its "[json.exception.parse_error.101] " tag: the position and
// what was expected are what a user needs.
// Its "last read" part quotes the input, which may be any bytes: those outside printable
// ASCII are written as \xNN so the message stays one line of valid text.
std::string json_error_text(const std::exception& e) {
  std::string text = e.what();
  if (text.starts_with("[json.exception.")) {
    const auto end = text.find("] ");
    if (end != std::string::npos) text = text.substr(end + 2);
  }
  return printable(text);
}

std::string read_text(int fd, std::uint64_t offset, std::uint64_t bytes, const std::string& name) {
  if (bytes > kMaxMetaBytes)
    throw InputError(name, std::to_string(bytes) + " bytes is too large for SigMF metadata (over " +
                               std::to_string(kMaxMetaBytes >> 20) + " MiB)");
  std::string text(static_cast<std::size_t>(bytes), '\0');
  const std::size_t got =
      pread_fully(fd, reinterpret_cast<std::byte*>(text.data()), text.size(), offset, name);
  text.resize(got);
  return text;
}

// ---- tar archives (.sigmf) ------------------------------------------------------------------

struct TarMember {
  std::string name;
  std::uint64_t offset = 0;  // of its contents
  std::uint64_t size = 0;
};

// A numeric tar header field: octal text, or base-256 when the high bit of the first byte is
// set (GNU's form for sizes of 8 GiB and more).
std::optional<std::uint64_t> tar_number(const unsigned char* field, std::size_t length) {
  if (field[0] & 0x80) {
    std::uint64_t value = field[0] & 0x7f;
    for (std::size_t i = 1; i < length; ++i) {
      if (value > (std::numeric_limits<std::uint64_t>::max() >> 8)) return std::nullopt;
      value = (value << 8) | field[i];
    }
    return value;
  }
  std::uint64_t value = 0;
  std::size_t i = 0;
  while (i < length && field[i] == ' ') ++i;
  bool any = false;
  for (; i < length && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (value > (std::numeric_limits<std::uint64_t>::max() >> 3)) return std::nullopt;
    value = value * 8 + (field[i] - '0');
    any = true;
  }
  for (; i < length; ++i)
    if (field[i] != ' ' && field[i] != '\0') return std::nullopt;
  if (!any) return std::nullopt;
  return value;
}

std::string tar_string(const unsigned char* field, std::size_t length) {
  const auto* end = std::find(field, field + length, 0);
  return std::string(reinterpret_cast<const char*>(field), static_cast<std::size_t>(end - field));
}

// The value of `key` in a pax extended header ("<len> key=value\n" records).
std::optional<std::string> pax_value(const std::string& records, std::string_view key) {
  std::size_t pos = 0;
  while (pos < records.size()) {
    const auto space = records.find(' ', pos);
    if (space == std::string::npos) break;
    std::size_t length = 0;
    try {
      length = std::stoul(records.substr(pos, space - pos));
    } catch (const std::exception&) {
      break;
    }
    if (length == 0 || pos + length > records.size()) break;
    const std::string record = records.substr(space + 1, pos + length - space - 2);  // no '\n'
    const auto eq = record.find('=');
    if (eq != std::string::npos && record.compare(0, eq, key) == 0) return record.substr(eq + 1);
    pos += length;
  }
  return std::nullopt;
}

std::vector<TarMember> list_tar_members(int fd, std::uint64_t file_size, const std::string& path) {
  std::vector<TarMember> members;
  std::optional<std::string> next_name;  // from a pax or GNU long-name header
  std::uint64_t offset = 0;
  while (offset + 512 <= file_size) {
    unsigned char header[512];
    if (pread_fully(fd, reinterpret_cast<std::byte*>(header), 512, offset, path) != 512)
      throw InputError(path, "archive ended inside a tar header at byte " + std::to_string(offset));
    if (std::all_of(header, header + 512, [](unsigned char c) { return c == 0; })) break;

    const auto recorded_sum = tar_number(header + 148, 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : header[i];
    if (!recorded_sum || *recorded_sum != sum)
      throw InputError(path, "not a SigMF archive: no valid tar header at byte " +
                                 std::to_string(offset));
    const auto size = tar_number(header + 124, 12);
    if (!size) throw InputError(path, "bad size field in the tar header at byte " +
                                          std::to_string(offset));
    const std::uint64_t contents = offset + 512;
    if (*size > file_size - contents)
      throw InputError(path, "archive is truncated: member '" + printable(tar_string(header, 100)) +
                                 "' needs " + std::to_string(*size) + " bytes from byte " +
                                 std::to_string(contents) + ", the file has " +
                                 std::to_string(file_size));

    std::string name = tar_string(header, 100);
    if (std::memcmp(header + 257, "ustar", 5) == 0) {
      const std::string prefix = tar_string(header + 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    const char type = static_cast<char>(header[156]);
    if (type == 'x') {
      next_name = pax_value(read_text(fd, contents, *size, path), "path");
    } else if (type == 'L') {
      std::string long_name = read_text(fd, contents, *size, path);
      next_name = long_name.substr(0, long_name.find('\0'));
    } else {
      if (type == '0' || type == '\0' || type == '7')
        members.push_back({next_name.value_or(name), contents, *size});
      next_name.reset();
    }
    offset = contents + (*size + 511) / 512 * 512;
  }
  return members;
}

// ---- metadata fields ------------------------------------------------------------------------

std::string found_text(const json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

double positive_number(const json& object, std::string_view field, std::string_view where,
                       const std::string& meta_name, bool required) {
  const auto it = object.find(field);
  if (it == object.end()) {
    if (required)
      throw InputError(meta_name, std::string(where) + " " + std::string(field) +
                                      " is missing (prism needs it)");
    return 0.0;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0.0)
    throw InputError(meta_name, std::string(where) + " " + std::string(field) +
                                    " must be a number > 0 (found " + found_text(*it) + ")");
  return it->get<double>();
}

std::optional<std::uint64_t> unsigned_field(const json& object, std::string_view field,
                                            std::string_view where, const std::string& meta_name) {
  const auto it = object.find(field);
  if (it == object.end()) return std::nullopt;
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
    throw InputError(meta_name, std::string(where) + " " + std::string(field) +
                                    " must be an unsigned integer (found " + found_text(*it) + ")");
  return it->get<std::uint64_t>();
}

std::optional<double> finite_number(const json& object, std::string_view field, const std::string& where,
                                    const std::string& meta_name) {
  const auto it = object.find(field);
  if (it == object.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    throw InputError(meta_name, where + " " + std::string(field) + " must be a number (found " + found_text(*it) +
                                    ")");
  return it->get<double>();
}

std::string text_field(const json& object, std::string_view field, const std::string& where,
                       const std::string& meta_name) {
  const auto it = object.find(field);
  if (it == object.end()) return {};
  if (!it->is_string())
    throw InputError(meta_name, where + " " + std::string(field) + " must be a string (found " + found_text(*it) +
                                    ")");
  return it->get<std::string>();
}

// Every capture: the first gives the header, the centre frequency and the start time; each later
// one that names another centre frequency is a retune from its core:sample_start on.
void apply_captures(SigmfRecording& rec, const json& captures) {
  const std::string& meta = rec.meta_name;
  if (!captures.is_array())
    throw InputError(meta, "\"captures\" must be an array (found " + found_text(captures) + ")");
  double frequency_now = 0.0;
  std::uint64_t previous_start = 0;
  for (std::size_t i = 0; i < captures.size(); ++i) {
    const json& capture = captures[i];
    const std::string where = "captures[" + std::to_string(i) + "]";
    if (!capture.is_object())
      throw InputError(meta, where + " must be an object (found " + found_text(capture) + ")");
    const auto header = unsigned_field(capture, "core:header_bytes", where, meta);
    const std::uint64_t start = unsigned_field(capture, "core:sample_start", where, meta).value_or(0);
    if (i > 0 && start < previous_start)
      throw InputError(meta, where + " core:sample_start " + std::to_string(start) +
                                 " comes before the previous capture's (" + std::to_string(previous_start) +
                                 "); captures must be in order");
    previous_start = start;
    const auto frequency = finite_number(capture, "core:frequency", where, meta);
    const std::string datetime = text_field(capture, "core:datetime", where, meta);
    if (i == 0) {
      rec.data_offset = header.value_or(0);
      rec.info.center_frequency = frequency.value_or(0.0);
      frequency_now = rec.info.center_frequency;
      rec.info.start_time = datetime;
      continue;
    }
    if (header.value_or(0) != 0)
      // Headers between captures cut the sample stream into pieces; not read (yet).
      throw InputError(meta, where + " has core:header_bytes; prism reads a header only "
                                     "before the first capture");
    if (frequency && *frequency != frequency_now) {
      if (start == 0) {
        rec.info.center_frequency = *frequency;  // a later capture from sample 0 restates the first
      } else {
        rec.info.retunes.push_back({static_cast<double>(start) / rec.info.sample_rate, *frequency});
      }
      frequency_now = *frequency;
    }
  }
}

// Every annotation, as a labelled region of the stream.
void apply_annotations(SigmfRecording& rec, const json& annotations) {
  const std::string& meta = rec.meta_name;
  if (!annotations.is_array())
    throw InputError(meta, "\"annotations\" must be an array (found " + found_text(annotations) + ")");
  const double rate = rec.info.sample_rate;
  for (std::size_t i = 0; i < annotations.size(); ++i) {
    const json& entry = annotations[i];
    const std::string where = "annotations[" + std::to_string(i) + "]";
    if (!entry.is_object())
      throw InputError(meta, where + " must be an object (found " + found_text(entry) + ")");
    const auto start = unsigned_field(entry, "core:sample_start", where, meta);
    if (!start) throw InputError(meta, where + " core:sample_start is missing");
    Annotation a;
    a.start = static_cast<double>(*start) / rate;
    if (const auto count = unsigned_field(entry, "core:sample_count", where, meta))
      a.duration = static_cast<double>(*count) / rate;
    a.frequency_low = finite_number(entry, "core:freq_lower_edge", where, meta);
    a.frequency_high = finite_number(entry, "core:freq_upper_edge", where, meta);
    if (a.frequency_low && a.frequency_high && *a.frequency_low > *a.frequency_high)
      throw InputError(meta, where + " core:freq_lower_edge is above its core:freq_upper_edge");
    a.label = text_field(entry, "core:label", where, meta);
    a.comment = text_field(entry, "core:comment", where, meta);
    rec.info.annotations.push_back(std::move(a));
  }
}

struct Located {
  std::string meta_path;
  std::string base;  // path without the extension: where the data file is looked for
};

Located locate(const std::string& path) {
  if (ends_with_ignoring_case(path, kMetaExtension))
    return {path, without_suffix(path, kMetaExtension)};
  if (ends_with_ignoring_case(path, kDataExtension)) {
    const std::string base = without_suffix(path, kDataExtension);
    return {base + std::string(kMetaExtension), base};
  }
  return {path + std::string(kMetaExtension), path};
}

// Fills everything the metadata says into `rec`; data_offset is relative to the start of the
// data member or file. Returns the name of the data file core:dataset gives, if any.
std::optional<std::string> apply_metadata(SigmfRecording& rec, const std::string& text) {
  const std::string& meta = rec.meta_name;
  try {
    rec.meta = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number beyond double's range ("1e400").
    throw InputError(meta, "invalid JSON: " + json_error_text(e));
  }
  if (!rec.meta.is_object())
    throw InputError(meta, "not SigMF metadata: the document is not a JSON object");
  const auto global_it = rec.meta.find("global");
  if (global_it == rec.meta.end() || !global_it->is_object())
    throw InputError(meta, "not SigMF metadata: no \"global\" object");
  const json& global = *global_it;

  const auto datatype_it = global.find("core:datatype");
  if (datatype_it == global.end())
    throw InputError(meta, "global core:datatype is missing (supported: " +
                               sigmf_supported_datatypes() + ")");
  if (!datatype_it->is_string())
    throw InputError(meta, "global core:datatype must be a string (found " +
                               found_text(*datatype_it) + ")");
  rec.datatype = datatype_it->get<std::string>();
  const auto& types = sigmf_datatypes();
  const auto type = std::find_if(types.begin(), types.end(),
                                 [&](const SigmfDatatype& d) { return d.name == rec.datatype; });
  if (type == types.end())
    throw InputError(meta, "unsupported core:datatype '" + printable(rec.datatype) + "' (supported: " +
                               sigmf_supported_datatypes() + ")");
  rec.info.format = type->stored.format;
  rec.big_endian = type->stored.big_endian;

  rec.info.sample_rate = positive_number(global, "core:sample_rate", "global", meta, true);
  const auto channels = unsigned_field(global, "core:num_channels", "global", meta);
  if (channels && (*channels < 1 || *channels > kMaxChannels))
    throw InputError(meta, "global core:num_channels must be between 1 and " +
                               std::to_string(kMaxChannels) + " (found " +
                               std::to_string(*channels) + ")");
  rec.info.channels = channels ? static_cast<unsigned>(*channels) : 1;

  const auto metadata_only = global.find("core:metadata_only");
  if (metadata_only != global.end() && metadata_only->is_boolean() && metadata_only->get<bool>())
    throw InputError(meta, "core:metadata_only is true: the recording has no samples");

  if (const auto captures = rec.meta.find("captures"); captures != rec.meta.end())
    apply_captures(rec, *captures);
  if (const auto annotations = rec.meta.find("annotations"); annotations != rec.meta.end())
    apply_annotations(rec, *annotations);

  const auto dataset = global.find("core:dataset");
  if (dataset != global.end()) {
    if (!dataset->is_string() || dataset->get<std::string>().empty())
      throw InputError(meta, "global core:dataset must be a file name (found " +
                                 found_text(*dataset) + ")");
    return dataset->get<std::string>();
  }
  return std::nullopt;
}

// Sets data_bytes and the length from the size of the data, after the header bytes.
void apply_data_size(SigmfRecording& rec, std::uint64_t size) {
  if (rec.data_offset > size)
    throw InputError(rec.data_name, "captures[0] core:header_bytes is " +
                                        std::to_string(rec.data_offset) + " but the data has only " +
                                        std::to_string(size) + " bytes");
  rec.data_bytes = size - rec.data_offset;
  const std::size_t frame = rec.info.frame_bytes();
  // A partial sample at the end: the whole ones are the recording (see TruncationPolicy).
  if (rec.data_bytes % frame != 0) {
    rec.truncation = not_whole_samples_reason(rec.data_bytes, frame, rec.info.channels, rec.datatype) + ", as " +
                     rec.meta_name + " describes them";
    rec.data_bytes -= rec.data_bytes % frame;
  }
  rec.info.length = rec.data_bytes / frame;
}

SigmfRecording read_archive(const std::string& path, FileDescriptor* data_fd) {
  OpenedInput archive = open_input_file(path);
  const auto members = list_tar_members(archive.fd.get(), archive.size, path);
  const auto meta_member = std::find_if(members.begin(), members.end(), [](const TarMember& m) {
    return ends_with_ignoring_case(m.name, kMetaExtension);
  });
  if (meta_member == members.end())
    throw InputError(path, "no .sigmf-meta file in the archive (" +
                               std::to_string(members.size()) + " files)");
  SigmfRecording rec;
  rec.archive = true;
  rec.meta_path = path;
  rec.data_path = path;
  rec.meta_name = path + ":" + printable(meta_member->name);
  const auto dataset = apply_metadata(
      rec, read_text(archive.fd.get(), meta_member->offset, meta_member->size, rec.meta_name));

  const std::string data_member_name =
      dataset ? directory_of(meta_member->name) + *dataset
              : without_suffix(meta_member->name, kMetaExtension) + std::string(kDataExtension);
  const auto data_member = std::find_if(members.begin(), members.end(), [&](const TarMember& m) {
    return m.name == data_member_name;
  });
  if (data_member == members.end())
    throw InputError(rec.meta_name, "its data file " + printable(data_member_name) +
                                        " is not in the archive");
  rec.data_name = path + ":" + printable(data_member->name);
  apply_data_size(rec, data_member->size);
  rec.data_offset += data_member->offset;
  if (data_fd) *data_fd = std::move(archive.fd);
  return rec;
}

// Locates and checks the recording; hands the open data file to `data_fd` when asked, so the
// file checked is the file read.
SigmfRecording open_recording(const std::string& path, FileDescriptor* data_fd) {
  if (ends_with_ignoring_case(path, kArchiveExtension)) return read_archive(path, data_fd);

  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
      !file_exists(path + std::string(kMetaExtension)))
    throw InputError(path, "is a directory, not a file");
  const Located located = locate(path);
  SigmfRecording rec;
  rec.meta_path = located.meta_path;
  rec.meta_name = located.meta_path;
  if (located.meta_path != path && !file_exists(located.meta_path))
    throw InputError(located.meta_path, "no such file (the SigMF metadata for " + path + ")");
  OpenedInput meta = open_input_file(located.meta_path);
  const auto dataset = apply_metadata(rec, read_text(meta.fd.get(), 0, meta.size, rec.meta_name));

  rec.data_path = dataset ? directory_of(located.meta_path) + *dataset
                          : located.base + std::string(kDataExtension);
  rec.data_name = rec.data_path;
  if (!file_exists(rec.data_path))
    throw InputError(rec.meta_path, "its data file " + rec.data_path + " does not exist");
  OpenedInput data = open_input_file(rec.data_path);
  if (!data.regular)
    throw InputError(rec.data_path, "is not a regular file (SigMF data must be a file)");
  apply_data_size(rec, data.size);
  if (data_fd) *data_fd = std::move(data.fd);
  return rec;
}

}  // namespace

std::string sigmf_supported_datatypes() {
  std::string text;
  for (const auto& d : sigmf_datatypes()) {
    if (!text.empty()) text += ", ";
    text += d.name;
  }
  return text;
}

bool is_sigmf_input(const std::string& input) {
  return ends_with_ignoring_case(input, kMetaExtension) ||
         ends_with_ignoring_case(input, kDataExtension) ||
         ends_with_ignoring_case(input, kArchiveExtension) ||
         file_exists(input + std::string(kMetaExtension));
}

SigmfRecording read_sigmf_recording(const std::string& path) {
  return open_recording(path, nullptr);
}

SigmfRecording parse_sigmf_recording(const std::string& meta_text, const std::string& meta_name,
                                     const std::string& data_name, std::uint64_t data_bytes) {
  SigmfRecording rec;
  rec.meta_path = meta_name;
  rec.meta_name = meta_name;
  apply_metadata(rec, meta_text);
  rec.data_path = data_name;
  rec.data_name = data_name;
  apply_data_size(rec, data_bytes);
  return rec;
}

SigmfSource::SigmfSource(const std::string& path, TruncationPolicy truncation)
    : recording_(open_recording(path, &data_fd_)), reader_(data_fd_.get(), recording_.data_name) {
  if (!recording_.truncation.empty()) truncation.apply(recording_.data_name, recording_.truncation);
}

std::size_t SigmfSource::read(std::byte* dst, std::size_t max_samples) {
  const std::size_t frame = recording_.info.frame_bytes();
  const std::uint64_t remaining_samples = (recording_.data_bytes - position_) / frame;
  const std::size_t bytes =
      static_cast<std::size_t>(std::min<std::uint64_t>(max_samples, remaining_samples)) * frame;
  if (bytes == 0) return 0;
  const std::size_t got =
      reader_.read_at(dst, bytes, recording_.data_offset + position_);
  if (got != bytes)
    throw InputError(recording_.data_name,
                     "ended after " + std::to_string(position_ + got) + " bytes of samples, " +
                         std::to_string(recording_.data_bytes) +
                         " expected (did the file shrink while it was read?)");
  position_ += bytes;
  if (recording_.big_endian) {
    const std::size_t width = component_bytes(recording_.info.format);
    swap_byte_order(dst, bytes / width, width);
  }
  return bytes / frame;
}

bool SigmfSource::start_at(std::uint64_t sample) {
  const std::uint64_t frame = recording_.info.frame_bytes();
  position_ = std::min<std::uint64_t>(sample, recording_.data_bytes / frame) * frame;
  return true;
}

nlohmann::json describe_sigmf(const std::string& path) {
  return describe_sigmf(read_sigmf_recording(path));
}

nlohmann::json describe_sigmf(const SigmfRecording& rec) {
  json d = describe_stream(rec.info);
  d["container"] = rec.archive ? "SigMF archive" : "SigMF";
  d["meta_path"] = rec.meta_name;
  d["data_path"] = rec.data_name;
  d["datatype"] = rec.datatype;
  d["data_bytes"] = rec.data_bytes;
  struct stat st {};
  if (::stat(rec.data_path.c_str(), &st) == 0) d["file_size"] = static_cast<std::uint64_t>(st.st_size);
  const json& global = rec.meta.at("global");
  for (const char* field :
       {"core:description", "core:author", "core:hw", "core:recorder", "core:version",
        "core:license"}) {
    const auto it = global.find(field);
    if (it != global.end()) d[std::string(field).substr(5)] = *it;
  }
  const auto captures = rec.meta.find("captures");
  d["captures"] = captures != rec.meta.end() ? captures->size() : 0;
  const double rate = rec.info.sample_rate;
  auto sample_of = [rate](double time) { return static_cast<std::uint64_t>(std::llround(time * rate)); };
  if (!rec.info.retunes.empty()) {
    json retunes = json::array();
    for (const Retune& r : rec.info.retunes)
      retunes.push_back({{"sample_start", sample_of(r.time)}, {"time_s", r.time},
                         {"center_frequency", r.center_frequency}});
    d["retunes"] = retunes;
  }
  json annotations = json::array();
  for (const Annotation& a : rec.info.annotations) {
    json entry = {{"sample_start", sample_of(a.start)}, {"time_s", a.start}};
    if (a.duration) entry["sample_count"] = sample_of(*a.duration);
    if (a.frequency_low) entry["freq_lower_edge"] = *a.frequency_low;
    if (a.frequency_high) entry["freq_upper_edge"] = *a.frequency_high;
    if (!a.label.empty()) entry["label"] = printable(a.label);
    if (!a.comment.empty()) entry["comment"] = printable(a.comment);
    annotations.push_back(std::move(entry));
  }
  d["annotations"] = annotations;
  return d;
}

}  // namespace prism
