// PartialFile and the output-path check (see output_file.hpp).
#include "sinks/output_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pipeline/errors.hpp"

namespace prism {
namespace {

// Large enough that a sink writing one short row at a time does not make a system call per
// row, small enough to be irrelevant next to the rows themselves.
constexpr std::size_t kBufferCapacity = 64 * 1024;

}  // namespace

PartialFile::PartialFile(std::string final_path)
    : final_path_(std::move(final_path)),
      partial_path_(final_path_ + ".partial"),
      display_name_(final_path_ == kStdout ? "stdout" : final_path_) {}

PartialFile::~PartialFile() {
  if (!published_) discard();
}

void PartialFile::fail(const std::string& what, int error_number) const {
  if (target_ == Target::stdout_spooled) {
    throw InputError(display_name_, "the temporary file in " + spool_directory_ +
                                        " (TMPDIR) that holds the output until its end: " + what +
                                        std::strerror(error_number) +
                                        "; set TMPDIR to a directory with room, or redirect stdout to a file");
  }
  throw InputError(display_name_, what + std::strerror(error_number));
}

void PartialFile::open_stdout() {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) fail("cannot write to it: ", errno);
  const int flags = ::fcntl(STDOUT_FILENO, F_GETFL);
  // /dev/null takes writes at any offset: no need to spool what it throws away.
  const bool null_device = S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
  const off_t position = S_ISREG(st.st_mode) || null_device ? ::lseek(STDOUT_FILENO, 0, SEEK_CUR) : -1;
  // O_APPEND ignores pwrite's offset on Linux, so an appending stdout is spooled like a pipe.
  if (position >= 0 && flags >= 0 && (flags & O_APPEND) == 0) {
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) fail("cannot write to it: ", errno);
    target_ = Target::stdout_direct;
    base_ = static_cast<std::uint64_t>(position);
    // What the file held past this point would otherwise trail the output (`1<> file`).
    if (!null_device && ::ftruncate(fd_, position) != 0) {
      const int error_number = errno;
      ::close(fd_);
      fd_ = -1;
      fail("cannot write to it: ", error_number);
    }
    return;
  }
  const char* tmpdir = std::getenv("TMPDIR");
  spool_directory_ = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  fd_ = ::open(spool_directory_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without O_TMPFILE: a named file, unlinked at once.
    std::string name = spool_directory_ + "/prism-stdout-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(name.c_str());
  }
  if (fd_ < 0) {
    const int error_number = errno;
    throw InputError(display_name_, "cannot create a temporary file in " + spool_directory_ +
                                        " (TMPDIR) to hold the output until its end (stdout is a pipe, and "
                                        "the .npy header's row count is known only then): " +
                                        std::strerror(error_number));
  }
  target_ = Target::stdout_spooled;
}

void PartialFile::open() {
  if (fd_ >= 0) return;
  if (is_stdout()) {
    open_stdout();
    created_ = true;
    published_ = false;
    reader_gone_ = false;
    size_ = 0;
    buffer_.clear();
    buffer_.reserve(kBufferCapacity);
    return;
  }
  fd_ = ::open(partial_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int error_number = errno;
    throw InputError(final_path_, "cannot create " + partial_path_ + ": " +
                                      std::strerror(error_number));
  }
  created_ = true;
  published_ = false;
  size_ = 0;
  buffer_.clear();
  buffer_.reserve(kBufferCapacity);
}

// Every write names its offset (pwrite): appends and rewrites mix without the descriptor's
// position having to follow them.
void PartialFile::write_all(std::uint64_t offset, const unsigned char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, data, size, static_cast<off_t>(base_ + offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed: ", errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void PartialFile::flush_buffer() {
  if (buffer_.empty()) return;
  try {
    write_all(size_ - buffer_.size(), buffer_.data(), buffer_.size());
  } catch (...) {
    buffer_.clear();  // so that close() after a failed write does not try them again
    throw;
  }
  buffer_.clear();
}

void PartialFile::write(const void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(display_name_, "write to a file that is not open");
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (buffer_.size() + size > kBufferCapacity) flush_buffer();
  if (size >= kBufferCapacity) {
    write_all(size_, bytes, size);  // large writes skip the buffer
  } else {
    buffer_.insert(buffer_.end(), bytes, bytes + size);
  }
  size_ += size;
}

void PartialFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(display_name_, "write to a file that is not open");
  flush_buffer();
  write_all(offset, static_cast<const unsigned char*>(data), size);
  size_ = std::max<std::uint64_t>(size_, offset + size);
}

std::size_t PartialFile::read_at(std::uint64_t offset, void* data, std::size_t size) {
  if (fd_ < 0) throw InputError(display_name_, "read from a file that is not open");
  flush_buffer();
  auto* p = static_cast<unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, p + done, size - done, static_cast<off_t>(base_ + offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("read back failed: ", errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

void PartialFile::close() {
  if (fd_ < 0) return;
  try {
    flush_buffer();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  // The spool stays open until publish() copies it to stdout.
  if (target_ == Target::stdout_spooled) return;
  // pwrite leaves stdout's position alone: move it past the output, so that whatever is written
  // to stdout next (`{ prism ... -o -; echo; } > f`) follows it.
  if (target_ == Target::stdout_direct &&
      ::lseek(STDOUT_FILENO, static_cast<off_t>(base_ + size_), SEEK_SET) < 0) {
    const int error_number = errno;
    ::close(fd_);
    fd_ = -1;
    fail("seek failed: ", error_number);
  }
  const int fd = fd_;
  fd_ = -1;
  // close() reports errors of delayed writes (e.g. on network file systems).
  if (::close(fd) != 0 && errno != EINTR) fail("close failed: ", errno);
}

void PartialFile::copy_spool_to_stdout() {
  std::vector<unsigned char> block(1 << 20);
  std::uint64_t offset = 0;
  while (offset < size_) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), size_ - offset));
    const std::size_t got = read_at(offset, block.data(), want);
    if (got == 0) fail("read back failed: ", EIO);
    std::size_t sent = 0;
    while (sent < got) {
      const ssize_t n = ::write(STDOUT_FILENO, block.data() + sent, got - sent);
      if (n >= 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {  // a non-blocking stdout: wait until it takes more
        pollfd out{STDOUT_FILENO, POLLOUT, 0};
        ::poll(&out, 1, -1);
        continue;
      }
      if (errno == EPIPE) {  // the reader has gone (`| head -c 100`): as every command, end quietly
        reader_gone_ = true;
        return;
      }
      throw InputError(display_name_, std::string("write failed: ") + std::strerror(errno));
    }
    offset += got;
  }
}

void PartialFile::publish() {
  if (target_ == Target::stdout_spooled) {
    if (!created_) throw InputError(display_name_, "nothing was written");
    flush_buffer();
    try {
      copy_spool_to_stdout();
    } catch (...) {
      discard();
      throw;
    }
    ::close(fd_);
    fd_ = -1;
    created_ = false;
    published_ = true;
    return;
  }
  if (fd_ >= 0) close();
  if (!created_) throw InputError(display_name_, "nothing was written");
  if (target_ == Target::stdout_direct) {
    created_ = false;
    published_ = true;
    return;
  }
  if (std::rename(partial_path_.c_str(), final_path_.c_str()) != 0) {
    const int error_number = errno;
    throw InputError(final_path_, "cannot rename " + partial_path_ + " into place: " +
                                      std::strerror(error_number));
  }
  created_ = false;
  published_ = true;
}

void PartialFile::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  buffer_.clear();
  if (!created_) return;
  created_ = false;
  switch (target_) {
    case Target::file: ::unlink(partial_path_.c_str()); break;
    case Target::stdout_direct:
      // Nothing of a failed output stays in the file stdout names.
      if (::ftruncate(STDOUT_FILENO, static_cast<off_t>(base_)) == 0)
        ::lseek(STDOUT_FILENO, static_cast<off_t>(base_), SEEK_SET);
      break;
    case Target::stdout_spooled: break;  // the unnamed spool went with its descriptor
  }
}

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(path, "empty output path");
  std::error_code ec;
  const fs::path target(path);
  if (fs::is_directory(target, ec))
    throw InputError(path, "is a directory, not a file name");
  fs::path directory = target.parent_path();
  if (directory.empty()) directory = ".";
  const auto status = fs::status(directory, ec);
  if (ec || !fs::exists(status)) {
    throw InputError(path, "output directory " + directory.string() + " does not exist");
  }
  if (!fs::is_directory(status))
    throw InputError(path, directory.string() + " is not a directory");
  // access() asks the kernel with the process's real credentials, which also covers read-only
  // mounts (EROFS) that the permission bits do not show.
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    const int error_number = errno;
    throw InputError(path, "output directory " + directory.string() + " is not writable: " +
                               std::strerror(error_number));
  }
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  PartialFile file(path);
  file.open();
  file.write(contents.data(), contents.size());
  file.commit();
}

}  // namespace prism
