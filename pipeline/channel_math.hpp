// The arithmetic of the channel stages (shift, am, fm, cw) that the CPU's engines and the GPU's
// kernels share, item by item, so that both round alike: each function compiles for the host and,
// under nvcc, for the device. Every double operation is written out (the device's _rn
// intrinsics, which nvcc never contracts into an FMA; plain operators on the host, in files built
// with -ffp-contract=off, pipeline/CMakeLists.txt), so a result depends on the inputs alone.
//
// The one-pole recurrence y[n] = u[n] + a·y[n−1] of am's high-pass and fm's de-emphasis runs on
// the GPU by blocks of kOnePoleBlockItems items, aligned to the absolute item index:
//   local(n) = u[n] + a·local(n−1) from the block's first item (local = u there),
//   Y_k = a^B·Y_{k−1} + local(the block's last item)      the output at the end of block k,
//   y[n] = a^(t+1)·Y_{k−1} + local(n),  t = n − k·B.
// The blocks' local sums run in parallel, the chain of Y_k in one thread (a step per block, so
// blocks are long), and a call that starts or ends inside a block carries that block's local sum
// and Y_{k−1} to the next (OnePoleState), so every y[n] comes from the same operations however the
// input is cut. It equals the CPU's sequential recurrence to a few units of double rounding. The
// functions below are the GPU's three steps (one_pole_block, one_pole_chain_step and _end,
// one_pole_output); the host runs them in the same order in the tests (qa_GpuChannelPlan).
#pragma once

#include <cmath>
#include <cstddef>

#if defined(__CUDACC__)
#define PRISM_HOST_DEVICE __host__ __device__ inline
#else
#define PRISM_HOST_DEVICE inline
#endif

namespace prism::channel {

inline constexpr unsigned kOnePoleBlockItems = 1024;
// The mixer's phasor p(n) = a(n − n mod kPhasorBlockItems)·t(n mod kPhasorBlockItems) (mixer.hpp).
inline constexpr unsigned kPhasorBlockItems = 1024;

PRISM_HOST_DEVICE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
PRISM_HOST_DEVICE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
PRISM_HOST_DEVICE double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
// a·b + c rounded once, on both sides.
PRISM_HOST_DEVICE double fused(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// am: |x| in double precision.
PRISM_HOST_DEVICE double envelope(float re, float im) {
  const double r = re, i = im;
  return std::sqrt(add(mul(r, r), mul(i, i)));
}

// fm: arg(x[n]·conj(x[n−1]))·scale, arg in (−π, π]; a zero product (either sample zero) gives 0.
PRISM_HOST_DEVICE double discriminator(float re, float im, float previous_re, float previous_im, double scale) {
  const double pr = add(mul(re, previous_re), mul(im, previous_im));
  const double pi = sub(mul(im, previous_re), mul(re, previous_im));
  if (pr == 0 && pi == 0) return 0.0;
  return mul(std::atan2(pi, pr), scale);
}

// The one-pole's input u[n] = b0·v[n] + b1·v[n−1].
PRISM_HOST_DEVICE double one_pole_input(double b0, double b1, double v, double previous_v) {
  return add(mul(b0, v), mul(b1, previous_v));
}

// The mixer: p = anchor·t and x·p (complex input) or x_re·p (real input), each in double.
struct Phasor {
  double re, im;
};
PRISM_HOST_DEVICE Phasor phasor_product(double anchor_re, double anchor_im, double t_re, double t_im) {
  return {sub(mul(anchor_re, t_re), mul(anchor_im, t_im)), add(mul(anchor_re, t_im), mul(anchor_im, t_re))};
}
// The item in float (the single-precision stages, converted exactly) or in double.
PRISM_HOST_DEVICE Phasor mix_complex(double r, double i, Phasor p) {
  return {sub(mul(r, p.re), mul(i, p.im)), add(mul(r, p.im), mul(i, p.re))};
}
PRISM_HOST_DEVICE Phasor mix_real(double r, Phasor p) {
  return {mul(r, p.re), mul(r, p.im)};
}

// ---- the one-pole by blocks ----------------------------------------------------------------------

// What a call over items [first, first + items) carries in and out: Y_{k−1} of the block the next
// item falls in, and that block's local sum so far (0 at a block's start).
struct OnePoleState {
  double boundary = 0.0;
  double partial = 0.0;
};

struct OnePoleCall {
  unsigned long long first = 0;  // absolute index of the call's first item
  unsigned long long items = 0;  // > 0
  double a = 0.0;
  const double* powers = nullptr;  // a^(t+1) for t < kOnePoleBlockItems
  PRISM_HOST_DEVICE unsigned long long first_block() const { return first / kOnePoleBlockItems; }
  // The blocks the call touches.
  PRISM_HOST_DEVICE unsigned long long blocks() const { return (first + items - 1) / kOnePoleBlockItems - first_block() + 1; }
  // The blocks whose last item is in the call: all but the last when the call ends inside one.
  PRISM_HOST_DEVICE unsigned long long completed_blocks() const {
    return (first + items) / kOnePoleBlockItems - first_block();
  }
};

// Step 1, block j of the call: `values` holds u of the call's items on entry and their local
// sums on return; totals[j] gets the last local sum in the block.
PRISM_HOST_DEVICE void one_pole_block(const OnePoleCall& c, unsigned long long j, double* values,
                                      const OnePoleState& carried, double* totals) {
  const unsigned long long block_start = (c.first_block() + j) * kOnePoleBlockItems;
  const unsigned long long begin = block_start > c.first ? block_start : c.first;
  const unsigned long long block_end = block_start + kOnePoleBlockItems;
  const unsigned long long end = block_end < c.first + c.items ? block_end : c.first + c.items;
  double local = begin > block_start ? carried.partial : 0.0;
  bool fresh = begin == block_start;
  // The loads of a batch go out before its chain of fused steps (the GPU thread then waits on
  // memory once per batch, not once per item); the steps are the same either way.
  constexpr int kBatch = 8;
  double u[kBatch];
  for (unsigned long long n = begin; n < end; n += kBatch) {
    const int count = end - n < kBatch ? static_cast<int>(end - n) : kBatch;
    double* at = values + (n - c.first);
    for (int b = 0; b < count; ++b) u[b] = at[b];
    for (int b = 0; b < count; ++b) {
      local = fresh ? u[b] : fused(c.a, local, u[b]);
      fresh = false;
      at[b] = local;
    }
  }
  totals[j] = local;
}

// Step 2, one thread, for j < c.blocks() in order: block j's start Y_{k−1} is `y` on entry;
// returns Y_k for a block the call completes (j < c.completed_blocks()).
PRISM_HOST_DEVICE double one_pole_chain_step(const OnePoleCall& c, double total, double y) {
  return fused(c.powers[kOnePoleBlockItems - 1], y, total);
}
// After the steps: the state for the next call, from the last Y_k and the last block's sum
// (kept while the call ends inside that block).
PRISM_HOST_DEVICE void one_pole_chain_end(const OnePoleCall& c, double y, double last_total, OnePoleState& state) {
  state.partial = c.completed_blocks() < c.blocks() ? last_total : 0.0;
  state.boundary = y;
}

// Step 3, item i of the call (after steps 1 and 2).
PRISM_HOST_DEVICE double one_pole_output(const OnePoleCall& c, unsigned long long i, const double* locals,
                                         const double* starts) {
  const unsigned long long n = c.first + i;
  const unsigned long long j = n / kOnePoleBlockItems - c.first_block();
  return fused(c.powers[n % kOnePoleBlockItems], starts[j], locals[i]);
}

}  // namespace prism::channel
