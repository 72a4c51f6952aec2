// Tests of net/gr_wire and net/stream_tags: PMT values byte for byte as GNU Radio 3.10's
// pmt::serialize writes them (the expected bytes are pmt.serialize_str's, from Debian's
// gnuradio 3.10.5), the tag header, malformed input refused with WireError, and the stream
// tags prism sends and reads.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "net/gr_wire.hpp"
#include "net/stream_tags.hpp"

namespace prism::net {
namespace {

std::string hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string unhex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) out += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
  return out;
}

std::span<const std::byte> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

std::string serialized(const Pmt& value) {
  std::string out;
  serialize_pmt(value, out);
  return hex(out);
}

Pmt parsed(const std::string& hex_text) {
  const std::string bytes = unhex(hex_text);
  std::size_t pos = 0;
  Pmt value = parse_pmt(bytes_of(bytes), pos);
  EXPECT_EQ(pos, bytes.size());
  return value;
}

TEST(GrWire, WritesPmtsAsGnuRadioDoes) {
  EXPECT_EQ(serialized(Pmt::make_symbol("rx_rate")), "02000772785f72617465");
  EXPECT_EQ(serialized(Pmt::make_real(48000.0)), "0440e7700000000000");
  EXPECT_EQ(serialized(Pmt::make_tuple({Pmt::make_uint64(1700000000), Pmt::make_real(0.25)})),
            "0c000000020b000000006553f100043fd0000000000000");
  EXPECT_EQ(serialized(Pmt::make_integer(7)), "0300000007");
  EXPECT_EQ(serialized(Pmt::make_integer(std::int64_t{1} << 40)), "0d0000010000000000");
  EXPECT_EQ(serialized(Pmt::boolean(false)), "01");
  EXPECT_EQ(serialized(Pmt::make_u8vector("\x01\x02\x03")), "0a00000000030100010203");
}

TEST(GrWire, ReadsPmtsAsGnuRadioWritesThem) {
  EXPECT_TRUE(parsed("02000772785f72617465").is_symbol("rx_rate"));
  EXPECT_EQ(parsed("0440e7700000000000").real, 48000.0);
  const Pmt time = parsed("0c000000020b000000006553f100043fd0000000000000");
  ASSERT_EQ(time.items.size(), 2u);
  EXPECT_EQ(time.items[0].uint64, 1700000000u);
  EXPECT_EQ(time.items[1].real, 0.25);
  EXPECT_EQ(parsed("0d0000010000000000").integer, std::int64_t{1} << 40);
  EXPECT_EQ(parsed("0a00000000030100010203").text, "\x01\x02\x03");
  // A pair (a . 1) and a list (a 1), as pmt.cons and pmt.list2 write them.
  const Pmt pair = parsed("07020001610300000001");
  ASSERT_EQ(pair.items.size(), 2u);
  EXPECT_EQ(pair.items[1].integer, 1);
  const Pmt list = parsed("070200016107030000000106");
  ASSERT_EQ(list.items.size(), 3u);
  EXPECT_EQ(list.items[2].type, Pmt::Type::null);
  // A dict of two entries ((a . 1) (b . 2)): its type byte, then each further cell a pair. It
  // writes back byte for byte (found by the fuzz target: further cells written as dicts read back
  // one level deeper each, past the depth limit).
  const std::string dict = "09" "07020001610300000001" "07" "07020001620300000002" "06";
  const Pmt entries = parsed(dict);
  EXPECT_EQ(entries.type, Pmt::Type::dict);
  ASSERT_EQ(entries.items.size(), 3u);
  EXPECT_EQ(entries.items[1].items[1].integer, 2);
  EXPECT_EQ(serialized(entries), dict);
}

TEST(GrWire, TagHeaderRoundTrips) {
  std::string message;
  const std::vector<StreamTag> tags = {
      {4096, Pmt::make_symbol("rx_rate"), Pmt::make_real(1e6), Pmt::make_symbol("src")}};
  append_tag_header(4096, tags, message);
  EXPECT_EQ(hex(message.substr(0, 19)), "f05f01" "0010000000000000" "0100000000000000");
  message += std::string(16, '\x7f');
  ASSERT_TRUE(starts_with_tag_header(bytes_of(message)));
  const TagHeader header = parse_tag_header(bytes_of(message));
  EXPECT_EQ(header.offset, 4096u);
  ASSERT_EQ(header.tags.size(), 1u);
  EXPECT_EQ(header.tags[0].value.real, 1e6);
  EXPECT_EQ(header.bytes, message.size() - 16);
}

TEST(GrWire, MalformedInputIsRefusedSayingWhere) {
  auto error_of = [](const std::string& message) {
    try {
      (void)parse_tag_header(bytes_of(message));
    } catch (const WireError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(unhex("f05f02") + std::string(16, '\0')).find("version 2"), std::string::npos);
  EXPECT_NE(error_of(unhex("f05f01") + std::string(8, '\0') + unhex("ffffffffffffff0f")).find("tags, more than"),
            std::string::npos);
  std::string truncated;
  append_tag_header(0, {{0, Pmt::make_symbol("rx_rate"), Pmt::make_real(1), Pmt::make_symbol("s")}}, truncated);
  truncated.resize(truncated.size() - 3);
  EXPECT_NE(error_of(truncated).find("truncated symbol"), std::string::npos);
  std::string unknown;
  append_tag_header(0, {}, unknown);
  unknown[11] = 1;  // one tag
  unknown += std::string(8, '\0') + "\x42" + std::string(10, '\0');
  EXPECT_NE(error_of(unknown).find("unknown PMT type 0x42"), std::string::npos);
  // Nesting deeper than kMaxPmtDepth is refused, not recursed into.
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += unhex("0c00000001");
  deep += "\x06";
  std::size_t pos = 0;
  EXPECT_THROW(parse_pmt(bytes_of(deep), pos), WireError);
}

TEST(StreamTags, SamplesDescribeThemselvesAndReadBack) {
  StreamInfo info;
  info.format = SampleFormat::ci16;
  info.channels = 2;
  info.sample_rate = 2e6;
  info.center_frequency = 915e6;
  info.start_time = "2024-03-01T12:00:00.5Z";
  const auto tags = describe_port(PortDescription::of_samples(info), 1000000);
  const StreamTagValues v = read_stream_tags(tags);
  EXPECT_EQ(v.rate, 2e6);
  EXPECT_EQ(v.frequency, 915e6);
  EXPECT_EQ(v.format, SampleFormat::ci16);
  EXPECT_EQ(v.channels, 2u);
  ASSERT_TRUE(v.time.has_value());
  // Item 1e6 at 2 MHz is 0.5 s after the start.
  EXPECT_EQ(v.time->seconds, 1709294401u);
  EXPECT_EQ(v.time->fraction, 0.0);
  EXPECT_EQ(v.time_offset, 1000000u);
  EXPECT_EQ(iso8601_text(*v.time, -0.5), "2024-03-01T12:00:00.5Z");
}

TEST(StreamTags, TheFullScaleOfFloatSamplesTravels) {
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 48000;
  EXPECT_FALSE(read_stream_tags(describe_port(PortDescription::of_samples(info), 0)).float_full_scale);
  info.float_full_scale = true;  // a sound file's floats
  EXPECT_TRUE(read_stream_tags(describe_port(PortDescription::of_samples(info), 0)).float_full_scale);
}

TEST(StreamTags, RowsKeepTheirDbfsReference) {
  SpectrumLayout layout;
  layout.columns = 3;
  layout.frequencies = {0.0, 100.0, 200.0};
  layout.row_interval = 0.01;
  layout.stream.sample_rate = 400;
  EXPECT_FALSE(layout_from_json(layout_json(layout)).full_scale_power.has_value());
  layout.full_scale_power = 0.375;
  EXPECT_EQ(layout_from_json(layout_json(layout)).full_scale_power, 0.375);
  std::string text = layout_json(layout);
  const std::string field = "\"full_scale_power\":0.375";
  ASSERT_NE(text.find(field), std::string::npos) << text;
  text.replace(text.find(field), field.size(), "\"full_scale_power\":-1");
  EXPECT_THROW(layout_from_json(text), WireError);
}

// A layout's counts must be integers in range: a float such as 5e27 (found by the fuzz target),
// a negative count or one above the type's range is a WireError naming the key, not a cast.
TEST(StreamTags, ALayoutsCountsAreIntegersInRange) {
  SpectrumLayout layout;
  layout.columns = 3;
  layout.frequencies = {0.0, 100.0, 200.0};
  layout.row_interval = 0.01;
  layout.stream.sample_rate = 400;
  layout.stream.channels = 2;
  const std::string text = layout_json(layout);
  EXPECT_EQ(layout_from_json(text).stream.channels, 2u);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    EXPECT_NE(changed.find(from), std::string::npos) << changed;
    changed.replace(changed.find(from), from.size(), to);
    return changed;
  };
  for (const auto& [from, to, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"columns\":3", "\"columns\":5e27", "\"columns\" is of the wrong type"},
           {"\"columns\":3", "\"columns\":3.0", "\"columns\" is of the wrong type"},
           {"\"columns\":3", "\"columns\":-3", "\"columns\" is out of range"},
           {"\"channels\":2", "\"channels\":4294967296", "\"channels\" is out of range"},
           {"\"channels\":2", "\"channels\":-1", "\"channels\" is out of range"},
       }) {
    try {
      layout_from_json(with(from, to));
      ADD_FAILURE() << to << " was taken";
    } catch (const WireError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(StreamTags, WrongTypesOfKnownKeysAreRefused) {
  EXPECT_THROW(read_stream_tags({{0, Pmt::make_symbol("prism_full_scale"), Pmt::make_real(1), Pmt{}}}), WireError);
  EXPECT_THROW(read_stream_tags({{0, Pmt::make_symbol("rx_rate"), Pmt::make_symbol("fast"), Pmt{}}}), WireError);
  EXPECT_THROW(read_stream_tags({{0, Pmt::make_symbol("prism_format"), Pmt::make_symbol("cf99"), Pmt{}}}),
               WireError);
  EXPECT_THROW(read_stream_tags({{0, Pmt::make_symbol("prism_layout"), Pmt::make_u8vector("{}"), Pmt{}}}), WireError);
  // A fraction that moves rx_time out of range (found by the fuzz target).
  EXPECT_THROW(read_stream_tags({{0, Pmt::make_symbol("rx_time"),
                                  Pmt::make_tuple({Pmt::make_uint64(5), Pmt::make_real(1e30)}), Pmt{}}}),
               WireError);
  // Keys prism does not know are skipped.
  EXPECT_FALSE(read_stream_tags({{0, Pmt::make_symbol("burst"), Pmt::boolean(true), Pmt{}}}).rate.has_value());
}

}  // namespace
}  // namespace prism::net
