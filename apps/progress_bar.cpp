// Progress bar drawing (see progress_bar.hpp).
#include "apps/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pipeline/run_summary.hpp"

namespace prism::app {

ProgressBar::ProgressBar(std::string unit, bool enabled) : unit_(std::move(unit)), enabled_(enabled) {}

ProgressBar::~ProgressBar() { clear(); }

bool ProgressBar::stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

namespace {
std::string format_duration(double seconds) {
  char text[32];
  if (seconds < 0 || seconds > 1e7) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else std::snprintf(text, sizeof text, "%02ld:%02ld", s / 60, s % 60);
  return text;
}
}  // namespace

void ProgressBar::update(std::uint64_t done, std::optional<std::uint64_t> total,
                         double elapsed_seconds) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double rate = elapsed_seconds > 0 ? static_cast<double>(done) / elapsed_seconds : 0.0;
  char line[160];
  if (total && *total > 0) {
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(*total));
    constexpr int kWidth = 30;
    char bar[kWidth + 1];
    const int filled = static_cast<int>(fraction * kWidth);
    for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
    bar[kWidth] = '\0';
    const double eta = rate > 0 ? static_cast<double>(*total - std::min(done, *total)) / rate : -1;
    std::snprintf(line, sizeof line, "\r[%s] %5.1f%%  %s%s/s  ETA %s ", bar, fraction * 100.0,
                  format_count(rate).c_str(), unit_.c_str(), format_duration(eta).c_str());
  } else {
    std::snprintf(line, sizeof line, "\r%s%s  %s%s/s  %s ", format_count(static_cast<double>(done)).c_str(),
                  unit_.c_str(), format_count(rate).c_str(), unit_.c_str(),
                  format_duration(elapsed_seconds).c_str());
  }
  std::fputs(line, stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!enabled_ || !drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace prism::app
