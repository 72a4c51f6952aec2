// Fuzz target: a ZeroMQ message as gr-zeromq sends it (net/gr_wire.hpp): the tag header and its
// PMT-serialised tags, and what prism reads from the tags (net/stream_tags.hpp). A header that
// parses must serialise to bytes that parse back to the same serialisation, and its items must
// start inside the message. WireError is the only exception the parsers may throw; any other, a
// crash or a sanitizer report is a failure.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "net/gr_wire.hpp"
#include "net/stream_tags.hpp"

namespace {

std::string reserialize(const prism::net::TagHeader& header) {
  std::string out;
  prism::net::append_tag_header(header.offset, header.tags, out);
  return out;
}

std::span<const std::byte> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> message(reinterpret_cast<const std::byte*>(data), size);
  (void)prism::net::starts_with_tag_header(message);
  prism::net::TagHeader header;
  try {
    header = prism::net::parse_tag_header(message);
  } catch (const prism::net::WireError&) {
    return 0;
  }
  if (header.bytes > size) __builtin_trap();
  for (const auto& tag : header.tags) {
    (void)tag.key.describe();
    (void)tag.value.describe();
  }
  try {
    (void)prism::net::read_stream_tags(header.tags);
  } catch (const prism::net::WireError&) {
  }
  std::string once;
  try {
    once = reserialize(header);
  } catch (const prism::net::WireError&) {
    return 0;  // a value prism cannot write (a symbol over 65535 bytes cannot be read either)
  }
  try {
    const prism::net::TagHeader again = prism::net::parse_tag_header(bytes_of(once));
    if (again.bytes != once.size() || reserialize(again) != once) __builtin_trap();
  } catch (const prism::net::WireError&) {
    __builtin_trap();  // what prism writes, it must read
  }
  return 0;
}
