// Mixer (mixer.hpp): the phase-continuous frequency shift.
#include "pipeline/mixer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "pipeline/channel_math.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"

namespace prism {
namespace {

const MixerSpec& validated(const MixerSpec& spec) {
  if (!std::isfinite(spec.sample_rate) || !(spec.sample_rate > 0))
    throw UsageError("sample_rate=" + number_text(spec.sample_rate) +
                     " is out of range: a rate is a positive finite number of Hz");
  if (!std::isfinite(spec.frequency_hz) || std::fabs(spec.frequency_hz) > spec.sample_rate / 2)
    throw UsageError("frequency_hz=" + number_text(spec.frequency_hz) +
                     " is out of range: a shift is a finite number of Hz within ±sample_rate/2 "
                     "(±" +
                     number_text(spec.sample_rate / 2) + ")");
  return spec;
}

}  // namespace

Mixer::Mixer(const MixerSpec& spec)
    : frequency_(validated(spec).frequency_hz),
      sample_rate_(spec.sample_rate),
      complex_input_(spec.complex_input),
      first_index_(spec.first_index),
      phase_(spec.frequency_hz, spec.sample_rate),
      table_(2 * kTableLength) {
  for (std::size_t r = 0; r < kTableLength; ++r) {
    const std::complex<double> t = phase_.phasor(r, -1);
    table_[2 * r] = t.real();
    table_[2 * r + 1] = t.imag();
  }
  reset();
}

void Mixer::set_anchor(std::uint64_t block_start) {
  const std::complex<double> a = phase_.phasor(block_start, -1);
  anchor_re_ = a.real();
  anchor_im_ = a.imag();
}

void Mixer::reset() {
  next_index_ = first_index_;
  set_anchor(next_index_ - next_index_ % kTableLength);
  items_in_.store(0, std::memory_order_relaxed);
}

template <typename Real>
std::size_t Mixer::shift(const Real* in, std::size_t n, Real* out) {
  std::size_t done = 0;
  while (done < n) {
    const std::size_t r0 = static_cast<std::size_t>(next_index_ % kTableLength);
    if (r0 == 0) set_anchor(next_index_);
    const std::size_t take = std::min(n - done, kTableLength - r0);
    const double ar = anchor_re_, ai = anchor_im_;
    const double* t = table_.data() + 2 * r0;
    Real* y = out + 2 * done;
    for (std::size_t i = 0; i < take; ++i) {
      const channel::Phasor p = channel::phasor_product(ar, ai, t[2 * i], t[2 * i + 1]);
      const channel::Phasor v = complex_input_ ? channel::mix_complex(in[2 * (done + i)], in[2 * (done + i) + 1], p)
                                               : channel::mix_real(in[done + i], p);
      y[2 * i] = static_cast<Real>(v.re);
      y[2 * i + 1] = static_cast<Real>(v.im);
    }
    done += take;
    next_index_ += take;
  }
  items_in_.fetch_add(n, std::memory_order_relaxed);
  return n;
}

std::size_t Mixer::process(const float* in, std::size_t n, float* out) { return shift(in, n, out); }
std::size_t Mixer::process(const double* in, std::size_t n, double* out) { return shift(in, n, out); }

std::size_t Mixer::flush(float*, std::size_t) { return 0; }
std::size_t Mixer::flush(double*, std::size_t) { return 0; }

StreamCounters Mixer::counters() const {
  const std::uint64_t n = items_in_.load(std::memory_order_relaxed);
  return {n, n};
}

}  // namespace prism
