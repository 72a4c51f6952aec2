// Display rows: what the processing hands to the render thread. A DisplaySession describes the
// rows of one processing configuration (FFT size, window, overlap, channel) and carries their
// DisplayRowQueue, a fixed-size single-producer single-consumer ring: the processing side
// pushes a row or, when the ring is full, drops it and counts it as a skipped display row; the
// render thread pops. Neither side ever waits for the other or takes a lock. On the GPU backend
// a row also names where the same line waits in device memory (DeviceLineRing), so that the
// waterfall texture is written from there.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace prism::view {

class DeviceLineRing;  // gui/cuda/gpu_display_lines.hpp

// Where a display line is besides the queue: its number in the session (counting every line
// made, also those the queue had no room for) and its slot in the session's DeviceLineRing
// (-1: not on the device, or not kept there).
struct LineTag {
  std::uint64_t line = 0;
  std::int64_t device_slot = -1;
};

// Why a session started: the first, new processing settings, a seek, or a file that looped.
enum class SessionStart { first, settings, seek, loop };

inline const char* session_start_name(SessionStart start) {
  switch (start) {
    case SessionStart::first: return "first";
    case SessionStart::settings: return "settings";
    case SessionStart::seek: return "seek";
    case SessionStart::loop: return "loop";
  }
  return "?";
}

// What the rows of one session mean.
struct DisplayFormat {
  std::uint64_t generation = 0;   // counts sessions
  SessionStart started_by = SessionStart::first;
  std::size_t columns = 0;        // values per display row (FFT bins, reduced by their maximum
                                  // when there are more bins than a texture row can hold)
  std::size_t fft_bins = 0;       // bins per spectrum before the reduction
  double frequency_low = 0;       // baseband Hz at the left edge of column 0
  double frequency_high = 0;      // baseband Hz at the right edge of the last column
  double center_frequency = 0;    // Hz added to label the axis (SDR, SigMF)
  double sample_rate = 0;
  double fft_rate = 0;            // spectra per second the processing computes
  std::size_t fft_size = 0;
  std::string window;
  double overlap = 0;
  unsigned channel = 0, channels = 1;
  std::string unit;               // e.g. "dB re 1 V**2/Hz"

  // Whether rows of `other` lie on the same frequency axis as this session's, column for column,
  // so that the waterfall can show both in one history.
  bool same_axis_as(const DisplayFormat& other) const {
    return columns == other.columns && frequency_low == other.frequency_low &&
           frequency_high == other.frequency_high && center_frequency == other.center_frequency &&
           unit == other.unit;
  }
};

class DisplayRowQueue {
 public:
  DisplayRowQueue(std::size_t columns, std::size_t capacity_rows)
      : columns_(columns), capacity_(std::max<std::size_t>(capacity_rows, 2)),
        values_(capacity_ * columns), times_(capacity_), tags_(capacity_) {}

  std::size_t columns() const { return columns_; }
  std::size_t capacity() const { return capacity_; }

  // Producer: copies one row of columns() values stamped with its stream time (s). Returns
  // false, counting a skipped row, when the render thread has not kept up.
  bool push(const float* row, double time_s, LineTag tag = {}) {
    const std::uint64_t w = write_.load(std::memory_order_relaxed);
    if (w - read_.load(std::memory_order_acquire) >= capacity_) {
      skipped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    const std::size_t slot = w % capacity_;
    std::memcpy(values_.data() + slot * columns_, row, columns_ * sizeof(float));
    times_[slot] = time_s;
    tags_[slot] = tag;
    write_.store(w + 1, std::memory_order_release);
    return true;
  }

  // Consumer: the oldest row not yet taken, or nullptr. The pointer stays valid until release().
  const float* front(double* time_s, LineTag* tag = nullptr) const {
    const std::uint64_t r = read_.load(std::memory_order_relaxed);
    if (r == write_.load(std::memory_order_acquire)) return nullptr;
    const std::size_t slot = r % capacity_;
    if (time_s != nullptr) *time_s = times_[slot];
    if (tag != nullptr) *tag = tags_[slot];
    return values_.data() + slot * columns_;
  }
  void release() { read_.store(read_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

  std::size_t size() const {
    return static_cast<std::size_t>(write_.load(std::memory_order_acquire) - read_.load(std::memory_order_acquire));
  }
  std::uint64_t pushed() const { return write_.load(std::memory_order_relaxed); }
  std::uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }

 private:
  const std::size_t columns_;
  const std::size_t capacity_;
  std::vector<float> values_;
  std::vector<double> times_;
  std::vector<LineTag> tags_;
  alignas(64) std::atomic<std::uint64_t> write_{0};
  alignas(64) std::atomic<std::uint64_t> read_{0};
  alignas(64) std::atomic<std::uint64_t> skipped_{0};
};

struct DisplaySession {
  DisplaySession(DisplayFormat f, std::size_t capacity_rows)
      : format(std::move(f)), queue(format.columns, capacity_rows) {}
  const DisplayFormat format;
  DisplayRowQueue queue;
  // The GPU backend's lines in device memory (null on the CPU backend); set before the session
  // is published.
  std::shared_ptr<DeviceLineRing> device_lines;
};

}  // namespace prism::view
