// Sample formats: what one scalar component of a stream looks like on the wire, and its
// conversion to float. Samples travel in their native format (a ci16 block is half the
// bytes of cf32) and are converted where they are processed.
//
// Conversion scales integers to [-1, 1):  i16 / 32768,  i8 / 128,  (u8 - 128) / 128
// (u8 as RTL-SDR and SigMF's cu8 use it, with 128 as zero).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace prism {

enum class SampleFormat : std::uint8_t { f32, cf32, i16, ci16, i8, ci8, u8, cu8 };

inline constexpr SampleFormat kAllFormats[] = {SampleFormat::f32, SampleFormat::cf32,
                                               SampleFormat::i16, SampleFormat::ci16,
                                               SampleFormat::i8,  SampleFormat::ci8,
                                               SampleFormat::u8,  SampleFormat::cu8};

constexpr bool is_complex(SampleFormat f) {
  return f == SampleFormat::cf32 || f == SampleFormat::ci16 || f == SampleFormat::ci8 ||
         f == SampleFormat::cu8;
}

// Bytes of one scalar component (the real or the imaginary part).
constexpr std::size_t component_bytes(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32:
    case SampleFormat::cf32: return 4;
    case SampleFormat::i16:
    case SampleFormat::ci16: return 2;
    default: return 1;
  }
}

// Components per sample: 2 for complex formats, 1 for real ones.
constexpr std::size_t components_per_sample(SampleFormat f) { return is_complex(f) ? 2 : 1; }

// Bytes of one sample of one channel.
constexpr std::size_t sample_bytes(SampleFormat f) {
  return component_bytes(f) * components_per_sample(f);
}

// The format's prism name: "f32", "cf32", "i16", "ci16", "i8", "ci8", "u8", "cu8".
std::string_view format_name(SampleFormat f);

// The SigMF datatype name of the little-endian form, e.g. "cf32_le", "ri16_le", "cu8".
std::string_view sigmf_datatype(SampleFormat f);

// Parses a format name: prism's names, SigMF's (rf32_le, cf32_le, ri16_le, ci16_le, ri8, ci8,
// ru8, cu8) and common aliases (cs16, cs8, float, complex64). nullopt when unknown.
std::optional<SampleFormat> parse_format(std::string_view name);

// The list of accepted names, for error messages and --help.
std::string format_names_help();

// How integer samples become floats:
//   unit  scaled to [-1, 1): i16 / 32768, i8 / 128, (u8 - 128) / 128 (the default);
//   raw   the stored integer values as they are (what numpy sees from np.fromfile or
//         scipy.io.wavfile.read), for comparisons with code that does not scale.
// Float formats are never scaled.
enum class IntegerScale { unit, raw };

// Converts `components` scalar components from `src` (native format, little-endian) to float.
// Complex formats stay interleaved (re, im, re, im ...).
void convert_to_float(SampleFormat f, const std::byte* src, std::size_t components, float* dst,
                      IntegerScale scale = IntegerScale::unit);

}  // namespace prism
