// with_quiet_stderr: runs a call with the process's stderr sent to /dev/null. Device libraries
// (ALSA and JACK under PortAudio, SoapySDR's modules) print pages of probing messages while
// they initialise or enumerate, which would bury prism's own output.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace prism {

template <typename F>
auto with_quiet_stderr(F&& f) {
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
  // Restores stderr however f() leaves (a device library may throw).
  struct Restore {
    int saved, null_fd;
    ~Restore() {
      std::fflush(stderr);
      if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
      }
      if (null_fd >= 0) close(null_fd);
    }
  } restore{saved, null_fd};
  return f();
}

}  // namespace prism
