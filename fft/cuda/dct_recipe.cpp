// make_dct_recipe (dct_steps.hpp): the FFT and the twiddle tables of the GPU DCT, in double and
// rounded to float once; the fused kernels' stage twiddles (dct_fused.hpp).
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "fft/cuda/dct_fused.hpp"
#include "fft/cuda/dct_steps.hpp"
#include "fft/cuda/fft_pass.hpp"
#include "fft/cuda/fft_plan.hpp"

namespace prism::fft::gpu {
namespace {

Cf rounded(double re, double im) { return Cf{static_cast<float>(re), static_cast<float>(im)}; }

// exp(-iπ·numerator/denominator)·factor for numerator = first, first + step, ...
std::vector<Cf> phases(long long count, double first, double step, double denominator, double factor) {
  std::vector<Cf> table(static_cast<std::size_t>(count));
  for (long long k = 0; k < count; ++k) {
    const double angle = -std::numbers::pi * (first + step * static_cast<double>(k)) / denominator;
    table[static_cast<std::size_t>(k)] = rounded(factor * std::cos(angle), factor * std::sin(angle));
  }
  return table;
}

}  // namespace

DctRecipe make_dct_recipe(const DctSpec& spec) {
  if (spec.n < 1) throw std::invalid_argument("DCT length must be at least 1");
  if (spec.batch < 1) throw std::invalid_argument("DCT batch must be at least 1");
  const long long n = static_cast<long long>(spec.n);
  // The padded type 4 transforms 2n points.
  if (2 * n > kMaxPlannedLength)
    throw std::invalid_argument("GPU DCT length " + std::to_string(n) + " is beyond " +
                                std::to_string(kMaxPlannedLength / 2));
  const double nd = static_cast<double>(n);
  // The norm's factor of every output, and type 2's of y[0] (type 3's weight of x[0]).
  double scale = 1.0;
  double first = 1.0;
  switch (spec.norm) {
    case DctNorm::backward: break;
    case DctNorm::forward: scale = 1.0 / (2.0 * nd); first = scale; break;
    case DctNorm::ortho:
      scale = std::sqrt(1.0 / (2.0 * nd));
      first = spec.type == DctType::type2 ? std::sqrt(1.0 / (4.0 * nd)) : scale;
      break;
  }

  DctRecipe recipe;
  recipe.n = n;
  recipe.fft.batch = spec.batch;
  recipe.fft.in_place = false;
  switch (spec.type) {
    case DctType::type2:
      recipe.algorithm = DctAlgorithm::type2_real;
      recipe.fft.n = spec.n;
      recipe.fft.transform = Transform::r2c;
      recipe.post_twiddles = phases(n / 2 + 1, 0.0, 1.0, 2.0 * nd, 1.0);
      recipe.scale = static_cast<float>(scale);
      recipe.first_scale = static_cast<float>(first);
      recipe.fft_input_row_bytes = n * static_cast<long long>(sizeof(float));
      recipe.fft_output_row_bytes = (n / 2 + 1) * static_cast<long long>(sizeof(Cf));
      recipe.pre_items = n;
      recipe.post_items = n / 2 + 1;
      recipe.description = "gather, r2c of n, twiddle";
      break;
    case DctType::type3:
      recipe.algorithm = DctAlgorithm::type3_real;
      recipe.fft.n = spec.n;
      recipe.fft.transform = Transform::c2r;
      // conj(w^k) times the norm's factor; ortho weighs x[0] by sqrt(2) more than backward's 1:2.
      recipe.pre_twiddles = phases(n / 2 + 1, 0.0, -1.0, 2.0 * nd, scale);
      recipe.first_scale = spec.norm == DctNorm::ortho ? static_cast<float>(std::sqrt(2.0)) : 1.0f;
      recipe.fft_input_row_bytes = (n / 2 + 1) * static_cast<long long>(sizeof(Cf));
      recipe.fft_output_row_bytes = n * static_cast<long long>(sizeof(float));
      recipe.pre_items = n / 2 + 1;
      recipe.post_items = n;
      recipe.description = "twiddle, c2r of n, scatter";
      break;
    case DctType::type4:
      if (n % 2 == 0) {
        recipe.algorithm = DctAlgorithm::type4_half;
        recipe.fft.n = spec.n / 2;
        recipe.fft.transform = Transform::c2c_forward;
        recipe.pre_twiddles = phases(n / 2, 1.0, 4.0, 4.0 * nd, 1.0);
        recipe.post_twiddles = phases(n / 2, 0.0, 1.0, nd, 2.0 * scale);
        recipe.fft_input_row_bytes = recipe.fft_output_row_bytes = n / 2 * static_cast<long long>(sizeof(Cf));
        recipe.pre_items = recipe.post_items = n / 2;
        recipe.description = "pair and twiddle, c2c of n/2, twiddle";
      } else {
        recipe.algorithm = DctAlgorithm::type4_padded;
        recipe.fft.n = spec.n * 2;
        recipe.fft.transform = Transform::c2c_forward;
        recipe.pre_twiddles = phases(n, 0.0, 1.0, 2.0 * nd, 1.0);
        recipe.post_twiddles = phases(n, 1.0, 2.0, 4.0 * nd, 2.0 * scale);
        recipe.fft_input_row_bytes = recipe.fft_output_row_bytes = 2 * n * static_cast<long long>(sizeof(Cf));
        recipe.pre_items = 2 * n;
        recipe.post_items = n;
        recipe.description = "twiddle and pad, c2c of 2n, twiddle";
      }
      break;
  }
  return recipe;
}

std::vector<Cf> dct_fused_stage_twiddles(DctAlgorithm algorithm, long long n) {
  const long long half = n / 2;
  if (algorithm != DctAlgorithm::type3_real) return stage_twiddle_table(half);
  const RadixList list = rows_radix_list(RowsKind::real_inverse, half, rows_team_elements(half));
  return stage_twiddle_table(list.radix, list.count);
}

}  // namespace prism::fft::gpu
