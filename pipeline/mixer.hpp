// Mixer: the frequency shift of a stream, y[n] = x[n]·exp(−j2π·f·n/fs), with n the absolute
// index of the item, for real or complex input in float or double (the output is always
// complex). A component at frequency f moves to 0 Hz; one at g moves to g − f.
//
// Phase. The phase at item n is frac(n·f/fs) cycles, computed exactly in integer arithmetic
// (ExactPhase, exact_phase.hpp) for every n < 2^64, so the shift is as accurate after 2^36 or
// 2^60 items as at the start (a phase accumulated in double drifts by about n·2^−53 cycles:
// 8e-6 rad after 2^36 items, more than a float's resolution). The phasor of item n is
//   p(n) = a(n − n mod 1024) · t(n mod 1024),
//   a(m) = exp(−j2π·frac(m·f/fs)) (one exact phase and a double-precision cos/sin per 1024
//   items), t(r) = exp(−j2π·frac(r·f/fs)) (a table made once),
// a product in double precision (error ~1e-16), and y[n] = x[n]·p(n) is computed in double and
// rounded to float once (the double overloads keep it in double). p(n) depends on n alone, so the output is bit-identical however the
// input is cut, and phase continuous across calls.
//
// Streaming object: one output per input item, no delay; flush() has nothing to return.
// Not thread-safe: one caller at a time (counters() excepted). process() never allocates.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "channel_math.hpp"
#include "exact_phase.hpp"
#include "stream_counters.hpp"

namespace prism {

struct MixerSpec {
  double frequency_hz = 0.0;      // f: finite, within ±sample_rate/2
  double sample_rate = 0.0;       // fs: Hz, > 0, finite
  bool complex_input = true;      // items are (re, im) float pairs; else real floats
  std::uint64_t first_index = 0;  // n of the first item (the phase origin is n = 0)
};

class Mixer {
 public:
  // Validates the spec (UsageError naming "frequency_hz" or "sample_rate") and makes the table.
  explicit Mixer(const MixerSpec& spec);
  Mixer(const Mixer&) = delete;
  Mixer& operator=(const Mixer&) = delete;

  bool complex_input() const { return complex_input_; }
  double frequency() const { return frequency_; }
  double sample_rate() const { return sample_rate_; }
  // The absolute index of the next item.
  std::uint64_t next_index() const { return next_index_; }

  // n: one complex output (two values) per input item.
  std::size_t max_output(std::size_t n) const { return n; }
  // Shifts n items (n or 2n values) into `out` (2n values) and returns n. Any n, 0 included.
  // With complex input, `out` may be `in`.
  std::size_t process(const float* in, std::size_t n, float* out);
  std::size_t process(const double* in, std::size_t n, double* out);
  // Nothing is owed at the end: returns 0.
  std::size_t flush(float* out, std::size_t capacity);
  std::size_t flush(double* out, std::size_t capacity);
  // Back to the state after construction (the next item is first_index again).
  void reset();

  StreamCounters counters() const;

  // What the GPU's form computes with (gpu_channel_plan.hpp): the exact phase, whose phasor at
  // each block start is a(m), and t(r) as (re, im) pairs, r < channel::kPhasorBlockItems.
  const ExactPhase& phase() const { return phase_; }
  const std::vector<double>& phasor_table() const { return table_; }

 private:
  static constexpr std::size_t kTableLength = channel::kPhasorBlockItems;
  void set_anchor(std::uint64_t block_start);
  template <typename Real>
  std::size_t shift(const Real* in, std::size_t n, Real* out);

  double frequency_ = 0.0;
  double sample_rate_ = 0.0;
  bool complex_input_ = true;
  std::uint64_t first_index_ = 0;
  ExactPhase phase_;
  std::vector<double> table_;  // t(r) as (re, im) pairs, r < kTableLength
  double anchor_re_ = 1.0;     // a(block start of next_index_)
  double anchor_im_ = 0.0;
  std::uint64_t next_index_ = 0;
  std::atomic<std::uint64_t> items_in_{0};
};

}  // namespace prism
