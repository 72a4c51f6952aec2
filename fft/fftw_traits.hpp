// FFTW's single-precision (fftwf_) and double-precision (fftw_) interfaces under one name,
// FftwApi<float> and FftwApi<double>, for the CPU code of fft/ that is written once for both
// (fftw_backend.cpp, dct.cpp); with each precision's planner lock (fftw_planner_locks.hpp).
#pragma once

#include <fftw3.h>

#include <mutex>

#include "fft/fftw_planner_locks.hpp"

namespace prism::fft {

template <typename Real>
struct FftwApi;

template <>
struct FftwApi<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static std::mutex& planner_mutex() { return fftw_single_planner_mutex(); }
  static Plan dft(int n, Complex* in, Complex* out, int sign, unsigned flags) {
    return fftwf_plan_dft_1d(n, in, out, sign, flags);
  }
  static Plan dft_r2c(int n, float* in, Complex* out, unsigned flags) { return fftwf_plan_dft_r2c_1d(n, in, out, flags); }
  static Plan dft_c2r(int n, Complex* in, float* out, unsigned flags) { return fftwf_plan_dft_c2r_1d(n, in, out, flags); }
  static Plan dft_nd(int rank, const int* n, Complex* in, Complex* out, int sign, unsigned flags) {
    return fftwf_plan_dft(rank, n, in, out, sign, flags);
  }
  static Plan dft_r2c_nd(int rank, const int* n, float* in, Complex* out, unsigned flags) {
    return fftwf_plan_dft_r2c(rank, n, in, out, flags);
  }
  static Plan dft_c2r_nd(int rank, const int* n, Complex* in, float* out, unsigned flags) {
    return fftwf_plan_dft_c2r(rank, n, in, out, flags);
  }
  static Plan r2r(int n, float* in, float* out, fftw_r2r_kind kind, unsigned flags) {
    return fftwf_plan_r2r_1d(n, in, out, kind, flags);
  }
  static void execute_dft(Plan p, Complex* in, Complex* out) { fftwf_execute_dft(p, in, out); }
  static void execute_dft_r2c(Plan p, float* in, Complex* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void execute_dft_c2r(Plan p, Complex* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void execute_r2r(Plan p, float* in, float* out) { fftwf_execute_r2r(p, in, out); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(float* p) { return fftwf_alignment_of(p); }
};

template <>
struct FftwApi<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static std::mutex& planner_mutex() { return fftw_double_planner_mutex(); }
  static Plan dft(int n, Complex* in, Complex* out, int sign, unsigned flags) {
    return fftw_plan_dft_1d(n, in, out, sign, flags);
  }
  static Plan dft_r2c(int n, double* in, Complex* out, unsigned flags) { return fftw_plan_dft_r2c_1d(n, in, out, flags); }
  static Plan dft_c2r(int n, Complex* in, double* out, unsigned flags) { return fftw_plan_dft_c2r_1d(n, in, out, flags); }
  static Plan dft_nd(int rank, const int* n, Complex* in, Complex* out, int sign, unsigned flags) {
    return fftw_plan_dft(rank, n, in, out, sign, flags);
  }
  static Plan dft_r2c_nd(int rank, const int* n, double* in, Complex* out, unsigned flags) {
    return fftw_plan_dft_r2c(rank, n, in, out, flags);
  }
  static Plan dft_c2r_nd(int rank, const int* n, Complex* in, double* out, unsigned flags) {
    return fftw_plan_dft_c2r(rank, n, in, out, flags);
  }
  static Plan r2r(int n, double* in, double* out, fftw_r2r_kind kind, unsigned flags) {
    return fftw_plan_r2r_1d(n, in, out, kind, flags);
  }
  static void execute_dft(Plan p, Complex* in, Complex* out) { fftw_execute_dft(p, in, out); }
  static void execute_dft_r2c(Plan p, double* in, Complex* out) { fftw_execute_dft_r2c(p, in, out); }
  static void execute_dft_c2r(Plan p, Complex* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void execute_r2r(Plan p, double* in, double* out) { fftw_execute_r2r(p, in, out); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
  static int alignment_of(double* p) { return fftw_alignment_of(p); }
};

}  // namespace prism::fft
