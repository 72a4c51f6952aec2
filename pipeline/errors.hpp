// Error types that carry the exit code a command-line run should end with.
//   UsageError: the command line is wrong (exit 2), the message names the option.
//   InputError: an input (or output) file cannot be used (exit 1), the message names
//               the path and what is wrong with it.
// Anything else that escapes a stage is a runtime failure (exit 1).
#pragma once

#include <stdexcept>
#include <string>

namespace prism {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

}  // namespace prism
