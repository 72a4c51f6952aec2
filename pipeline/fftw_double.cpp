// The lock of FFTW's double-precision planner (fftw_double.hpp).
#include "pipeline/fftw_double.hpp"

namespace prism {

std::mutex& fftw_double_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace prism
