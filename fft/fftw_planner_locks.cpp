// The locks of FFTW's single- and double-precision planners (fftw_planner_locks.hpp).
#include "fft/fftw_planner_locks.hpp"

namespace prism::fft {

std::mutex& fftw_single_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::mutex& fftw_double_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace prism::fft
