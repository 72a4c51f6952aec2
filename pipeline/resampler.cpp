// Resampler (resampler.hpp): the ratio of two rates, resample_poly's default filter, and the
// streaming polyphase resampler (in float and in double).
#include "pipeline/resampler.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/exact_phase.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/fixed_order_dot.hpp"

namespace prism {
namespace {

using u128 = unsigned __int128;

// The terms reduced by their gcd, each checked against kMaxResampleTerm.
ResampleRatio reduced_terms(std::uint64_t up, std::uint64_t down) {
  if (up == 0) throw UsageError("up=0 is out of range: up and down are 1 or more");
  if (down == 0) throw UsageError("down=0 is out of range: up and down are 1 or more");
  const std::uint64_t g = std::gcd(up, down);
  const ResampleRatio r{up / g, down / g};
  const auto check = [&](const char* name, std::uint64_t given, std::uint64_t reduced) {
    if (reduced > kMaxResampleTerm)
      throw UsageError(std::string(name) + "=" + std::to_string(given) +
                       " is out of range: " + std::to_string(up) + "/" + std::to_string(down) +
                       " reduces to " + std::to_string(r.up) + "/" + std::to_string(r.down) +
                       ", and up and down may be at most " + std::to_string(kMaxResampleTerm));
  };
  check("up", up, r.up);
  check("down", down, r.down);
  return r;
}

std::uint64_t ceil_ratio(std::uint64_t n, std::uint64_t up, std::uint64_t down) {
  const u128 product = static_cast<u128>(n) * up;
  const u128 q = (product + down - 1) / down;
  return q > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                       : static_cast<std::uint64_t>(q);
}

}  // namespace

ResampleRatio resample_ratio(double input_rate, double output_rate, std::uint64_t max_term) {
  if (!std::isfinite(input_rate) || !(input_rate > 0))
    throw UsageError("input_rate=" + number_text(input_rate) +
                     " is out of range: a rate is a positive finite number of Hz");
  if (!std::isfinite(output_rate) || !(output_rate > 0))
    throw UsageError("output_rate=" + number_text(output_rate) +
                     " is out of range: a rate is a positive finite number of Hz");
  std::uint64_t a = 0, b = 0;
  int ea = 0, eb = 0;
  odd_mantissa(output_rate, a, ea);
  odd_mantissa(input_rate, b, eb);
  const std::uint64_t g = std::gcd(a, b);
  a /= g;
  b /= g;
  // output/input = (a/b)·2^e exactly, a and b odd and coprime: the power of two goes to one
  // side, and the fraction is in lowest terms.
  const int e = ea - eb;
  std::uint64_t& shifted = e >= 0 ? a : b;
  const int shift = e >= 0 ? e : -e;
  const bool fits = std::bit_width(shifted) + shift <= 64;
  if (fits) shifted <<= shift;
  if (!fits || a > max_term || b > max_term) {
    const std::string fraction = fits ? std::to_string(a) + "/" + std::to_string(b)
                                      : std::string("a fraction whose terms do not fit in 64 bits");
    throw UsageError("output_rate=" + number_text(output_rate) + " is out of range: from " +
                     number_text(input_rate) + " Hz the ratio is " + fraction +
                     ", and up and down may be at most " + std::to_string(max_term) +
                     " (choose rates whose ratio is a fraction of smaller integers)");
  }
  return {a, b};
}

std::vector<double> design_resampler_taps(std::uint64_t up, std::uint64_t down) {
  const ResampleRatio r = reduced_terms(up, down);
  if (r.up == r.down) return {1.0};
  const std::uint64_t max_rate = std::max(r.up, r.down);
  const std::size_t half = 10 * max_rate;
  FirwinOptions options;
  options.window = WindowSpec{WindowKind::kaiser, 5.0};
  std::vector<double> taps = firwin(2 * half + 1, {1.0 / static_cast<double>(max_rate)}, options);
  for (double& t : taps) t *= static_cast<double>(r.up);
  return taps;
}

template <typename Real>
BasicResampler<Real>::BasicResampler(const ResamplerSpec& spec) {
  const ResampleRatio r = reduced_terms(spec.up, spec.down);
  up_ = r.up;
  down_ = r.down;
  width_ = spec.complex_input ? 2 : 1;
  if (!spec.taps.empty()) {
    if (spec.taps.size() > kMaxResamplerTaps)
      throw UsageError("taps: " + std::to_string(spec.taps.size()) + " taps are more than the " +
                       std::to_string(kMaxResamplerTaps) + " a resampler takes");
    for (std::size_t i = 0; i < spec.taps.size(); ++i)
      if (!std::isfinite(spec.taps[i]))
        throw UsageError("taps: tap " + std::to_string(i) + " is not a finite number");
  }
  if (up_ == down_) {
    taps_ = {1.0};  // the identity: the input is returned unchanged
  } else if (spec.taps.empty()) {
    taps_ = design_resampler_taps(up_, down_);
  } else {
    taps_ = spec.taps;
    for (double& t : taps_) t *= static_cast<double>(up_);
  }
  half_ = (taps_.size() - 1) / 2;
  phase_length_ = (taps_.size() + up_ - 1) / up_;

  const std::size_t q = phase_length_;
  banks_.assign(up_ * q * width_, Real(0));
  for (std::size_t p = 0; p < up_; ++p)
    for (std::size_t r_index = 0; r_index < q; ++r_index) {
      const std::size_t j = p + (q - 1 - r_index) * up_;
      const Real value = j < taps_.size() ? static_cast<Real>(taps_[j]) : Real(0);
      for (std::size_t c = 0; c < width_; ++c) banks_[(p * q + r_index) * width_ + c] = value;
    }
  const std::size_t block_items = std::max<std::size_t>(4096, 4 * q);
  history_ = BasicHistoryBuffer<Real>((q - 1) * width_, block_items * width_);
  reset();
}

template <typename Real>
void BasicResampler<Real>::reset() {
  history_.reset();
  received_ = 0;
  next_input_ = half_ / up_;
  next_phase_ = half_ % up_;
  flushing_ = false;
  total_out_ = 0;
  items_in_.store(0, std::memory_order_relaxed);
  items_out_.store(0, std::memory_order_relaxed);
}

template <typename Real>
std::size_t BasicResampler<Real>::max_output(std::size_t n) const {
  const std::uint64_t m = ceil_ratio(n, up_, down_);
  return m > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max()
                                                     : static_cast<std::size_t>(m);
}

template <typename Real>
StreamCounters BasicResampler<Real>::counters() const {
  return {items_in_.load(std::memory_order_relaxed), items_out_.load(std::memory_order_relaxed)};
}

template <typename Real>
void BasicResampler<Real>::compute_output(Real* out) {
  const std::size_t q = phase_length_;
  // The window x[next_input − q + 1 .. next_input] ends (received − next_input − 1) items
  // before the newest.
  const Real* window_end =
      history_.end() - static_cast<std::size_t>(received_ - next_input_ - 1) * width_;
  const Real* window = window_end - q * width_;
  const Real* bank = banks_.data() + next_phase_ * q * width_;
  if (width_ == 1) {
    out[0] = fixed_order_dot(bank, window, q);
  } else {
    const PairSums<Real> s = fixed_order_pair_dot(bank, window, 2 * q);
    out[0] = s.even;
    out[1] = s.odd;
  }
  next_phase_ += down_;
  next_input_ += next_phase_ / up_;
  next_phase_ %= up_;
}

// Appends n items and writes every output that becomes ready.
template <typename Real>
void BasicResampler<Real>::consume(const Real* in, std::size_t n, Real*& out) {
  while (n > 0) {
    if (history_.room() < width_) history_.compact();
    const std::size_t take = std::min(n, history_.room() / width_);
    history_.append(in, take * width_);
    in += take * width_;
    received_ += take;
    n -= take;
    while (output_ready()) {
      compute_output(out);
      out += width_;
    }
  }
}

template <typename Real>
std::size_t BasicResampler<Real>::process(const Real* in, std::size_t n, Real* out) {
  if (flushing_) throw std::logic_error("Resampler: process() after flush(); reset() first");
  if (n == 0) return 0;
  items_in_.fetch_add(n, std::memory_order_relaxed);
  if (up_ == down_) {
    std::memcpy(out, in, n * width_ * sizeof(Real));
    items_out_.fetch_add(n, std::memory_order_relaxed);
    return n;
  }
  Real* cursor = out;
  consume(in, n, cursor);
  const std::size_t written = static_cast<std::size_t>(cursor - out) / width_;
  items_out_.fetch_add(written, std::memory_order_relaxed);
  return written;
}

template <typename Real>
std::size_t BasicResampler<Real>::flush(Real* out, std::size_t capacity) {
  if (!flushing_) {
    flushing_ = true;
    total_out_ = up_ == down_ ? items_in_.load(std::memory_order_relaxed)
                              : ceil_ratio(items_in_.load(std::memory_order_relaxed), up_, down_);
  }
  std::size_t written = 0;
  std::uint64_t emitted = items_out_.load(std::memory_order_relaxed);
  while (emitted < total_out_ && written < capacity) {
    if (output_ready()) {
      compute_output(out + written * width_);
      ++written;
      ++emitted;
      continue;
    }
    // The outputs still owed read the zeros after the input: append as many as the next
    // one needs (as much as fits).
    if (history_.room() < width_) history_.compact();
    const std::uint64_t needed = next_input_ - received_ + 1;
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(needed, history_.room() / width_));
    history_.append(nullptr, take * width_);
    received_ += take;
  }
  items_out_.store(emitted, std::memory_order_relaxed);
  return written;
}

template class BasicResampler<float>;
template class BasicResampler<double>;

}  // namespace prism
