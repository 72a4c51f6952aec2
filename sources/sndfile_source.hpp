// Sound files through libsndfile: WAV (also RF64, W64), FLAC, OGG/Vorbis and Opus, AIFF, AU,
// CAF and the other formats libsndfile reads. 8- and 16-bit PCM come out as i8/u8/i16, 24- and
// 32-bit PCM as i32 (24 bits left-justified), exact and what scipy.io.wavfile sees; everything
// else as f32. Channels interleaved; rate and length from the file.
// Built only when PRISM_HAVE_SNDFILE.
//
// libsndfile quietly shortens a file whose header promises more samples than it holds; this
// source reports such a file as truncated instead, so a damaged recording is never taken for
// a complete one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/source.hpp"
#include "pipeline/stream_info.hpp"
#include "sources/open_source.hpp"
#include "sources/input_file.hpp"

struct SF_INFO;  // libsndfile's, from sndfile.h

namespace prism {

struct FileStart;  // where a sound file's own bytes start (sndfile_source.cpp)

class SndfileSource final : public Source {
 public:
  // Opens `path`. Throws InputError naming the path: missing, a directory, unreadable, empty,
  // not a format libsndfile reads (with sf_strerror's words), or truncated.
  // A recording cut short (by its header, or found while reading) is handled by `truncation`.
  explicit SndfileSource(const std::string& path, TruncationPolicy truncation = {});
  // Reads the sound file whose bytes are `bytes` through libsndfile's virtual I/O, `name`
  // standing for the path in messages: the same checks and reads as a file on disk.
  SndfileSource(std::string name, std::vector<std::byte> bytes, TruncationPolicy truncation = {});
  ~SndfileSource() override;
  SndfileSource(const SndfileSource&) = delete;
  SndfileSource& operator=(const SndfileSource&) = delete;

  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  // libsndfile's sf_seek: exact for PCM and FLAC; false where the file cannot seek.
  bool start_at(std::uint64_t sample) override;
  std::string describe() const override { return path_; }

  // The container in short ("WAV", "FLAC", "OGG", "AIFF", ...) and the encoding in
  // libsndfile's words ("Signed 16 bit PCM").
  const std::string& container() const { return container_; }
  const std::string& encoding() const { return encoding_; }

  // Bytes of the file.
  std::uint64_t file_size() const { return file_size_; }

  // The title, artist, date, comment and software strings the file carries (those present),
  // as printable() makes them: valid UTF-8 on one line. A WAV's (RIFX's, RF64's) come from its
  // LIST and INFO chunks, read here: libsndfile, which can hang in its list parser, parses a
  // header prism writes instead of the file's.
  nlohmann::json tags() const;

  // Labels the stream with a centre frequency. Call before the run starts.
  void set_center_frequency(double hz) { info_.center_frequency = hz; }

 private:
  struct VirtualFile;  // what libsndfile reads: a WAV's samples behind prism's header, or memory

  // Opens virtual_ (its fd or bytes set) through libsndfile's virtual I/O, from `start` (past the
  // file's ID3v2 tags); a WAV's samples behind a header written here, its tags read here.
  // `read_at` reads the same bytes.
  void open_virtual(const std::function<bool(std::uint64_t offset, unsigned char* dst, std::size_t bytes)>& read_at,
                    const FileStart& start);
  // Takes the handle libsndfile opened (null: it could not) and checks what it found.
  void adopt(void* file, const SF_INFO& sfinfo);
  // The size of the opened file now (none for a file in memory or not a regular file).
  std::optional<std::uint64_t> current_file_size() const;

  std::string path_;
  FileDescriptor fd_;  // libsndfile reads through it; closed here, not by libsndfile
  std::unique_ptr<VirtualFile> virtual_;  // a WAV, a file behind ID3v2 tags, or one in memory
  std::vector<std::pair<std::string, std::string>> riff_tags_;  // read from its lists, for tags()
  void* file_ = nullptr;  // libsndfile's SNDFILE*, whose type name varies between versions
  StreamInfo info_;
  std::string container_;
  std::string encoding_;
  std::uint64_t file_size_ = 0;
  std::uint64_t frames_read_ = 0;
  // PCM travels as its stored integers (i16, i8, u8; 24 and 32 bits as i32, 24-bit values
  // shifted up by 8 as scipy.io.wavfile.read gives them): exact, and --integer-scale raw sees
  // scipy's values; unit scaling divides 24-bit v·256 by 2^31, which is v / 2^23. The rest as f32.
  SampleFormat delivered_ = SampleFormat::f32;
  TruncationPolicy truncation_policy_;
  std::string pending_error_;  // reported by the read after the one that delivered the last
                               // good samples
};

// The sound file described for `prism info`: the common fields (describe_stream), container,
// encoding, file_size, and the title, artist, date, comment and software strings when present.
nlohmann::json describe_sound_file(const std::string& path);
nlohmann::json describe_sound_file(const SndfileSource& source);

}  // namespace prism
