// Tests of the sink registry: the sink chosen for each extension, and the errors that must come
// before any processing (unsupported extension, bad options, unusable directory).
#include <string>

#include <gtest/gtest.h>

#include "pipeline/errors.hpp"
#include "sinks/npy_sink.hpp"
#include "sinks/open_sink.hpp"
#include "sinks/png_sink.hpp"
#include "sinks/sigmf_writer.hpp"
#if PRISM_HAVE_PORTAUDIO
#include "sinks/portaudio_sink.hpp"
#endif
#include "sink_test_support.hpp"

namespace prism {
namespace {

using test::ScratchDir;

TEST(OpenSink, RowOutputsByExtension) {
  ScratchDir dir;
  EXPECT_NE(dynamic_cast<NpySink*>(open_sink(dir.file("a.npy")).get()), nullptr);
  EXPECT_NE(dynamic_cast<NpySink*>(open_sink(dir.file("a.NPY")).get()), nullptr);
  EXPECT_NE(dynamic_cast<PngSink*>(open_sink(dir.file("a.png")).get()), nullptr);
  EXPECT_TRUE(dir.names().empty()) << "opening creates nothing until begin()";
}

TEST(OpenSink, UnsupportedExtensionNamesPathAndChoices) {
  try {
    open_sink("out.jpg");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("out.jpg"), std::string::npos) << message;
    EXPECT_NE(message.find(".npy"), std::string::npos) << message;
    EXPECT_NE(message.find(".png"), std::string::npos) << message;
    EXPECT_NE(message.find(".sigmf-meta"), std::string::npos) << message;
  }
}

TEST(OpenSink, UnknownColormapListsTheNames) {
  SinkOptions options;
  options.colormap = "rainbow";
  try {
    open_sink("out.png", options);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(colormap_names_help()), std::string::npos) << e.what();
  }
  EXPECT_EQ(colormap_names().front(), "viridis");
  EXPECT_EQ(colormap_names().size(), 5u);
}

TEST(OpenSink, SampleOutputsByExtension) {
  ScratchDir dir;
  for (const char* name : {"r", "r.sigmf-meta", "r.sigmf-data", "r.sigmf"})
    EXPECT_NE(dynamic_cast<SigmfWriter*>(open_sink(dir.file(name)).get()), nullptr) << name;
  EXPECT_THROW(open_sink(dir.file("r.txt")), UsageError);
}

// audio: names a playback device, not a file: no extension is looked at, nothing is created,
// and the device is only opened at begin() (tests/audio plays through it with a real server).
TEST(OpenSink, AudioSpecIsPlayback) {
  ScratchDir dir;
#if PRISM_HAVE_PORTAUDIO
  for (const char* spec : {"audio", "audio:", "audio:system", "audio:3", "audio:x.wav"}) {
    const auto sink = open_sink(spec);
    EXPECT_NE(dynamic_cast<PortAudioSink*>(sink.get()), nullptr) << spec;
  }
  EXPECT_EQ(open_sink("audio:system")->describe(), "audio:system");
  EXPECT_NE(sample_outputs_help().find("audio:"), std::string::npos);
#else
  try {
    open_sink("audio:");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("PortAudio"), std::string::npos) << e.what();
  }
#endif
  // A file whose name merely contains "audio" is still a file.
  EXPECT_NE(dynamic_cast<SigmfWriter*>(open_sink(dir.file("audio.sigmf-meta")).get()), nullptr);
}

TEST(OpenSink, OutputDirectoryIsCheckedAtOpen) {
  ScratchDir dir;
  try {
    open_sink(dir.file("missing/out.png"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), dir.file("missing/out.png"));
  }
  EXPECT_THROW(open_sink(dir.file("missing/r")), InputError);
  // A path that names an existing directory cannot be a file.
  std::filesystem::create_directory(dir.path() / "d.npy");
  EXPECT_THROW(open_sink(dir.file("d.npy")), InputError);
}

}  // namespace
}  // namespace prism
