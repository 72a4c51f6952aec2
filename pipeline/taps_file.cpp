// Filter taps in files (taps_file.hpp): the .npy, text and JSON parsers over bytes, the file
// wrapper, and the encoders.
//
// Contents:
//   1. helpers       numbers (parsing, printing), byte order, quoting bad text in messages
//   2. .npy          the header's Python dict literal, dtype and shape, the data
//   3. text          lines, comments, real and complex values
//   4. JSON          numbers and [re, im] pairs
//   5. entry points  parse_taps, read_taps_file, encode_taps
#include "pipeline/taps_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"

namespace prism {
namespace {

// ---- 1. helpers ------------------------------------------------------------------------------

constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

// A piece of a bad file for a message: at most 40 characters (InputError escapes the rest).
std::string quoted(std::string_view text) {
  constexpr std::size_t kLongest = 40;
  if (text.size() > kLongest) return "'" + std::string(text.substr(0, kLongest)) + "...'";
  return "'" + std::string(text) + "'";
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A whole real number: an optional '+' or '-', then what std::from_chars reads (decimal or
// exponent form, inf, nan); nothing else around it.
// Out of range, it is what strtod makes: ±inf (which the callers reject) or a tiny value.
std::optional<double> parse_real(std::string_view text) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) return std::strtod(std::string(text).c_str(), nullptr);
  if (error != std::errc()) return std::nullopt;
  return value;
}

template <typename T>
T load_scalar(const char* p, bool big_endian) {
  std::array<unsigned char, sizeof(T)> bytes;
  std::memcpy(bytes.data(), p, sizeof(T));
  if (big_endian != (std::endian::native == std::endian::big)) std::reverse(bytes.begin(), bytes.end());
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

void append_little_endian(std::string& out, double value) {
  std::array<unsigned char, sizeof(double)> bytes;
  std::memcpy(bytes.data(), &value, sizeof(double));
  if (std::endian::native == std::endian::big) std::reverse(bytes.begin(), bytes.end());
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::uint32_t little_endian_u32(const char* p, std::size_t bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value |= std::uint32_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return value;
}

// The checks every format shares: some taps, all finite.
void check_taps(const FilterTaps& taps, const std::string& name, const std::string& where_prefix) {
  if (taps.empty()) throw InputError(name, "holds no taps");
  for (std::size_t i = 0; i < taps.size(); ++i) {
    const std::complex<double> v = taps[i];
    if (!std::isfinite(v.real()) || !std::isfinite(v.imag()))
      throw InputError(name, where_prefix + std::to_string(i) + " (0-based) is not finite");
  }
}

// ---- 2. .npy ---------------------------------------------------------------------------------

constexpr std::string_view kNpyMagic{"\x93NUMPY", 6};

// A value of the header's dict: a string, a bool, or a tuple of integers.
struct PyValue {
  enum class Kind { string, boolean, tuple } kind = Kind::string;
  std::string text;
  bool flag = false;
  std::vector<std::uint64_t> items;
};

// Reads the Python literal numpy writes as an .npy header:
//   {'descr': '<f8', 'fortran_order': False, 'shape': (10,), }
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  std::vector<std::pair<std::string, PyValue>> dict() {
    std::vector<std::pair<std::string, PyValue>> entries;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = string_literal();
      expect(':');
      PyValue value = value_literal();
      for (const auto& entry : entries)
        if (entry.first == key) fail("the key '" + key + "' appears twice");
      entries.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}' at character " + std::to_string(pos_));
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dict at character " + std::to_string(pos_));
    return entries;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_, "bad .npy header (" + what + ")");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "' at character " + std::to_string(pos_));
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string at character " + std::to_string(pos_));
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("a string is not closed");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    if (s.find('\\') != std::string::npos) fail("escapes in strings are not supported");
    pos_ = end + 1;
    return s;
  }
  std::uint64_t integer_literal() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (start == pos_ || error != std::errc())
      fail("expected a dimension (a non-negative integer) at character " + std::to_string(start));
    (void)end;
    if (peek() == 'L') ++pos_;  // Python 2's long, in files written long ago
    return value;
  }
  PyValue value_literal() {
    skip_space();
    PyValue value;
    const char c = peek();
    if (c == '\'' || c == '"') {
      value.kind = PyValue::Kind::string;
      value.text = string_literal();
    } else if (text_.substr(pos_, 4) == "True") {
      value.kind = PyValue::Kind::boolean;
      value.flag = true;
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      value.kind = PyValue::Kind::boolean;
      pos_ += 5;
    } else if (c == '(') {
      value.kind = PyValue::Kind::tuple;
      ++pos_;
      while (true) {
        skip_space();
        if (peek() == ')') break;
        value.items.push_back(integer_literal());
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() != ')') fail("expected ',' or ')' in the shape at character " + std::to_string(pos_));
      }
      ++pos_;
    } else if (c == '[') {
      fail("the dtype is a structured (record) type; taps need float32, float64, complex64 or complex128");
    } else {
      fail("unexpected value at character " + std::to_string(pos_));
    }
    return value;
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

FilterTaps parse_npy(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kNpyMagic.size() || bytes.substr(0, kNpyMagic.size()) != kNpyMagic)
    throw InputError(name, "is not a .npy file (it does not start with \\x93NUMPY)");
  if (bytes.size() < 10) throw InputError(name, "is truncated: the .npy header is incomplete");
  const auto major = static_cast<unsigned char>(bytes[6]);
  const auto minor = static_cast<unsigned char>(bytes[7]);
  std::size_t length_bytes = 0;
  if (major == 1) length_bytes = 2;
  else if (major == 2 || major == 3) length_bytes = 4;
  else
    throw InputError(name, ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                               " is not supported (1.0, 2.0 and 3.0 are)");
  const std::size_t preamble = 8 + length_bytes;
  if (bytes.size() < preamble) throw InputError(name, "is truncated: the .npy header is incomplete");
  const std::size_t header_length = little_endian_u32(bytes.data() + 8, length_bytes);
  if (header_length > bytes.size() - preamble)
    throw InputError(name, "is truncated: the .npy header says it is " + std::to_string(header_length) +
                               " bytes long, the file ends before");
  const std::string_view header = bytes.substr(preamble, header_length);

  std::optional<PyValue> descr, fortran_order, shape;
  for (auto& [key, value] : NpyHeaderParser(header, name).dict()) {
    if (key == "descr") descr = value;
    else if (key == "fortran_order") fortran_order = value;
    else if (key == "shape") shape = value;
    else throw InputError(name, "bad .npy header (unknown key '" + key + "')");
  }
  if (!descr || !fortran_order || !shape)
    throw InputError(name, "bad .npy header (it needs the keys 'descr', 'fortran_order' and 'shape')");
  if (descr->kind != PyValue::Kind::string)
    throw InputError(name, "bad .npy header ('descr' is not a dtype string)");
  if (fortran_order->kind != PyValue::Kind::boolean)
    throw InputError(name, "bad .npy header ('fortran_order' is not True or False)");
  if (shape->kind != PyValue::Kind::tuple)
    throw InputError(name, "bad .npy header ('shape' is not a tuple)");

  // The dtype: byte order, then f4 f8 c8 c16.
  const std::string& dtype = descr->text;
  const char order = dtype.empty() ? '\0' : dtype[0];
  const std::string type = order == '<' || order == '>' || order == '|' || order == '=' ? dtype.substr(1) : dtype;
  const bool big_endian = order == '>';
  std::size_t item_bytes = 0;
  bool complex = false;
  if (type == "f4") item_bytes = 4;
  else if (type == "f8") item_bytes = 8;
  else if (type == "c8") item_bytes = 8, complex = true;
  else if (type == "c16") item_bytes = 16, complex = true;
  if (item_bytes == 0 || (order != '<' && order != '>'))
    throw InputError(name, "dtype '" + dtype + "' is not supported: taps must be float32, float64, complex64 "
                           "or complex128 ('<f4', '<f8', '<c8', '<c16', or big-endian '>...')");

  // A vector: every dimension but one is 1.
  std::size_t count = 1;
  std::size_t longer_dimensions = 0;
  std::string shape_text = "(";
  for (std::size_t i = 0; i < shape->items.size(); ++i) {
    shape_text += (i ? ", " : "") + std::to_string(shape->items[i]);
    if (shape->items[i] != 1) ++longer_dimensions;
    if (shape->items[i] != 0 && count > std::numeric_limits<std::size_t>::max() / item_bytes / shape->items[i])
      throw InputError(name, "the .npy shape is too large");
    count *= static_cast<std::size_t>(shape->items[i]);
  }
  shape_text += shape->items.size() == 1 ? ",)" : ")";
  if (longer_dimensions > 1)
    throw InputError(name, "holds an array of shape " + shape_text + ": taps must be one-dimensional");
  if (count == 0) throw InputError(name, "holds no taps (shape " + shape_text + ")");

  const std::size_t data_start = preamble + header_length;
  const std::size_t data_bytes = bytes.size() - data_start;
  if (data_bytes != count * item_bytes)
    throw InputError(name, std::string(data_bytes < count * item_bytes ? "is truncated: " : "has extra bytes: ") +
                               "shape " + shape_text + " of " + dtype + " needs " +
                               std::to_string(count * item_bytes) + " bytes of data, the file has " +
                               std::to_string(data_bytes));
  const char* data = bytes.data() + data_start;
  FilterTaps taps;
  taps.is_complex = complex;
  if (complex) taps.complex.resize(count);
  else taps.real.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const char* p = data + i * item_bytes;
    if (type == "f4") taps.real[i] = load_scalar<float>(p, big_endian);
    else if (type == "f8") taps.real[i] = load_scalar<double>(p, big_endian);
    else if (type == "c8")
      taps.complex[i] = {load_scalar<float>(p, big_endian), load_scalar<float>(p + 4, big_endian)};
    else
      taps.complex[i] = {load_scalar<double>(p, big_endian), load_scalar<double>(p + 8, big_endian)};
  }
  check_taps(taps, name, "tap ");
  return taps;
}

// ---- 3. text ---------------------------------------------------------------------------------

// A value as Python's complex() or numpy.loadtxt reads it: "1.5", "(1+2j)", "-2.5e-3j",
// " (1.0e+00+-2.0e+00j)" (older numpy.savetxt wrote "+-" before a negative imaginary
// part; numpy.loadtxt still reads it).
// nullopt when it is not one; `is_complex` says whether it had an imaginary part.
std::optional<std::complex<double>> parse_value(std::string_view text, bool& is_complex) {
  if (text.size() >= 2 && text.front() == '(' && text.back() == ')') text = trim(text.substr(1, text.size() - 2));
  is_complex = false;
  if (text.empty()) return std::nullopt;
  if (text.back() != 'j' && text.back() != 'J') {
    const auto real = parse_real(text);
    if (!real) return std::nullopt;
    return std::complex<double>(*real, 0.0);
  }
  is_complex = true;
  const std::string_view body = text.substr(0, text.size() - 1);
  // The imaginary part starts at the last sign that follows neither an exponent's 'e' nor
  // another sign (the first of savetxt's "+-").
  std::size_t split = std::string_view::npos;
  for (std::size_t i = 1; i < body.size(); ++i) {
    const char c = body[i], before = body[i - 1];
    if ((c == '+' || c == '-') && before != 'e' && before != 'E' && before != '+' && before != '-') split = i;
  }
  const std::string_view real_text = split == std::string_view::npos ? std::string_view{} : body.substr(0, split);
  std::string_view imag_text = split == std::string_view::npos ? body : body.substr(split);
  double real = 0.0;
  if (split != std::string_view::npos) {
    const auto parsed = parse_real(real_text);
    if (!parsed) return std::nullopt;
    real = *parsed;
  }
  // "+-2" is older savetxt's way of writing -2.
  if (imag_text.size() >= 2 && imag_text[0] == '+' && imag_text[1] == '-') imag_text.remove_prefix(1);
  double imag = 0.0;
  if (imag_text.empty() || imag_text == "+" || imag_text == "-") {
    imag = imag_text == "-" ? -1.0 : 1.0;  // "j", "1+j", "-j": Python's unit
  } else {
    const auto parsed = parse_real(imag_text);
    if (!parsed) return std::nullopt;
    imag = *parsed;
  }
  return std::complex<double>(real, imag);
}

FilterTaps parse_text(std::string_view bytes, const std::string& name) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);  // a UTF-8 byte-order mark
  std::vector<std::complex<double>> values;
  bool any_complex = false;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(line_number) + ": ";
    const bool several = std::any_of(line.begin(), line.end(), [](char c) {
      return std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == ';';
    });
    bool is_complex = false;
    const auto value = parse_value(line, is_complex);
    if (!value) {
      if (several && line.front() != '(')
        throw InputError(name, where + "one value per line, found " + quoted(line));
      throw InputError(name, where + quoted(line) +
                                 " is not a number (a real such as -0.25 or 1e-3, or a complex such as "
                                 "(0.5-1.5j))");
    }
    if (!std::isfinite(value->real()) || !std::isfinite(value->imag()))
      throw InputError(name, where + quoted(line) + " is not finite");
    any_complex = any_complex || is_complex;
    values.push_back(*value);
  }
  if (values.empty()) throw InputError(name, "holds no taps (only blank lines and comments)");
  if (any_complex) return FilterTaps::from_complex(std::move(values));
  std::vector<double> real(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) real[i] = values[i].real();
  return FilterTaps::from_real(std::move(real));
}

// ---- 4. JSON ---------------------------------------------------------------------------------

std::string json_kind(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array of " + std::to_string(value.size());
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "a number";
}

FilterTaps parse_json(std::string_view bytes, const std::string& name) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InputError(name, "is not valid JSON: " + what);
  }
  if (!document.is_array())
    throw InputError(name, "holds " + json_kind(document) +
                               "; taps in JSON are an array of numbers, or of [re, im] pairs");
  std::vector<std::complex<double>> values;
  values.reserve(document.size());
  bool any_complex = false;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const nlohmann::json& element = document[i];
    if (element.is_number()) {
      values.emplace_back(element.get<double>(), 0.0);
    } else if (element.is_array() && element.size() == 2 && element[0].is_number() && element[1].is_number()) {
      values.emplace_back(element[0].get<double>(), element[1].get<double>());
      any_complex = true;
    } else {
      throw InputError(name, "element " + std::to_string(i) + " (0-based) is " + json_kind(element) +
                                 "; expected a number or a [re, im] pair of numbers");
    }
  }
  FilterTaps taps;
  if (any_complex) {
    taps = FilterTaps::from_complex(std::move(values));
  } else {
    std::vector<double> real(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) real[i] = values[i].real();
    taps = FilterTaps::from_real(std::move(real));
  }
  check_taps(taps, name, "element ");
  return taps;
}

std::string lowercase_extension(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  std::string extension(path.substr(dot));
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

}  // namespace

// ---- 5. entry points -------------------------------------------------------------------------

TapsFormat taps_format_for_path(std::string_view path) {
  const std::string extension = lowercase_extension(path);
  if (extension == ".npy") return TapsFormat::npy;
  if (extension == ".json") return TapsFormat::json;
  return TapsFormat::automatic;
}

FilterTaps parse_taps(std::string_view bytes, TapsFormat format, const std::string& name) {
  if (format == TapsFormat::automatic) {
    if (bytes.substr(0, kNpyMagic.size()) == kNpyMagic) {
      format = TapsFormat::npy;
    } else {
      std::string_view text = bytes;
      if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
      text = trim(text);
      format = !text.empty() && text.front() == '[' ? TapsFormat::json : TapsFormat::text;
    }
  }
  if (bytes.empty()) throw InputError(name, "is empty: it holds no taps");
  switch (format) {
    case TapsFormat::npy: return parse_npy(bytes, name);
    case TapsFormat::json: return parse_json(bytes, name);
    case TapsFormat::text:
    case TapsFormat::automatic: break;
  }
  // A text file is not binary: a NUL byte says someone gave the wrong file.
  const std::size_t nul = bytes.find('\0');
  if (nul != std::string_view::npos)
    throw InputError(name, "line " + std::to_string(std::count(bytes.begin(), bytes.begin() + static_cast<long>(nul), '\n') + 1) +
                               ": a NUL byte: this is not a text file of taps");
  return parse_text(bytes, name);
}

FilterTaps read_taps_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw InputError(path, err == ENOENT ? "no such file" : std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a file of taps");
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw InputError(path, std::strerror(errno));
  std::string bytes;
  std::array<char, 65536> buffer;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw InputError(path, std::string("cannot be read: ") + std::strerror(err));
    }
    if (got == 0) break;
    if (bytes.size() + static_cast<std::size_t>(got) > kMaxFileBytes) {
      ::close(fd);
      throw InputError(path, "is larger than 1 GiB: too large for a file of taps");
    }
    bytes.append(buffer.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return parse_taps(bytes, taps_format_for_path(path), path);
}

std::string encode_taps(const FilterTaps& taps, TapsFormat format, std::string_view comment) {
  std::string out;
  switch (format) {
    case TapsFormat::npy: {
      std::string dictionary = std::string("{'descr': '") + (taps.is_complex ? "<c16" : "<f8") +
                               "', 'fortran_order': False, 'shape': (" + std::to_string(taps.size()) + ",), }";
      // numpy pads the header with spaces to a multiple of 64 bytes, '\n' last.
      const std::size_t used = 10 + dictionary.size() + 1;
      const std::size_t total = (used + 63) / 64 * 64;
      dictionary.append(total - used, ' ');
      dictionary += '\n';
      const std::size_t header_length = dictionary.size();
      out.assign(kNpyMagic);
      out += '\x01';
      out += '\x00';
      out += static_cast<char>(header_length & 0xFF);
      out += static_cast<char>((header_length >> 8) & 0xFF);
      out += dictionary;
      for (std::size_t i = 0; i < taps.size(); ++i) {
        append_little_endian(out, taps[i].real());
        if (taps.is_complex) append_little_endian(out, taps[i].imag());
      }
      return out;
    }
    case TapsFormat::text: {
      while (!comment.empty() && comment.back() == '\n') comment.remove_suffix(1);
      std::size_t start = 0;
      while (!comment.empty() && start <= comment.size()) {
        std::size_t end = comment.find('\n', start);
        if (end == std::string_view::npos) end = comment.size();
        out += "# ";
        out += comment.substr(start, end - start);
        out += '\n';
        start = end + 1;
      }
      for (std::size_t i = 0; i < taps.size(); ++i) {
        if (!taps.is_complex) {
          out += shortest_decimal(taps.real[i]);
        } else {
          const double imag = taps.complex[i].imag();
          out += '(' + shortest_decimal(taps.complex[i].real()) + (std::signbit(imag) ? "" : "+") +
                 shortest_decimal(imag) + "j)";
        }
        out += '\n';
      }
      return out;
    }
    case TapsFormat::json: {
      out = "[\n";
      for (std::size_t i = 0; i < taps.size(); ++i) {
        out += "  ";
        if (taps.is_complex)
          out += nlohmann::json::array({taps.complex[i].real(), taps.complex[i].imag()}).dump();
        else
          out += nlohmann::json(taps.real[i]).dump();
        out += i + 1 < taps.size() ? ",\n" : "\n";
      }
      out += "]\n";
      return out;
    }
    case TapsFormat::automatic: break;
  }
  throw std::invalid_argument("encode_taps: give the format (npy, text or json)");
}

}  // namespace prism
