// Tests of the source registry (sources/open_source.hpp): which kind each input goes to, the
// path checks every file kind shares, options against self-describing inputs, and the
// descriptions `prism info` prints.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "sources/generator.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"
#include "sources/raw_file.hpp"
#if PRISM_HAVE_PORTAUDIO
#include "sources/portaudio_source.hpp"
#endif
#include "tests/sources/source_test_support.hpp"

namespace prism {
namespace {

using test::error_message;
using test::ScratchDir;

// Messages quoting a file's bytes are valid UTF-8, which a JSON document can hold: overlong
// forms, surrogates and code points above U+10FFFF are escaped too (the sound_file fuzz target
// found a tag of C0 80 passing as UTF-8).
TEST(OpenSource, PrintableTextIsStrictUtf8) {
  EXPECT_EQ(printable("caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac"), "caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac");
  EXPECT_EQ(printable("a\xc0\x80"), "a\\xc0\\x80");              // overlong NUL
  EXPECT_EQ(printable("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");        // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");        // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
  for (const char* bytes : {"\xc0\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xbf\xbf", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80"})
    EXPECT_NO_THROW((void)nlohmann::json(printable(bytes)).dump()) << printable(bytes);
}

TEST(OpenSource, PicksTheKindFromTheInput) {
  EXPECT_EQ(source_kind_name("gen"), "generator");
  EXPECT_EQ(source_kind_name("gen:tone=1000"), "generator");
  EXPECT_EQ(source_kind_name("-"), "stdin");
  EXPECT_EQ(source_kind_name("x.sigmf-meta"), "SigMF");
  EXPECT_EQ(source_kind_name("x.sigmf-data"), "SigMF");
  EXPECT_EQ(source_kind_name("x.sigmf"), "SigMF");
  for (const char* sound : {"x.wav", "x.FLAC", "x.ogg", "x.oga", "x.aif", "x.aiff", "x.au",
                            "x.caf", "x.w64"})
    EXPECT_EQ(source_kind_name(sound), "sound file") << sound;
  EXPECT_EQ(source_kind_name("x.cf32"), "raw");
  EXPECT_EQ(source_kind_name("x.bin"), "raw");
  EXPECT_EQ(source_kind_name("generator"), "raw");
  EXPECT_EQ(source_kind_name("gen.wav"), "sound file");

  ScratchDir dir;
  test::write_file(dir.file("rec.sigmf-meta"), "{}");
  EXPECT_EQ(source_kind_name(dir.file("rec")), "SigMF");  // a base name with its meta beside it
  EXPECT_EQ(source_kind_name(dir.file("other")), "raw");
}

TEST(OpenSource, ChecksPathsBeforeDispatch) {
  ScratchDir dir;
  for (const char* name : {"none.wav", "none.cf32", "none"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(error_message<InputError>([&] { open_source(dir.file(name), {}); }),
              dir.file(name) + ": no such file");
  }
  std::filesystem::create_directory(dir.file("d.cu8"));
  EXPECT_EQ(error_message<InputError>([&] { open_source(dir.file("d.cu8"), {}); }),
            dir.file("d.cu8") + ": is a directory, not a file");
  EXPECT_EQ(error_message<InputError>([&] { open_source(dir.path().string(), {}); }),
            dir.path().string() + ": is a directory, not a file");
  EXPECT_CONTAINS(error_message<UsageError>([&] { open_source("", {}); }), "input is empty");
}

TEST(OpenSource, GeneratorOpensWithItsSpecAndRejectsContradictingOptions) {
  auto source = open_source("gen:rate=8000,duration=2,tone=100", {});
  auto* generator = dynamic_cast<GeneratorSource*>(source.get());
  ASSERT_NE(generator, nullptr);
  EXPECT_EQ(source->info().length, 16000u);
  EXPECT_EQ(source->info().sample_rate, 8000);

  SourceOptions rate;
  rate.sample_rate = 48000;
  const std::string message =
      error_message<UsageError>([&] { open_source("gen:rate=8000,tone=100", rate); });
  EXPECT_CONTAINS(message, "sample_rate 48000");  // the field's name: this is the library
  EXPECT_CONTAINS(message, "gen:rate=");
  // A caller with names of its own (the command line's options, Python's arguments) gets them.
  rate.field_namer = [](std::string_view key) {
    return key == "sample_rate" ? std::string("--rate") : std::string(key);
  };
  EXPECT_CONTAINS(error_message<UsageError>([&] { open_source("gen:rate=8000,tone=100", rate); }), "--rate 48000");

  SourceOptions centre;
  centre.center_frequency = 1e9;
  EXPECT_EQ(open_source("gen", centre)->info().center_frequency, 1e9);

  EXPECT_CONTAINS(error_message<UsageError>([&] { open_source("gen:bogus=1", {}); }),
                  "unknown key 'bogus'");
}

TEST(OpenSource, RawInputNeedsFormatAndRate) {
  ScratchDir dir;
  test::write_file(dir.file("x.bin"), std::string(16, 'a'));
  SourceOptions rate_only;
  rate_only.sample_rate = 1e3;
  EXPECT_CONTAINS(error_message<UsageError>([&] { open_source(dir.file("x.bin"), rate_only); }),
                  "format is required for raw input " + dir.file("x.bin"));
  SourceOptions both = rate_only;
  both.format = SampleFormat::ci16;
  EXPECT_EQ(open_source(dir.file("x.bin"), both)->info().length, 4u);
}

TEST(OpenSource, DescribesEveryKindOfInput) {
  const nlohmann::json gen = describe_input("gen:rate=1000,duration=3,tone=10", {});
  EXPECT_EQ(gen["container"], "generator");
  EXPECT_EQ(gen["format"], "f32");
  EXPECT_EQ(gen["channels"], 1);
  EXPECT_EQ(gen["sample_rate"], 1000);
  EXPECT_EQ(gen["center_frequency"], 0);
  EXPECT_EQ(gen["length_samples"], 3000);
  EXPECT_EQ(gen["duration_s"], 3);
  EXPECT_TRUE(gen["start_time"].is_null());
  EXPECT_TRUE(gen["file_size"].is_null());
  EXPECT_EQ(gen["spec"], parse_generator_spec("gen:rate=1000,duration=3,tone=10").to_string());
  EXPECT_EQ(gen["input"], "gen:rate=1000,duration=3,tone=10");

  const nlohmann::json endless = describe_input("gen:duration=inf", {});
  EXPECT_TRUE(endless["length_samples"].is_null());
  EXPECT_TRUE(endless["duration_s"].is_null());

  SourceOptions raw;
  raw.sample_rate = 1e3;
  raw.format = SampleFormat::cf32;
  raw.center_frequency = 5e6;
  const nlohmann::json in = describe_input("-", raw);
  EXPECT_EQ(in["container"], "stdin");
  EXPECT_EQ(in["center_frequency"], 5e6);
}

#if PRISM_HAVE_PORTAUDIO
// A byte order for an audio device is named whole, as the caller named the field.
TEST(OpenSource, AudioDeviceRefusesABigEndianFormatByItsWholeName) {
  SourceOptions options;
  options.format = SampleFormat::f32;
  options.big_endian = true;
  EXPECT_CONTAINS(error_message<UsageError>([&] { open_source("audio:", options); }),
                  "format f32_be contradicts audio:");
}

// Audio errors name the selector as given, and the default device in words: never
// "audio:: reason".
TEST(OpenSource, AudioErrorsNameTheDeviceSelector) {
  EXPECT_EQ(audio_device_spec(""), "audio (default device)");
  EXPECT_EQ(audio_device_spec("system"), "audio:system");
  EXPECT_EQ(audio_device_spec("3"), "audio:3");
  try {
    open_source("audio:no-such-device-7f3a", SourceOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "audio:no-such-device-7f3a");
    EXPECT_NE(std::string(e.what()).find("no audio input device has 'no-such-device-7f3a' in its name"),
              std::string::npos)
        << e.what();
  }
}
#endif

}  // namespace

// What a batch takes from a directory: recordings whose extension says how to read them.
TEST(OpenSource, RecognisesRecordingPaths) {
  for (const char* path : {"a.wav", "dir/B.FLAC", "c.sigmf-meta", "d.sigmf", "e.cf32", "f.cu8", "g.ci16"})
    EXPECT_TRUE(is_recording_path(path)) << path;
  // The data half of a SigMF pair is read through its .sigmf-meta; other files need --format.
  for (const char* path : {"a.sigmf-data", "notes.txt", "capture.bin", "noextension", "a.json"})
    EXPECT_FALSE(is_recording_path(path)) << path;
}

}  // namespace prism
