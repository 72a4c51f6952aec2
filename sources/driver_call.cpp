// call_driver_erased: the deadline's thread and wait (see driver_call.hpp).
#include "sources/driver_call.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "pipeline/chunk.hpp"
#include "pipeline/decimal_text.hpp"
#include "sources/quiet_stderr.hpp"

namespace prism {

namespace {

std::atomic<unsigned> abandoned_calls{0};

// What the waiting caller and the driver's thread share; the thread keeps it alive after an
// abandoned caller is gone.
struct CallState {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
};

}  // namespace

unsigned driver_calls_abandoned() { return abandoned_calls.load(std::memory_order_acquire); }

void call_driver_erased(const std::string& where, const std::string& what, const DriverDeadline& deadline,
                        std::function<void()> call) {
  const bool timed = deadline.seconds > 0 && deadline.seconds < 1e9;
  // Without a deadline the caller calls, unless a stop must still be able to end the wait.
  if (!timed && deadline.stop == nullptr) {
    with_quiet_stderr(call);
    return;
  }
  // A stop that came first starts no call: one left behind at once could open a device that
  // nobody closes.
  if (deadline.stop != nullptr && deadline.stop->stop_requested()) throw Interrupted(where + ": interrupted before " + what);
  auto state = std::make_shared<CallState>();
  std::thread caller;
  enum class Ending { finished, deadline, stop };
  // stderr is quiet while the caller waits, and back as it was when it stops waiting, whether the
  // call finished or not.
  Ending ending = Ending::finished;
  try {
    ending = with_quiet_stderr([&] {
      caller = std::thread([state, call = std::move(call)]() mutable {
        std::exception_ptr error;
        try {
          call();
        } catch (...) {
          error = std::current_exception();
        }
        {
          const std::lock_guard lock(state->mutex);
          state->error = error;
          state->done = true;
        }
        state->finished.notify_all();
      });
      using Clock = std::chrono::steady_clock;
      const Clock::time_point until =
          timed ? Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline.seconds))
                : Clock::time_point::max();
      std::unique_lock lock(state->mutex);
      while (!state->done) {
        if (deadline.stop != nullptr && deadline.stop->stop_requested()) return Ending::stop;
        const Clock::time_point now = Clock::now();
        if (now >= until) return Ending::deadline;
        state->finished.wait_until(lock, std::min(until, now + kStopPollInterval));
      }
      return Ending::finished;
    });
  } catch (...) {
    if (caller.joinable()) caller.detach();  // a failed wait: the call goes on by itself
    throw;
  }
  if (ending == Ending::finished) {
    caller.join();  // what the call captured is gone with it
    if (state->error) std::rethrow_exception(state->error);
    return;
  }
  caller.detach();
  abandoned_calls.fetch_add(1, std::memory_order_acq_rel);
  if (ending == Ending::stop) throw DriverCallInterrupted(where + ": interrupted while " + what);
  throw DriverCallAbandoned(where, "the driver did not finish " + what + " within " + number_text(deadline.seconds) +
                                       " s" + (deadline.option.empty() ? "" : " (" + deadline.option + ")") +
                                       "; it may be hung (the device, its server or its driver); the call is "
                                       "left behind");
}

}  // namespace prism
