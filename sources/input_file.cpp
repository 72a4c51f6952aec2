// Opening and reading input files for the file sources (see input_file.hpp).
#include "sources/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <utility>

#include "pipeline/errors.hpp"

namespace prism {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

OpenedInput open_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) throw InputError(path, "no such file");
    throw InputError(path, std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a file");

  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw InputError(path, std::strerror(errno));
  OpenedInput input{FileDescriptor(fd), false, 0};

  // fstat again on the descriptor: the path may have changed between stat and open.
  if (::fstat(fd, &st) != 0) throw InputError(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a file");
  input.regular = S_ISREG(st.st_mode);
  input.size = input.regular ? static_cast<std::uint64_t>(st.st_size) : 0;

  if (input.regular) {
    std::byte probe;
    ssize_t got;
    do {
      got = ::pread(fd, &probe, 1, 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) throw InputError(path, std::strerror(errno));
  }
  return input;
}

namespace {
// Linux transfers at most 0x7ffff000 bytes per call; ask for no more so a short count
// always means end of input or a signal, never the kernel's cap.
constexpr std::size_t kMaxTransfer = 0x7ffff000;
}  // namespace

std::size_t read_fully(int fd, std::byte* dst, std::size_t bytes, const std::string& name) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::read(fd, dst + done, std::min(bytes - done, kMaxTransfer));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(name, std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::size_t pread_fully(int fd, std::byte* dst, std::size_t bytes, std::uint64_t offset,
                        const std::string& name) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, dst + done, std::min(bytes - done, kMaxTransfer),
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(name, std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string lower_extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = file.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string ext(file.substr(dot));
  for (char& c : ext)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return ext;
}

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
  if (suffix.size() > text.size()) return false;
  const std::string_view tail = text.substr(text.size() - suffix.size());
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    char a = tail[i], b = suffix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

void swap_byte_order(std::byte* data, std::size_t count, std::size_t width) {
  for (std::size_t i = 0; i < count; ++i) std::reverse(data + i * width, data + (i + 1) * width);
}

std::string number_text(double value) {
  // Whole numbers in full ("2400000", not "2.4e+06"): rates and frequencies read better so.
  if (std::abs(value) < 1e15 && value == std::trunc(value))
    return std::to_string(static_cast<long long>(value));
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string not_whole_samples_reason(std::uint64_t bytes, std::size_t frame_bytes,
                                     unsigned channels, std::string_view format_name) {
  std::string reason = std::to_string(bytes) + " bytes is not a whole number of samples (" +
                       std::string(format_name) + ": " +
                       std::to_string(frame_bytes / channels) + " bytes per sample";
  if (channels > 1)
    reason += " x " + std::to_string(channels) + " channels = " + std::to_string(frame_bytes) +
              " bytes per frame";
  reason += "; " + std::to_string(bytes / frame_bytes) + " whole, " +
            std::to_string(bytes % frame_bytes) + " stray bytes)";
  return reason;
}

}  // namespace prism
