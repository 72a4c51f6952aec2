// The GPU DCT's recipe (cuda_dct.hpp): which FFT of ours it runs, and the element-wise steps
// before and after it. The steps are __host__ __device__ so that CI, without a GPU, runs them
// around the host executor of the planner's FFT plan and checks the whole transform (qa_DctHost).
//
// The algorithms (Makhoul, "A fast cosine transform in one and two dimensions", 1980), for scipy's
// unnormalised definitions (dct.hpp), with w = exp(-iπ/(2n)):
//   type 2, any n:   v = (x[0], x[2], x[4], ..., x[5], x[3], x[1]); V = r2c_n(v);
//                    y[k] = 2 Re(w^k V[k]) and y[n-k] = -2 Im(w^k V[k]) for k = 0..n/2.
//   type 3, any n:   the inverse of type 2, read backwards: V[k] = conj(w^k) (x[k] - i x[n-k])
//                    (x[n] = 0) for k = 0..n/2; v = c2r_n(V); y[2j] = v[j], y[2j+1] = v[n-1-j].
//   type 4, even n:  z[j] = (x[2j] + i x[n-1-2j]) exp(-iπ(4j+1)/(4n)) for j < n/2;
//                    Z = fft_{n/2}(z); Y = Z[k] exp(-iπk/n); y[2k] = 2 Re Y, y[n-1-2k] = -2 Im Y.
//   type 4, odd n:   u[j] = x[j] exp(-iπj/(2n)) for j < n, 0 up to 2n; U = fft_{2n}(u);
//                    y[k] = 2 Re(U[k] exp(-iπ(2k+1)/(4n))).
// The norm's factors are folded into the twiddles or applied once at the step that writes.
// The twiddles are computed in double and rounded to float once (make_dct_recipe).
#pragma once

#include <cstddef>
#include <vector>

#include "fft/cuda/fft_complex.hpp"
#include "fft/dct.hpp"
#include "fft/fft.hpp"

namespace prism::fft::gpu {

enum class DctAlgorithm : int {
  type2_real,    // gather, r2c of n, twiddle
  type3_real,    // twiddle, c2r of n, scatter
  type4_half,    // pair and twiddle, c2c of n/2, twiddle and split (even n)
  type4_padded,  // twiddle and pad, c2c of 2n, twiddle (odd n)
};

// What the steps read at run time (device pointers on the GPU, host pointers on the host).
struct DctStepArgs {
  DctAlgorithm algorithm = DctAlgorithm::type2_real;
  long long n = 0;
  const Cf* pre = nullptr;   // twiddles of the step before the FFT (none for type 2)
  const Cf* post = nullptr;  // twiddles of the step after it (none for type 3)
  float scale = 1;           // the norm's factor of every output (type 3: in `pre`)
  float first_scale = 1;     // type 2: of y[0]; type 3: the extra weight of x[0]
};

struct DctRecipe {
  DctAlgorithm algorithm = DctAlgorithm::type2_real;
  long long n = 0;                 // the DCT's length
  PlanSpec fft;                    // n, batch and transform of the FFT between the steps
  std::vector<Cf> pre_twiddles;    // DctStepArgs::pre
  std::vector<Cf> post_twiddles;   // DctStepArgs::post
  float scale = 1;
  float first_scale = 1;
  long long fft_input_row_bytes = 0;   // bytes of one row of the FFT's input and output
  long long fft_output_row_bytes = 0;
  long long pre_items = 0;         // threads per row of each step
  long long post_items = 0;
  const char* description = "";   // e.g. "r2c of n between a gather and a twiddle"
};

// Throws std::invalid_argument for n or batch 0, or n beyond kMaxPlannedLength's reach.
DctRecipe make_dct_recipe(const DctSpec& spec);

// The steps' arguments for a recipe whose twiddle tables are at `pre` and `post` (copies of
// pre_twiddles and post_twiddles where the steps run; null for an empty table).
inline DctStepArgs dct_step_args(const DctRecipe& recipe, const Cf* pre, const Cf* post) {
  DctStepArgs args;
  args.algorithm = recipe.algorithm;
  args.n = recipe.n;
  args.pre = recipe.pre_twiddles.empty() ? nullptr : pre;
  args.post = recipe.post_twiddles.empty() ? nullptr : post;
  args.scale = recipe.scale;
  args.first_scale = recipe.first_scale;
  return args;
}

// Makhoul's reordering: the FFT's v[m] is x[dct_reorder_source(n, m)] for type 2, and type 3's
// v[m] goes to y[dct_reorder_source(n, m)]: the even indices ascending, then the odd descending.
PRISM_HD long long dct_reorder_source(long long n, long long m) {
  const long long half = (n + 1) / 2;
  return m < half ? 2 * m : 2 * (n - 1 - m) + 1;
}

// Its inverse: the m whose source is i.
PRISM_HD long long dct_reorder_position(long long n, long long i) {
  return (i & 1) == 0 ? i / 2 : n - 1 - (i - 1) / 2;
}

// Type 2: the FFT's input v[m], m < n, from the row x.
PRISM_HD float dct_type2_input(const float* x, long long n, long long m) { return x[dct_reorder_source(n, m)]; }

// Type 2: outputs k and n - k from the spectrum's V[k], for k = 0..n/2.
PRISM_HD void dct_type2_store(Cf Vk, float* y, const DctStepArgs& a, long long k) {
  const Cf z = cmul(Vk, a.post[k]);
  y[k] = 2.0f * z.re * (k == 0 ? a.first_scale : a.scale);
  if (k > 0 && 2 * k < a.n) y[a.n - k] = -2.0f * z.im * a.scale;
}

// Type 3: the spectrum V[k] for k = 0..n/2 from the row x. `pre` holds conj(w^k) times the
// norm's factor; the imaginary parts c2r ignores (k = 0, and k = n/2 for even n) are zeroed.
PRISM_HD Cf dct_type3_spectrum(const float* x, const DctStepArgs& a, long long k) {
  const float re = k == 0 ? x[0] * a.first_scale : x[k];
  const float im = k == 0 ? 0.0f : -x[a.n - k];
  Cf value = cmul(Cf{re, im}, a.pre[k]);
  if (k == 0 || 2 * k == a.n) value.im = 0.0f;
  return value;
}

// Type 3: output i from the FFT's output v (y[2j] = v[j], y[2j+1] = v[n-1-j]).
PRISM_HD void dct_type3_scatter(const float* v, float* y, long long n, long long i) {
  y[i] = v[dct_reorder_position(n, i)];
}

// Type 3: the FFT's output v[m] = vm to where it goes in y (the fused kernel's epilogue, which
// holds v by m).
PRISM_HD void dct_type3_place(float vm, float* y, long long n, long long m) { y[dct_reorder_source(n, m)] = vm; }

// Type 4, even n: the FFT's input z[j], j < n/2.
PRISM_HD Cf dct_type4_half_input(const float* x, const DctStepArgs& a, long long j) {
  return cmul(Cf{x[2 * j], x[a.n - 1 - 2 * j]}, a.pre[j]);
}

// Type 4, even n: outputs 2k and n - 1 - 2k from the FFT's output Z[k], k < n/2. `post` holds
// exp(-iπk/n) times 2 and the norm's factor.
PRISM_HD void dct_type4_half_store(Cf Zk, float* y, const DctStepArgs& a, long long k) {
  const Cf value = cmul(Zk, a.post[k]);
  y[2 * k] = value.re;
  y[a.n - 1 - 2 * k] = -value.im;
}

// Type 4, odd n: the FFT's input u[j], j < 2n.
PRISM_HD void dct_type4_padded_load(const float* x, Cf* u, const DctStepArgs& a, long long j) {
  u[j] = j < a.n ? Cf{x[j] * a.pre[j].re, x[j] * a.pre[j].im} : Cf{0.0f, 0.0f};
}

// Type 4, odd n: output k < n from the FFT's output U. `post` holds exp(-iπ(2k+1)/(4n)) times 2
// and the norm's factor.
PRISM_HD void dct_type4_padded_store(const Cf* U, float* y, const DctStepArgs& a, long long k) {
  const Cf value = U[k];
  y[k] = value.re * a.post[k].re - value.im * a.post[k].im;
}

// The step before the FFT for one item of one row: x is the DCT's input row, fft_in the FFT's.
PRISM_HD void dct_pre_step(const DctStepArgs& a, const float* x, void* fft_in, long long item) {
  switch (a.algorithm) {
    case DctAlgorithm::type2_real: static_cast<float*>(fft_in)[item] = dct_type2_input(x, a.n, item); break;
    case DctAlgorithm::type3_real: static_cast<Cf*>(fft_in)[item] = dct_type3_spectrum(x, a, item); break;
    case DctAlgorithm::type4_half: static_cast<Cf*>(fft_in)[item] = dct_type4_half_input(x, a, item); break;
    case DctAlgorithm::type4_padded: dct_type4_padded_load(x, static_cast<Cf*>(fft_in), a, item); break;
  }
}

// The step after the FFT for one item of one row: fft_out is the FFT's output row, y the DCT's.
PRISM_HD void dct_post_step(const DctStepArgs& a, const void* fft_out, float* y, long long item) {
  switch (a.algorithm) {
    case DctAlgorithm::type2_real: dct_type2_store(static_cast<const Cf*>(fft_out)[item], y, a, item); break;
    case DctAlgorithm::type3_real: dct_type3_scatter(static_cast<const float*>(fft_out), y, a.n, item); break;
    case DctAlgorithm::type4_half: dct_type4_half_store(static_cast<const Cf*>(fft_out)[item], y, a, item); break;
    case DctAlgorithm::type4_padded: dct_type4_padded_store(static_cast<const Cf*>(fft_out), y, a, item); break;
  }
}

}  // namespace prism::fft::gpu
