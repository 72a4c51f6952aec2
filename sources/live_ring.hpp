// LiveRing: the single-producer single-consumer ring between a live device's own thread (a
// PortAudio callback, the SoapySDR capture thread) and Source::read on the pipeline's source
// thread. The producer never waits, locks or allocates: what does not fit is refused whole and
// the caller counts it as dropped. The consumer waits (polling in 1 ms steps) until samples are
// there or interrupt() is called.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace prism {

class LiveRing {
 public:
  // Room for `frames` frames of `frame_bytes` bytes (a frame: one sample of every channel).
  LiveRing(std::size_t frames, std::size_t frame_bytes)
      : frame_bytes_(frame_bytes), ring_(frames * frame_bytes) {}

  // Producer: stores `frames` frames from `src`, or none when they do not all fit (false).
  bool write(const void* src, std::size_t frames) {
    const std::size_t bytes = frames * frame_bytes_;
    const std::uint64_t w = write_position_.load(std::memory_order_relaxed);
    const std::uint64_t r = read_position_.load(std::memory_order_acquire);
    if (w - r + bytes > ring_.size()) return false;
    const std::size_t start = w % ring_.size();
    const std::size_t first = std::min(bytes, ring_.size() - start);
    std::memcpy(ring_.data() + start, src, first);
    if (first < bytes) std::memcpy(ring_.data(), static_cast<const std::byte*>(src) + first, bytes - first);
    write_position_.store(w + bytes, std::memory_order_release);
    return true;
  }

  // Consumer: up to `max_frames` frames into `dst`, as soon as there are any. Returns 0 once
  // interrupt() is called during the wait. `while_empty` runs each time the ring is found empty
  // (a source whose producer failed throws from it, after the ring has been drained).
  template <typename WhileEmpty>
  std::size_t read(std::byte* dst, std::size_t max_frames, WhileEmpty&& while_empty) {
    const std::uint64_t interrupts_at_entry = interrupts_.load(std::memory_order_acquire);
    while (true) {
      if (interrupts_.load(std::memory_order_acquire) != interrupts_at_entry) return 0;
      const std::uint64_t r = read_position_.load(std::memory_order_relaxed);
      const std::uint64_t w = write_position_.load(std::memory_order_acquire);
      const std::size_t frames = std::min<std::uint64_t>((w - r) / frame_bytes_, max_frames);
      if (frames == 0) {
        while_empty();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      const std::size_t bytes = frames * frame_bytes_;
      const std::size_t start = r % ring_.size();
      const std::size_t first = std::min(bytes, ring_.size() - start);
      std::memcpy(dst, ring_.data() + start, first);
      if (first < bytes) std::memcpy(dst + first, ring_.data(), bytes - first);
      read_position_.store(r + bytes, std::memory_order_release);
      return frames;
    }
  }

  // Makes a read() that is waiting now return 0. A count, not a flag, so that an interrupt with
  // no read waiting is not left over for the next run on the same source (the viewer restarts
  // its pipeline on one source when the FFT size changes).
  void interrupt() { interrupts_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  std::size_t frame_bytes_;
  std::vector<std::byte> ring_;
  // Bytes written and read since the start; they only grow, and each side owns one.
  std::atomic<std::uint64_t> write_position_{0};
  std::atomic<std::uint64_t> read_position_{0};
  std::atomic<std::uint64_t> interrupts_{0};
};

}  // namespace prism
