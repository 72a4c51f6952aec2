// The sink registry (see open_sink.hpp).
#include "sinks/open_sink.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include <unistd.h>

#include "pipeline/errors.hpp"
#include "sinks/npy_sink.hpp"
#include "sinks/output_file.hpp"
#include "sinks/png_sink.hpp"
#include "sinks/raw_file_writer.hpp"
#include "sinks/sigmf_writer.hpp"
#if PRISM_HAVE_SNDFILE
#include "sinks/sndfile_writer.hpp"
#endif
#if PRISM_HAVE_PORTAUDIO
#include "sinks/portaudio_sink.hpp"
#endif
#if PRISM_HAVE_ZMQ
#include "sinks/zmq_sink.hpp"
#endif

namespace prism {
namespace {

std::string lowercase_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

}  // namespace

std::string row_outputs_help() {
  std::string help = ".npy (array + .json sidecar), - (.npy to stdout), .png (image)";
#if PRISM_HAVE_ZMQ
  help += ", zmq:pub:tcp://*:PORT or zmq:push:... (a ZeroMQ stream)";
#endif
  return help;
}

std::string sample_outputs_help() {
#if PRISM_HAVE_SNDFILE
  std::string help = ".sigmf-meta, .sigmf-data, .sigmf or no extension (SigMF), .wav, .flac, .ogg, .aif, .aiff, .npy";
#else
  std::string help = ".sigmf-meta, .sigmf-data, .sigmf or no extension (SigMF), .npy; WAV/FLAC/OGG/AIFF need a "
                     "build with libsndfile";
#endif
  help += ", - (.npy to stdout), raw samples in the format the extension names (" + raw_extensions_help() + ")";
#if PRISM_HAVE_PORTAUDIO
  help += "; audio:[NAME|INDEX] plays through an audio device";
#endif
#if PRISM_HAVE_ZMQ
  help += "; zmq:pub:tcp://*:PORT or zmq:push:... sends a ZeroMQ stream";
#endif
  return help;
}

namespace {
bool is_audio_device(const std::string& path) { return path == "audio" || path.rfind("audio:", 0) == 0; }
bool is_zmq_stream(const std::string& path) { return path.rfind("zmq:", 0) == 0; }
bool is_sigmf(const std::string& e) { return e.empty() || e == ".sigmf-meta" || e == ".sigmf-data" || e == ".sigmf"; }
bool is_sound_file(const std::string& e) {
  return e == ".wav" || e == ".flac" || e == ".ogg" || e == ".aif" || e == ".aiff";
}
bool is_raw(const std::string& path) { return raw_format_from_extension(path).has_value(); }
}  // namespace

std::vector<std::string> output_files(const std::string& output) {
  if (output == "-" || is_audio_device(output) || is_zmq_stream(output)) return {};
  const std::string e = lowercase_extension(output);
  if (e == ".npy") return {output, NpySink::sidecar_path_for(output)};
  if (is_sigmf(e)) {
    const std::string base = SigmfWriter::base_path(output);
    return {base + ".sigmf-data", base + ".sigmf-meta"};
  }
  return {output};
}

std::optional<OutputClash> find_output_clash(const std::vector<std::string>& outputs) {
  std::map<std::filesystem::path, std::string> writer;  // file -> the output that writes it
  for (const std::string& output : outputs)
    for (const std::string& written : output_files(output)) {
      std::error_code error;
      std::filesystem::path file = std::filesystem::weakly_canonical(std::filesystem::absolute(written), error);
      if (error) file = std::filesystem::absolute(written).lexically_normal();
      const auto [at, added] = writer.emplace(file, output);
      if (!added) return OutputClash{at->second, output, file.string()};
    }
  return std::nullopt;
}

bool names_an_output(const std::string& path) {
  const std::string e = lowercase_extension(path);
  return path == PartialFile::kStdout || is_audio_device(path) || is_zmq_stream(path) || e == ".npy" ||
         e == ".png" || is_sigmf(e) || is_sound_file(e) ||
         is_raw(path);
}

std::unique_ptr<Sink> open_sink(const std::string& path, const SinkOptions& options) {
  // "audio:" is a device, not a file: no extension, no directory to check. The device itself
  // is opened at begin(), when the stream's rate and channel count are known.
  if (is_audio_device(path)) {
#if PRISM_HAVE_PORTAUDIO
    return std::make_unique<PortAudioSink>(path.size() > 6 ? path.substr(6) : std::string());
#else
    throw UsageError(path + ": this prism was built without PortAudio, so it cannot play audio "
                            "(install portaudio19-dev and rebuild)");
#endif
  }
  // "zmq:" is a socket, bound now so that an address in use is reported before the run.
  if (is_zmq_stream(path)) {
#if PRISM_HAVE_ZMQ
    return std::make_unique<ZmqSink>(path);
#else
    throw UsageError(path + ": this prism was built without libzmq, so it cannot send ZeroMQ streams "
                            "(install libzmq3-dev and rebuild)");
#endif
  }
  // "-" is stdout, always as .npy (rows or samples), the sidecar where options say.
  if (path == PartialFile::kStdout) {
    if (::isatty(STDOUT_FILENO))
      throw UsageError("-o -: stdout is a terminal; pipe it to a reader (| python3 ...) or redirect it "
                       "(> out.npy)");
    auto sink = std::make_unique<NpySink>(path, options);
    if (!sink->sidecar_path().empty()) check_output_path(sink->sidecar_path());
    return sink;
  }
  const std::string e = lowercase_extension(path);
  if (e == ".npy") {
    auto sink = std::make_unique<NpySink>(path, options);
    check_output_path(path);
    check_output_path(sink->sidecar_path());
    return sink;
  }
  if (e == ".png") {
    auto sink = std::make_unique<PngSink>(path, options);  // checks the options
    check_output_path(path);
    return sink;
  }
  if (is_sigmf(e)) {
    auto sink = std::make_unique<SigmfWriter>(path, options);
    check_output_path(sink->data_path());
    check_output_path(sink->meta_path());
    return sink;
  }
  if (const auto raw = raw_format_from_extension(path)) {
    auto sink = std::make_unique<RawFileWriter>(path, *raw);
    check_output_path(path);
    return sink;
  }
  if (is_sound_file(e)) {
#if PRISM_HAVE_SNDFILE
    auto sink = std::make_unique<SndfileWriter>(path, options);
    check_output_path(path);
    return sink;
#else
    throw UsageError(path + ": this prism was built without libsndfile, so it cannot write " + e +
                     "; write SigMF (.sigmf-meta) instead");
#endif
  }
  throw UsageError(path + ": unsupported output extension '" + e + "'; rows go to " + row_outputs_help() +
                   ", samples to " + sample_outputs_help());
}

}  // namespace prism
