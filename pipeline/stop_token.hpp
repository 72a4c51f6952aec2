// StopToken: a run's shared stop flag. Any stage (or Ctrl-C) requests the stop; every thread
// polls it at its waits, so a stop reaches all of them within one wait interval.
#pragma once

#include <atomic>

namespace prism {

class StopToken {
 public:
  void request_stop() noexcept { stop_.store(true, std::memory_order_release); }
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> stop_{false};
};

// Routes SIGINT and SIGTERM to `token` while the guard lives: the first signal requests a
// clean stop; a second one ends the process at once (exit code 130). Guards nest (a batch's
// guard around the opening of one input's): the inner one routes to its token while it lives,
// and a signal it took stops the outer token too when it ends.
class InterruptGuard {
 public:
  explicit InterruptGuard(StopToken& token);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  // True when a signal asked for the stop (since the outermost guard was made).
  static bool interrupted() noexcept;

 private:
  StopToken* outer_;  // the token of the guard this one is nested in, or null
};

}  // namespace prism
