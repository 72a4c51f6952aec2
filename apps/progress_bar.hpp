// A progress bar on stderr for long runs: fraction, rate and ETA when the length is known,
// count and rate otherwise. Shown only when stderr is a terminal; silent in pipes and logs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace prism::app {

class ProgressBar {
 public:
  // `unit` names what is counted ("samples"); `enabled` false makes every call a no-op.
  ProgressBar(std::string unit, bool enabled);
  ~ProgressBar();

  // Redraws at most ~10 times a second.
  void update(std::uint64_t done, std::optional<std::uint64_t> total, double elapsed_seconds);
  // Clears the bar's line (before the summary is printed).
  void clear();

  // True when stderr is a terminal (and TERM is not "dumb").
  static bool stderr_is_terminal();

 private:
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace prism::app
