// Sound files through libsndfile (see sndfile_source.hpp).
#include "sources/sndfile_source.hpp"

#include <sndfile.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include <sys/stat.h>

#include "pipeline/errors.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"

namespace prism {

namespace {

std::string short_container_name(int major, const std::string& long_name) {
  switch (major) {
    case SF_FORMAT_WAV:
    case SF_FORMAT_WAVEX: return "WAV";
    case SF_FORMAT_RF64: return "RF64";
    case SF_FORMAT_W64: return "W64";
    case SF_FORMAT_FLAC: return "FLAC";
    case SF_FORMAT_OGG: return "OGG";
    case SF_FORMAT_AIFF: return "AIFF";
    case SF_FORMAT_AU: return "AU";
    case SF_FORMAT_CAF: return "CAF";
    default: return long_name;
  }
}

std::string format_info_name(int format) {
  SF_FORMAT_INFO info{};
  info.format = format;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof info) != 0 || !info.name) return {};
  return info.name;
}

// Sizes of 2^31 - 1 and 2^32 - 1 in a header are what streaming writers put there when they
// cannot know the length; libsndfile then reads to the end of the file, and so do we.
bool is_unknown_length_marker(std::uint64_t declared) {
  return declared == 0 || declared == 0x7fffffffULL || declared == 0xffffffffULL;
}

// Finds, in libsndfile's log of the header it parsed, a sample-data chunk whose declared size
// runs past the end of the file: "data : 192000 (should be 95956)" (WAV, W64), "SSND : ..."
// (AIFF), "Data Size : ..." (AU). Returns the reason to report, or nothing.
std::optional<std::string> truncation_in_log(const std::string& log) {
  std::optional<std::uint64_t> file_length;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    std::string label = line.substr(0, colon);
    label.erase(0, label.find_first_not_of(' '));
    label.erase(label.find_last_not_of(' ') + 1);
    const std::string rest = line.substr(colon + 3);
    std::uint64_t number = 0;
    try {
      if (rest.empty() || rest[0] < '0' || rest[0] > '9') continue;
      number = std::stoull(rest);
    } catch (const std::exception&) {
      continue;
    }
    if (label == "Length") {
      file_length = number;
      continue;
    }
    if (label != "data" && label != "SSND" && label != "Data Size") continue;
    if (is_unknown_length_marker(number)) continue;
    std::optional<std::uint64_t> available;
    const auto should = rest.find("(should be ");
    if (should != std::string::npos) {
      try {
        available = std::stoull(rest.substr(should + 11));
      } catch (const std::exception&) {
      }
    }
    if (available && *available < number)
      return "truncated: the header promises " + std::to_string(number) +
             " bytes of samples, the file holds " + std::to_string(*available);
    if (file_length && number > *file_length)
      return "truncated: the header promises " + std::to_string(number) +
             " bytes of samples, the whole file is " + std::to_string(*file_length) + " bytes";
  }
  return std::nullopt;
}

SNDFILE* handle(void* file) { return static_cast<SNDFILE*>(file); }

// Reads `bytes` bytes at `offset` of the file; false when it ends before.
using ReadAt = std::function<bool(std::uint64_t offset, unsigned char* dst, std::size_t bytes)>;

// libsndfile 1.2.0 loops forever on a WAV file whose LIST chunk holds a sub-chunk of 2 GiB or
// more: it reads the size as negative and steps back onto the same bytes (within its header
// buffer, so no read of ours sees it). No LIST entry is that large, so such a file is refused
// before libsndfile sees it. The entries are walked twice: as RIFF lays them out (from after the
// list's type, each padded to an even size, whole within the chunk), and as libsndfile reads
// them: from the type on (a list of unknown type is read as entries from there), `adtl` and
// `INFO` as names without a size, an entry read while its name starts within the chunk (its
// size may lie beyond), a `data` name or a zero one ending the list (libsndfile backs out of a
// list at `data` and reads the top-level chunks on from there), an `exif` entry read by its own
// fields.
//
// libsndfile parses a top-level INFO chunk as such a list too (its entries right after its size),
// so INFO chunks are checked as LIST chunks are. RF64 files (64-bit WAV) are parsed alike.
//
// The LIST chunks are found by walking the top-level chunks twice: as RIFF lays them out (each
// padded to an even size), and as libsndfile's wav.c and rf64.c step over them, which differs for
// broken files (a `fact` of 0 bytes takes 4; below). Returns the reason, or nothing.
std::optional<std::string> riff_list_problem(const ReadAt& read_at, std::uint64_t file_size) {
  unsigned char header[12];
  if (!read_at(0, header, 12)) return std::nullopt;
  const bool rf64 = std::memcmp(header, "RF64", 4) == 0;
  if (!rf64 && std::memcmp(header, "RIFF", 4) != 0 && std::memcmp(header, "RIFX", 4) != 0) return std::nullopt;
  // RIFX is big-endian, until libsndfile's readers of `cue ` and `cart` switch it to little-endian
  // for the rest of the header (in its walk only): `cue ` when it reads a first cue point (a count
  // of 1 to 2500), `cart` when it reads the fields of one of 2048 bytes up to its 18432-byte limit.
  bool big_endian = header[3] == 'X';
  auto size_of = [&big_endian](const unsigned char* p) {
    return big_endian ? std::uint64_t{p[0]} << 24 | std::uint64_t{p[1]} << 16 | std::uint64_t{p[2]} << 8 | p[3]
                      : std::uint64_t{p[3]} << 24 | std::uint64_t{p[2]} << 16 | std::uint64_t{p[1]} << 8 | p[0];
  };
  auto is = [](const unsigned char* id, const char* name) { return std::memcmp(id, name, 4) == 0; };
  constexpr std::uint64_t kLargest = 0x7fffffff;
  constexpr int kMostChunks = 100000;  // a bound on each walk, far above any real file's
  int chunks = 0;

  // The LIST (or INFO) chunk at `offset` of `chunk_size` bytes: its problem, if any, and where
  // libsndfile's reading of the top-level chunks goes on if it backs out of the list at a `data`.
  struct ListWalk {
    std::optional<std::string> problem;
    std::optional<std::uint64_t> resume;
  };
  // Where libsndfile's reading of a list goes on after an `exif` entry whose fields start at
  // `at`: its reader takes 4-byte names (`ever` with 8 bytes, `olym` with a sized body, the
  // string fields with a size, a string of 4096 bytes or more ending the entry) until the list's
  // end, and the list's reading goes on where it stopped.
  auto after_exif = [&](std::uint64_t at, std::uint64_t end) {
    unsigned char field[8];
    while (at < end && read_at(at, field, 4) && ++chunks < kMostChunks) {
      at += 4;
      if (is(field, "ever")) {
        at += 8;
        continue;
      }
      bool sized = is(field, "olym");
      for (const char* name : {"emnt", "emdl", "ecor", "etim", "erel", "eucm"}) sized = sized || is(field, name);
      if (!sized || !read_at(at, field + 4, 4)) continue;
      const std::uint64_t size = size_of(field + 4);
      at += 4;
      if (!is(field, "olym") && size + (size & 1) >= 4096) break;
      if (size <= end - std::min(end, at)) at += size + (size & 1);
    }
    return at;
  };
  auto walk_list = [&](std::uint64_t offset, std::uint64_t chunk_size, const std::string& id) -> ListWalk {
    const std::uint64_t end = std::min(file_size, offset + 8 + chunk_size);
    auto too_large = [&](std::uint64_t at, std::uint64_t entry_size) {
      return "malformed: an entry of its " + id + " chunk at byte " + std::to_string(at) + " claims " +
             std::to_string(entry_size) + " bytes";
    };
    unsigned char entry[8];
    for (std::uint64_t at = offset + 12; at + 8 <= end && read_at(at, entry, 8) && ++chunks < kMostChunks;) {
      const std::uint64_t entry_size = size_of(entry + 4);
      if (entry_size > kLargest) return {too_large(at, entry_size), std::nullopt};
      at += 8 + entry_size + (entry_size & 1);
    }
    if (chunk_size <= 8) return {};  // libsndfile skips such a list unread
    for (std::uint64_t at = offset + 8; at < end && read_at(at, entry, 4) && ++chunks < kMostChunks;) {
      if (is(entry, "adtl") || is(entry, "INFO")) {
        at += 4;
        continue;
      }
      if (is(entry, "data")) return {std::nullopt, at};
      if (is(entry, "exif")) {
        at = after_exif(at + 4, end);
        continue;
      }
      if (size_of(entry) == 0 || !read_at(at + 4, entry + 4, 4)) break;
      const std::uint64_t entry_size = size_of(entry + 4);
      if (entry_size > kLargest) return {too_large(at, entry_size), std::nullopt};
      at += 8 + entry_size + (entry_size & 1);
    }
    return {};
  };
  for (const bool as_libsndfile : {false, true}) {
    chunks = 0;
    big_endian = header[3] == 'X';
    std::optional<std::uint64_t> ds64_data_size;
    unsigned char chunk[8];
    for (std::uint64_t offset = 12; offset + 8 <= file_size && read_at(offset, chunk, 8) && ++chunks < kMostChunks;) {
      const std::uint64_t chunk_size = size_of(chunk + 4);
      if (is(chunk, "LIST") || is(chunk, "INFO")) {
        ListWalk list = walk_list(offset, chunk_size, std::string(reinterpret_cast<const char*>(chunk), 4));
        if (list.problem) return list.problem;
        if (as_libsndfile && list.resume) {
          offset = *list.resume + (rf64 ? 0 : chunk_size & 1);  // wav.c's pad still follows
          continue;
        }
      }
      std::uint64_t content = chunk_size + (chunk_size & 1);
      if (as_libsndfile) {
        const bool printable = std::all_of(chunk, chunk + 4, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
        if (!printable) {
          // An unknown name: libsndfile stops at a huge size, and else, off a 4-byte boundary,
          // steps back 3 bytes to find its footing.
          if (chunk_size >= 0xffff0000 || (offset & 3) == 0) break;
          offset += 5;
          continue;
        }
        if (rf64) {
          // rf64.c pads nothing. Its sizes of 0xffffffff stand for the 64-bit ones of the ds64
          // chunk, whose body it reads as 28 bytes and a table (the size given where it differs,
          // unless `fmt ` follows those); a second ds64's body it reads on as chunks.
          content = chunk_size;
          unsigned char ds64[28];
          if (is(chunk, "ds64") && ds64_data_size) {
            content = 0;
          } else if (is(chunk, "ds64") && read_at(offset + 8, ds64, 28)) {
            ds64_data_size = size_of(ds64 + 12) << 32 | size_of(ds64 + 8);
            const std::uint64_t table = size_of(ds64 + 24);
            const std::uint32_t read = static_cast<std::uint32_t>(28 + table);
            unsigned char next[4];
            if (chunk_size < read)
              content = 28 + table;
            else if (chunk_size != read && chunk_size >= static_cast<std::uint32_t>(read + 4) &&
                     read_at(offset + 8 + read, next, 4) && is(next, "fmt "))
              content = read;
          } else if (is(chunk, "data")) {
            content = ds64_data_size ? *ds64_data_size : chunk_size == 0xffffffff ? 0 : chunk_size;
          }
        } else {
          // wav.c steps over every chunk padded to an even size (the jump of chunk_size & 1 that
          // starts its next round): a `fact` after its 4-byte frame count whatever its size, `acid`
          // and `smpl` after padding once more inside their readers.
          const std::uint64_t pad = chunk_size & 1;
          content = is(chunk, "fact")                      ? std::max<std::uint64_t>(chunk_size, 4) + pad
                    : is(chunk, "acid") || is(chunk, "smpl") ? chunk_size + 2 * pad
                                                             : chunk_size + pad;
          unsigned char count[4];
          if (is(chunk, "cue ") && read_at(offset + 8, count, 4) && size_of(count) >= 1 && size_of(count) <= 2500)
            big_endian = false;
          if (is(chunk, "cart") && chunk_size >= 2048 && chunk_size < 18432) big_endian = false;
        }
      }
      if (content > file_size) break;  // past the end: no chunk follows
      offset += 8 + content;
    }
  }
  return std::nullopt;
}

}  // namespace

struct SndfileSource::MemoryFile {
  std::vector<std::byte> bytes;
  sf_count_t position = 0;

  static MemoryFile& of(void* user) { return *static_cast<MemoryFile*>(user); }
  static sf_count_t length(void* user) { return static_cast<sf_count_t>(of(user).bytes.size()); }
  static sf_count_t seek(sf_count_t offset, int whence, void* user) {
    MemoryFile& m = of(user);
    const sf_count_t base = whence == SEEK_CUR ? m.position : whence == SEEK_END ? length(user) : 0;
    // libsndfile takes a negative result as a failed seek; past the end reads give 0 bytes.
    if ((offset > 0 && base > std::numeric_limits<sf_count_t>::max() - offset) || base + offset < 0)
      return -1;
    m.position = base + offset;
    return m.position;
  }
  static sf_count_t read(void* dst, sf_count_t count, void* user) {
    MemoryFile& m = of(user);
    const sf_count_t size = length(user);
    if (count <= 0 || m.position >= size) return 0;
    const sf_count_t n = std::min(count, size - m.position);
    std::memcpy(dst, m.bytes.data() + m.position, static_cast<std::size_t>(n));
    m.position += n;
    return n;
  }
  static sf_count_t write(const void*, sf_count_t, void*) { return 0; }  // read only
  static sf_count_t tell(void* user) { return of(user).position; }
};

SndfileSource::SndfileSource(const std::string& path, TruncationPolicy truncation)
    : path_(path), truncation_policy_(std::move(truncation)) {
  OpenedInput input = open_input_file(path);
  if (input.regular && input.size == 0) throw InputError(path, "empty file (0 bytes)");
  file_size_ = input.size;
  fd_ = std::move(input.fd);

  const int fd = fd_.get();
  const ReadAt read_at = [fd, &path](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    return pread_fully(fd, reinterpret_cast<std::byte*>(dst), bytes, offset, path) == bytes;
  };
  if (input.regular)
    if (const auto problem = riff_list_problem(read_at, file_size_)) throw InputError(path, *problem);

  SF_INFO sfinfo{};
  adopt(sf_open_fd(fd_.get(), SFM_READ, &sfinfo, SF_FALSE), sfinfo);
}

std::optional<std::uint64_t> SndfileSource::current_file_size() const {
  struct stat st {};
  if (fd_.get() < 0 || fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

SndfileSource::SndfileSource(std::string name, std::vector<std::byte> bytes, TruncationPolicy truncation)
    : path_(std::move(name)), truncation_policy_(std::move(truncation)) {
  if (bytes.empty()) throw InputError(path_, "empty file (0 bytes)");
  file_size_ = bytes.size();
  memory_ = std::make_unique<MemoryFile>();
  memory_->bytes = std::move(bytes);
  const std::vector<std::byte>& held = memory_->bytes;
  const ReadAt read_at = [&held](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    if (offset > held.size() || bytes > held.size() - offset) return false;
    std::memcpy(dst, held.data() + offset, bytes);
    return true;
  };
  if (const auto problem = riff_list_problem(read_at, held.size())) throw InputError(path_, *problem);
  static SF_VIRTUAL_IO io = {MemoryFile::length, MemoryFile::seek, MemoryFile::read,
                             MemoryFile::write, MemoryFile::tell};
  SF_INFO sfinfo{};
  adopt(sf_open_virtual(&io, SFM_READ, &sfinfo, memory_.get()), sfinfo);
}

void SndfileSource::adopt(void* opened, const SF_INFO& sfinfo) {
  const std::string& path = path_;
  SNDFILE* const file = handle(opened);
  if (!file)
    throw InputError(path, std::string("not a sound file libsndfile can read (") +
                               sf_strerror(nullptr) + ")");

  // From here on the handle must be closed on a throw; the destructor does not run.
  struct CloseOnThrow {
    SNDFILE* file;
    bool armed = true;
    ~CloseOnThrow() {
      if (armed) sf_close(file);
    }
  } close_on_throw{file};

  std::string log(16384, '\0');
  sf_command(file, SFC_GET_LOG_INFO, log.data(), static_cast<int>(log.size()));
  log.resize(std::strlen(log.c_str()));
  if (const auto truncated = truncation_in_log(log)) truncation_policy_.apply(path, *truncated);

  if (sfinfo.channels < 1 || sfinfo.samplerate < 1)
    throw InputError(path, "the header says " + std::to_string(sfinfo.channels) +
                               " channels at " + std::to_string(sfinfo.samplerate) +
                               " Hz; neither can be below 1");

  const int major = sfinfo.format & SF_FORMAT_TYPEMASK;
  container_ = short_container_name(major, format_info_name(major));
  encoding_ = format_info_name(sfinfo.format & SF_FORMAT_SUBMASK);

  switch (sfinfo.format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_16: delivered_ = SampleFormat::i16; break;
    case SF_FORMAT_PCM_S8: delivered_ = SampleFormat::i8; break;
    case SF_FORMAT_PCM_U8: delivered_ = SampleFormat::u8; break;  // WAV's 8 bits are unsigned
    case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32: delivered_ = SampleFormat::i32; break;
    default: delivered_ = SampleFormat::f32;
  }
  info_.format = delivered_;
  info_.float_full_scale = delivered_ == SampleFormat::f32;  // float audio: ±1.0 is full scale
  info_.sample_rate = sfinfo.samplerate;
  info_.channels = static_cast<unsigned>(sfinfo.channels);
  info_.live = false;
  if (sfinfo.frames >= 0 && sfinfo.frames != SF_COUNT_MAX)
    info_.length = static_cast<std::uint64_t>(sfinfo.frames);
  close_on_throw.armed = false;
  file_ = file;
}

SndfileSource::~SndfileSource() {
  if (file_) sf_close(handle(file_));
}

bool SndfileSource::start_at(std::uint64_t sample) {
  if (sf_seek(handle(file_), static_cast<sf_count_t>(sample), SEEK_SET) < 0) return false;
  frames_read_ = sample;
  return true;
}

std::size_t SndfileSource::read(std::byte* dst, std::size_t max_samples) {
  if (!pending_error_.empty()) {
    const std::string reason = std::move(pending_error_);
    pending_error_.clear();
    throw InputError(path_, reason);
  }
  std::uint64_t wanted = max_samples;
  if (info_.length) wanted = std::min<std::uint64_t>(wanted, *info_.length - frames_read_);
  if (wanted == 0) return 0;

  const std::size_t channels = info_.channels;
  // libsndfile writes shorts (16- and 8-bit PCM, the 8 bits shifted up), ints (24- and 32-bit
  // PCM, left-justified) or floats: through a bounce buffer when dst is not aligned for them, and
  // always for 8 bits, narrowed below.
  const bool eight_bits = delivered_ == SampleFormat::i8 || delivered_ == SampleFormat::u8;
  const bool ints = delivered_ == SampleFormat::i32;
  const bool shorts = !ints && delivered_ != SampleFormat::f32;
  const std::size_t value_bytes = ints ? sizeof(int) : shorts ? sizeof(short) : sizeof(float);
  const std::size_t out_bytes = sample_bytes(delivered_);
  const bool aligned = !eight_bits && reinterpret_cast<std::uintptr_t>(dst) % value_bytes == 0;
  std::vector<std::byte> bounce;
  std::uint64_t done = 0;
  while (done < wanted) {
    const std::uint64_t ask = wanted - done;
    std::byte* out;
    if (aligned) {
      out = dst + done * channels * value_bytes;
    } else {
      bounce.resize(static_cast<std::size_t>(std::min<std::uint64_t>(ask, 65536)) * channels *
                    value_bytes);
      out = bounce.data();
    }
    const sf_count_t request =
        static_cast<sf_count_t>(aligned ? ask : bounce.size() / (channels * value_bytes));
    const sf_count_t got =
        ints     ? sf_readf_int(handle(file_), reinterpret_cast<int*>(out), request)
        : shorts ? sf_readf_short(handle(file_), reinterpret_cast<short*>(out), request)
                 : sf_readf_float(handle(file_), reinterpret_cast<float*>(out), request);
    if (got <= 0) break;
    const std::size_t values = static_cast<std::size_t>(got) * channels;
    if (eight_bits) {
      // libsndfile gives 8-bit value v as v·256 (unsigned ones less 128 first): undo both.
      std::byte* narrow = dst + done * channels;
      for (std::size_t i = 0; i < values; ++i) {
        short v;
        std::memcpy(&v, bounce.data() + i * sizeof(short), sizeof v);
        const int stored = (v >> 8) + (delivered_ == SampleFormat::u8 ? 128 : 0);
        narrow[i] = static_cast<std::byte>(static_cast<std::uint8_t>(stored));
      }
    } else if (!aligned) {
      std::memcpy(dst + done * channels * value_bytes, bounce.data(), values * value_bytes);
    }
    done += static_cast<std::uint64_t>(got);
  }
  if constexpr (std::endian::native == std::endian::big)
    if (out_bytes > 1)
      for (std::size_t i = 0; i < done * channels; ++i)
        std::reverse(dst + i * out_bytes, dst + (i + 1) * out_bytes);
  frames_read_ += done;

  if (done < wanted && info_.length) {
    std::string reason;
    if (sf_error(handle(file_)) != SF_ERR_NO_ERROR)
      reason = "read failed at frame " + std::to_string(frames_read_) + " of " +
               std::to_string(*info_.length) + " (" + sf_strerror(handle(file_)) + ")";
    else
      reason = "truncated: the samples end at frame " + std::to_string(frames_read_) +
               ", the header says " + std::to_string(*info_.length);
    // A file cut short before it was opened is a recording to read as far as it goes; one that
    // shrinks while it is read has lost samples the run was promised, which is a read error.
    const std::optional<std::uint64_t> size_now = current_file_size();
    const bool shrank = size_now && *size_now < file_size_;
    if (shrank)
      reason = "ended at frame " + std::to_string(frames_read_) + " of " + std::to_string(*info_.length) +
               ": the file was truncated while it was read (" + std::to_string(file_size_) + " bytes when opened, " +
               std::to_string(*size_now) + " now)";
    if (sf_error(handle(file_)) == SF_ERR_NO_ERROR && !shrank && !truncation_policy_.strict) {
      // Cut short: the samples read are the recording (see TruncationPolicy).
      truncation_policy_.apply(path_, reason);
      info_.length = frames_read_;
      return static_cast<std::size_t>(done);
    }
    if (done == 0) throw InputError(path_, reason);
    pending_error_ = reason;  // hand out the good samples first
  }
  return static_cast<std::size_t>(done);
}

nlohmann::json SndfileSource::tags() const {
  static constexpr std::pair<int, const char*> kTags[] = {
      {SF_STR_TITLE, "title"},     {SF_STR_ARTIST, "artist"},     {SF_STR_DATE, "date"},
      {SF_STR_COMMENT, "comment"}, {SF_STR_SOFTWARE, "software"},
  };
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [id, name] : kTags)
    // Files carry tags in any encoding (Latin-1 often): bytes that are not UTF-8, and control
    // characters, are written as \xNN so the text is valid JSON and one line.
    if (const char* text = sf_get_string(handle(file_), id); text && *text) tags[name] = printable(text);
  return tags;
}

nlohmann::json describe_sound_file(const std::string& path) {
  return describe_sound_file(SndfileSource(path));
}

nlohmann::json describe_sound_file(const SndfileSource& source) {
  nlohmann::json d = describe_stream(source.info());
  d["container"] = source.container();
  d["encoding"] = source.encoding();
  const nlohmann::json tags = source.tags();
  for (const auto& [key, value] : tags.items()) d[key] = value;
  d["file_size"] = source.file_size();
  return d;
}

}  // namespace prism
