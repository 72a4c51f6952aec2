// Test support for the streaming objects of pipeline/ (Resampler, Demodulator, Gain, Mixer):
// running an object over an input cut into chunks of a given size, with the checks every
// such object must pass on every call (outputs within max_output(n), counters that balance),
// and a runner for Debian's python3 with scipy for the reference scripts in data/.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace prism::test {

// Runs `object` over `input` (items of in_width floats) in chunks of `chunk` items, then
// flushes with room for `flush_capacity` outputs per call until it returns 0. Outputs are
// out_width floats. Checks that each process() call stays within max_output(n) and that the
// counters add up.
template <typename Object, typename Real>
std::vector<Real> run_in_chunks(Object& object, const std::vector<Real>& input,
                                std::size_t in_width, std::size_t out_width, std::size_t chunk,
                                std::size_t flush_capacity = 4096) {
  const std::size_t items = input.size() / in_width;
  std::vector<Real> output;
  std::vector<Real> buffer;
  for (std::size_t start = 0; start < items || (items == 0 && start == 0); start += chunk) {
    const std::size_t n = std::min(chunk, items - start);
    buffer.assign(object.max_output(n) * out_width + 1, std::numeric_limits<Real>::quiet_NaN());
    const std::size_t got = object.process(input.data() + start * in_width, n, buffer.data());
    EXPECT_LE(got, object.max_output(n)) << "chunk at " << start;
    output.insert(output.end(), buffer.begin(), buffer.begin() + got * out_width);
    if (items == 0) break;
  }
  buffer.assign(flush_capacity * out_width, Real(0));
  for (;;) {
    const std::size_t got = object.flush(buffer.data(), flush_capacity);
    EXPECT_LE(got, flush_capacity);
    if (got == 0) break;
    output.insert(output.end(), buffer.begin(), buffer.begin() + got * out_width);
  }
  const auto counters = object.counters();
  EXPECT_EQ(counters.items_in, items);
  EXPECT_EQ(counters.items_out, output.size() / out_width);
  return output;
}

// Bitwise equality, so that NaN and −0 count too.
template <typename Real>
bool same_bits(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0);
}

// ‖a − b‖ / ‖b‖ over equal-length arrays.
template <typename Real>
double relative_l2(const std::vector<Real>& a, const std::vector<double>& b) {
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    error += d * d;
    norm += b[i] * b[i];
  }
  return std::sqrt(error / norm);
}

// The chunk sizes the exactness tests use, "larger than the input" included.
inline std::vector<std::size_t> exactness_chunks(std::size_t input_items) {
  return {1, 2, 3, 7, 64, 1000, input_items + 17};
}

// Debian's python3 when it has scipy, else empty (the caller skips).
inline std::string scipy_python() {
  const std::string python = PRISM_TEST_PYTHON;
  if (python.empty() ||
      std::system((python + " -c 'import scipy.signal' 2>/dev/null").c_str()) != 0)
    return {};
  return python;
}

inline std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace prism::test
