// ZmqSource: samples or rows from a ZeroMQ socket (see zmq_source.hpp).
#include "sources/zmq_source.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>

#include <zmq.h>

#include "net/gr_wire.hpp"
#include "net/stream_tags.hpp"
#include "net/zmq_endpoint.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/iso8601.hpp"

namespace prism {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollMs = 100;  // how soon a waiting read sees interrupt() or its timeout

// One received message, released when the next arrives.
class Message {
 public:
  Message() { zmq_msg_init(&msg_); }
  ~Message() { zmq_msg_close(&msg_); }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  zmq_msg_t* get() { return &msg_; }
  std::span<const std::byte> bytes() {
    return {static_cast<const std::byte*>(zmq_msg_data(&msg_)), zmq_msg_size(&msg_)};
  }

 private:
  zmq_msg_t msg_;
};

}  // namespace

struct ZmqSource::Impl {
  net::ZmqEndpoint endpoint;
  std::unique_ptr<net::ZmqSocket> socket;
  std::size_t item_bytes = 0;
  bool tagged = false;

  Message message;                   // the message being read
  std::span<const std::byte> items;  // its items not yet read
  std::uint64_t count = 0;           // messages received
  std::uint64_t next_offset = 0;     // the sender's number of the next item (tagged streams)
  bool ended = false;
  std::optional<std::string> end_failure;  // thrown once the items before the end are read
  Clock::time_point last_message = Clock::now();

  // What the first message said, for the check that later ones agree.
  net::StreamTagValues first;

  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> restarts{0};
  std::atomic<std::uint64_t> interrupts{0};
  std::atomic<std::uint64_t> received{0};

  // Receives the next message into `message` (a gr-zeromq key frame before it is skipped).
  // Waits when `wait` (until interrupt(), the timeout or a message); false when none came.
  bool receive(bool wait, std::uint64_t interrupts_at_entry) {
    while (true) {
      if (zmq_msg_recv(message.get(), socket->handle(), ZMQ_DONTWAIT) >= 0) {
        // A multi-part message: the parts before the last are gr-zeromq's key; the items are last.
        while (zmq_msg_more(message.get()))
          if (zmq_msg_recv(message.get(), socket->handle(), 0) < 0) fail_receive();
        last_message = Clock::now();
        ++count;
        return true;
      }
      const int error = zmq_errno();
      if (error != EAGAIN && error != EINTR) fail_receive();
      if (!wait || interrupts.load(std::memory_order_acquire) != interrupts_at_entry) return false;
      check_timeout();
      poll();
    }
  }

  // Receives the stream's first message, which says what the stream is, while the source is
  // opened: up to timeout= or the opening's stall timeout, whichever ends first (the default
  // stall timeout only without timeout=), and no longer than `wait.stop` allows.
  // `stall_name`: the stall timeout as the caller names it.
  void receive_first(const OpeningWait& wait, const std::string& stall_name) {
    const double stall_s = wait.stall_timeout_s.value_or(
        endpoint.pattern == net::ZmqPattern::sub && !endpoint.timeout_s ? kDefaultLiveStallTimeout_s : 0.0);
    const bool stall_watched = stall_s > 0 && stall_s < 1e9;
    while (!receive(false, 0)) {
      if (wait.stop != nullptr && wait.stop->stop_requested())
        throw Interrupted(endpoint.spec + ": no message had come; nothing was written");
      check_timeout();
      if (stall_watched && std::chrono::duration<double>(Clock::now() - last_message).count() >= stall_s)
        throw InputError(endpoint.spec, "delivered nothing for " + number_text(stall_s) +
                                            " s (the stall timeout, " + stall_name + "): no message came after "
                                            "connecting (is the sender running, at this address?)");
      poll();
    }
  }

  void check_timeout() const {
    if (endpoint.timeout_s &&
        std::chrono::duration<double>(Clock::now() - last_message).count() >= *endpoint.timeout_s)
      throw InputError(endpoint.spec,
                       "no message for " + number_text(*endpoint.timeout_s) + " s (timeout=) after " +
                           std::to_string(count) + " message(s) and " + std::to_string(received.load()) +
                           " items: the sender is gone or stalled, and sent no end of stream");
  }

  void poll() {
    zmq_pollitem_t item = {socket->handle(), 0, ZMQ_POLLIN, 0};
    zmq_poll(&item, 1, kPollMs);
  }

  [[noreturn]] void fail_receive() {
    throw InputError(endpoint.spec, "receiving failed: " + net::zmq_error_text());
  }

  std::string where() const { return "message " + std::to_string(count); }

  // Reads the header of the message just received (tagged streams) and sets `items`.
  // Returns the tags' values.
  net::StreamTagValues open_message() {
    const std::span<const std::byte> bytes = message.bytes();
    net::StreamTagValues values;
    if (!tagged) {
      items = bytes;
      if (bytes.empty()) ended = true;  // an empty message ends a stream without tags
    } else {
      if (!net::starts_with_tag_header(bytes))
        throw InputError(endpoint.spec, count == 1 ? "the first message has no tag header (tags=on requires one)"
                                                   : where() + " has no tag header, unlike the stream's first "
                                                               "(tags=off reads every message as raw items)");
      net::TagHeader header;
      try {
        header = net::parse_tag_header(bytes);
        values = net::read_stream_tags(header.tags);
      } catch (const net::WireError& e) {
        throw InputError(endpoint.spec, where() + ": " + e.what());
      }
      items = bytes.subspan(header.bytes);
      if (count > 1) {
        if (header.offset > next_offset) {
          dropped.fetch_add(header.offset - next_offset, std::memory_order_relaxed);
        } else if (header.offset < next_offset && !(values.end_of_stream && items.empty())) {
          restarts.fetch_add(1, std::memory_order_relaxed);
        }
      }
      if (values.end_of_stream) {
        ended = true;
        if (!*values.end_of_stream)
          end_failure = "the sender's stream ended incomplete (it was interrupted or failed) after " +
                        std::to_string(header.offset) + " items";
        items = {};
        return values;
      }
      next_offset = header.offset + items.size() / std::max<std::size_t>(item_bytes, 1);
    }
    if (item_bytes != 0 && items.size() % item_bytes != 0)
      throw InputError(endpoint.spec, where() + " holds " + std::to_string(items.size()) +
                                          " bytes of items, not a whole number of " + std::to_string(item_bytes) +
                                          "-byte items (is the format or the channel count right?)");
    return values;
  }

  // A later message's tags must describe the same stream.
  void check_agrees(const net::StreamTagValues& v) const {
    auto changed = [&](const std::string& what) {
      throw InputError(endpoint.spec, where() + " changes the stream's " + what +
                                          " mid-stream (a run keeps what the first message said)");
    };
    if (v.rate && first.rate && *v.rate != *first.rate) changed("rate");
    if (v.format && first.format && *v.format != *first.format) changed("format");
    if (v.channels && first.channels && *v.channels != *first.channels) changed("channel count");
    if (v.layout.has_value() != first.layout.has_value() && (v.layout || v.format)) changed("kind of items");
    if (v.layout && first.layout && v.layout->columns != first.layout->columns) changed("row layout");
  }
};

ZmqSource::ZmqSource(const std::string& spec, const SourceOptions& options) : impl_(std::make_unique<Impl>()) {
  // Before connecting: nothing the stream says can make a byte order other than the machine's
  // right, so there is no need to wait for its first message to say so.
  if (options.big_endian)
    throw UsageError(options.name("format") + " " + std::string(format_name(options.format.value_or(SampleFormat::cf32))) +
                     "_be: " + spec + " (ZeroMQ) carries samples in the machine's byte order");
  Impl& s = *impl_;
  s.endpoint = net::parse_zmq_spec(spec, true);
  s.socket = std::make_unique<net::ZmqSocket>(s.endpoint);
  s.last_message = Clock::now();
  s.receive_first(options.opening, options.name("stall_timeout_s"));

  const std::span<const std::byte> first_bytes = s.message.bytes();
  switch (s.endpoint.tags) {
    case net::TagMode::off: s.tagged = false; break;
    case net::TagMode::on: s.tagged = true; break;
    case net::TagMode::automatic: s.tagged = net::starts_with_tag_header(first_bytes); break;
  }
  // The header is read before the item size is known: the tags may say the format.
  s.item_bytes = 0;
  net::StreamTagValues tags = s.open_message();
  if (s.ended)
    throw InputError(spec, "the stream ended (the sender's end of stream arrived) before any item did");
  s.first = tags;
  s.next_offset = 0;  // recomputed below with the item size
  const std::string where = spec + " (ZeroMQ)";

  if (tags.layout) {
    if (options.format || options.sample_rate || options.channels != 1)
      throw UsageError(where + " carries rows computed elsewhere (" + std::to_string(tags.layout->columns) +
                       " columns); " + options.name("format") + ", " + options.name("sample_rate") + " and " +
                       options.name("channels") + " are for streams of samples");
    SpectrumLayout layout = *tags.layout;
    if (options.center_frequency != 0) layout.stream.center_frequency = options.center_frequency;
    layout.stream.live = s.endpoint.pattern == net::ZmqPattern::sub;
    info_ = layout.stream;
    output_ = PortDescription::of_rows(layout);
  } else {
    const std::string hint = s.tagged ? " (its tags do not say)" : " (its messages carry no tags)";
    if (options.format && tags.format && *options.format != *tags.format)
      throw UsageError(options.name("format") + " " + std::string(format_name(*options.format)) + " contradicts " + where +
                       ", whose tags say " + std::string(format_name(*tags.format)));
    if (options.sample_rate && tags.rate && *options.sample_rate != *tags.rate)
      throw UsageError(options.name("sample_rate") + " " + number_text(*options.sample_rate) + " contradicts " + where +
                       ", whose tags say " + number_text(*tags.rate) + " Hz");
    if (options.channels != 1 && tags.channels && options.channels != *tags.channels)
      throw UsageError(options.name("channels") + " " + std::to_string(options.channels) + " contradicts " + where +
                       ", whose tags say " + std::to_string(*tags.channels));
    if (!tags.format && !options.format)
      throw UsageError(where + ": give " + options.name("format") + ": the stream does not say its sample format" + hint);
    const double rate = tags.rate ? *tags.rate : options.sample_rate.value_or(0.0);
    if (!(rate > 0) || !std::isfinite(rate))
      throw UsageError(where + ": give " + options.name("sample_rate") + ": the stream does not say its sample rate" + hint);
    info_.format = tags.format ? *tags.format : *options.format;
    info_.sample_rate = rate;
    info_.channels = tags.channels ? *tags.channels : options.channels;
    info_.center_frequency = options.center_frequency != 0 ? options.center_frequency : tags.frequency.value_or(0.0);
    info_.live = s.endpoint.pattern == net::ZmqPattern::sub;
    info_.float_full_scale = tags.float_full_scale;
    output_ = PortDescription::of_samples(info_);
  }
  s.item_bytes = output_.item_bytes();
  if (s.items.size() % s.item_bytes != 0)
    throw InputError(spec, s.where() + " holds " + std::to_string(s.items.size()) +
                               " bytes of items, not a whole number of " + std::to_string(s.item_bytes) +
                               "-byte items (is the format or the channel count right?)");
  if (s.tagged) {
    const std::uint64_t first_offset = net::parse_tag_header(first_bytes).offset;
    s.next_offset = first_offset + s.items.size() / s.item_bytes;
    // rx_time names the time of its tagged item; the stream starts at the first item received.
    if (tags.time && !tags.layout) {
      const double back = (static_cast<double>(tags.time_offset) - static_cast<double>(first_offset)) / info_.sample_rate;
      info_.start_time = iso8601_text(*tags.time, -back);
      output_ = PortDescription::of_samples(info_);
    }
  }
}

ZmqSource::~ZmqSource() = default;

std::size_t ZmqSource::read(std::byte* dst, std::size_t max_items) {
  Impl& s = *impl_;
  const std::uint64_t interrupts_at_entry = s.interrupts.load(std::memory_order_acquire);
  std::size_t filled = 0;
  while (filled < max_items) {
    if (!s.items.empty()) {
      const std::size_t n = std::min(max_items - filled, s.items.size() / s.item_bytes);
      std::memcpy(dst + filled * s.item_bytes, s.items.data(), n * s.item_bytes);
      s.items = s.items.subspan(n * s.item_bytes);
      filled += n;
      continue;
    }
    if (s.ended) break;
    // Wait only while nothing is filled: what arrived goes on at once.
    if (!s.receive(filled == 0, interrupts_at_entry)) break;
    const net::StreamTagValues tags = s.open_message();
    if (s.tagged) s.check_agrees(tags);
  }
  s.received.fetch_add(filled, std::memory_order_relaxed);
  if (filled == 0 && s.ended && s.end_failure) throw InputError(s.endpoint.spec, *s.end_failure);
  return filled;
}

void ZmqSource::interrupt() { impl_->interrupts.fetch_add(1, std::memory_order_acq_rel); }

std::uint64_t ZmqSource::dropped_samples() const { return impl_->dropped.load(std::memory_order_relaxed); }

std::uint64_t ZmqSource::overflows_of_unknown_length() const {
  return impl_->restarts.load(std::memory_order_relaxed);
}

std::string ZmqSource::describe() const {
  return impl_->endpoint.spec + " (" + impl_->endpoint.pattern_name() + (impl_->tagged ? ", tagged" : ", raw items") +
         (output_.kind == PortKind::rows ? ", rows" : "") + ")";
}

std::uint64_t ZmqSource::messages() const { return impl_->count; }
bool ZmqSource::tagged() const { return impl_->tagged; }
bool ZmqSource::has_own_timeout() const { return impl_->endpoint.timeout_s.has_value(); }

bool ZmqSource::overruns_when_late() const { return info_.live && !tagged(); }

std::string ZmqSource::pattern_name() const { return impl_->endpoint.pattern_name(); }

}  // namespace prism
