// ZeroMQ endpoints as prism's inputs and outputs name them, and the socket behind one.
//
//   zmq:PATTERN:ADDRESS[?KEY=VALUE,...]
//     inputs  (connect, as GNU Radio's zeromq sources do):  zmq:sub:tcp://HOST:PORT, zmq:pull:...
//     outputs (bind, as GNU Radio's zeromq sinks do):       zmq:pub:tcp://*:PORT, zmq:push:...
//     ADDRESS is tcp://HOST:PORT or ipc://PATH.
//   Keys:
//     tags=on|off|auto  tag headers: outputs send them (on, the default) or raw items (off);
//                       inputs read them when the first message has one (auto, the default),
//                       require them (on) or take every message as raw items (off)
//     hwm=N             the socket's high-water mark in messages (default 64): how many messages
//                       may queue; then a plain PUB drops (per subscriber), PUSH and a PUB
//                       with subscribers=N wait
//     timeout=S         inputs: no message for S seconds fails the input (default: wait);
//                       outputs: PUSH finding no room for S seconds, or a PUB with subscribers=N
//                       not meeting them within S seconds, fails the output (default: wait)
//     linger=S          outputs: how long closing waits for queued messages to leave (default 10)
//     topic=TEXT        gr-zeromq's key: a PUB sends it as a first frame, a SUB subscribes to it
//     subscribers=N     PUB outputs: wait for N subscriptions before the first message (default
//                       0: send at once; a subscriber that comes later misses the start), within
//                       timeout= when given, then wait for a subscriber at its high-water mark
//                       instead of dropping; the socket is then an XPUB, which sees them (only
//                       subscriptions to topic= or a prefix of it count), with XPUB_NODROP
#pragma once

#include <optional>
#include <string>

namespace prism::net {

enum class ZmqPattern { pub, sub, push, pull };

enum class TagMode { automatic, on, off };

struct ZmqEndpoint {
  std::string spec;  // as given, for messages
  ZmqPattern pattern = ZmqPattern::sub;
  std::string address;
  TagMode tags = TagMode::automatic;  // outputs: on or off
  int high_water_mark = 64;
  std::optional<double> timeout_s;
  double linger_s = 10;
  std::string topic;
  int subscribers = 0;  // PUB: subscriptions to wait for before the first message

  bool is_input() const { return pattern == ZmqPattern::sub || pattern == ZmqPattern::pull; }
  // "PUB", "SUB", "PUSH", "PULL".
  const char* pattern_name() const;
};

// Whether `text` names a ZeroMQ endpoint ("zmq:" first).
bool is_zmq_spec(const std::string& text);

// Parses a spec for an input (sub, pull) or an output (pub, push). Throws UsageError naming the
// spec and what is wrong (a pattern of the other direction, an unknown key, a bad value).
ZmqEndpoint parse_zmq_spec(const std::string& spec, bool input);

// A ZeroMQ context with one socket of the endpoint's pattern, its options set (high-water mark,
// linger, subscription) and bound (pub, push) or connected (sub, pull). Closing waits up to the
// linger for queued messages.
class ZmqSocket {
 public:
  // Throws InputError ("zmq:...: reason", e.g. the address in use) when it cannot bind or connect.
  explicit ZmqSocket(const ZmqEndpoint& endpoint);
  ~ZmqSocket();
  ZmqSocket(const ZmqSocket&) = delete;
  ZmqSocket& operator=(const ZmqSocket&) = delete;

  void* handle() const { return socket_; }
  // Sets the linger (ms; -1 waits for ever, 0 drops what is queued) for the close.
  void set_linger_ms(int ms);
  // The endpoint a bound socket ended up on (tcp://0.0.0.0:5555).
  std::string bound_address() const;

 private:
  void* context_ = nullptr;
  void* socket_ = nullptr;
};

// zmq_strerror of the thread's last ZeroMQ error.
std::string zmq_error_text();

}  // namespace prism::net
