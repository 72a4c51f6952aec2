// Random samples for the GPU stages' tests: uniform in [-0.5, 0.5) plus an offset, written in any
// native format prism's GPU stages read (integers at a large part of their full scale).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "pipeline/format.hpp"

namespace prism::test {

inline std::vector<std::byte> random_samples(SampleFormat format, unsigned channels, std::size_t samples,
                                             std::uint32_t seed, float offset = 0.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  const std::size_t components = samples * channels * components_per_sample(format);
  std::vector<std::byte> bytes(components * component_bytes(format));
  for (std::size_t i = 0; i < components; ++i) {
    const float v = uniform(rng) + offset;
    switch (format) {
      case SampleFormat::f32:
      case SampleFormat::cf32: std::memcpy(&bytes[i * 4], &v, 4); break;
      case SampleFormat::i16:
      case SampleFormat::ci16: {
        const auto x = static_cast<std::int16_t>(std::lround(v * 30000.0f));
        std::memcpy(&bytes[i * 2], &x, 2);
        break;
      }
      case SampleFormat::i8:
      case SampleFormat::ci8: bytes[i] = static_cast<std::byte>(static_cast<std::int8_t>(std::lround(v * 120.0f))); break;
      case SampleFormat::u8:
      case SampleFormat::cu8:
        bytes[i] = static_cast<std::byte>(static_cast<std::uint8_t>(std::lround(128.0f + v * 120.0f)));
        break;
      case SampleFormat::f64:
      case SampleFormat::cf64: {
        const double d = v;
        std::memcpy(&bytes[i * 8], &d, 8);
        break;
      }
      case SampleFormat::i32:
      case SampleFormat::ci32: {
        const auto x = static_cast<std::int32_t>(std::llround(static_cast<double>(v) * 2e9));
        std::memcpy(&bytes[i * 4], &x, 4);
        break;
      }
      case SampleFormat::u16:
      case SampleFormat::cu16: {
        const auto x = static_cast<std::uint16_t>(std::lround(32768.0f + v * 30000.0f));
        std::memcpy(&bytes[i * 2], &x, 2);
        break;
      }
      case SampleFormat::u32:
      case SampleFormat::cu32: {
        const auto x = static_cast<std::uint32_t>(std::llround(2147483648.0 + static_cast<double>(v) * 2e9));
        std::memcpy(&bytes[i * 4], &x, 4);
        break;
      }
      default: ADD_FAILURE() << "no random samples in " << format_name(format);
    }
  }
  return bytes;
}

}  // namespace prism::test
