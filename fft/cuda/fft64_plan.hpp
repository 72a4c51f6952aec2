// The planner of our double-precision CUDA FFT: a PlanSpec of Backend precision float64 becomes
// one or two passes (fft64_pass.hpp) with their tables. Lengths whose prime factors are all at
// most 13 take one Stockham pass in shared memory where a transform fits a block (two planes of
// double pairs: up to 7263 points in Hopper's 227 KB), and two passes above (four-step, n = n1·n2,
// the twiddle fused into the first pass's store) where n splits into two such lengths (powers of
// two up to 2^24, nothing above 7263²). An r2c in one pass takes two real rows per complex
// transform, the split of their spectra fused into the store; the other real transforms run
// through a complex one: a c2r of even length through the inverse of half its length (the
// Hermitian input folded on load, the even and odd outputs stored as one complex value; half the
// work, as the r2c's pairing), the others through the full length, the real load or the
// Hermitian expansion fused into the first pass and the half-spectrum or real-part store into
// the last. Other lengths are
// not ours (fp64_plan_problem says why), and the backend gives them to cuFFT's double plans.
// Host-only C++, so the host executor runs the same layout in CI.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fft/cuda/fft64_pass.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/fft.hpp"

namespace prism::fft::gpu {

// Threads per block of the double-precision pass kernel, at most: a thread per radix-8 butterfly
// of 4096 points, 16 warps where one such transform fills a block.
inline constexpr int kFp64BlockThreads = 512;

struct Fp64Step {
  Fp64PassDesc pass;
  BufferRef src = BufferRef::input;
  BufferRef dst = BufferRef::output;
  // Offsets into Fp64Layout::table: the pass's roots exp(−2πi·m/length), m < length, its
  // four-step twiddles' coarse and fine factors, and a half-length c2r's exp(2πi·k/N), k < N/2
  // (-1: none).
  long long roots = 0;
  long long coarse = -1;
  long long fine = -1;
  long long half_roots = -1;
};

struct Fp64Layout {
  PlanSpec spec;
  std::vector<Fp64Step> steps;
  std::vector<Cd> table;             // every step's tables, computed in long double, rounded once
  long long scratch_elements = 0;    // Cd per transform of the batch in BufferRef::scratch
  std::string algorithm;             // e.g. "fp64 stockham 8x8x8x8", "fp64 four-step 64x128 (...)"
};

// The longest transform one pass holds in `max_shared_bytes` (two planes and one pair of
// padding).
long long fp64_max_pass_length(long long max_shared_bytes);
// Why our double-precision kernels do not take spec ("length 4097 has the prime factor 17, above
// 13", "length 33554432 has no split into two factors of at most 7263"); empty where they do.
std::string fp64_plan_problem(const PlanSpec& spec, long long max_shared_bytes = kMaxSharedBytesPerBlock);
// The layout; throws std::invalid_argument with fp64_plan_problem's reason where there is none.
Fp64Layout make_fp64_layout(const PlanSpec& spec, long long max_shared_bytes = kMaxSharedBytesPerBlock);
// Dynamic shared memory of a pass's launch: per_block transforms of fp64_plane_stride pairs.
long long fp64_shared_bytes(const Fp64PassDesc& pass);

// Runs the layout on the host for `rows` transforms of the batch as the kernel runs it: block by
// block, each block's transforms loaded in the kernel's order before any is stored, the same
// loads, butterflies (the lean kernel's where it runs), twiddles and stores (fft64_pass.hpp),
// stage after stage. A one-plane pass runs from plane to plane here: the same arithmetic, as the
// kernel's barrier between a stage's reads and writes makes it one.
void execute_fp64_on_host(const Fp64Layout& layout, const void* in, void* out, std::size_t rows);

}  // namespace prism::fft::gpu
