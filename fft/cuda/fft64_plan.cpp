// The double-precision planner and host executor (fft64_plan.hpp).
#include "fft/cuda/fft64_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace prism::fft::gpu {
namespace {

// n without its prime factors up to 13: 1 where n is smooth.
long long rough_part(long long n) {
  for (int prime : kFp64Primes)
    while (n % prime == 0) n /= prime;
  return n;
}

// n's radices (n smooth: rough_part 1): its power of two 2^t as radix-8 stages, then one 4 where
// t mod 3 is 2 and two 4s in place of an 8 where it is 1 (a 2 where t is 1), then the odd primes.
std::vector<int> fp64_radices(long long n) {
  int twos = 0;
  while (n % 2 == 0) {
    ++twos;
    n /= 2;
  }
  std::vector<int> radices(static_cast<std::size_t>(twos / 3), 8);
  if (twos % 3 == 2) {
    radices.push_back(4);
  } else if (twos % 3 == 1 && twos > 1) {
    radices.back() = 4;
    radices.push_back(4);
  } else if (twos == 1) {
    radices.push_back(2);
  }
  for (int prime : kFp64Primes) {
    while (n % prime == 0) {  // 2 is gone already
      radices.push_back(prime);
      n /= prime;
    }
  }
  return radices;
}

long long smallest_prime_factor_above_13(long long n) {
  n = rough_part(n);
  for (long long p = 17; p * p <= n; p += 2)
    if (n % p == 0) return p;
  return n;
}

// exp(−2πi·m/n) computed in long double (64-bit mantissa), then rounded to double once.
Cd unit_root(long long m, long long n) {
  m %= n;
  const long double angle = -2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) /
                            static_cast<long double>(n);
  return Cd{static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
}

// Threads per transform and transforms per block for a pass of `length`: a thread per butterfly
// of the stage that has the most (at most the block), and as many transforms as the block's
// threads and shared memory allow. A strided pass (`side_by_side`) takes fewer threads per
// transform so that a block holds up to 8 transforms, their neighbouring groups read and written
// as runs of up to 128 bytes. A power-of-two pass of one transform a block whose two planes
// would leave one block a multiprocessor (4096 points, 128 KiB, in one pass) runs in one plane
// where every thread has at most one butterfly a stage: two blocks then share it, and on the H100
// 4096 points took 0.79-0.83x the time (bench/RESULTS.md); where two blocks fit anyway the two
// planes were faster (the one-plane kernel spills a little at 64 registers).
void choose_blocking(Fp64PassDesc& pass, long long max_shared_bytes, bool side_by_side) {
  int smallest_radix = pass.length;
  for (int s = 0; s < pass.stages; ++s) smallest_radix = std::min(smallest_radix, pass.radices[s]);
  const long long most_butterflies = pass.length / std::max(smallest_radix, 1);
  auto block = [&](bool one_plane) {
    pass.one_plane = one_plane;
    const long long by_shared = max_shared_bytes / (static_cast<long long>(sizeof(Cd)) * fp64_plane_stride(pass));
    long long threads = std::clamp<long long>(most_butterflies, 1, kFp64BlockThreads);
    if (side_by_side) threads = std::min(threads, std::max<long long>(1, kFp64BlockThreads / std::min<long long>(8, by_shared)));
    pass.threads_per_transform = static_cast<int>(threads);
    pass.per_block = static_cast<int>(std::max<long long>(1, std::min(kFp64BlockThreads / threads, by_shared)));
  };
  block(false);
  const bool power_of_two = (pass.length & (pass.length - 1)) == 0;
  if (power_of_two && pass.per_block == 1 && 2 * fp64_shared_bytes(pass) > max_shared_bytes) {
    block(true);
    if (pass.threads_per_transform < most_butterflies) block(false);
  }
}

Fp64PassDesc make_pass(long long length, long long max_shared_bytes, bool side_by_side) {
  Fp64PassDesc pass;
  pass.length = static_cast<int>(length);
  const std::vector<int> radices = fp64_radices(length);
  if (radices.size() > static_cast<std::size_t>(kFp64MaxStages))
    throw std::logic_error("our double-precision FFT: a pass of " + std::to_string(length) + " points has more than " +
                           std::to_string(kFp64MaxStages) + " stages");
  pass.stages = static_cast<int>(radices.size());
  std::copy(radices.begin(), radices.end(), pass.radices);
  choose_blocking(pass, max_shared_bytes, side_by_side);
  return pass;
}

// The four-step split n = n1·n2 with both at most max_pass and n1 the largest divisor at most
// √n (the passes as even as the length allows); 0 where there is none.
long long four_step_first(long long n, long long max_pass) {
  for (long long n1 = static_cast<long long>(std::sqrt(static_cast<double>(n))) + 1; n1 >= 2; --n1)
    if (n1 * n1 <= n && n % n1 == 0 && n1 <= max_pass && n / n1 <= max_pass) return n1;
  return 0;
}

std::string radices_text(const Fp64PassDesc& pass) {
  std::string text;
  for (int s = 0; s < pass.stages; ++s) text += (s ? "x" : "") + std::to_string(pass.radices[s]);
  return text.empty() ? "1" : text;
}

// What keeps the passes from computing spec's transform at its own length; "" where nothing does.
std::string full_length_problem(const PlanSpec& spec, long long max_shared_bytes) {
  const long long n = static_cast<long long>(spec.n);
  if (n < 1) return "length 0";
  if (spec.batch < 1) return "batch 0";
  if (rough_part(n) != 1)
    return "length " + std::to_string(n) + " has the prime factor " + std::to_string(smallest_prime_factor_above_13(n)) +
           ", above 13";
  const long long max_pass = fp64_max_pass_length(max_shared_bytes);
  if (n > max_pass && four_step_first(n, max_pass) == 0)
    return "length " + std::to_string(n) + " has no split into two factors of at most " + std::to_string(max_pass);
  return "";
}

// A c2r of even length runs as the complex inverse of half its length (Fp64Load::hermitian_half)
// wherever that length has a plan, even where its own length has none (2^25 is 2·4096·4096):
// 1.6 to 1.9 times as fast. Below 4096 points in one pass it keeps its full length for accuracy: the
// half length's error is that of the N/2-point transform, all of whose rounding reaches the
// output, where the full length's real part drops the rounding of the imaginary parts (on the
// H100, 1.03 to 1.22 times cuFFT's error at 256 to 1024 points against 0.79 to 0.92 at full
// length; from 4096 up cuFFT's own error is 1.35 to 1.9 times the half length's).
bool runs_at_half_length(const PlanSpec& spec, long long max_shared_bytes) {
  if (spec.transform != Transform::c2r || spec.n % 2 != 0) return false;
  if (spec.n < 4096 && static_cast<long long>(spec.n) <= fp64_max_pass_length(max_shared_bytes)) return false;
  PlanSpec half = spec;
  half.n = spec.n / 2;
  return full_length_problem(half, max_shared_bytes).empty();
}

}  // namespace

long long fp64_max_pass_length(long long max_shared_bytes) {
  return (max_shared_bytes / static_cast<long long>(sizeof(Cd)) - 1) / 2;
}

long long fp64_shared_bytes(const Fp64PassDesc& pass) {
  return static_cast<long long>(sizeof(Cd)) * fp64_plane_stride(pass) * pass.per_block;
}

std::string fp64_plan_problem(const PlanSpec& spec, long long max_shared_bytes) {
  return runs_at_half_length(spec, max_shared_bytes) ? "" : full_length_problem(spec, max_shared_bytes);
}

Fp64Layout make_fp64_layout(const PlanSpec& spec, long long max_shared_bytes) {
  const std::string problem = fp64_plan_problem(spec, max_shared_bytes);
  if (!problem.empty()) throw std::invalid_argument("our double-precision FFT: " + problem);
  const bool inverse = spec.transform == Transform::c2c_inverse || spec.transform == Transform::c2r;
  const bool half_c2r = runs_at_half_length(spec, max_shared_bytes);
  // The length of the complex transform the passes compute.
  const long long n = static_cast<long long>(half_c2r ? spec.n / 2 : spec.n);
  const Fp64Load first_load = spec.transform == Transform::r2c ? Fp64Load::real
                              : half_c2r                       ? Fp64Load::hermitian_half
                              : spec.transform == Transform::c2r ? Fp64Load::hermitian
                                                                 : Fp64Load::complex;
  const Fp64Store last_store = spec.transform == Transform::r2c ? Fp64Store::half
                               : half_c2r                       ? Fp64Store::real_pairs
                               : spec.transform == Transform::c2r ? Fp64Store::real_part
                                                                  : Fp64Store::complex;
  // real_pairs writes two doubles an element: its strides count doubles.
  const long long out_scale = half_c2r ? 2 : 1;
  Fp64Layout layout;
  layout.spec = spec;
  auto add_roots = [&layout](long long length) {
    const long long offset = static_cast<long long>(layout.table.size());
    for (long long m = 0; m < length; ++m) layout.table.push_back(unit_root(m, length));
    return offset;
  };
  // exp(2πi·k/N), k < N/2, for the first pass of a half-length c2r.
  auto add_half_roots = [&](Fp64Step& step) {
    if (!half_c2r) return;
    step.half_roots = static_cast<long long>(layout.table.size());
    for (long long k = 0; k < n; ++k) layout.table.push_back(conj(unit_root(k, 2 * n)));
  };
  const std::string half_text = half_c2r ? ", c2r as the inverse of half its length" : "";

  const long long max_pass = fp64_max_pass_length(max_shared_bytes);
  if (n <= max_pass) {
    Fp64Step step;
    step.pass = make_pass(n, max_shared_bytes, false);
    step.pass.in_row = input_row_length(spec);
    step.pass.out_row = output_row_length(spec);
    step.pass.out_stride = out_scale;
    step.pass.full_length = n;
    step.pass.load = first_load;
    step.pass.store = last_store;
    // An r2c takes two rows of the batch per complex transform (the whole transform is in the
    // block, so the split of its spectrum, which pairs k with n − k, fuses into the store).
    if (spec.transform == Transform::r2c) {
      step.pass.load = Fp64Load::real_pair;
      step.pass.store = Fp64Store::split_pair;
    }
    step.pass.conj_in = step.pass.conj_out = inverse;
    step.roots = add_roots(n);
    add_half_roots(step);
    layout.steps.push_back(step);
    layout.algorithm = "fp64 stockham " + radices_text(step.pass) +
                       (fp64_paired(step.pass) ? ", two real rows per transform" : "") + half_text;
    return layout;
  }

  // Four-step: X[k1 + n1·k2] = Σ_j2 W_n2^(j2·k2) · W_n^(j2·k1) · Σ_j1 x[j1·n2 + j2] · W_n1^(j1·k1).
  const long long n1 = four_step_first(n, max_pass);
  const long long n2 = n / n1;
  Fp64Step columns;  // the n2 transforms of length n1 along j1, twiddled, into the scratch at k1·n2 + j2
  columns.pass = make_pass(n1, max_shared_bytes, true);
  columns.pass.groups = n2;
  columns.pass.in_row = input_row_length(spec);
  columns.pass.in_stride = n2;
  columns.pass.in_group_stride = 1;
  columns.pass.out_row = n;
  columns.pass.out_stride = n2;
  columns.pass.out_group_stride = 1;
  columns.pass.full_length = n;
  columns.pass.load = first_load;
  columns.pass.conj_in = inverse;
  columns.pass.twiddle_n = n;
  while ((1LL << (2 * columns.pass.twiddle_shift)) < n) ++columns.pass.twiddle_shift;  // 2^shift >= √n
  const long long split = 1LL << columns.pass.twiddle_shift;
  columns.pass.interleave_load = columns.pass.interleave_store = true;
  columns.dst = BufferRef::scratch;
  columns.roots = add_roots(n1);
  add_half_roots(columns);
  columns.fine = static_cast<long long>(layout.table.size());
  for (long long b = 0; b < split; ++b) layout.table.push_back(unit_root(b, n));
  columns.coarse = static_cast<long long>(layout.table.size());
  for (long long a = 0; a * split < n; ++a) layout.table.push_back(unit_root(a * split, n));

  Fp64Step rows;  // the n1 transforms of length n2 along j2, each written to k1 + n1·k2
  rows.pass = make_pass(n2, max_shared_bytes, true);
  rows.pass.groups = n1;
  rows.pass.in_row = n;
  rows.pass.in_stride = 1;
  rows.pass.in_group_stride = n2;
  rows.pass.out_row = output_row_length(spec);
  rows.pass.out_stride = out_scale * n1;
  rows.pass.out_group_stride = out_scale;
  rows.pass.full_length = n;
  rows.pass.store = last_store;
  rows.pass.conj_out = inverse;
  rows.pass.interleave_store = true;
  rows.src = BufferRef::scratch;
  rows.roots = add_roots(n2);

  layout.steps = {columns, rows};
  layout.scratch_elements = n;
  layout.algorithm = "fp64 four-step " + std::to_string(n1) + "x" + std::to_string(n2) + " (" +
                     radices_text(columns.pass) + ", " + radices_text(rows.pass) + ")" + half_text;
  return layout;
}

void execute_fp64_on_host(const Fp64Layout& layout, const void* in, void* out, std::size_t rows) {
  std::vector<Cd> scratch(static_cast<std::size_t>(layout.scratch_elements) * rows);
  auto resolve = [&](BufferRef ref) -> void* {
    switch (ref) {
      case BufferRef::input: return const_cast<void*>(in);
      case BufferRef::output: return out;
      default: return scratch.data();
    }
  };
  for (const Fp64Step& step : layout.steps) {
    const Fp64PassDesc& p = step.pass;
    const Cd* roots = layout.table.data() + step.roots;
    const Cd* coarse = step.coarse < 0 ? nullptr : layout.table.data() + step.coarse;
    const Cd* fine = step.fine < 0 ? nullptr : layout.table.data() + step.fine;
    const Cd* half_roots = step.half_roots < 0 ? nullptr : layout.table.data() + step.half_roots;
    const void* source = resolve(step.src);
    void* destination = resolve(step.dst);
    const int length = p.length;
    const int stride = 2 * length + 1;  // two planes, one-plane passes too (the same arithmetic)
    const int elements = p.per_block * length;
    const bool lean = fp64_lean_pass(p);  // the kernel the device runs for it
    std::vector<Cd> planes(static_cast<std::size_t>(stride) * p.per_block);
    const long long transforms = fp64_transforms(p, static_cast<long long>(rows));
    // The kernel's blocks in turn: its element loop, then every transform's stages, then its
    // stores, with the kernel's index maps.
    for (long long first = 0; first < transforms; first += p.per_block) {
      for (int e = 0; e < elements; ++e) {
        const int local = p.interleave_load ? e % p.per_block : e / length;
        const int i = p.interleave_load ? e / p.per_block : e - local * length;
        if (first + local < transforms)
          planes[local * stride + i] =
              fp64_load(p, source, fp64_transform(p, first + local, static_cast<long long>(rows)), i, half_roots);
      }
      for (int local = 0; local < p.per_block; ++local) {
        Cd* a = planes.data() + local * stride;
        Cd* b = a + length;
        int span = 1;
        for (int s = 0; s < p.stages; ++s) {
          const Fp64Stage stage = fp64_stage(p, s, span);
          for (int j = 0; j < stage.stride; ++j) {
            if (lean)
              fp64_stage_butterfly<true>(stage, a, b, j, roots);
            else
              fp64_stage_butterfly<false>(stage, a, b, j, roots);
          }
          std::swap(a, b);
          span *= stage.radix;
        }
      }
      const int result = p.stages % 2 == 0 ? 0 : length;
      for (int e = 0; e < elements; ++e) {
        const int local = p.interleave_store ? e % p.per_block : e / length;
        const int k = p.interleave_store ? e / p.per_block : e - local * length;
        if (first + local < transforms)
          fp64_store_from(p, destination, fp64_transform(p, first + local, static_cast<long long>(rows)), k,
                          planes.data() + local * stride + result, coarse, fine);
      }
    }
  }
}

}  // namespace prism::fft::gpu
