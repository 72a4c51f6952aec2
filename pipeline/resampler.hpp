// Resampler: rational resampling by up/down with a polyphase FIR filter, as a stream whose
// output is scipy.signal.resample_poly(x, up, down) of the whole input (scipy 1.10, default
// padtype 'constant'), for real or complex float samples (Resampler) or double samples
// (Resampler64, summed in double). Also: the up/down for a pair of sample rates
// (resample_ratio) and resample_poly's default filter (design_resampler_taps).
//
// What it computes. up and down are first divided by their gcd. For input x[0..N), the
// filter h[0..L) and half = (L − 1)//2:
//   xu[i] = x[i/up] when up divides i, else 0       (x = 0 outside [0, N): zero padding)
//   y[k]  = Σ_{j<L} h[j]·xu[k·down + half − j],      k = 0 .. ceil(N·up/down) − 1.
// y[0] is at the time of x[0] (resample_poly removes the filter's delay of `half` upsampled
// samples, and so does this), the output spacing is down/up input samples, and the first and
// last outputs see the zeros around the input as scipy's do.
//   The default filter is resample_poly's: with m = max(up, down), half = 10·m and
//     h = up · firwin(2·half + 1, 1/m, window=('kaiser', 5.0))
//   (design_resampler_taps), a low-pass at the lower of the two Nyquist frequencies with unit
//   gain at DC after the zeros inserted by the upsampling. Custom taps are, as scipy's
//   `window` array, multiplied by up and centred on (L − 1)//2; they run at the upsampled rate.
//   When up = down after the reduction, the output is the input, unchanged (scipy returns a
//   copy and applies no filter, custom taps included).
//
// Polyphase: output k needs only the taps h[p + m·up] (p = (k·down + half) mod up, m = 0, 1,
// …) against x[i − m] (i = (k·down + half) div up), so each output is one sum of
// ceil(L/up) products, in float, in a fixed order (fixed_order_dot.hpp); complex samples use
// the same real taps on both parts.
//
// Streaming. process() returns output k as soon as input item (k·down + half) div up has
// arrived; flush() returns the rest (those that reach into the zeros after the input) up to
// ceil(N·up/down) in all. Every output is the same sum over the same values whatever the
// cutting of the input into calls, so the output is bit-identical to one call over the whole
// input. The taps are cast to float once (from double); accumulation is in float, which keeps
// the relative L2 error against scipy in double precision near 1e-6 (Resampler64: taps and sums
// in double, near 1e-15).
//
// Not thread-safe: one caller at a time (counters() excepted). process() and flush() never
// allocate.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "history_buffer.hpp"
#include "stream_counters.hpp"

namespace prism {

// The largest up or down (after reduction by their gcd). The default filter has
// 20·max(up, down) + 1 taps, so this bounds it to about 1.3 million taps (5 MB in float).
inline constexpr std::uint64_t kMaxResampleTerm = 65536;
// The longest custom filter.
inline constexpr std::size_t kMaxResamplerTaps = std::size_t{1} << 22;

struct ResampleRatio {
  std::uint64_t up = 1;
  std::uint64_t down = 1;
};

// output_rate / input_rate as a fraction up/down in lowest terms, computed from the rates' exact
// values (48000 / 2.4e6 gives 1/50; 44100 / 48000 gives 147/160). Throws UsageError naming
// "input_rate" or "output_rate" when a rate is not a positive finite number, and naming
// "output_rate" when up or down would exceed max_term (the message gives the reduced fraction).
ResampleRatio resample_ratio(double input_rate, double output_rate,
                             std::uint64_t max_term = kMaxResampleTerm);

// resample_poly's default filter for up/down (reduced first), already multiplied by up:
// up · firwin(20·m + 1, 1/m, window=('kaiser', 5.0)), m = max(up, down); [1] when up = down.
// Throws UsageError ("up", "down") when a term is 0 or above kMaxResampleTerm after reduction.
std::vector<double> design_resampler_taps(std::uint64_t up, std::uint64_t down);

struct ResamplerSpec {
  std::uint64_t up = 1;        // >= 1; after division by gcd(up, down), <= kMaxResampleTerm
  std::uint64_t down = 1;      // same
  bool complex_input = false;  // items are (re, im) pairs; output the same
  std::vector<double> taps;    // empty: the default filter; else 1 .. kMaxResamplerTaps
                               // finite taps at the upsampled rate (multiplied by up here)
};

template <typename Real>
class BasicResampler {
 public:
  // Validates the spec (UsageError naming "up", "down" or "taps"), designs or scales the taps
  // and lays out the polyphase banks. All memory is allocated here.
  explicit BasicResampler(const ResamplerSpec& spec);
  BasicResampler(const BasicResampler&) = delete;
  BasicResampler& operator=(const BasicResampler&) = delete;

  std::uint64_t up() const { return up_; }      // reduced
  std::uint64_t down() const { return down_; }  // reduced
  bool complex_input() const { return width_ == 2; }
  // h as applied (custom taps times up), and half = (L − 1)//2, the delay removed, in samples
  // at the upsampled rate.
  const std::vector<double>& taps() const { return taps_; }
  std::size_t half_length() const { return half_; }
  // Products per output: ceil(L/up).
  std::size_t taps_per_phase() const { return phase_length_; }

  // The most outputs one process() call of n items can return, whatever the state:
  // ceil(n·up/down) (n when up = down).
  std::size_t max_output(std::size_t n) const;
  // Resamples n items (n or 2n values); writes the outputs that are complete to `out` (room for
  // max_output(n)) and returns their number. Any n, 0 included. Throws std::logic_error after
  // flush() until reset().
  std::size_t process(const Real* in, std::size_t n, Real* out);
  // At the end of the input: writes up to `capacity` of the outputs still owed and returns
  // their number; call until it returns 0. The total is ceil(N·up/down) for N items in.
  std::size_t flush(Real* out, std::size_t capacity);
  // Back to the state after construction (no input seen).
  void reset();

  // Safe to call from another thread while process() runs.
  StreamCounters counters() const;

 private:
  bool output_ready() const { return next_input_ < received_; }
  void compute_output(Real* out);
  void consume(const Real* in, std::size_t n, Real*& out);

  std::uint64_t up_ = 1;
  std::uint64_t down_ = 1;
  std::size_t width_ = 1;  // values per item
  std::vector<double> taps_;
  std::size_t half_ = 0;
  std::size_t phase_length_ = 1;
  // Phase p's taps h[p + m·up], m = phase_length − 1 .. 0 (reversed: the sum runs forward
  // over the history), each written width_ times.
  std::vector<Real> banks_;
  BasicHistoryBuffer<Real> history_;

  std::uint64_t received_ = 0;    // items in the history buffer's stream (input, then flush zeros)
  std::uint64_t next_input_ = 0;  // (k·down + half) div up for the next output k
  std::uint64_t next_phase_ = 0;  // (k·down + half) mod up
  bool flushing_ = false;
  std::uint64_t total_out_ = 0;  // ceil(N·up/down), set by the first flush()
  std::atomic<std::uint64_t> items_in_{0};
  std::atomic<std::uint64_t> items_out_{0};
};

extern template class BasicResampler<float>;
extern template class BasicResampler<double>;
using Resampler = BasicResampler<float>;
using Resampler64 = BasicResampler<double>;

}  // namespace prism
