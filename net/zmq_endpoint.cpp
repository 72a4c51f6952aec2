// ZeroMQ endpoint specs and sockets (see zmq_endpoint.hpp).
#include "net/zmq_endpoint.hpp"

#include <cerrno>
#include <cmath>

#include <zmq.h>

#include "pipeline/errors.hpp"
#include "pipeline/settings.hpp"

namespace prism::net {
namespace {

constexpr const char* kSpecHelp =
    "zmq:sub:tcp://HOST:PORT or zmq:pull:tcp://HOST:PORT (inputs), zmq:pub:tcp://*:PORT or "
    "zmq:push:tcp://*:PORT (outputs); ipc://PATH too; keys after '?': tags, hwm, timeout, linger, topic, "
    "subscribers";

// A PUB that waits for its subscribers is an XPUB: the same wire, and it hands the
// subscriptions to the sender.
int socket_type(const ZmqEndpoint& e) {
  switch (e.pattern) {
    case ZmqPattern::pub: return e.subscribers > 0 ? ZMQ_XPUB : ZMQ_PUB;
    case ZmqPattern::sub: return ZMQ_SUB;
    case ZmqPattern::push: return ZMQ_PUSH;
    case ZmqPattern::pull: return ZMQ_PULL;
  }
  return ZMQ_SUB;
}

double seconds_value(const std::string& spec, const std::string& key, const std::string& text, bool allow_zero) {
  const auto value = parse_number(text);
  if (!value || *value < 0 || (*value == 0 && !allow_zero) || *value > 1e6)
    throw UsageError(spec + ": " + key + "='" + printable(text) + "' must be a number of seconds" +
                     (allow_zero ? " >= 0" : " > 0"));
  return *value;
}

}  // namespace

const char* ZmqEndpoint::pattern_name() const {
  switch (pattern) {
    case ZmqPattern::pub: return "PUB";
    case ZmqPattern::sub: return "SUB";
    case ZmqPattern::push: return "PUSH";
    case ZmqPattern::pull: return "PULL";
  }
  return "?";
}

bool is_zmq_spec(const std::string& text) { return text.rfind("zmq:", 0) == 0; }

ZmqEndpoint parse_zmq_spec(const std::string& spec, bool input) {
  ZmqEndpoint e;
  e.spec = spec;
  const std::string shown = printable(spec);
  const std::size_t colon = spec.find(':', 4);
  if (!is_zmq_spec(spec) || colon == std::string::npos)
    throw UsageError(shown + ": expected " + kSpecHelp);
  const std::string pattern = spec.substr(4, colon - 4);
  if (pattern == "sub") e.pattern = ZmqPattern::sub;
  else if (pattern == "pull") e.pattern = ZmqPattern::pull;
  else if (pattern == "pub") e.pattern = ZmqPattern::pub;
  else if (pattern == "push") e.pattern = ZmqPattern::push;
  else throw UsageError(shown + ": unknown ZeroMQ pattern '" + printable(pattern) + "'; expected " + kSpecHelp);
  if (e.is_input() != input)
    throw UsageError(shown + ": " + pattern + (input ? " is an output" : " is an input") + " pattern; " +
                     (input ? "inputs are zmq:sub:... and zmq:pull:..." : "outputs are zmq:pub:... and zmq:push:..."));

  std::string rest = spec.substr(colon + 1);
  std::string keys;
  if (const std::size_t question = rest.find('?'); question != std::string::npos) {
    keys = rest.substr(question + 1);
    rest.resize(question);
  }
  e.address = rest;
  const bool tcp = e.address.rfind("tcp://", 0) == 0, ipc = e.address.rfind("ipc://", 0) == 0;
  if ((!tcp && !ipc) || e.address.size() <= 6)
    throw UsageError(shown + ": the address must be tcp://HOST:PORT or ipc://PATH, not '" + printable(e.address) +
                     "'");
  if (tcp && e.address.find(':', 6) == std::string::npos)
    throw UsageError(shown + ": the tcp address needs a port (tcp://HOST:PORT)");

  e.tags = input ? TagMode::automatic : TagMode::on;
  for (const auto& [key, value] : split_key_values(keys, shown)) {
    if (key == "tags") {
      if (value == "on" || value == "true") e.tags = TagMode::on;
      else if (value == "off" || value == "false") e.tags = TagMode::off;
      else if (value == "auto" && input) e.tags = TagMode::automatic;
      else
        throw UsageError(shown + ": tags='" + printable(value) + "' must be on or off" + (input ? " or auto" : ""));
    } else if (key == "hwm") {
      const auto n = parse_integer(value);
      if (!n || *n < 1 || *n > 1000000)
        throw UsageError(shown + ": hwm='" + printable(value) + "' must be a number of messages, 1 to 1000000");
      e.high_water_mark = static_cast<int>(*n);
    } else if (key == "timeout") {
      e.timeout_s = seconds_value(shown, key, value, false);
    } else if (key == "linger" && !input) {
      e.linger_s = seconds_value(shown, key, value, true);
    } else if (key == "subscribers" && e.pattern == ZmqPattern::pub) {
      const auto n = parse_integer(value);
      if (!n || *n < 0 || *n > 1000)
        throw UsageError(shown + ": subscribers='" + printable(value) + "' must be a count of subscribers, 0 to 1000");
      e.subscribers = static_cast<int>(*n);
    } else if (key == "topic") {
      if (value == "true") throw UsageError(shown + ": topic needs a value (topic=TEXT)");
      e.topic = value;
    } else {
      throw UsageError(shown + ": unknown key '" + printable(key) + "'; " + pattern + " " +
                       (input ? "inputs" : "outputs") + " take " +
                       (input ? "tags, hwm, timeout and topic"
                              : e.pattern == ZmqPattern::pub ? "tags, hwm, timeout, linger, topic and subscribers"
                                                             : "tags, hwm, timeout, linger and topic"));
    }
  }
  return e;
}

std::string zmq_error_text() { return zmq_strerror(zmq_errno()); }

ZmqSocket::ZmqSocket(const ZmqEndpoint& e) {
  context_ = zmq_ctx_new();
  if (context_ == nullptr) throw InputError(e.spec, "cannot create a ZeroMQ context: " + zmq_error_text());
  socket_ = zmq_socket(context_, socket_type(e));
  if (socket_ == nullptr) {
    const std::string reason = zmq_error_text();
    zmq_ctx_term(context_);
    throw InputError(e.spec, "cannot create a ZeroMQ socket: " + reason);
  }
  try {
    const int hwm = e.high_water_mark;
    // An input sends only its subscriptions, which a reconnection sends again: closing it must
    // not wait for a publisher that has gone (its queued subscription would hold the exit for
    // the whole linger).
    const int linger = e.is_input() ? 0 : static_cast<int>(std::lround(e.linger_s * 1000));
    bool ok = zmq_setsockopt(socket_, e.is_input() ? ZMQ_RCVHWM : ZMQ_SNDHWM, &hwm, sizeof hwm) == 0 &&
              zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger) == 0;
    if (ok && e.pattern == ZmqPattern::sub)
      ok = zmq_setsockopt(socket_, ZMQ_SUBSCRIBE, e.topic.data(), e.topic.size()) == 0;
    if (ok && e.pattern == ZmqPattern::pub && e.subscribers > 0) {
      // Every subscription and every unsubscription (a SUB leaving, or closing), not only the
      // first and last of each topic: the sender counts the subscribers present.
      const int verboser = 1;
      ok = zmq_setsockopt(socket_, ZMQ_XPUB_VERBOSER, &verboser, sizeof verboser) == 0;
      // At a subscriber's high-water mark the send waits (within timeout=) instead of dropping:
      // the subscribers waited for get every message, paced by the slowest, as PUSH's receiver.
      const int nodrop = 1;
      ok = ok && zmq_setsockopt(socket_, ZMQ_XPUB_NODROP, &nodrop, sizeof nodrop) == 0;
    }
    if (!ok) throw InputError(e.spec, "cannot set the socket's options: " + zmq_error_text());
    if (e.is_input()) {
      if (zmq_connect(socket_, e.address.c_str()) != 0)
        throw InputError(e.spec, "cannot connect to " + printable(e.address) + ": " + zmq_error_text());
    } else if (zmq_bind(socket_, e.address.c_str()) != 0) {
      const int error = zmq_errno();
      throw InputError(e.spec, "cannot bind " + printable(e.address) + ": " + zmq_strerror(error) +
                                   (error == EADDRINUSE ? " (another program, or another output, listens there)" : ""));
    }
  } catch (...) {
    set_linger_ms(0);
    zmq_close(socket_);
    zmq_ctx_term(context_);
    throw;
  }
}

ZmqSocket::~ZmqSocket() {
  zmq_close(socket_);
  zmq_ctx_term(context_);  // waits up to the linger for queued messages to leave
}

void ZmqSocket::set_linger_ms(int ms) { zmq_setsockopt(socket_, ZMQ_LINGER, &ms, sizeof ms); }

std::string ZmqSocket::bound_address() const {
  char text[512];
  std::size_t size = sizeof text;
  if (zmq_getsockopt(socket_, ZMQ_LAST_ENDPOINT, text, &size) != 0 || size == 0) return {};
  return std::string(text, size - 1);
}

}  // namespace prism::net
