// GNU Radio's PMT serialisation and gr-zeromq's tag header (see gr_wire.hpp).
#include "net/gr_wire.hpp"

#include <bit>
#include <cstring>

namespace prism::net {
namespace {

enum : std::uint8_t {
  kTrue = 0x00,
  kFalse = 0x01,
  kSymbol = 0x02,
  kInt32 = 0x03,
  kDouble = 0x04,
  kComplex = 0x05,
  kNull = 0x06,
  kPair = 0x07,
  kVector = 0x08,
  kDict = 0x09,
  kUniformVector = 0x0a,
  kUint64 = 0x0b,
  kTuple = 0x0c,
  kInt64 = 0x0d,
};

// Bytes of one element of a uniform vector, by GNU Radio's element type; 0 for an unknown type.
std::size_t element_bytes(std::uint8_t type) {
  static constexpr std::size_t kBytes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16};
  return type < std::size(kBytes) ? kBytes[type] : 0;
}

void put_be(std::uint64_t value, int bytes, std::string& out) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

void put_le(std::uint64_t value, int bytes, std::string& out) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

// Reads big- or little-endian integers from a message, refusing to read past its end.
class Reader {
 public:
  Reader(std::span<const std::byte> data, std::size_t& pos) : data_(data), pos_(pos) {}

  std::uint64_t be(int bytes, const char* what) { return take(bytes, what, true); }
  std::uint64_t le(int bytes, const char* what) { return take(bytes, what, false); }
  void need(std::size_t bytes, const char* what) const {
    if (bytes > data_.size() - pos_)
      throw WireError(std::string("truncated ") + what + " at byte " + std::to_string(pos_) + " (" +
                      std::to_string(bytes) + " bytes needed, " + std::to_string(data_.size() - pos_) + " left)");
  }
  std::string bytes(std::size_t count, const char* what) {
    need(count, what);
    std::string text(reinterpret_cast<const char*>(data_.data() + pos_), count);
    pos_ += count;
    return text;
  }
  std::size_t position() const { return pos_; }
  std::size_t left() const { return data_.size() - pos_; }

 private:
  std::uint64_t take(int bytes, const char* what, bool big_endian) {
    need(static_cast<std::size_t>(bytes), what);
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
      const auto b = static_cast<std::uint64_t>(data_[pos_ + static_cast<std::size_t>(i)]);
      value |= big_endian ? b << (8 * (bytes - 1 - i)) : b << (8 * i);
    }
    pos_ += static_cast<std::size_t>(bytes);
    return value;
  }

  std::span<const std::byte> data_;
  std::size_t& pos_;
};

Pmt parse_at_depth(std::span<const std::byte> data, std::size_t& pos, std::size_t depth);

// A list (pair or dict), as GNU Radio's parse_pair reads it: the car, then the cdr's type byte:
// another pair continues the list, null ends it, anything else is the last cdr. A loop, not a
// recursion, so that long lists take no stack.
Pmt parse_list(std::span<const std::byte> data, std::size_t& pos, std::size_t depth, Pmt::Type type) {
  Pmt list;
  list.type = type;
  Reader in(data, pos);
  while (true) {
    list.items.push_back(parse_at_depth(data, pos, depth + 1));
    const auto next = static_cast<std::uint8_t>(in.be(1, "list"));
    if (next == kPair) continue;
    if (next == kNull) {
      list.items.emplace_back();  // the last cdr: null
      return list;
    }
    --pos;  // the type byte belongs to the last cdr
    list.items.push_back(parse_at_depth(data, pos, depth + 1));
    return list;
  }
}

Pmt parse_at_depth(std::span<const std::byte> data, std::size_t& pos, std::size_t depth) {
  if (depth > kMaxPmtDepth)
    throw WireError("PMT nested deeper than " + std::to_string(kMaxPmtDepth) + " levels at byte " +
                    std::to_string(pos));
  Reader in(data, pos);
  const std::size_t start = pos;
  const auto type = static_cast<std::uint8_t>(in.be(1, "PMT type"));
  Pmt value;
  switch (type) {
    case kTrue: value.type = Pmt::Type::true_; return value;
    case kFalse: value.type = Pmt::Type::false_; return value;
    case kNull: value.type = Pmt::Type::null; return value;
    case kSymbol: {
      value.type = Pmt::Type::symbol;
      const auto length = static_cast<std::size_t>(in.be(2, "symbol length"));
      value.text = in.bytes(length, "symbol");
      return value;
    }
    case kInt32:
      value.type = Pmt::Type::integer;
      value.integer = static_cast<std::int32_t>(static_cast<std::uint32_t>(in.be(4, "int32")));
      return value;
    case kInt64:
      value.type = Pmt::Type::integer;
      value.integer = static_cast<std::int64_t>(in.be(8, "int64"));
      return value;
    case kUint64:
      value.type = Pmt::Type::uint64;
      value.uint64 = in.be(8, "uint64");
      return value;
    case kDouble:
      value.type = Pmt::Type::real;
      value.real = std::bit_cast<double>(in.be(8, "double"));
      return value;
    case kComplex: {
      value.type = Pmt::Type::complex;
      const double re = std::bit_cast<double>(in.be(8, "complex"));
      const double im = std::bit_cast<double>(in.be(8, "complex"));
      value.complex = {re, im};
      return value;
    }
    case kPair: return parse_list(data, pos, depth, Pmt::Type::pair);
    case kDict: return parse_list(data, pos, depth, Pmt::Type::dict);
    case kVector:
    case kTuple: {
      value.type = type == kVector ? Pmt::Type::vector : Pmt::Type::tuple;
      const auto count = static_cast<std::size_t>(in.be(4, "element count"));
      // Each element takes at least its type byte: a count beyond what is left is malformed
      // (and must not reserve memory for it).
      if (count > in.left())
        throw WireError((type == kVector ? "vector" : "tuple") + std::string(" of ") + std::to_string(count) +
                        " elements at byte " + std::to_string(start) + " is longer than the message");
      value.items.reserve(count);
      for (std::size_t i = 0; i < count; ++i) value.items.push_back(parse_at_depth(data, pos, depth + 1));
      return value;
    }
    case kUniformVector: {
      value.type = Pmt::Type::uniform_vector;
      value.element_type = static_cast<std::uint8_t>(in.be(1, "uniform vector type"));
      const std::size_t size = element_bytes(value.element_type);
      if (size == 0)
        throw WireError("uniform vector of unknown element type " + std::to_string(value.element_type) +
                        " at byte " + std::to_string(start));
      value.count = static_cast<std::uint32_t>(in.be(4, "uniform vector length"));
      const auto pad = static_cast<std::size_t>(in.be(1, "uniform vector padding"));
      (void)in.bytes(pad, "uniform vector padding");
      const std::uint64_t bytes = static_cast<std::uint64_t>(value.count) * size;
      if (bytes > in.left())
        throw WireError("uniform vector of " + std::to_string(value.count) + " elements at byte " +
                        std::to_string(start) + " is longer than the message");
      value.text = in.bytes(static_cast<std::size_t>(bytes), "uniform vector");
      return value;
    }
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      throw WireError(std::string("unknown PMT type 0x") + kHex[type >> 4] + kHex[type & 15] + " at byte " +
                      std::to_string(start));
    }
  }
}

}  // namespace

Pmt Pmt::boolean(bool v) {
  Pmt p;
  p.type = v ? Type::true_ : Type::false_;
  return p;
}

Pmt Pmt::make_symbol(std::string name) {
  Pmt p;
  p.type = Type::symbol;
  p.text = std::move(name);
  return p;
}

Pmt Pmt::make_integer(std::int64_t v) {
  Pmt p;
  p.type = Type::integer;
  p.integer = v;
  return p;
}

Pmt Pmt::make_uint64(std::uint64_t v) {
  Pmt p;
  p.type = Type::uint64;
  p.uint64 = v;
  return p;
}

Pmt Pmt::make_real(double v) {
  Pmt p;
  p.type = Type::real;
  p.real = v;
  return p;
}

Pmt Pmt::make_tuple(std::vector<Pmt> items) {
  Pmt p;
  p.type = Type::tuple;
  p.items = std::move(items);
  return p;
}

Pmt Pmt::make_u8vector(std::string bytes) {
  Pmt p;
  p.type = Type::uniform_vector;
  p.element_type = 0;
  p.count = static_cast<std::uint32_t>(bytes.size());
  p.text = std::move(bytes);
  return p;
}

bool Pmt::to_number(double& out) const {
  switch (type) {
    case Type::integer: out = static_cast<double>(integer); return true;
    case Type::uint64: out = static_cast<double>(uint64); return true;
    case Type::real: out = real; return true;
    default: return false;
  }
}

std::string Pmt::describe() const {
  switch (type) {
    case Type::true_: return "true";
    case Type::false_: return "false";
    case Type::null: return "null";
    case Type::symbol: return "symbol '" + text + "'";
    case Type::integer: return "integer " + std::to_string(integer);
    case Type::uint64: return "uint64 " + std::to_string(uint64);
    case Type::real: return "double " + std::to_string(real);
    case Type::complex: return "complex";
    case Type::pair: return "list";
    case Type::dict: return "dict";
    case Type::vector: return "vector of " + std::to_string(items.size());
    case Type::tuple: return "tuple of " + std::to_string(items.size());
    case Type::uniform_vector: return "uniform vector of " + std::to_string(count);
  }
  return "?";
}

void serialize_pmt(const Pmt& value, std::string& out) {
  switch (value.type) {
    case Pmt::Type::true_: out += static_cast<char>(kTrue); return;
    case Pmt::Type::false_: out += static_cast<char>(kFalse); return;
    case Pmt::Type::null: out += static_cast<char>(kNull); return;
    case Pmt::Type::symbol:
      if (value.text.size() > 0xffff) throw WireError("a PMT symbol holds at most 65535 bytes");
      out += static_cast<char>(kSymbol);
      put_be(value.text.size(), 2, out);
      out += value.text;
      return;
    case Pmt::Type::integer:
      // As pmt::serialize: four bytes when the value fits them.
      if (value.integer >= INT32_MIN && value.integer <= INT32_MAX) {
        out += static_cast<char>(kInt32);
        put_be(static_cast<std::uint32_t>(static_cast<std::int32_t>(value.integer)), 4, out);
      } else {
        out += static_cast<char>(kInt64);
        put_be(static_cast<std::uint64_t>(value.integer), 8, out);
      }
      return;
    case Pmt::Type::uint64:
      out += static_cast<char>(kUint64);
      put_be(value.uint64, 8, out);
      return;
    case Pmt::Type::real:
      out += static_cast<char>(kDouble);
      put_be(std::bit_cast<std::uint64_t>(value.real), 8, out);
      return;
    case Pmt::Type::complex:
      out += static_cast<char>(kComplex);
      put_be(std::bit_cast<std::uint64_t>(value.complex.real()), 8, out);
      put_be(std::bit_cast<std::uint64_t>(value.complex.imag()), 8, out);
      return;
    case Pmt::Type::pair:
    case Pmt::Type::dict: {
      // items: the cars, then the last cdr. The list's type byte comes first; each further car is
      // a pair, as parse_list reads a list (a dict's further cells written as dicts would read
      // back as a dict nested in each cdr).
      if (value.items.size() < 2) throw WireError("a PMT list needs a car and a cdr");
      const char type = static_cast<char>(value.type == Pmt::Type::dict ? kDict : kPair);
      for (std::size_t i = 0; i + 1 < value.items.size(); ++i) {
        out += i == 0 ? type : static_cast<char>(kPair);
        serialize_pmt(value.items[i], out);
      }
      serialize_pmt(value.items.back(), out);
      return;
    }
    case Pmt::Type::vector:
    case Pmt::Type::tuple:
      out += static_cast<char>(value.type == Pmt::Type::vector ? kVector : kTuple);
      put_be(value.items.size(), 4, out);
      for (const Pmt& item : value.items) serialize_pmt(item, out);
      return;
    case Pmt::Type::uniform_vector: {
      const std::size_t size = element_bytes(value.element_type);
      if (size == 0 || value.text.size() != static_cast<std::size_t>(value.count) * size)
        throw WireError("a uniform vector's bytes do not match its type and length");
      out += static_cast<char>(kUniformVector);
      out += static_cast<char>(value.element_type);
      put_be(value.count, 4, out);
      out += '\x01';  // one pad byte, as pmt::serialize writes
      out += '\x00';
      out += value.text;
      return;
    }
  }
}

Pmt parse_pmt(std::span<const std::byte> data, std::size_t& pos) { return parse_at_depth(data, pos, 0); }

void append_tag_header(std::uint64_t offset, const std::vector<StreamTag>& tags, std::string& out) {
  put_le(kTagHeaderMagic, 2, out);
  put_le(kTagHeaderVersion, 1, out);
  put_le(offset, 8, out);
  put_le(tags.size(), 8, out);
  for (const StreamTag& tag : tags) {
    put_le(tag.offset, 8, out);
    serialize_pmt(tag.key, out);
    serialize_pmt(tag.value, out);
    serialize_pmt(tag.source_id, out);
  }
}

bool starts_with_tag_header(std::span<const std::byte> message) {
  return message.size() >= kTagHeaderFixedBytes && static_cast<std::uint8_t>(message[0]) == (kTagHeaderMagic & 0xff) &&
         static_cast<std::uint8_t>(message[1]) == (kTagHeaderMagic >> 8) &&
         static_cast<std::uint8_t>(message[2]) == kTagHeaderVersion;
}

TagHeader parse_tag_header(std::span<const std::byte> message) {
  std::size_t pos = 0;
  Reader in(message, pos);
  if (message.size() < kTagHeaderFixedBytes)
    throw WireError("a message of " + std::to_string(message.size()) + " bytes is too short for a tag header (" +
                    std::to_string(kTagHeaderFixedBytes) + " bytes)");
  const auto magic = static_cast<std::uint16_t>(in.le(2, "magic"));
  if (magic != kTagHeaderMagic) throw WireError("no tag header: the message does not start with the magic 0x5FF0");
  const auto version = static_cast<std::uint8_t>(in.le(1, "version"));
  if (version != kTagHeaderVersion)
    throw WireError("tag header version " + std::to_string(version) + " (only version 1 is known)");
  TagHeader header;
  header.offset = in.le(8, "offset");
  const std::uint64_t count = in.le(8, "tag count");
  // A tag takes at least 11 bytes (its offset and three one-byte PMTs).
  if (count > in.left() / 11)
    throw WireError("tag header announces " + std::to_string(count) + " tags, more than its " +
                    std::to_string(message.size()) + "-byte message can hold");
  header.tags.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    StreamTag tag;
    tag.offset = in.le(8, "tag offset");
    tag.key = parse_pmt(message, pos);
    tag.value = parse_pmt(message, pos);
    tag.source_id = parse_pmt(message, pos);
    header.tags.push_back(std::move(tag));
  }
  header.bytes = pos;
  return header;
}

}  // namespace prism::net
