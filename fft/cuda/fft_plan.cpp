// The planner of our CUDA FFT (see fft_plan.hpp): chooses the algorithm, fills the pass
// descriptions and builds the twiddle, chirp and convolution tables in double precision.
#include "fft/cuda/fft_plan.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <complex>
#include <iterator>
#include <stdexcept>
#include <string>

namespace prism::fft::gpu {
namespace {

constexpr long long kNoLimit = LLONG_MAX;

using cd = std::complex<double>;

// exp(-2 pi i t / n) in double precision. The quadrant is split off with exact integer
// arithmetic (4t = q*n + rem) and applied by exact swaps and negations, so the trigonometry only
// sees angles in [0, pi/2).
cd unit_root_double(long long t, long long n) {
  t %= n;
  const long long quadrant = (4 * t) / n;
  const long long rem = 4 * t - quadrant * n;
  const double angle = 2.0 * 3.14159265358979323846 * static_cast<double>(rem) /
                       (4.0 * static_cast<double>(n));
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  double x = c;
  double y = s;
  switch (quadrant) {
    case 0: break;
    case 1: x = -s; y = c; break;
    case 2: x = -c; y = -s; break;
    default: x = s; y = -c; break;
  }
  return cd(x, -y);  // forward roots turn clockwise
}

// b^e mod p, for p < 2^31 (the products stay below 2^62).
long long modular_power(long long b, long long e, long long p) {
  long long result = 1;
  b %= p;
  for (; e > 0; e >>= 1) {
    if (e & 1) result = result * b % p;
    b = b * b % p;
  }
  return result;
}

bool is_prime(long long n) {
  if (n < 2) return false;
  for (long long d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::vector<cd> unit_roots_double(long long n) {
  std::vector<cd> w(static_cast<std::size_t>(n));
  for (long long t = 0; t < n; ++t) {
    w[static_cast<std::size_t>(t)] = unit_root_double(t, n);
  }
  return w;
}

// Every prime factor <= kLargestSmoothPrime: the lengths of compiled kernels and Bluestein
// convolutions. Lengths with a prime factor from 17 to 31 have plans too (factorize), in the
// run-time stage loop only.
bool is_smooth(const int* radices, int count) {
  return count >= 0 && std::none_of(radices, radices + count, is_large_prime_radix);
}
bool is_smooth(long long n) {
  int radices[64];
  return is_smooth(radices, factorize(n, radices, 64));
}

// Double-precision forward DFT of a smooth length by the same Stockham maps as the kernels
// (naive R-point DFTs inside); used only at planning time for the Bluestein spectrum.
void fft_double_inplace(std::vector<cd>& data) {
  const long long n = static_cast<long long>(data.size());
  int coarse[64];
  const int coarse_count = factorize(n, coarse, 64);
  if (!is_smooth(coarse, coarse_count)) throw std::logic_error("fft_double_inplace: length not smooth");
  // Naive R-point DFTs cost R multiplies per output: radix 4 and 2 are cheaper than 16 and 8.
  int radices[128];
  int count = 0;
  for (int s = 0; s < coarse_count; ++s) {
    if (coarse[s] == 16) {
      radices[count++] = 4;
      radices[count++] = 4;
    } else if (coarse[s] == 8) {
      radices[count++] = 4;
      radices[count++] = 2;
    } else if (coarse[s] == 15 || coarse[s] == 21) {  // above the matrices' 16
      radices[count++] = 3;
      radices[count++] = coarse[s] / 3;
    } else {
      radices[count++] = coarse[s];
    }
  }
  const std::vector<cd> w = unit_roots_double(n);
  std::vector<cd> other(data.size());
  long long ns = 1;
  for (int s = 0; s < count; ++s) {
    const int radix = radices[s];
    const long long n_over_radix = n / radix;
    const long long tw_step = n / (ns * radix);
    // The R-point DFT matrix of this radix, w_R^{rq} = w_n^{(rq mod R) * n/R}.
    double matrix_re[16][16];
    double matrix_im[16][16];
    for (int q = 0; q < radix; ++q) {
      for (int r = 0; r < radix; ++r) {
        const cd value = w[static_cast<std::size_t>(((r * q) % radix) * (n / radix))];
        matrix_re[q][r] = value.real();
        matrix_im[q][r] = value.imag();
      }
    }
    double v_re[16];
    double v_im[16];
    for (long long j = 0; j < n_over_radix; ++j) {
      const long long k = j % ns;
      for (int r = 0; r < radix; ++r) {
        const cd x = data[static_cast<std::size_t>(j + r * n_over_radix)];
        const cd t = w[static_cast<std::size_t>(r * k * tw_step)];
        v_re[r] = x.real() * t.real() - x.imag() * t.imag();
        v_im[r] = x.real() * t.imag() + x.imag() * t.real();
      }
      const long long base = (j - k) * radix + k;
      for (int q = 0; q < radix; ++q) {
        double acc_re = 0.0;
        double acc_im = 0.0;
        for (int r = 0; r < radix; ++r) {
          acc_re += v_re[r] * matrix_re[q][r] - v_im[r] * matrix_im[q][r];
          acc_im += v_re[r] * matrix_im[q][r] + v_im[r] * matrix_re[q][r];
        }
        other[static_cast<std::size_t>(base + q * ns)] = cd(acc_re, acc_im);
      }
    }
    data.swap(other);
    ns *= radix;
  }
}

bool power_of_two_radices(const int* radices, int count) {
  for (int s = 0; s < count; ++s) {
    if (radices[s] != 2 && radices[s] != 4 && radices[s] != 8 && radices[s] != 16) return false;
  }
  return true;
}

// Whether one transform of length n fits one thread block.
bool fits_single_pass(long long n) {
  if (n > kMaxSinglePass) return false;
  int radices[kMaxStages];
  const int count = factorize(n, radices, kMaxStages);
  if (count < 0) return false;
  return block_threads(radices, count, n, 1) <= kMaxThreadsPerBlock;
}

// Four-step split n = n1 * n2 with n1 <= n2, both single-pass lengths: both halves with compiled
// kernels where such a split exists (the run-time stage loop is ~3x slower), and among those n1
// as close to sqrt(n) as possible (balanced passes keep both transposed accesses in long
// contiguous segments).
bool four_step_split(long long n, int& n1, int& n2) {
  long long best = 0;
  bool best_compiled = false;
  for (long long d = 1; d <= kMaxSinglePass && d * d <= n; ++d) {
    if (n % d != 0 || !fits_single_pass(d) || !fits_single_pass(n / d)) continue;
    const bool compiled = has_compiled_kernel(d) && has_compiled_kernel(n / d);
    if (compiled || !best_compiled) {
      best = d;
      best_compiled = compiled;
    }
  }
  if (best == 0) return false;
  n1 = static_cast<int>(best);
  n2 = static_cast<int>(n / best);
  return true;
}

// Cluster pass shape n = c * m (ClusterPassDesc): m = preferred_m where n / m is a cluster size,
// else another of kClusterBlockLengths; false when there is none or preferred_m is 0 (no
// clusters).
bool cluster_shape(long long n, int preferred_m, int& c, int& m) {
  if (preferred_m == 0) return false;
  auto fits = [&](int block_length) {
    if (n % block_length != 0) return false;
    for (int size : kClusterSizes) {
      if (n / block_length == size) {
        c = size;
        m = block_length;
        return true;
      }
    }
    return false;
  };
  if (fits(preferred_m)) return true;
  for (int block_length : kClusterBlockLengths) {
    if (block_length != preferred_m && fits(block_length)) return true;
  }
  return false;
}

// Relative cost of a pass of a length without a compiled kernel (the run-time stage loop):
// c2c 1000 took 3.1x the time of c2c 1024 on the H200 (bench/RESULTS.md "Compiled lengths and the
// run-time stage loop").
constexpr long long kRunTimeLoopCost = 3;

// The one-pass Bluestein kernel's time per transform at each compiled length m, in
// picoseconds, less 6.5 ps per element of the transform's own input and output (what a longer
// row added at the same m): the planner's estimate of which convolution length is cheapest.
// Measured on the H200 (bench/RESULTS.md "Bluestein: the convolution length"), where it is far from
// proportional to m: 12288 = 16x16x16x3 took 222 ns per transform, 9216 = 16x8x8x3x3 282, 15360 =
// 16x8x8x3x5 593 (the stages of radix 3 and 5 and the threads they take). Since then 4096, 8192 and
// 16384 hold the spectrum in registers between the FFTs (bluestein_held_elements) and 8192 measured
// 84.6 ns by this table's measure, 16384 193.3; their entries stay as measured first, because 8192
// at 84.6 would take the lengths 2306..3201 from 6400 to 8192, and those timed within 1% of 6400.
// 5120 re-measured at 78.6 ns (2311 and 2503) is 8% faster than 6400 for the lengths 2306..2561 it
// now takes. The tuning mode measures the device at hand.
struct BluesteinPassCost {
  int m;
  long long ps;
};
constexpr BluesteinPassCost kBluesteinPassCost[] = {
    {48, 306}, {50, 576}, {60, 737}, {64, 329}, {72, 693}, {80, 543}, {96, 1017}, {100, 1074},
    {120, 1452}, {125, 1339}, {128, 722}, {144, 1413}, {160, 1778}, {192, 1927}, {200, 2090},
    {240, 2909}, {250, 3821}, {256, 1280}, {288, 3954}, {320, 3033}, {384, 4057}, {400, 4264},
    {480, 11205}, {500, 7112}, {512, 3704}, {576, 7481}, {640, 6395}, {768, 6625}, {800, 11477},
    {960, 12707}, {1000, 13044}, {1024, 8253}, {1152, 16166}, {1280, 11153}, {1536, 21045},
    {1600, 22423}, {1920, 38660}, {2000, 29859}, {2048, 16834}, {2304, 34402}, {2560, 33950},
    {3072, 44850}, {3200, 46792}, {3840, 49422}, {4000, 75654}, {4095, 137957}, {4096, 30085},
    {4608, 74876}, {5120, 78600}, {6144, 94330}, {6400, 90728}, {7680, 166809}, {8000, 194375},
    {8192, 100158}, {9216, 252527}, {10240, 197484}, {12288, 182333}, {12800, 244141},
    {15360, 543461}, {16000, 584614}, {16384, 222299},
};

struct BluesteinCandidate {
  long long m = 0;
  long long cost = 0;
};

// Picoseconds per element of the scratch row of a three-pass Bluestein convolution for its
// memory traffic: written and read twice, 32 bytes, at the H200's copy rate (4.1 TB/s).
constexpr long long kBluesteinScratchPs = 8;

// Estimated picoseconds per transform of a three-pass convolution of length m = m1 x m2: each
// element goes through two FFTs of length m1 (the column passes) and two of m2 (the row pass),
// costed per element as in one pass (bluestein_pass_cost), plus the scratch row's traffic. On
// the H200 it ranks the measured best first for 10007, 20011 and 100003, and for 65537 163840
// (6.42 ms) ahead of the smallest, 138240 (6.97; the best, 147456, took 6.30: bench/RESULTS.md
// "Bluestein: the convolution length").
long long bluestein_three_pass_cost(long long m, int m1, int m2) {
  return m * bluestein_pass_cost(m1) / m1 + m * bluestein_pass_cost(m2) / m2 + m * kBluesteinScratchPs;
}

// Bluestein convolution lengths 2^a 3^b 5^c 7^d from target to 2 target + 1, cheapest first:
// lengths one block holds when single_pass (bluestein_pass_cost), else lengths with a
// four-step split (bluestein_three_pass_cost).
std::vector<BluesteinCandidate> bluestein_candidates(long long target, bool single_pass) {
  std::vector<BluesteinCandidate> candidates;
  for (long long p2 = 1; p2 < 2 * target + 2; p2 *= 2) {
    for (long long p3 = p2; p3 < 2 * target + 2; p3 *= 3) {
      for (long long p5 = p3; p5 < 2 * target + 2; p5 *= 5) {
        for (long long p7 = p5; p7 < 2 * target + 2; p7 *= 7) {
          const long long m = p7;
          if (m < target) continue;
          if (single_pass) {
            if (fits_single_pass(m)) candidates.push_back({m, bluestein_pass_cost(m)});
          } else {
            int m1 = 0;
            int m2 = 0;
            if (is_smooth(m) && four_step_split(m, m1, m2)) {
              candidates.push_back({m, bluestein_three_pass_cost(m, m1, m2)});
            }
          }
        }
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.m < b.m;
  });
  return candidates;
}

// The convolution lengths a Bluestein transform of length n chooses from: those one block holds
// (single_pass true) where there are any, else those of three passes.
std::vector<BluesteinCandidate> bluestein_candidates_of(long long n, bool& single_pass) {
  std::vector<BluesteinCandidate> candidates = bluestein_candidates(bluestein_min_length(n), true);
  single_pass = !candidates.empty();
  if (!single_pass) candidates = bluestein_candidates(bluestein_min_length(n), false);
  return candidates;
}

struct Endpoint {
  BufferRef buffer = BufferRef::input;
  LoadKind load_kind = LoadKind::complex_row;
  StoreKind store_kind = StoreKind::complex_row;
  long long row_dist = 0;
  long long herm_n = 0;
  long long keep = kNoLimit;
  bool conj = false;
  // Paired real rows: row_dist steps over pairs, pair_dist leads to a pair's second row.
  bool paired = false;
  long long pair_dist = 0;
};

class Builder {
 public:
  Builder(PlanLayout& layout, const PlannerOptions& options) : layout_(layout), options_(options) {}

  int add_table(std::vector<Cf> table) {
    layout_.tables.push_back(std::move(table));
    return static_cast<int>(layout_.tables.size()) - 1;
  }

  // The four-step twiddles w_n^{inner*k} of a pass over `inner_count` transforms of `count`
  // elements (store_value, pass_twiddle; split by four_step_twiddle_split), shared by the passes
  // of that shape, bound to the step.
  void bind_twiddle_grid(Step& step, long long n, long long count, long long inner_count) {
    const int split = four_step_twiddle_split(count, inner_count);
    step.pass.pass_tw_split = split;
    const std::array<long long, 3> key{n, count, inner_count};
    auto found = std::find_if(twiddle_grids_.begin(), twiddle_grids_.end(),
                              [&key](const auto& entry) { return entry.first == key; });
    if (found != twiddle_grids_.end()) {
      step.pass_tw = found->second;
      return;
    }
    step.pass_tw = add_table(twiddle_grid(n, count, inner_count, split));
    twiddle_grids_.emplace_back(key, step.pass_tw);
  }

  // The stages' twiddle tables of a radix order (see StageDesc), shared by the passes that take
  // it.
  int stage_table(const int* radices, int count) {
    const std::vector<int> key(radices, radices + count);
    auto found = std::find_if(stage_tables_.begin(), stage_tables_.end(),
                              [&key](const auto& entry) { return entry.first == key; });
    if (found != stage_tables_.end()) return found->second;
    const int id = add_table(stage_twiddle_table(radices, count));
    stage_tables_.emplace_back(key, id);
    return id;
  }

  // Fills the stages of a pass of length n and binds its twiddle table.
  void set_stages(Step& step, int n) {
    const RadixList list = radix_list(n);
    if (list.count < 0) throw std::logic_error("set_stages: length not smooth");
    set_stages(step, n, list);
  }
  // The same in a given radix order (of product n).
  void set_stages(Step& step, int n, const RadixList& list) {
    PassDesc& p = step.pass;
    p.n = n;
    const int* radices = list.radix;
    const int count = list.count;
    p.num_stages = count;
    p.power_of_two_radices = power_of_two_radices(radices, count);
    int ns = 1;
    for (int s = 0; s < count; ++s) {
      p.stages[s].radix = radices[s];
      p.stages[s].ns = ns;
      p.stages[s].tw_offset = stage_twiddle_offset(radices, s);
      ns *= radices[s];
    }
    step.stage_tw = stage_table(radices, count);
    if (!stage_summary_.empty()) stage_summary_ += " | ";
    for (int s = 0; s < count; ++s) {
      if (s > 0) stage_summary_ += 'x';
      stage_summary_ += std::to_string(radices[s]);
    }
    if (count == 0) stage_summary_ += "1";
  }

  // Chooses transforms per block and threads: enough elements per block to keep the memory
  // system busy, at most 1024 threads, and shared memory within the per-block limit.
  static void configure_block(PassDesc& p, int target_elements, long long max_per_block) {
    const int held = std::max(p.n, p.smem_elems);
    int stride = smem_pad(held - 1) + 1;
    if (stride % 2 == 0) ++stride;  // odd stride: the same element of different transforms
                                    // falls in different banks
    p.smem_stride = stride;
    long long per_block = std::max<long long>(1, target_elements / std::max(1, p.n));
    per_block = std::min(per_block, std::max<long long>(1, max_per_block));
    int radices[kMaxStages];
    for (int s = 0; s < p.num_stages; ++s) radices[s] = p.stages[s].radix;
    // The Bluestein kernel may take more than 64 registers (bluestein_pass_registers): its
    // blocks stay within what they allow.
    long long limit = kMaxThreadsPerBlock;
    const BluesteinPass bluestein = bluestein_pass_of(p);
    if (bluestein != BluesteinPass::none) {
      limit = std::min(limit, 32LL * resident_warps(bluestein_pass_registers(p.n, bluestein)));
    }
    // A c2r's rows of h + 1 values of X, where it loads them before the stages (no direct
    // c2r first stage): two at a time when h + 1 is odd, so that every block's rows start
    // 16-byte aligned and load as float4 (element by element, c2r 160 and 480 took 1.02 and 1.19 ms
    // on the H200, in even blocks 0.66 and 0.81: bench/RESULTS.md "Even c2r blocks").
    const bool even_blocks = p.real_step == RealStep::c2r_pre && p.load_n % 2 == 1 &&
                             !(has_compiled_kernel(p.n) && wide_first_stage(p.n));
    if (even_blocks && per_block > 1) per_block -= per_block % 2;
    for (; per_block >= 1; per_block -= even_blocks && per_block > 2 ? 2 : 1) {
      const long long threads = block_threads(radices, p.num_stages, p.n, per_block);
      const long long shared = 2 * per_block * stride * static_cast<long long>(sizeof(float));
      if (threads <= limit && shared <= kMaxSharedBytesPerBlock) {
        p.per_block = static_cast<int>(per_block);
        p.threads = static_cast<int>(threads);
        return;
      }
    }
    throw std::invalid_argument("configure_block: length " + std::to_string(p.n) +
                                " does not fit one thread block");
  }

  // Elements per block of a four-step pass over transforms of length n that sit side by side
  // (strided loads, transposed stores): at least four of them, so that each access is a full
  // 32-byte sector (measured: c2c 2^23 and 2^24, 4096-length passes of two transforms per block
  // instead of four, took 1.5x and 1.8x the time).
  static int side_by_side_elements(int elements, int n) { return std::max(elements, 4 * n); }

  void set_load(PassDesc& p, const Endpoint& in, IoLayout layout, long long lin_inner,
                long long lin_elem) {
    p.load_kind = in.load_kind;
    p.in = layout;
    p.lin_inner = lin_inner;
    p.lin_elem = lin_elem;
    p.herm_n = in.herm_n;
    p.herm_row_dist = in.paired ? in.pair_dist : in.row_dist;
    p.load_conj_raw = in.conj;
    if (in.paired) {
      p.paired = true;
      p.in_pair_dist = in.pair_dist;
    }
  }

  void set_store(PassDesc& p, const Endpoint& out, IoLayout layout, long long lout_inner,
                 long long lout_elem) {
    p.store_kind = out.store_kind;
    p.out = layout;
    p.lout_inner = lout_inner;
    p.lout_elem = lout_elem;
    p.n_keep = out.keep;
    p.store_conj_final = out.conj;
    if (out.paired) {
      p.paired = true;
      p.out_pair_dist = out.pair_dist;
    }
  }

  // One Stockham pass over plain batched rows, in the stage order of the rows kernel of `kind`
  // at the pass's elements per thread (rows_radix_list: radix_list's but for c2r's halves and
  // the decimal teams), which the pass kernels of other lengths take too.
  Step& single_pass(long long n, const Endpoint& in, const Endpoint& out, RowsKind kind = RowsKind::forward) {
    // The option where the length has teams of that width or asks for the plain rows kernel
    // (kElementsPerThread at a decimal length), else the planner's rule.
    const int asked = options_.rows_elements_per_thread;
    const bool asked_applies = has_rows_teams(n, asked) || asked == kElementsPerThread;
    const int elements = asked != 0 && asked_applies ? asked : default_rows_elements_per_thread(n, kind);
    Step step;
    set_stages(step, static_cast<int>(n), rows_radix_list(kind, n, elements));
    PassDesc& p = step.pass;
    p.rows_elements_per_thread = elements;
    p.smem_elems = p.n;
    p.inner_is_batch = true;
    set_load(p, in, IoLayout{0, in.row_dist, 1}, 0, 1);
    p.load_n = p.n;
    set_store(p, out, IoLayout{0, out.row_dist, 1}, 0, 1);
    p.store_n = static_cast<int>(std::min<long long>(n, out.keep));
    if (has_wide_rows_kernel(n) || p.rows_elements_per_thread == kDecimalTeamElements) {
      stage_summary_ += ", " + std::to_string(p.rows_elements_per_thread) + " per thread";
    }
    step.src = in.buffer;
    step.dst = out.buffer;
    layout_.steps.push_back(step);
    return layout_.steps.back();
  }

  void four_step(long long n, int n1, int n2, const Endpoint& in, const Endpoint& out) {
    layout_.scratch_row = std::max(layout_.scratch_row, n);
    {  // columns: length n1 over n2 columns, times w_n^{column * k1} on the way out
      Step step;
      set_stages(step, n1);
      PassDesc& p = step.pass;
      p.smem_elems = n1;
      p.inner_is_batch = false;
      p.inner_count = n2;
      set_load(p, in, IoLayout{in.row_dist, 1, n2}, 1, n2);
      p.load_n = n1;
      p.store_kind = StoreKind::complex_row;
      p.out = IoLayout{n, 1, n2};
      p.store_n = n1;
      p.n_keep = kNoLimit;
      p.store_twiddle = StoreTwiddle::forward;
      bind_twiddle_grid(step, n, n1, n2);
      step.src = in.buffer;
      step.dst = BufferRef::scratch;
      configure_block(p, side_by_side_elements(options_.column_elements_per_block, n1), n2);
      // The default blocking of lengths with a four-step kernel takes its team count of column
      // passes.
      if (has_four_step_kernel(n1) && p.per_block == four_step_teams(n1) &&
          four_step_teams(FourStepKind::columns, n1) != p.per_block) {
        configure_block(p, four_step_teams(FourStepKind::columns, n1) * n1, n2);
      }
      layout_.steps.push_back(step);
    }
    if (rows_then_transpose(n1, n2, out)) {
      // rows: length n2 over n1 rows in place in the scratch, then X[k1 + n1*k2] by the
      // transpose step
      Endpoint rows;
      rows.buffer = BufferRef::scratch;
      rows.row_dist = n2;
      Step& step = single_pass(n2, rows, rows);
      configure_block(step.pass, options_.single_elements_per_block, 1 << 20);
      step.batch_rows = n1;
      Step transpose;
      transpose.kind = Step::Kind::transpose;
      transpose.transpose = TransposeDesc{n1, n2, n, out.row_dist, out.conj};
      transpose.src = BufferRef::scratch;
      transpose.dst = out.buffer;
      layout_.steps.push_back(transpose);
      algorithm_ = "four-step " + std::to_string(n1) + "x" + std::to_string(n2) + ", rows then transpose";
      return;
    }
    {  // rows: length n2 over n1 rows, stored transposed: X[k1 + n1*k2]
      Step step;
      set_stages(step, n2);
      PassDesc& p = step.pass;
      p.smem_elems = n2;
      p.inner_is_batch = false;
      p.inner_count = n1;
      p.load_kind = LoadKind::complex_row;
      p.in = IoLayout{n, n2, 1};
      p.load_n = n2;
      set_store(p, out, IoLayout{out.row_dist, 1, n1}, 1, n1);
      p.store_n = n2;
      step.src = BufferRef::scratch;
      step.dst = out.buffer;
      configure_block(p, side_by_side_elements(options_.row_elements_per_block, n2), n1);
      layout_.steps.push_back(step);
    }
    algorithm_ = "four-step " + std::to_string(n1) + "x" + std::to_string(n2);
  }

  // The pass of make_columns_layout: the four-step's column pass with plain stores, inverse
  // transforms as conj(FFT(conj x)).
  void columns_pass(const ColumnsSpec& spec) {
    const long long n = spec.n;
    Step step;
    set_stages(step, static_cast<int>(n));
    PassDesc& p = step.pass;
    p.smem_elems = p.n;
    p.inner_is_batch = false;
    p.inner_count = spec.columns;
    const IoLayout strided{n * spec.columns, 1, spec.columns};
    p.load_kind = LoadKind::complex_row;
    p.in = strided;
    p.load_n = p.n;
    p.load_conj_raw = spec.inverse;
    p.store_kind = StoreKind::complex_row;
    p.out = strided;
    p.store_n = p.n;
    p.n_keep = kNoLimit;
    p.store_conj_final = spec.inverse;
    configure_block(p, side_by_side_elements(options_.column_elements_per_block, p.n), spec.columns);
    step.src = BufferRef::input;
    step.dst = BufferRef::output;
    layout_.steps.push_back(step);
    algorithm_ = "columns " + std::to_string(n) + " x " + std::to_string(spec.columns);
  }

  // One cluster pass of n = c * m over contiguous rows (see ClusterPassDesc).
  Step& cluster_pass(long long n, int c, int m, BufferRef src, long long in_dist, BufferRef dst,
                     long long out_dist) {
    Step step;
    step.kind = Step::Kind::cluster_pass;
    set_stages(step, m);
    ClusterPassDesc& d = step.cluster;
    d.cluster = c;
    d.m = m;
    d.n = n;
    d.in_dist = in_dist;
    d.out_dist = out_dist;
    std::vector<Cf> twiddles(static_cast<std::size_t>(c - 1) * m);
    for (long long r = 1; r < c; ++r) {
      for (long long k2 = 0; k2 < m; ++k2) {
        const cd w = unit_root_double(r * k2, n);
        twiddles[static_cast<std::size_t>((r - 1) * m + k2)] =
            Cf{static_cast<float>(w.real()), static_cast<float>(w.imag())};
      }
    }
    step.pass_tw = add_table(std::move(twiddles));
    step.src = src;
    step.dst = dst;
    layout_.steps.push_back(step);
    algorithm_ = "cluster " + std::to_string(c) + "x" + std::to_string(m);
    return layout_.steps.back();
  }

  // Whether complex_transform runs n as one cluster pass between these endpoints: plain complex
  // rows, nothing dropped (paired real rows and truncations take the four-step).
  bool cluster_fits(long long n, const Endpoint& in, const Endpoint& out, int& c, int& m) const {
    return in.load_kind == LoadKind::complex_row && !in.paired &&
           out.store_kind == StoreKind::complex_row && !out.paired && out.keep >= n &&
           cluster_shape(n, options_.cluster_block_length, c, m);
  }

  // Convolution spectrum of the Bluestein chirp: FFT_m(conj chirp, wrapped) / m.
  std::vector<cd> bluestein_spectrum(long long n, long long m, const std::vector<cd>& chirp) {
    std::vector<cd> b(static_cast<std::size_t>(m), cd(0.0, 0.0));
    for (long long j = 0; j < n; ++j) {
      b[static_cast<std::size_t>(j)] = std::conj(chirp[static_cast<std::size_t>(j)]);
      if (j > 0) b[static_cast<std::size_t>(m - j)] = std::conj(chirp[static_cast<std::size_t>(j)]);
    }
    fft_double_inplace(b);
    for (auto& value : b) value /= static_cast<double>(m);
    return b;
  }

  // Bluestein's convolution length for n: the options' where they give one, else the
  // estimate of the cheapest (bluestein_lengths).
  long long bluestein_convolution_length(long long n) const {
    if (options_.bluestein_length == 0) {
      const std::vector<long long> lengths = bluestein_lengths(n, 1);
      if (lengths.empty()) throw std::invalid_argument("bluestein: length too large");
      return lengths.front();
    }
    const long long m = options_.bluestein_length;
    const std::string problem = bluestein_length_problem(n, m);
    if (!problem.empty()) {
      throw std::invalid_argument("bluestein: convolution length " + std::to_string(m) +
                                  " for n = " + std::to_string(n) + " is " + problem);
    }
    return m;
  }

  void bluestein(long long n, const Endpoint& in, const Endpoint& out) {
    const long long m = bluestein_convolution_length(n);
    std::vector<cd> chirp(static_cast<std::size_t>(n));
    for (long long j = 0; j < n; ++j) {
      // exp(-pi i (j^2 mod 2n) / n) = exp(-2 pi i idx / 2n)
      chirp[static_cast<std::size_t>(j)] =
          unit_root_double(static_cast<long long>(chirp_index(j, n)), 2 * n);
    }
    const std::vector<cd> spectrum = bluestein_spectrum(n, m, chirp);
    std::vector<Cf> chirp_f(chirp.size());
    for (std::size_t j = 0; j < chirp.size(); ++j) {
      chirp_f[j] = Cf{static_cast<float>(chirp[j].real()), static_cast<float>(chirp[j].imag())};
    }
    const int chirp_id = add_table(std::move(chirp_f));
    const long long keep = std::min(n, out.keep);
    layout_.scratch_row = std::max(layout_.scratch_row, m);
    layout_.bluestein_length = m;

    if (fits_single_pass(m)) {
      std::vector<Cf> conv(static_cast<std::size_t>(m));
      for (long long k = 0; k < m; ++k) {
        conv[static_cast<std::size_t>(k)] =
            Cf{static_cast<float>(spectrum[static_cast<std::size_t>(k)].real()),
               static_cast<float>(spectrum[static_cast<std::size_t>(k)].imag())};
      }
      Step step;
      set_stages(step, static_cast<int>(m));
      PassDesc& p = step.pass;
      p.smem_elems = p.n;
      p.inner_is_batch = true;
      set_load(p, in, IoLayout{0, in.row_dist, 1}, 0, 1);
      p.load_n = p.n;
      p.load_chirp = true;
      p.n_valid = n;
      p.mid_conv = true;
      p.conv_inner_dist = 0;
      set_store(p, out, IoLayout{0, out.row_dist, 1}, 0, 1);
      p.n_keep = keep;
      p.store_n = static_cast<int>(keep);
      p.store_conj = true;
      p.store_chirp = true;
      step.chirp = chirp_id;
      step.conv = add_table(std::move(conv));
      step.src = in.buffer;
      step.dst = out.buffer;
      // One transform to a block where the kernel holds the spectrum in registers between the
      // two FFTs (bluestein_held_elements).
      configure_block(p, options_.single_elements_per_block,
                      bluestein_held_elements(m) > 0 ? 1 : 1 << 20);
      layout_.steps.push_back(step);
      algorithm_ = "bluestein m=" + std::to_string(m) + " (one pass)";
      return;
    }

    int m1 = 0;
    int m2 = 0;
    if (!four_step_split(m, m1, m2)) throw std::invalid_argument("bluestein: no split");
    const int column_elements = convolution_column_elements();
    {  // columns: chirp and zero padding on load, forward twiddle on store
      Step step = convolution_columns(m1, m2);
      PassDesc& p = step.pass;
      set_load(p, in, IoLayout{in.row_dist, 1, m2}, 1, m2);
      p.load_n = m1;
      p.load_chirp = true;
      p.n_valid = n;
      p.store_kind = StoreKind::complex_row;
      p.out = IoLayout{m, 1, m2};
      p.store_n = m1;
      p.n_keep = kNoLimit;
      p.store_twiddle = StoreTwiddle::forward;
      step.chirp = chirp_id;
      bind_twiddle_grid(step, m, m1, m2);
      step.src = in.buffer;
      step.dst = BufferRef::scratch;
      configure_block(p, column_elements, m2);
      layout_.steps.push_back(step);
    }
    convolution_rows(m, m1, m2, spectrum);
    {  // columns: inverse FFT, chirp, keep the first n
      Step step = convolution_columns(m1, m2);
      PassDesc& p = step.pass;
      p.load_kind = LoadKind::complex_row;
      p.in = IoLayout{m, 1, m2};
      p.load_n = m1;
      p.load_conj = true;
      set_store(p, out, IoLayout{out.row_dist, 1, m2}, 1, m2);
      p.n_keep = keep;
      p.store_n = m1;
      p.store_conj = true;
      p.store_chirp = true;
      step.chirp = chirp_id;
      step.src = BufferRef::scratch;
      step.dst = out.buffer;
      configure_block(p, column_elements, m2);
      layout_.steps.push_back(step);
    }
    algorithm_ = "bluestein m=" + std::to_string(m) + " (" + std::to_string(m1) + "x" +
                 std::to_string(m2) + ", three passes)";
  }

  // The column passes of a three-pass convolution (Bluestein's, Rader's) in blocks of half the
  // four-step's column elements: on the H200, with the Bluestein kernel's column passes
  // (bluestein_pass_of), 4096 instead of 8192 took c2c 10007 3.77 -> 3.61 ms, 20011 3.44 ->
  // 3.34, 65537 4.35 -> 4.10; 2048 was faster at 20011 (3.18) but slower at 65537 (4.25), 16384
  // slower at all three (bench/RESULTS.md "Bluestein: three passes on the Bluestein kernel", the
  // tuning mode).
  int convolution_column_elements() const {
    return std::max(1, options_.column_elements_per_block / 2);
  }

  // A pass of m1-point FFTs over the m2 columns of each transform of a three-pass convolution,
  // its loads and stores still to be set.
  Step convolution_columns(int m1, int m2) {
    Step step;
    set_stages(step, m1);
    step.pass.smem_elems = m1;
    step.pass.inner_is_batch = false;
    step.pass.inner_count = m2;
    return step;
  }

  // The row pass of a three-pass convolution of length m = m1 x m2 over the scratch, in place:
  // forward FFT, multiply by the spectrum (FFT_m of the kernel, / m), inverse FFT, inverse
  // twiddle on store.
  void convolution_rows(long long m, int m1, int m2, const std::vector<cd>& spectrum) {
    // The spectrum in the order the row pass holds it: row k1, element k2 is X[k1 + m1*k2].
    std::vector<Cf> conv(static_cast<std::size_t>(m));
    for (long long k1 = 0; k1 < m1; ++k1) {
      for (long long k2 = 0; k2 < m2; ++k2) {
        const cd value = spectrum[static_cast<std::size_t>(k1 + m1 * k2)];
        conv[static_cast<std::size_t>(k1 * m2 + k2)] =
            Cf{static_cast<float>(value.real()), static_cast<float>(value.imag())};
      }
    }
    Step step;
    set_stages(step, m2);
    PassDesc& p = step.pass;
    p.smem_elems = m2;
    p.inner_is_batch = false;
    p.inner_count = m1;
    p.load_kind = LoadKind::complex_row;
    p.in = IoLayout{m, m2, 1};
    p.load_n = m2;
    p.mid_conv = true;
    p.conv_inner_dist = m2;
    p.store_kind = StoreKind::complex_row;
    p.out = IoLayout{m, m2, 1};
    p.store_n = m2;
    p.n_keep = kNoLimit;
    p.store_conj = true;
    p.store_twiddle = StoreTwiddle::conjugate;
    step.conv = add_table(std::move(conv));
    bind_twiddle_grid(step, m, m2, m1);
    step.src = BufferRef::scratch;
    step.dst = BufferRef::scratch;
    configure_block(p, options_.single_elements_per_block, m1);
    layout_.steps.push_back(step);
  }

  int add_index_table(std::vector<int> table) {
    layout_.index_tables.push_back(std::move(table));
    return static_cast<int>(layout_.index_tables.size()) - 1;
  }

  // Rader's algorithm for prime n, m = n - 1 = m1 x m2 (four_step_split), g a primitive root:
  // for s < m, X[g^-s] = x[0] + sum_q x[g^q] w^(g^(q-s)) = x[0] + (a * b)[s], the cyclic
  // convolution of a[q] = x[g^q] and b[t] = w^(g^-t); X[0] = x[0] + sum_q a[q]. Bluestein's three
  // passes at half its convolution length, the gather in the first pass's loads, a step of its
  // own after the first pass for X[0] and x[0] (from and into the first pass's column sums;
  // before anything is stored, which in place overwrites the input), the last pass in place in
  // the scratch and a last step gathering the outputs in order (RaderDcDesc).
  void rader(long long n, const Endpoint& in, const Endpoint& out) {
    const long long m = n - 1;
    int m1 = 0;
    int m2 = 0;
    if (!four_step_split(m, m1, m2)) throw std::invalid_argument("rader: no split");
    const long long g = primitive_root(n);
    std::vector<int> gather(static_cast<std::size_t>(m));
    std::vector<int> scatter(static_cast<std::size_t>(m));
    const long long g_inverse = modular_power(g, m - 1, n);
    long long up = 1;
    long long down = 1;
    for (long long q = 0; q < m; ++q) {
      gather[static_cast<std::size_t>(q)] = static_cast<int>(up);
      scatter[static_cast<std::size_t>(q)] = static_cast<int>(down);
      up = up * g % n;
      down = down * g_inverse % n;
    }
    std::vector<cd> spectrum(static_cast<std::size_t>(m));
    for (long long t = 0; t < m; ++t) {
      spectrum[static_cast<std::size_t>(t)] = unit_root_double(scatter[static_cast<std::size_t>(t)], n);
    }
    fft_double_inplace(spectrum);
    for (auto& value : spectrum) value /= static_cast<double>(m);
    layout_.scratch_row = std::max(layout_.scratch_row, m);
    const int column_elements = convolution_column_elements();
    const RaderDcDesc ends{n, m2, m1, m};

    Step columns_in = convolution_columns(m1, m2);  // the gather on load, forward twiddle on store
    {
      PassDesc& p = columns_in.pass;
      set_load(p, in, IoLayout{in.row_dist, 1, m2}, 1, m2);
      p.load_n = m1;
      p.load_permuted = true;
      p.store_kind = StoreKind::complex_row;
      p.out = IoLayout{m, 1, m2};
      p.store_n = m1;
      p.n_keep = kNoLimit;
      p.store_twiddle = StoreTwiddle::forward;
      columns_in.load_index = add_index_table(std::move(gather));
      bind_twiddle_grid(columns_in, m, m1, m2);
      columns_in.src = in.buffer;
      columns_in.dst = BufferRef::scratch;
      configure_block(p, column_elements, m2);
      layout_.steps.push_back(columns_in);
    }
    {  // X[0], and x[0] into the convolution: the column sums (scratch elements 0 .. m2 - 1)
      Step step;
      step.kind = Step::Kind::rader_dc;
      step.pass = columns_in.pass;
      set_store(step.pass, out, IoLayout{out.row_dist, 1, 1}, 0, 1);
      step.pass.store_twiddle = StoreTwiddle::none;
      step.rader = ends;
      step.src = in.buffer;
      step.dst = out.buffer;
      layout_.steps.push_back(step);
    }
    convolution_rows(m, m1, m2, spectrum);
    {  // columns: inverse FFT, in place (each block reads its columns before it writes them)
      Step step = convolution_columns(m1, m2);
      PassDesc& p = step.pass;
      p.load_kind = LoadKind::complex_row;
      p.in = IoLayout{m, 1, m2};
      p.load_n = m1;
      p.load_conj = true;
      p.store_kind = StoreKind::complex_row;
      p.out = IoLayout{m, 1, m2};
      p.lout_inner = 1;
      p.lout_elem = m2;
      p.n_keep = kNoLimit;
      p.store_n = m1;
      p.store_conj = true;
      step.src = BufferRef::scratch;
      step.dst = BufferRef::scratch;
      configure_block(p, column_elements, m2);
      layout_.steps.push_back(step);
    }
    {  // the outputs X[k], k >= 1, gathered from s with g^-s = k
      std::vector<int> gather_out(static_cast<std::size_t>(n), 0);
      for (long long s = 0; s < m; ++s) {
        gather_out[static_cast<std::size_t>(scatter[static_cast<std::size_t>(s)])] = static_cast<int>(s);
      }
      Step step;
      step.kind = Step::Kind::rader_gather;
      set_store(step.pass, out, IoLayout{out.row_dist, 1, 1}, 0, 1);
      step.pass.inner_is_batch = false;
      step.load_index = add_index_table(std::move(gather_out));
      step.rader = ends;
      step.src = BufferRef::scratch;
      step.dst = out.buffer;
      layout_.steps.push_back(step);
    }
    algorithm_ = "rader m=" + std::to_string(m) + " (" + std::to_string(m1) + "x" +
                 std::to_string(m2) + ", three passes)";
  }

  // Whether a four-step's row pass of n2 runs as plain rows (the rows kernel) in place in the
  // scratch, then a transpose step into the output (TransposeDesc): rows longer than the
  // four-step kernel takes (kFourStepMaxLength), toward plain rows of complex values outside
  // the scratch. On the H200 (bench/RESULTS.md "Four-step kernel: beyond 2^24, rows then a
  // transpose") c2c 2^25 took 1.08 ms so instead of 1.68, whose row pass of 8192, storing
  // transposed itself in runs of two rows (16 bytes), took about 1.25.
  static bool rows_then_transpose(long long n1, long long n2, const Endpoint& out) {
    return n2 > kFourStepMaxLength && has_rows_kernel(n2) && n1 % kTransposeTile == 0 &&
           n2 % kTransposeTile == 0 && out.store_kind == StoreKind::complex_row && out.keep >= n1 * n2 &&
           !out.paired && out.buffer != BufferRef::scratch;
  }

  // Where the balanced split has a side longer than the four-step kernel takes, the split into
  // rows of kFourStepWideRows (16384) that take the transpose step, beside columns of 4096 or
  // 2048 on the four-step kernel (FourStepShape::wide4, wide8; runs of 32 and 64 bytes):
  //  - c2c 2^26: 4096 x 16384 instead of 8192 x 8192, whose columns of 8192 ran on the pass
  //    kernel, two to a block;
  //  - c2c 2^25: 2048 x 16384 instead of 4096 x 8192, whose column pass took 518 us on the H200
  //    (Nsight Compute) against 417 for the columns of 2048 of c2c 2^23 (the same bytes). c2c
  //    2^25 then took 1.03 ms instead of 1.09, r2c and c2r 2^26 4 % less (bench/RESULTS.md
  //    "Four-step kernel: beyond 2^24, rows then a transpose").
  static void prefer_transposed_rows(long long n, const Endpoint& out, int& n1, int& n2) {
    if (n1 <= kFourStepMaxLength && n2 <= kFourStepMaxLength) return;
    if (n % kFourStepWideRows != 0) return;
    const long long columns = n / kFourStepWideRows;
    const auto wide = [&](FourStepShape shape) {
      return has_four_step_kernel(columns) &&
             has_four_step_shape(FourStepKind::columns, static_cast<int>(columns), shape);
    };
    if (!wide(FourStepShape::wide4) && !wide(FourStepShape::wide8)) return;
    if (!rows_then_transpose(columns, kFourStepWideRows, out)) return;
    n1 = static_cast<int>(columns);
    n2 = kFourStepWideRows;
  }

  // Whether a complex transform is the half length of a real one whose four-step takes its real
  // step (four_step_real, transposed_real_rows).
  enum class HalfLength { none, r2c, c2r };

  // The split of short_columns_length where it has one and the four-step kernel takes its
  // passes; an r2c's half length keeps the balanced split, whose rows take its real rows.
  static void prefer_short_columns(long long n, HalfLength half, int& n1, int& n2) {
    if (half == HalfLength::r2c) return;
    const int columns = short_columns_length(n, half == HalfLength::c2r);
    if (columns == 0 || n % columns != 0 || !has_four_step_kernel(columns) ||
        !has_four_step_kernel(static_cast<int>(n / columns))) {
      return;
    }
    n1 = columns;
    n2 = static_cast<int>(n / columns);
  }

  // The algorithm of a complex transform of length n between these endpoints, with the shape it
  // found: the cluster c x m, or the four-step split n1 x n2 (half: whether n is the half length
  // of a real transform whose four-step takes its real step; prefer_short_columns).
  enum class Algorithm { single_pass, cluster, four_step, rader, bluestein };
  struct Shape {
    int c = 0;
    int m = 0;
    int n1 = 0;
    int n2 = 0;
    bool chosen = false;  // n1 x n2 from PlannerOptions::four_step_columns, kept as it is
  };
  Algorithm complex_algorithm(long long n, const Endpoint& in, const Endpoint& out, Shape& shape,
                              HalfLength half = HalfLength::none) const {
    if (!takes_prime_stages(n, options_)) return Algorithm::bluestein;
    if (fits_single_pass(n)) return Algorithm::single_pass;
    if (cluster_fits(n, in, out, shape.c, shape.m)) return Algorithm::cluster;
    if (four_step_split(n, shape.n1, shape.n2)) {
      if (can_take_four_step_columns(n, options_.four_step_columns)) {
        shape.n1 = options_.four_step_columns;
        shape.n2 = static_cast<int>(n / options_.four_step_columns);
        shape.chosen = true;
        return Algorithm::four_step;
      }
      prefer_transposed_rows(n, out, shape.n1, shape.n2);
      prefer_short_columns(n, half, shape.n1, shape.n2);
      return Algorithm::four_step;
    }
    if (takes_rader(n, options_)) return Algorithm::rader;
    return Algorithm::bluestein;
  }

  void complex_transform(long long n, const Endpoint& in, const Endpoint& out) {
    Shape shape;
    switch (complex_algorithm(n, in, out, shape)) {
      case Algorithm::single_pass: {
        Step& step = single_pass(n, in, out);
        configure_block(step.pass, options_.single_elements_per_block, 1 << 20);
        algorithm_ = "stockham";
        break;
      }
      case Algorithm::cluster: {
        Step& step =
            cluster_pass(n, shape.c, shape.m, in.buffer, in.row_dist, out.buffer, out.row_dist);
        step.cluster.conj_in = in.conj;
        step.cluster.conj_out = out.conj;
        break;
      }
      case Algorithm::four_step: four_step(n, shape.n1, shape.n2, in, out); break;
      case Algorithm::rader: rader(n, in, out); break;
      case Algorithm::bluestein: bluestein(n, in, out); break;
    }
  }

  // A real transform of length 2h over a four-step of h with its real step in one of the
  // passes, where the four-step kernel takes that pass at its default blocking (else nothing is
  // planned, and the caller plans the half length and a real rows pass):
  //  - r2c (RealStep::r2c_post_rows): the post-processing in the row pass, which also stores
  //    X[h];
  //  - c2r (RealStep::c2r_pre_columns): the pre-processing in the column pass where its blocks
  //    hold 8 columns or more (has_real_columns_pass: columns up to 2048). The fused pass adds
  //    an exchange through shared memory before the first stage; while that spilled, blocks of
  //    1024 threads, one per multiprocessor, ran c2r 2^22 and 2^24 4-5 % slower fused on the
  //    H200, blocks of 512 2^16-2^20 7-21 % faster; with the exchange of four_step_real_slot
  //    c2r 2^21-2^24 ran 8-15 % faster fused (bench/RESULTS.md "Four-step kernel: c2r's
  //    pre-processing in the column pass"). c2r 2^26 (2048 x 16384, rows then transpose) took
  //    0.68 ms fused instead of 0.74 behind a pre-processing pass (bench/RESULTS.md "Four-step
  //    kernel: beyond 2^24, rows then a transpose").
  bool four_step_real(long long h, const Endpoint& in, Endpoint out, RealStep real_step) {
    Shape shape;
    const bool rows = real_step == RealStep::r2c_post_rows;
    if (complex_algorithm(h, in, out, shape, rows ? HalfLength::r2c : HalfLength::c2r) != Algorithm::four_step) {
      return false;
    }
    const FourStepKind plain = rows ? FourStepKind::rows : FourStepKind::columns;
    const FourStepKind kind = rows ? FourStepKind::rows_real : FourStepKind::columns_real;
    // r2c: the real rows on the shorter side (n1 = 2 n2) where both sides have four-step
    // kernels: more rows to a block, longer runs stored. On the H200 r2c 2^22 took 0.97 ms
    // instead of 1.05 (bench/RESULTS.md "Four-step kernel: r2c's real rows on the shorter side";
    // 2^24, 1.37 ms instead of 1.66 then, now takes the rows pass below).
    if (rows && !shape.chosen && shape.n2 == 2 * shape.n1 && has_four_step_kernel(shape.n2)) {
      std::swap(shape.n1, shape.n2);
    }
    // r2c's real rows of 2048 (a square split, the half length 2^22) take 1024 instead
    // (FourStepShape::tall4, 4096 x 1024): runs of eight rows stored instead of four (a run of
    // 32 bytes and its mirror's, which straddles two sectors). On the H200 r2c 2^23 took 1.165 ms
    // instead of 1.180. The real rows of 512 (the half length 2^18) likewise take 256: r2c 2^19
    // took 0.697 ms instead of 0.715, where the same move took r2c 2^17 (256 x 256) from 0.617 to
    // 0.621 and r2c 2^21 (1024 x 1024) from 0.833 to 0.868 (bench/RESULTS.md "Four-step kernel:
    // r2c's real rows on the shorter side").
    constexpr int kTall4RealRows = 512;
    if (rows && !shape.chosen && shape.n1 == shape.n2 &&
        (four_step_teams(FourStepKind::rows_real, shape.n2) < 16 || shape.n2 == kTall4RealRows) &&
        has_four_step_kernel(2 * shape.n1) && has_four_step_kernel(shape.n2 / 2)) {
      shape.n1 *= 2;
      shape.n2 /= 2;
    }
    if (!shape.chosen) decimal_real_split(h, rows, shape.n1, shape.n2);
    const int n = rows ? shape.n2 : shape.n1;
    if (!(has_four_step_kernel(n) || has_decimal_four_step_kernel(n)) || (!rows && !has_real_columns_pass(n))) {
      return false;
    }
    // r2c's real rows of 2048 and longer stay unfused: the plain four-step into a buffer of
    // its own, then the real rows pass (make_plan_layout). On the H200 r2c 2^24 took 1.06 ms
    // instead of 1.27 fused (rows of 2048), 2^25 1.16 instead of 1.84 (rows of 4096)
    // (bench/RESULTS.md "Four-step kernel: r2c's real rows of 2048 and longer").
    if (rows && n >= 2048) return false;

    // What the four-step below adds, taken back where the kernel does not take the pass (the
    // tables stay: the caller's plan of the half length shares them).
    const std::size_t first = layout_.steps.size();
    const long long scratch_row = layout_.scratch_row;
    const std::string stage_summary = stage_summary_;
    if (rows) out.keep = h + 1;
    four_step(h, shape.n1, shape.n2, in, out);
    Step& fused = rows ? layout_.steps.back() : layout_.steps[first];
    PassDesc& p = fused.pass;
    const bool default_blocking = p.per_block == four_step_teams(plain, n);
    p.real_step = real_step;
    p.per_block = four_step_teams(kind, n);
    p.threads = p.per_block * four_step_team_threads(n);
    FourStepPassDesc d;
    if (!default_blocking || !four_step_pass_of(p, d, kMaxSharedBytesPerBlock)) {
      layout_.steps.resize(first);
      layout_.scratch_row = scratch_row;
      stage_summary_ = stage_summary;
      return false;
    }
    fused.real_tw = add_table(rows ? four_step_real_twiddles(h, shape.n1, shape.n2)
                                   : four_step_real_twiddles(h, shape.n2, shape.n1));
    algorithm_ += rows ? ", real via half length, post-processing in the row pass"
                       : ", real via half length, pre-processing in the column pass";
    return true;
  }

  // An r2c of length 2h whose half length is a four-step with rows then transpose (h = n1 x
  // 16384: r2c 2^26): the transpose step stores X itself (TransposeDesc::r2c_post) instead of Z
  // into a buffer of its own for a real rows pass to read again. On the H200 r2c 2^26 took 1.13
  // ms so instead of 1.32 (bench/RESULTS.md "Four-step kernel: r2c 2^26's post-processing in the
  // transpose"). False (nothing planned) for any other half length.
  bool transposed_real_rows(long long h, const Endpoint& in, Endpoint out) {
    out.keep = h + 1;
    Shape shape;
    if (complex_algorithm(h, in, out, shape, HalfLength::r2c) != Algorithm::four_step ||
        !rows_then_transpose(shape.n1, shape.n2, out) || shape.n1 % (2 * kTransposeTile) != 0) {
      return false;
    }
    four_step(h, shape.n1, shape.n2, in, out);
    Step& transpose = layout_.steps.back();
    transpose.transpose.r2c_post = true;
    transpose.real_tw = add_table(four_step_real_twiddles(h, shape.n1, shape.n2));
    algorithm_ += ", real via half length, post-processing in the transpose";
    return true;
  }

  // r2c's real rows (c2r's real columns) as decimal teams (has_decimal_four_step_kernel: 500)
  // where the half length is n1 x 500 (500 x n2) with the other side a compiled length that the
  // blocks' rows (columns) divide (48000 = 2 x 48 x 500, 10^6 = 2 x 1000 x 500): the row pass
  // stores X (the column pass forms the input), where the four-step kernel takes no other split
  // of such a half length. On the H200 (bench/RESULTS.md "Four-step kernel: decimal real rows and
  // columns") r2c 48000 took 0.88 ms instead of 1.35 over 125 x 192 and a real rows pass, 96000
  // 1.00 instead of 1.24, 10^6 1.17 instead of 1.53; c2r 48000 0.95 instead of 1.40, 96000 0.99
  // instead of 1.29, 10^6 1.10 instead of 1.54.
  static void decimal_real_split(long long h, bool rows, int& n1, int& n2) {
    const FourStepKind kind = rows ? FourStepKind::rows_real : FourStepKind::columns_real;
    for (int d = 1; d <= kFourStepMaxLength; ++d) {
      if (!has_decimal_four_step_kernel(d) || h % d != 0) continue;
      const long long lines = h / d;
      if (lines > kMaxSinglePass || !has_compiled_kernel(lines) || !fits_single_pass(lines) ||
          lines % four_step_teams(kind, d) != 0) {
        continue;
      }
      n1 = rows ? static_cast<int>(lines) : d;
      n2 = rows ? d : static_cast<int>(lines);
      return;
    }
  }

  // The table of four_step_real_twiddle for `lines` rows (or columns) of `length`:
  // w_{2h}^r for r < lines, then w_{2h}^{lines k} = w_{2h/lines}^k for k <= length.
  static std::vector<Cf> four_step_real_twiddles(long long h, long long lines, long long length) {
    std::vector<Cf> twiddles = unit_roots(2 * h, lines);
    const std::vector<Cf> per_element = unit_roots(2 * h / lines, length + 1);
    twiddles.insert(twiddles.end(), per_element.begin(), per_element.end());
    return twiddles;
  }

  // Whether complex_transform computes n between these endpoints in one pass kernel (one
  // Stockham pass, or Bluestein with the whole convolution in one block), whose store can then
  // take further steps such as the split of paired rows.
  bool one_pass_kernel(long long n, const Endpoint& in, const Endpoint& out) const {
    Shape shape;
    switch (complex_algorithm(n, in, out, shape)) {
      case Algorithm::single_pass: return true;
      case Algorithm::bluestein: return fits_single_pass(bluestein_convolution_length(n));
      default: return false;
    }
  }

  // Rader's X[0] and gather steps of a paired r2c of length n store the two rows' spectra
  // (RealStep::pair_split).
  void split_rader_pairs(long long n) {
    for (Step& step : layout_.steps) {
      if (step.kind != Step::Kind::rader_dc && step.kind != Step::Kind::rader_gather) continue;
      step.pass.real_step = RealStep::pair_split;
      step.pass.real_n = n;
    }
  }

  std::string summary() const { return algorithm_ + " [" + stage_summary_ + "]"; }
  void name_algorithm(std::string algorithm) { algorithm_ = std::move(algorithm); }
  const std::string& algorithm() const { return algorithm_; }

 private:
  PlanLayout& layout_;
  const PlannerOptions& options_;
  std::vector<std::pair<std::array<long long, 3>, int>> twiddle_grids_;
  std::vector<std::pair<std::vector<int>, int>> stage_tables_;
  std::string algorithm_;
  std::string stage_summary_;
};

}  // namespace

long long planner_complex_length(const PlanSpec& spec) {
  const bool real = spec.transform == Transform::r2c || spec.transform == Transform::c2r;
  const auto n = static_cast<long long>(spec.n);
  return real && n % 2 == 0 ? n / 2 : n;
}

bool can_take_four_step_columns(long long n, long long n1) {
  if (n1 <= 0) return false;
  int default_n1 = 0;
  int default_n2 = 0;
  if (fits_single_pass(n) || !four_step_split(n, default_n1, default_n2)) return false;
  return n % n1 == 0 && fits_single_pass(n1) && fits_single_pass(n / n1);
}

std::vector<int> four_step_column_candidates(long long n) {
  std::vector<int> columns;
  for (int length : kCompiledLengths) {
    if (n % length == 0 && has_compiled_kernel(n / length) && can_take_four_step_columns(n, length)) {
      columns.push_back(length);
    }
  }
  return columns;
}

std::vector<Cf> stage_twiddle_table(const int* radices, int count) {
  std::vector<Cf> table(static_cast<std::size_t>(std::max(1, stage_twiddle_offset(radices, count))),
                        Cf{0.0f, 0.0f});
  long long ns = 1;
  for (int s = 0; s < count; ++s) {
    const long long radix = radices[s];
    if (s > 0) {
      const int offset = stage_twiddle_offset(radices, s);
      for (long long k = 0; k < ns; ++k) {
        for (long long r = 0; r < radix; ++r) {
          const cd w = unit_root_double(r * k, ns * radix);
          table[static_cast<std::size_t>(offset + r * ns + k)] =
              Cf{static_cast<float>(w.real()), static_cast<float>(w.imag())};
        }
      }
    }
    if (is_prime_stage_radix(radices[s])) {
      const StageDesc stage{radices[s], static_cast<int>(ns), stage_twiddle_offset(radices, s)};
      const int roots = stage_roots_offset(stage);
      for (long long m = 0; m < radix; ++m) {
        const cd w = unit_root_double(m, radix);
        table[static_cast<std::size_t>(roots + m)] = Cf{static_cast<float>(w.real()), static_cast<float>(w.imag())};
      }
    }
    ns *= radix;
  }
  return table;
}

std::vector<Cf> stage_twiddle_table(long long n) {
  int radices[kMaxStages];
  const int count = factorize(n, radices, kMaxStages);
  if (count < 0) {
    throw std::invalid_argument("stage_twiddle_table: " + std::to_string(n) + " has a prime factor above " +
                                std::to_string(kLargestRadixPrime));
  }
  return stage_twiddle_table(radices, count);
}

std::vector<Cf> twiddle_grid(long long n, long long count, long long inner_count, long long split) {
  if (split < 1 || split > count) throw std::invalid_argument("twiddle_grid: split outside 1..count");
  const long long highs = (count + split - 1) / split;  // high = 0 .. highs - 1
  std::vector<Cf> w(static_cast<std::size_t>((split + highs - 1) * inner_count));
  const auto set = [&](long long row, long long exponent_step) {
    for (long long inner = 0; inner < inner_count; ++inner) {
      const cd value = unit_root_double(inner * exponent_step, n);
      w[static_cast<std::size_t>(row * inner_count + inner)] =
          Cf{static_cast<float>(value.real()), static_cast<float>(value.imag())};
    }
  };
  for (long long low = 0; low < split; ++low) set(low, low);
  for (long long high = 1; high < highs; ++high) {
    set(twiddle_high_row(static_cast<int>(split), static_cast<int>(high)), split * high);
  }
  return w;
}

int real_rows_low_bits(long long h) {
  int bits = 0;
  while ((1LL << (2 * bits)) < h + 1) ++bits;
  return bits;
}

std::vector<Cf> real_rows_twiddles(long long h, int low_bits) {
  const long long low_count = 1LL << low_bits;
  std::vector<Cf> w = unit_roots(2 * h, low_count);
  const std::vector<Cf> high = unit_roots(2 * h, (h >> low_bits) + 1, low_count);
  w.insert(w.end(), high.begin(), high.end());
  return w;
}

std::vector<Cf> unit_roots(long long n, long long count, long long step) {
  std::vector<Cf> w(static_cast<std::size_t>(count));
  for (long long t = 0; t < count; ++t) {
    const cd value = unit_root_double(t * step, n);
    w[static_cast<std::size_t>(t)] = Cf{static_cast<float>(value.real()), static_cast<float>(value.imag())};
  }
  return w;
}

// The table, else (a length without a compiled kernel) kRunTimeLoopCost times 40 ps per element
// (the table's costliest per element is 37).
long long bluestein_pass_cost(long long m) {
  for (const BluesteinPassCost& entry : kBluesteinPassCost) {
    if (entry.m == m) return entry.ps;
  }
  return m * 40 * kRunTimeLoopCost;
}

std::string bluestein_length_problem(long long n, long long m) {
  if (m < bluestein_min_length(n)) return "below 2n - 2 = " + std::to_string(bluestein_min_length(n));
  if (!is_smooth(m)) return "a length with a prime factor above " + std::to_string(kLargestSmoothPrime);
  if (fits_single_pass(m)) return {};
  int m1 = 0;
  int m2 = 0;
  if (!four_step_split(m, m1, m2)) {
    return "neither one block's length nor a length with a four-step split";
  }
  return {};
}

std::vector<long long> bluestein_lengths(long long n, std::size_t max_count) {
  bool single_pass = false;
  const std::vector<BluesteinCandidate> candidates = bluestein_candidates_of(n, single_pass);
  std::vector<long long> lengths;
  for (std::size_t i = 0; i < candidates.size() && i < max_count; ++i) {
    lengths.push_back(candidates[i].m);
  }
  return lengths;
}

long long primitive_root(long long p) {
  if (!is_prime(p)) throw std::invalid_argument("primitive_root: " + std::to_string(p) + " is not prime");
  if (p == 2) return 1;
  std::vector<long long> factors;  // the distinct prime factors of p - 1
  long long rest = p - 1;
  for (long long d = 2; d * d <= rest; ++d) {
    if (rest % d != 0) continue;
    factors.push_back(d);
    while (rest % d == 0) rest /= d;
  }
  if (rest > 1) factors.push_back(rest);
  for (long long g = 2;; ++g) {
    const bool generates = std::all_of(factors.begin(), factors.end(), [&](long long f) {
      return modular_power(g, (p - 1) / f, p) != 1;
    });
    if (generates) return g;
  }
}

bool can_take_rader(long long n) {
  if (n < 3 || n - 1 > kMaxPlannedLength || !is_prime(n) || is_direct_length(n)) return false;
  int m1 = 0;
  int m2 = 0;
  return is_smooth(n - 1) && four_step_split(n - 1, m1, m2) && has_compiled_kernel(m1) &&
         has_compiled_kernel(m2);
}

bool rader_rule(long long n) {
  if (!can_take_rader(n)) return false;
  bool single_pass = false;
  const std::vector<BluesteinCandidate> bluestein = bluestein_candidates_of(n, single_pass);
  if (single_pass) return false;
  if (bluestein.empty()) return true;
  int m1 = 0;
  int m2 = 0;
  four_step_split(n - 1, m1, m2);
  return bluestein_three_pass_cost(n - 1, m1, m2) < bluestein.front().cost;
}

bool takes_rader(long long n, const PlannerOptions& options) {
  if (options.rader < 0 || !can_take_rader(n)) return false;
  return options.rader > 0 || (options.bluestein_length == 0 && rader_rule(n));
}

bool direct_dft_rule(long long n, Transform transform) {
  const bool real = transform == Transform::r2c || transform == Transform::c2r;
  const int h = direct_dft_length(n, real);
  if (h == 0) return false;
  if (!is_smooth(h)) return true;
  struct Exception {
    long long n;
    Transform transform;
  };
  // Above 30: where our FFT's error was above 1.1x cuFFT's on the H200 (the whole sweep
  // 2..4096, bench/RESULTS.md "Direct DFT": c2r 32 7.65e-08 against 6.83e-08 ... c2r 60 9.0e-08
  // against 7.93e-08), and r2c where the direct DFT was the faster (36: 0.661 ms against 0.937).
  constexpr Exception kDirectLonger[] = {
      {32, Transform::r2c},  {36, Transform::r2c}, {44, Transform::r2c}, {60, Transform::r2c},
      {90, Transform::r2c},  {108, Transform::r2c}, {32, Transform::c2r}, {35, Transform::c2r},
      {36, Transform::c2r},  {44, Transform::c2r},  {60, Transform::c2r}, {88, Transform::c2r},
      {90, Transform::c2r},  {108, Transform::c2r}, {110, Transform::c2r}};
  for (const Exception& e : kDirectLonger) {
    if (e.n == n && e.transform == transform) return true;
  }
  if (n > kDirectSmoothLength) return false;
  // Where our FFT of a short smooth length was the faster on the H200 and not less accurate
  // than cuFFT (bench/RESULTS.md "Direct DFT"; the row per thread then took c2c 11, r2c 16 and c2r
  // 16 from the FFT, r2c 16 0.375 ms against 0.696: "Direct DFT: the kernels").
  constexpr Exception kFftFaster[] = {{2, Transform::c2c_forward},  {2, Transform::c2c_inverse},
                                      {24, Transform::c2c_forward}, {24, Transform::c2c_inverse},
                                      {4, Transform::r2c},          {8, Transform::r2c}};
  for (const Exception& e : kFftFaster) {
    if (e.n == n && e.transform == transform) return false;
  }
  return true;
}

std::vector<Cf> direct_roots_table(long long count) {
  std::vector<Cf> table(2 * static_cast<std::size_t>(count));
  for (long long t = 0; t < count; ++t) {
    const cd w = std::conj(unit_root_double(t, count));  // (cos, sin) of 2 pi t / count
    const Cf hi{static_cast<float>(w.real()), static_cast<float>(w.imag())};
    table[2 * static_cast<std::size_t>(t)] = hi;
    table[2 * static_cast<std::size_t>(t) + 1] =
        Cf{static_cast<float>(w.real() - hi.re), static_cast<float>(w.imag() - hi.im)};
  }
  return table;
}

int prime_stage_count(long long n) {
  int radices[kMaxStages];
  const int count = factorize(n, radices, kMaxStages);
  return count < 0 ? 0 : static_cast<int>(std::count_if(radices, radices + count, is_prime_stage_radix));
}

bool takes_prime_stages(long long n, const PlannerOptions& options) {
  return options.prime_stages != 0 || prime_stage_count(n) == 0;
}

bool is_direct_length(long long n, const PlannerOptions& options) {
  if (!takes_prime_stages(n, options)) return false;
  if (fits_single_pass(n)) return true;
  int n1 = 0;
  int n2 = 0;
  return four_step_split(n, n1, n2);
}

bool can_take_full_length_c2r(long long n, const PlannerOptions& options) {
  if (!fits_single_pass(n) || !is_direct_length(n, options)) return false;
  return n % 2 == 1 || is_direct_length(n / 2, options);
}

bool full_length_c2r_rule(long long n) {
  constexpr long long kFullLength[] = {135, 162, 198, 243, 264, 297, 360, 405, 486, 810, 990, 1080};
  return std::find(std::begin(kFullLength), std::end(kFullLength), n) != std::end(kFullLength);
}

bool takes_full_length_c2r(long long n, const PlannerOptions& options) {
  if (options.full_length_c2r < 0 || !can_take_full_length_c2r(n, options)) return false;
  return options.full_length_c2r > 0 || full_length_c2r_rule(n);
}

long long launch_shared_bytes(const Step& step) {
  switch (step.kind) {
    case Step::Kind::real_rows:
    case Step::Kind::pair_split:
    case Step::Kind::rader_dc:
    case Step::Kind::rader_gather:
    case Step::Kind::transpose: return 0;
    case Step::Kind::cluster_pass:
      return 2LL * cluster_plane_floats(step.cluster.m) * static_cast<long long>(sizeof(float));
    case Step::Kind::direct_dft: return direct_shared_bytes(step.direct);
    case Step::Kind::fft_pass: break;
  }
  const PassDesc& p = step.pass;
  FourStepPassDesc four_step;
  if (four_step_pass_of(p, four_step, kMaxSharedBytesPerBlock)) {
    return four_step_shared_bytes(four_step.n, four_step_teams(four_step.kind, four_step.n));
  }
  RowsPassDesc rows;
  if (rows_pass_of(p, rows)) return rows_shared_bytes(rows.n, rows.kind, rows.elements_per_thread);
  return 2LL * p.per_block * p.smem_stride * static_cast<long long>(sizeof(float));
}

long long max_launch_shared_bytes(const PlanLayout& layout) {
  long long most = 0;
  for (const Step& step : layout.steps) most = std::max(most, launch_shared_bytes(step));
  return most;
}

long long input_row_length(const PlanSpec& spec) {
  const long long n = static_cast<long long>(spec.n);
  switch (spec.transform) {
    case Transform::r2c: return spec.in_place ? 2 * (n / 2 + 1) : n;
    case Transform::c2r: return n / 2 + 1;
    default: return n;
  }
}

long long output_row_length(const PlanSpec& spec) {
  const long long n = static_cast<long long>(spec.n);
  switch (spec.transform) {
    case Transform::r2c: return n / 2 + 1;
    case Transform::c2r: return spec.in_place ? 2 * (n / 2 + 1) : n;
    default: return n;
  }
}

namespace {

// Real rows taken two at a time (PassDesc::paired): the endpoints' row distances step over pairs.
void pair_rows(PlanLayout& layout, Endpoint& in, Endpoint& out) {
  layout.paired_rows = true;
  in.paired = true;
  in.pair_dist = in.row_dist;
  in.row_dist *= 2;
  out.paired = true;
  out.pair_dist = out.row_dist;
  out.row_dist *= 2;
}

// The whole transform as one pass of the direct DFT (fft_direct.hpp) of complex length h.
void plan_direct_dft(PlanLayout& layout, int h) {
  const PlanSpec& spec = layout.spec;
  DirectDftDesc d;
  switch (spec.transform) {
    case Transform::c2c_forward: d.kind = RowsKind::forward; break;
    case Transform::c2c_inverse: d.kind = RowsKind::inverse; break;
    case Transform::r2c: d.kind = RowsKind::real_forward; break;
    case Transform::c2r: d.kind = RowsKind::real_inverse; break;
  }
  d.n = static_cast<int>(spec.n);
  d.h = h;
  d.root_step = direct_half_length(d) ? 2 : 1;
  const bool real_in = spec.transform == Transform::r2c;
  const bool real_out = spec.transform == Transform::c2r;
  d.in_row_dist = real_in ? layout.in_row : 2 * layout.in_row;
  d.out_row_dist = real_out ? layout.out_row : 2 * layout.out_row;
  d.rows_per_block = direct_thread_rows(h) ? kDirectRowThreads : direct_rows_per_block(h);
  Step step;
  step.kind = Step::Kind::direct_dft;
  step.direct = d;
  layout.tables.push_back(direct_roots_table(direct_roots_count(d)));
  step.real_tw = static_cast<int>(layout.tables.size()) - 1;
  layout.steps.push_back(step);
  layout.algorithm = std::string("direct DFT in double") + (direct_half_length(d) ? ", real via half length" : "") +
                     " [" + std::to_string(h) + "]";
}

}  // namespace

int default_rows_elements_per_thread(long long n, RowsKind kind) {
  if (has_decimal_rows_kernel(n)) return kDecimalTeamElements;
  return has_wide_rows_kernel(n) && kind == RowsKind::real_inverse ? kWideTeamElements : kElementsPerThread;
}

PlanLayout make_plan_layout(const PlanSpec& spec, const PlannerOptions& options) {
  if (spec.n == 0) throw std::invalid_argument("FFT length must be at least 1");
  if (spec.batch == 0) throw std::invalid_argument("FFT batch must be at least 1");
  if (static_cast<long long>(spec.n) > kMaxPlannedLength) {
    throw std::invalid_argument("FFT length " + std::to_string(spec.n) + " above the supported " +
                                std::to_string(kMaxPlannedLength));
  }
  if (!known_rows_elements_per_thread(options.rows_elements_per_thread)) {
    throw std::invalid_argument("planner option rows_elements_per_thread " +
                                std::to_string(options.rows_elements_per_thread) + ": " +
                                kRowsElementsPerThreadChoices);
  }
  if (options.direct_dft < -1 || options.direct_dft > 1) {
    throw std::invalid_argument("planner option direct_dft " + std::to_string(options.direct_dft) +
                                ": 0 (the planner's rule), 1 (wherever it can) or -1 (never)");
  }
  if (options.prime_stages != 0 && options.prime_stages != 1) {
    throw std::invalid_argument("planner option prime_stages " + std::to_string(options.prime_stages) +
                                ": 1 (prime stages) or 0 (Bluestein instead)");
  }
  if (options.full_length_c2r < -1 || options.full_length_c2r > 1) {
    throw std::invalid_argument("planner option full_length_c2r " + std::to_string(options.full_length_c2r) +
                                ": 0 (the planner's rule), 1 (wherever it can) or -1 (never)");
  }
  if (options.rader < -1 || options.rader > 1) {
    throw std::invalid_argument("planner option rader " + std::to_string(options.rader) +
                                ": 0 (the planner's rule), 1 (wherever it can) or -1 (never)");
  }
  if (options.four_step_columns < 0 || options.four_step_columns > kMaxSinglePass) {
    throw std::invalid_argument("planner option four_step_columns " + std::to_string(options.four_step_columns) +
                                ": 0 (the planner's rule) or the column pass's length, up to " +
                                std::to_string(kMaxSinglePass));
  }
  PlanLayout layout;
  layout.spec = spec;
  layout.in_row = input_row_length(spec);
  layout.out_row = output_row_length(spec);
  const bool real = spec.transform == Transform::r2c || spec.transform == Transform::c2r;
  const int direct_h = direct_dft_length(static_cast<long long>(spec.n), real);
  if (direct_h > 0 && (options.direct_dft == 1 ||
                       (options.direct_dft == 0 && direct_dft_rule(static_cast<long long>(spec.n), spec.transform)))) {
    plan_direct_dft(layout, direct_h);
    return layout;
  }
  Builder builder(layout, options);
  const long long n = static_cast<long long>(spec.n);
  int c = 0;  // cluster pass shape of a real transform's half length
  int m = 0;

  Endpoint in;
  in.buffer = BufferRef::input;
  in.row_dist = layout.in_row;
  Endpoint out;
  out.buffer = BufferRef::output;
  out.row_dist = layout.out_row;

  switch (spec.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse: {
      const bool inverse = spec.transform == Transform::c2c_inverse;
      in.conj = inverse;
      out.conj = inverse;
      out.keep = n;
      builder.complex_transform(n, in, out);
      break;
    }
    case Transform::r2c: {
      const long long h = n / 2;
      if (n % 2 == 0 && is_direct_length(h, options)) {
        // The real row read as h complex values.
        in.load_kind = LoadKind::complex_row;
        in.row_dist = layout.in_row / 2;
        if (builder.four_step_real(h, in, out, RealStep::r2c_post_rows)) break;
        if (fits_single_pass(h)) {
          const int real_tw = builder.add_table(unit_roots(n, h + 1));
          Step& step = builder.single_pass(h, in, out, RowsKind::real_forward);
          PassDesc& p = step.pass;
          p.real_step = RealStep::r2c_post;
          p.store_n = static_cast<int>(h + 1);
          p.n_keep = h + 1;
          step.real_tw = real_tw;
          Builder::configure_block(p, options.single_elements_per_block, 1 << 20);
          builder.name_algorithm("stockham, real via half length");
        } else if (cluster_shape(h, options.cluster_block_length, c, m)) {
          Step& step = builder.cluster_pass(h, c, m, in.buffer, in.row_dist, out.buffer, out.row_dist);
          step.cluster.real_step = RealStep::r2c_post;
          step.real_tw = builder.add_table(unit_roots(n, h + 1));
          builder.name_algorithm(builder.algorithm() + ", real via half length");
        } else if (!builder.transposed_real_rows(h, in, out)) {
          // The half length into a buffer of its own, rows of h (32-byte aligned where h is a
          // multiple of 4, so that the four-step kernel takes the passes; the output's rows of
          // h + 1 values are not), then the post-processing from there into the output.
          Endpoint staged;
          staged.buffer = BufferRef::pair_spectra;
          staged.row_dist = h;
          builder.complex_transform(h, in, staged);
          layout.pair_spectra_row = std::max(layout.pair_spectra_row, h);
          builder.name_algorithm(builder.algorithm() + ", real via half length + rows pass");
          Step rows;
          rows.kind = Step::Kind::real_rows;
          rows.rows = RealRowsDesc{false, static_cast<int>(h), h, layout.out_row, nullptr, real_rows_low_bits(h)};
          rows.real_tw = builder.add_table(real_rows_twiddles(h, rows.rows.tw_low_bits));
          rows.src = BufferRef::pair_spectra;
          rows.dst = BufferRef::output;
          layout.steps.push_back(rows);
        }
      } else {
        in.load_kind = LoadKind::real_row;
        out.keep = n / 2 + 1;
        // Two rows per complex transform. The split of a pair's spectrum needs Z[k] and Z[n-k]:
        // fused into the store where the whole transform is one pass, else a pass of its own
        // over the spectra kept in their own buffer.
        const bool paired = spec.batch >= 2;
        if (paired) pair_rows(layout, in, out);
        if (paired && takes_rader(n, options)) {
          // Rader's last steps split the pairs' spectra from its scratch (store_rader_output).
          builder.complex_transform(n, in, out);
          builder.split_rader_pairs(n);
          builder.name_algorithm(builder.algorithm() + ", two real rows per transform");
        } else if (paired && !builder.one_pass_kernel(n, in, out)) {
          Endpoint spectra;
          spectra.buffer = BufferRef::pair_spectra;
          spectra.row_dist = n;
          spectra.keep = n;
          layout.pair_spectra_row = n;
          builder.complex_transform(n, in, spectra);
          Step split;
          split.kind = Step::Kind::pair_split;
          split.split = PairSplitDesc{static_cast<int>(n), n, out.pair_dist};
          split.src = BufferRef::pair_spectra;
          split.dst = BufferRef::output;
          layout.steps.push_back(split);
          builder.name_algorithm(builder.algorithm() + ", two real rows per transform + split pass");
        } else {
          builder.complex_transform(n, in, out);
          if (paired) {
            PassDesc& p = layout.steps.back().pass;
            p.real_step = RealStep::pair_split;
            p.real_n = n;
            builder.name_algorithm(builder.algorithm() + ", two real rows per transform");
          }
        }
      }
      break;
    }
    case Transform::c2r: {
      const long long h = n / 2;
      const bool full_length = takes_full_length_c2r(n, options);
      if (n % 2 == 0 && !full_length && is_direct_length(h, options)) {
        out.store_kind = StoreKind::complex_row;
        out.row_dist = layout.out_row / 2;
        out.keep = h;
        out.conj = true;
        if (fits_single_pass(h)) {
          // In the rows kernel's stage order, which the pass kernels of its lengths do not
          // take: a pass of those lengths must be a rows pass.
          Step& step = builder.single_pass(h, in, out, RowsKind::real_inverse);
          PassDesc& p = step.pass;
          p.real_step = RealStep::c2r_pre;
          p.load_n = static_cast<int>(h + 1);
          p.smem_elems = static_cast<int>(h + 1);
          step.real_tw = builder.add_table(unit_roots(n, h + 1));
          Builder::configure_block(p, options.single_elements_per_block, 1 << 20);
          RowsPassDesc rows_desc;
          if (has_rows_kernel(h) && !rows_pass_of(p, rows_desc)) {
            throw std::logic_error("plan: the c2r pass of half length " + std::to_string(h) +
                                   " is not a rows pass");
          }
          builder.name_algorithm("stockham, real via half length");
        } else if (cluster_shape(h, options.cluster_block_length, c, m)) {
          Step& step = builder.cluster_pass(h, c, m, in.buffer, in.row_dist, out.buffer, out.row_dist);
          step.cluster.real_step = RealStep::c2r_pre;
          step.cluster.conj_out = true;
          step.real_tw = builder.add_table(unit_roots(n, h + 1));
          builder.name_algorithm(builder.algorithm() + ", real via half length");
        } else if (!builder.four_step_real(h, in, out, RealStep::c2r_pre_columns)) {
          Step rows;
          rows.kind = Step::Kind::real_rows;
          rows.rows = RealRowsDesc{true, static_cast<int>(h), layout.in_row, h, nullptr, real_rows_low_bits(h)};
          rows.real_tw = builder.add_table(real_rows_twiddles(h, rows.rows.tw_low_bits));
          rows.src = BufferRef::input;
          rows.dst = BufferRef::scratch;
          layout.steps.push_back(rows);
          layout.scratch_row = std::max(layout.scratch_row, h);
          Endpoint staged;
          staged.buffer = BufferRef::scratch;
          staged.row_dist = h;
          builder.complex_transform(h, staged, out);
          builder.name_algorithm("rows pass + " + builder.algorithm() + ", real via half length");
        }
      } else {
        in.load_kind = LoadKind::hermitian_row;
        in.herm_n = n;
        in.conj = true;   // the inverse as conj(FFT(conj X)):
        out.conj = true;  // the second row of a pair is the imaginary part
        out.store_kind = StoreKind::real_row;
        out.keep = n;
        // Two rows per complex transform: the inverse of X1 + i X2 is x1 + i x2.
        const bool paired = spec.batch >= 2 && !full_length;
        if (paired) pair_rows(layout, in, out);
        builder.complex_transform(n, in, out);
        if (paired) builder.name_algorithm(builder.algorithm() + ", two real rows per transform");
        if (full_length) builder.name_algorithm(builder.algorithm() + ", real of the full length");
      }
      break;
    }
  }
  layout.algorithm = builder.summary();
  return layout;
}

PlanLayout make_columns_layout(const ColumnsSpec& spec, const PlannerOptions& options) {
  const std::string what = "columns pass of length " + std::to_string(spec.n) + " over " +
                           std::to_string(spec.columns) + " columns";
  if (spec.n < 1 || spec.columns < 1 || spec.batch == 0)
    throw std::invalid_argument(what + ": lengths, columns and batch must be at least 1");
  if (!is_smooth(spec.n) || !fits_single_pass(spec.n))
    throw std::invalid_argument(what + ": the length does not take one pass");
  PlanLayout layout;
  layout.spec = PlanSpec{static_cast<std::size_t>(spec.n), spec.batch,
                         spec.inverse ? Transform::c2c_inverse : Transform::c2c_forward, false};
  layout.in_row = layout.out_row = spec.n * spec.columns;
  Builder builder(layout, options);
  builder.columns_pass(spec);
  const PassDesc& p = layout.steps.front().pass;
  if (p.per_block < std::min(kMinColumnsPerBlock, spec.columns))
    throw std::invalid_argument(what + ": a block holds " + std::to_string(p.per_block) + " columns, fewer than " +
                                std::to_string(kMinColumnsPerBlock));
  layout.algorithm = builder.summary();
  return layout;
}

bool columns_pass_fits(long long n, long long columns, long long max_shared_bytes) {
  if (n < 1 || columns < 1 || !is_smooth(n) || !fits_single_pass(n)) return false;
  try {
    return max_launch_shared_bytes(make_columns_layout(ColumnsSpec{n, columns, 1, false})) <= max_shared_bytes;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace prism::fft::gpu
