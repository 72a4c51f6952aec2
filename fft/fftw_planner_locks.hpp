// The locks of FFTW's planners. FFTW's planner (and fftw_destroy_plan) is not thread-safe, so
// every plan of each FFTW library is made and destroyed under that library's one lock; executing
// a plan needs none. Single precision (fftwf): the FFT backend and the float DCT; double
// precision (fftw): the double DCT, filter design, the windows and the GPU fir's plan.
#pragma once

#include <mutex>

namespace prism::fft {

std::mutex& fftw_single_planner_mutex();
std::mutex& fftw_double_planner_mutex();

}  // namespace prism::fft
