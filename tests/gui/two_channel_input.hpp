// The input of the channel tests: complex baseband at 96 kHz, centre 100 MHz, carrying AM at
// +15 kHz (a 1 kHz tone, modulation index 0.5) and narrow FM at -20 kHz (a 600 Hz tone, 3 kHz
// deviation), as tests/audio/test_view_listen_jack.py's recording does.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

#include "pipeline/stream_info.hpp"

namespace prism::view::test {

inline constexpr double kInputRate = 96000;

inline StreamInfo two_channel_info() {
  StreamInfo info;
  info.format = SampleFormat::cf32;
  info.sample_rate = kInputRate;
  info.center_frequency = 100e6;
  return info;
}

// Samples first .. first + n - 1, as (re, im) pairs of cf32.
inline std::vector<float> two_channel_samples(std::size_t first, std::size_t n) {
  std::vector<float> x(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(first + i) / kInputRate;
    const std::complex<double> am = 0.3 * (1 + 0.5 * std::cos(2 * M_PI * 1000 * t)) *
                                    std::exp(std::complex<double>(0, 2 * M_PI * 15e3 * t));
    const std::complex<double> fm =
        0.3 * std::exp(std::complex<double>(0, 2 * M_PI * -20e3 * t + 3000.0 / 600 * std::sin(2 * M_PI * 600 * t)));
    x[2 * i] = static_cast<float>((am + fm).real());
    x[2 * i + 1] = static_cast<float>((am + fm).imag());
  }
  return x;
}

}  // namespace prism::view::test
