// call_driver (sources/driver_call.hpp): a call into a driver within a deadline; one that does
// not finish in time is left behind with an error naming the device, the call and the option.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "sources/driver_call.hpp"

namespace prism {
namespace {

using Clock = std::chrono::steady_clock;

// A call that waits until the test lets it go (a hung driver that recovers later).
struct Gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  void wait() {
    std::unique_lock lock(mutex);
    opened.wait(lock, [&] { return open; });
  }
  void release() {
    {
      const std::lock_guard lock(mutex);
      open = true;
    }
    opened.notify_all();
  }
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Which file descriptor 2 is.
std::pair<dev_t, ino_t> stderr_identity() {
  struct stat st {};
  fstat(STDERR_FILENO, &st);
  return {st.st_dev, st.st_ino};
}

TEST(DriverCall, ReturnsWhatTheCallReturnsAndRethrowsWhatItThrows) {
  for (double seconds : {0.0, 5.0}) {
    DriverDeadline deadline;
    deadline.seconds = seconds;
    EXPECT_EQ(call_driver("sdr:x", "opening it", deadline, [] { return std::string("device"); }), "device");
    int calls = 0;
    call_driver("sdr:x", "closing it", deadline, [&calls] { ++calls; });
    EXPECT_EQ(calls, 1);
    EXPECT_THROW(call_driver("sdr:x", "opening it", deadline, []() -> int { throw std::invalid_argument("no"); }),
                 std::invalid_argument);
  }
}

TEST(DriverCall, WithoutADeadlineTheCallerCalls) {
  DriverDeadline deadline;
  deadline.seconds = 0;
  EXPECT_EQ(call_driver("sdr:x", "opening it", deadline, [] { return std::this_thread::get_id(); }),
            std::this_thread::get_id());
  deadline.seconds = 5;
  EXPECT_NE(call_driver("sdr:x", "opening it", deadline, [] { return std::this_thread::get_id(); }),
            std::this_thread::get_id());
}

TEST(DriverCall, ACallPastItsDeadlineIsLeftBehindWithAnErrorNamingIt) {
  auto gate = std::make_shared<Gate>();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const unsigned abandoned_before = driver_calls_abandoned();
  const auto stderr_before = stderr_identity();
  DriverDeadline deadline;
  deadline.seconds = 0.3;
  deadline.option = "--stall-timeout";
  const Clock::time_point start = Clock::now();
  try {
    call_driver("sdr:driver=audio", "opening the device", deadline, [gate, finished] {
      gate->wait();
      finished->store(true);
      return 42;
    });
    FAIL() << "no error";
  } catch (const DriverCallAbandoned& e) {
    EXPECT_EQ(e.path(), "sdr:driver=audio");
    EXPECT_NE(std::string(e.what()).find("did not finish opening the device within 0.3 s (--stall-timeout)"),
              std::string::npos)
        << e.what();
  }
  const double waited = seconds_since(start);
  EXPECT_GE(waited, 0.3);
  EXPECT_LT(waited, 5.0);
  EXPECT_EQ(driver_calls_abandoned(), abandoned_before + 1);
  // stderr is the process's again, although the call that ran with it quiet has not returned.
  EXPECT_EQ(stderr_identity(), stderr_before);
  // The call goes on by itself once the driver lets it; its result is dropped.
  EXPECT_FALSE(finished->load());
  gate->release();
  const Clock::time_point released = Clock::now();
  while (!finished->load() && seconds_since(released) < 10) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(finished->load());
}

TEST(DriverCall, AStopEndsTheWaitWithOrWithoutADeadline) {
  for (double seconds : {60.0, 0.0}) {
    auto gate = std::make_shared<Gate>();
    StopToken stop;
    DriverDeadline deadline;
    deadline.seconds = seconds;
    deadline.stop = &stop;
    std::thread stopper([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      stop.request_stop();
    });
    const unsigned abandoned_before = driver_calls_abandoned();
    const Clock::time_point start = Clock::now();
    EXPECT_THROW(call_driver("sdr:x", "opening the device", deadline, [gate] { gate->wait(); }), DriverCallInterrupted);
    EXPECT_LT(seconds_since(start), 5.0);
    EXPECT_EQ(driver_calls_abandoned(), abandoned_before + 1);
    stopper.join();
    gate->release();
  }
}

TEST(DriverCall, AStopThatCameFirstCallsNothing) {
  StopToken stop;
  stop.request_stop();
  DriverDeadline deadline;
  deadline.stop = &stop;
  bool called = false;
  try {
    call_driver("sdr:x", "opening the device", deadline, [&called] { called = true; });
    FAIL() << "no error";
  } catch (const DriverCallInterrupted&) {
    FAIL() << "a call was started and left";
  } catch (const Interrupted& e) {
    EXPECT_NE(std::string(e.what()).find("interrupted before opening the device"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(called);
}

TEST(DriverCall, AFinishedCallHasLetGoOfWhatItCaptured) {
  auto captured = std::make_shared<int>(7);
  DriverDeadline deadline;
  deadline.seconds = 5;
  EXPECT_EQ(call_driver("sdr:x", "opening the device", deadline, [captured] { return *captured; }), 7);
  // The call's thread was joined: its copy of `captured` is gone.
  EXPECT_EQ(captured.use_count(), 1);
}

}  // namespace
}  // namespace prism
