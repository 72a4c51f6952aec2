// The shape of one FFT kernel launch ("pass") and everything both executors need to run it:
// factorisation into radices, the Stockham stage index maps and twiddle indices, the Bluestein
// chirp index, and the load / store rules of a pass (layouts, zero padding, real and Hermitian
// rows, chirp and twiddle multiplies, Rader's permutations, the real-FFT pre/post-processing).
// All __host__ __device__:
// the CUDA kernel and the host executor call these same functions, so the CPU tests check the
// exact index maps and arithmetic the GPU runs.
//
// Sections: factorisation · Stockham stage maps · prime stage · Bluestein chirp index · pass
// description · element loads and stores · Rader's first and last steps · real-FFT
// pre/post-processing · rows passes · Bluestein passes · four-step passes · cluster passes.
#pragma once

#include <cstdint>

#include "fft/cuda/fft_butterflies.hpp"
#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// ---- factorisation ---------------------------------------------------------------------------

inline constexpr int kMaxStages = 32;
// Largest FFT one thread block holds in shared memory (two float planes, padded: ~135 KB).
inline constexpr int kMaxSinglePass = 16384;
// Elements per thread per stage: a stage of radix R gives each thread about 16/R butterflies
// (compiled_butterflies_per_thread below), so register use is about the same for every radix.
inline constexpr int kElementsPerThread = 16;
// Every pass kernel is compiled for blocks of up to 1024 threads, one block per multiprocessor at
// the least: a budget of 64 registers per thread. Measured on the H200 (bench/RESULTS.md "Pass
// kernel: registers and block size"): 64 registers beat 80 (without spills, fewer resident blocks)
// by 3-5 % and 128 by up to 25 % at 512-4096, because resident blocks hide each other's
// global-memory latency. Four-step passes of 4096 and 8192 need the 1024 threads to hold four
// transforms side by side (2^23 and 2^24 took 0.68 and 0.56 of the time of blocks capped at 512
// threads).
inline constexpr int kMaxThreadsPerBlock = 1024;

// Butterflies per thread in a radix-R stage of a compiled length n (fixed_stage). Lengths above
// kManyPerBlockLength: 16/R rounded down, so that no thread holds more than 16 values (rounding
// up gave radix 3, 5, 7, 11 and 13 18 to 26 values and spills; on the H200 c2c 4095 took 0.755
// ms, now 0.638, 1000 0.462 -> 0.432, Bluestein 4097 (m = 9216) 5.20 -> 4.17), but at least
// enough that one transform fits kMaxThreadsPerBlock threads. Up to kManyPerBlockLength, and in
// the run-time stage loop, ceil(16/R): blocks of many short transforms (four-step passes) would
// otherwise pass 512 threads and lose their second block per multiprocessor (rounded down for
// them too, c2c 48000 = 200 x 240 went from 0.94 to 1.26 ms).
inline constexpr long long kManyPerBlockLength = 512;
PRISM_HD constexpr int compiled_butterflies_per_thread(int radix, long long n) {
  // Radix 10 (and 11, 13) rounded up would hold 20 or more values: one butterfly instead.
  const int rounded_up =
      radix > kElementsPerThread / 2 ? 1 : (kElementsPerThread + radix - 1) / radix;
  if (n <= kManyPerBlockLength) return rounded_up;
  const long long needed = (n / radix + kMaxThreadsPerBlock - 1) / kMaxThreadsPerBlock;
  const int at_most_16 = radix >= kElementsPerThread ? 1 : kElementsPerThread / radix;
  return needed > at_most_16 ? static_cast<int>(needed) : at_most_16;
}
PRISM_HD constexpr bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// Lengths with a pass kernel of their own, whose stages are unrolled at compile time (constant
// radices, divisors and twiddle offsets; the first stage reads global memory and the last one
// writes it directly). Any other smooth length runs the run-time stage loop, about 3x slower
// (c2c 1000 against 1024 on the H200, bench/RESULTS.md "Compiled lengths and the run-time stage
// loop"). The list: every power of two, and 2^k times 3, 5, 9, 15, 25 and 125 from 48 to 16384 —
// the round lengths of audio and radio work (960, 1000, 1920, 4000 ...), and the halves the planner
// picks for four-step splits (48000 = 200 x 240) and Bluestein convolutions — plus 4095. The
// planner prefers these lengths for splits and convolution lengths.
#define PRISM_FFT_COMPILED_LENGTHS                                                             \
  2, 4, 8, 16, 32, 48, 50, 60, 64, 72, 80, 96, 100, 120, 125, 128, 144, 160, 192, 200, 240, 250, \
      256, 288, 320, 384, 400, 480, 500, 512, 576, 640, 768, 800, 960, 1000, 1024, 1152, 1280,   \
      1536, 1600, 1920, 2000, 2048, 2304, 2560, 3072, 3200, 3840, 4000, 4095, 4096, 4608, 5120,  \
      6144, 6400, 7680, 8000, 8192, 9216, 10240, 12288, 12800, 15360, 16000, 16384
inline constexpr int kCompiledLengths[] = {PRISM_FFT_COMPILED_LENGTHS};
inline constexpr int kCompiledLengthCount =
    static_cast<int>(sizeof(kCompiledLengths) / sizeof(kCompiledLengths[0]));

// Index of n in kCompiledLengths, -1 when n has no compiled kernel. Host and device code
// (factorize asks it): device code cannot read a namespace-scope array, so a local copy.
PRISM_HD constexpr int compiled_length_index(long long n) {
  constexpr int lengths[] = {PRISM_FFT_COMPILED_LENGTHS};
  for (int i = 0; i < kCompiledLengthCount; ++i) {
    if (lengths[i] == n) return i;
  }
  return -1;
}
PRISM_HD constexpr bool has_compiled_kernel(long long n) { return compiled_length_index(n) >= 0; }

// Splits n into the radices {16, 8, 4, 2, 10, 15, 21, 9, 3, 5, 7, 11, 13} and the primes 17 to 127
// (the primes from 17 only in lengths without a compiled kernel: none of kCompiledLengths has
// them, and is_smooth in fft_plan.hpp tells them apart; above 31 they take the prime stage,
// prime_stage_item below). The power of two becomes
// 16s with one 8 or 4 where needed (never a lone 2 unless n's two-part is 2), because larger radices
// mean fewer exchanges through shared memory. An odd power 2^(4a+1) >= 512 ends in 8x8x8 rather
// than 16x8x4 (same number of stages): the radix-4 stage, four butterflies per thread, made the
// 64-register kernels spill (512: 640 bytes per thread, 8192: 920), and 8192 ran 12 % slower.
// Returns the number of radices written, or -1 when n has a prime factor above 127 (or needs
// more than max_out radices).
PRISM_HD constexpr int factorize(long long n, int* radices, int max_out) {
  if (n < 1) return -1;
  int count = 0;
  int twos = 0;
  while (n % 2 == 0) {
    n /= 2;
    ++twos;
  }
  // Tens: the power-of-two part takes ceil(twos / 4) stages and each 5 one; a 10 takes a 2 into
  // a 5's stage, so the fewest tens that bring the power-of-two part to its fewest stages
  // (1000 = 10x10x10, not 8x5x5x5: c2c 1000 11 % faster, 1600, 2560 and 12800 22-23 % on the H200,
  // bench/RESULTS.md "Radix 10"). Not where a radix-10 stage, one butterfly per thread in a
  // compiled kernel, would give a transform 513 to 1024 threads: its block loses the second
  // resident block (8000 = 16x10x10x5 in 800 threads: c2r 16000 20 % slower than 8x8x5x5x5 in 544).
  int fives = 0;
  for (long long m = n; m % 5 == 0; m /= 5) ++fives;
  const long long whole = n << twos;
  const bool tens_cost_a_block = whole / 10 > 512 && whole / 10 <= 1024;
  const int most_tens = tens_cost_a_block ? 0 : (twos < fives ? twos : fives);
  const int fewest_two_stages = (twos - most_tens + 3) / 4;
  int tens = twos - 4 * fewest_two_stages > 0 ? twos - 4 * fewest_two_stages : 0;
  // Nor where the first stage, of radix 16 (twos left) or 10, would have fewer than 16
  // butterflies (50 = 10x5, 160 = 16x10): the direct c2r first stage needs 16
  // (wide_first_stage), and c2r 100 on the pass kernel took 1.8x its time as 2x5x5.
  if (tens > 0 && whole / (twos - tens >= 4 ? 16 : 10) < 16) tens = 0;
  twos -= tens;
  for (int i = 0; i < tens; ++i) n /= 5;
  // Fifteens and twenty-ones: a 3 joins a 5 or a 7 in one stage (1920 = 16x8x15, 4095 =
  // 15x21x13: c2c 18 % and 37 % faster on the H200, bench/RESULTS.md "Radices 15 and 21, and paired
  // real rows in the first and last stage"), in compiled kernels only, where such a stage gives
  // each thread one butterfly (the run-time stage loop would give a radix 15 two, thirty values),
  // and on the same terms as the tens: not where one transform would take 513 to 1024 threads, nor
  // where the first stage would keep fewer than 16 butterflies.
  int threes = 0;
  for (long long m = n; m % 3 == 0; m /= 3) ++threes;
  int fives_left = 0;
  for (long long m = n; m % 5 == 0; m /= 5) ++fives_left;
  int sevens = 0;
  for (long long m = n; m % 7 == 0; m /= 7) ++sevens;
  const bool pairs_allowed = has_compiled_kernel(whole);
  const bool first_is_paired = twos == 0 && tens == 0;
  const auto pairs_of = [&](int radix, int available) {
    const bool cost_a_block = whole / radix > 512 && whole / radix <= 1024;
    const bool narrow_first = first_is_paired && whole / radix < 16;
    return pairs_allowed && !cost_a_block && !narrow_first ? available : 0;
  };
  const int fifteens = pairs_of(15, threes < fives_left ? threes : fives_left);
  threes -= fifteens;
  const int twenty_ones = pairs_of(21, threes < sevens ? threes : sevens);
  for (int i = 0; i < fifteens; ++i) n /= 15;
  for (int i = 0; i < twenty_ones; ++i) n /= 21;
  // Nines: two 3s in one stage, in lengths without a compiled kernel only (the run-time stage
  // loop, where every stage is a pass through shared memory and a barrier): on the H200 c2c 81
  // -31 %, 243 = 9x9x3 -15 %, 6561 -29 %, r2c 162 -32 % (bench/RESULTS.md "Radix 9"). Not for
  // exactly three 3s: c2c and r2c 1080 as 8x9x3x5 took 8-11 % more than as 8x3x3x3x5, 135 as 9x3x5
  // -6 to +0.3 %. The compiled kernels keep the radices they were measured with.
  const int nines = pairs_allowed || threes == 3 ? 0 : threes / 2;
  for (int i = 0; i < nines; ++i) n /= 9;
  int sixteens = twos / 4;
  int rest = twos % 4;
  int tail[3] = {0, 0, 0};
  int tail_count = 0;
  if (rest == 1) {
    if (sixteens > 1) {
      sixteens -= 2;
      tail[tail_count++] = 8;
      tail[tail_count++] = 8;
      tail[tail_count++] = 8;
    } else if (sixteens > 0) {
      --sixteens;
      tail[tail_count++] = 8;
      tail[tail_count++] = 4;
    } else {
      tail[tail_count++] = 2;
    }
  } else if (rest == 2) {
    if (sixteens > 0) {
      --sixteens;
      tail[tail_count++] = 8;
      tail[tail_count++] = 8;
    } else {
      tail[tail_count++] = 4;
    }
  } else if (rest == 3) {
    tail[tail_count++] = 8;
  }
  for (int i = 0; i < sixteens; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = 16;
  }
  for (int i = 0; i < tail_count; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = tail[i];
  }
  for (int i = 0; i < tens; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = 10;
  }
  for (int i = 0; i < fifteens; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = 15;
  }
  for (int i = 0; i < twenty_ones; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = 21;
  }
  for (int i = 0; i < nines; ++i) {
    if (count >= max_out) return -1;
    radices[count++] = 9;
  }
  const int odd_primes[30] = {3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37,  41,  43,  47,  53,
                              59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127};
  for (int p : odd_primes) {
    while (n % p == 0) {
      if (count >= max_out) return -1;
      radices[count++] = p;
      n /= p;
    }
  }
  return n == 1 ? count : -1;
}

// Largest radix factorize gives; kLargestSmoothPrime: the largest prime of the smooth lengths,
// those the compiled kernels, the four-step kernels and Bluestein's convolutions are made of;
// kLargestUnrolledPrime: the largest with an unrolled butterfly (Butterfly<R>), the primes above
// it run the prime stage.
inline constexpr int kLargestRadixPrime = 127;
inline constexpr int kLargestSmoothPrime = 13;
inline constexpr int kLargestUnrolledPrime = 31;

// Whether a radix of factorize is one of the primes above kLargestSmoothPrime.
PRISM_HD constexpr bool is_large_prime_radix(int radix) {
  return radix > kLargestSmoothPrime && radix != 15 && radix != 16 && radix != 21;
}

// Whether a radix of factorize runs the prime stage (prime_stage_item) rather than a butterfly.
PRISM_HD constexpr bool is_prime_stage_radix(int radix) { return radix > kLargestUnrolledPrime; }

// The prime stage: a radix-p butterfly of p up to 127 unrolled would hold 2p values and p/2 x
// p/2 roots in registers (radices 37 to 61 that way spilled 1.4-3.8 KB per thread and ran
// slower than Bluestein on the H200, bench/RESULTS.md "Prime stages (radices 37 to 127)"). Instead
// each work item of a butterfly computes kPrimePairsPerItem output pairs (k, p - k), reading the
// (twiddled) inputs from shared memory and the roots from the pass's table, and each thread holds
// at most kPrimeItemsPerThread items' outputs until the stage's barrier (three: at four the stage
// spilled within the pass kernel's 64 registers).
inline constexpr int kPrimePairsPerItem = 2;
inline constexpr int kPrimeItemsPerThread = 3;
inline constexpr int kPrimeItemOutputs = 2 * kPrimePairsPerItem + 1;
// An item's sums run over up to 63 terms. Added one by one, each rounding is relative to the
// partial sum so far; summed in blocks of kPrimeSumBlock terms, then the blocks' sums, to sums of
// at most 8 terms: on the host executor c2c 127 1.53e-07 -> 0.93e-07, 14351 = 113 x 127
// 2.18e-07 -> 1.37e-07 (qa_FftPlanHost PrimeStageSumsInBlocks). A whole block's terms unrolled,
// the last block's rolled: on the H200 -3.6 to +1.9 % against the terms one by one at radices 37
// to 127 (bench/RESULTS.md "Prime stages: sums in blocks of eight terms"), where all blocks rolled
// cost 5-12 %.
inline constexpr int kPrimeSumBlock = 8;
PRISM_HD constexpr int prime_stage_groups(int radix) {
  return ((radix - 1) / 2 + kPrimePairsPerItem - 1) / kPrimePairsPerItem;
}

// The radices of n as a value, for lengths fixed at compile time.
struct RadixList {
  int radix[kMaxStages] = {};
  int count = 0;
};
PRISM_HD constexpr RadixList radix_list(long long n) {
  RadixList list;
  list.count = factorize(n, list.radix, kMaxStages);
  return list;
}

// Butterflies each thread of a pass of length n takes in a radix-R stage: the kernel of a compiled
// length takes compiled_butterflies_per_thread (fixed_stage), the run-time stage loop ceil(16/R)
// (device_stage). A pass's threads must cover per_block * n / R butterflies with these.
constexpr long long butterflies_per_thread(int radix, long long n) {
  return has_compiled_kernel(n) ? compiled_butterflies_per_thread(radix, n)
                                : (kElementsPerThread + radix - 1) / radix;
}

// Threads a block of `per_block` transforms of length n needs (butterflies_per_thread; a prime
// stage's items kPrimeItemsPerThread to a thread), in whole warps.
constexpr long long block_threads(const int* radices, int count, long long n, long long per_block) {
  long long threads = 32;
  for (int s = 0; s < count; ++s) {
    const long long work = per_block * n / radices[s] *
                           (is_prime_stage_radix(radices[s]) ? prime_stage_groups(radices[s]) : 1);
    const long long per_thread =
        is_prime_stage_radix(radices[s]) ? kPrimeItemsPerThread : butterflies_per_thread(radices[s], n);
    const long long needed = (work + per_thread - 1) / per_thread;
    threads = needed > threads ? needed : threads;
  }
  return (threads + 31) / 32 * 32;
}

// Threads a block of one transform of compiled length n takes.
constexpr int compiled_transform_threads(int n) {
  const RadixList list = radix_list(n);
  return static_cast<int>(block_threads(list.radix, list.count, n, 1));
}

// Warps a multiprocessor holds at `registers` per thread: its register file is four partitions
// of 16384, each holding whole warps (as CUDA's occupancy calculator counts; a block of 22 warps
// at 88 registers, 61952 in all, failed to launch).
PRISM_HD constexpr int resident_warps(int registers) { return 4 * (16384 / (32 * registers)); }

// The most registers per thread, a multiple of 8 from 64 to 128, at which a multiprocessor still
// holds `warps` warps.
constexpr int registers_holding(int warps) {
  int registers = 64;
  while (registers < 128 && resident_warps(registers + 8) >= warps) registers += 8;
  return registers;
}

// Registers per thread of the one-pass Bluestein kernel of compiled length m
// (fft_bluestein_kernel): the most (a multiple of 8, at most 128) that still hold the blocks of
// one transform resident at 64, and a block of as many transforms as kMaxThreadsPerBlock threads
// hold; the planner keeps its blocks within resident_warps of it. At 12288 (832 threads, one
// block per multiprocessor either way) 72 registers instead of 64 cut the spills from 220 to 108
// bytes and Bluestein 4097 and 6007 took 2-3 % less, at 6400 (two blocks of 448) 3001 3 % less;
// 72 at 4608 (320 threads) would leave two blocks instead of three: 2053 took 11 % more
// (bench/RESULTS.md "Bluestein: the one-pass kernel's registers").
constexpr int bluestein_kernel_registers(int m) {
  const int warps = compiled_transform_threads(m) / 32;
  const int resident = resident_warps(64) / warps;
  const int widest = kMaxThreadsPerBlock / 32 / warps;
  return registers_holding((resident > widest ? resident : widest) * warps);
}

// Whether every radix of the list divides `elements` (a team thread's whole butterflies).
PRISM_HD constexpr bool every_radix_divides(const RadixList& list, int elements) {
  for (int s = 0; s < list.count; ++s) {
    if (elements % list.radix[s] != 0) return false;
  }
  return true;
}

PRISM_HD constexpr bool same_radices(const RadixList& a, const RadixList& b) {
  if (a.count != b.count) return false;
  for (int s = 0; s < a.count; ++s) {
    if (a.radix[s] != b.radix[s]) return false;
  }
  return true;
}

// Butterfly of group q (< per_thread) of thread `lane` in a stage of `butterflies` butterflies
// that `threads` threads share, each taking per_thread of them: lane + q * threads, or paired
// (butterflies_pair_up): the second half of the groups takes the partners butterflies - j of the
// first half's j (j = 0 pairs with butterflies / 2; both are their own partners). With the
// stage's inputs (or outputs) at j + r * butterflies, element r of butterfly j and element
// R - 1 - r of its partner sit at mirrored indices i and n - i, so a real transform finds each
// value's mirror in the same thread: r2c after its last stage, c2r before its first.
// Pairs need an even per_thread: with five (the last radix-2 stage of a decimal team of 4000)
// some butterflies were taken twice and others never, and r2c 8000 came out wrong.
PRISM_HD constexpr bool butterflies_pair_up(int per_thread) { return per_thread >= 2 && per_thread % 2 == 0; }
PRISM_HD constexpr int paired_butterfly(int lane, int q, int threads, int per_thread,
                                        int butterflies, bool paired) {
  if (!paired || q < per_thread / 2) return lane + q * threads;
  const int j = lane + (q - per_thread / 2) * threads;
  return j == 0 ? butterflies / 2 : butterflies - j;
}

// ---- Stockham stage maps ---------------------------------------------------------------------
// Stage s of radix R after sub-transforms of length ns (the product of the earlier radices):
// butterfly j (0 <= j < n/R) reads x[j + r*n/R], multiplies input r by w_{ns*R}^{r*k} with
// k = j mod ns, takes the R-point DFT and writes output r to (j - k)*R + k + r*ns. After the
// last stage the result is in natural order (autosort: no bit reversal).
//
// Twiddles: each stage after the first has its own table, w_{ns*R}^{r*k} at [r*ns + k]: for a
// fixed input r, the butterflies j of neighbouring threads (k = j mod ns consecutive) read
// consecutive entries, so a warp's twiddle load is one or two cache lines (with the R entries of
// a butterfly contiguous instead, each warp-wide load touches up to 32 lines and the L1 serves
// it in as many passes). Every value is exact (rounded once from double), with no powers formed
// in float.

struct StageDesc {
  int radix = 1;
  int ns = 1;         // length of the sub-transforms already done
  int tw_offset = 0;  // where this stage's table starts in the pass's twiddle table
};

// Offset of stage `stage`'s twiddles; stage_twiddle_offset(radices, count) is the table size.
// Each stage's part is rounded up to an even count (16-byte aligned starts). A prime stage's
// part ends with the radix's roots (stage_roots_offset).
PRISM_HD constexpr int stage_twiddle_offset(const int* radices, int stage) {
  int offset = 0;
  int ns = 1;
  for (int t = 0; t < stage; ++t) {
    if (t > 0) offset += (ns * radices[t] + 1) & ~1;
    if (is_prime_stage_radix(radices[t])) offset += (radices[t] + 1) & ~1;
    ns *= radices[t];
  }
  return offset;
}

PRISM_HD int stage_input_index(int n_over_radix, int j, int r) { return j + r * n_over_radix; }
// k = j % st.ns, given where the caller has it without a division (the run-time stage loop).
PRISM_HD int stage_output_index_at(const StageDesc& st, int j, int k, int r) {
  return (j - k) * st.radix + k + r * st.ns;
}
PRISM_HD int stage_output_index(const StageDesc& st, int j, int r) {
  return stage_output_index_at(st, j, j % st.ns, r);
}
// Index into the pass's twiddle table of the twiddle for input r of butterfly j (k = j % st.ns).
PRISM_HD int stage_twiddle_index_at(const StageDesc& st, int k, int r) { return st.tw_offset + r * st.ns + k; }
PRISM_HD int stage_twiddle_index(const StageDesc& st, int j, int r) {
  return stage_twiddle_index_at(st, j % st.ns, r);
}

// Shared-memory address of element i: one pad word every 32 so that the strided exchanges of
// power-of-two stages fall in distinct banks (one every 16 measured the same on the H200).
PRISM_HD constexpr int smem_pad(int i) { return i + (i >> 5); }

// Reads a constant table entry through the read-only cache on the device.
PRISM_HD Cf load_table(const Cf* table, long long i) {
#if defined(__CUDA_ARCH__)
  const float2 v = __ldg(reinterpret_cast<const float2*>(table) + i);
  return Cf{v.x, v.y};
#else
  return table[i];
#endif
}

// And an index table's entry (Rader's permutations), through the read-only cache on the device.
PRISM_HD long long load_index_table(const int* table, long long i) {
#if defined(__CUDA_ARCH__)
  return __ldg(table + i);
#else
  return table[i];
#endif
}

// Division by a divisor known only at run time as one multiply-high, where a 32-bit division is
// a loop of some twenty instructions on the GPU (the run-time stage loop divided for every
// butterfly and element). With m = ceil(2^32 / d), floor(x * m / 2^32) = floor(x / d) for every
// x with x * d <= 2^32: x * m / 2^32 = x / d + x * e / (d * 2^32) with e = m * d - 2^32 < d. The
// indices divided (elements and butterflies of one block, below 2^15, by lengths up to 2^14)
// stay far inside that.
struct RuntimeDivisor {
  unsigned d = 1;
  unsigned m = 0;  // 0 for d = 1, whose 2^32 does not fit
  PRISM_HD constexpr explicit RuntimeDivisor(int divisor)
      : d(static_cast<unsigned>(divisor)),
        m(divisor == 1 ? 0u : 0xFFFFFFFFu / static_cast<unsigned>(divisor) + 1u) {}
  PRISM_HD int quotient(int x) const {
    const unsigned ux = static_cast<unsigned>(x);
#if defined(__CUDA_ARCH__)
    return static_cast<int>(d == 1 ? ux : __umulhi(ux, m));
#else
    return static_cast<int>(d == 1 ? ux : static_cast<unsigned>((static_cast<unsigned long long>(ux) * m) >> 32));
#endif
  }
  PRISM_HD int remainder(int x) const { return x - quotient(x) * static_cast<int>(d); }
};

// Reads the R inputs of butterfly j, applies the stage twiddles and the R-point DFT; k = j %
// st.ns, which the run-time stage loop computes without a division. kDerivedTwiddles: the
// twiddles of the inputs r that are not powers of two are formed as products of two loaded ones
// (w^r = w^p w^(r-p), p the highest power of two in r): log2(R) table reads per butterfly instead
// of R - 1, a rounding or two more per twiddle. For the team FFTs' stages (fft_team.cuh), whose
// tables reach 75 KB at 8192 (rows_derive_twiddles, four_step_derive_twiddles).
template <int R, bool kDerivedTwiddles = false, class Read>
PRISM_HD void stage_compute_at(const StageDesc& st, int n_over_radix, int j, int k,
                               const Cf* twiddles, Read read, Cf* v) {
  PRISM_UNROLL
  for (int r = 0; r < R; ++r) v[r] = read(stage_input_index(n_over_radix, j, r));
  if (st.ns > 1) {
    const int base = stage_twiddle_index_at(st, k, 0);
    if constexpr (kDerivedTwiddles) {
      Cf w[R];
      PRISM_UNROLL
      for (int r = 1; r < R; ++r) {
        int p = 1;
        while (2 * p <= r) p *= 2;
        w[r] = p == r ? load_table(twiddles, base + r * st.ns) : cmul(w[p], w[r - p]);
      }
      PRISM_UNROLL
      for (int r = 1; r < R; ++r) v[r] = cmul(v[r], w[r]);
    } else {
      PRISM_UNROLL
      for (int r = 1; r < R; ++r) v[r] = cmul(v[r], load_table(twiddles, base + r * st.ns));
    }
  }
  Butterfly<R>::run(v);
}
template <int R, bool kDerivedTwiddles = false, class Read>
PRISM_HD void stage_compute(const StageDesc& st, int n, int j, const Cf* twiddles, Read read,
                            Cf* v) {
  stage_compute_at<R, kDerivedTwiddles>(st, n / R, j, j % st.ns, twiddles, read, v);
}

template <int R, class Write>
PRISM_HD void stage_store_at(const StageDesc& st, int j, int k, const Cf* v, Write write) {
  // The radix as the constant R (st.radix at run time cost the large radices registers).
  const int base = stage_output_index_at(StageDesc{R, st.ns, st.tw_offset}, j, k, 0);
PRISM_UNROLL
  for (int r = 0; r < R; ++r) write(base + r * st.ns, v[r]);
}
template <int R, class Write>
PRISM_HD void stage_store(const StageDesc& st, int j, const Cf* v, Write write) {
  stage_store_at<R>(st, j, j % st.ns, v, write);
}

// ---- prime stage -----------------------------------------------------------------------------
// A stage of a prime radix p above kLargestUnrolledPrime (see kPrimePairsPerItem). Its twiddles
// are applied to the inputs in place first (the items of one butterfly share them); then item
// g of butterfly j gives y[k] and y[p - k] for k = 1 + g * kPrimePairsPerItem ... (up to
// (p - 1) / 2), and y[0]. The sums are those of prime_butterfly, with the roots read from the
// table: forward roots (cos, -sin) of 2 pi m / p for m = 0 .. p - 1, in blocks of
// kPrimeSumBlock terms (y[0], one output of p, term by term).

// Where a prime stage's roots start in the pass's twiddle table.
PRISM_HD constexpr int stage_roots_offset(const StageDesc& st) {
  return st.tw_offset + (st.ns > 1 ? (st.ns * st.radix + 1) & ~1 : 0);
}

// Index into the pass's twiddle table of input r's twiddle, for element i = j + r * (n / p);
// the divisors are n / p and st.ns.
PRISM_HD int prime_stage_twiddle_index(const StageDesc& st, const RuntimeDivisor& by_n_over_radix,
                                       const RuntimeDivisor& by_ns, int i) {
  const int r = by_n_over_radix.quotient(i);
  const int j = i - r * static_cast<int>(by_n_over_radix.d);
  return stage_twiddle_index_at(st, by_ns.remainder(j), r);
}

// Item g's outputs: out[0] = y[0], out[1 + 2t] = y[k_t], out[2 + 2t] = y[p - k_t] with
// k_t = 1 + g * kPrimePairsPerItem + t (those with k_t > (p - 1) / 2 are not outputs).
// input(r): the twiddled input r of the butterfly.
template <class Input>
PRISM_HD void prime_stage_item(int p, int g, Input input, const Cf* roots, Cf* out) {
  constexpr int K = kPrimePairsPerItem;
  const int h = (p - 1) / 2;
  const Cf x0 = input(0);
  Cf sum_cos[K];
  Cf sum_sin[K];
  int step[K];
  int root[K];
  PRISM_UNROLL
  for (int t = 0; t < K; ++t) {
    sum_cos[t] = x0;
    sum_sin[t] = Cf{0.0f, 0.0f};
    step[t] = 1 + g * K + t;
    root[t] = 0;
  }
  Cf y0 = x0;
  Cf part_cos[K];
  Cf part_sin[K];
  // Term r of every sum, into the block's partial sums.
  const auto add_term = [&](int r) {
    const Cf x_r = input(r);
    const Cf x_pr = input(p - r);
    const Cf a = x_r + x_pr;
    const Cf b = x_r - x_pr;
    y0 = y0 + a;
    PRISM_UNROLL
    for (int t = 0; t < K; ++t) {
      root[t] += step[t];  // (r * k_t) mod p, exactly
      if (root[t] >= p) root[t] -= p;
      const Cf w = load_table(roots, root[t]);
      part_cos[t] = part_cos[t] + a * w.re;
      part_sin[t] = part_sin[t] + b * (-w.im);
    }
  };
  for (int first = 1; first <= h; first += kPrimeSumBlock) {
    PRISM_UNROLL
    for (int t = 0; t < K; ++t) {
      part_cos[t] = Cf{0.0f, 0.0f};
      part_sin[t] = Cf{0.0f, 0.0f};
    }
    if (first + kPrimeSumBlock - 1 <= h) {
      PRISM_UNROLL
      for (int u = 0; u < kPrimeSumBlock; ++u) add_term(first + u);
    } else {
      PRISM_NO_UNROLL
      for (int r = first; r <= h; ++r) add_term(r);
    }
    PRISM_UNROLL
    for (int t = 0; t < K; ++t) {
      sum_cos[t] = sum_cos[t] + part_cos[t];
      sum_sin[t] = sum_sin[t] + part_sin[t];
    }
  }
  out[0] = y0;
  PRISM_UNROLL
  for (int t = 0; t < K; ++t) {
    out[1 + 2 * t] = sum_cos[t] + mul_neg_i(sum_sin[t]);
    out[2 + 2 * t] = sum_cos[t] + mul_i(sum_sin[t]);
  }
}

// Writes item g's outputs (prime_stage_item) of butterfly j (k = j % st.ns) through
// write(i, value).
template <class Write>
PRISM_HD void prime_stage_store(const StageDesc& st, int j, int k, int g, const Cf* out, Write write) {
  const int h = (st.radix - 1) / 2;
  const int base = stage_output_index_at(st, j, k, 0);
  if (g == 0) write(base, out[0]);
  PRISM_UNROLL
  for (int t = 0; t < kPrimePairsPerItem; ++t) {
    const int k = 1 + g * kPrimePairsPerItem + t;
    if (k <= h) {
      write(base + k * st.ns, out[1 + 2 * t]);
      write(base + (st.radix - k) * st.ns, out[2 + 2 * t]);
    }
  }
}

// ---- Bluestein chirp index -------------------------------------------------------------------
// chirp[j] = exp(-pi*i*j^2/n) = exp(-pi*i*(j^2 mod 2n)/n): the reduction is done on integers,
// exactly, so the angle keeps full precision for large j (j^2 overflows float long before).
PRISM_HD unsigned long long chirp_index(unsigned long long j, unsigned long long n) {
  return (j * j) % (2ull * n);
}

// ---- pass description ------------------------------------------------------------------------

enum class LoadKind : int {
  complex_row,    // interleaved complex elements
  real_row,       // floats, imaginary part zero
  hermitian_row,  // n/2+1 complex values of a Hermitian spectrum, expanded to n on load
};
enum class StoreKind : int { complex_row, real_row };
enum class RealStep : int {
  none,
  r2c_post,    // after the stages: half-length spectrum Z -> real-input spectrum X (h+1 values)
  c2r_pre,     // before the stages: X (h+1 values) -> conj(2Z) of the half-length inverse
  pair_split,  // after the stages: spectrum Z of a pair of real rows -> both rows' spectra
  // The row pass of a four-step over the half length h = n1 x n2: X[r + n1 k] from
  // Z[r + n1 k] and Z[h - r - n1 k], which sit in rows r and (n1 - r) mod n1, so the four-step
  // kernel holds those rows in one block (four_step_real_row); row 0 also stores X[h]. Only
  // the four-step kernel runs it (four_step_pass_of).
  r2c_post_rows,
  // The column pass of a four-step over the half length h = n1 x n2 of a c2r, loading the
  // Hermitian row X: element i of column c is conj(2Z[c + n2 i]) from X[c + n2 i] and
  // X[h - c - n2 i], which sit in columns c and (n2 - c) mod n2 (X[h] for c = i = 0), so the
  // four-step kernel holds those columns in one block (four_step_real_row over columns).
  // Only the four-step kernel runs it.
  c2r_pre_columns,
};
enum class StoreTwiddle : int { none, forward, conjugate };

// Element (outer, inner, i) lives at outer*outer_dist + inner*inner_dist + i*elem_stride,
// counted in complex elements, or floats for real rows.
struct IoLayout {
  long long outer_dist = 0;
  long long inner_dist = 0;
  long long elem_stride = 1;
};

// One launch: `outer x inner` independent FFTs of length n, `per_block` consecutive inner
// indices per thread block. The runtime batch count is the inner count (plain batched passes)
// or the outer count (passes of a four-step or Bluestein decomposition, whose inner index runs
// over the columns or rows of one transform).
struct PassDesc {
  int n = 1;
  int num_stages = 0;
  StageDesc stages[kMaxStages];
  bool power_of_two_radices = true;  // only 16/8/4/2 (selects the kernel variant)
  int per_block = 1;
  int threads = 32;
  // Elements per thread of the rows kernel where it runs this pass (rows_pass_of):
  // kElementsPerThread, kWideTeamElements for the lengths that have wide teams,
  // kDecimalTeamElements for the decimal lengths (at kElementsPerThread they run on the plain
  // rows kernel).
  int rows_elements_per_thread = kElementsPerThread;
  int smem_stride = 1;  // floats between the transforms of a block in each shared plane (odd)
  int smem_elems = 1;   // elements per transform held in shared memory
  bool inner_is_batch = true;
  long long inner_count = 1;  // used when !inner_is_batch

  // Loading: element i of transform (outer, inner) is logical input index
  // inner*lin_inner + i*lin_elem of the whole transform being computed.
  LoadKind load_kind = LoadKind::complex_row;
  IoLayout in;
  int load_n = 1;
  long long lin_inner = 0;
  long long lin_elem = 1;
  long long n_valid = 0;          // logical indices >= n_valid load as zero (when load_chirp)
  long long herm_n = 0;           // full length of the Hermitian row
  long long herm_row_dist = 0;    // complex elements between Hermitian rows
  bool load_conj_raw = false;     // conjugate what was read (inverse transforms)
  bool load_chirp = false;        // multiply by chirp[logical] (Bluestein)
  bool load_conj = false;         // conjugate after the chirp (inverse of an inner FFT)
  // Rader (prime n, its n - 1 other elements permuted): logical index q loads element
  // load_index[q] of the row (g^q mod n), which is at outer * in.outer_dist + load_index[q]
  // (that element of the Hermitian row).
  bool load_permuted = false;

  // Storing: element k of transform (outer, inner) is logical output index
  // inner*lout_inner + k*lout_elem; indices >= n_keep are not stored.
  StoreKind store_kind = StoreKind::complex_row;
  IoLayout out;
  int store_n = 1;
  long long lout_inner = 0;
  long long lout_elem = 1;
  long long n_keep = 0;
  bool store_conj = false;        // undo the conjugation of an inverse inner FFT
  StoreTwiddle store_twiddle = StoreTwiddle::none;  // times w_M^{inner*k} (four-step)
  bool store_chirp = false;       // times chirp[logical] (Bluestein)
  bool store_conj_final = false;  // conjugate the result (inverse transforms)

  RealStep real_step = RealStep::none;
  // Paired real rows (r2c and c2r of lengths without the half-length path): transform t carries
  // real row 2t as its real part and row 2t+1 as its imaginary part, two real transforms for the
  // price of one complex one. The layouts' distances then step over pairs; in_pair_dist /
  // out_pair_dist lead from row 2t to row 2t+1 (floats for real rows, complex elements for
  // spectra); rows is the number of real rows of the execution (set at launch), so that a last
  // row 2t+1 == rows is neither read nor written.
  bool paired = false;
  long long in_pair_dist = 0;
  long long out_pair_dist = 0;
  long long rows = 0;
  long long real_n = 0;  // pair_split: length of the real rows (the partner of k is real_n - k)
  // Bluestein convolution inside one block: after the stages, multiply by
  // conv[inner*conv_inner_dist + k], conjugate, and run the stages again.
  bool mid_conv = false;
  long long conv_inner_dist = 0;

  const Cf* stage_tw = nullptr;  // the stages' twiddle tables (see StageDesc)
  // Four-step twiddles w_M^{inner*k} in two factors (pass_twiddle): rows k < pass_tw_split of
  // inner_count values, then a row for each further multiple of pass_tw_split.
  const Cf* pass_tw = nullptr;
  int pass_tw_split = 1;
  const Cf* chirp = nullptr;
  const Cf* conv = nullptr;
  const int* load_index = nullptr;  // load_permuted; Rader's output gather (RaderDcDesc)
  // w_{2h}^k, k <= h; r2c_post_rows: w_{2h}^r at r < n1, then w_{2h}^{n1 k} at n1 + k, k <= n2
  // (four_step_real_twiddle: a table of n1 + n2 + 1 values instead of h + 1, which a batch
  // would read once per transform); c2r_pre_columns the same with columns for rows.
  const Cf* real_tw = nullptr;
};

// Real-FFT pre/post-processing as its own pass, for lengths whose half-length transform does
// not fit one block (its partner elements k and h-k then live in different blocks).
struct RealRowsDesc {
  bool c2r = false;            // false: r2c post-processing (in place, or into the output rows)
  int h = 1;                   // half length n/2
  long long in_row_dist = 0;   // complex elements
  long long out_row_dist = 0;  // complex elements
  // w_n^k for k = 0..h as two factors (real_rows_twiddle): w_n^lo for lo < 2^tw_low_bits, then
  // w_n^(hi 2^tw_low_bits) for hi = 0..h >> tw_low_bits (real_rows_twiddles on the host).
  const Cf* real_tw = nullptr;
  int tw_low_bits = 0;
};

// The last step of a four-step whose rows are longer than the four-step kernel takes
// (kFourStepMaxLength): the row pass runs as plain rows on the rows kernel, in place in the
// scratch (row r of n2 at r * n2), and this step moves element k of row r to r + k * n1 of the
// output, conjugated for inverse transforms. Through tiles in shared memory, so that reads and
// writes are whole lines: a row pass storing transposed itself writes runs of only as many rows
// as a block holds, two of 8192 (16 bytes, half a sector).
//
// For an r2c whose half length h = n1 x n2 takes this step (r2c_post), it stores X instead of Z:
// X[k] from Z[k] and Z[h - k] (r2c_post_value), and X[h] too, into the output rows of h + 1
// values. Z[h - k] of element k of row r is element columns - 1 - k of row rows - r (element
// (columns - k) mod columns of row 0 for r = 0: transpose_mirror), so the mirrors of a tile are
// the tile mirrored in both directions, one row over: a block takes a tile of the first half of
// the rows and its mirror tile (transpose_mirror_tile), each read with the row after it, and
// stores both (transpose_in_mirror_tile). This replaces the real rows pass that read the whole
// of Z again behind the transpose.
struct TransposeDesc {
  long long rows = 0;      // n1 (a multiple of kTransposeTile; of 2 kTransposeTile with r2c_post)
  long long columns = 0;   // n2, the row length (a multiple of kTransposeTile)
  long long in_dist = 0;   // complex elements between the transforms' rows
  long long out_dist = 0;  // ... and outputs
  bool conj = false;
  bool r2c_post = false;
  // r2c_post: w_{2h}^r for r < rows, then w_{2h}^(rows k) for k <= columns (the table of
  // four_step_real_twiddles), so that w_{2h}^(r + rows k) is a product of two
  // (transpose_real_twiddle).
  const Cf* real_tw = nullptr;
};
inline constexpr int kTransposeTile = 32;
// Where element k of row r of transform t is, and where it goes.
PRISM_HD constexpr long long transpose_in_offset(const TransposeDesc& d, long long t, long long r, long long k) {
  return t * d.in_dist + r * d.columns + k;
}
PRISM_HD constexpr long long transpose_out_offset(const TransposeDesc& d, long long t, long long r, long long k) {
  return t * d.out_dist + r + k * d.rows;
}
// r2c_post: the row and element of Z[h - (r + rows k)] (Z[0] for k = r = 0).
PRISM_HD constexpr void transpose_mirror(const TransposeDesc& d, long long r, long long k, long long& mirror_r,
                                         long long& mirror_k) {
  mirror_r = r == 0 ? 0 : d.rows - r;
  mirror_k = r == 0 ? (k == 0 ? 0 : d.columns - k) : d.columns - 1 - k;
}
// r2c_post: the first row and element of the mirror tile of the tile at (r0, k0).
PRISM_HD constexpr void transpose_mirror_tile(const TransposeDesc& d, long long r0, long long k0, long long& mirror_r0,
                                              long long& mirror_k0) {
  mirror_r0 = d.rows - r0 - kTransposeTile;
  mirror_k0 = d.columns - k0 - kTransposeTile;
}
// r2c_post: the mirror of element (i, j) of a tile (row i, element j from its first) is element
// (kTransposeTile - i, kTransposeTile - 1 - j) of its mirror tile read with the row after it
// (i = 0: that row), but for row 0 of the transform (transpose_mirror).
PRISM_HD constexpr int transpose_in_mirror_tile(int i) { return kTransposeTile - i; }

// Paired r2c whose transform takes several passes (four-step, Bluestein in three passes): the
// pairs' spectra Z (n complex values per transform, in their own buffer) split into the two
// rows' spectra by a pass of its own, since Z[k] and Z[n-k] then live in different blocks.
struct PairSplitDesc {
  int n = 1;                   // length of the real rows
  long long in_dist = 0;       // complex elements between the pairs' spectra
  long long out_row_dist = 0;  // complex elements between output rows
};

// The spectra of the two real rows of a pair at k from the pair's spectrum Z at k and at its
// partner (n-k) mod n: with P = conj Z[n-k], X1[k] = (Z[k] + P) / 2 and X2[k] = -i (Z[k] - P) / 2.
PRISM_HD int pair_partner(int k, long long n) { return k == 0 ? 0 : static_cast<int>(n) - k; }
PRISM_HD void split_pair(Cf z_k, Cf z_n_minus_k, Cf& x1, Cf& x2) {
  const Cf p = conj(z_n_minus_k);
  x1 = (z_k + p) * 0.5f;
  x2 = mul_neg_i(z_k - p) * 0.5f;
}

// ---- element loads and stores ----------------------------------------------------------------

// Whether the transform (outer, inner) of a paired pass carries a second row (2t+1 < rows).
PRISM_HD bool has_second_row(const PassDesc& p, long long outer, long long inner) {
  const long long t = p.inner_is_batch ? inner : outer;
  return 2 * t + 1 < p.rows;
}

// Element s of a Hermitian row expanded to its full length: the mirrored half is conjugated, and
// the imaginary parts of X[0] and X[n/2] are ignored, as FFTW and cuFFT do.
PRISM_HD Cf hermitian_value(const Cf* row, long long s, bool mirrored, long long herm_n) {
  Cf v = row[s];
  if (s == 0 || 2 * s == herm_n) v.im = 0.0f;
  return mirrored ? conj(v) : v;
}

// Element `index` of the row of transform (outer, inner) at address() (complex elements, floats
// for real rows; Hermitian rows are addressed by the index, and address() is not called),
// conjugated for inverse transforms.
template <class Address>
PRISM_HD Cf load_row_element(const PassDesc& p, const void* src, long long outer, long long inner,
                             long long index, Address address) {
  Cf v;
  if (p.load_kind == LoadKind::hermitian_row) {
    const long long t = p.inner_is_batch ? inner : outer;
    const long long row = p.paired ? 2 * t : t;
    const bool mirrored = 2 * index > p.herm_n;
    const long long s = mirrored ? p.herm_n - index : index;
    const Cf* rows = static_cast<const Cf*>(src);
    v = hermitian_value(rows + row * p.herm_row_dist, s, mirrored, p.herm_n);
    if (p.paired && has_second_row(p, outer, inner)) {
      v = v + mul_i(hermitian_value(rows + (row + 1) * p.herm_row_dist, s, mirrored, p.herm_n));
    }
  } else {
    const long long addr = address();
    if (p.load_kind == LoadKind::real_row) {
      const float* rows = static_cast<const float*>(src);
      v = Cf{rows[addr], 0.0f};
      if (p.paired && has_second_row(p, outer, inner)) v.im = rows[addr + p.in_pair_dist];
    } else {
      v = static_cast<const Cf*>(src)[addr];
    }
  }
  return p.load_conj_raw ? conj(v) : v;
}

// Element i of transform (outer, inner) as the pass loads it. kMayPermute: whether p may be a
// Rader pass (load_permuted); the kernels that never run one compile without that branch, which
// cost the one-pass Bluestein kernel of 12288 registers (c2c 4097 10 % slower on the H200).
template <bool kMayPermute = false>
PRISM_HD Cf load_element(const PassDesc& p, const void* src, long long outer, long long inner,
                         int i) {
  const long long logical = inner * p.lin_inner + static_cast<long long>(i) * p.lin_elem;
  if (kMayPermute && p.load_permuted) {
    const long long index = load_index_table(p.load_index, logical);
    const Cf v = load_row_element(p, src, outer, inner, index,
                                  [&] { return outer * p.in.outer_dist + index; });
    return p.load_conj ? conj(v) : v;
  }
  if (p.load_chirp && logical >= p.n_valid) return Cf{0.0f, 0.0f};
  Cf v = load_row_element(p, src, outer, inner, logical, [&] {
    return outer * p.in.outer_dist + inner * p.in.inner_dist +
           static_cast<long long>(i) * p.in.elem_stride;
  });
  if (p.load_chirp) v = cmul(v, load_table(p.chirp, logical));
  if (p.load_conj) v = conj(v);
  return v;
}

// Logical output index of element k; stores of indices >= n_keep are dropped (truncation of
// the r2c half spectrum and of the Bluestein convolution).
PRISM_HD long long store_logical(const PassDesc& p, long long inner, int k) {
  return inner * p.lout_inner + static_cast<long long>(k) * p.lout_elem;
}

// The lengths of the four-step kernel's columns and rows (see "four-step passes" below).
inline constexpr int kFourStepMinLength = 128;
inline constexpr int kFourStepMaxLength = 4096;
PRISM_HD constexpr bool has_four_step_kernel(long long n) {
  return is_power_of_two(n) && n >= kFourStepMinLength && n <= kFourStepMaxLength;
}

// Whether a pass kernel compiled for this length (0: any length) may meet a split table:
// four_step_twiddle_split splits only passes of 1024 and more that have a four-step kernel. The
// others compile without the two-factor case, whose registers made the Bluestein kernel's passes
// of 320 and 512 spill up to 24 bytes per thread more (ptxas -v) and c2c 65537 (320 x 512, never
// split) run 4 % slower (bench/RESULTS.md "Four-step kernel: twiddles in two factors").
inline constexpr int kTwiddleSplitMinLength = 1024;
PRISM_HD constexpr bool may_split_twiddles(int compiled_length) {
  return compiled_length == 0 || (has_four_step_kernel(compiled_length) && compiled_length >= kTwiddleSplitMinLength);
}

// The four-step twiddle w_M^{inner*k} of a table laid out by twiddle_grid (fft_plan.hpp): for
// k = low + split*high (low < split), w^{inner*low} at low*inner_count + inner times
// w^{inner*split*high} in row twiddle_high_row(split, high) (none for high = 0).
PRISM_HD constexpr int twiddle_high_row(int split, int high) { return split + high - 1; }
template <bool kMaySplit = true>
PRISM_HD Cf pass_twiddle(const Cf* table, int split, long long inner_count, int k, long long inner) {
  if (!kMaySplit || k < split) return load_table(table, k * inner_count + inner);
  const int high = k / split;
  const Cf low = load_table(table, (k - high * split) * inner_count + inner);
  return cmul(low, load_table(table, twiddle_high_row(split, high) * inner_count + inner));
}

// The multiplies and conjugations applied on the way out, in their fixed order (kMaySplit:
// may_split_twiddles of the kernel's compiled length).
template <bool kMaySplit = true>
PRISM_HD Cf store_value(const PassDesc& p, long long inner, int k, Cf v) {
  if (p.store_conj) v = conj(v);
  if (p.store_twiddle != StoreTwiddle::none) {
    const Cf w = pass_twiddle<kMaySplit>(p.pass_tw, p.pass_tw_split, p.inner_count, k, inner);
    v = p.store_twiddle == StoreTwiddle::forward ? cmul(v, w) : cmul_conj(v, w);
  }
  if (p.store_chirp) v = cmul(v, load_table(p.chirp, store_logical(p, inner, k)));
  if (p.store_conj_final) v = conj(v);
  return v;
}

PRISM_HD long long store_address(const PassDesc& p, long long outer, long long inner, int k) {
  return outer * p.out.outer_dist + inner * p.out.inner_dist +
         static_cast<long long>(k) * p.out.elem_stride;
}

// Writes v to `addr` of the output (complex elements, or floats for real rows: the real part to
// row 2t, the imaginary part to row 2t+1 of a pair).
PRISM_HD void store_row_element(const PassDesc& p, void* dst, long long outer, long long inner,
                                long long addr, Cf v) {
  if (p.store_kind == StoreKind::real_row) {
    float* rows = static_cast<float*>(dst);
    rows[addr] = v.re;
    if (p.paired && has_second_row(p, outer, inner)) rows[addr + p.out_pair_dist] = v.im;
  } else {
    static_cast<Cf*>(dst)[addr] = v;
  }
}

template <bool kMaySplit = true>
PRISM_HD void store_element(const PassDesc& p, void* dst, long long outer, long long inner, int k,
                            Cf v) {
  if (store_logical(p, inner, k) >= p.n_keep) return;
  v = store_value<kMaySplit>(p, inner, k, v);
  store_row_element(p, dst, outer, inner, store_address(p, outer, inner, k), v);
}

// Paired r2c in one pass (RealStep::pair_split): the spectra of rows 2t and 2t+1 at k from the
// pair's spectrum Z as it leaves the stages (z(i) reads Z[i]; split_pair), stored as
// store_element would (store multiplies applied to both Z values first, k >= n_keep dropped).
template <bool kMaySplit = true, class ReadZ>
PRISM_HD void store_pair_split(const PassDesc& p, void* dst, long long outer, long long inner,
                               int k, ReadZ z) {
  if (store_logical(p, inner, k) >= p.n_keep) return;
  const int partner = pair_partner(k, p.real_n);
  Cf x1;
  Cf x2;
  split_pair(store_value<kMaySplit>(p, inner, k, z(k)), store_value<kMaySplit>(p, inner, partner, z(partner)), x1,
             x2);
  Cf* rows = static_cast<Cf*>(dst);
  const long long addr = store_address(p, outer, inner, k);
  rows[addr] = x1;
  if (has_second_row(p, outer, inner)) rows[addr + p.out_pair_dist] = x2;
}

// Element k of transform t of a PairSplitDesc pass over `rows` real rows.
PRISM_HD void pair_split_element(const PairSplitDesc& d, const Cf* spectra, Cf* out,
                                 long long rows, long long t, int k) {
  const Cf* z = spectra + t * d.in_dist;
  Cf x1;
  Cf x2;
  split_pair(z[k], z[pair_partner(k, d.n)], x1, x2);
  Cf* row = out + 2 * t * d.out_row_dist;
  row[k] = x1;
  if (2 * t + 1 < rows) row[d.out_row_dist + k] = x2;
}

// ---- Rader's first and last steps -----------------------------------------------------------
// A Rader transform (prime n = m + 1, m = m1 x m2, fft_plan.cpp) computes X[g^-s] = x[0] +
// (a * b)[s] for s < m by a cyclic convolution of a[q] = x[g^q], and X[0] = x[0] + sum_q a[q].
// A step of its own between the first pass (the m1-point column FFTs) and the second does both
// ends: the sum is A[0], that of the first pass's outputs of index 0 (the column sums, the
// four-step twiddle of index 0 being 1: m2 elements at the start of each transform's scratch
// row); and subtracting m1 x[0] from each of them subtracts m x[0] from A[0] alone, which the
// spectrum's B[0] / m = -1 / m (b sums to -1) turns into x[0] added to every output. In a itself
// the constant would have grown the convolution's rounding with |x[0]| (up to 1.5x the error
// on the host executor). The last pass leaves the outputs in the scratch in the order of s, and
// a last step gathers X[k] from s = load_index[k] (k = g^-s) into the output in order: the
// same permutation scattered by the last pass's stores took 1.66 ms of c2c 65537's 3.12 on the
// H200 (bench/RESULTS.md "Rader").
struct RaderDcDesc {
  long long n = 0;             // the prime length
  int columns = 0;             // m2, columns of the first pass
  int column_length = 0;       // m1
  long long scratch_dist = 0;  // complex elements between transforms in the scratch
};

// x[0] of transform t as the first pass loads (p: its loads).
PRISM_HD Cf rader_x0(const PassDesc& p, const void* src, long long t) {
  return load_row_element(p, src, t, 0, 0, [&] { return t * p.in.outer_dist; });
}

// What a column sum of transform t becomes (see RaderDcDesc).
PRISM_HD Cf rader_column_sum_less_x0(const RaderDcDesc& d, Cf column_sum, Cf x0) {
  return column_sum - x0 * static_cast<float>(d.column_length);
}

// Stores X[0] = x[0] + A[0] of transform t (p: the output's stores), conjugated as the whole
// transform is; a pair of real rows' (RealStep::pair_split) as both rows' spectra at 0.
PRISM_HD void store_rader_dc(const PassDesc& p, void* dst, long long t, Cf x0, Cf sum) {
  Cf v = x0 + sum;
  if (p.real_step == RealStep::pair_split) {
    store_pair_split(p, dst, t, 0, 0, [&](int) { return v; });
    return;
  }
  if (p.store_conj_final) v = conj(v);
  if (p.n_keep > 0) store_row_element(p, dst, t, 0, t * p.out.outer_dist, v);
}

// Outputs X[k] of transform t kept (k from 1 to min(n, n_keep) - 1).
PRISM_HD long long rader_outputs_kept(const PassDesc& p, const RaderDcDesc& d) {
  return (p.n_keep < d.n ? p.n_keep : d.n) - 1;
}

// Stores X[k], k >= 1, of transform t from the scratch (p: the output's stores and the gather's
// table); a pair of real rows' (RealStep::pair_split) as both rows' spectra at k, from X[k] and
// X[n - k] (k <= n / 2): the split fused in, without a buffer of the pairs' spectra and a pass
// of its own over them.
PRISM_HD void store_rader_output(const PassDesc& p, const RaderDcDesc& d, const Cf* scratch, void* dst,
                                 long long t, long long k) {
  const Cf* z = scratch + t * d.scratch_dist;
  if (p.real_step == RealStep::pair_split) {
    store_pair_split(p, dst, t, 0, static_cast<int>(k), [&](int i) { return z[load_index_table(p.load_index, i)]; });
    return;
  }
  Cf v = z[load_index_table(p.load_index, k)];
  if (p.store_conj_final) v = conj(v);
  store_row_element(p, dst, t, 0, t * p.out.outer_dist + k, v);
}

// ---- real-FFT pre/post-processing ------------------------------------------------------------
// A real row x of even length n = 2h read as h complex values z[j] = x[2j] + i x[2j+1] has
// Z = E + iO, where E and O are the spectra of the even and odd samples; X[k] = E[k] + w^k O[k]
// with w = exp(-2 pi i / n).

// X[k] from Z[k mod h], Z[(h-k) mod h] and w^k.
PRISM_HD Cf r2c_post_value(Cf z_k, Cf z_h_minus_k, Cf w_k) {
  const Cf partner = conj(z_h_minus_k);
  const Cf even = (z_k + partner) * 0.5f;
  const Cf odd = mul_neg_i(z_k - partner) * 0.5f;
  return even + cmul(w_k, odd);
}

// 2Z[k] = (X[k] + conj X[h-k]) + i conj(w^k) (X[k] - conj X[h-k]): the half-length inverse FFT
// of 2Z gives n times the interleaved real row, the unnormalised c2r result.
PRISM_HD Cf c2r_pre_value(Cf x_k, Cf x_h_minus_k, Cf w_k) {
  const Cf partner = conj(x_h_minus_k);
  return (x_k + partner) + mul_i(cmul_conj(x_k - partner, w_k));
}

// The real twiddle of element r of a butterfly of radix R whose elements are n/R apart in a
// transform of n = h/c (w_{2h}^{l + c e}, e = j + r n/R: element e of line l of a four-step's
// c lines, or of a whole row with l = 0 and c = 1), from those of its elements 0 and 1 (w_even,
// w_odd): c n/R = h/R, so it is w_even or w_odd times w_R^{floor(r/2)}, a constant. Two table
// reads per butterfly instead of R: with one per element c2r's real columns spilled 200-250
// bytes per thread (ptxas -v).
template <int R>
PRISM_HD Cf real_butterfly_twiddle_of(Cf w_even, Cf w_odd, int r) {
  static_assert(has_unit_roots(R), "real_butterfly_twiddle_of: no unit_root table for this radix");
  return rotate_by_root<R>(r % 2 == 0 ? w_even : w_odd, r / 2);
}

// Element k < h of the half-length FFT's input, conj(2Z[k]), from a row x of the h+1 values of
// a Hermitian spectrum (the imaginary parts of X[0] and X[h] are ignored, as FFTW does; cuFFT
// 12000's C2R uses them at some lengths, bench/RESULTS.md "cuFFT's c2r and the imaginary parts of
// X[0] and X[n/2]").
PRISM_HD Cf c2r_pre_of_row_at(const Cf* x, int h, int k, Cf w_k) {
  Cf x_k = x[k];
  Cf x_hk = x[h - k];
  if (k == 0) {
    x_k.im = 0.0f;
    x_hk.im = 0.0f;
  }
  return conj(c2r_pre_value(x_k, x_hk, w_k));
}
PRISM_HD Cf c2r_pre_of_row(const Cf* x, int h, int k, const Cf* real_tw) {
  return c2r_pre_of_row_at(x, h, k, load_table(real_tw, k));
}

// w_{2h}^k, 0 <= k <= h, of a real rows pass, the product of its two factors: tables of
// 2 sqrt(h) values stay in L1 and L2, where the whole table (64 MB at r2c 2^24) was read from
// DRAM for every row.
PRISM_HD Cf real_rows_twiddle(const RealRowsDesc& r, int k) {
  const int low_count = 1 << r.tw_low_bits;
  return cmul(load_table(r.real_tw, k & (low_count - 1)), load_table(r.real_tw, low_count + (k >> r.tw_low_bits)));
}

// The transpose step's (TransposeDesc, r2c_post): w_{2h}^(r + rows k), k <= columns.
PRISM_HD Cf transpose_real_twiddle(const TransposeDesc& d, long long r, long long k) {
  return cmul(load_table(d.real_tw, r), load_table(d.real_tw, d.rows + k));
}

// The transpose step with r2c_post: X of element (i, j) (row i, element j from the first) of the
// tile at (r0, k0) and of its mirror tile at (mirror_r0, mirror_k0) of transform t, from the two
// tiles read with the rows after them (tile(i, j), mirror(i, j); transpose_in_mirror_tile), row
// 0's mirrors read from z directly. The kernel's shared-memory tiles and the host executor's
// arrays both.
template <class Tile, class Mirror>
PRISM_HD void transpose_r2c_store(const TransposeDesc& d, const Cf* z, Cf* x, long long t, long long r0, long long k0,
                                  long long mirror_r0, long long mirror_k0, int i, int j, Tile&& tile,
                                  Mirror&& mirror) {
  const int mirror_i = transpose_in_mirror_tile(i);
  const int mirror_j = kTransposeTile - 1 - j;
  const long long r = r0 + i;
  const long long k = k0 + j;
  const Cf v = tile(i, j);
  Cf partner = mirror(mirror_i, mirror_j);
  if (r == 0) {
    long long partner_r = 0;
    long long partner_k = 0;
    transpose_mirror(d, r, k, partner_r, partner_k);
    partner = z[transpose_in_offset(d, t, partner_r, partner_k)];
    // X[h] = X[rows columns], from Z[0] as X[0].
    if (k == 0) x[transpose_out_offset(d, t, 0, d.columns)] = r2c_post_value(v, v, transpose_real_twiddle(d, 0, d.columns));
  }
  x[transpose_out_offset(d, t, r, k)] = r2c_post_value(v, partner, transpose_real_twiddle(d, r, k));
  x[transpose_out_offset(d, t, mirror_r0 + i, mirror_k0 + j)] =
      r2c_post_value(mirror(i, j), tile(mirror_i, mirror_j), transpose_real_twiddle(d, mirror_r0 + i, mirror_k0 + j));
}

// ---- rows passes -----------------------------------------------------------------------------
// A single pass over plain batched rows of a power-of-two length from 32 to 16384 (c2c either
// way, or the half-length pass of an r2c / c2r) runs on the rows kernel (fft_rows_kernel.cuh):
// one TeamFft (fft_team.cuh) of n/16 threads per row, rows_block_target threads per block.
// Everything the pass kernel decides at run time for its many layouts is fixed there; the
// stages, twiddle tables and real-FFT steps are the pass's.

// The direction of c2c is compiled in (not a run-time flag): the conjugations of inverse
// transforms as run-time selects made the kernels spill.
enum class RowsKind : int {
  forward,       // c2c forward
  inverse,       // c2c inverse: conj(FFT(conj x))
  real_forward,  // r2c of length 2n: the pairs of a real row in, the n+1 values of X out
  real_inverse,  // c2r of length 2n: the n+1 values of X in, the pairs of the real row out
};
inline constexpr int kRowsKinds = 4;

inline constexpr int kRowsMinLength = 32;
inline constexpr int kRowsMaxLength = 16384;

// Decimal teams: the rows kernel is also compiled for the decimal lengths 500 (10x10x5), 1000
// (10x10x10), 2000 (10x10x10x2) and 4000 (10x10x10x2x2; decimal_radix_list), with teams of
// kDecimalTeamElements elements per thread: each thread takes one butterfly of every radix-10
// stage (two of radix 5, five of radix 2) at indices fixed for the whole transform.
// On fft_plain_rows_kernel the butterflies of a block's transforms are dealt to its threads
// afresh at every stage, and the divisions of that map (by 100 and 125 for each butterfly) and
// of the padded shared addresses left c2c 1000 bound by the integer pipe (bench/RESULTS.md "Decimal
// teams (rows of 500, 1000, 2000, 4000)", where the figures below are); the decimal team's c2c 1000
// has 76 PTX instructions per element, the plain rows kernel's about 105 (static counts, nvcc 13.0
// for sm_90). On the H100 they took c2c 500 0.412 -> 0.376 ms, r2c 1000 0.459 -> 0.413, c2r 2000
// 0.495 -> 0.420, c2c 1000 0.369 -> 0.374 (at the copy's speed). The planner's rule takes them; the
// planner option rows_elements_per_thread = kElementsPerThread puts the rows on the plain rows
// kernel instead, and the tuning mode measures both. Their stages are radix_list's, as the plain
// rows kernel's, for c2r's halves too (rows_radix_list), but 2000's and 4000's: radix_list's
// 16x5x5x5 and 16x10x5x5 have a radix that does not divide 10. With the twos first (2x10x10x10,
// 2x2x10x10x10) c2c 2000 took 0.345 ms instead of 0.327, 4000 0.391 instead of 0.381, r2c 4000
// 0.456 instead of 0.424 (H200).
inline constexpr int kDecimalTeamElements = 10;
PRISM_HD constexpr bool has_decimal_rows_kernel(long long n) {
  return n == 500 || n == 1000 || n == 2000 || n == 4000;
}
// The stages of a decimal team: tens, then the fives or twos left over, so that every radix
// divides kDecimalTeamElements (500 = 10x10x5 and 1000 = 10x10x10 as radix_list; 2000 =
// 10x10x10x2, 4000 = 10x10x10x2x2).
PRISM_HD constexpr RadixList decimal_radix_list(long long n) {
  RadixList list;
  int twos = 0;
  int fives = 0;
  for (; n % 2 == 0; n /= 2) ++twos;
  for (; n % 5 == 0; n /= 5) ++fives;
  const int tens = twos < fives ? twos : fives;
  for (int i = 0; i < tens; ++i) list.radix[list.count++] = 10;
  for (int i = tens; i < fives; ++i) list.radix[list.count++] = 5;
  for (int i = tens; i < twos; ++i) list.radix[list.count++] = 2;
  return list;
}
static_assert(same_radices(decimal_radix_list(500), radix_list(500)) &&
                  same_radices(decimal_radix_list(1000), radix_list(1000)),
              "the decimal teams of 500 and 1000 run radix_list's stages, as the plain rows kernel");
// The elements per thread of the rows kernel's teams of length n (but the wide teams).
PRISM_HD constexpr int rows_team_elements(long long n) {
  return has_decimal_rows_kernel(n) ? kDecimalTeamElements : kElementsPerThread;
}

struct RowsPassDesc {
  int n = 1;  // the complex length (half of a real transform's)
  RowsKind kind = RowsKind::forward;
  int elements_per_thread = kElementsPerThread;  // of the team of each row (kWideTeamElements)
  long long in_dist = 0;   // complex elements between input rows
  long long out_dist = 0;  // complex elements between output rows
  const Cf* stage_tw = nullptr;
  const Cf* real_tw = nullptr;
  // Rows from a row to the one whose input its team asks L2 to prefetch (0: none; rows_prefetch).
  long long prefetch_ahead = 0;
};

// A TeamFft of length n: its threads (at `elements` per thread), and the floats of each of its
// two shared planes (padded, the length odd so that teams side by side fall in different banks).
PRISM_HD constexpr int team_threads(int n, int elements = kElementsPerThread) { return n / elements; }
PRISM_HD constexpr int team_plane_floats(int n) { return (smem_pad(n - 1) + 1) | 1; }

// The threads a block of the rows kernel aims at (whole rows; a longer row takes a block of its
// own). Small blocks ran faster (fewer rows wait at each barrier; bench/RESULTS.md "Rows kernel:
// block size and registers"): against 256, at 64 r2c 256-4096 took 6-8 % less, c2r 256, 1024 and
// 4096 6-8 % less, c2c 64 9 % less, other c2c lengths the same; c2r of half 1024 (one team of 64
// threads) took 0.304 ms alone in its block and 0.288 two to a block.
PRISM_HD constexpr int rows_block_target(RowsKind kind, int n) {
  // Decimal teams: 1 row of 4000, 2 of 2000, 4 of 1000, 8 of 500; 13 warps, the last half full.
  if (has_decimal_rows_kernel(n)) return 400;
  return kind == RowsKind::real_inverse && n == 1024 ? 128 : 64;
}

// Rows per block of the rows kernel, its threads and its shared memory (teams of `elements`
// per thread; 0: rows_team_elements(n)).
PRISM_HD constexpr int rows_team_threads(int n, int elements) {
  return team_threads(n, elements == 0 ? rows_team_elements(n) : elements);
}
PRISM_HD constexpr int rows_per_block(int n, RowsKind kind, int elements = 0) {
  const int target = rows_block_target(kind, n);
  const int threads = rows_team_threads(n, elements);
  return threads >= target ? 1 : target / threads;
}
PRISM_HD constexpr int rows_block_threads(int n, RowsKind kind, int elements = 0) {
  return rows_per_block(n, kind, elements) * rows_team_threads(n, elements);
}
PRISM_HD constexpr long long rows_shared_bytes(int n, RowsKind kind, int elements = 0) {
  return static_cast<long long>(rows_per_block(n, kind, elements)) * 2 * team_plane_floats(n) *
         static_cast<long long>(sizeof(float));
}

// Whether the rows kernel of length n and kind has each team prefetch into L2 the input of a
// row that starts a quarter of a wave of blocks later (RowsPassDesc::prefetch_ahead), so that
// DRAM keeps reading while the rows in the multiprocessors run their stages. On the H200
// (bench/RESULTS.md "Rows kernel: prefetching a later row into L2") c2c 256-16384 took 1-15 % less
// (16384, one row per multiprocessor: 0.405 -> 0.351 ms), r2c 4096-16384 0.5-8 % less, c2r 4096 5 %
// less; prefetching, r2c 256 and c2r 256, 8192-32768 took 1-15 % more. A whole wave ahead most
// lengths took 16-31 % more (the prefetched rows evicted before their blocks ran), half or an
// eighth of a wave about what a quarter took. Lengths below 256 and the decimal ones were not
// measured and do not prefetch.
PRISM_HD constexpr bool rows_prefetch(int n, RowsKind kind) {
  if (!is_power_of_two(n) || n < 256) return false;
  switch (kind) {
    case RowsKind::forward:
    case RowsKind::inverse: return true;
    case RowsKind::real_forward: return n >= 2048;
    case RowsKind::real_inverse: return n == 2048;
  }
  return false;
}

// Whether the rows kernel of length n, kind and elements per thread reads its rows' input without
// allocating lines in L1 (ld.global.L1::no_allocate), which keeps the stage twiddles there. On the
// H200 (bench/RESULTS.md "Rows kernel: input past L1, stage twiddles as products") c2c 8192 took
// 3.2-3.4 % less so; with every length from 256 to 16384 bypassing, the others took the same or
// more: c2c 16384 8.7 %, r2c 256-2048 7-13 %, c2r 256-8192 7-86 %.
PRISM_HD constexpr bool rows_input_bypasses_l1(int n, RowsKind kind, int elements) {
  return n == 8192 && elements == kElementsPerThread && (kind == RowsKind::forward || kind == RowsKind::inverse);
}

// Whether the rows kernel's team of length n, kind and elements per thread forms the stage
// twiddles of inputs that are not powers of two as products (stage_compute_at). Measured on
// the H200 against reading every one (bench/RESULTS.md "Rows kernel: input past L1, stage twiddles
// as products"): r2c 4096-32768 1.3-6.5 % less (halves 2048-16384), c2r 16384 4.4 % and 32768 7.7 %
// less, c2c 16384 1.0 %, the decimal teams 1.3-5.2 % (c2c 1000-4000, r2c 1000-4000, c2r 1000 and
// 4000); but with every team deriving c2r 4096 11.6 % more and 8192 6.8 % (halves 2048, 4096), c2c
// 8192 12 % (64 registers, spilling), and c2r 2000 8.7 % (half 1000); lengths up to 1024 within 1
// %.
PRISM_HD constexpr bool rows_derive_twiddles(int n, RowsKind kind, int elements) {
  if (elements == kDecimalTeamElements) return !(kind == RowsKind::real_inverse && n == 1000);
  switch (kind) {
    case RowsKind::forward:
    case RowsKind::inverse: return n == 16384;
    case RowsKind::real_forward: return n >= 2048;
    case RowsKind::real_inverse: return n >= 8192;
  }
  return false;
}

// Whether pass p is a single pass over plain batched rows (any length), and of which kind (d;
// its tables are p's): the planner's single passes of plain rows; not four-step or Bluestein
// passes or paired real rows.
inline bool plain_rows_pass(const PassDesc& p, RowsPassDesc& d) {
  const int n = p.n;
  if (!p.inner_is_batch || p.paired || p.mid_conv || p.load_chirp || p.store_chirp ||
      p.load_permuted || p.load_conj || p.store_conj || p.store_twiddle != StoreTwiddle::none ||
      p.load_kind != LoadKind::complex_row || p.store_kind != StoreKind::complex_row ||
      p.in.elem_stride != 1 || p.out.elem_stride != 1 || p.lout_inner != 0 || p.lout_elem != 1) {
    return false;
  }
  RowsKind kind;
  if (p.real_step == RealStep::none && p.load_n == n && p.store_n == n && p.n_keep >= n &&
      p.load_conj_raw == p.store_conj_final) {
    kind = p.load_conj_raw ? RowsKind::inverse : RowsKind::forward;
  } else if (p.real_step == RealStep::r2c_post && p.load_n == n && p.store_n == n + 1 &&
             p.n_keep >= n + 1 && !p.load_conj_raw && !p.store_conj_final) {
    kind = RowsKind::real_forward;
  } else if (p.real_step == RealStep::c2r_pre && p.load_n == n + 1 && p.store_n == n &&
             p.n_keep >= n && !p.load_conj_raw && p.store_conj_final) {
    kind = RowsKind::real_inverse;
  } else {
    return false;
  }
  d = RowsPassDesc{};
  d.n = n;
  d.kind = kind;
  d.elements_per_thread = p.rows_elements_per_thread;
  d.in_dist = p.in.inner_dist;
  d.out_dist = p.out.inner_dist;
  d.stage_tw = p.stage_tw;
  d.real_tw = p.real_tw;
  return true;
}

// The lengths of the rows kernel at 16 elements per thread: the powers of two from
// kRowsMinLength to kRowsMaxLength (the decimal lengths have it at kDecimalTeamElements only,
// and the plain rows kernel besides).
PRISM_HD constexpr bool has_rows_kernel(long long n) {
  return is_power_of_two(n) && n >= kRowsMinLength && n <= kRowsMaxLength;
}

// Wide teams: the rows kernel of length 8192 also compiled at kWideTeamElements elements per
// thread: 256 threads to a row, each with twice the butterflies of every stage and up to 128
// registers, two rows per multiprocessor as with 512 threads. Measured on the H200 against 16
// per thread (bench/RESULTS.md "Rows kernel: wide teams for rows of 8192"): c2r 16384 0.376 ->
// 0.357 ms, c2c 8192 0.314 -> 0.318, r2c 16384 0.395 -> 0.443. Three rows per multiprocessor (80
// registers, spilling 312-456 bytes per thread) took c2c 8192 0.508 ms, and 16384 at 32 per thread
// (512 threads, one row per multiprocessor) was no faster for c2c (0.408 against 0.407) and 12-18 %
// slower for the real kinds, so neither is compiled. The planner's rule
// (default_rows_elements_per_thread) takes them for c2r; the tuning mode measures both widths.
inline constexpr int kWideTeamElements = 32;
inline constexpr int kWideRowsLength = 8192;
PRISM_HD constexpr bool has_wide_rows_kernel(long long n) { return n == kWideRowsLength; }

// The radices of the rows kernel's stages. c2r's (RowsKind::real_inverse) put the last radix
// first where it is 8 or less and a row takes fewer than 1024 threads (half lengths 32 = 4x8,
// 64 = 8x8, 128 = 8x16, 512 = 8x8x8, 1024 = 8x16x8, 2048 = 8x16x16, 8192 = 8x16x8x8): the first
// stage then gives each thread two or more butterflies, which pair up (paired_butterfly) so that
// each thread holds X[k] and X[n - k] for every Z[k] of its inputs and reads each X once. With
// radix 16 first each thread read X[k] and X[n - k] for its own 16 inputs, every X twice (c2r
// 4096: 41.4 M L2 read sectors against cuFFT's 25.5 M). Measured on the H200 (bench/RESULTS.md
// "Rows kernel: c2r's stage order"): c2r 256 0.354 -> 0.307 ms, 1024 0.355 -> 0.334, 2048 0.352 ->
// 0.294, 4096 0.344 -> 0.325, 16384 0.402 -> 0.379; all radices ascending ran 2048 and 16384 no
// faster, and 32768 (rows of 16384, 1024 threads, one block per multiprocessor) 15 % slower, 9 %
// with this order, so it keeps radix_list. 256 = 16x16 and 4096 = 16x16x16 have no such radix: 256
// runs as 4x8x8 (a stage more, each X read once: c2r 512 0.302-0.309 ms instead of 0.324-0.326),
// while 4096 as 8x8x8x8 gained nothing (c2r 8192 0.344-0.350 against 0.340-0.342) and keeps
// 16x16x16. The other kinds, and lengths without a rows kernel (whose compiled pass kernels fix
// radix_list's order), take radix_list; the decimal teams (`elements` = kDecimalTeamElements)
// decimal_radix_list, for every kind.
PRISM_HD constexpr RadixList rows_radix_list(RowsKind kind, long long n, int elements = kElementsPerThread) {
  if (elements == kDecimalTeamElements && has_decimal_rows_kernel(n)) return decimal_radix_list(n);
  RadixList list = radix_list(n);
  if (kind == RowsKind::real_inverse && n == 256) {
    list.count = 3;
    list.radix[0] = 4;
    list.radix[1] = 8;
    list.radix[2] = 8;
    return list;
  }
  if (kind == RowsKind::real_inverse && has_rows_kernel(n) && n < kRowsMaxLength &&
      list.count > 1 && list.radix[list.count - 1] <= 8) {
    const int last = list.radix[list.count - 1];
    for (int s = list.count - 1; s > 0; --s) list.radix[s] = list.radix[s - 1];
    list.radix[0] = last;
  }
  return list;
}

// The radices of pass p's stages.
inline RadixList pass_radices(const PassDesc& p) {
  RadixList list;
  list.count = p.num_stages;
  for (int s = 0; s < p.num_stages; ++s) list.radix[s] = p.stages[s].radix;
  return list;
}

// Whether the rows kernel is compiled for length n at `elements` per thread.
PRISM_HD constexpr bool has_rows_teams(long long n, int elements) {
  return has_rows_kernel(n)
             ? elements == kElementsPerThread || (elements == kWideTeamElements && has_wide_rows_kernel(n))
             : elements == kDecimalTeamElements && has_decimal_rows_kernel(n);
}

// Whether pass p runs on the rows kernel: a plain rows pass of one of its lengths, its stages in
// the kernel's order (rows_radix_list), at elements per thread that the kernel is compiled for.
inline bool rows_pass_of(const PassDesc& p, RowsPassDesc& d) {
  return has_rows_teams(p.n, p.rows_elements_per_thread) && plain_rows_pass(p, d) &&
         same_radices(pass_radices(p), rows_radix_list(d.kind, p.n, p.rows_elements_per_thread));
}

// Whether the first stage of length n has 16 or more butterflies per transform, so that a c2r
// whose first stage reads X[i] and X[n - i] from global memory reads runs of 128 bytes or more:
// with one (c2r 32, half 16 = one radix-16 butterfly) each thread read a row of its own and c2r
// 32 took 1.05 ms instead of 0.50 (H200, bench/RESULTS.md "c2r's first stage from X in global
// memory").
PRISM_HD constexpr bool wide_first_stage(long long n) { return n / radix_list(n).radix[0] >= 16; }

// Whether a plain rows pass of length n and kind runs on fft_plain_rows_kernel
// (fft_pass_kernel.cuh): a compiled length (kCompiledLengths) that the rows kernel does not take;
// for the real kinds only with a wide first stage, as the pass kernel's direct c2r; the shorter
// halves stay on the pass kernel.
constexpr bool has_plain_rows_kernel(long long n, RowsKind kind) {
  if (!has_compiled_kernel(n) || has_rows_kernel(n)) return false;
  if (kind == RowsKind::forward || kind == RowsKind::inverse) return true;
  return wide_first_stage(n);
}

// Threads of a block of the planner's default blocking of a plain rows pass of compiled length
// n: as many transforms as kSingleElementsPerBlock elements hold, fewer where they would take
// more than kMaxThreadsPerBlock threads (the planner's configure_block).
inline constexpr int kSingleElementsPerBlock = 4096;
constexpr int plain_rows_block_threads(int n) {
  const RadixList list = radix_list(n);
  long long per_block = kSingleElementsPerBlock / n > 1 ? kSingleElementsPerBlock / n : 1;
  while (per_block > 1 && block_threads(list.radix, list.count, n, per_block) > kMaxThreadsPerBlock) {
    --per_block;
  }
  return static_cast<int>(block_threads(list.radix, list.count, n, per_block));
}

// Registers per thread of fft_plain_rows_kernel of length n: the most (registers_holding) that
// keep the blocks of plain_rows_block_threads resident that 64 allow; but 56 where 64 hold one
// block and 56 two. Measured on the H200 against 64 at every length (bench/RESULTS.md "Plain rows
// kernel: registers per length"): at 8000 (blocks of 544 threads) 56 took 26 % less for c2c 8000
// and 25-36 % less for r2c / c2r 16000; at 1000, 2000 and 4000 (288 threads, three blocks, before
// radix 10) 72 took 1-9 % less for r2c / c2r of twice the length, c2c 1000 the same, c2c 4000 3 %
// more, where 56 (four blocks) made c2c 1000 14 % slower; at 6400 (two blocks of 448) 72 made r2c
// 12800 8 % faster; more registers where they cost a block (72 at 1920, 256 threads) made r2c 3840
// 12 % slower.
constexpr int plain_rows_kernel_registers(int n) {
  const int warps = plain_rows_block_threads(n) / 32;
  const int resident = resident_warps(64) / warps;
  if (resident == 1 && resident_warps(56) / warps >= 2) return 56;
  return registers_holding(resident * warps);
}

// Whether plain rows pass p of kind `kind` (plain_rows_pass) runs on fft_plain_rows_kernel: a
// length that has one, in a block that the kernel's registers hold (a tuned plan's larger blocks
// may not: they run on the pass kernel).
inline bool plain_rows_kernel_takes(const PassDesc& p, RowsKind kind) {
  return has_plain_rows_kernel(p.n, kind) &&
         p.threads / 32 <= resident_warps(plain_rows_kernel_registers(p.n));
}

// ---- Bluestein passes ------------------------------------------------------------------------
// The passes of a Bluestein convolution of compiled length run on the Bluestein kernel
// (fft_bluestein_kernel, fft_pass_kernel.cuh), one variant per pass, each with its loads in the
// first stage and its stores in the last, the spectrum multiply in a stage's shared-memory
// writes: no load or store phase, no run-time choice of layout per element.

enum class BluesteinPass : int {
  none = -1,    // not a Bluestein pass the kernel takes
  one_pass,     // the whole convolution in one block: chirp and zero padding on load, spectrum
                // multiply between the two FFTs, chirp on store (PassDesc::mid_conv, load_chirp)
  columns_in,   // three passes, first: the n1-point FFTs of the columns of the chirped,
                // zero-padded input, four-step twiddle on store (to scratch, side by side)
  rows,         // second: each scratch row in place: FFT, spectrum multiply, FFT of the
                // conjugate, conjugate twiddle on store
  columns_out,  // third: the n1-point FFTs of the scratch columns, chirp on store, the first n
                // kept
};
inline constexpr int kBluesteinPasses = 4;

// Which Bluestein pass p is, for a compiled length: the planner's passes (fft_plan.cpp,
// bluestein) in the layouts the kernel's variants assume; none for anything else, which runs on
// the pass kernel.
inline BluesteinPass bluestein_pass_of(const PassDesc& p) {
  if (!has_compiled_kernel(p.n)) return BluesteinPass::none;
  if (p.mid_conv && p.load_chirp) return BluesteinPass::one_pass;
  if (p.inner_is_batch || p.load_n != p.n || p.real_step != RealStep::none) {
    return BluesteinPass::none;
  }
  // Every index stored by the last stage of columns_in and rows (they drop nothing).
  const bool stores_all = p.store_kind == StoreKind::complex_row && p.store_n == p.n &&
                          store_logical(p, p.inner_count - 1, p.n - 1) < p.n_keep;
  const bool complex_load = p.load_kind == LoadKind::complex_row && !p.load_chirp && !p.load_permuted;
  if (p.mid_conv && !p.store_chirp && complex_load && !p.load_conj_raw && !p.load_conj &&
      p.in.elem_stride == 1 && p.out.elem_stride == 1 && stores_all) {
    return BluesteinPass::rows;
  }
  if ((p.load_chirp || p.load_permuted) && !p.mid_conv && !p.store_chirp && p.lin_inner == 1 &&
      p.out.inner_dist == 1 && stores_all) {
    return BluesteinPass::columns_in;
  }
  // The chirp on store (Bluestein), or the inverse FFT through conjugates (load_conj: Rader's,
  // to scratch).
  if ((p.store_chirp || p.load_conj) && !p.mid_conv && complex_load && p.in.inner_dist == 1 &&
      p.lout_inner == 1 && p.store_n == p.n) {
    return BluesteinPass::columns_out;
  }
  return BluesteinPass::none;
}

// Elements each thread of a block of one transform of compiled length m holds in every stage,
// where that is one count E (every stage of an unrolled radix, m / E threads in whole warps)
// and m is at least kSingleElementsPerBlock; else 0. There thread t's elements are
// t + (m / E) s, s = 0 .. E - 1, in the outputs of the last stage as in the inputs of the first,
// so the one-pass Bluestein kernel keeps the first FFT's outputs in registers as the second's
// inputs (StageOut::held, StageIn::held_conv: one shared-memory round trip and two barriers
// fewer), its blocks one transform each. Shorter lengths share blocks by default: one to a
// block took Bluestein 509 (m = 1024) 2-4 % longer, 1021 (2048) no less (H200,
// bench/RESULTS.md "Bluestein: the shortest convolution and the held spectrum").
PRISM_HD constexpr int bluestein_held_elements(long long m) {
  if (m < kSingleElementsPerBlock) return 0;
  const RadixList list = radix_list(m);
  int elements = 0;
  for (int s = 0; s < list.count; ++s) {
    const int radix = list.radix[s];
    if (is_prime_stage_radix(radix)) return 0;
    const int here = compiled_butterflies_per_thread(radix, m) * radix;
    if (elements != 0 && here != elements) return 0;
    elements = here;
  }
  if (elements == 0 || m % elements != 0 || (m / elements) % 32 != 0) return 0;
  return elements;
}

// Registers per thread of the Bluestein kernel of compiled length m and pass: the one pass's
// per length (bluestein_kernel_registers), 64 for the three-pass variants (blocks of up to 1024
// threads, as the pass kernel). 96 for the row pass spilled less (160: 232 bytes against 496)
// but took c2c 10007 and 65537 7 % longer (fewer resident blocks; bench/RESULTS.md "Bluestein:
// three passes on the Bluestein kernel").
constexpr int bluestein_pass_registers(int m, BluesteinPass pass) {
  return pass == BluesteinPass::one_pass ? bluestein_kernel_registers(m) : 64;
}

// ---- four-step passes ------------------------------------------------------------------------
// The two passes of a four-step over powers of two (n = n1 x n2, halves from kFourStepMinLength
// to kFourStepMaxLength) run on the four-step kernel (fft_four_step_kernel.cuh): one TeamFft per
// column or row, four_step_teams(kind, n) transforms side by side in a block.
//   columns: the n1-point FFT of column c (elements c + i*n2), times w_n^{c*k} on the way out
//            (stored to scratch at c + k*n2); inverse transforms conjugate on load;
//   rows:    the n2-point FFT of scratch row r (contiguous), stored transposed (r + k*n1);
//            inverse transforms conjugate on store;
//   real rows: the row pass of an r2c's half length with the real post-processing
//            (RealStep::r2c_post_rows): a block holds rows r and (n1 - r) mod n1, whose
//            spectra pair up as Z[k] and Z[h - k], and stores X;
//   real columns: the column pass of a c2r's half length with the real pre-processing
//            (RealStep::c2r_pre_columns): a block holds columns c and (n2 - c) mod n2, whose
//            inputs pair up as X[k] and X[h - k].
// Threads map to transforms in two ways (four_step_team_major / four_step_lane_major): team
// major puts neighbouring threads on the same element of neighbouring transforms, which sit side
// by side in memory for the columns and the row pass's output, so that a warp touches
// min(teams, 32) neighbouring elements at once; lane major puts them on neighbouring elements
// of one transform, for the row pass's input. The row pass switches maps after its first stage
// (TeamFft::run_remapped).

enum class FourStepKind : int {
  columns,          // forward: twiddle on store
  columns_inverse,  // conj on load, twiddle on store
  rows,             // forward
  rows_inverse,     // conj on store
  rows_real,        // forward, r2c post-processing on store (RealStep::r2c_post_rows)
  columns_real,     // c2r pre-processing on load, twiddle on store (RealStep::c2r_pre_columns)
};

// Whether the four-step kernel's teams of length n and kind form the stage twiddles as products
// (stage_compute_at): c2r's passes of powers of two (the real columns and the inverse rows),
// where on the H200 c2r 65536 took 3.1 % less and 2^20 4.1 % less (bench/RESULTS.md "Four-step
// kernel: stage twiddles as products"); with every four-step pass deriving, c2c's and r2c's
// measured within 1.2 % either way, and they keep the table.
PRISM_HD constexpr bool four_step_derive_twiddles(FourStepKind kind, int n) {
  return is_power_of_two(n) && (kind == FourStepKind::columns_real || kind == FourStepKind::rows_inverse);
}

// The four-step's shape n = n1 x n2: n1 = n2, n2 = 2 n1, n1 = 2 n2, n1 = 4 n2, n2 = 4 n1 or
// n2 = 8 n1 (the planner's split of powers of two is square or wide; an r2c's half length takes
// tall instead of wide, its real rows the shorter side, and tall4 instead of square where that
// halves its real rows: see the planner's four_step_real; wide4 and wide8 the columns of 4096
// and 2048 ahead of rows of 16384 and a transpose step, c2c 2^26 and 2^25: the planner's
// prefer_transposed_rows; both also the splits of short_columns_length). decimal: an r2c's real
// rows or a c2r's real columns of a decimal team (has_decimal_four_step_kernel) over any count
// of rows (n1) or columns (n2) that its blocks divide, a run-time value
// (FourStepPassDesc::other_side).
enum class FourStepShape : int { square, wide, tall, tall4, wide4, wide8, decimal };
inline constexpr FourStepShape kFourStepShapes[] = {FourStepShape::square, FourStepShape::wide,  FourStepShape::tall,
                                                    FourStepShape::tall4,  FourStepShape::wide4, FourStepShape::wide8,
                                                    FourStepShape::decimal};

// The decimal length whose real rows and columns (FourStepKind::rows_real, columns_real) the
// four-step kernel runs as decimal teams (has_decimal_rows_kernel), so that an r2c of a half
// length n1 x 500 (48000 = 2 x 48 x 500, audio's second at 48 kHz) stores X from its row pass,
// and a c2r of a half length 500 x n2 forms its input in its column pass, instead of a real
// rows pass of their own beside two pass-kernel passes. Only 500 (10x10x5, 50 threads a team):
// eight teams of 1000 would take 800 threads, the block that ran rows of 500 slower
// (kDecimalFourStepTeams).
PRISM_HD constexpr bool has_decimal_four_step_kernel(long long n) { return n == 500; }

PRISM_HD constexpr bool four_step_columns(FourStepKind kind) {
  return kind == FourStepKind::columns || kind == FourStepKind::columns_inverse ||
         kind == FourStepKind::columns_real;
}

// The length of the other side of a four-step whose columns (column kinds) or rows have length
// n: n2 for the columns, n1 for the rows.
// 0 for decimal (a run-time value).
PRISM_HD constexpr int four_step_other_side(FourStepKind kind, int n, FourStepShape shape) {
  const bool columns = four_step_columns(kind);
  switch (shape) {
    case FourStepShape::square: return n;
    case FourStepShape::wide: return columns ? 2 * n : n / 2;
    case FourStepShape::tall: return columns ? n / 2 : 2 * n;
    case FourStepShape::tall4: return columns ? n / 4 : 4 * n;
    case FourStepShape::wide4: return columns ? 4 * n : n / 4;
    case FourStepShape::wide8: return columns ? 8 * n : n / 8;
    case FourStepShape::decimal: return 0;
  }
  return n;
}

// The column length n1 of the four-step split n1 x n2 (n2 = 4 n1 or 8 n1) that the planner takes
// for a complex transform of length n (real_columns: the half length of a c2r, whose column
// pass forms its input, FourStepKind::columns_real) instead of the balanced one; 0 where it keeps
// the balanced split. The column passes are the dearer ones, their reads strided; c2r's, which
// also form their input from X[k] and X[h - k], gained most from shorter columns. Measured on
// the H200 (bench/RESULTS.md "Four-step kernel: shorter columns"), balanced against this split, ms:
//   c2c 2^18 512x512 0.600, 256x1024 0.566; c2c 2^20 1024x1024 0.668, 512x2048 0.637;
//   c2r 2^17 (half 256x256) 0.618, 128x512 0.592; 2^18 (256x512) 0.652, 128x1024 0.600;
//   2^19 (512x512) 0.731, 256x1024 0.652; 2^20 (512x1024) 0.730, 256x2048 0.678;
//   2^21 (1024x1024) 0.93, 512x2048 0.78.
// Left balanced where the shorter columns were slower or no faster: c2c 2^16 (128x512 0.565
// against 0.527), 2^17 (128x1024 0.561 against 0.563), 2^19 (256x2048 0.602 against 0.603),
// 2^21 (512x4096 0.74 against 0.67); c2r 2^22 (half 512x4096 0.92 against 0.88).
PRISM_HD constexpr int short_columns_length(long long n, bool real_columns) {
  if (real_columns) {
    switch (n) {
      case 1LL << 16: return 128;
      case 1LL << 17: return 128;
      case 1LL << 18: return 256;
      case 1LL << 19: return 256;
      case 1LL << 20: return 512;
      default: return 0;
    }
  }
  switch (n) {
    case 1LL << 18: return 256;
    case 1LL << 20: return 512;
    default: return 0;
  }
}
// Whether a pass of length n and kind, the other side `other`, belongs to a split of
// short_columns_length: columns (c2c's) or real columns (c2r's) of n1 = n, or the complex rows of
// n2 = n behind them (c2c both ways, c2r's inverse rows).
PRISM_HD constexpr bool short_columns_pass(FourStepKind kind, int n, int other) {
  const long long length = static_cast<long long>(n) * other;
  switch (kind) {
    case FourStepKind::columns:
    case FourStepKind::columns_inverse: return short_columns_length(length, false) == n;
    case FourStepKind::columns_real: return short_columns_length(length, true) == n;
    case FourStepKind::rows: return short_columns_length(length, false) == other;
    case FourStepKind::rows_inverse:
      return short_columns_length(length, false) == other || short_columns_length(length, true) == other;
    case FourStepKind::rows_real: return false;
  }
  return false;
}

// Whether the four-step kernel is compiled for this kind, length and shape: square and wide for
// every kind, tall and tall4 only for the passes of an r2c's half length (forward columns, real
// rows), tall4 where the other side has a four-step kernel too; wide4 and wide8 for the columns
// of 4096 and 2048 (next to 16384 of them, whose rows run on the rows kernel), wide8 for c2r's
// real columns too (has_real_columns_pass: up to 2048), and for the passes of the splits of
// short_columns_length; decimal for the real rows and columns of has_decimal_four_step_kernel
// only.
inline constexpr int kFourStepWideRows = kMaxSinglePass;  // the rows beside the wide shapes' columns
PRISM_HD constexpr bool has_four_step_shape(FourStepKind kind, int n, FourStepShape shape) {
  if (has_decimal_four_step_kernel(n) || shape == FourStepShape::decimal) {
    return has_decimal_four_step_kernel(n) && shape == FourStepShape::decimal &&
           (kind == FourStepKind::rows_real || kind == FourStepKind::columns_real);
  }
  const bool r2c_pass = kind == FourStepKind::columns || kind == FourStepKind::rows_real;
  const int other = four_step_other_side(kind, n, shape);
  switch (shape) {
    case FourStepShape::square:
    case FourStepShape::wide: return true;
    case FourStepShape::tall: return r2c_pass;
    case FourStepShape::tall4: return r2c_pass && other >= kFourStepMinLength && other <= kFourStepMaxLength;
    case FourStepShape::wide4:
      return (other == kFourStepWideRows && (kind == FourStepKind::columns || kind == FourStepKind::columns_inverse)) ||
             short_columns_pass(kind, n, other);
    case FourStepShape::wide8:
      return (other == kFourStepWideRows && four_step_columns(kind)) || short_columns_pass(kind, n, other);
    case FourStepShape::decimal: return false;
  }
  return false;
}

struct FourStepPassDesc {
  int n = 1;  // the length of each column or row transform
  FourStepKind kind = FourStepKind::columns;
  FourStepShape shape = FourStepShape::square;
  long long inner_count = 1;    // transforms per outer index (columns or rows of one transform)
  int other_side = 0;           // n2 of the column passes, n1 of the row passes
  long long in_outer = 0;       // complex elements between the outer indices' inputs
  long long out_outer = 0;      // ... and outputs
  const Cf* stage_tw = nullptr;
  const Cf* pass_tw = nullptr;  // columns: pass_twiddle's table, split by four_step_twiddle_split
  const Cf* real_tw = nullptr;  // rows_real, columns_real: PassDesc::real_tw
  // Blocks from a block to the one whose input it asks L2 to prefetch (0: none;
  // four_step_prefetch).
  long long prefetch_ahead = 0;
};

// Transforms per block of the four-step kernel of length n, a compile-time constant (as a
// run-time value the thread map made the kernels of 512-4096 spill 100-300 bytes per thread):
// the planner's default, 8192 elements and at least four transforms side by side (more for
// some kinds: four_step_teams(kind, n) below). Passes that the tuning mode gives other block
// sizes run on the pass kernel.
PRISM_HD constexpr int four_step_teams(int n) { return n >= 2048 ? 4 : 8192 / n; }

// Threads of one transform of the four-step kernel (its TeamFft's, rows_team_elements per
// thread).
PRISM_HD constexpr int four_step_team_threads(int n) { return team_threads(n, rows_team_elements(n)); }

// Rows (c2r: columns) per block of the decimal real rows and columns: 8 (400 threads, two
// blocks per multiprocessor at 72 registers). On the H200 (bench/RESULTS.md "Four-step kernel:
// decimal real rows and columns") 16 rows (800 threads, one block at 72 registers; two would allow
// 32, and spilled 236 bytes per thread) ran r2c 48000 in 0.905 ms against 0.880, 96000 1.032
// against 1.008; and 10^6 (rows 1000 x 500, which 16 do not divide) took 1.178 ms on the 8 against
// 1.540 without them.
inline constexpr int kDecimalFourStepTeams = 8;
// The four-step kernel's launch bounds: blocks of up to 1024 threads, one per multiprocessor at
// the least (64 registers); the decimal real rows' blocks two.
PRISM_HD constexpr int four_step_launch_threads(int n) {
  return has_decimal_four_step_kernel(n) ? kDecimalFourStepTeams * four_step_team_threads(n) : kMaxThreadsPerBlock;
}
PRISM_HD constexpr int four_step_launch_blocks(int n) { return has_decimal_four_step_kernel(n) ? 2 : 1; }

// Transforms per block of a four-step pass of this kind, at most what 1024 threads hold (c2r's
// real columns below 2048 512, see has_real_columns_pass): column passes take at least 16 (runs
// of 128 bytes per row; 8 at 2048, 4 at 4096; real columns of 1024 eight), real rows
// at least 64 (a whole block from 256 up), plain row passes four_step_teams(n). Measured on the
// H200 (bench/RESULTS.md "Four-step kernel: transforms per block"): columns of 2048 eight wide
// instead of four, c2c 2^22 0.933 -> 0.817 ms; of 1024 sixteen instead of eight, c2c 2^21 0.770 ->
// 0.715; columns of 512 and less with a whole block of 1024 threads ran 2-6 % slower, plain rows of
// 2048 eight wide gained nothing. Real rows store runs of teams / 2 rows: with four (16 bytes) the
// r2c 2^22 row pass moved 1.4x the DRAM bytes of eight and took 1.8x the time; a whole block
// instead of 8192 elements took r2c 2^21 (rows of 1024) from 1.09 to 0.84 ms and 2^19 (512) from
// 0.787 to 0.73, while rows of 128 ran faster with 64 than with 128 (r2c 2^16 0.60 against 0.67).
// The decimal real rows and columns take kDecimalFourStepTeams (8 of 500, 400 threads).
PRISM_HD constexpr int four_step_teams(FourStepKind kind, int n) {
  const int teams = four_step_teams(n);
  if (has_decimal_four_step_kernel(n)) {
    return kind == FourStepKind::rows_real || kind == FourStepKind::columns_real ? kDecimalFourStepTeams : teams;
  }
  const int threads = kind == FourStepKind::columns_real && n < 2048 ? kMaxThreadsPerBlock / 2 : kMaxThreadsPerBlock;
  const int most = threads / (n / kElementsPerThread);
  const int least = four_step_columns(kind) ? 16 : kind == FourStepKind::rows_real ? 64 : teams;
  const int wide = least < most ? least : most;
  return wide > teams ? wide : teams;
}

// Where a four-step pass's twiddles split (pass_twiddle, twiddle_grid) for a pass of `count`
// elements over `inner_count` transforms: at the four-step kernel's team threads (whose outputs
// k = lane + threads * high make the low factor the thread's own) where the whole grid would
// exceed kTwiddleGridMaxEntries and count is at least kTwiddleSplitMinLength (the shorter
// side of every such power of two the planner splits; may_split_twiddles), else not at all
// (split = count). A grid as large as the transform is read whole for every transform of a
// batch: the column pass of c2c 2^24 (a 128 MB grid) moved 1.5x its data through DRAM and took
// 640 us against the row pass's 369 (Nsight Compute, H200); split, c2c 2^21-2^24 ran 7-12 %
// faster, r2c 2^22-2^24 6-11 %, c2r 4-6 %, Bluestein 1000003 7-8 %, while 2^20 (an 8 MB grid,
// held in L2) ran 0.5-2.5 % slower (bench/RESULTS.md "Four-step kernel: twiddles in two factors").
inline constexpr long long kTwiddleGridMaxEntries = 1LL << 20;
PRISM_HD constexpr int four_step_twiddle_split(long long count, long long inner_count) {
  const bool split = has_four_step_kernel(count) && count >= kTwiddleSplitMinLength &&
                     count * inner_count > kTwiddleGridMaxEntries;
  return split ? team_threads(static_cast<int>(count)) : static_cast<int>(count);
}

// Whether c2r's column pass of length n takes the real pre-processing (columns_real) instead of
// a pass of its own: where a block holds at least 8 columns (runs of 4 neighbouring columns and
// of their mirrors, 32 bytes), in 512 threads (two blocks per multiprocessor) up to columns of
// 1024, in 1024 at 2048: columns of 128 to 2048, c2r up to 2^24. While the exchange between a
// column and its mirror spilled, blocks of 1024 threads ran slower fused (c2r 2^22 1.166 ->
// 1.209 ms on the H200) and so did the columns of 1024 (c2r 2^21 1.009 -> 1.068 ms); with
// four_step_real_slot's, c2r 2^21 took 0.934 ms instead of 1.016, 2^22 0.917 instead of 1.078, 2^23
// 1.026 instead of 1.125 and 2^24 0.98-0.99 instead of 1.127 (bench/RESULTS.md "Four-step kernel:
// c2r's pre-processing in the column pass"). The decimal columns of 500 too
// (kDecimalFourStepTeams).
PRISM_HD constexpr bool has_real_columns_pass(int n) {
  if (has_decimal_four_step_kernel(n)) return true;
  if (!has_four_step_kernel(n)) return false;
  const int teams = four_step_teams(FourStepKind::columns_real, n);
  return teams >= 8;
}

// Whether the four-step kernel of length n and kind has each block first prefetch into L2 the
// input of the block a quarter of a wave later (FourStepPassDesc::prefetch_ahead), as the rows
// kernel does (rows_prefetch): the plain row passes (contiguous rows) but rows of 1024. On the
// H200 (bench/RESULTS.md "Four-step kernel: prefetching a later block's rows") c2c 2^22-2^24 took
// 2.1-4.1 % less, c2r 2^18, 2^23, 2^24 2.6-4.3 % less, rows of 1024 (c2c 2^19, 2^20, c2r 2^20,
// 2^21) 0.3-0.9 % more. Column passes read kN short runs of a block's columns: prefetched, c2c 2^24
// took 20 % more (each run alone) and c2c 2^21 16 % more (whole 128-byte lines, once); prefetching
// the real rows (r2c) gained 1.4 % at 2^16 and 2^17 and lost 0.5-1.2 % at 2^20 and 2^22.
PRISM_HD constexpr bool four_step_prefetch(int n, FourStepKind kind) {
  return (kind == FourStepKind::rows || kind == FourStepKind::rows_inverse) && n != 1024;
}

// Whether the four-step kernel's column pass of this kind reads its twiddles (pass_twiddle's table)
// marked to be evicted from L2 last (load_table_evict_last): c2c's and r2c's columns, forward and
// inverse. The table is read again by every transform of a batch; unmarked, the streaming data
// pushed part of it out of L2, and the column pass of c2c 2^20 (512x2048, an 8 MB table) read 634
// MB from DRAM for 537 MB of data, marked 545 (Nsight Compute, H200). In the benchmark
// (bench/RESULTS.md "Four-step kernel: column twiddles marked evict-last", means of two rounds on
// two machines) c2c 2^20 took 1.8-2.2 % less, 2^22 0.8-1.0 %, 2^23 2.2-2.3 %, r2c 2^24 1.4-1.6 %;
// c2c 2^19 0.7-0.8 % more; the other c2c and r2c lengths from 2^16 to 2^26 moved between -1.1 and
// +0.9 %. c2r's real columns keep plain loads: marked, c2r 2^21 took 1.9 % more and 2^20 0.9-1.0 %
// more.
PRISM_HD constexpr bool four_step_twiddles_evict_last(FourStepKind kind) {
  return kind == FourStepKind::columns || kind == FourStepKind::columns_inverse;
}

// The strides of a four-step pass (complex elements), fixed by its kind and shape: for columns
// of length n1 = n, neighbouring columns are neighbours and elements n2 apart, in and out
// (scratch); rows of length n2 = n are contiguous in scratch and stored transposed (elements n1
// apart, neighbouring rows neighbours). Compile-time constants in the kernel.
struct FourStepStrides {
  int in_inner;
  int in_elem;
  int out_inner;
  int out_elem;
};
// four_step_strides_of: the same for the other side's length `other` (n2 of the column passes,
// n1 of the row passes).
PRISM_HD constexpr FourStepStrides four_step_strides_of(FourStepKind kind, int n, int other) {
  if (four_step_columns(kind)) return FourStepStrides{1, other, 1, other};
  return FourStepStrides{n, 1, 1, other};
}
PRISM_HD constexpr FourStepStrides four_step_strides(FourStepKind kind, int n, FourStepShape shape) {
  return four_step_strides_of(kind, n, four_step_other_side(kind, n, shape));
}

// Thread `tid` of a block of `teams` transforms of `threads` threads each: its team and lane.
PRISM_HD constexpr void four_step_team_major(int tid, int teams, int& team, int& lane) {
  team = tid % teams;
  lane = tid / teams;
}
PRISM_HD constexpr void four_step_lane_major(int tid, int threads, int& team, int& lane) {
  team = tid / threads;
  lane = tid % threads;
}

// Floats between the planes of neighbouring teams: at least a team's padded plane, and
// 32 / min(teams, 32) modulo 32 so that the teams of one warp in the team-major map fall in
// distinct banks when their lanes touch neighbouring elements.
PRISM_HD constexpr int four_step_team_floats(int n, int teams) {
  const int need = smem_pad(n - 1) + 1;
  const int warp_teams = teams < 32 ? teams : 32;
  const int offset = (32 / warp_teams) % 32;
  return need + ((offset - need % 32) % 32 + 32) % 32;
}
PRISM_HD constexpr long long four_step_shared_bytes(int n, int teams) {
  return 2LL * teams * four_step_team_floats(n, teams) * static_cast<long long>(sizeof(float));
}

// Real rows (or real columns, with n1 their count): the row of team `team` in the block whose
// first team is group_first (a multiple of teams). The first half of the teams take rows
// p .. p + teams/2 - 1 (p = group_first / 2), the second half their mirrors n1 - r in
// ascending order, so that both halves store runs of neighbouring rows; the mirror of row 0 is
// row 0 itself, and its place goes to row n1/2, the other row that is its own mirror. Over the
// n1 / teams blocks, every row once.
PRISM_HD constexpr int four_step_real_row(int group_first, int team, int teams, int n1) {
  const int half = teams / 2;
  const int first_pair = group_first / 2;
  if (team < half) return first_pair + team;
  const int row = n1 - first_pair - (teams - 1 - team);
  return row == n1 ? n1 / 2 : row;
}
// The team holding the partner row (n1 - row) mod n1 of `team`'s row.
PRISM_HD constexpr int four_step_real_partner_team(int team, int row, int teams, int n1) {
  return row == 0 || 2 * row == n1 ? team : teams - 1 - team;
}
// Element k of row r holds Z[r + n1 k]; Z[h - r - n1 k] is element four_step_real_mirror(r, k,
// n2) of the partner row: n2 - 1 - k, or (n2 - k) mod n2 for row 0.
PRISM_HD constexpr int four_step_real_mirror(int row, int k, int n2) {
  return row == 0 ? (n2 - k) % n2 : n2 - 1 - k;
}
// w_{2h}^{r + n1 k} = w_{2h}^r w_{2h}^{n1 k} from the table of PassDesc::real_tw
// (r2c_post_rows); exact for row 0.
PRISM_HD Cf four_step_real_twiddle(const Cf* real_tw, int row, int k, int n1) {
  const Cf w_k = load_table(real_tw, n1 + k);
  return row == 0 ? w_k : cmul(load_table(real_tw, row), w_k);
}

// The real rows and columns exchange with their partners through shared memory unpadded (a
// warp's threads hold one element of neighbouring teams, whose planes fall in distinct banks):
// element e of line l (a row's Z, a column's X) goes to slot e + 1 of its team's plane, e for
// line 0, so that the mirror of element e is at slot n - e of the partner's for every line (its
// element n - 1 - e, or (n - e) mod n for line 0, whose slot n, asked for at e = 0, is never
// written: row 0's Z[0] pairs with itself, column 0's X[0] with X[h] from global memory). A
// thread's addresses are then its butterfly's plus constants; with the padded index and a
// per-line mirror rule c2r's real columns of 128 and 256 spilled 72-76 bytes per thread at 64
// registers (ptxas -v).
PRISM_HD constexpr int four_step_real_slot(int line, int e) { return line == 0 ? e : e + 1; }
PRISM_HD constexpr int four_step_real_mirror_slot(int n, int e) { return n - e; }

// Element offsets (complex elements) of element i of transform (outer, inner), in and out.
PRISM_HD long long four_step_in_offset(const FourStepPassDesc& d, long long outer, int inner, int i) {
  const FourStepStrides st = four_step_strides_of(d.kind, d.n, d.other_side);
  return outer * d.in_outer + inner * st.in_inner + i * st.in_elem;
}
PRISM_HD long long four_step_out_offset(const FourStepPassDesc& d, long long outer, int inner, int k) {
  const FourStepStrides st = four_step_strides_of(d.kind, d.n, d.other_side);
  return outer * d.out_outer + inner * st.out_inner + k * st.out_elem;
}

// Whether pass p is a four-step column or row pass that the four-step kernel runs (d: its
// descriptor; the tables are p's): plain complex elements, no chirp, conjugations only at the
// transform's ends, nothing dropped, the strides of four_step_strides, rows 32-byte aligned.
inline bool four_step_pass_of(const PassDesc& p, FourStepPassDesc& d, long long max_shared_bytes) {
  const int n = p.n;
  const bool real = p.real_step == RealStep::r2c_post_rows;
  const bool real_columns = p.real_step == RealStep::c2r_pre_columns;
  if (p.inner_is_batch || !(has_four_step_kernel(n) || has_decimal_four_step_kernel(n)) || p.paired ||
      p.mid_conv || p.load_chirp ||
      p.store_chirp || p.load_permuted || p.load_conj || p.store_conj ||
      (p.real_step != RealStep::none && !real && !real_columns) ||
      p.load_kind != LoadKind::complex_row || p.store_kind != StoreKind::complex_row ||
      p.load_n != n || p.store_n != n) {
    return false;
  }
  FourStepKind kind;
  if (real) {
    if (p.store_twiddle != StoreTwiddle::none || p.load_conj_raw || p.store_conj_final) return false;
    kind = FourStepKind::rows_real;
  } else if (real_columns) {
    if (p.store_twiddle != StoreTwiddle::forward || p.load_conj_raw || p.store_conj_final) return false;
    kind = FourStepKind::columns_real;
  } else if (p.store_twiddle == StoreTwiddle::forward && !p.store_conj_final) {
    kind = p.load_conj_raw ? FourStepKind::columns_inverse : FourStepKind::columns;
  } else if (p.store_twiddle == StoreTwiddle::none && !p.load_conj_raw) {
    kind = p.store_conj_final ? FourStepKind::rows_inverse : FourStepKind::rows;
  } else {
    return false;
  }
  // The column kinds' twiddles split as the kernel reads them.
  if (four_step_columns(kind) && p.pass_tw_split != four_step_twiddle_split(n, p.inner_count)) return false;
  const int teams = four_step_teams(kind, n);
  const long long inner = p.inner_count;
  if (p.per_block != teams || inner % teams != 0 || four_step_shared_bytes(n, teams) > max_shared_bytes) {
    return false;
  }
  FourStepShape shape = FourStepShape::square;
  int other_side = 0;
  bool fits = false;
  for (const FourStepShape candidate : kFourStepShapes) {
    // decimal: over the pass's own count of rows.
    const int other = candidate == FourStepShape::decimal ? static_cast<int>(inner)
                                                                : four_step_other_side(kind, n, candidate);
    const FourStepStrides st = four_step_strides_of(kind, n, other);
    if (has_four_step_shape(kind, n, candidate) && p.in.inner_dist == st.in_inner &&
        p.in.elem_stride == st.in_elem && p.out.inner_dist == st.out_inner &&
        p.out.elem_stride == st.out_elem) {
      shape = candidate;
      other_side = other;
      fits = true;
    }
  }
  // Real rows: X[h] too, from row 0 (r2c_post_rows).
  const long long stored = (inner - 1) * p.lout_inner + (n - 1LL) * p.lout_elem + (real ? 2 : 1);
  if (!fits || stored > p.n_keep) return false;
  // Transforms whose rows start on 32-byte boundaries only (multiples of four complex
  // elements). r2c's output rows (n/2 + 1 values) do not: the plain row pass, whose stores are
  // runs of 8-32 neighbouring rows, wrote 13 % more L2 sectors there than the pass kernel
  // (Nsight Compute, r2c 2^21 on the H200) and r2c ran up to 5 % slower. The real rows take
  // them anyway: they save the separate post-processing pass (and the real columns their
  // input rows of n/2 + 1 values, the pre-processing pass).
  if ((!real_columns && p.in.outer_dist % 4 != 0) || (!real && p.out.outer_dist % 4 != 0)) return false;
  d = FourStepPassDesc{};
  d.n = n;
  d.kind = kind;
  d.shape = shape;
  d.inner_count = inner;
  d.other_side = other_side;
  d.in_outer = p.in.outer_dist;
  d.out_outer = p.out.outer_dist;
  d.stage_tw = p.stage_tw;
  d.pass_tw = p.pass_tw;
  d.real_tw = p.real_tw;
  return true;
}

// ---- cluster passes --------------------------------------------------------------------------
// A transform of length n = C*M beyond one block runs in one pass on a thread-block cluster of C
// blocks (Hopper and later), each holding M elements in its shared memory, which the other
// blocks of the cluster read and write (distributed shared memory): the data cross global
// memory once instead of twice as in a four-step.
//   scatter: element j of the input goes to block j mod C, position j / C (decimation in time);
//   each block runs the M-point FFT of its sequence in place: A_r[k2] in block r;
//   combine: X[k2 + M*k1] = sum_r w_C^{r*k1} (w_n^{r*k2} A_r[k2]), for each k2 a C-point DFT
//   across the blocks, whose outputs go to the k1-th segment of M consecutive elements.
// Block r loads the r-th segment of M input elements and combines the r-th segment of M/C
// values k2, so loads and stores are contiguous. Half-length real transforms fuse their steps:
// c2r builds conj(2Z) from X[k] and X[h-k] on load; r2c writes Z back to the blocks (Z[j] in
// block j / M at position j mod M) and forms X[k] from Z[k] and Z[h-k] on store.

inline constexpr int kClusterBlockLengths[] = {8192, 16384};
inline constexpr int kClusterSizes[] = {2, 4, 8};  // portable cluster sizes

struct ClusterPassDesc {
  int cluster = 2;  // C, blocks per transform
  int m = 1;        // M, the length each block transforms
  long long n = 1;  // C*M
  long long in_dist = 0;   // complex elements between input transforms
  long long out_dist = 0;  // complex elements between output transforms
  bool conj_in = false;    // inverse transforms: conj(FFT(conj x))
  bool conj_out = false;
  // none, r2c_post (store the n+1 values of the real-input spectrum of length 2n) or c2r_pre
  // (load the n+1 values of a Hermitian spectrum of length 2n).
  RealStep real_step = RealStep::none;
  const Cf* stage_tw = nullptr;    // the M-point stages' twiddles (StageDesc)
  const Cf* cluster_tw = nullptr;  // w_n^{r*k2} at (r-1)*M + k2, for 1 <= r < C
  const Cf* real_tw = nullptr;     // w_{2n}^k, k <= n
};

// Threads of a cluster pass's blocks: kElementsPerThread elements each.
PRISM_HD constexpr int cluster_threads(int m) { return m / kElementsPerThread; }
// Floats of one shared plane of a cluster block (the padded M elements).
PRISM_HD constexpr int cluster_plane_floats(int m) { return smem_pad(m - 1) + 1; }

// Scatter: the block and position of input element j.
PRISM_HD int cluster_block_of(long long j, int cluster) { return static_cast<int>(j % cluster); }
PRISM_HD int cluster_position_of(long long j, int cluster) { return static_cast<int>(j / cluster); }

// Combine: a[r] = A_r[k2] on entry, X[k2 + M*k1] in a[k1] on return.
template <int C>
PRISM_HD void cluster_combine(const ClusterPassDesc& d, int k2, Cf* a) {
  PRISM_UNROLL
  for (int r = 1; r < C; ++r) {
    a[r] = cmul(a[r], load_table(d.cluster_tw, static_cast<long long>(r - 1) * d.m + k2));
  }
  Butterfly<C>::run(a);
}

}  // namespace prism::fft::gpu
