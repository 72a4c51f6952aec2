// HistoryBuffer: the newest values (floats, or doubles in BasicHistoryBuffer<double>) of a stream
// in one contiguous run, the `history` values before the ones appended since the last compaction,
// so that an FIR sum over a sliding window reads plain memory. Sized once (history + block
// values); appending and compacting never allocate. Before the first value the history is zeros
// (the zero padding before a signal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace prism {

template <typename Real>
class BasicHistoryBuffer {
 public:
  BasicHistoryBuffer() = default;
  BasicHistoryBuffer(std::size_t history, std::size_t block)
      : data_(history + block, Real(0)), history_(history) {
    reset();
  }

  // Zeros as history, nothing appended.
  void reset() {
    std::fill(data_.begin(), data_.end(), Real(0));
    end_ = history_;
  }

  // Values that can be appended before compact() is needed.
  std::size_t room() const { return data_.size() - end_; }

  // Appends n <= room() values (copied from `values`, or zeros when it is null).
  void append(const Real* values, std::size_t n) {
    if (values != nullptr)
      std::memcpy(data_.data() + end_, values, n * sizeof(Real));
    else
      std::fill_n(data_.data() + end_, n, Real(0));
    end_ += n;
  }

  // Keeps only the newest `history` values, at the front.
  void compact() {
    std::memmove(data_.data(), data_.data() + end_ - history_, history_ * sizeof(Real));
    end_ = history_;
  }

  // One past the newest value; the `history` + (appended since compact) values before it are
  // valid.
  const Real* end() const { return data_.data() + end_; }

 private:
  std::vector<Real> data_;
  std::size_t history_ = 0;
  std::size_t end_ = 0;
};

using HistoryBuffer = BasicHistoryBuffer<float>;

}  // namespace prism
