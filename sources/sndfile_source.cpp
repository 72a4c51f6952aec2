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
#include <stdexcept>
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

// A RIFF size: 4 bytes, little-endian (big-endian in RIFX).
std::uint64_t riff_size(const unsigned char* p, bool big_endian) {
  return big_endian ? std::uint64_t{p[0]} << 24 | std::uint64_t{p[1]} << 16 | std::uint64_t{p[2]} << 8 | p[3]
                    : std::uint64_t{p[3]} << 24 | std::uint64_t{p[2]} << 16 | std::uint64_t{p[1]} << 8 | p[0];
}

// Reads `bytes` bytes at `offset` of the file; false when it ends before.
using ReadAt = std::function<bool(std::uint64_t offset, unsigned char* dst, std::size_t bytes)>;

// libsndfile 1.2.0 loops forever on a WAV file whose list (a LIST chunk, or a top-level INFO
// chunk) holds an entry of 2 GiB or more: it reads the size as negative and steps back onto the
// same bytes, within its header buffer, so no read of ours sees it. Its list parser reaches such
// an entry by more paths than a check of the file can follow (entries read past the list's end,
// lists it leaves early at `note` or `data`, `exif` fields it counts twice), so libsndfile never
// parses a list here: each LIST and INFO chunk its header walk reaches is shown to it as JUNK,
// which it steps over by its size, and the tags those lists carry are read here (riff_tags).
//
// Finding those chunks takes libsndfile's walk of the top-level chunks, as wav.c and rf64.c step
// over them, which differs from RIFF's layout for broken files (a `fact` of 0 bytes takes 4;
// below). A walk that goes on where libsndfile's stopped costs nothing; one that stopped short
// would leave a list to it, so each step below goes at least as far as libsndfile's.
struct RiffList {
  std::uint64_t offset;  // of its "LIST" or "INFO"
  bool big_endian;       // how libsndfile reads sizes there
};
constexpr int kMostChunks = 100000;  // far above any real file's; a file with more is refused
std::vector<RiffList> lists_libsndfile_reaches(const ReadAt& read_at, std::uint64_t file_size, bool& too_many_chunks) {
  std::vector<RiffList> lists;
  too_many_chunks = false;
  unsigned char header[12];
  if (!read_at(0, header, 12)) return lists;
  const bool rf64 = std::memcmp(header, "RF64", 4) == 0;
  if (!rf64 && std::memcmp(header, "RIFF", 4) != 0 && std::memcmp(header, "RIFX", 4) != 0) return lists;
  // RIFX is big-endian, until libsndfile's readers of `cue ` and `cart` switch it to little-endian
  // for the rest of the header: `cue ` when it reads a first cue point (a count of 1 to 2500),
  // `cart` when it reads the fields of one of 2048 bytes up to its 18432-byte limit.
  bool big_endian = header[3] == 'X';
  auto size_of = [&big_endian](const unsigned char* p) { return riff_size(p, big_endian); };
  auto is = [](const unsigned char* id, const char* name) { return std::memcmp(id, name, 4) == 0; };
  std::optional<std::uint64_t> ds64_data_size;
  unsigned char chunk[8];
  int chunks = 0;
  for (std::uint64_t offset = 12; offset + 4 <= file_size && read_at(offset, chunk, 4);) {
    if (++chunks > kMostChunks) {
      too_many_chunks = true;
      break;
    }
    if (is(chunk, "LIST") || is(chunk, "INFO")) lists.push_back({offset, big_endian});
    // libsndfile parses a list whose size the file cuts short too; nothing follows it.
    if (offset + 8 > file_size || !read_at(offset + 4, chunk + 4, 4)) break;
    const std::uint64_t chunk_size = size_of(chunk + 4);
    std::uint64_t content = chunk_size + (chunk_size & 1);
    const bool printable = std::all_of(chunk, chunk + 4, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
    if (!printable) {
      // An unknown name: libsndfile stops at a huge size, and else, off a 4-byte boundary, steps
      // back 3 bytes to find its footing.
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
    if (content > file_size) break;  // past the end: no chunk follows
    offset += 8 + content;
  }
  return lists;
}

// The tags in `lists` that prism reports (INAM, IART, ICRD, ICMT, ISFT), read as RIFF lays the
// entries out: from after a LIST's type (a top-level INFO chunk's from after its size), each
// padded to an even size. An entry that does not fit in its list ends that list's tags; a later
// list's tag replaces an earlier one, as in libsndfile.
std::vector<std::pair<std::string, std::string>> riff_tags(const ReadAt& read_at, std::uint64_t file_size,
                                                           const std::vector<RiffList>& lists) {
  static constexpr std::pair<const char*, const char*> kIds[] = {
      {"INAM", "title"}, {"IART", "artist"}, {"ICRD", "date"}, {"ICMT", "comment"}, {"ISFT", "software"}};
  constexpr std::uint64_t kLongestText = 2047;  // libsndfile's limit
  std::vector<std::pair<std::string, std::string>> tags;
  for (const RiffList& list : lists) {
    unsigned char chunk[8];
    if (!read_at(list.offset, chunk, 8)) continue;
    const std::uint64_t end = std::min(file_size, list.offset + 8 + riff_size(chunk + 4, list.big_endian));
    unsigned char entry[8];
    for (std::uint64_t at = list.offset + (std::memcmp(chunk, "LIST", 4) == 0 ? 12 : 8);
         at + 8 <= end && read_at(at, entry, 8);) {
      const std::uint64_t size = riff_size(entry + 4, list.big_endian);
      if (size > end - at - 8) break;
      for (const auto& [id, name] : kIds) {
        if (std::memcmp(entry, id, 4) != 0 || size > kLongestText) continue;
        std::string text(size, '\0');
        if (!read_at(at + 8, reinterpret_cast<unsigned char*>(text.data()), size)) continue;
        text.resize(std::strlen(text.c_str()));
        std::erase_if(tags, [name = name](const auto& tag) { return tag.first == name; });
        if (!text.empty()) tags.emplace_back(name, std::move(text));
      }
      at += 8 + size + (size & 1);
    }
  }
  return tags;
}

}  // namespace

// What libsndfile reads through its virtual I/O: a regular file (read with pread) or bytes held
// in memory, with the names of the lists its header walk reaches shown as "JUNK".
struct SndfileSource::VirtualFile {
  int fd = -1;
  std::vector<std::byte> bytes;  // when fd < 0
  std::vector<std::uint64_t> junk_names;
  sf_count_t position = 0;
  std::string read_error;  // why a read of the file failed (libsndfile takes it for the end)

  static VirtualFile& of(void* user) { return *static_cast<VirtualFile*>(user); }
  static sf_count_t length(void* user) {
    const VirtualFile& f = of(user);
    if (f.fd < 0) return static_cast<sf_count_t>(f.bytes.size());
    struct stat st {};
    return fstat(f.fd, &st) == 0 ? static_cast<sf_count_t>(st.st_size) : 0;
  }
  static sf_count_t seek(sf_count_t offset, int whence, void* user) {
    VirtualFile& f = of(user);
    const sf_count_t base = whence == SEEK_CUR ? f.position : whence == SEEK_END ? length(user) : 0;
    // libsndfile takes a negative result as a failed seek; past the end reads give 0 bytes.
    if ((offset > 0 && base > std::numeric_limits<sf_count_t>::max() - offset) || base + offset < 0)
      return -1;
    f.position = base + offset;
    return f.position;
  }
  static sf_count_t read(void* dst, sf_count_t count, void* user) {
    VirtualFile& f = of(user);
    if (count <= 0) return 0;
    auto* out = static_cast<std::byte*>(dst);
    std::size_t got = 0;
    if (f.fd >= 0) {
      // No exception may cross libsndfile's C frames: the error waits for SndfileSource::read.
      try {
        got = pread_fully(f.fd, out, static_cast<std::size_t>(count), static_cast<std::uint64_t>(f.position), "");
      } catch (const InputError& e) {
        f.read_error = e.reason();
        return 0;
      }
    } else if (f.position < static_cast<sf_count_t>(f.bytes.size())) {
      got = static_cast<std::size_t>(std::min<sf_count_t>(count, static_cast<sf_count_t>(f.bytes.size()) - f.position));
      std::memcpy(out, f.bytes.data() + f.position, got);
    }
    const auto first = static_cast<std::uint64_t>(f.position);
    for (const std::uint64_t name : f.junk_names)
      for (std::uint64_t k = 0; k < 4; ++k)
        if (name + k >= first && name + k < first + got) out[name + k - first] = static_cast<std::byte>("JUNK"[k]);
    f.position += static_cast<sf_count_t>(got);
    return static_cast<sf_count_t>(got);
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
  SF_INFO sfinfo{};
  if (!input.regular) {  // a pipe: libsndfile reads it as it comes, unseen by the walk
    adopt(sf_open_fd(fd_.get(), SFM_READ, &sfinfo, SF_FALSE), sfinfo);
    return;
  }
  virtual_ = std::make_unique<VirtualFile>();
  virtual_->fd = fd_.get();
  const int fd = fd_.get();
  open_virtual([fd, &path](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    return pread_fully(fd, reinterpret_cast<std::byte*>(dst), bytes, offset, path) == bytes;
  });
}

SndfileSource::SndfileSource(std::string name, std::vector<std::byte> bytes, TruncationPolicy truncation)
    : path_(std::move(name)), truncation_policy_(std::move(truncation)) {
  if (bytes.empty()) throw InputError(path_, "empty file (0 bytes)");
  file_size_ = bytes.size();
  virtual_ = std::make_unique<VirtualFile>();
  virtual_->bytes = std::move(bytes);
  const std::vector<std::byte>& held = virtual_->bytes;
  open_virtual([&held](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    if (offset > held.size() || bytes > held.size() - offset) return false;
    std::memcpy(dst, held.data() + offset, bytes);
    return true;
  });
}

void SndfileSource::open_virtual(const std::function<bool(std::uint64_t, unsigned char*, std::size_t)>& read_at) {
  bool too_many_chunks = false;
  const std::vector<RiffList> lists = lists_libsndfile_reaches(read_at, file_size_, too_many_chunks);
  if (too_many_chunks)
    throw InputError(path_, "malformed: more than " + std::to_string(kMostChunks) + " chunks in its header");
  riff_tags_ = riff_tags(read_at, file_size_, lists);
  for (const RiffList& list : lists) virtual_->junk_names.push_back(list.offset);
  static SF_VIRTUAL_IO io = {VirtualFile::length, VirtualFile::seek, VirtualFile::read, VirtualFile::write,
                             VirtualFile::tell};
  SF_INFO sfinfo{};
  void* const opened = sf_open_virtual(&io, SFM_READ, &sfinfo, virtual_.get());
  // The header is parsed: from here on libsndfile reads samples, which must come as they are,
  // whatever a broken header's walk found among them.
  virtual_->junk_names.clear();
  adopt(opened, sfinfo);
}

std::optional<std::uint64_t> SndfileSource::current_file_size() const {
  struct stat st {};
  if (fd_.get() < 0 || fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

void SndfileSource::adopt(void* opened, const SF_INFO& sfinfo) {
  const std::string& path = path_;
  SNDFILE* const file = handle(opened);
  if (virtual_ && !virtual_->read_error.empty()) {
    if (file) sf_close(file);
    throw InputError(path, virtual_->read_error);
  }
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
  // Its list parser logs each list it reads as "LIST : n" or "INFO : n" on a line of its own: one
  // here is a list the walk above missed, and a file like it could hang libsndfile.
  if (virtual_ && (log.starts_with("LIST : ") || log.starts_with("INFO : ") || log.find("\nLIST : ") != std::string::npos ||
                   log.find("\nINFO : ") != std::string::npos))
    throw std::logic_error(path + ": libsndfile read a list that prism's walk of the header missed");
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
    const std::string io_error = virtual_ ? virtual_->read_error : "";
    const bool failed = sf_error(handle(file_)) != SF_ERR_NO_ERROR || !io_error.empty();
    std::string reason;
    if (failed)
      reason = "read failed at frame " + std::to_string(frames_read_) + " of " + std::to_string(*info_.length) +
               " (" + (io_error.empty() ? sf_strerror(handle(file_)) : io_error) + ")";
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
    if (!failed && !shrank && !truncation_policy_.strict) {
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
  // Files carry tags in any encoding (Latin-1 often): bytes that are not UTF-8, and control
  // characters, are written as \xNN so the text is valid JSON and one line.
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [id, name] : kTags)
    if (const char* text = sf_get_string(handle(file_), id); text && *text) tags[name] = printable(text);
  for (const auto& [name, text] : riff_tags_) tags[name] = printable(text);  // libsndfile reads no list
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
