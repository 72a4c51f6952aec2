// float32 rows as float16 or uint8 levels (see row_encoding.hpp).
#include "sinks/row_encoding.hpp"

#include <bit>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PRISM_X86_64 1
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

#if PRISM_X86_64
// VCVTPS2PH rounding to nearest even gives half_bits' results: subnormal halves (it ignores
// MXCSR's flush-to-zero, which a loaded library may have set), overflow to infinity, NaN quieted
// with the top of its payload.
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
#if PRISM_X86_64
  // CPUID leaf 1 rather than __builtin_cpu_supports("f16c"), which clang 14 does not know.
  static const bool supported = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  }();
  return supported;
#else
  return false;
#endif
}

void encode_halves(const float* values, std::size_t count, std::uint16_t* halves) {
#if PRISM_X86_64
  if (halves_in_hardware()) {
    encode_halves_f16c(values, count, halves);
    return;
  }
#endif
  for (std::size_t i = 0; i < count; ++i) halves[i] = half_bits(values[i]);
}

namespace {

// One level by the rule of encode_levels: clamped first (NaN fails both tests and becomes 0), so
// that the truncation stays in range; then rounded half away from zero, as std::lround, by the
// truncation plus one where the fraction (exact as the difference of the two) is at least a half.
std::uint8_t level_of(float value, double zero_db, double inverse_step) {
  double level = (static_cast<double>(value) - zero_db) * inverse_step;
  level = level > 0.0 ? level : 0.0;
  level = level < 255.0 ? level : 255.0;
  const int whole = static_cast<int>(level);
  return static_cast<std::uint8_t>(whole + (level - whole >= 0.5 ? 1 : 0));
}

#if PRISM_X86_64
// level_of four values in AVX2, as four ints: the same double operations lane by lane as the
// SSE2 loop of encode_levels, so the same levels. (A lambda would not inherit the target.)
__attribute__((target("avx2"))) inline __m128i four_levels_avx2(__m128 four_floats, __m256d offset, __m256d scale) {
  __m256d level = _mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(four_floats), offset), scale);
  level = _mm256_min_pd(_mm256_max_pd(level, _mm256_setzero_pd()), _mm256_set1_pd(255.0));  // NaN gives 0
  const __m256d whole = _mm256_round_pd(level, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256d up = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(level, whole), _mm256_set1_pd(0.5), _CMP_GE_OQ),
                                   _mm256_set1_pd(1.0));
  return _mm256_cvttpd_epi32(_mm256_add_pd(whole, up));
}

// Eight levels at a time where the processor has AVX2 (the sink thread converts every value it
// writes); returns how many values it encoded.
__attribute__((target("avx2"))) std::size_t encode_levels_avx2(const float* values, std::size_t count,
                                                               double zero_db, double inverse_step,
                                                               std::uint8_t* levels) {
  const __m256d offset = _mm256_set1_pd(zero_db), scale = _mm256_set1_pd(inverse_step);
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i low = four_levels_avx2(_mm_loadu_ps(values + i), offset, scale);
    const __m128i high = four_levels_avx2(_mm_loadu_ps(values + i + 4), offset, scale);
    const __m128i words = _mm_packs_epi32(low, high);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(levels + i), _mm_packus_epi16(words, words));
  }
  return i;
}

#endif

}  // namespace

bool levels_in_avx2() {
#if PRISM_X86_64
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported;
#else
  return false;
#endif
}

void encode_levels(const float* values, std::size_t count, double zero_db, double step, std::uint8_t* levels) {
  const double inverse_step = 1.0 / step;
  std::size_t i = 0;
#if PRISM_X86_64
  if (levels_in_avx2()) i = encode_levels_avx2(values, count, zero_db, inverse_step, levels);
  // level_of four values at a time in SSE2, which every x86-64 processor has (GCC does not
  // vectorise the scalar form): all values, or the AVX2 loop's tail. The same double operations
  // lane by lane, so the same levels. maxpd returns its second operand where the first is NaN: 0.
  const __m128d zero = _mm_setzero_pd(), top = _mm_set1_pd(255.0), half = _mm_set1_pd(0.5), one = _mm_set1_pd(1.0);
  const __m128d offset = _mm_set1_pd(zero_db), scale = _mm_set1_pd(inverse_step);
  auto pair = [&](__m128 two_floats) {
    __m128d level = _mm_mul_pd(_mm_sub_pd(_mm_cvtps_pd(two_floats), offset), scale);
    level = _mm_min_pd(_mm_max_pd(level, zero), top);
    const __m128d whole = _mm_cvtepi32_pd(_mm_cvttpd_epi32(level));
    const __m128d up = _mm_and_pd(_mm_cmpge_pd(_mm_sub_pd(level, whole), half), one);
    return _mm_cvttpd_epi32(_mm_add_pd(whole, up));  // two ints in the low lanes
  };
  for (; i + 4 <= count; i += 4) {
    const __m128 four = _mm_loadu_ps(values + i);
    const __m128i ints = _mm_unpacklo_epi64(pair(four), pair(_mm_movehl_ps(four, four)));
    const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(ints, ints), _mm_setzero_si128());
    const int packed = _mm_cvtsi128_si32(bytes);
    std::memcpy(levels + i, &packed, 4);
  }
#endif
  for (; i < count; ++i) levels[i] = level_of(values[i], zero_db, inverse_step);
}

}  // namespace prism
