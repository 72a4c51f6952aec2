// Tests of sound files through libsndfile (sources/sndfile_source.hpp): WAV and FLAC written
// here read back sample for sample; empty, truncated, garbage, directory and unreadable files
// give errors that name the path and the problem.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"
#include "sources/sndfile_source.hpp"
#include "tests/sources/source_test_support.hpp"

namespace prism {
namespace {

using test::error_message;
using test::read_all;
using test::ScratchDir;

// Interleaved 16-bit test samples: a ramp per channel, so every frame differs.
std::vector<short> test_samples(std::size_t frames, int channels) {
  std::vector<short> samples(frames * channels);
  for (std::size_t i = 0; i < samples.size(); ++i)
    samples[i] = static_cast<short>(static_cast<int>(i * 37 % 65536) - 32768);
  return samples;
}

void write_sound_file(const std::string& path, int format, int rate, int channels,
                      const std::vector<short>& samples) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = format;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  const sf_count_t frames = static_cast<sf_count_t>(samples.size() / channels);
  ASSERT_EQ(sf_writef_short(file, samples.data(), frames), frames);
  sf_close(file);
}

// Writes `frames` of 8000 Hz mono test samples to `path` in `format`, with libsndfile's strings
// (SF_STR_TITLE...) set to the texts given.
void write_tagged_file(const std::string& path, int format, std::size_t frames,
                       const std::vector<std::pair<int, const char*>>& strings) {
  SF_INFO info{};
  info.samplerate = 8000;
  info.channels = 1;
  info.format = format;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  for (const auto& [id, text] : strings) sf_set_string(file, id, text);
  const auto samples = test_samples(frames, 1);
  sf_writef_short(file, samples.data(), static_cast<sf_count_t>(frames));
  sf_close(file);
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
  std::vector<float> floats(bytes.size() / 4);
  convert_to_float(SampleFormat::f32, bytes.data(), floats.size(), floats.data());
  return floats;
}

TEST(SndfileSource, ReadsBackWavAndFlacSampleForSample) {
  struct Case {
    const char* name;
    int format;
    int channels;
    const char* container;
  };
  const Case cases[] = {
      {"stereo.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 2, "WAV"},
      {"mono.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, "FLAC"},
      {"three.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 3, "AIFF"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchDir dir;
    const auto samples = test_samples(10007, c.channels);
    write_sound_file(dir.file(c.name), c.format, 44100, c.channels, samples);

    SndfileSource source(dir.file(c.name));
    EXPECT_EQ(source.info().format, SampleFormat::i16) << "16-bit PCM travels as i16";
    EXPECT_EQ(source.info().sample_rate, 44100);
    EXPECT_EQ(source.info().channels, static_cast<unsigned>(c.channels));
    EXPECT_EQ(source.info().length, 10007u);
    EXPECT_EQ(source.container(), c.container);
    EXPECT_EQ(source.encoding(), "Signed 16 bit PCM");
    const auto bytes = read_all(source, 1000);
    ASSERT_EQ(bytes.size(), samples.size() * sizeof(short));
    std::vector<float> floats(samples.size());
    convert_to_float(SampleFormat::i16, bytes.data(), floats.size(), floats.data());
    for (std::size_t i = 0; i < samples.size(); ++i)
      ASSERT_EQ(floats[i], samples[i] / 32768.0f) << "at " << i;
  }
}

TEST(SndfileSource, Pcm24And32ComeOutAsLeftJustifiedInt32) {
  // As scipy.io.wavfile.read gives them: 24-bit value v as v·256, 32-bit values as they are.
  ScratchDir dir;
  const auto samples = test_samples(2000, 1);
  for (const int subtype : {SF_FORMAT_PCM_24, SF_FORMAT_PCM_32}) {
    write_sound_file(dir.file("a.wav"), SF_FORMAT_WAV | subtype, 8000, 1, samples);
    SndfileSource source(dir.file("a.wav"));
    EXPECT_EQ(source.info().format, SampleFormat::i32);
    const auto bytes = read_all(source, 300);
    ASSERT_EQ(bytes.size(), samples.size() * 4);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      std::int32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      ASSERT_EQ(v, static_cast<std::int32_t>(samples[i]) * 65536) << "at " << i;  // 16-bit values written
    }
    std::vector<float> unit(samples.size());
    convert_to_float(SampleFormat::i32, bytes.data(), samples.size(), unit.data());
    EXPECT_EQ(unit[5], samples[5] / 32768.0f);
  }
}

TEST(SndfileSource, FloatEncodingsComeOutAsStoredFloats) {
  ScratchDir dir;
  const auto samples = test_samples(2000, 1);
  write_sound_file(dir.file("f.wav"), SF_FORMAT_WAV | SF_FORMAT_FLOAT, 8000, 1, samples);
  SndfileSource source(dir.file("f.wav"));
  EXPECT_EQ(source.info().format, SampleFormat::f32);
  const auto floats = as_floats(read_all(source, 300));
  ASSERT_EQ(floats.size(), samples.size());
  // libsndfile stores shorts into a float file unscaled; they come back as stored.
  for (std::size_t i = 0; i < samples.size(); ++i)
    ASSERT_EQ(floats[i], static_cast<float>(samples[i])) << "at " << i;
}

TEST(SndfileSource, ChunkedReadsMatchOneRead) {
  ScratchDir dir;
  write_sound_file(dir.file("a.wav"), SF_FORMAT_WAV | SF_FORMAT_FLOAT, 8000, 2,
                   test_samples(3000, 2));
  SndfileSource whole(dir.file("a.wav"));
  SndfileSource pieces(dir.file("a.wav"));
  EXPECT_EQ(read_all(whole, 3000), read_all(pieces, 7));
}

TEST(SndfileSource, UnalignedBufferGetsTheSameSamples) {
  ScratchDir dir;
  write_sound_file(dir.file("a.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1,
                   test_samples(500, 1));
  SndfileSource aligned(dir.file("a.wav"));
  const auto expected = read_all(aligned, 500);
  SndfileSource source(dir.file("a.wav"));
  std::vector<std::byte> buffer(500 * 2 + 1);
  ASSERT_EQ(source.read(buffer.data() + 1, 500), 500u);
  EXPECT_EQ(std::memcmp(buffer.data() + 1, expected.data(), expected.size()), 0);
}

TEST(SndfileSource, StreamedWavWithUnknownLengthMarkerIsNotTruncated) {
  // Writers that stream a WAV put 0xFFFFFFFF in the size fields; the samples run to the end.
  ScratchDir dir;
  write_sound_file(dir.file("a.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1,
                   test_samples(1000, 1));
  auto bytes = test::read_file(dir.file("a.wav"));
  ASSERT_EQ(std::memcmp(bytes.data() + 36, "data", 4), 0);
  std::memset(bytes.data() + 4, 0xff, 4);
  std::memset(bytes.data() + 40, 0xff, 4);
  test::write_file(dir.file("streamed.wav"), bytes);
  SndfileSource source(dir.file("streamed.wav"));
  EXPECT_EQ(read_all(source, 256).size(), 1000u * sizeof(short));
}

TEST(SndfileSource, DescribesTheFile) {
  ScratchDir dir;
  write_sound_file(dir.file("a.flac"), SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 48000, 2,
                   test_samples(4800, 2));
  const nlohmann::json d = describe_sound_file(dir.file("a.flac"));
  EXPECT_EQ(d["container"], "FLAC");
  EXPECT_EQ(d["format"], "i16");
  EXPECT_EQ(d["channels"], 2);
  EXPECT_EQ(d["sample_rate"], 48000);
  EXPECT_EQ(d["length_samples"], 4800);
  EXPECT_DOUBLE_EQ(d["duration_s"].get<double>(), 0.1);
  EXPECT_EQ(d["file_size"], std::filesystem::file_size(dir.file("a.flac")));
}

// ---- bad files -------------------------------------------------------------------------------

// Tags in another encoding than UTF-8 (a Latin-1 title) are described, not a failure of the
// JSON output (the sound_file fuzz target found `prism info --json` failing on one).
TEST(SndfileSource, TagsThatAreNotUtf8AreDescribedPrintably) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("latin1.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 100,
                                            {{SF_STR_TITLE, "caf\xe9 line\none"}}));
  SndfileSource source(dir.file("latin1.wav"));
  EXPECT_EQ(source.tags()["title"], "caf\\xe9 line\\x0aone");
  EXPECT_NO_THROW((void)describe_sound_file(source).dump());
}

// What prism makes of `bytes`, as a file named `name` and as the same bytes in memory: "N bytes"
// read to the end, or the error, the input's name written as <input>. Both must give the same.
std::string outcome_of(const std::vector<std::byte>& bytes, const std::string& name) {
  ScratchDir dir;
  test::write_file(dir.file(name), bytes);
  auto outcome = [](const std::function<std::unique_ptr<SndfileSource>()>& open, const std::string& shown) {
    try {
      const std::unique_ptr<SndfileSource> source = open();
      return std::to_string(read_all(*source, 4096).size()) + " bytes";
    } catch (const InputError& e) {
      std::string message = e.what();
      if (message.starts_with(shown + ": ")) message.replace(0, shown.size(), "<input>");
      return message;
    }
  };
  const std::string on_disk = outcome([&] { return std::make_unique<SndfileSource>(dir.file(name)); }, dir.file(name));
  const std::string in_memory =
      outcome([&] { return std::make_unique<SndfileSource>("memory.wav", bytes); }, "memory.wav");
  EXPECT_EQ(on_disk, in_memory);
  return on_disk;
}

template <std::size_t N>
std::vector<std::byte> bytes_of(const unsigned char (&array)[N]) {
  return std::vector<std::byte>(reinterpret_cast<const std::byte*>(array), reinterpret_cast<const std::byte*>(array) + N);
}

// A list entry of 2 GiB or more makes libsndfile 1.2.0 loop forever (the sound_file fuzz target
// found it); libsndfile never parses a list here, so the file reads to its end, without the tags
// from that entry on.
TEST(SndfileSource, WavWithAHugeListEntryReadsWithoutThatTag) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("tagged.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 100,
                                            {{SF_STR_TITLE, "title"}}));
  auto bytes = test::read_file(dir.file("tagged.wav"));
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const auto entry = text.find("INAM");
  ASSERT_NE(entry, std::string::npos);
  const unsigned char huge[4] = {0xf7, 0xf7, 0xff, 0xff};  // 0xfffff7f7, little-endian
  std::memcpy(bytes.data() + entry + 4, huge, 4);
  EXPECT_EQ(outcome_of(bytes, "huge-entry.wav"), "200 bytes");
  SndfileSource broken("huge-entry.wav", bytes);
  EXPECT_EQ(read_all(broken, 64), read_all(*std::make_unique<SndfileSource>(dir.file("tagged.wav")), 64));
  EXPECT_FALSE(broken.tags().contains("title"));
  EXPECT_EQ(SndfileSource(dir.file("tagged.wav")).tags()["title"], "title");
}

// libsndfile reads a `fact` chunk's 4-byte frame count even when the chunk says 0 bytes, so it
// steps onto a LIST chunk that a walk by the chunks' sizes misses (the sound_file fuzz target's
// smoke run found it): that LIST's entry of 0xfffffff7 bytes, read from the list's unknown type
// on, made libsndfile loop. prism walks the chunks as RIFF lays them out, steps from the empty
// `fact` onto the frame count as a chunk, past the end, and finds no data chunk: which it says.
TEST(SndfileSource, WavWithAnEmptyFactChunkBeforeAHugeListEntryIsRefused) {
  const unsigned char wav[] = {
      // RIFF, WAVE
      0x52, 0x49, 0x46, 0x46, 0x50, 0x01, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45,
      // fmt , 20 bytes
      0x66, 0x6d, 0x74, 0x20, 0x14, 0x00, 0x00, 0x00, 0x11, 0x00, 0x01, 0x00,
      0x40, 0x58, 0x01, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00,
      0x02, 0x00, 0xf9, 0x01,
      // fact, 0 bytes
      0x66, 0x61, 0x63, 0x74, 0x00, 0x00, 0x00, 0x00,
      // the frame count libsndfile reads all the same
      0xf9, 0x01, 0x00, 0x00,
      // LIST, 20 bytes: type 00 00 00 0c, an entry
      0x4c, 0x49, 0x53, 0x54, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c,
      0xf7, 0xff, 0xff, 0xff, 0x08, 0x00, 0x00, 0x00, 0x61, 0x20, 0xf4, 0x69,
      0x74, 0x6c, 0x65, 0x00,
      // data, 0 bytes, and 3 more
      0x64, 0x61, 0x74, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  };
  EXPECT_EQ(outcome_of(bytes_of(wav), "empty-fact.wav"), "<input>: malformed: no data chunk");
}

// libsndfile parses a top-level INFO chunk as a list of entries too: one whose entry claims
// 0xfffffff7 bytes made it loop (the sound_file fuzz campaign found it). libsndfile never sees a
// WAV's own chunks here; this file has no fmt chunk, which is what prism says.
TEST(SndfileSource, WavWithAHugeEntryInATopLevelInfoChunkIsRefused) {
  const unsigned char wav[] = {
      // RIFF, WAVE
      0x52, 0x49, 0x46, 0x46, 0x98, 0x02, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45,
      // "fmt!", 16 bytes
      0x66, 0x6d, 0x74, 0x21, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
      0x40, 0x1f, 0x00, 0x00, 0xc0, 0x5d, 0x00, 0x00, 0x03, 0x00, 0x18, 0x00,
      // LIST, 20 bytes
      0x4c, 0x49, 0x53, 0x54, 0x14, 0x00, 0x00, 0x00, 0x49, 0x4e, 0x46, 0x45,
      0x66, 0x6d, 0x63, 0x74, 0x04, 0x00, 0x00, 0x00, 0xf9, 0x01, 0x00, 0x00,
      0x4c, 0x49, 0x53, 0x54,
      // INFO, its entry "IN\xbf\xb2" of 0xfffffff7 bytes, and more
      0x49, 0x4e, 0x46, 0x4f, 0x49, 0x26, 0x08, 0x4f, 0x49, 0x4e, 0xbf, 0xb2,
      0xf7, 0xff, 0xff, 0xff, 0x9e, 0x74, 0x69, 0x74, 0x00, 0x00, 0x68, 0x04,
      0x00,
  };
  EXPECT_EQ(outcome_of(bytes_of(wav), "info.wav"), "<input>: malformed: no fmt chunk");
}

// libsndfile reads a list's entry while its name starts within the chunk, its size from beyond
// the chunk's end: there 0xfffffff0 made it loop (the sound_file fuzz campaign found it). prism
// steps over the list by its size, onto the size's bytes as a chunk and past the data chunk.
TEST(SndfileSource, WavWithAListEntryWhoseSizeLiesPastTheChunkIsRefused) {
  const unsigned char wav[] = {
      // RIFF, WAVE
      0x52, 0x49, 0x46, 0x46, 0x44, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45,
      // fmt , 16 bytes: PCM, one channel, 8000 Hz, 16 bits
      0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
      0x40, 0x1f, 0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00,
      // LIST, 16 bytes: type INFO, IABC of 0 bytes, the name IXYZ
      0x4c, 0x49, 0x53, 0x54, 0x10, 0x00, 0x00, 0x00, 0x49, 0x4e, 0x46, 0x4f,
      0x49, 0x41, 0x42, 0x43, 0x00, 0x00, 0x00, 0x00, 0x49, 0x58, 0x59, 0x5a,
      // past the list: the bytes libsndfile reads as IXYZ's size (0xfffffff0)
      0xf0, 0xff, 0xff, 0xff,
      // data, 4 bytes
      0x64, 0x61, 0x74, 0x61, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,
  };
  EXPECT_EQ(outcome_of(bytes_of(wav), "straddling.wav"), "<input>: malformed: no data chunk");
}

// RF64 (64-bit WAV) files go through the same list parser in libsndfile, so a huge LIST entry
// hung it there too (the sound_file fuzz target found it in a top-level INFO chunk of an RF64
// file); it parses no RF64 file's own header here either.
TEST(SndfileSource, Rf64WithAHugeListEntryReadsWithoutThatTag) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("tagged.rf64"), SF_FORMAT_RF64 | SF_FORMAT_PCM_16, 100,
                                            {{SF_STR_TITLE, "title"}}));
  auto bytes = test::read_file(dir.file("tagged.rf64"));
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  ASSERT_EQ(text.substr(0, 4), "RF64");
  const auto entry = text.find("INAM");
  ASSERT_NE(entry, std::string::npos);
  const unsigned char huge[4] = {0xf7, 0xff, 0xff, 0xff};  // 0xfffffff7, little-endian
  std::memcpy(bytes.data() + entry + 4, huge, 4);
  EXPECT_EQ(outcome_of(bytes, "huge-entry.rf64"), "200 bytes");
  EXPECT_FALSE(SndfileSource("huge-entry.rf64", bytes).tags().contains("title"));
  SndfileSource untouched(dir.file("tagged.rf64"));
  EXPECT_EQ(untouched.info().length, 100u);
  EXPECT_EQ(untouched.tags()["title"], "title");
}

// Each input that once made libsndfile loop (tests/fuzz/regressions/sound_file/*-hangs-libsndfile:
// found by the fuzz campaigns and by reading libsndfile's parsers: padding after odd chunks, a
// `fact` shorter than its frame count, `acid`, a `data` inside a list, an `exif` string of 4 KiB,
// RIFX turned little-endian by `cue ` (and not by a short `cart`), RF64's ds64 variants, a list
// read past its end, exif fields that libsndfile counts twice, lists it stops reading early) reads
// to its end or gets an error naming it, alike from a file and from memory (so do the other inputs
// there): libsndfile parses a header written by prism, not theirs.
TEST(SndfileSource, NoInputThatHungLibsndfileHangsIt) {
  int hung = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PRISM_SOUND_FILE_REGRESSIONS)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::string outcome = outcome_of(test::read_file(entry.path().string()), name);
    EXPECT_TRUE(outcome.ends_with(" bytes") || outcome.starts_with("<input>: ")) << outcome;
    hung += name.ends_with("-hangs-libsndfile");
  }
  EXPECT_GE(hung, 32);
}

// The tags of a WAV's LIST chunk, which prism reads itself, come out as libsndfile wrote them, from
// little-endian RIFF and big-endian RIFX files.
TEST(SndfileSource, ReadsTheTagsOfAListChunk) {
  for (const int endian : {SF_ENDIAN_LITTLE, SF_ENDIAN_BIG}) {
    SCOPED_TRACE(endian);
    ScratchDir dir;
    ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("tagged.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16 | endian, 100,
                                              {{SF_STR_TITLE, "A title"},
                                               {SF_STR_ARTIST, "An artist"},
                                               {SF_STR_DATE, "2026-12-07"},
                                               {SF_STR_COMMENT, "odd"},
                                               {SF_STR_SOFTWARE, "prism test"}}));
    ASSERT_EQ(test::read_file(dir.file("tagged.wav"))[3],
              static_cast<std::byte>(endian == SF_ENDIAN_BIG ? 'X' : 'F'));
    SndfileSource source(dir.file("tagged.wav"));
    EXPECT_EQ(source.tags(), (nlohmann::json{{"title", "A title"},
                                             {"artist", "An artist"},
                                             {"date", "2026-12-07"},
                                             {"comment", "odd"},
                                             {"software", std::string("prism test (") + sf_version_string() + ")"}}));
    EXPECT_EQ(read_all(source, 64).size(), 200u);
  }
}

// An INFO entry of odd length written without its pad byte, followed by an entry whose name starts
// with a byte above 0x7f: a file libsndfile opens, and so does prism (the title is read; what
// follows, out of step, is not a tag).
TEST(SndfileSource, AListEntryWithoutItsPadByteReads) {
  const unsigned char wav[] = {
      // RIFF, WAVE
      0x52, 0x49, 0x46, 0x46, 0x4a, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45,
      // fmt , 16 bytes: PCM, one channel, 8000 Hz, 16 bits
      0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
      0x40, 0x1f, 0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00,
      // LIST, 25 bytes: type INFO, INAM of 3 bytes ("Hi" and its 0) with no pad, "\xa9nam" of 2
      0x4c, 0x49, 0x53, 0x54, 0x19, 0x00, 0x00, 0x00, 0x49, 0x4e, 0x46, 0x4f,
      0x49, 0x4e, 0x41, 0x4d, 0x03, 0x00, 0x00, 0x00, 0x48, 0x69, 0x00, 0xa9,
      0x6e, 0x61, 0x6d, 0x02, 0x00, 0x00, 0x00, 0x58, 0x00,
      // pad of the odd list, data, 4 bytes
      0x00, 0x64, 0x61, 0x74, 0x61, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,
  };
  EXPECT_EQ(outcome_of(bytes_of(wav), "unpadded.wav"), "4 bytes");
  EXPECT_EQ(SndfileSource("unpadded.wav", bytes_of(wav)).tags()["title"], "Hi");
}

// Samples whose bytes spell "LIST" come as they are, and a WAV left unclosed (RIFF size 8, data
// size 0) reads to its end, as plain libsndfile reads it: here IMA ADPCM, whose first block
// libsndfile decodes while it opens the file.
TEST(SndfileSource, SamplesThatSpellListComeAsTheyAre) {
  ScratchDir dir;
  write_sound_file(dir.file("ima.wav"), SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM, 8000, 1, test_samples(4000, 1));
  auto bytes = test::read_file(dir.file("ima.wav"));
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const auto data = text.find("data");
  ASSERT_NE(data, std::string::npos);
  std::memset(bytes.data() + 4, 0, 4);
  bytes[4] = std::byte{8};  // RIFF size 8
  std::memset(bytes.data() + data + 4, 0, 4);  // data size 0
  std::memcpy(bytes.data() + data + 8, "LIST", 4);  // the first block's header
  test::write_file(dir.file("unclosed.wav"), bytes);

  SF_INFO info{};
  SNDFILE* plain = sf_open(dir.file("unclosed.wav").c_str(), SFM_READ, &info);
  ASSERT_NE(plain, nullptr) << sf_strerror(nullptr);
  std::vector<float> expected(1000);
  ASSERT_EQ(sf_readf_float(plain, expected.data(), 1000), 1000);
  sf_close(plain);
  for (const bool in_memory : {false, true}) {
    SCOPED_TRACE(in_memory);
    std::unique_ptr<SndfileSource> source = in_memory ? std::make_unique<SndfileSource>("memory.wav", bytes)
                                                      : std::make_unique<SndfileSource>(dir.file("unclosed.wav"));
    std::vector<float> got(1000);
    ASSERT_EQ(source->read(reinterpret_cast<std::byte*>(got.data()), 1000), 1000u);
    EXPECT_EQ(got, expected);
  }
}

// prism's walk of the chunks ends at a name of four zero bytes, as libsndfile's does, and refuses
// no file for their number once it has its fmt and data: a WAV followed by 900 KB of zeros (more
// than 100,000 empty "chunks") reads as the WAV alone.
TEST(SndfileSource, AWavFollowedByZerosReadsAsTheWavAlone) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("alone.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1000, {}));
  auto bytes = test::read_file(dir.file("alone.wav"));
  bytes.resize(bytes.size() + 900000, std::byte{0});
  EXPECT_EQ(outcome_of(bytes, "zeros.wav"), "2000 bytes");
  EXPECT_EQ(read_all(*std::make_unique<SndfileSource>("zeros.wav", bytes), 64),
            read_all(*std::make_unique<SndfileSource>(dir.file("alone.wav")), 64));
}

// A WAV behind ID3v2 tags (libsndfile steps over them) reads as the same WAV alone, tags and all.
TEST(SndfileSource, AWavBehindId3TagsReadsAsTheWavAlone) {
  ScratchDir dir;
  ASSERT_NO_FATAL_FAILURE(write_tagged_file(dir.file("alone.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 500,
                                            {{SF_STR_TITLE, "behind"}}));
  const auto wav = test::read_file(dir.file("alone.wav"));
  // Two ID3v2.3 tags of 6 and 130 bytes after their 10-byte headers (130 in 7-bit bytes: 1, 2).
  std::vector<std::byte> bytes;
  for (const auto& [size, high, low] : {std::tuple{6, 0, 6}, std::tuple{130, 1, 2}}) {
    const unsigned char header[10] = {'I', 'D', '3', 3, 0, 0, 0, 0, static_cast<unsigned char>(high),
                                      static_cast<unsigned char>(low)};
    for (const unsigned char c : header) bytes.push_back(std::byte{c});
    bytes.insert(bytes.end(), static_cast<std::size_t>(size), std::byte{'L'});
  }
  bytes.insert(bytes.end(), wav.begin(), wav.end());
  test::write_file(dir.file("tagged.wav"), bytes);
  for (const bool in_memory : {false, true}) {
    SCOPED_TRACE(in_memory);
    std::unique_ptr<SndfileSource> behind = in_memory ? std::make_unique<SndfileSource>("memory.wav", bytes)
                                                      : std::make_unique<SndfileSource>(dir.file("tagged.wav"));
    EXPECT_EQ(behind->container(), "WAV");
    EXPECT_EQ(behind->tags()["title"], "behind");
    EXPECT_EQ(read_all(*behind, 64), read_all(*std::make_unique<SndfileSource>(dir.file("alone.wav")), 64));
  }
}

TEST(SndfileSource, EmptyFile) {
  ScratchDir dir;
  test::write_file(dir.file("empty.wav"), "");
  EXPECT_EQ(error_message<InputError>([&] { SndfileSource s(dir.file("empty.wav")); }),
            dir.file("empty.wav") + ": empty file (0 bytes)");
}

TEST(SndfileSource, TruncatedWavIsReportedNotPadded) {
  ScratchDir dir;
  write_sound_file(dir.file("full.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 48000, 2,
                   test_samples(48000, 2));
  auto bytes = test::read_file(dir.file("full.wav"));
  bytes.resize(bytes.size() / 2);
  test::write_file(dir.file("half.wav"), bytes);
  const std::string message =
      error_message<InputError>([&] { SndfileSource s(dir.file("half.wav")); });
  EXPECT_CONTAINS(message, dir.file("half.wav") + ": truncated");
  EXPECT_CONTAINS(message, "192000 bytes");
}

TEST(SndfileSource, TruncatedAiffAndAuAreReported) {
  for (const auto& [file_name, format] : {std::pair{"half.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16},
                                          std::pair{"half.au", SF_FORMAT_AU | SF_FORMAT_PCM_16},
                                          std::pair{"half.w64", SF_FORMAT_W64 | SF_FORMAT_PCM_16}}) {
    const std::string name = file_name;  // a variable, not a binding: lambdas capture it (clang 14)
    SCOPED_TRACE(name);
    ScratchDir dir;
    write_sound_file(dir.file("full"), format, 48000, 1, test_samples(48000, 1));
    auto bytes = test::read_file(dir.file("full"));
    bytes.resize(bytes.size() / 2);
    test::write_file(dir.file(name), bytes);
    EXPECT_CONTAINS(error_message<InputError>([&] { SndfileSource s(dir.file(name)); }),
                    dir.file(name) + ": truncated");
  }
}

TEST(SndfileSource, TruncatedFlacFailsWhenTheSamplesRunOut) {
  ScratchDir dir;
  write_sound_file(dir.file("full.flac"), SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 48000, 2,
                   test_samples(48000, 2));
  auto bytes = test::read_file(dir.file("full.flac"));
  bytes.resize(bytes.size() / 2);
  test::write_file(dir.file("half.flac"), bytes);
  // FLAC states its length in its header and libsndfile opens it; the loss shows on reading.
  std::string message;
  std::uint64_t frames = 0;
  try {
    SndfileSource source(dir.file("half.flac"));
    std::vector<std::byte> buffer(4096 * 8);
    while (const std::size_t n = source.read(buffer.data(), 4096)) frames += n;
    ADD_FAILURE() << "read " << frames << " frames of a half FLAC without an error";
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_CONTAINS(message, dir.file("half.flac") + ": ");
  EXPECT_LT(frames, 48000u);
  EXPECT_TRUE(message.find("truncated") != std::string::npos ||
              message.find("read failed") != std::string::npos)
      << message;
}

// A file held in memory (read through libsndfile's virtual I/O, as the fuzz target reads one)
// gives what the same file on disk gives: samples, description, and the truncation check.
TEST(SndfileSource, FileInMemoryReadsAsOnDisk) {
  for (const auto& [name, format] : {std::pair{"a.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},
                                     std::pair{"a.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16},
                                     std::pair{"a.aiff", SF_FORMAT_AIFF | SF_FORMAT_FLOAT}}) {
    SCOPED_TRACE(name);
    ScratchDir dir;
    write_sound_file(dir.file(name), format, 22050, 2, test_samples(3001, 2));
    SndfileSource on_disk(dir.file(name));
    SndfileSource in_memory("memory", test::read_file(dir.file(name)));
    EXPECT_EQ(in_memory.info().length, on_disk.info().length);
    EXPECT_EQ(in_memory.info().format, on_disk.info().format);
    EXPECT_EQ(in_memory.container(), on_disk.container());
    EXPECT_EQ(describe_sound_file(in_memory)["file_size"], describe_sound_file(on_disk)["file_size"]);
    EXPECT_EQ(read_all(in_memory, 500), read_all(on_disk, 700));
  }
  ScratchDir dir;
  write_sound_file(dir.file("full.wav"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 48000, 2, test_samples(48000, 2));
  auto bytes = test::read_file(dir.file("full.wav"));
  bytes.resize(bytes.size() / 2);
  EXPECT_CONTAINS(error_message<InputError>([&] { SndfileSource s("memory.wav", bytes); }),
                  "memory.wav: truncated");
  EXPECT_EQ(error_message<InputError>([&] { SndfileSource s("memory.wav", std::vector<std::byte>{}); }),
            "memory.wav: empty file (0 bytes)");
}

TEST(SndfileSource, GarbageBytes) {
  ScratchDir dir;
  std::string garbage(5000, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  test::write_file(dir.file("garbage.wav"), garbage);
  const std::string message =
      error_message<InputError>([&] { SndfileSource s(dir.file("garbage.wav")); });
  EXPECT_CONTAINS(message, dir.file("garbage.wav") + ": not a sound file libsndfile can read");
  EXPECT_CONTAINS(message, "Format not recognised");
}

TEST(SndfileSource, DirectoryAndMissingFile) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.file("d.wav"));
  EXPECT_EQ(error_message<InputError>([&] { SndfileSource s(dir.file("d.wav")); }),
            dir.file("d.wav") + ": is a directory, not a file");
  EXPECT_EQ(error_message<InputError>([&] { SndfileSource s(dir.file("none.wav")); }),
            dir.file("none.wav") + ": no such file");
}

TEST(SndfileSource, UnreadableFile) {
  // Tests run as root, where chmod 000 stops nothing; /proc/self/mem opens but its first
  // page is unmapped, so reading it fails with EIO. Reached as a .wav through a link, so the
  // registry sends it to this source.
  ScratchDir dir;
  std::filesystem::create_symlink("/proc/self/mem", dir.file("mem.wav"));
  const std::string direct = error_message<InputError>([&] { SndfileSource s("/proc/self/mem"); });
  EXPECT_EQ(direct, "/proc/self/mem: Input/output error");
  const std::string through_registry =
      error_message<InputError>([&] { open_source(dir.file("mem.wav"), {}); });
  EXPECT_EQ(through_registry, dir.file("mem.wav") + ": Input/output error");
}

TEST(SndfileSource, OpenSourceDispatchesByExtensionAndChecksOptions) {
  ScratchDir dir;
  write_sound_file(dir.file("A.WAV"), SF_FORMAT_WAV | SF_FORMAT_PCM_16, 22050, 1,
                   test_samples(100, 1));
  EXPECT_EQ(source_kind_name(dir.file("A.WAV")), "sound file");
  auto source = open_source(dir.file("A.WAV"), {});
  EXPECT_NE(dynamic_cast<SndfileSource*>(source.get()), nullptr);

  SourceOptions wrong_format;
  wrong_format.format = SampleFormat::ci16;
  const std::string message =
      error_message<UsageError>([&] { open_source(dir.file("A.WAV"), wrong_format); });
  EXPECT_CONTAINS(message, "format ci16");
  EXPECT_CONTAINS(message, "which is i16");

  const nlohmann::json d = describe_input(dir.file("A.WAV"), {});
  EXPECT_EQ(d["container"], "WAV");
  EXPECT_EQ(d["length_samples"], 100);
}

}  // namespace
}  // namespace prism
