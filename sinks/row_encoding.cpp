// float32 rows as float16 or uint8 levels (see row_encoding.hpp).
#include "sinks/row_encoding.hpp"

#include <bit>
#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PRISM_HALVES_F16C 1
#endif

namespace prism {

std::uint16_t half_bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // infinity, NaN (quiet, with the top of its payload)
    return sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u | ((magnitude >> 13) & 0x3ffu) : 0u);
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and above round to infinity
  auto round_shift = [](std::uint32_t bits, unsigned shift) {
    const std::uint32_t kept = bits >> shift;
    const std::uint32_t rest = bits & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
  };
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
    if (magnitude <= 0x33000000u) return sign;  // at most 2^-25: rounds to zero
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return static_cast<std::uint16_t>(sign | round_shift(mantissa, 126u - exponent));
  }
  // A normal half: rebias the exponent (127 -> 15) and round away 13 bits of mantissa; a carry
  // into the exponent is the right result.
  return static_cast<std::uint16_t>(sign | round_shift(magnitude - 0x38000000u, 13));
}

namespace {

#if PRISM_HALVES_F16C
// VCVTPS2PH rounding to nearest even gives half_bits' results: subnormal halves, overflow to
// infinity, NaN quieted with the top of its payload (float subnormals are inputs, not flushed,
// as long as MXCSR's DAZ is off, its default).
__attribute__((target("avx,f16c"))) void encode_halves_f16c(const float* values, std::size_t count,
                                                             std::uint16_t* halves) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i packed = _mm256_cvtps_ph(_mm256_loadu_ps(values + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(halves + i), packed);
  }
  for (; i < count; ++i) halves[i] = half_bits(values[i]);
}
#endif

}  // namespace

bool halves_in_hardware() {
#if PRISM_HALVES_F16C
  static const bool supported = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return supported;
#else
  return false;
#endif
}

void encode_halves(const float* values, std::size_t count, std::uint16_t* halves) {
#if PRISM_HALVES_F16C
  if (halves_in_hardware()) {
    encode_halves_f16c(values, count, halves);
    return;
  }
#endif
  for (std::size_t i = 0; i < count; ++i) halves[i] = half_bits(values[i]);
}

void encode_levels(const float* values, std::size_t count, double zero_db, double step, std::uint8_t* levels) {
  const double inverse_step = 1.0 / step;
  for (std::size_t i = 0; i < count; ++i) {
    double level = (static_cast<double>(values[i]) - zero_db) * inverse_step;
    // Clamped first, so that the truncation below stays in range; NaN fails both tests and is
    // replaced by 0 (the comparisons keep the loop free of branches the compiler cannot
    // vectorise).
    level = level > 0.0 ? level : 0.0;
    level = level < 255.0 ? level : 255.0;
    // Rounding half away from zero (std::lround) of a level in 0..255: the truncation plus one
    // where the fraction, exact as a difference of the two, is at least a half.
    const int whole = static_cast<int>(level);
    levels[i] = static_cast<std::uint8_t>(whole + (level - whole >= 0.5 ? 1 : 0));
  }
}

}  // namespace prism
