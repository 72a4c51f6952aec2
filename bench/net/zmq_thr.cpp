// ZeroMQ's own throughput for one message size, the peer figure of bench/net/zmq_throughput.sh:
// what libzmq's perf/local_thr and perf/remote_thr measure (those programs are not in Debian's
// packages), with the sockets arranged as prism's are (the sender binds, the receiver connects,
// both with prism's default high-water mark) so that the two figures differ only by prism's work.
//
//   zmq_thr send    push|pub ADDRESS MESSAGE_BYTES COUNT [FILE]
//   zmq_thr receive pull|sub ADDRESS MESSAGE_BYTES COUNT
//
// The receiver prints MB/s from its first message to its last (local_thr's figure); a PUB sender
// waits a second for its subscriber to join, so that no message goes to nobody. With FILE the
// sender read(2)s each message from it into its buffer before zmq_send copies it from there, one
// after the other on one thread: a plain program that sends a recording's bytes, as prism does.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kHighWaterMark = 64;  // prism's zmq: default (docs/network.md)

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "zmq_thr: %s: %s\n", what, zmq_strerror(zmq_errno()));
  std::exit(1);
}

int socket_type(const std::string& pattern) {
  if (pattern == "push") return ZMQ_PUSH;
  if (pattern == "pub") return ZMQ_PUB;
  if (pattern == "pull") return ZMQ_PULL;
  if (pattern == "sub") return ZMQ_SUB;
  std::fprintf(stderr, "zmq_thr: unknown pattern %s (push, pub, pull or sub)\n", pattern.c_str());
  std::exit(2);
}

// Reads up to `bytes` from `fd`, as many as it holds; errno is 0 unless a read failed.
std::size_t read_fully(int fd, char* data, std::size_t bytes) {
  errno = 0;
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = read(fd, data + done, bytes - done);
    if (n < 0 && errno == EINTR) {
      errno = 0;
      continue;
    }
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && !(argc == 7 && std::string(argv[1]) == "send")) {
    std::fprintf(stderr, "usage: zmq_thr send|receive PATTERN ADDRESS MESSAGE_BYTES COUNT [FILE (send)]\n");
    return 2;
  }
  const std::string role = argv[1];
  const int type = socket_type(argv[2]);
  const char* address = argv[3];
  const std::size_t bytes = std::strtoull(argv[4], nullptr, 10);
  const long count = std::strtol(argv[5], nullptr, 10);
  if (bytes == 0 || count <= 0 || (role != "send" && role != "receive")) {
    std::fprintf(stderr, "zmq_thr: give send or receive, a message size and a count above 0\n");
    return 2;
  }
  int input = -1;
  if (argc == 7) {
    struct stat status {};
    if ((input = open(argv[6], O_RDONLY)) < 0 || fstat(input, &status) != 0) {
      std::fprintf(stderr, "zmq_thr: cannot read %s: %s\n", argv[6], std::strerror(errno));
      return 1;
    }
    // Checked before binding (a regular file's length): a sender that stopped short would leave
    // its receiver waiting.
    const auto length = static_cast<unsigned long long>(status.st_size);
    if (S_ISREG(status.st_mode) && length / static_cast<unsigned long long>(count) < bytes) {
      std::fprintf(stderr, "zmq_thr: %s holds fewer than %ld messages of %zu bytes\n", argv[6], count, bytes);
      return 1;
    }
  }
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, type);
  if (!socket) fail("zmq_socket");
  const int option = role == "send" ? ZMQ_SNDHWM : ZMQ_RCVHWM;
  if (zmq_setsockopt(socket, option, &kHighWaterMark, sizeof kHighWaterMark) != 0) fail("hwm");
  std::vector<char> message(bytes, 1);
  if (role == "send") {
    if (zmq_bind(socket, address) != 0) fail("zmq_bind");
    if (type == ZMQ_PUB) zmq_sleep(1);
    for (long i = 0; i < count; ++i) {
      if (input >= 0 && read_fully(input, message.data(), bytes) != bytes) {
        std::fprintf(stderr, "zmq_thr: reading %s: %s\n", argv[6], errno != 0 ? std::strerror(errno) : "it ended early");
        return 1;
      }
      if (zmq_send(socket, message.data(), bytes, 0) < 0) fail("zmq_send");
    }
  } else {
    if (type == ZMQ_SUB && zmq_setsockopt(socket, ZMQ_SUBSCRIBE, "", 0) != 0) fail("subscribe");
    if (zmq_connect(socket, address) != 0) fail("zmq_connect");
    if (zmq_recv(socket, message.data(), bytes, 0) < 0) fail("zmq_recv");
    const auto first = std::chrono::steady_clock::now();
    for (long i = 1; i < count; ++i)
      if (zmq_recv(socket, message.data(), bytes, 0) < 0) fail("zmq_recv");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count();
    std::printf("%ld messages of %zu bytes, %.1f MB/s from the first message to the last\n", count, bytes,
                static_cast<double>(count - 1) * static_cast<double>(bytes) / seconds / 1e6);
  }
  int linger = -1;  // a sender's close waits until every message has left
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  zmq_close(socket);
  zmq_ctx_term(context);
  return 0;
}
