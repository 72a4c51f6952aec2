// PartialFile: an output file written under "<path>.partial" and renamed into place when it is
// committed, so that an interrupted or failed run never leaves a file that looks complete.
// The path "-" is stdout: when stdout is a regular file that can seek (`> out.npy`) or
// /dev/null, the output is written there directly from its current position (and cut back on
// discard); otherwise (a pipe, `>> out.npy`) it is spooled to an unnamed temporary file in
// $TMPDIR (/tmp when unset), so that rewrites at an offset (a header's final row count) work,
// and copied to stdout when published. A reader of stdout that has gone ends the copy quietly
// (reader_gone()).
// Every write, flush and close is checked; a failure (disk full, I/O error) throws InputError
// naming the final path and strerror's reason. Also: the open-time check that an output's
// directory exists and is writable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace prism {

class PartialFile {
 public:
  // `final_path` "-" is stdout (kStdout).
  explicit PartialFile(std::string final_path);
  static constexpr const char* kStdout = "-";
  ~PartialFile();  // discards the partial file unless it was published
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  // Creates (or truncates) the partial file. InputError when it cannot be created.
  void open();
  bool is_open() const { return fd_ >= 0; }

  // Appends `size` bytes (buffered).
  void write(const void* data, std::size_t size);
  // Writes `size` bytes at `offset` (rewriting a header, or past the end); the buffer is
  // flushed first.
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  // Reads up to `size` bytes at `offset` back (a library that rewrites what it wrote); returns
  // how many, fewer only at the end.
  std::size_t read_at(std::uint64_t offset, void* data, std::size_t size);
  // The file's length, buffered bytes included.
  std::uint64_t size() const { return size_; }

  // Flushes and closes the partial file (checked). Separate from publish() so that a sink with
  // several files closes all of them before renaming any.
  void close();
  // Renames the closed partial file to the final path.
  void publish();
  // close() then publish().
  void commit() {
    close();
    publish();
  }
  // Closes and removes the partial file; never throws.
  void discard() noexcept;

  const std::string& path() const { return final_path_; }
  const std::string& partial_path() const { return partial_path_; }
  bool is_stdout() const { return final_path_ == kStdout; }
  // stdout only: the reader went away while the output was copied to it.
  bool reader_gone() const { return reader_gone_; }

 private:
  enum class Target { file, stdout_direct, stdout_spooled };
  void open_stdout();
  void copy_spool_to_stdout();
  void flush_buffer();
  void write_all(std::uint64_t offset, const unsigned char* data, std::size_t size);
  [[noreturn]] void fail(const std::string& what, int error_number) const;

  std::string final_path_;
  std::string partial_path_;
  std::string display_name_;  // the path, or "stdout"
  Target target_ = Target::file;
  std::uint64_t base_ = 0;     // stdout_direct: stdout's position when opened
  std::string spool_directory_;  // stdout_spooled: where the temporary file is
  bool reader_gone_ = false;
  int fd_ = -1;
  bool created_ = false;    // a partial file exists on disk (to be removed by discard)
  bool published_ = false;
  std::uint64_t size_ = 0;
  std::vector<unsigned char> buffer_;  // the last buffer_.size() bytes of size_, not yet written
};

// Checks, before any processing, that `path` can be created: its directory exists, is a
// directory and is writable, and `path` is not itself a directory. Throws InputError (path and
// reason) otherwise.
void check_output_path(const std::string& path);

// Writes a whole small file (e.g. a JSON sidecar) through a PartialFile and commits it.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace prism
