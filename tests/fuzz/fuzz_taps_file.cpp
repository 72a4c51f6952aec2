// Fuzz target: filter tap files (pipeline/taps_file.hpp), the bytes of a .npy, text or JSON file.
// The first byte picks the format the parser is told (automatic, npy, text, json), the rest is
// the file. Taps that parse are never empty and every tap is finite; encoded in each format they
// parse back bit for bit. Any exception but InputError is a failure of the parser's contract, as
// is a crash or a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "pipeline/errors.hpp"
#include "pipeline/taps_file.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_taps(const prism::FilterTaps& a, const prism::FilterTaps& b) {
  if (a.is_complex != b.is_complex || a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i].real(), b[i].real()) || !same_bits(a[i].imag(), b[i].imag())) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr prism::TapsFormat kFormats[] = {prism::TapsFormat::automatic, prism::TapsFormat::npy,
                                            prism::TapsFormat::text, prism::TapsFormat::json};
  const prism::TapsFormat format = kFormats[data[0] % 4];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  prism::FilterTaps taps;
  try {
    taps = prism::parse_taps(bytes, format, "taps");
  } catch (const prism::InputError&) {
    return 0;
  }
  if (taps.empty()) __builtin_trap();
  for (std::size_t i = 0; i < taps.size(); ++i)
    if (!std::isfinite(taps[i].real()) || !std::isfinite(taps[i].imag())) __builtin_trap();
  for (prism::TapsFormat out : {prism::TapsFormat::npy, prism::TapsFormat::text, prism::TapsFormat::json}) {
    try {
      const prism::FilterTaps again = prism::parse_taps(prism::encode_taps(taps, out), out, "encoded");
      if (!same_taps(taps, again)) __builtin_trap();
    } catch (const prism::InputError&) {
      __builtin_trap();  // what prism writes, prism reads
    }
  }
  return 0;
}
