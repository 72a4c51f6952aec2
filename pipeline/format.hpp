// Sample formats: what one scalar component of a stream looks like on the wire, and its
// conversion to float. Samples travel in their native format (a ci16 block is half the
// bytes of cf32) and are converted where they are processed.
//
// Conversion scales integers to [-1, 1): a signed integer of n bits is divided by 2^(n-1)
// (i8 / 128, i16 / 32768, i32 / 2^31); an unsigned one has its midpoint as zero
// ((u8 - 128) / 128, (u16 - 32768) / 32768, (u32 - 2^31) / 2^31), as RTL-SDR and SigMF's cu8
// use it. Doubles are rounded to float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace prism {

enum class SampleFormat : std::uint8_t {
  f32, cf32, i16, ci16, i8, ci8, u8, cu8,
  f64, cf64, i32, ci32, u16, cu16, u32, cu32,
};

inline constexpr SampleFormat kAllFormats[] = {
    SampleFormat::f32, SampleFormat::cf32, SampleFormat::i16,  SampleFormat::ci16,
    SampleFormat::i8,  SampleFormat::ci8,  SampleFormat::u8,   SampleFormat::cu8,
    SampleFormat::f64, SampleFormat::cf64, SampleFormat::i32,  SampleFormat::ci32,
    SampleFormat::u16, SampleFormat::cu16, SampleFormat::u32,  SampleFormat::cu32};

constexpr bool is_complex(SampleFormat f) {
  switch (f) {
    case SampleFormat::cf32:
    case SampleFormat::ci16:
    case SampleFormat::ci8:
    case SampleFormat::cu8:
    case SampleFormat::cf64:
    case SampleFormat::ci32:
    case SampleFormat::cu16:
    case SampleFormat::cu32: return true;
    default: return false;
  }
}

// The floating-point format of real or complex samples: f32 / cf32, or f64 / cf64 in double.
constexpr SampleFormat float_format(bool complex_values, bool double_precision = false) {
  if (double_precision) return complex_values ? SampleFormat::cf64 : SampleFormat::f64;
  return complex_values ? SampleFormat::cf32 : SampleFormat::f32;
}

// True for the formats stored as floating point (never scaled).
constexpr bool is_float(SampleFormat f) {
  return f == SampleFormat::f32 || f == SampleFormat::cf32 || f == SampleFormat::f64 ||
         f == SampleFormat::cf64;
}

// Bytes of one scalar component (the real or the imaginary part).
constexpr std::size_t component_bytes(SampleFormat f) {
  switch (f) {
    case SampleFormat::f64:
    case SampleFormat::cf64: return 8;
    case SampleFormat::f32:
    case SampleFormat::cf32:
    case SampleFormat::i32:
    case SampleFormat::ci32:
    case SampleFormat::u32:
    case SampleFormat::cu32: return 4;
    case SampleFormat::i16:
    case SampleFormat::ci16:
    case SampleFormat::u16:
    case SampleFormat::cu16: return 2;
    default: return 1;
  }
}

// Components per sample: 2 for complex formats, 1 for real ones.
constexpr std::size_t components_per_sample(SampleFormat f) { return is_complex(f) ? 2 : 1; }

// Bytes of one sample of one channel.
constexpr std::size_t sample_bytes(SampleFormat f) {
  return component_bytes(f) * components_per_sample(f);
}

// The format's prism name: "f32", "cf32", "i16", "ci16", "i8", "ci8", "u8", "cu8", "f64",
// "cf64", "i32", "ci32", "u16", "cu16", "u32", "cu32".
std::string_view format_name(SampleFormat f);

// The SigMF datatype name of the little-endian form, e.g. "cf32_le", "ri16_le", "cu8".
std::string_view sigmf_datatype(SampleFormat f);

// Parses a format name in the machine's (little-endian) byte order: prism's names, SigMF's
// little-endian ones (rf32_le, cf64_le, ri16_le, cu32_le, ri8, ci8, ...) and common aliases
// (cs16, cs8, float, complex64). nullopt when unknown, and for big-endian names.
std::optional<SampleFormat> parse_format(std::string_view name);

// A format and the byte order of its components as stored.
struct StoredFormat {
  SampleFormat format = SampleFormat::f32;
  bool big_endian = false;  // components are byte-swapped after reading
};

// parse_format, and big-endian names too: "<name>_be" for every name above of more than one
// byte per component (ci16_be, rf64_be, cu32_be), "<name>_le" as the plain name; 8-bit formats
// take either suffix (their byte order is moot). The SigMF datatypes are all among them.
std::optional<StoredFormat> parse_stored_format(std::string_view name);

// The list of accepted names, for error messages and --help.
std::string format_names_help();

// The format a raw file's extension names (what the raw reader reads and the raw writer writes):
// .cf32 .cfile .fc32 (cf32), .cs16 .ci16 .sc16 (ci16), .cs8 .ci8 .sc8 (ci8), .cu8 (cu8),
// .f32 (f32), .s16 .i16 (i16), .s8 .i8 (i8), .u8 (u8), .cf64 .fc64 (cf64), .f64 (f64); case is
// ignored. nullopt for any other.
std::optional<SampleFormat> raw_format_from_extension(std::string_view path);

// The extensions above, for messages: ".cf32 .cfile .fc32 .cs16 ...".
std::string raw_extensions_help();

// The extension of the file name in `path`, lower case, with its dot (".wav"); empty when none.
std::string lower_extension(std::string_view path);

// How integer samples become floats:
//   unit  scaled to [-1, 1): i16 / 32768, i8 / 128, (u8 - 128) / 128 ... (the default);
//   raw   the stored integer values as they are (what numpy sees from np.fromfile or
//         scipy.io.wavfile.read), for comparisons with code that does not scale.
// Float formats are never scaled.
enum class IntegerScale { unit, raw };

// Converts `components` scalar components from `src` (native format, little-endian) to float.
// Complex formats stay interleaved (re, im, re, im ...). 32-bit integers are converted through
// double, so raw values beyond 2^24 are rounded once, to the nearest float.
void convert_to_float(SampleFormat f, const std::byte* src, std::size_t components, float* dst,
                      IntegerScale scale = IntegerScale::unit);
// The same to double (every format's values exactly, but for the unit scale's one rounding).
void convert_to_double(SampleFormat f, const std::byte* src, std::size_t components, double* dst,
                       IntegerScale scale = IntegerScale::unit);

}  // namespace prism
