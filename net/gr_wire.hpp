// GNU Radio's wire format for stream tags, as gr-zeromq (GNU Radio 3.10) sends them: PMT values
// serialised as pmt::serialize writes them, and the tag header that leads a message of items.
//
// PMT serialisation (big-endian): a type byte, then
//   0x00 true, 0x01 false, 0x06 null          nothing
//   0x02 symbol                               u16 length, bytes
//   0x03 int32 / 0x0d int64                   4 / 8 bytes, signed
//   0x0b uint64                               8 bytes
//   0x04 double / 0x05 complex                8 / 16 bytes (IEEE 754)
//   0x07 pair / 0x09 dict                     car, then the cdr: 0x07 continues a list, 0x06
//                                             ends it, anything else is the last cdr
//   0x08 vector / 0x0c tuple                  u32 count, that many values
//   0x0a uniform vector                       u8 element type, u32 count, u8 pad count, the pad
//                                             bytes, the elements
// Every type GNU Radio writes is read, so that a tag prism does not know is skipped whole;
// anything else (an unknown type byte, a truncated value, nesting deeper than kMaxPmtDepth) is
// refused with a WireError that says what and where.
//
// Tag header (little-endian): u16 magic 0x5FF0, u8 version 1, u64 offset of the message's
// first item, u64 tag count, then per tag a u64 offset (absolute, as the header's) and three
// PMTs: key, value, source id. The items follow.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace prism::net {

// Malformed wire data; the message says what and at which byte.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kMaxPmtDepth = 32;

struct Pmt {
  enum class Type : std::uint8_t {
    true_,
    false_,
    null,
    symbol,
    integer,  // int32 or int64 on the wire
    uint64,
    real,     // double
    complex,
    pair,     // items: the cars of the list, then its last cdr
    dict,     // the same, as GNU Radio's dict is a list of pairs
    vector,
    tuple,
    uniform_vector,  // element_type, count, and the elements' bytes as they came (big-endian)
  };
  Type type = Type::null;
  std::int64_t integer = 0;
  std::uint64_t uint64 = 0;
  double real = 0;
  std::complex<double> complex;
  std::string text;             // a symbol's name; a uniform vector's element bytes
  std::uint8_t element_type = 0;  // uniform vectors: 0 u8, 1 s8, 2 u16 ... 9 f64, 10 c32, 11 c64
  std::uint32_t count = 0;        // uniform vectors: elements
  std::vector<Pmt> items;

  static Pmt boolean(bool value);
  static Pmt make_symbol(std::string name);
  static Pmt make_integer(std::int64_t value);  // int32 on the wire when it fits, else int64
  static Pmt make_uint64(std::uint64_t value);
  static Pmt make_real(double value);
  static Pmt make_tuple(std::vector<Pmt> items);
  static Pmt make_u8vector(std::string bytes);

  bool is_symbol(const std::string& name) const { return type == Type::symbol && text == name; }
  // The value as a number (integer, uint64 or real), or false.
  bool to_number(double& out) const;
  // Short text for messages: "double 2.4e+06", "symbol 'rx_rate'", "tuple of 2".
  std::string describe() const;
};

// Appends the serialised form of `value` to `out`.
void serialize_pmt(const Pmt& value, std::string& out);

// Parses one value from data[pos...], advancing pos past it. Throws WireError.
Pmt parse_pmt(std::span<const std::byte> data, std::size_t& pos);

struct StreamTag {
  std::uint64_t offset = 0;  // absolute item index
  Pmt key;
  Pmt value;
  Pmt source_id;
};

inline constexpr std::uint16_t kTagHeaderMagic = 0x5FF0;
inline constexpr std::uint8_t kTagHeaderVersion = 1;
inline constexpr std::size_t kTagHeaderFixedBytes = 2 + 1 + 8 + 8;

struct TagHeader {
  std::uint64_t offset = 0;  // absolute index of the message's first item
  std::vector<StreamTag> tags;
  std::size_t bytes = 0;     // the header's length: the items start here
};

// Appends a tag header to `out`.
void append_tag_header(std::uint64_t offset, const std::vector<StreamTag>& tags, std::string& out);

// Whether `message` begins with the magic and the version of a tag header.
bool starts_with_tag_header(std::span<const std::byte> message);

// Parses the header at the start of `message`. Throws WireError (a wrong magic or version, a
// truncated header, a malformed tag).
TagHeader parse_tag_header(std::span<const std::byte> message);

}  // namespace prism::net
