// The sink registry (see open_sink.hpp).
#include "sinks/open_sink.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "pipeline/errors.hpp"
#include "sinks/npy_sink.hpp"
#include "sinks/output_file.hpp"
#include "sinks/png_sink.hpp"
#include "sinks/sigmf_writer.hpp"
#if PRISM_HAVE_SNDFILE
#include "sinks/sndfile_writer.hpp"
#endif
#if PRISM_HAVE_PORTAUDIO
#include "sinks/portaudio_sink.hpp"
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

std::string row_sink_extensions_help() { return ".npy (array + .json sidecar), .png (image)"; }

std::string sample_sink_extensions_help() {
#if PRISM_HAVE_SNDFILE
  std::string help = ".sigmf-meta, .sigmf-data, .sigmf or no extension (SigMF), .wav, .flac, .ogg";
#else
  std::string help = ".sigmf-meta, .sigmf-data, .sigmf or no extension (SigMF); WAV/FLAC/OGG need a "
                     "build with libsndfile";
#endif
#if PRISM_HAVE_PORTAUDIO
  help += "; audio:[NAME|INDEX] plays through an audio device";
#endif
  return help;
}

std::unique_ptr<RowSink> open_row_sink(const std::string& path, const RowSinkOptions& options) {
  const std::string e = lowercase_extension(path);
  std::unique_ptr<RowSink> sink;
  if (e == ".npy") {
    sink = std::make_unique<NpySink>(path);
  } else if (e == ".png") {
    sink = std::make_unique<PngSink>(path, options);  // checks the options
  } else {
    throw UsageError(path + ": unsupported output extension '" + e +
                     "'; spectrogram outputs are " + row_sink_extensions_help());
  }
  check_output_path(path);
  return sink;
}

std::unique_ptr<SampleSink> open_sample_sink(const std::string& path,
                                             const SampleSinkOptions& options) {
  // "audio:" is a device, not a file: no extension, no directory to check. The device itself
  // is opened at begin(), when the stream's rate and channel count are known.
  if (path == "audio" || path.rfind("audio:", 0) == 0) {
#if PRISM_HAVE_PORTAUDIO
    return std::make_unique<PortAudioSink>(path.size() > 6 ? path.substr(6) : std::string());
#else
    throw UsageError(path + ": this prism was built without PortAudio, so it cannot play audio "
                            "(install portaudio19-dev and rebuild)");
#endif
  }
  const std::string e = lowercase_extension(path);
  if (e.empty() || e == ".sigmf-meta" || e == ".sigmf-data" || e == ".sigmf") {
    auto sink = std::make_unique<SigmfWriter>(path, options);
    check_output_path(sink->data_path());
    check_output_path(sink->meta_path());
    return sink;
  }
  if (e == ".wav" || e == ".flac" || e == ".ogg") {
#if PRISM_HAVE_SNDFILE
    auto sink = std::make_unique<SndfileWriter>(path, options);
    check_output_path(path);
    return sink;
#else
    throw UsageError(path + ": this prism was built without libsndfile, so it cannot write " +
                     e + "; write SigMF (.sigmf-meta) instead");
#endif
  }
  throw UsageError(path + ": unsupported output extension '" + e + "'; sample outputs are " +
                   sample_sink_extensions_help());
}

}  // namespace prism
