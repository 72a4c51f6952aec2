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
#include <variant>
#include <vector>

#include <sys/stat.h>

#include "pipeline/errors.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"

namespace prism {

// Where a sound file's own bytes start (file_start).
struct FileStart {
  std::uint64_t offset = 0;  // after its ID3v2 tags
  bool wav = false;          // RIFF, RIFX or RF64 from there
};

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

// Where a file's own bytes start, after the ID3v2 tags in front of it (each stepped over, as
// id3.c does, while it ends before the file does), and whether they are a WAV's (RIFF, RIFX or
// RF64). libsndfile is shown the file from there: its own way past ID3 tags reads its next
// header from where its last read ended, which a crafted file turns into a WAV's header.
FileStart file_start(const ReadAt& read_at, std::uint64_t file_size) {
  FileStart start;
  unsigned char head[12];
  while (read_at(start.offset, head, 10)) {  // each tag moves on 10 bytes or more
    if (std::memcmp(head, "ID3", 3) != 0 || head[3] < 2 || head[3] > 4) break;
    const std::uint64_t length =
        10 + ((head[6] & 0x7fu) << 21 | (head[7] & 0x7fu) << 14 | (head[8] & 0x7fu) << 7 | (head[9] & 0x7fu));
    if (start.offset + length >= file_size) break;
    start.offset += length;
  }
  if (read_at(start.offset, head, 12) && std::memcmp(head + 8, "WAVE", 4) == 0)
    for (const char* kind : {"RIFF", "RIFX", "RF64"}) start.wav = start.wav || std::memcmp(head, kind, 4) == 0;
  return start;
}

// A WAV file as prism reads its chunks, and the header that libsndfile parses in its stead.
//
// libsndfile 1.2.0 loops forever on a WAV whose list (a LIST chunk, or a top-level INFO chunk)
// holds an entry of 2 GiB or more: its list parser reads the size as negative and steps back onto
// the same bytes, within its header buffer, where no read of ours sees it. Its header walk reaches
// such lists by more paths than any check of the file has followed (docs/reliability.md), so it is
// never given a WAV's own header: it parses one written here, of the file's `fmt ` chunk and a
// `data` chunk whose bytes are the file's samples, read through its virtual I/O. prism walks the
// chunks itself, as RIFF lays them out (RF64's unpadded, as libsndfile reads them), and reads the
// tags of the LIST and INFO chunks.
struct WavLayout {
  std::vector<unsigned char> header;  // what libsndfile parses
  std::uint64_t data_offset = 0;      // where the samples start in the file
  std::uint64_t served_bytes = 0;     // the bytes libsndfile may read after the header
  std::optional<std::string> truncated;  // the data chunk promises more than the file holds
  std::vector<std::pair<std::string, std::string>> tags;  // title, artist, ...: the last of each
};

// The tags prism reports, from a LIST chunk's entries (after its type) or a top-level INFO
// chunk's (after its size), `first` to `end`, each padded to an even size. As in libsndfile, a
// tag of 2 KiB or more, or an entry that does not fit, ends the list's tags. `budget` bounds the
// entries read over all lists (a real file has tens; gigabytes of empty ones would take minutes).
void read_list_tags(const ReadAt& read_at, std::uint64_t first, std::uint64_t end, bool big_endian,
                    std::vector<std::pair<std::string, std::string>>& tags, int& budget) {
  static constexpr std::pair<const char*, const char*> kIds[] = {
      {"INAM", "title"}, {"IART", "artist"}, {"ICRD", "date"}, {"ICMT", "comment"}, {"ISFT", "software"}};
  unsigned char entry[8];
  for (std::uint64_t at = first; at + 8 <= end && --budget > 0 && read_at(at, entry, 8);) {
    const std::uint64_t size = riff_size(entry + 4, big_endian);
    if (size > end - at - 8) return;
    const auto id = std::find_if(std::begin(kIds), std::end(kIds),
                                 [&](const auto& known) { return std::memcmp(entry, known.first, 4) == 0; });
    if (id != std::end(kIds)) {
      if (size + (size & 1) >= 2048) return;
      std::string text(size, '\0');
      if (!read_at(at + 8, reinterpret_cast<unsigned char*>(text.data()), size)) return;
      text.resize(std::strlen(text.c_str()));
      std::erase_if(tags, [&](const auto& tag) { return tag.first == id->second; });
      if (!text.empty()) tags.emplace_back(id->second, std::move(text));
    }
    at += 8 + size + (size & 1);
  }
}

// The WAV whose bytes start at `start`, or the reason it cannot be read.
std::variant<WavLayout, std::string> read_wav_layout(const ReadAt& read_at, std::uint64_t file_size,
                                                     std::uint64_t start) {
  // Bounds far above a real file's: the chunks walked (a walk that has found no data chunk by
  // then refuses the file, one that has stops), and a fmt chunk (16 to 40 bytes, with a codec's
  // data a few more).
  constexpr int kMostChunks = 100000;
  constexpr std::uint64_t kLargestFmt = 65536;
  unsigned char chunk[28];
  read_at(start, chunk, 8);
  const bool big_endian = std::memcmp(chunk, "RIFX", 4) == 0;
  const bool rf64 = std::memcmp(chunk, "RF64", 4) == 0;
  const std::uint64_t riff_declared = riff_size(chunk + 4, big_endian);
  WavLayout layout;
  std::optional<std::vector<unsigned char>> fmt;
  std::optional<std::uint64_t> ds64_data_size, data_declared;
  int chunks = 0, tag_budget = kMostChunks;
  bool unclosed = false;  // a data size of 0 in a file whose RIFF size is 8: its samples run to the end
  for (std::uint64_t offset = start + 12; offset + 8 <= file_size && read_at(offset, chunk, 8);) {
    if (++chunks > kMostChunks) {
      if (fmt && data_declared) break;
      return "malformed: no fmt and data chunks in its first " + std::to_string(kMostChunks) + " chunks";
    }
    if (std::all_of(chunk, chunk + 4, [](unsigned char c) { return c == 0; })) break;  // as libsndfile
    const std::uint64_t size = riff_size(chunk + 4, big_endian);
    const std::uint64_t body = offset + 8;
    const std::uint64_t end = std::min(file_size, body + size);
    std::uint64_t content = size;
    if (std::memcmp(chunk, "fmt ", 4) == 0 && !fmt) {
      if (size > kLargestFmt) return "malformed: its fmt chunk claims " + std::to_string(size) + " bytes";
      fmt.emplace(size);
      if (size > 0 && !read_at(body, fmt->data(), size)) return "truncated: its fmt chunk ends with the file";
    } else if (std::memcmp(chunk, "ds64", 4) == 0 && rf64 && !ds64_data_size && read_at(body, chunk + 8, 16)) {
      ds64_data_size = riff_size(chunk + 20, false) << 32 | riff_size(chunk + 16, false);
    } else if (std::memcmp(chunk, "data", 4) == 0 && !data_declared) {
      // RF64's size is its ds64's, where there is one (as libsndfile reads it).
      data_declared = rf64 && ds64_data_size ? *ds64_data_size : size;
      layout.data_offset = body;
      unclosed = *data_declared == 0 && riff_declared == 8;
      if (unclosed) break;
      content = std::min(*data_declared, file_size - body);
    } else if (std::memcmp(chunk, "LIST", 4) == 0) {
      read_list_tags(read_at, body + 4, end, big_endian, layout.tags, tag_budget);
    } else if (std::memcmp(chunk, "INFO", 4) == 0) {
      read_list_tags(read_at, body, end, big_endian, layout.tags, tag_budget);
    }
    offset = body + content + (rf64 ? 0 : content & 1);
  }
  if (!fmt) return std::string("malformed: no fmt chunk");
  if (!data_declared) return std::string("malformed: no data chunk");

  // A data size beyond the file is cut to it: a truncated recording, unless it is 2^31 - 1 or
  // 2^32 - 1, a streaming writer's unknown length, read as far as it goes (as libsndfile reads it).
  const std::uint64_t available = file_size - layout.data_offset;
  const std::uint64_t declared = *data_declared;
  const std::uint64_t data_bytes = unclosed ? available : std::min(declared, available);
  if (!unclosed && declared > available && declared != 0x7fffffff && declared != 0xffffffff)
    layout.truncated = "truncated: the header promises " + std::to_string(declared) +
                       " bytes of samples, the file holds " + std::to_string(available);
  // libsndfile reads an odd data chunk's pad byte as a sample byte: it is served too, if there.
  layout.served_bytes = std::min(available, data_bytes + (data_bytes & 1));

  // The header, in the file's own form: RIFF (RIFX) WAVE, fmt (padded), data; or RF64 WAVE, ds64,
  // fmt (unpadded, as rf64.c reads it), data. An unclosed file's is unclosed too (RIFF size 8,
  // data size 0), which libsndfile reads to the end however long it is.
  std::vector<unsigned char>& h = layout.header;
  auto put_id = [&h](const char* id) { h.insert(h.end(), id, id + 4); };
  auto put32 = [&h, big_endian](std::uint64_t v) {
    for (int k = 0; k < 4; ++k) h.push_back(static_cast<unsigned char>(v >> (big_endian ? 24 - 8 * k : 8 * k)));
  };
  const std::uint64_t fmt_bytes = fmt->size() + (rf64 ? 0 : fmt->size() & 1);
  if (rf64) {
    const std::uint64_t riff = 4 + 36 + 8 + fmt_bytes + 8 + data_bytes;
    put_id("RF64"), put32(0xffffffff), put_id("WAVE"), put_id("ds64"), put32(28);
    for (const std::uint64_t v : {riff, data_bytes, std::uint64_t{0}}) put32(v & 0xffffffff), put32(v >> 32);
    put32(0);  // table length
  } else {
    put_id(big_endian ? "RIFX" : "RIFF");
    put32(unclosed ? 8 : std::min<std::uint64_t>(4 + 8 + fmt_bytes + 8 + data_bytes, 0xffffffff));
    put_id("WAVE");
  }
  put_id("fmt "), put32(fmt->size());
  h.insert(h.end(), fmt->begin(), fmt->end());
  if (fmt_bytes > fmt->size()) h.push_back(0);
  put_id("data"), put32(rf64 ? 0xffffffff : unclosed ? 0 : data_bytes);
  return layout;
}

}  // namespace

// What libsndfile reads through its virtual I/O: a file on disk (read with pread) or bytes held in
// memory; for a WAV, `header` and then the file's samples (WavLayout).
struct SndfileSource::VirtualFile {
  int fd = -1;
  std::vector<std::byte> bytes;  // when fd < 0
  std::uint64_t start = 0;  // where the file's own bytes start (after ID3v2 tags)
  std::vector<unsigned char> header;
  std::uint64_t data_offset = 0;
  std::optional<std::uint64_t> served_bytes;  // set for a WAV: the file's bytes served after `header`
  sf_count_t position = 0;
  std::string read_error;  // why a read of the file failed (libsndfile takes it for the end)

  static VirtualFile& of(void* user) { return *static_cast<VirtualFile*>(user); }
  // Reads up to `count` bytes at `offset` of the file or buffer into `out`; the bytes read.
  std::size_t read_file(std::uint64_t offset, std::byte* out, std::size_t count) {
    if (fd >= 0) {
      // No exception may cross libsndfile's C frames: the error waits for SndfileSource.
      try {
        return pread_fully(fd, out, count, offset, "");
      } catch (const InputError& e) {
        read_error = e.reason();
        return 0;
      }
    }
    if (offset >= bytes.size()) return 0;
    const std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(count, bytes.size() - offset));
    std::memcpy(out, bytes.data() + offset, got);
    return got;
  }

  static sf_count_t length(void* user) {
    const VirtualFile& f = of(user);
    if (f.served_bytes) return static_cast<sf_count_t>(f.header.size() + *f.served_bytes);
    std::uint64_t size = f.bytes.size();
    struct stat st {};
    if (f.fd >= 0) size = fstat(f.fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    return static_cast<sf_count_t>(size - std::min(size, f.start));
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
    const sf_count_t end = length(user);
    if (count <= 0 || f.position >= end) return 0;
    auto* out = static_cast<std::byte*>(dst);
    std::uint64_t at = static_cast<std::uint64_t>(f.position);
    std::size_t wanted = static_cast<std::size_t>(std::min<sf_count_t>(count, end - f.position));
    std::size_t got = 0;
    if (!f.served_bytes) {
      got = f.read_file(f.start + at, out, wanted);
    } else {
      if (at < f.header.size()) {
        const std::size_t n = std::min<std::size_t>(wanted, f.header.size() - at);
        std::memcpy(out, f.header.data() + at, n);
        got = n, at += n;
      }
      if (got < wanted) got += f.read_file(f.data_offset + (at - f.header.size()), out + got, wanted - got);
    }
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
  const int fd = fd_.get();
  const ReadAt read_at = [fd, &path](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    return pread_fully(fd, reinterpret_cast<std::byte*>(dst), bytes, offset, path) == bytes;
  };
  // A pipe goes to libsndfile as it comes (unchecked); so does a file of another format than WAV
  // with no ID3v2 tags in front.
  const FileStart start = input.regular ? file_start(read_at, file_size_) : FileStart{};
  if (!start.wav && start.offset == 0) {
    SF_INFO sfinfo{};
    adopt(sf_open_fd(fd, SFM_READ, &sfinfo, SF_FALSE), sfinfo);
    return;
  }
  virtual_ = std::make_unique<VirtualFile>();
  virtual_->fd = fd;
  open_virtual(read_at, start);
}

SndfileSource::SndfileSource(std::string name, std::vector<std::byte> bytes, TruncationPolicy truncation)
    : path_(std::move(name)), truncation_policy_(std::move(truncation)) {
  if (bytes.empty()) throw InputError(path_, "empty file (0 bytes)");
  file_size_ = bytes.size();
  virtual_ = std::make_unique<VirtualFile>();
  virtual_->bytes = std::move(bytes);
  const std::vector<std::byte>& held = virtual_->bytes;
  const ReadAt read_at = [&held](std::uint64_t offset, unsigned char* dst, std::size_t bytes) {
    if (offset > held.size() || bytes > held.size() - offset) return false;
    if (bytes > 0) std::memcpy(dst, held.data() + offset, bytes);
    return true;
  };
  open_virtual(read_at, file_start(read_at, file_size_));
}

void SndfileSource::open_virtual(const std::function<bool(std::uint64_t, unsigned char*, std::size_t)>& read_at,
                                 const FileStart& start) {
  virtual_->start = start.offset;
  if (start.wav) {
    auto layout = read_wav_layout(read_at, file_size_, start.offset);
    if (const auto* reason = std::get_if<std::string>(&layout)) throw InputError(path_, *reason);
    WavLayout& wav = std::get<WavLayout>(layout);
    if (wav.truncated) truncation_policy_.apply(path_, *wav.truncated);
    riff_tags_ = std::move(wav.tags);
    virtual_->header = std::move(wav.header);
    virtual_->data_offset = wav.data_offset;
    virtual_->served_bytes = wav.served_bytes;
  }
  static SF_VIRTUAL_IO io = {VirtualFile::length, VirtualFile::seek, VirtualFile::read, VirtualFile::write,
                             VirtualFile::tell};
  SF_INFO sfinfo{};
  adopt(sf_open_virtual(&io, SFM_READ, &sfinfo, virtual_.get()), sfinfo);
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

  if (done < wanted && virtual_ && !virtual_->read_error.empty()) {
    // A failed read of the file, which libsndfile took for its end.
    const std::string reason =
        "read failed at frame " + std::to_string(frames_read_) + " (" + virtual_->read_error + ")";
    virtual_->read_error.clear();
    if (done == 0) throw InputError(path_, reason);
    pending_error_ = reason;  // hand out the good samples first
    return static_cast<std::size_t>(done);
  }
  if (done < wanted && info_.length) {
    const bool failed = sf_error(handle(file_)) != SF_ERR_NO_ERROR;
    std::string reason;
    if (failed)
      reason = "read failed at frame " + std::to_string(frames_read_) + " of " + std::to_string(*info_.length) +
               " (" + sf_strerror(handle(file_)) + ")";
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
