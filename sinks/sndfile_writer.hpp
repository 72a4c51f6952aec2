// SndfileWriter: writes a real-valued stream to an audio file through libsndfile, the container
// chosen by the extension: .wav and .aif/.aiff (float32, PCM 16 or 24 bit), .flac (PCM 16 or 24
// bit), .ogg (Vorbis). The sample encoding is SinkOptions::subtype, by default float for f32 and
// f64 input into WAV and AIFF, PCM 24 for them into FLAC, PCM 24 for 32-bit integer input and PCM 16 for other
// integer input. Integer input is written without a detour through float, so i16 → PCM 16 is
// bit-exact.
//
// Complex streams are refused (UsageError): these containers have no notion of I/Q; SigMF holds
// them. Written as "<path>.partial", renamed at finish(). libsndfile writes through its virtual
// I/O into a PartialFile, so that every write is checked by prism: libsndfile does not report a
// write that fails while it closes the file (a FLAC encoder's last frames and header on a full
// disk), which would otherwise publish a short file as complete. Only built with libsndfile
// (PRISM_HAVE_SNDFILE).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "pipeline/stage.hpp"
#include "pipeline/stream_info.hpp"
#include "sinks/output_file.hpp"
#include "sinks/sink_options.hpp"

struct sf_private_tag;  // libsndfile's SNDFILE

namespace prism {

class SndfileWriter final : public Sink {
 public:
  // Throws UsageError for an extension other than .wav/.flac/.ogg or an unknown subtype.
  SndfileWriter(std::string path, SinkOptions options = {});
  ~SndfileWriter() override;

  bool accepts(PortKind kind) const override { return kind == PortKind::samples; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return samples_written_; }
  std::string describe() const override;

  // The encoding begin() chose: "float", "pcm16", "pcm24" or "vorbis"; empty before begin().
  const std::string& subtype() const { return chosen_subtype_; }

  // Whether `path` has an extension this writer handles (.wav, .flac, .ogg, any case).
  static bool handles_extension(const std::string& path);

 private:
  struct VirtualIo;  // libsndfile's callbacks into file_out_
  void check_written(std::int64_t written, std::int64_t wanted);
  void close_file(bool keep);

  enum class Container { wav, flac, ogg, aiff };
  std::string path_;
  PartialFile file_out_;
  std::uint64_t position_ = 0;      // libsndfile's position in file_out_
  std::exception_ptr write_error_;  // the first write to file_out_ that failed
  SinkOptions options_;
  Container container_ = Container::wav;
  std::string requested_subtype_;  // normalised option; empty = by format
  std::string chosen_subtype_;
  StreamInfo info_;
  sf_private_tag* file_ = nullptr;
  std::vector<short> short_scratch_;
  std::vector<float> float_scratch_;
  std::vector<double> double_scratch_;
  std::vector<int> int_scratch_;
  std::uint64_t samples_written_ = 0;
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace prism
