// FFTW in double precision, as filter design and the windows use it: FFTW's planner is not
// thread-safe, so every plan of the double-precision library is made and destroyed under this
// one lock (executing a plan needs none).
#pragma once

#include <mutex>

namespace prism {

std::mutex& fftw_double_planner_mutex();

}  // namespace prism
