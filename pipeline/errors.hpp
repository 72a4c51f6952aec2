// Error types that carry the exit code a command-line run should end with.
//   UsageError: the command line is wrong (exit 2), the message names the option.
//   InputError: an input (or output) file cannot be used (exit 1), the message names
//               the path and what is wrong with it.
//   Interrupted: Ctrl-C (or SIGTERM) stopped a command before its run began, while an input
//               was being opened (exit 130); nothing was written.
// Anything else that escapes a stage is a runtime failure (exit 1).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace prism {

// `text` with control characters (newlines too) and bytes that are not valid UTF-8 written as
// \xNN, so that a message quoting a garbage file's bytes stays one line of readable text.
inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) escape(c); else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A UTF-8 sequence as RFC 3629 allows it: its length from the lead byte, then continuation
    // bytes 10xxxxxx, the second byte's range narrowed so that overlong forms (C0, C1, E0 80,
    // F0 80), surrogates (ED A0) and code points above U+10FFFF (F4 90, F5...) are not UTF-8.
    const std::size_t length =
        c >= 0xc2 && c <= 0xdf ? 2 : (c >> 4) == 0xe ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool valid = length != 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (valid && length > 2) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      const unsigned char low = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
      const unsigned char high = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
      valid = second >= low && second <= high;
    }
    if (valid) {
      out.append(text, i, length);
      i += length;
    } else {
      escape(c);
      ++i;
    }
  }
  return out;
}

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& path, const std::string& reason)
      : std::runtime_error(printable(path + ": " + reason)), path_(path), reason_(printable(reason)) {}
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace prism
