// Helpers shared by the tests of sources/: a scratch directory removed after each test, file
// writing, reading a whole source in chunks, and checks on the messages of expected errors.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/source.hpp"

namespace prism::test {

// A fresh directory under the system's temp dir, removed with everything in it on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "prism-sources-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(std::string_view name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const void* data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline void write_file(const std::string& path, std::string_view text) {
  write_file(path, text.data(), text.size());
}

inline void write_file(const std::string& path, const std::vector<std::byte>& bytes) {
  write_file(path, bytes.data(), bytes.size());
}

inline std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// Reads `source` to its end (or `limit` samples) in reads of `chunk` samples; returns the bytes.
inline std::vector<std::byte> read_all(Source& source, std::size_t chunk,
                                       std::uint64_t limit = UINT64_MAX) {
  const std::size_t frame = source.info().frame_bytes();
  std::vector<std::byte> out;
  std::vector<std::byte> buffer(chunk * frame);
  std::uint64_t total = 0;
  while (total < limit) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, limit - total));
    const std::size_t got = source.read(buffer.data(), want);
    if (got == 0) break;
    EXPECT_LE(got, want);
    out.insert(out.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(got * frame));
    total += got;
  }
  return out;
}

// Runs `action`, which must throw `Error`; returns the message (empty, and a failure, when it
// does not throw or throws something else).
template <typename Error, typename Action>
std::string error_message(Action&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace prism::test

// Passes when `text` contains `part`; prints both when it does not.
#define EXPECT_CONTAINS(text, part)                                                         \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                \
      << "expected \"" << (part) << "\" in \"" << (text) << "\""
