// ZmqSink: samples or rows onto a ZeroMQ socket (see zmq_sink.hpp).
#include "sinks/zmq_sink.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include <zmq.h>

#include "net/gr_wire.hpp"
#include "net/stream_tags.hpp"
#include "net/zmq_endpoint.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/settings.hpp"
#include "pipeline/stop_token.hpp"

namespace prism {

struct ZmqSink::Impl {
  net::ZmqEndpoint endpoint;
  std::unique_ptr<net::ZmqSocket> socket;
  PortDescription port;
  std::size_t item_bytes = 0;
  bool tagged = true;
  bool ended = false;
  std::string header;  // reused: its capacity stays
  std::uint64_t items = 0;        // items sent
  std::uint64_t next_offset = 0;  // the stream's index after the last item sent
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t subscriptions = 0;  // XPUB: subscriptions to this output's topic seen
  int subscribed = 0;               // XPUB: subscriptions to this output's topic now

  // XPUB: reads the subscription messages waiting (1 then the topic: subscribe; 0 then the
  // topic: unsubscribe, also sent for each topic of a subscriber that goes away), waiting up to
  // `wait_ms` for the first (0: none waits). Only subscriptions that receive every message of
  // this output count: those whose topic is a prefix of topic= (with no topic=, only the empty
  // one; another prefix would pick messages by the first bytes of their data).
  void read_subscriptions(int wait_ms) {
    zmq_pollitem_t item{socket->handle(), 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&item, 1, wait_ms) > 0 && (item.revents & ZMQ_POLLIN) != 0) {
      wait_ms = 0;
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      if (zmq_msg_recv(&msg, socket->handle(), ZMQ_DONTWAIT) >= 0 && zmq_msg_size(&msg) > 0) {
        const auto* data = static_cast<const char*>(zmq_msg_data(&msg));
        const std::string_view topic(data + 1, zmq_msg_size(&msg) - 1);
        if (std::string_view(endpoint.topic).starts_with(topic)) {
          if (data[0] == 1) {
            ++subscriptions;
            ++subscribed;
          } else if (data[0] == 0 && subscribed > 0) {
            --subscribed;
          }
        }
      }
      zmq_msg_close(&msg);
    }
  }

  // subscribers=N: polls in slices so that Ctrl-C (which ends the run) stops the wait.
  void wait_for_subscribers() {
    const int wanted = endpoint.subscribers;
    const auto start = std::chrono::steady_clock::now();
    while (subscribed < wanted && !InterruptGuard::interrupted()) {
      read_subscriptions(100);
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (subscribed < wanted && endpoint.timeout_s && waited >= *endpoint.timeout_s)
        // The run names the output before this message.
        throw std::runtime_error(std::to_string(subscribed) + " of " + std::to_string(wanted) +
                                 " subscriber(s) came within timeout=" + timeout_text() + " s");
    }
  }

  // Sends one message: the topic frame first when there is one, then header + payload.
  void send(const std::string& head, const std::byte* payload, std::size_t payload_bytes) {
    // PUSH, and a PUB with subscribers=N, block without a receiver with room (ZMQ_SNDTIMEO
    // bounds it; a multi-part message waits at its first part); a plain PUB never blocks.
    if (!endpoint.topic.empty() &&
        zmq_send(socket->handle(), endpoint.topic.data(), endpoint.topic.size(), ZMQ_SNDMORE) < 0)
      fail_send(zmq_errno());
    zmq_msg_t msg;
    if (zmq_msg_init_size(&msg, head.size() + payload_bytes) != 0) fail();
    auto* data = static_cast<std::byte*>(zmq_msg_data(&msg));
    std::memcpy(data, head.data(), head.size());
    if (payload_bytes != 0) std::memcpy(data + head.size(), payload, payload_bytes);
    if (zmq_msg_send(&msg, socket->handle(), 0) < 0) {
      const int error = zmq_errno();
      zmq_msg_close(&msg);
      fail_send(error);
    }
    ++messages;
    bytes += head.size() + payload_bytes;
  }

  [[noreturn]] void fail_send(int error) {
    if (error == EAGAIN)
      throw InputError(endpoint.spec, "no receiver took a message within timeout=" + timeout_text() + " s after " +
                                          std::to_string(items) + " items");
    errno = error;  // zmq_errno() is errno: what zmq_msg_close may have changed
    fail();
  }

  std::string timeout_text() const { return number_text(endpoint.timeout_s.value_or(0.0)); }

  [[noreturn]] void fail() { throw InputError(endpoint.spec, "sending failed: " + net::zmq_error_text()); }

  void send_end(bool complete) {
    header.clear();
    if (tagged) net::append_tag_header(next_offset, {net::end_of_stream_tag(next_offset, complete)}, header);
    send(header, nullptr, 0);
  }
};

ZmqSink::ZmqSink(const std::string& spec) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.endpoint = net::parse_zmq_spec(spec, false);
  s.tagged = s.endpoint.tags != net::TagMode::off;
  s.socket = std::make_unique<net::ZmqSocket>(s.endpoint);
  if (s.endpoint.timeout_s) {
    const int ms = static_cast<int>(std::lround(*s.endpoint.timeout_s * 1000));
    zmq_setsockopt(s.socket->handle(), ZMQ_SNDTIMEO, &ms, sizeof ms);
  }
}

ZmqSink::~ZmqSink() = default;

void ZmqSink::begin(const PortDescription& input) {
  Impl& s = *impl_;
  // GNU Radio's vectors of float carry no complex rows; they go to .npy outputs.
  if (input.kind == PortKind::rows && input.rows.complex_values)
    throw UsageError("ZeroMQ outputs carry rows of floats; mode complex rows go to .npy outputs");
  if (input.kind == PortKind::rows && input.rows.double_values)
    throw UsageError("ZeroMQ outputs carry rows of floats; precision double rows go to .npy outputs");
  // prism_layout describes FFT bins; mel bands and cepstral coefficients have no form in it yet.
  if (input.kind == PortKind::rows && input.rows.column_axis != ColumnAxis::frequency)
    throw UsageError("ZeroMQ outputs carry rows of FFT bins; mode mel and mfcc rows go to .npy outputs");
  s.port = input;
  s.item_bytes = input.item_bytes();
  s.header.reserve(4096);
  if (s.endpoint.subscribers > 0) s.wait_for_subscribers();
}

void ZmqSink::write(const Chunk& chunk) {
  Impl& s = *impl_;
  s.header.clear();
  if (s.tagged) net::append_tag_header(chunk.first_item, net::describe_port(s.port, chunk.first_item), s.header);
  // Subscriptions queue on an XPUB until read: read them, so that they do not pile up.
  if (s.endpoint.subscribers > 0) s.read_subscriptions(0);
  s.send(s.header, chunk.data, chunk.items * s.item_bytes);
  s.items += chunk.items;
  s.next_offset = chunk.first_item + chunk.items;
}

void ZmqSink::finish(bool complete) {
  Impl& s = *impl_;
  if (s.ended) return;
  s.ended = true;
  s.send_end(complete);
}

void ZmqSink::abort() noexcept {
  Impl& s = *impl_;
  if (s.ended) return;
  s.ended = true;
  // The receiver learns that the stream failed rather than waiting for more; a receiver that
  // is gone must not hold the abort up.
  s.socket->set_linger_ms(1000);
  const int ms = 1000;
  zmq_setsockopt(s.socket->handle(), ZMQ_SNDTIMEO, &ms, sizeof ms);
  try {
    s.send_end(false);
  } catch (...) {
  }
}

std::uint64_t ZmqSink::items_written() const { return impl_->items; }

std::vector<Counter> ZmqSink::extras() const {
  std::vector<Counter> counters{{"messages", impl_->messages}, {"bytes_sent", impl_->bytes}};
  if (impl_->endpoint.subscribers > 0) counters.push_back({"subscriptions", impl_->subscriptions});
  return counters;
}

std::string ZmqSink::describe() const {
  std::string text = impl_->endpoint.spec + " (" + impl_->endpoint.pattern_name() + (impl_->tagged ? ", tagged" : ", raw items");
  if (impl_->endpoint.subscribers > 0)
    text += ", waits for " + std::to_string(impl_->endpoint.subscribers) + " subscriber(s)";
  return text + ")";
}

}  // namespace prism
