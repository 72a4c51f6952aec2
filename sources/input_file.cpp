// Opening and reading input files for the file sources (see input_file.hpp).
#include "sources/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

unsigned ParallelFileReader::default_threads() {
  const unsigned hardware = std::thread::hardware_concurrency();
  return std::clamp(hardware / 2, 1u, 4u);
}

ParallelFileReader::ParallelFileReader(int fd, std::string name, unsigned threads, std::size_t min_part)
    : fd_(fd), name_(std::move(name)), threads_(std::max(threads, 1u)), min_part_(std::max<std::size_t>(min_part, 1)) {}

ParallelFileReader::~ParallelFileReader() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ParallelFileReader::run_part(Part& part) noexcept {
  try {
    part.got = pread_fully(fd_, part.dst, part.bytes, part.offset, name_);
  } catch (...) {
    part.error = std::current_exception();
  }
}

void ParallelFileReader::work(std::size_t index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock lock(mutex_);
    start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const bool mine = index + 1 < active_parts_;
    lock.unlock();
    if (!mine) continue;
    run_part(parts_[index + 1]);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

std::size_t ParallelFileReader::read_at(std::byte* dst, std::size_t bytes, std::uint64_t offset) {
  const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(threads_, bytes / min_part_));
  if (count <= 1) return pread_fully(fd_, dst, bytes, offset, name_);
  if (workers_.empty()) {
    parts_.resize(threads_);
    for (std::size_t i = 0; i + 1 < threads_; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  // Equal parts on 4096-byte boundaries (page-aligned copies); the last takes the rest.
  const std::size_t share = bytes / count / 4096 * 4096;
  for (std::size_t i = 0; i < count; ++i) {
    Part& part = parts_[i];
    part = Part{};
    part.dst = dst + i * share;
    part.offset = offset + i * share;
    part.bytes = i + 1 < count ? share : bytes - i * share;
  }
  {
    std::lock_guard lock(mutex_);
    active_parts_ = count;
    pending_ = count - 1;
    ++generation_;
  }
  start_.notify_all();
  run_part(parts_[0]);
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (parts_[i].error) std::rethrow_exception(parts_[i].error);
  }
  for (std::size_t i = 0; i < count; ++i) {
    total += parts_[i].got;
    if (parts_[i].got < parts_[i].bytes) break;
  }
  return total;
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
