// ZmqSource: a stream of samples, or of rows, from a ZeroMQ socket, wire-compatible with GNU
// Radio 3.10's zeromq sources and sinks (gr-zeromq): zmq:sub:tcp://HOST:PORT or
// zmq:pull:tcp://HOST:PORT (net/zmq_endpoint.hpp has the keys). Each message is raw items, or
// gr-zeromq's tag header followed by the items (net/gr_wire.hpp); the tags say what the stream is
// (net/stream_tags.hpp).
//
// What the stream is: opening waits for the first message, as a read of the run would: up to
// the run's stall timeout (SourceOptions::opening: --stall-timeout, by default 10 s for a SUB
// input and for ever for a PULL one) or timeout=, whichever ends first; a stop (Ctrl-C) ends
// the wait. Its tags give the rate (rx_rate), centre frequency (rx_freq), start time (rx_time),
// format and channels (prism's own tags) and, for rows, their layout (prism_layout); what they
// do not say comes from --format, --rate and --channels, which must not contradict them. A
// message without a tag header carries raw items: --format and --rate are then required.
//
// Losses: the header's offset numbers every item the sender sent, so a gap between messages (a
// PUB socket or a slow subscriber dropping messages at the high-water mark) is counted as
// dropped samples; an offset that goes back (the sender restarted) is a loss of unknown length.
// A PULL input reads only when the run has a free chunk: its sender then waits (back-pressure)
// and nothing is lost. A SUB input is live (it delivers once, a stall timeout watches it); with
// tags it too reads only when the run has a chunk, its publisher queuing for it: up to hwm=
// messages, beyond which a PUB drops (counted from the offsets) and a PUB with subscribers=N
// waits, so that its subscribers lose nothing. Without tags the run drops what it has no room
// for, counted, as for a device.
//
// The end: prism's sender ends its stream with a message of no items and the tag prism_eos (or,
// without tags, an empty message). A complete end ends the input (the run completes; items the
// sender counted but that never arrived are counted as dropped); an end marked incomplete (the
// sender was interrupted or failed) fails the input after its items, and the outputs are kept,
// marked incomplete. GNU Radio sends no end: the input then runs until Ctrl-C or --duration, or
// fails after timeout= seconds without a message (outputs kept, marked incomplete).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/source.hpp"
#include "sources/open_source.hpp"

namespace prism {

class ZmqSource final : public Source {
 public:
  // Connects and waits for the first message. Throws UsageError for a bad spec or options that
  // are missing or contradict the stream's tags; InputError for a socket that cannot connect, a
  // malformed first message or a timeout (timeout= or the stall timeout); Interrupted when
  // options.opening.stop is requested first.
  ZmqSource(const std::string& spec, const SourceOptions& options);
  ~ZmqSource() override;
  ZmqSource(const ZmqSource&) = delete;
  ZmqSource& operator=(const ZmqSource&) = delete;

  const StreamInfo& info() const override { return info_; }
  PortDescription output() const override { return output_; }
  bool delivers_once() const override { return true; }
  bool has_own_timeout() const override;  // timeout= was given
  // A tagged SUB: ZeroMQ queues for a late reader (hwm= messages, then the PUB drops, counted
  // from the offsets, or waits, with subscribers=N), so the run waits for a free chunk instead
  // of dropping. Without tags a PUB's drops could not be counted: the run overruns, counted.
  bool overruns_when_late() const override;
  // Items of the messages that have arrived (as many as fit), waiting for one when none is
  // there. Throws InputError for a malformed message, a stream that changes its format, an end
  // marked incomplete, or timeout= seconds without a message.
  std::size_t read(std::byte* dst, std::size_t max_items) override;
  void interrupt() override;
  // Items the sender numbered that never arrived (gaps between the headers' offsets).
  std::uint64_t dropped_samples() const override;
  // Restarts of the sender's numbering: items were lost, how many is unknown.
  std::uint64_t overflows_of_unknown_length() const override;
  // "zmq:sub:tcp://host:5555 (SUB, tagged)".
  std::string describe() const override;

  std::uint64_t messages() const;
  bool tagged() const;
  std::string pattern_name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StreamInfo info_;
  PortDescription output_;
};

}  // namespace prism
