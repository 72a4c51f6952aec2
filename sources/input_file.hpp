// Input files for the file sources: opening with errors that name the path and the reason,
// reads that loop until the buffer is full (also several threads at once on one large range),
// and the small byte-level helpers the sources share (extensions, byte order). Internal to
// sources/.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace prism {

// Owns a POSIX file descriptor; closes it on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// An opened input and what fstat said about it.
struct OpenedInput {
  FileDescriptor fd;
  bool regular = false;     // a regular file: its size is its length
  std::uint64_t size = 0;   // bytes, for regular files
};

// Opens `path` for reading. Throws InputError(path, reason) when it does not exist ("no such
// file"), is a directory ("is a directory, not a file"), cannot be opened (strerror), or is a
// regular file whose first byte cannot be read (strerror: catches files that open but fail on
// read, such as /proc/self/mem, before a format parser turns the failure into a vaguer
// message).
OpenedInput open_input_file(const std::string& path);

// Reads until `bytes` bytes are in `dst` or the input ends; retries on EINTR. Returns the
// bytes read (fewer than asked only at the end of input). Throws InputError(name, strerror).
std::size_t read_fully(int fd, std::byte* dst, std::size_t bytes, const std::string& name);

// Like read_fully, from `offset` without moving the file position.
std::size_t pread_fully(int fd, std::byte* dst, std::size_t bytes, std::uint64_t offset,
                        const std::string& name);

// Reads large ranges of a regular file as parts side by side, each by its own thread (pread
// on disjoint ranges). One thread copying out of the page cache moves about 10 GB/s, less than
// the GPU engine takes; parts of at least `min_part` bytes keep the threads' hand-over small
// against the copy. Worker threads start with the first read that splits. Not for concurrent
// use: one caller at a time.
class ParallelFileReader {
 public:
  // Threads that read at once by default: half the hardware threads, at most 4 (1: no workers).
  static unsigned default_threads();
  static constexpr std::size_t kDefaultMinPart = std::size_t{4} << 20;

  ParallelFileReader(int fd, std::string name, unsigned threads = default_threads(),
                     std::size_t min_part = kDefaultMinPart);
  ~ParallelFileReader();
  ParallelFileReader(const ParallelFileReader&) = delete;
  ParallelFileReader& operator=(const ParallelFileReader&) = delete;

  // As pread_fully: the bytes read, fewer than asked only at the end of the file (counted up
  // to the first part that came up short). Throws InputError(name, strerror).
  std::size_t read_at(std::byte* dst, std::size_t bytes, std::uint64_t offset);

 private:
  struct Part {
    std::byte* dst = nullptr;
    std::size_t bytes = 0;
    std::uint64_t offset = 0;
    std::size_t got = 0;
    std::exception_ptr error;
  };
  void run_part(Part& part) noexcept;
  void work(std::size_t index);

  int fd_;
  std::string name_;
  unsigned threads_;
  std::size_t min_part_;
  std::vector<std::thread> workers_;  // worker i reads parts_[i + 1]
  std::vector<Part> parts_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::uint64_t generation_ = 0;  // one per split read
  std::size_t active_parts_ = 0;  // parts of this generation, the caller's included
  std::size_t pending_ = 0;       // worker parts not finished
  bool stopping_ = false;
};

// True when `text` ends with `suffix`, ignoring ASCII case.
bool ends_with_ignoring_case(std::string_view text, std::string_view suffix);

// Reverses the byte order of `count` values of `width` bytes (2 or 4) in place: turns
// big-endian samples into the little-endian ones blocks carry.
void swap_byte_order(std::byte* data, std::size_t count, std::size_t width);

// "1001 bytes is not a whole number of samples (...)": the message for inputs whose length
// does not divide into frames, with every number a user needs to find the cause.
std::string not_whole_samples_reason(std::uint64_t bytes, std::size_t frame_bytes,
                                     unsigned channels, std::string_view format_name);

}  // namespace prism
