// HistoryBuffer: the newest floats of a stream in one contiguous run, the `history` floats
// before the ones appended since the last compaction, so that an FIR sum over a sliding window
// reads plain memory. Sized once (history + block floats); appending and compacting never
// allocate. Before the first float the history is zeros (the zero padding before a signal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace prism {

class HistoryBuffer {
 public:
  HistoryBuffer() = default;
  HistoryBuffer(std::size_t history, std::size_t block)
      : data_(history + block, 0.0f), history_(history) {
    reset();
  }

  // Zeros as history, nothing appended.
  void reset() {
    std::fill(data_.begin(), data_.end(), 0.0f);
    end_ = history_;
  }

  // Floats that can be appended before compact() is needed.
  std::size_t room() const { return data_.size() - end_; }

  // Appends n <= room() floats (copied from `values`, or zeros when it is null).
  void append(const float* values, std::size_t n) {
    if (values != nullptr)
      std::memcpy(data_.data() + end_, values, n * sizeof(float));
    else
      std::fill_n(data_.data() + end_, n, 0.0f);
    end_ += n;
  }

  // Keeps only the newest `history` floats, at the front.
  void compact() {
    std::memmove(data_.data(), data_.data() + end_ - history_, history_ * sizeof(float));
    end_ = history_;
  }

  // One past the newest float; the `history` + (appended since compact) floats before it are
  // valid.
  const float* end() const { return data_.data() + end_; }

 private:
  std::vector<float> data_;
  std::size_t history_ = 0;
  std::size_t end_ = 0;
};

}  // namespace prism
