// Sample format names and conversion to float (see format.hpp).
#include "pipeline/format.hpp"

#include <cstring>

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
  }
  return "?";
}

std::optional<SampleFormat> parse_format(std::string_view name) {
  struct Alias {
    std::string_view name;
    SampleFormat format;
  };
  static constexpr Alias aliases[] = {
      {"f32", SampleFormat::f32},      {"rf32", SampleFormat::f32},
      {"rf32_le", SampleFormat::f32},  {"float", SampleFormat::f32},
      {"float32", SampleFormat::f32},  {"cf32", SampleFormat::cf32},
      {"cf32_le", SampleFormat::cf32}, {"complex64", SampleFormat::cf32},
      {"fc32", SampleFormat::cf32},    {"i16", SampleFormat::i16},
      {"ri16", SampleFormat::i16},     {"ri16_le", SampleFormat::i16},
      {"s16", SampleFormat::i16},      {"int16", SampleFormat::i16},
      {"ci16", SampleFormat::ci16},    {"ci16_le", SampleFormat::ci16},
      {"cs16", SampleFormat::ci16},    {"sc16", SampleFormat::ci16},
      {"i8", SampleFormat::i8},        {"ri8", SampleFormat::i8},
      {"s8", SampleFormat::i8},        {"int8", SampleFormat::i8},
      {"ci8", SampleFormat::ci8},      {"cs8", SampleFormat::ci8},
      {"sc8", SampleFormat::ci8},      {"u8", SampleFormat::u8},
      {"ru8", SampleFormat::u8},       {"uint8", SampleFormat::u8},
      {"cu8", SampleFormat::cu8},
  };
  for (const auto& a : aliases)
    if (a.name == name) return a.format;
  return std::nullopt;
}

std::string format_names_help() {
  return "f32 (rf32_le), cf32 (cf32_le), i16 (ri16_le), ci16 (ci16_le, cs16), i8 (ri8), "
         "ci8 (cs8), u8 (ru8), cu8";
}

namespace {
template <typename T>
void convert_scaled(const std::byte* src, std::size_t n, float* dst, float offset, float scale) {
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));  // src may be unaligned
    dst[i] = (static_cast<float>(v) - offset) * scale;
  }
}
}  // namespace

void convert_to_float(SampleFormat f, const std::byte* src, std::size_t components, float* dst,
                      IntegerScale scale) {
  // No samples: src and dst may be null (an empty vector's data()), which memcpy must not get.
  if (components == 0) return;
  const bool unit = scale == IntegerScale::unit;
  switch (f) {
    case SampleFormat::f32:
    case SampleFormat::cf32: std::memcpy(dst, src, components * sizeof(float)); return;
    case SampleFormat::i16:
    case SampleFormat::ci16:
      convert_scaled<std::int16_t>(src, components, dst, 0.0f, unit ? 1.0f / 32768.0f : 1.0f);
      return;
    case SampleFormat::i8:
    case SampleFormat::ci8:
      convert_scaled<std::int8_t>(src, components, dst, 0.0f, unit ? 1.0f / 128.0f : 1.0f);
      return;
    case SampleFormat::u8:
    case SampleFormat::cu8:
      convert_scaled<std::uint8_t>(src, components, dst, unit ? 128.0f : 0.0f,
                                   unit ? 1.0f / 128.0f : 1.0f);
      return;
  }
}

}  // namespace prism
