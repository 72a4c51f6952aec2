// Complex arithmetic in single precision (Cf) and double precision (Cd) shared by the CUDA kernels
// and the host (CPU) executor of the same plans. Everything here is __host__ __device__ so that
// the CPU executor runs the very arithmetic the GPU runs.
#pragma once

#if defined(__CUDACC__)
#define PRISM_HD __host__ __device__ __forceinline__
#else
#define PRISM_HD inline
#endif

// Full unrolling of fixed-trip loops in code shared with the host compiler, which would warn
// about the CUDA pragma.
#if defined(__CUDACC__)
#define PRISM_UNROLL _Pragma("unroll")
#define PRISM_NO_UNROLL _Pragma("unroll 1")
#else
#define PRISM_UNROLL
#define PRISM_NO_UNROLL
#endif

namespace prism::fft::gpu {

// Interleaved (re, im) pair with the layout and alignment of CUDA's float2.
struct alignas(8) Cf {
  float re;
  float im;
};

PRISM_HD constexpr Cf operator+(Cf a, Cf b) { return Cf{a.re + b.re, a.im + b.im}; }
PRISM_HD constexpr Cf operator-(Cf a, Cf b) { return Cf{a.re - b.re, a.im - b.im}; }
PRISM_HD constexpr Cf operator*(Cf a, float s) { return Cf{a.re * s, a.im * s}; }
PRISM_HD constexpr Cf cmul(Cf a, Cf b) {
  return Cf{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// a * conj(b)
PRISM_HD constexpr Cf cmul_conj(Cf a, Cf b) {
  return Cf{a.re * b.re + a.im * b.im, a.im * b.re - a.re * b.im};
}
PRISM_HD constexpr Cf conj(Cf a) { return Cf{a.re, -a.im}; }
// a * (-i)
PRISM_HD constexpr Cf mul_neg_i(Cf a) { return Cf{a.im, -a.re}; }
// a * (+i)
PRISM_HD constexpr Cf mul_i(Cf a) { return Cf{-a.im, a.re}; }

// Interleaved (re, im) double pair with the layout and alignment of CUDA's double2: 16-byte
// aligned, so that kernels read and write one in shared memory as a single 16-byte access
// (ld/st.shared.v2.f64).
struct alignas(16) Cd {
  double re;
  double im;
};

PRISM_HD constexpr Cd operator+(Cd a, Cd b) { return Cd{a.re + b.re, a.im + b.im}; }
PRISM_HD constexpr Cd operator-(Cd a, Cd b) { return Cd{a.re - b.re, a.im - b.im}; }
PRISM_HD constexpr Cd cmul(Cd a, Cd b) { return Cd{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
PRISM_HD constexpr Cd conj(Cd a) { return Cd{a.re, -a.im}; }
PRISM_HD constexpr Cd mul_neg_i(Cd a) { return Cd{a.im, -a.re}; }

}  // namespace prism::fft::gpu
