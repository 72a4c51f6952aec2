// ZmqSink: sends samples, or rows, on a ZeroMQ socket, wire-compatible with GNU Radio 3.10's
// zeromq sources (gr-zeromq): zmq:pub:tcp://*:PORT or zmq:push:tcp://*:PORT, ipc://PATH too
// (net/zmq_endpoint.hpp has the keys). The socket binds when the sink is opened, so an address
// in use is reported before the run starts.
//
// One message per chunk: gr-zeromq's tag header (the offset of the chunk's first item and the
// tags that describe the stream, net/stream_tags.hpp) followed by the items, or, with tags=off,
// the items alone. Rows travel as vectors of float32, one row per item (GNU Radio: a vector
// length of the row's columns).
//
// Flow: PUSH waits for a receiver with room (back-pressure: nothing is lost; timeout= fails the
// output after that many seconds without room); a plain PUB never waits: at the high-water
// mark (hwm=, messages per subscriber) ZeroMQ drops, and the receiver counts the gap from the
// offsets. A PUB with subscribers=N waits in begin() for N subscriptions (within timeout=, and
// until Ctrl-C), and then at a subscriber's high-water mark as PUSH does, so that a recording
// published from a file reaches its subscribers whole (a plain PUB sends at once; who
// subscribes late misses the start). The end: a message of no items with the tag prism_eos
// (true: complete; false: the run was interrupted or failed), or an empty message without
// tags; closing waits up to linger= seconds for queued messages to leave.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/stage.hpp"

namespace prism {

class ZmqSink final : public Sink {
 public:
  // Parses the spec and binds. Throws UsageError for a bad spec, InputError when it cannot bind.
  explicit ZmqSink(const std::string& spec);
  ~ZmqSink() override;
  ZmqSink(const ZmqSink&) = delete;
  ZmqSink& operator=(const ZmqSink&) = delete;

  bool accepts(PortKind) const override { return true; }
  // A PUB with subscribers=N waits here for them; throws std::runtime_error after timeout= seconds.
  void begin(const PortDescription& input) override;
  // Throws InputError when sending fails or a PUSH found no room for timeout= seconds.
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override;
  std::vector<Counter> extras() const override;
  // "zmq:push:tcp://*:5555 (PUSH, tagged)".
  std::string describe() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism
