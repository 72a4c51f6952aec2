// The smaller encodings of float32 rows that NpySink writes (--output-dtype): IEEE binary16 and
// dB levels quantised to uint8. Whole rows at a time, since a sink converts every value it
// writes: on x86-64 processors with F16C the halves come from its conversion instruction, eight
// at a time, and otherwise from a portable routine that gives the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prism {

// IEEE 754 binary16 bits of a float, rounded to nearest, ties to even (as numpy's astype):
// subnormals kept, overflow to infinity, NaN stays NaN (quieted, the top of its payload kept).
std::uint16_t half_bits(float value);
// half_bits of each of `count` values.
void encode_halves(const float* values, std::size_t count, std::uint16_t* halves);
// Whether encode_halves uses the processor's conversion instruction on this machine.
bool halves_in_hardware();

// dB values as uint8 levels: level = (value - zero_db) / step rounded half away from zero,
// clamped to 0..255; NaN gives 0, the floor of the range.
void encode_levels(const float* values, std::size_t count, double zero_db, double step, std::uint8_t* levels);
// Whether encode_levels takes eight values at a time (AVX2) on this machine.
bool levels_in_avx2();

}  // namespace prism
