// The planner of our CUDA FFT: turns a PlanSpec into a PlanLayout, the list of passes (kernel
// launches) with their tables. Host-only C++ (no CUDA needed), so the same layout is executed by
// the CUDA backend (tables uploaded to the device) and by the host executor in the CPU tests.
//
// Algorithms, by length:
//  - short rows where the planner's rule takes them (direct_dft_rule): the direct DFT in double
//    precision (fft_direct.hpp), one pass;
//  - every prime factor <= 13 and n <= kMaxSinglePass: one Stockham pass in shared memory;
//    prime factors from 17 to 31 too, in the pass kernel's run-time stage loop (compiled
//    kernels have none of them);
//  - n = C*M with C in {2, 4, 8} and M in {8192, 16384} (2^15 ... 2^17), when the options ask
//    for them (PlannerOptions::cluster_block_length) and the device has thread-block clusters:
//    one cluster pass (ClusterPassDesc), the C blocks of a transform exchanging through
//    distributed shared memory;
//  - other n = n1*n2 with prime factors <= 31: four-step, column pass with the twiddle fused
//    into its store, row pass with the transpose fused into its store; rows longer than the
//    four-step kernel takes (8192 and 16384: 2^25, 2^26) run in place in the scratch and a
//    transpose step (TransposeDesc) writes the output;
//  - otherwise Bluestein with a smooth convolution length m >= 2n-1: one pass when m fits a
//    block (chirp, FFT, spectrum multiply, inverse FFT, chirp all in shared memory), else three
//    passes (columns with the chirp; rows with the spectrum multiply and both row FFTs; columns).
//  - prime n whose n - 1 has a four-step split, where Bluestein would take three passes and the
//    planner's estimate finds Rader cheaper (rader_rule): Rader's cyclic convolution of length
//    n - 1 in Bluestein's three passes, the input gathered by powers of a primitive root in the
//    first, X[0] by a step of its own after it and the outputs gathered by a last one;
//  - real transforms of even n through the half-length complex FFT with the post-/pre-processing
//    fused into the pass (single and cluster passes; for four-step half-lengths, r2c in the row
//    pass and c2r in the column pass where the four-step kernel takes them: powers of two, c2r
//    with columns of up to 2048, and half lengths n1 x 500 (r2c) or 500 x n2 (c2r) on its
//    decimal teams; r2c in the transpose step where the half length takes one (2^26); else one
//    extra pass over the rows); odd n
//    through the complex algorithms with real loads or Hermitian expansion fused in; c2r of the
//    lengths of full_length_c2r_rule through the complex FFT of the full length, one row per
//    transform (for its accuracy).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fft/cuda/fft_direct.hpp"
#include "fft/cuda/fft_pass.hpp"
#include "fft/fft.hpp"

namespace prism::fft::gpu {

// pair_spectra: a second scratch area (PlanLayout::pair_spectra_row per transform) for the
// pairs' spectra of a paired r2c in several passes.
enum class BufferRef { input, output, scratch, pair_spectra };

struct Step {
  enum class Kind { fft_pass, real_rows, pair_split, cluster_pass, direct_dft, rader_dc, rader_gather, transpose };
  Kind kind = Kind::fft_pass;
  // fft_pass over batched rows (PassDesc::inner_is_batch): rows per transform of the plan, all
  // in.inner_dist apart (n1 for a four-step's row pass ahead of a transpose step).
  long long batch_rows = 1;
  TransposeDesc transpose;  // transpose: the output's element map
  DirectDftDesc direct;  // direct_dft: its roots are the table `real_tw`
  PassDesc pass;  // fft_pass; cluster_pass: the stages of its M-point FFTs
  ClusterPassDesc cluster;
  RealRowsDesc rows;
  PairSplitDesc split;
  // rader_dc: X[0] of a Rader transform, `pass` loading as its first pass and storing as the
  // output; rader_gather: its other outputs from the scratch, `pass` storing as the output,
  // load_index the gather (RaderDcDesc, fft_pass.hpp).
  RaderDcDesc rader;
  BufferRef src = BufferRef::input;
  BufferRef dst = BufferRef::output;
  // Indices into PlanLayout::tables (-1: none); bound to host or device pointers at execution.
  int stage_tw = -1;
  int pass_tw = -1;  // four-step twiddles; cluster passes: ClusterPassDesc::cluster_tw
  int chirp = -1;
  int conv = -1;
  int real_tw = -1;
  // Index into PlanLayout::index_tables (-1: none): PassDesc::load_index.
  int load_index = -1;
};

// Tunable choices of the planner (the tuning mode measures candidates of these).
struct PlannerOptions {
  // Plain batched passes: transforms per block = this / n.
  int single_elements_per_block = kSingleElementsPerBlock;
  // Four-step column passes (strided loads and stores); Bluestein's column passes take half.
  int column_elements_per_block = 8192;
  int row_elements_per_block = 8192;     // four-step row passes (transposed stores)
  // M of cluster passes, the elements each block holds (one of kClusterBlockLengths; the other
  // where n / M is no cluster size); 0: no cluster passes. Off by default: on the H200 they were
  // slower than the four-step except for r2c 65536 (bench/RESULTS.md "Cluster passes (2^15 to
  // 2^17)"), so they are a candidate of the tuning mode. Ignored on devices without thread-block
  // clusters.
  int cluster_block_length = 0;
  // The convolution length m of a Bluestein plan: at least 2n - 2 (bluestein_min_length), and
  // a length the planner builds (one that a block holds, or a smooth one with a four-step
  // split); 0: the planner's estimate of the cheapest (bluestein_lengths). Plans without
  // Bluestein ignore it.
  int bluestein_length = 0;
  // Elements per thread of the rows kernel's teams for the rows that have a choice: those with
  // wide teams (has_wide_rows_kernel: single passes of 8192, c2c or the half of r2c / c2r
  // 16384) take kElementsPerThread (16) or kWideTeamElements (32); the decimal lengths
  // (has_decimal_rows_kernel: single passes of 500, 1000, 2000 and 4000, c2c or the halves of
  // r2c / c2r 1000 to 8000) take kDecimalTeamElements (10), or run on the plain rows kernel at
  // kElementsPerThread (16); 0: the planner's rule (default_rows_elements_per_thread). Other
  // lengths ignore it.
  int rows_elements_per_thread = 0;
  // The direct DFT (fft_direct.hpp) for the lengths it takes (direct_dft_length): 0 where the
  // planner's rule says (direct_dft_rule), 1 wherever it can, -1 never. Not a candidate of the
  // tuning mode, which measures speed only: the rule takes it for accuracy.
  int direct_dft = 0;
  // Prime stages (radices 37 to 127, prime_stage_item) for the lengths that have them: 1, or 0
  // for Bluestein instead. On the H200 (bench/RESULTS.md "Prime stages (radices 37 to 127)") their
  // error stayed within 1.1x cuFFT's at every such length up to 4096 where Bluestein's was above it
  // at 112 (c2c forward); Bluestein was 1.05-2.8x faster for single passes (c2c 148 1.84 against
  // 1.94 ms, 4087 2.08 against 4.58) and a four-step of two prime stages (14351: 2.8 against 8.0),
  // slower for four-steps of one (606208: 4.50 against 3.30, 827392: 5.20 against 4.10; 1040384 =
  // 127 x 8192 4.27 against 4.41). Not a candidate of the tuning mode, which measures speed only:
  // the default takes them for accuracy, as the direct DFT.
  int prime_stages = 1;
  // c2r through the complex FFT of the full length n, the Hermitian row expanded on load and the
  // real parts stored, one row per transform (can_take_full_length_c2r: n one pass without
  // Bluestein), instead of the half length's FFT (even n) or two rows per transform (odd n):
  // 0 where the planner's rule says (full_length_c2r_rule), 1 wherever it can, -1 never. Its
  // error is that of the real part alone: on the H200 (bench/RESULTS.md "Full-length c2r")
  // 0.8-0.95x cuFFT's at the rule's lengths, where the half length's or a pair's was 1.1-1.26x; but
  // twice the arithmetic, and the Hermitian rows loaded element by element: 1.9-2.8x the time (c2r
  // 135 1.28 against 2.44 ms, 162 0.94 against 2.63, 1080 1.14 against 2.80). Not a candidate of
  // the tuning mode: the rule takes it for accuracy, as the direct DFT.
  int full_length_c2r = 0;
  // Rader's algorithm for prime lengths that can take it (can_take_rader) instead of Bluestein:
  // 0 where the planner's rule says (rader_rule) and bluestein_length is 0, 1 wherever it can,
  // -1 never. A candidate of the tuning mode, which measures speed.
  int rader = 0;
  // The four-step split of the transform's complex length n (the half length of an even r2c or
  // c2r): the column pass's length n1, the row pass's n / n1, in place of the planner's rule
  // (four_step_split and its preferences) and of the real transforms' own reshaping of it
  // (four_step_real); 0: the rule. Taken where n has a four-step (and no cluster pass of
  // cluster_block_length takes it) and n1 is a split of it (can_take_four_step_columns); elsewhere
  // ignored, as bluestein_length is outside Bluestein. At most kMaxSinglePass.
  // The radix order across passes, which the tuning mode searches over the splits whose sides both
  // have compiled kernels (four_step_column_candidates); the order of the stages inside a compiled
  // pass is fixed when it is compiled.
  int four_step_columns = 0;
};

// The complex length the planner transforms for spec: n, or n / 2 for an even r2c or c2r (the half
// length), the length PlannerOptions::four_step_columns splits.
long long planner_complex_length(const PlanSpec& spec);
// Whether the four-step split n1 x (n / n1) can be planned for a complex length n: n has a
// four-step (too long for one pass, with a split into single-pass lengths) and n1 and n / n1 are
// both single-pass lengths.
bool can_take_four_step_columns(long long n, long long n1);
// The column lengths the tuning mode measures for a complex length n: every n1 of a split whose
// sides both have compiled kernels, shortest first; empty where n has no four-step.
std::vector<int> four_step_column_candidates(long long n);

// Whether `elements` is a value of PlannerOptions::rows_elements_per_thread, and the values.
inline constexpr bool known_rows_elements_per_thread(long long elements) {
  return elements == 0 || elements == kElementsPerThread || elements == kWideTeamElements ||
         elements == kDecimalTeamElements;
}
inline constexpr const char* kRowsElementsPerThreadChoices = "0 (the planner's rule), 16, 32 or 10";

// The planner's rule for the rows kernel's elements per thread at length n (the complex length
// of the pass) and kind: decimal teams for 500 and 1000, 6-15 % faster than the plain rows kernel
// at its default blocking on the H100, c2c 1000 too since they run three blocks per multiprocessor
// (0.274 ms against 0.313-0.326 on the plain rows kernel's blockings on the H200; at two blocks the
// plain rows kernel was faster), and for 2000 and 4000 (10x10x10x2 and 10x10x10x2x2 against the
// plain rows kernel's 16x5x5x5 and 16x10x5x5; H200: c2c 2000 0.348 -> 0.328 ms, 4000 0.434 ->
// 0.381, r2c 4000 0.459 -> 0.426, 8000 0.531 -> 0.449, c2r 4000 0.417 -> 0.390, 8000 0.491 ->
// 0.460, and every blocking of the plain rows kernel slower in the tuning mode): bench/RESULTS.md
// "Decimal teams (rows of 500, 1000, 2000, 4000)". Wide teams for c2r's halves of 8192, the one
// kind they were faster for on the H200 (bench/RESULTS.md "Rows kernel: wide teams for rows of
// 8192"); else kElementsPerThread.
int default_rows_elements_per_thread(long long n, RowsKind kind);

// The planner's rule for the direct DFT, among the lengths it takes (direct_dft_length): those
// whose complex length has a prime factor above 13 (else Bluestein, or a stage of radix 17 to 127
// that was not measured against it: Bluestein took 1.1-2.7x the direct DFT's
// time on the H200 up to 46, less at 61), and the lengths up to kDirectSmoothLength but a few
// where our FFT was faster (bench/RESULTS.md "Direct DFT": the direct DFT took 0.3-1.0x the FFT's
// time, c2c 3-27, r2c and c2r 2-27), and longer ones where our FFT's error was above 1.1x cuFFT's
// (r2c 32, c2r 32-110) or the direct DFT was the faster (r2c 36-108). Its error is the float
// rounding of the result, 2.0-2.7e-8, where the FFTs of these lengths were up to 1.3x cuFFT's (4e-8
// to 1e-7).
inline constexpr long long kDirectSmoothLength = 30;
bool direct_dft_rule(long long n, Transform transform);

// Whether a c2r of length n can take the full-length complex FFT (PlannerOptions::
// full_length_c2r): n one pass without Bluestein, and not already its plan (even n whose half
// length takes Bluestein).
bool can_take_full_length_c2r(long long n, const PlannerOptions& options);
// The planner's rule for it, among the lengths that can: the c2r lengths whose half-length or
// paired FFT's error was above 1.1x cuFFT's in the whole sweep 2..4096 on the H200 (135, 162,
// 198, 243, 264, 297, 360, 405, 486, 810, 990, 1080: 1.04-1.26e-07 against 0.85-1.12e-07,
// bench/RESULTS.md "Full-length c2r"), longer than the direct DFT takes.
bool full_length_c2r_rule(long long n);
// Whether a c2r plan of n under these options takes it.
bool takes_full_length_c2r(long long n, const PlannerOptions& options);

// Whether a prime length n can take Rader's algorithm (PlannerOptions::rader): n - 1 smooth
// with a four-step split into lengths with compiled kernels (the convolution in three passes on
// the Bluestein kernel, the one that gathers and scatters), n too long for the direct DFT's and
// the prime stages' single passes.
bool can_take_rader(long long n);
// The planner's rule for it, among the lengths that can: where Bluestein takes three passes
// (2n - 2 beyond one block) and the estimate of Rader's three passes of n - 1
// (bluestein_three_pass_cost) is below that of Bluestein's cheapest convolution length. On the
// H200 (bench/RESULTS.md "Rader") Rader took c2c / r2c / c2r 12289 21 / 21 / 15 %, 18433 28 / 25 /
// 21 %, 40961 39 / 35 / 31 %, 65537 44 / 42 / 38 % and 786433 37 / 35 / 36 % less time than
// Bluestein. Not against Bluestein in one pass (n up to 8192): there Rader was 4-17 % faster at
// 1153 and 4801 and slower at 3457, 7681 and 8191 (c2c +7, +15, +42 %), which the tuning mode tells
// apart.
bool rader_rule(long long n);
// Whether a plan of n under these options takes it.
bool takes_rader(long long n, const PlannerOptions& options);
// The least primitive root modulo the prime p (g whose powers g^0 .. g^(p-2) are 1 .. p-1).
long long primitive_root(long long p);

struct PlanLayout {
  PlanSpec spec;
  long long in_row = 0;       // elements between input rows (floats for real rows)
  long long out_row = 0;      // elements between output rows
  long long scratch_row = 0;  // complex scratch elements per transform
  // Real rows taken two at a time (PassDesc::paired): an execution of `rows` rows runs
  // (rows + 1) / 2 transforms.
  bool paired_rows = false;
  long long pair_spectra_row = 0;  // complex elements per transform of BufferRef::pair_spectra
  std::vector<Step> steps;
  std::vector<std::vector<Cf>> tables;
  std::vector<std::vector<int>> index_tables;  // Rader's permutations (Step::load_index)
  std::string algorithm;      // human-readable summary, e.g. "stockham 16x16x16"
  long long bluestein_length = 0;  // the Bluestein convolution length; 0: no Bluestein
};

// Elements of one input / output row in the contiguous layout of fft.hpp (in-place r2c/c2r use
// padded real rows of 2*(n/2+1) floats, as FFTW and cuFFT).
long long input_row_length(const PlanSpec& spec);
long long output_row_length(const PlanSpec& spec);

// Throws std::invalid_argument for n = 0, batch = 0, n beyond what the planner supports, or
// options.rows_elements_per_thread not one of kRowsElementsPerThreadChoices.
PlanLayout make_plan_layout(const PlanSpec& spec, const PlannerOptions& options = {});

// Transforms along a strided axis of a multi-dimensional array (fft_nd_layout.hpp): `columns`
// c2c transforms of length n side by side, element i of column c at c + i * columns, in `batch`
// groups n * columns apart. They take one pass whose blocks each hold neighbouring columns, so
// that every row of a group is read and written in runs (the four-step's column pass without its
// twiddles), where a transpose and a pass over contiguous rows would move the array twice more.
struct ColumnsSpec {
  long long n = 1;
  long long columns = 1;
  std::size_t batch = 1;
  bool inverse = false;
};
// Columns per block below which a columns pass reads rows in runs shorter than a 32-byte sector:
// where a block holds fewer (long columns, little shared memory), the transposes serve better.
inline constexpr long long kMinColumnsPerBlock = 4;
// Whether one pass takes such columns: n smooth and one transform of it in one block, blocks of
// at least kMinColumnsPerBlock columns (all of them where there are fewer) within
// max_shared_bytes.
bool columns_pass_fits(long long n, long long columns, long long max_shared_bytes);
// The one-pass layout; its spec is {n, batch, c2c}. Throws std::invalid_argument where
// columns_pass_fits says no at the planner's shared-memory limit.
PlanLayout make_columns_layout(const ColumnsSpec& spec, const PlannerOptions& options = {});

// Largest supported length (four-step of two single passes, or Bluestein on top of it).
inline constexpr long long kMaxPlannedLength = 1ll << 27;

// The dynamic shared memory per block the planner plans for: Hopper's opt-in limit (227 KB).
// Devices with less (A100 163 KB, V100 96 KB) run the plans that need more on cuFFT.
inline constexpr long long kMaxSharedBytesPerBlock = 227 * 1024;

// The dynamic shared memory (bytes) the CUDA backend launches a step's kernel with: the
// four-step kernel where four_step_pass_of takes the pass, else the rows kernel where
// rows_pass_of does, else the pass kernel; a cluster pass its planes; 0 for the element-wise
// kernels (real rows, pair split). And the most of any step of a layout.
long long launch_shared_bytes(const Step& step);
long long max_launch_shared_bytes(const PlanLayout& layout);

// Prime stages in n's radices (factorize: primes 37 to 127), 0 also where it has a prime factor
// above 127.
int prime_stage_count(long long n);
// Whether a plan of n under these options takes its prime stages (true where it has none).
bool takes_prime_stages(long long n, const PlannerOptions& options);

// Whether n is computed without Bluestein under these options: every prime factor <= 127, its
// prime stages taken (takes_prime_stages) and a split exists.
bool is_direct_length(long long n, const PlannerOptions& options = PlannerOptions{});

// The shortest convolution length of a Bluestein transform of length n: 2n - 2, not the 2n - 1
// taps of its chirp kernel (offsets -(n - 1) .. n - 1). In a cyclic convolution of m points two
// offsets meet at one index only where m is at most 2n - 2, and at m = 2n - 2 those are n - 1
// and -(n - 1), where the kernel, a function of the offset's square, has the same value. So
// 4097 = 2^12 + 1 convolves over 8192 points instead of 12288.
constexpr long long bluestein_min_length(long long n) { return 2 * n - 2; }

// Convolution lengths a Bluestein transform of length n can take, the planner's estimate of
// the cheapest first (the default plan's), at most max_count: lengths that one block holds
// where one of them is at least 2n - 2 (the whole convolution one pass), else smooth lengths
// with a four-step split (three passes). The tuning mode measures them.
std::vector<long long> bluestein_lengths(long long n, std::size_t max_count);
// The estimate for a convolution of length m in one pass (picoseconds per transform, from
// measurements of the one-pass Bluestein kernel at each compiled length; a length without a
// kernel costs kRunTimeLoopCost times the costliest per element).
long long bluestein_pass_cost(long long m);
// Why m cannot be the convolution length of a Bluestein transform of length n ("below 2n - 2 =
// ..."); empty where it can (PlannerOptions::bluestein_length).
std::string bluestein_length_problem(long long n, long long m);

// The stages' twiddle table of a single pass of length n (see StageDesc), as the planner builds
// it; throws std::invalid_argument when n is not smooth. Kernels of our own that run the fixed
// stages of a length (fft_team.cuh) upload this table.
std::vector<Cf> stage_twiddle_table(long long n);
std::vector<Cf> stage_twiddle_table(const int* radices, int count);

// The direct DFT's roots table (DirectDftDesc::roots): (cos, sin) of 2 pi t / count for t <
// count, each as the float nearest and the float nearest the rest.
std::vector<Cf> direct_roots_table(long long count);

// exp(-2 pi i t step / n) for t < count, computed in double precision, rounded to float.
std::vector<Cf> unit_roots(long long n, long long count, long long step = 1);
// The two factors of a real rows pass's twiddles (RealRowsDesc, real_rows_twiddle) for half
// length h: 2^bits >= sqrt(h + 1) low ones, then h >> bits + 1 high ones.
int real_rows_low_bits(long long h);
std::vector<Cf> real_rows_twiddles(long long h, int low_bits);
// The twiddles of a four-step pass (PassDesc::pass_tw, read by pass_twiddle): exp(-2 pi i
// inner*k / n) for k < count, inner < inner_count, in two factors for k = low + split*high:
// rows low < split of exp(-2 pi i inner*low / n), then rows high = 1 .. ceil(count/split) - 1 of
// exp(-2 pi i inner*split*high / n), each row's inner_count values side by side so that
// neighbouring transforms (neighbouring threads) read neighbouring entries; split = count gives
// the whole count x inner_count grid. Double precision, rounded to float. Throws
// std::invalid_argument for a split outside 1..count.
std::vector<Cf> twiddle_grid(long long n, long long count, long long inner_count, long long split);

}  // namespace prism::fft::gpu
