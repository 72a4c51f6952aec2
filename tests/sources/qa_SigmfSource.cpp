// Tests of SigMF recordings (sources/sigmf.hpp): every supported datatype, big-endian ones
// included, comes out as the right little-endian samples; rate, centre frequency, start time
// and channels are read; the recording is found from either file, the base name or an
// archive; bad recordings give errors that name the file and the problem.
#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"
#include "sources/sigmf.hpp"
#include "tests/sources/source_test_support.hpp"

namespace prism {
namespace {

using json = nlohmann::json;
using test::error_message;
using test::read_all;
using test::ScratchDir;
using test::write_file;

// Appends `value` in the byte order asked for.
template <typename T>
void append(std::vector<std::byte>& out, T value, bool big_endian) {
  std::byte bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (big_endian != (std::endian::native == std::endian::big))
    std::reverse(bytes, bytes + sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

json minimal_meta(const std::string& datatype, double rate = 48000) {
  return {{"global", {{"core:datatype", datatype}, {"core:sample_rate", rate},
                      {"core:version", "1.0.0"}}},
          {"captures", json::array({{{"core:sample_start", 0}}})},
          {"annotations", json::array()}};
}

void write_recording(const std::string& base, const json& meta,
                     const std::vector<std::byte>& data) {
  write_file(base + ".sigmf-meta", meta.dump(2));
  write_file(base + ".sigmf-data", data);
}

// One supported datatype: its SigMF name, prism's format, and a test vector written in the
// file's byte order and, as the source must deliver it, little-endian.
struct DatatypeCase {
  std::string name;
  SampleFormat format;
  std::function<void(std::vector<std::byte>&, bool big_endian)> encode;  // 6 components
};

template <typename T>
std::function<void(std::vector<std::byte>&, bool)> encoder(std::vector<T> values) {
  return [values](std::vector<std::byte>& out, bool big_endian) {
    for (T v : values) append(out, v, big_endian);
  };
}

std::vector<DatatypeCase> datatype_cases() {
  const auto floats = encoder<float>({-1.5f, 0.25f, 3.0e-3f, 1e6f, -0.0f, 7.125f});
  const auto shorts = encoder<std::int16_t>({-32768, -1, 0, 1, 12345, 32767});
  const auto bytes = encoder<std::int8_t>({-128, -1, 0, 1, 77, 127});
  const auto ubytes = encoder<std::uint8_t>({0, 1, 127, 128, 200, 255});
  const auto doubles = encoder<double>({-1.5, 0.25, 3.0e-3, 1e300, -0.0, 7.125});
  const auto ints = encoder<std::int32_t>({INT32_MIN, -1, 0, 1, 123456789, INT32_MAX});
  const auto ushorts = encoder<std::uint16_t>({0, 1, 32767, 32768, 50000, 65535});
  const auto uints = encoder<std::uint32_t>({0, 1, 2147483647u, 2147483648u, 3000000000u, UINT32_MAX});
  return {
      {"cf64_le", SampleFormat::cf64, doubles}, {"cf64_be", SampleFormat::cf64, doubles},
      {"rf64_le", SampleFormat::f64, doubles},  {"rf64_be", SampleFormat::f64, doubles},
      {"ci32_le", SampleFormat::ci32, ints},    {"ci32_be", SampleFormat::ci32, ints},
      {"ri32_le", SampleFormat::i32, ints},     {"ri32_be", SampleFormat::i32, ints},
      {"cu16_le", SampleFormat::cu16, ushorts}, {"cu16_be", SampleFormat::cu16, ushorts},
      {"ru16_le", SampleFormat::u16, ushorts},  {"ru16_be", SampleFormat::u16, ushorts},
      {"cu32_le", SampleFormat::cu32, uints},   {"cu32_be", SampleFormat::cu32, uints},
      {"ru32_le", SampleFormat::u32, uints},    {"ru32_be", SampleFormat::u32, uints},
      {"cf32_le", SampleFormat::cf32, floats}, {"cf32_be", SampleFormat::cf32, floats},
      {"rf32_le", SampleFormat::f32, floats},  {"rf32_be", SampleFormat::f32, floats},
      {"ci16_le", SampleFormat::ci16, shorts}, {"ci16_be", SampleFormat::ci16, shorts},
      {"ri16_le", SampleFormat::i16, shorts},  {"ri16_be", SampleFormat::i16, shorts},
      {"ci8", SampleFormat::ci8, bytes},       {"ri8", SampleFormat::i8, bytes},
      {"cu8", SampleFormat::cu8, ubytes},      {"ru8", SampleFormat::u8, ubytes},
  };
}

void PrintTo(const DatatypeCase& c, std::ostream* os) { *os << c.name; }

class SigmfDatatype : public ::testing::TestWithParam<DatatypeCase> {};

TEST_P(SigmfDatatype, ComesOutAsLittleEndianSamplesOfItsFormat) {
  const DatatypeCase& c = GetParam();
  const bool big_endian = c.name.ends_with("_be");
  ScratchDir dir;
  std::vector<std::byte> in_file, expected;
  c.encode(in_file, big_endian);
  c.encode(expected, false);
  write_recording(dir.file("rec"), minimal_meta(c.name), in_file);

  SigmfSource source(dir.file("rec.sigmf-meta"));
  EXPECT_EQ(source.info().format, c.format);
  EXPECT_EQ(source.info().length, 6u / components_per_sample(c.format));
  EXPECT_EQ(source.recording().big_endian, big_endian);
  // Reads of one sample at a time: the byte swap must work on every piece.
  EXPECT_EQ(read_all(source, 1), expected);
  SigmfSource again(dir.file("rec.sigmf-meta"));
  EXPECT_EQ(read_all(again, 1000), expected);
}

INSTANTIATE_TEST_SUITE_P(AllSupported, SigmfDatatype, ::testing::ValuesIn(datatype_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(SigmfSource, BigEndianFloatsConvertToTheirValues) {
  ScratchDir dir;
  std::vector<std::byte> data;
  append(data, 0.5f, true);
  append(data, -2.0f, true);
  write_recording(dir.file("be"), minimal_meta("cf32_be"), data);
  SigmfSource source(dir.file("be"));
  const auto bytes = read_all(source, 16);
  float values[2];
  convert_to_float(SampleFormat::cf32, bytes.data(), 2, values);
  EXPECT_EQ(values[0], 0.5f);
  EXPECT_EQ(values[1], -2.0f);
}

TEST(SigmfSource, ReadsRateCentreFrequencyStartTimeAndChannels) {
  ScratchDir dir;
  json meta = minimal_meta("ci16_le", 2.4e6);
  meta["global"]["core:num_channels"] = 2;
  meta["captures"][0]["core:frequency"] = 433.92e6;
  meta["captures"][0]["core:datetime"] = "2024-05-01T12:00:00Z";
  write_recording(dir.file("rec"), meta, std::vector<std::byte>(8 * 100));
  SigmfSource source(dir.file("rec"));
  EXPECT_EQ(source.info().sample_rate, 2.4e6);
  EXPECT_EQ(source.info().center_frequency, 433.92e6);
  EXPECT_EQ(source.info().start_time, "2024-05-01T12:00:00Z");
  EXPECT_EQ(source.info().channels, 2u);
  EXPECT_EQ(source.info().frame_bytes(), 8u);
  EXPECT_EQ(source.info().length, 100u);
  EXPECT_FALSE(source.info().live);
}

TEST(SigmfSource, DefaultsWithoutCapturesAreOneChannelAtZeroHertz) {
  ScratchDir dir;
  const json meta = {{"global", {{"core:datatype", "cu8"}, {"core:sample_rate", 1e6}}}};
  write_recording(dir.file("rec"), meta, std::vector<std::byte>(10));
  SigmfSource source(dir.file("rec"));
  EXPECT_EQ(source.info().channels, 1u);
  EXPECT_EQ(source.info().center_frequency, 0.0);
  EXPECT_TRUE(source.info().start_time.empty());
  EXPECT_EQ(source.info().length, 5u);
}

TEST(SigmfSource, FoundFromMetaDataOrBaseName) {
  ScratchDir dir;
  std::vector<std::byte> data;
  for (int i = 0; i < 16; ++i) data.push_back(std::byte(i));
  write_recording(dir.file("rec"), minimal_meta("ci8"), data);
  for (const std::string& path :
       {dir.file("rec.sigmf-meta"), dir.file("rec.sigmf-data"), dir.file("rec")}) {
    SCOPED_TRACE(path);
    SigmfSource source(path);
    EXPECT_EQ(source.recording().meta_path, dir.file("rec.sigmf-meta"));
    EXPECT_EQ(source.recording().data_path, dir.file("rec.sigmf-data"));
    EXPECT_EQ(read_all(source, 3), data);
  }
}

TEST(SigmfSource, HeaderBytesAndDatasetFieldAreHonoured) {
  ScratchDir dir;
  json meta = minimal_meta("ri16_le");
  meta["global"]["core:dataset"] = "samples.bin";
  meta["captures"][0]["core:header_bytes"] = 5;
  std::vector<std::byte> data(5, std::byte{0xEE});
  append<std::int16_t>(data, 1000, false);
  append<std::int16_t>(data, -1000, false);
  write_file(dir.file("rec.sigmf-meta"), meta.dump());
  write_file(dir.file("samples.bin"), data);
  SigmfSource source(dir.file("rec.sigmf-meta"));
  EXPECT_EQ(source.info().length, 2u);
  EXPECT_EQ(read_all(source, 10), std::vector<std::byte>(data.begin() + 5, data.end()));
}

// Writes a ustar archive holding `files` (name, contents), as SigMF's .sigmf archives are.
void write_tar(const std::string& path,
               const std::vector<std::pair<std::string, std::vector<std::byte>>>& files) {
  std::vector<std::byte> tar;
  for (const auto& [name, contents] : files) {
    char header[512] = {};
    std::snprintf(header, 100, "%s", name.c_str());
    std::snprintf(header + 100, 8, "%07o", 0644);
    std::snprintf(header + 108, 8, "%07o", 0);
    std::snprintf(header + 116, 8, "%07o", 0);
    std::snprintf(header + 124, 12, "%011zo", contents.size());
    std::snprintf(header + 136, 12, "%011o", 0);
    header[156] = '0';
    std::memcpy(header + 257, "ustar", 6);
    std::memcpy(header + 263, "00", 2);
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    std::snprintf(header + 148, 8, "%06o", sum);
    auto* h = reinterpret_cast<const std::byte*>(header);
    tar.insert(tar.end(), h, h + 512);
    tar.insert(tar.end(), contents.begin(), contents.end());
    tar.resize((tar.size() + 511) / 512 * 512);
  }
  tar.resize(tar.size() + 1024);
  write_file(path, tar);
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

TEST(SigmfSource, ReadsSigmfArchives) {
  ScratchDir dir;
  json meta = minimal_meta("cf32_le", 1e6);
  meta["captures"][0]["core:frequency"] = 1e8;
  std::vector<std::byte> data;
  for (int i = 0; i < 20; ++i) append(data, static_cast<float>(i) * 0.5f, false);
  write_tar(dir.file("rec.sigmf"), {{"rec/rec.sigmf-meta", bytes_of(meta.dump())},
                                    {"rec/rec.sigmf-data", data}});
  SigmfSource source(dir.file("rec.sigmf"));
  EXPECT_TRUE(source.recording().archive);
  EXPECT_EQ(source.info().length, 10u);
  EXPECT_EQ(source.info().center_frequency, 1e8);
  EXPECT_EQ(read_all(source, 3), data);
  EXPECT_EQ(describe_sigmf(dir.file("rec.sigmf"))["container"], "SigMF archive");

  write_tar(dir.file("nometa.sigmf"), {{"rec/rec.sigmf-data", data}});
  const std::string no_meta = error_message<InputError>([&] { SigmfSource s(dir.file("nometa.sigmf")); });
  EXPECT_CONTAINS(no_meta, dir.file("nometa.sigmf"));
  EXPECT_CONTAINS(no_meta, "no .sigmf-meta");

  write_file(dir.file("junk.sigmf"), std::string(2048, 'x'));
  const std::string junk = error_message<InputError>([&] { SigmfSource s(dir.file("junk.sigmf")); });
  EXPECT_CONTAINS(junk, dir.file("junk.sigmf"));
  EXPECT_CONTAINS(junk, "no valid tar header");
}

TEST(SigmfSource, DescribesTheRecording) {
  ScratchDir dir;
  json meta = minimal_meta("ci16_le", 2e6);
  meta["global"]["core:description"] = "a test";
  meta["captures"][0]["core:frequency"] = 915e6;
  meta["captures"][0]["core:datetime"] = "2024-01-02T03:04:05Z";
  write_recording(dir.file("rec"), meta, std::vector<std::byte>(4 * 1000));
  const json d = describe_sigmf(dir.file("rec"));
  EXPECT_EQ(d["container"], "SigMF");
  EXPECT_EQ(d["datatype"], "ci16_le");
  EXPECT_EQ(d["format"], "ci16");
  EXPECT_EQ(d["sample_rate"], 2e6);
  EXPECT_EQ(d["center_frequency"], 915e6);
  EXPECT_EQ(d["length_samples"], 1000);
  EXPECT_DOUBLE_EQ(d["duration_s"].get<double>(), 1000 / 2e6);
  EXPECT_EQ(d["start_time"], "2024-01-02T03:04:05Z");
  EXPECT_EQ(d["file_size"], 4000);
  EXPECT_EQ(d["description"], "a test");
  EXPECT_EQ(d["data_path"], dir.file("rec.sigmf-data"));
}

// ---- bad recordings ------------------------------------------------------------------------

TEST(SigmfSource, MissingDataFileNamesMetaAndDataFile) {
  ScratchDir dir;
  write_file(dir.file("rec.sigmf-meta"), minimal_meta("cf32_le").dump());
  const std::string message =
      error_message<InputError>([&] { SigmfSource s(dir.file("rec.sigmf-meta")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta") + ":");
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-data"));
  EXPECT_CONTAINS(message, "does not exist");
}

TEST(SigmfSource, MissingMetaFileIsNamed) {
  ScratchDir dir;
  write_file(dir.file("rec.sigmf-data"), std::string(16, '\0'));
  const std::string message =
      error_message<InputError>([&] { SigmfSource s(dir.file("rec.sigmf-data")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta"));
  EXPECT_CONTAINS(message, "no such file");
}

TEST(SigmfSource, UnknownDatatypeListsTheSupportedOnes) {
  ScratchDir dir;
  write_recording(dir.file("rec"), minimal_meta("cf16_le"), std::vector<std::byte>(8));
  const std::string message = error_message<InputError>([&] { SigmfSource s(dir.file("rec")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta") + ":");
  EXPECT_CONTAINS(message, "unsupported core:datatype 'cf16_le'");
  for (const char* name : {"cf32_le", "ci16_le", "ci8", "cu8", "rf32_le", "ri16_le", "ri8", "ru8",
                           "cf32_be", "ri16_be", "cf64_le", "ci32_be", "cu16_le", "ru32_be"})
    EXPECT_CONTAINS(message, name);
}

TEST(SigmfSource, InvalidJsonSaysWhere) {
  ScratchDir dir;
  write_file(dir.file("rec.sigmf-meta"), "{\n  \"global\": {\n    \"core:datatype\": \"cf32_le\",\n  }\n}\n");
  write_file(dir.file("rec.sigmf-data"), std::string(8, '\0'));
  const std::string message = error_message<InputError>([&] { SigmfSource s(dir.file("rec")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta") + ":");
  EXPECT_CONTAINS(message, "invalid JSON");
  EXPECT_CONTAINS(message, "line 4");
}

TEST(SigmfSource, BinaryGarbageAsMetadataGivesAPrintableMessage) {
  ScratchDir dir;
  std::string garbage = "\x01\xfa\xfb{\xff\n\x80";
  test::write_file(dir.file("rec.sigmf-meta"), garbage);
  test::write_file(dir.file("rec.sigmf-data"), std::string(8, '\0'));
  const std::string message = error_message<InputError>([&] { SigmfSource s(dir.file("rec")); });
  EXPECT_CONTAINS(message, "invalid JSON");
  for (const char c : message)
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
        << "byte " << int(static_cast<unsigned char>(c)) << " in: " << message;
}

TEST(SigmfSource, MissingOrWrongFieldsAreNamed) {
  struct Case {
    const char* what;
    std::function<void(json&)> change;
    std::vector<const char*> parts;
  };
  const Case cases[] = {
      {"no rate", [](json& m) { m["global"].erase("core:sample_rate"); },
       {"core:sample_rate", "missing"}},
      {"negative rate", [](json& m) { m["global"]["core:sample_rate"] = -1; },
       {"core:sample_rate", "> 0", "-1"}},
      {"rate as text", [](json& m) { m["global"]["core:sample_rate"] = "fast"; },
       {"core:sample_rate", "\"fast\""}},
      {"no datatype", [](json& m) { m["global"].erase("core:datatype"); },
       {"core:datatype", "missing"}},
      {"no global", [](json& m) { m.erase("global"); }, {"\"global\""}},
      {"zero channels", [](json& m) { m["global"]["core:num_channels"] = 0; },
       {"core:num_channels"}},
      {"frequency as text", [](json& m) { m["captures"][0]["core:frequency"] = "high"; },
       {"captures[0] core:frequency", "\"high\""}},
      {"metadata only", [](json& m) { m["global"]["core:metadata_only"] = true; },
       {"metadata_only"}},
      {"captures not an array", [](json& m) { m["captures"] = 5; }, {"captures"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ScratchDir dir;
    json meta = minimal_meta("cf32_le");
    c.change(meta);
    write_recording(dir.file("rec"), meta, std::vector<std::byte>(8));
    const std::string message = error_message<InputError>([&] { SigmfSource s(dir.file("rec")); });
    EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta") + ":");
    for (const char* part : c.parts) EXPECT_CONTAINS(message, part);
  }
}

TEST(SigmfSource, DataThatIsNotWholeSamplesNamesDataFileAndNumbers) {
  ScratchDir dir;
  json meta = minimal_meta("cf32_le");
  meta["global"]["core:num_channels"] = 2;
  write_recording(dir.file("rec"), meta, std::vector<std::byte>(16 * 10 + 3));
  const std::string message = error_message<InputError>([&] { SigmfSource s(dir.file("rec")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-data") + ":");
  EXPECT_CONTAINS(message, "163 bytes is not a whole number of samples");
  EXPECT_CONTAINS(message, "2 channels");
  EXPECT_CONTAINS(message, "16 bytes per frame");
  EXPECT_CONTAINS(message, "3 stray bytes");
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta"));
}

// The metadata checks without the files (what the fuzz target drives) are those of a recording
// on disk: the same stream, the same errors.
TEST(SigmfSource, MetadataTextIsCheckedAsTheFileIs) {
  json meta = minimal_meta("ci16_le", 2.4e6);
  meta["global"]["core:num_channels"] = 2;
  meta["captures"][0]["core:frequency"] = 433.92e6;
  meta["captures"][0]["core:header_bytes"] = 16;
  const SigmfRecording rec = parse_sigmf_recording(meta.dump(), "m.sigmf-meta", "m.sigmf-data", 16 + 8 * 100);
  EXPECT_EQ(rec.info.format, SampleFormat::ci16);
  EXPECT_EQ(rec.info.channels, 2u);
  EXPECT_EQ(rec.info.center_frequency, 433.92e6);
  EXPECT_EQ(rec.info.length, 100u);
  EXPECT_EQ(rec.data_offset, 16u);
  EXPECT_EQ(rec.data_bytes, 800u);
  // A partial sample at the end: the whole ones are the recording; SigmfSource decides.
  const SigmfRecording cut = parse_sigmf_recording(meta.dump(), "m.sigmf-meta", "m.sigmf-data", 16 + 8 * 100 + 3);
  EXPECT_EQ(cut.info.length, 100u);
  EXPECT_CONTAINS(cut.truncation, "803 bytes is not a whole number of samples");
  EXPECT_CONTAINS(error_message<InputError>([&] {
                    (void)parse_sigmf_recording(meta.dump(), "m.sigmf-meta", "m.sigmf-data", 8);
                  }),
                  "core:header_bytes is 16 but the data has only 8 bytes");
  EXPECT_CONTAINS(error_message<InputError>([&] { (void)parse_sigmf_recording("{", "m.sigmf-meta", "d", 0); }),
                  "m.sigmf-meta: invalid JSON");
  // A number beyond double's range is nlohmann's out_of_range, not its parse_error: still an
  // InputError naming the file (the fuzz target found it escaping).
  EXPECT_CONTAINS(error_message<InputError>([&] {
                    (void)parse_sigmf_recording(R"({"global": {"core:sample_rate": 2e048000}})", "m.sigmf-meta", "d", 0);
                  }),
                  "m.sigmf-meta: invalid JSON: number overflow");
}

TEST(SigmfSource, DirectoryIsRejected) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.file("rec.sigmf-meta"));
  const std::string message =
      error_message<InputError>([&] { SigmfSource s(dir.file("rec.sigmf-meta")); });
  EXPECT_CONTAINS(message, dir.file("rec.sigmf-meta"));
  EXPECT_CONTAINS(message, "is a directory");

  const std::string plain = error_message<InputError>([&] { SigmfSource s(dir.path().string()); });
  EXPECT_CONTAINS(plain, dir.path().string());
  EXPECT_CONTAINS(plain, "is a directory");

  write_file(dir.file("data.sigmf-meta"), minimal_meta("cf32_le").dump());
  std::filesystem::create_directory(dir.file("data.sigmf-data"));
  const std::string data_dir =
      error_message<InputError>([&] { SigmfSource s(dir.file("data.sigmf-meta")); });
  EXPECT_CONTAINS(data_dir, dir.file("data.sigmf-data"));
  EXPECT_CONTAINS(data_dir, "is a directory");
}

TEST(SigmfSource, OpenSourceDispatchesAndChecksOptions) {
  ScratchDir dir;
  json meta = minimal_meta("cf32_le", 1e6);
  meta["captures"][0]["core:frequency"] = 1e8;
  write_recording(dir.file("rec"), meta, std::vector<std::byte>(80));
  for (const std::string& input : {dir.file("rec"), dir.file("rec.sigmf-meta"), dir.file("rec.sigmf-data")}) {
    EXPECT_EQ(source_kind_name(input), "SigMF");
    auto source = open_source(input, {});
    EXPECT_NE(dynamic_cast<SigmfSource*>(source.get()), nullptr);
    EXPECT_EQ(source->info().length, 10u);
  }
  SourceOptions relabel;
  relabel.center_frequency = 2e8;
  EXPECT_EQ(open_source(dir.file("rec"), relabel)->info().center_frequency, 2e8);

  SourceOptions agreeing;
  agreeing.sample_rate = 1e6;
  agreeing.format = SampleFormat::cf32;
  EXPECT_NO_THROW(open_source(dir.file("rec"), agreeing));

  SourceOptions wrong_rate;
  wrong_rate.sample_rate = 48000;
  const std::string message =
      error_message<UsageError>([&] { open_source(dir.file("rec"), wrong_rate); });
  EXPECT_CONTAINS(message, "sample_rate 48000");
  EXPECT_CONTAINS(message, dir.file("rec"));
  EXPECT_CONTAINS(message, "1000000 Hz");

  const json d = describe_input(dir.file("rec"), relabel);
  EXPECT_EQ(d["container"], "SigMF");
  EXPECT_EQ(d["center_frequency"], 2e8);
}

}  // namespace
}  // namespace prism
