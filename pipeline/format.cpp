// Sample format names and conversion to float (see format.hpp).
#include "pipeline/format.hpp"

#include <cstring>
#include <type_traits>

namespace prism {

std::string_view format_name(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32: return "f32";
    case SampleFormat::cf32: return "cf32";
    case SampleFormat::i16: return "i16";
    case SampleFormat::ci16: return "ci16";
    case SampleFormat::i8: return "i8";
    case SampleFormat::ci8: return "ci8";
    case SampleFormat::u8: return "u8";
    case SampleFormat::cu8: return "cu8";
    case SampleFormat::f64: return "f64";
    case SampleFormat::cf64: return "cf64";
    case SampleFormat::i32: return "i32";
    case SampleFormat::ci32: return "ci32";
    case SampleFormat::u16: return "u16";
    case SampleFormat::cu16: return "cu16";
    case SampleFormat::u32: return "u32";
    case SampleFormat::cu32: return "cu32";
  }
  return "?";
}

std::string_view sigmf_datatype(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32: return "rf32_le";
    case SampleFormat::cf32: return "cf32_le";
    case SampleFormat::i16: return "ri16_le";
    case SampleFormat::ci16: return "ci16_le";
    case SampleFormat::i8: return "ri8";
    case SampleFormat::ci8: return "ci8";
    case SampleFormat::u8: return "ru8";
    case SampleFormat::cu8: return "cu8";
    case SampleFormat::f64: return "rf64_le";
    case SampleFormat::cf64: return "cf64_le";
    case SampleFormat::i32: return "ri32_le";
    case SampleFormat::ci32: return "ci32_le";
    case SampleFormat::u16: return "ru16_le";
    case SampleFormat::cu16: return "cu16_le";
    case SampleFormat::u32: return "ru32_le";
    case SampleFormat::cu32: return "cu32_le";
  }
  return "?";
}

std::optional<SampleFormat> parse_format(std::string_view name) {
  struct Alias {
    std::string_view name;
    SampleFormat format;
  };
  static constexpr Alias aliases[] = {
      {"f32", SampleFormat::f32},       {"rf32", SampleFormat::f32},
      {"rf32_le", SampleFormat::f32},   {"float", SampleFormat::f32},
      {"float32", SampleFormat::f32},   {"cf32", SampleFormat::cf32},
      {"cf32_le", SampleFormat::cf32},  {"complex64", SampleFormat::cf32},
      {"fc32", SampleFormat::cf32},     {"i16", SampleFormat::i16},
      {"ri16", SampleFormat::i16},      {"ri16_le", SampleFormat::i16},
      {"s16", SampleFormat::i16},       {"int16", SampleFormat::i16},
      {"ci16", SampleFormat::ci16},     {"ci16_le", SampleFormat::ci16},
      {"cs16", SampleFormat::ci16},     {"sc16", SampleFormat::ci16},
      {"i8", SampleFormat::i8},         {"ri8", SampleFormat::i8},
      {"s8", SampleFormat::i8},         {"int8", SampleFormat::i8},
      {"ci8", SampleFormat::ci8},       {"cs8", SampleFormat::ci8},
      {"sc8", SampleFormat::ci8},       {"u8", SampleFormat::u8},
      {"ru8", SampleFormat::u8},        {"uint8", SampleFormat::u8},
      {"cu8", SampleFormat::cu8},       {"f64", SampleFormat::f64},
      {"rf64", SampleFormat::f64},      {"rf64_le", SampleFormat::f64},
      {"float64", SampleFormat::f64},   {"cf64", SampleFormat::cf64},
      {"cf64_le", SampleFormat::cf64},  {"complex128", SampleFormat::cf64},
      {"fc64", SampleFormat::cf64},     {"i32", SampleFormat::i32},
      {"ri32", SampleFormat::i32},      {"ri32_le", SampleFormat::i32},
      {"s32", SampleFormat::i32},       {"int32", SampleFormat::i32},
      {"ci32", SampleFormat::ci32},     {"ci32_le", SampleFormat::ci32},
      {"cs32", SampleFormat::ci32},     {"sc32", SampleFormat::ci32},
      {"u16", SampleFormat::u16},       {"ru16", SampleFormat::u16},
      {"ru16_le", SampleFormat::u16},   {"uint16", SampleFormat::u16},
      {"cu16", SampleFormat::cu16},     {"cu16_le", SampleFormat::cu16},
      {"u32", SampleFormat::u32},       {"ru32", SampleFormat::u32},
      {"ru32_le", SampleFormat::u32},   {"uint32", SampleFormat::u32},
      {"cu32", SampleFormat::cu32},     {"cu32_le", SampleFormat::cu32},
  };
  for (const auto& a : aliases)
    if (a.name == name) return a.format;
  return std::nullopt;
}

std::optional<StoredFormat> parse_stored_format(std::string_view name) {
  if (const auto format = parse_format(name)) return StoredFormat{*format, false};
  for (const std::string_view suffix : {std::string_view("_le"), std::string_view("_be")}) {
    if (!name.ends_with(suffix)) continue;
    const std::string_view base = name.substr(0, name.size() - suffix.size());
    if (base.ends_with("_le")) return std::nullopt;  // ci16_le_be names no byte order
    const auto format = parse_format(base);
    if (!format) return std::nullopt;
    // One byte has no order: ci8_be is ci8.
    return StoredFormat{*format, suffix == "_be" && component_bytes(*format) > 1};
  }
  return std::nullopt;
}

std::string format_names_help() {
  return "f32 (rf32_le), cf32 (cf32_le), f64 (rf64_le), cf64 (cf64_le), i32 (ri32_le), "
         "ci32 (ci32_le, cs32), i16 (ri16_le), ci16 (ci16_le, cs16), i8 (ri8), ci8 (cs8), "
         "u32 (ru32_le), cu32 (cu32_le), u16 (ru16_le), cu16 (cu16_le), u8 (ru8), cu8; "
         "a _be suffix for big-endian (ci16_be, rf64_be)";
}

namespace {

struct ExtensionFormat {
  std::string_view extension;
  SampleFormat format;
};

constexpr ExtensionFormat kRawExtensions[] = {
    {".cf32", SampleFormat::cf32}, {".cfile", SampleFormat::cf32}, {".fc32", SampleFormat::cf32},
    {".cs16", SampleFormat::ci16}, {".ci16", SampleFormat::ci16},  {".sc16", SampleFormat::ci16},
    {".cs8", SampleFormat::ci8},   {".ci8", SampleFormat::ci8},    {".sc8", SampleFormat::ci8},
    {".cu8", SampleFormat::cu8},   {".f32", SampleFormat::f32},    {".s16", SampleFormat::i16},
    {".i16", SampleFormat::i16},   {".s8", SampleFormat::i8},      {".i8", SampleFormat::i8},
    {".u8", SampleFormat::u8},     {".cf64", SampleFormat::cf64},  {".fc64", SampleFormat::cf64},
    {".f64", SampleFormat::f64},
};

}  // namespace

std::string lower_extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string ext(name.substr(dot));
  for (char& c : ext)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return ext;
}

std::optional<SampleFormat> raw_format_from_extension(std::string_view path) {
  const std::string ext = lower_extension(path);
  for (const auto& entry : kRawExtensions)
    if (entry.extension == ext) return entry.format;
  return std::nullopt;
}

std::string raw_extensions_help() {
  std::string text;
  for (const auto& entry : kRawExtensions) {
    if (!text.empty()) text += ' ';
    text += entry.extension;
  }
  return text;
}

namespace {
// (v - offset)·scale in double, rounded once to Dst: a float cannot hold every 32-bit integer, and
// offset and value must meet exactly before the one rounding. Narrow integers are exact in float,
// so Dst float computes them in float.
template <typename T, typename Dst>
void convert_scaled(const std::byte* src, std::size_t n, Dst* dst, double offset, double scale) {
  using Work = std::conditional_t<(sizeof(T) <= 2 && std::is_integral_v<T>), Dst, double>;
  const auto o = static_cast<Work>(offset), k = static_cast<Work>(scale);
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));  // src may be unaligned
    dst[i] = static_cast<Dst>((static_cast<Work>(v) - o) * k);
  }
}

template <typename Dst>
void convert_to(SampleFormat f, const std::byte* src, std::size_t components, Dst* dst, IntegerScale scale) {
  // No samples: src and dst may be null (an empty vector's data()), which memcpy must not get.
  if (components == 0) return;
  const bool unit = scale == IntegerScale::unit;
  constexpr double k2p31 = 2147483648.0;
  switch (f) {
    case SampleFormat::f32:
    case SampleFormat::cf32:
      if constexpr (std::is_same_v<Dst, float>) std::memcpy(dst, src, components * sizeof(float));
      else convert_scaled<float>(src, components, dst, 0.0, 1.0);
      return;
    case SampleFormat::f64:
    case SampleFormat::cf64:
      if constexpr (std::is_same_v<Dst, double>) std::memcpy(dst, src, components * sizeof(double));
      else convert_scaled<double>(src, components, dst, 0.0, 1.0);
      return;
    case SampleFormat::i32:
    case SampleFormat::ci32: convert_scaled<std::int32_t>(src, components, dst, 0.0, unit ? 1.0 / k2p31 : 1.0); return;
    case SampleFormat::u32:
    case SampleFormat::cu32:
      convert_scaled<std::uint32_t>(src, components, dst, unit ? k2p31 : 0.0, unit ? 1.0 / k2p31 : 1.0);
      return;
    case SampleFormat::i16:
    case SampleFormat::ci16: convert_scaled<std::int16_t>(src, components, dst, 0.0, unit ? 1.0 / 32768.0 : 1.0); return;
    case SampleFormat::u16:
    case SampleFormat::cu16:
      convert_scaled<std::uint16_t>(src, components, dst, unit ? 32768.0 : 0.0, unit ? 1.0 / 32768.0 : 1.0);
      return;
    case SampleFormat::i8:
    case SampleFormat::ci8: convert_scaled<std::int8_t>(src, components, dst, 0.0, unit ? 1.0 / 128.0 : 1.0); return;
    case SampleFormat::u8:
    case SampleFormat::cu8:
      convert_scaled<std::uint8_t>(src, components, dst, unit ? 128.0 : 0.0, unit ? 1.0 / 128.0 : 1.0);
      return;
  }
}
}  // namespace

void convert_to_float(SampleFormat f, const std::byte* src, std::size_t components, float* dst,
                      IntegerScale scale) {
  convert_to<float>(f, src, components, dst, scale);
}

void convert_to_double(SampleFormat f, const std::byte* src, std::size_t components, double* dst,
                       IntegerScale scale) {
  convert_to<double>(f, src, components, dst, scale);
}

}  // namespace prism
