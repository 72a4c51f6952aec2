// SndfileWriter: WAV/FLAC/OGG output through libsndfile (see sndfile_writer.hpp).
#include "sinks/sndfile_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <sndfile.h>

#include "pipeline/errors.hpp"

namespace prism {
namespace {

// Frames converted per libsndfile call: bounds the scratch buffers.
constexpr std::size_t kChunkFrames = 16384;

std::string lowercase(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string extension_of(const std::string& path) {
  return lowercase(std::filesystem::path(path).extension().string());
}

// "PCM_16", "pcm16", "pcm-16", "16" → "pcm16"; "" stays "".
std::string normalise_subtype(const std::string& option) {
  std::string s;
  for (char c : lowercase(option))
    if (c != '_' && c != '-' && c != ' ') s += c;
  if (s == "16" || s == "s16" || s == "int16") return "pcm16";
  if (s == "24" || s == "s24" || s == "int24") return "pcm24";
  if (s == "f32" || s == "float32") return "float";
  if (s == "ogg") return "vorbis";
  return s;
}

SNDFILE* as_sndfile(sf_private_tag* p) { return reinterpret_cast<SNDFILE*>(p); }

}  // namespace

// libsndfile's file operations on the PartialFile. A failed write is kept (the first one) and
// reported as a short count; the writer rethrows it, at the latest when the file is closed.
struct SndfileWriter::VirtualIo {
  static SndfileWriter& of(void* user) { return *static_cast<SndfileWriter*>(user); }
  static sf_count_t length(void* user) { return static_cast<sf_count_t>(of(user).file_out_.size()); }
  static sf_count_t seek(sf_count_t offset, int whence, void* user) {
    SndfileWriter& w = of(user);
    const sf_count_t base = whence == SEEK_CUR   ? static_cast<sf_count_t>(w.position_)
                            : whence == SEEK_END ? length(user)
                                                 : 0;
    if (base + offset < 0) return -1;
    w.position_ = static_cast<std::uint64_t>(base + offset);
    return static_cast<sf_count_t>(w.position_);
  }
  static sf_count_t read(void* dst, sf_count_t count, void* user) {
    SndfileWriter& w = of(user);
    if (count <= 0 || w.write_error_) return 0;
    try {
      const std::size_t got = w.file_out_.read_at(w.position_, dst, static_cast<std::size_t>(count));
      w.position_ += got;
      return static_cast<sf_count_t>(got);
    } catch (...) {
      w.write_error_ = std::current_exception();
      return 0;
    }
  }
  static sf_count_t write(const void* src, sf_count_t count, void* user) {
    SndfileWriter& w = of(user);
    if (count <= 0) return 0;
    if (w.write_error_) return 0;  // nothing after a failure: the file is lost anyway
    try {
      const auto bytes = static_cast<std::size_t>(count);
      if (w.position_ == w.file_out_.size()) w.file_out_.write(src, bytes);
      else w.file_out_.write_at(w.position_, src, bytes);
      w.position_ += bytes;
      return count;
    } catch (...) {
      w.write_error_ = std::current_exception();
      return 0;
    }
  }
  static sf_count_t tell(void* user) { return static_cast<sf_count_t>(of(user).position_); }
};

bool SndfileWriter::handles_extension(const std::string& path) {
  const std::string e = extension_of(path);
  return e == ".wav" || e == ".flac" || e == ".ogg" || e == ".aif" || e == ".aiff";
}

SndfileWriter::SndfileWriter(std::string path, SinkOptions options)
    : path_(std::move(path)), file_out_(path_), options_(std::move(options)) {
  const std::string e = extension_of(path_);
  if (e == ".wav") {
    container_ = Container::wav;
  } else if (e == ".flac") {
    container_ = Container::flac;
  } else if (e == ".ogg") {
    container_ = Container::ogg;
  } else if (e == ".aif" || e == ".aiff") {
    container_ = Container::aiff;
  } else {
    throw UsageError(path_ + ": audio output needs the extension .wav, .flac, .ogg, .aif or .aiff");
  }
  requested_subtype_ = normalise_subtype(options_.subtype);
  const std::string& s = requested_subtype_;
  if (!s.empty() && s != "float" && s != "pcm16" && s != "pcm24" && s != "vorbis") {
    throw UsageError("unknown --subtype '" + options_.subtype +
                     "'; choose float (WAV only), pcm16 or pcm24 (WAV, FLAC), vorbis (OGG)");
  }
}

SndfileWriter::~SndfileWriter() { abort(); }

std::string SndfileWriter::describe() const {
  return path_ + (chosen_subtype_.empty() ? "" : " (" + chosen_subtype_ + ")");
}

void SndfileWriter::begin(const PortDescription& input) {
  const StreamInfo& info = input.samples;
  if (begun_) throw std::logic_error("SndfileWriter::begin called twice");
  if (is_complex(info.format))
    throw UsageError("WAV/FLAC cannot hold complex samples; write SigMF (.sigmf-meta) instead");
  if (info.channels == 0) throw InputError(path_, "stream has no channels");
  if (!(info.sample_rate >= 1.0) || info.sample_rate > static_cast<double>(INT_MAX)) {
    throw UsageError(path_ + ": an audio file needs a sample rate of 1 Hz or more (got " +
                     std::to_string(info.sample_rate) + " Hz)");
  }
  info_ = info;

  std::string subtype = requested_subtype_;
  if (subtype.empty()) {
    if (container_ == Container::ogg) {
      subtype = "vorbis";
    } else if (is_float(info.format)) {
      subtype = container_ == Container::wav || container_ == Container::aiff ? "float" : "pcm24";
    } else if (component_bytes(info.format) == 4) {
      subtype = "pcm24";  // the most bits every container here holds
    } else {
      subtype = "pcm16";
    }
  }
  int format = 0;
  switch (container_) {
    case Container::wav:
      if (subtype == "vorbis") throw UsageError(path_ + ": WAV cannot hold Vorbis; use .ogg");
      format = SF_FORMAT_WAV;
      break;
    case Container::flac:
      if (subtype == "float" || subtype == "vorbis")
        throw UsageError(path_ + ": FLAC holds only PCM; use --subtype pcm16 or pcm24");
      format = SF_FORMAT_FLAC;
      break;
    case Container::aiff:
      if (subtype == "vorbis") throw UsageError(path_ + ": AIFF cannot hold Vorbis; use .ogg");
      format = SF_FORMAT_AIFF;
      break;
    case Container::ogg:
      if (subtype != "vorbis") throw UsageError(path_ + ": OGG output is Vorbis only");
      format = SF_FORMAT_OGG;
      break;
  }
  format |= subtype == "float"    ? SF_FORMAT_FLOAT
            : subtype == "pcm24"  ? SF_FORMAT_PCM_24
            : subtype == "vorbis" ? SF_FORMAT_VORBIS
                                  : SF_FORMAT_PCM_16;

  SF_INFO sf_info{};
  sf_info.samplerate = static_cast<int>(std::lround(info.sample_rate));
  sf_info.channels = static_cast<int>(std::min<unsigned>(info.channels, INT_MAX));
  sf_info.format = format;
  if (!sf_format_check(&sf_info)) {
    throw UsageError(path_ + ": libsndfile cannot write " + subtype + " with " +
                     std::to_string(info.channels) + " channels at " +
                     std::to_string(sf_info.samplerate) + " Hz into this container");
  }
  file_out_.open();
  position_ = 0;
  write_error_ = nullptr;
  static SF_VIRTUAL_IO io = {VirtualIo::length, VirtualIo::seek, VirtualIo::read, VirtualIo::write,
                             VirtualIo::tell};
  SNDFILE* file = sf_open_virtual(&io, SFM_WRITE, &sf_info, this);
  if (!file) {
    file_out_.discard();
    if (write_error_) std::rethrow_exception(write_error_);
    throw InputError(path_, std::string("cannot create: ") + sf_strerror(nullptr));
  }
  file_ = reinterpret_cast<sf_private_tag*>(file);
  // Float input beyond ±1 saturates instead of wrapping around in integer encodings.
  sf_command(file, SFC_SET_CLIPPING, nullptr, SF_TRUE);
  sf_set_string(file, SF_STR_SOFTWARE, "prism");
  if (!options_.description.empty()) sf_set_string(file, SF_STR_COMMENT, options_.description.c_str());
  chosen_subtype_ = subtype;
  begun_ = true;
}

void SndfileWriter::check_written(std::int64_t written, std::int64_t wanted) {
  if (write_error_) std::rethrow_exception(write_error_);
  if (written == wanted) return;
  const char* reason = sf_strerror(as_sndfile(file_));
  // libsndfile passes write(2) errors on as its own text; errno still names the cause.
  const std::string system = errno ? std::string(" (") + std::strerror(errno) + ")" : "";
  throw InputError(path_, std::string("write failed: ") + reason + system);
}

void SndfileWriter::write(const Chunk& chunk) {
  const std::byte* data = chunk.data;
  const std::size_t samples = chunk.items;
  if (!begun_ || finished_) throw std::logic_error("SndfileWriter::write outside begin()/finish()");
  if (samples == 0) return;
  if (data == nullptr) throw std::invalid_argument("SndfileWriter::write: null data");
  SNDFILE* file = as_sndfile(file_);
  const std::size_t channels = info_.channels;
  const std::size_t component = component_bytes(info_.format);
  for (std::size_t done = 0; done < samples;) {
    const std::size_t frames = std::min(kChunkFrames, samples - done);
    const std::size_t values = frames * channels;
    const std::byte* src = data + done * channels * component;
    errno = 0;
    if (info_.format == SampleFormat::f32) {
      float_scratch_.resize(values);
      std::memcpy(float_scratch_.data(), src, values * sizeof(float));  // src may be unaligned
      check_written(sf_writef_float(file, float_scratch_.data(), static_cast<sf_count_t>(frames)),
                    static_cast<std::int64_t>(frames));
    } else if (info_.format == SampleFormat::f64) {
      double_scratch_.resize(values);
      std::memcpy(double_scratch_.data(), src, values * sizeof(double));
      check_written(sf_writef_double(file, double_scratch_.data(), static_cast<sf_count_t>(frames)),
                    static_cast<std::int64_t>(frames));
    } else if (component == 4) {
      // 32-bit integers go in as libsndfile's left-justified ints, exactly; unsigned ones less
      // their midpoint (flipping the top bit is subtracting 2^31).
      int_scratch_.resize(values);
      std::memcpy(int_scratch_.data(), src, values * sizeof(int));
      if (info_.format == SampleFormat::u32)
        for (int& v : int_scratch_) v = static_cast<int>(static_cast<unsigned>(v) ^ 0x80000000u);
      check_written(sf_writef_int(file, int_scratch_.data(), static_cast<sf_count_t>(frames)),
                    static_cast<std::int64_t>(frames));
    } else {
      // Integers go in as 16-bit, exactly: i16 as it is, u16 less 32768, 8-bit formats shifted up.
      short_scratch_.resize(values);
      if (info_.format == SampleFormat::i16) {
        std::memcpy(short_scratch_.data(), src, values * sizeof(short));
      } else if (info_.format == SampleFormat::u16) {
        for (std::size_t i = 0; i < values; ++i) {
          std::uint16_t v;
          std::memcpy(&v, src + i * 2, 2);
          short_scratch_[i] = static_cast<short>(static_cast<int>(v) - 32768);
        }
      } else {
        const auto* bytes = reinterpret_cast<const unsigned char*>(src);
        for (std::size_t i = 0; i < values; ++i) {
          const int v = info_.format == SampleFormat::u8 ? static_cast<int>(bytes[i]) - 128
                                                         : static_cast<signed char>(bytes[i]);
          short_scratch_[i] = static_cast<short>(v * 256);
        }
      }
      check_written(sf_writef_short(file, short_scratch_.data(), static_cast<sf_count_t>(frames)),
                    static_cast<std::int64_t>(frames));
    }
    done += frames;
    samples_written_ += frames;
  }
}

void SndfileWriter::close_file(bool keep) {
  if (!file_) return;
  SNDFILE* file = as_sndfile(file_);
  file_ = nullptr;
  const int error = sf_close(file);
  if (!keep) return;
  if (write_error_) std::rethrow_exception(write_error_);
  if (error != 0) throw InputError(path_, std::string("close failed: ") + sf_error_number(error));
  file_out_.close();
}

void SndfileWriter::finish(bool complete) {
  if (!begun_ || finished_) return;
  try {
    if (!complete && file_) {
      const std::string comment =
          (options_.description.empty() ? "" : options_.description + " ") +
          "(interrupted: the recording ended before its input did)";
      sf_set_string(as_sndfile(file_), SF_STR_COMMENT, comment.c_str());  // where the format allows
    }
    close_file(true);
    file_out_.publish();
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void SndfileWriter::abort() noexcept {
  if (finished_ || !begun_) return;
  try {
    close_file(false);
  } catch (...) {
  }
  file_out_.discard();
  finished_ = true;
}

}  // namespace prism
