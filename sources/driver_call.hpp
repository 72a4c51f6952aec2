// call_driver: a call into a device driver with a deadline. SoapySDR's enumerate, make,
// setupStream, activateStream and close and PortAudio's start and stop run the driver's own code,
// which can hang: Debian 12's libjack (1.9.21) deadlocks when a client closes as a notification
// arrives (jack2 issue 395), and SoapySDR's audio module and PortAudio's JACK host API open and
// close such clients. The run's stall timeout only watches reads.
//
// The call runs on a thread of its own while the caller waits. When the deadline passes first,
// the caller gets DriverCallAbandoned, an InputError that names the device, the call and the
// option that sets the deadline; when a stop comes first, DriverCallInterrupted. Either way the
// thread is left where it is: nothing can end a call inside a library. What the call would have
// returned is never used (a device it opens late stays open). A process that left a call behind
// should end without running static destructors, which may wait for the stuck call or destroy
// what it uses: driver_calls_abandoned() says so, and prism's main then ends with _Exit.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "pipeline/errors.hpp"
#include "pipeline/source.hpp"
#include "pipeline/stop_token.hpp"

namespace prism {

struct DriverDeadline {
  double seconds = kDefaultDriverTimeout_s;  // 0, or 1e9 and more: no deadline
  std::string option;                        // how the user sets it ("--open-timeout"), for the message
  const StopToken* stop = nullptr;            // when requested, the wait ends (Interrupted)
};

// A call left behind at its deadline.
class DriverCallAbandoned : public InputError {
 public:
  using InputError::InputError;
};

// A call left behind when the stop came (Ctrl-C); a stop that came before the call is a plain
// Interrupted, and nothing was called.
class DriverCallInterrupted : public Interrupted {
 public:
  using Interrupted::Interrupted;
};

// Calls left running in a driver by this process so far.
unsigned driver_calls_abandoned();

// Runs `call` with the process's stderr quiet (the drivers' probing noise, as with_quiet_stderr),
// within `deadline`. `where` names the device for the message ("sdr:driver=audio"), `what` the
// call ("opening the device", "listing the devices"). Throws what the call throws,
// DriverCallAbandoned when the deadline passes first, DriverCallInterrupted when the stop comes
// first, Interrupted (nothing called) when the stop was there before. Without a deadline or a
// stop the caller's thread calls.
void call_driver_erased(const std::string& where, const std::string& what, const DriverDeadline& deadline,
                        std::function<void()> call);

// As call_driver_erased, returning what `call` returns. `call` must own what it uses (capture by
// value): an abandoned call goes on after the caller's frame is gone.
template <typename F>
auto call_driver(const std::string& where, const std::string& what, const DriverDeadline& deadline, F call) {
  using Result = std::invoke_result_t<F&>;
  if constexpr (std::is_void_v<Result>) {
    call_driver_erased(where, what, deadline, std::move(call));
  } else {
    auto result = std::make_shared<std::optional<Result>>();
    call_driver_erased(where, what, deadline, [result, call = std::move(call)]() mutable { result->emplace(call()); });
    return std::move(**result);
  }
}

}  // namespace prism
