// Tests of FirFilter (pipeline/fir_filter.cpp) and its geometry (pipeline/fir_geometry.cpp).
//
//   1. a direct reference   the definition (shift with an exact phase, full convolution,
//                           causal/same offset, every D-th output) written out here in double
//                           precision, O(N·M), none of the filter's code
//   2. the harness          runs a filter over an input cut into chunks (a cycle of sizes),
//                           then flushes with a small capacity; relative L2 error
//   3. accuracy             random small configurations against the direct reference: real
//                           and complex input and taps, shift, D, both alignments, forced FFT
//                           lengths (time-side decimation, partitioned filters)
//   4. scipy                >= 30 parameter sets against scipy.signal (lfilter / oaconvolve /
//                           fftconvolve in float64) run by Debian's python3: firwin lowpass,
//                           highpass, bandpass, bandstop and complex band-pass taps, 2 .. 65535,
//                           131073 and 2^20 taps, D 1 .. 64, shift, chunks below and above M
//   5. exact state          bit-identical outputs for chunks of 1, 2, 3, 7, 64, 1000 and more
//                           than the input, for 1, 2 and 3 threads; reset reproduces
//   6. shift                phase accurate after 2^36 and 2^40 items (exact reference phase)
//   7. taps switch          set_taps is exact: outputs after the switch are the new filter's
//                           over the same history; capacity, errors
//   7b. double precision    the same filter in double: 1e-12 of the reference on input a float
//                           cannot hold, bit-identical whatever the cutting, exact switch
//   8. counters, bounds, flush, no allocation in process/flush/set_taps, errors, geometry
//   9. kernels              every vector version of the products' sums this CPU runs, and
//                           the split / join of packed real spectra
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/exact_phase.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/fir_geometry.hpp"
#include "pipeline/fir_kernels.hpp"

// Allocations through operator new, counted while `g_count_allocations` is set (from any
// thread: the filter's workers too). The replacements pair malloc with free, which GCC's
// -Wmismatched-new-delete does not see through once it inlines them into new-expressions.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
std::atomic<bool> g_count_allocations{false};
std::atomic<long> g_allocations{0};

void* operator new(std::size_t size) {
  if (g_count_allocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace prism {
namespace {

using cd = std::complex<double>;

// ---- 1. a direct reference -----------------------------------------------------------------

// exp(−j2π·frac(f·n/fs)) for the absolute index n, with the fraction of f·n/fs exact: f and
// fs are taken as the ratio of two integers (the tests use integer Hz, or halves).
cd exact_shift(std::int64_t f_half_hz, std::int64_t fs_half_hz, std::uint64_t index) {
  // frac(f·n/fs) = ((f·n) mod fs)/fs, in 128-bit integers.
  const __int128 fs = fs_half_hz;
  __int128 r = (static_cast<__int128>(f_half_hz) * static_cast<__int128>(index)) % fs;
  if (r < 0) r += fs;
  const double cycles = static_cast<double>(r) / static_cast<double>(fs);
  return std::polar(1.0, -2.0 * std::numbers::pi * cycles);
}

struct Reference {
  std::vector<cd> x;  // input
  std::vector<cd> h;  // taps
  bool shift = false;
  std::int64_t f_half_hz = 0;  // shift and rate, both doubled (so halves are integers)
  std::int64_t fs_half_hz = 1;
  std::uint64_t first_index = 0;
  std::size_t decimation = 1;
  bool same = false;
};

std::vector<cd> direct_reference(const Reference& r) {
  const std::size_t n = r.x.size(), m = r.h.size();
  std::vector<cd> xs(n);
  for (std::size_t i = 0; i < n; ++i)
    xs[i] = r.shift ? r.x[i] * exact_shift(r.f_half_hz, r.fs_half_hz, r.first_index + i) : r.x[i];
  const std::size_t c = r.same ? (m - 1) / 2 : 0;
  const std::size_t outputs = (n + r.decimation - 1) / r.decimation;
  std::vector<cd> y(outputs);
  for (std::size_t k = 0; k < outputs; ++k) {
    const std::size_t t = c + k * r.decimation;
    cd sum = 0;
    for (std::size_t j = 0; j < m; ++j)
      if (t >= j && t - j < n) sum += r.h[j] * xs[t - j];
    y[k] = sum;
  }
  return y;
}

// ---- 2. the harness --------------------------------------------------------------------------

template <typename Real>
struct FilterRunOf {
  std::vector<Real> out;  // every output, flush included
  FirCounters counters;
  std::size_t outputs = 0;
};
using FilterRun = FilterRunOf<float>;

// Processes `input` (floats, or doubles for a filter in double precision) in chunks whose sizes
// (in items) cycle through `chunks`, then flushes `flush_capacity` outputs at a time. Checks the
// max_output bound on every call.
template <typename Real>
FilterRunOf<Real> run_filter(FirFilter& f, const std::vector<Real>& input,
                             const std::vector<std::size_t>& chunks, std::size_t flush_capacity = 5) {
  const std::size_t in_c = f.complex_input() ? 2 : 1;
  const std::size_t out_c = f.complex_output() ? 2 : 1;
  const std::size_t items = input.size() / in_c;
  FilterRunOf<Real> run;
  std::vector<Real> buffer;
  std::size_t done = 0, which = 0;
  while (done < items) {
    const std::size_t n = std::min(chunks[which++ % chunks.size()], items - done);
    const std::size_t bound = f.max_output(n);
    buffer.assign((bound + 1) * out_c, std::numeric_limits<Real>::quiet_NaN());
    const std::size_t got = f.process(input.data() + done * in_c, n, buffer.data());
    EXPECT_LE(got, bound) << "max_output(" << n << ") was exceeded";
    run.out.insert(run.out.end(), buffer.begin(), buffer.begin() + got * out_c);
    done += n;
  }
  buffer.assign(flush_capacity * out_c, Real(0));
  for (;;) {
    const std::size_t got = f.flush(buffer.data(), flush_capacity);
    if (got == 0) break;
    run.out.insert(run.out.end(), buffer.begin(), buffer.begin() + got * out_c);
  }
  run.counters = f.counters();
  run.outputs = run.out.size() / out_c;
  return run;
}

template <typename Real = float>
std::vector<Real> to_floats(const std::vector<cd>& v, bool complex) {
  std::vector<Real> f;
  f.reserve(v.size() * (complex ? 2 : 1));
  for (const cd& z : v) {
    f.push_back(static_cast<Real>(z.real()));
    if (complex) f.push_back(static_cast<Real>(z.imag()));
  }
  return f;
}

template <typename Real>
std::vector<cd> from_floats(const std::vector<Real>& f, bool complex) {
  std::vector<cd> v;
  if (complex) {
    for (std::size_t i = 0; i + 1 < f.size(); i += 2) v.emplace_back(f[i], f[i + 1]);
  } else {
    for (Real x : f) v.emplace_back(x, 0.0);
  }
  return v;
}

// ‖out − ref‖ / ‖ref‖.
double relative_error(const std::vector<cd>& out, const std::vector<cd>& ref) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err += std::norm(out[i] - ref[i]);
    norm += std::norm(ref[i]);
  }
  return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

// The input rounded to float, as the filter sees it.
std::vector<cd> rounded(const std::vector<cd>& v) {
  std::vector<cd> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = cd(static_cast<float>(v[i].real()), static_cast<float>(v[i].imag()));
  return r;
}

std::vector<cd> noise(std::size_t n, bool complex, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<cd> v(n);
  for (cd& z : v) z = cd(g(rng), complex ? g(rng) : 0.0);
  return v;
}

FilterTaps taps_of(const std::vector<cd>& h, bool complex) {
  if (complex) return FilterTaps::from_complex(h);
  std::vector<double> real(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) real[i] = h[i].real();
  return FilterTaps::from_real(std::move(real));
}

// ---- 3. accuracy against the direct reference ------------------------------------------------

struct SmallCase {
  std::size_t taps, items, decimation, fft_length;
  bool complex_input, complex_taps, shift, same;
};

std::string describe(const SmallCase& c) {
  return "taps " + std::to_string(c.taps) + ", items " + std::to_string(c.items) + ", D " +
         std::to_string(c.decimation) + ", fft " + std::to_string(c.fft_length) +
         (c.complex_input ? ", complex in" : ", real in") +
         (c.complex_taps ? ", complex taps" : ", real taps") + (c.shift ? ", shift" : "") +
         (c.same ? ", same" : ", causal");
}

void check_small_case(const SmallCase& c, std::mt19937_64& rng, unsigned threads) {
  SCOPED_TRACE(describe(c));
  Reference ref;
  ref.x = rounded(noise(c.items, c.complex_input, rng));
  ref.h = noise(c.taps, c.complex_taps, rng);
  ref.shift = c.shift;
  ref.f_half_hz = -2 * 7919;   // shift −7919 Hz
  ref.fs_half_hz = 2 * 48000;  // at 48 kHz
  ref.first_index = 123456789;
  ref.decimation = c.decimation;
  ref.same = c.same;

  FirSpec spec;
  spec.taps = taps_of(ref.h, c.complex_taps);
  spec.complex_input = c.complex_input;
  spec.sample_rate = 48000;
  if (c.shift) spec.shift_hz = -7919.0;
  spec.first_index = ref.first_index;
  spec.decimation = c.decimation;
  spec.align = c.same ? FirAlign::same : FirAlign::causal;
  spec.fft_length = c.fft_length;
  spec.threads = threads;
  FirFilter f(spec);
  ASSERT_EQ(f.complex_output(), c.complex_input || c.complex_taps || c.shift);

  const std::vector<cd> expected = direct_reference(ref);
  const FilterRun run =
      run_filter(f, to_floats(ref.x, c.complex_input), {c.taps / 2 + 1, 3 * c.taps + 7});
  ASSERT_EQ(run.outputs, expected.size()) << f.describe();
  EXPECT_EQ(run.counters.items_in, c.items);
  EXPECT_EQ(run.counters.items_out, expected.size());
  const double err = relative_error(from_floats(run.out, f.complex_output()), expected);
  EXPECT_LE(err, 2e-6) << f.describe();
}

TEST(FirFilter, MatchesDirectReferenceOnRandomConfigurations) {
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int i = 0; i < 120; ++i) {
    SmallCase c;
    c.taps = 1 + rng() % 300;
    c.items = rng() % 3000;
    c.decimation = 1 + rng() % 12;
    c.complex_input = coin(rng);
    c.complex_taps = coin(rng);
    c.shift = coin(rng);
    c.same = coin(rng);
    // A third of the cases force an FFT length: some not divisible by D (time-side
    // decimation), some shorter than the filter (partitioned).
    c.fft_length = 0;
    if (i % 3 == 1) c.fft_length = c.taps + 1 + rng() % 200;
    if (i % 3 == 2) c.fft_length = std::max<std::size_t>(8, c.taps / (2 + rng() % 6) * 2);
    check_small_case(c, rng, 1 + i % 3);
  }
}

TEST(FirFilter, EdgeCases) {
  std::mt19937_64 rng(7);
  for (const SmallCase& c : std::vector<SmallCase>{
           {1, 100, 1, 0, false, false, false, false},  // one tap: a gain
           {1, 100, 3, 0, true, false, true, true},
           {2, 1, 1, 0, false, false, false, true},    // one input item
           {5, 0, 1, 0, true, true, false, true},      // no input at all
           {64, 10, 1, 0, false, false, false, true},  // input shorter than the filter
           {64, 10, 64, 0, true, false, false, true},
           {3, 500, 200, 0, false, false, false, false},  // D far above M
           {300, 2000, 7, 0, false, true, false, true},
           {40, 1000, 4, 45, false, false, false, true},   // N − M + 1 < D with an explicit N
           {100, 3000, 1, 16, false, false, false, true},  // many partitions of 8
           {100, 3000, 2, 16, true, false, true, false},
       })
    check_small_case(c, rng, 2);
}

// ---- 4. scipy ---------------------------------------------------------------------------------

struct ScipyCase {
  std::string design;  // see data/scipy_fir.py
  std::size_t numtaps;
  bool complex_input;
  std::optional<double> shift;
  std::size_t decimation;
  bool same;
  std::size_t items = 0;  // 0: max(20000, 3·numtaps + 1000)
  double fs = 48000;
  std::uint64_t first_index = 0;
  std::size_t fft_length = 0;  // 0: the cost model's
};

bool complex_design(const std::string& design) {
  return design == "complex_bandpass" || design == "random_complex";
}

std::vector<ScipyCase> scipy_cases() {
  const std::optional<double> none;
  return {
      {"lowpass", 3, false, none, 1, false},
      {"lowpass", 4, false, none, 2, true},
      {"lowpass", 31, true, none, 1, true},
      {"lowpass", 64, true, none, 3, false},
      {"highpass", 63, false, none, 1, false},
      {"highpass", 101, true, none, 4, true},
      {"bandpass", 128, false, none, 8, false},
      {"bandpass", 255, true, none, 5, true},
      {"bandstop", 257, false, none, 1, true},
      {"bandstop", 511, true, none, 2, false},
      {"complex_bandpass", 200, true, none, 1, false},
      {"complex_bandpass", 333, false, none, 6, true},
      {"lowpass", 1000, false, 1234.5, 10, false},
      {"lowpass", 1023, true, -3000.0, 16, true},
      {"lowpass", 2048, false, none, 64, false},
      {"bandpass", 4095, true, none, 32, true},
      {"lowpass", 8191, false, none, 1, false},
      {"lowpass", 8192, false, none, 8, true},
      {"highpass", 16383, true, none, 1, true},
      {"complex_bandpass", 10000, true, 2500.0, 7, false},
      {"lowpass", 32767, false, none, 1, true},
      {"lowpass", 65535, true, none, 8, false},
      {"lowpass", 65535, false, none, 1, true},
      {"bandpass", 65534, true, -100.25, 2, true},
      {"lowpass", 131073, true, none, 4, false, 500000},
      {"random", 17, false, none, 13, false},
      {"random_complex", 97, true, none, 11, true},
      {"lowpass", 5, false, none, 64, true},
      {"highpass", 4097, false, none, 9, true},
      {"bandstop", 1501, true, 12000.0, 1, true, 0, 1e6},
      {"complex_bandpass", 700, false, -2e5, 3, false, 0, 2.4e6},
      {"lowpass", 127, true, 7919.0, 5, false, 0, 48000, (std::uint64_t{1} << 36) + 12345},
      {"random", 2, false, none, 1, false},
      {"lowpass", 20001, false, none, 24, true},
      // 2^20 taps (partitioned by the cost model).
      {"lowpass", std::size_t{1} << 20, true, none, 16, true},
      // Many partitions: 65535 taps on FFTs of 4096 (32 partitions), real and complex.
      {"bandpass", 65535, false, none, 3, false, 0, 48000, 0, 4096},
      {"lowpass", 65535, true, 333.0, 1, true, 0, 48000, 0, 4096},
  };
}

std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

template <typename T>
std::vector<T> read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

TEST(FirFilter, MatchesScipy) {
  const std::string python = PRISM_TEST_PYTHON;
  if (python.empty() ||
      std::system((python + " -c 'import scipy.signal' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "python3 with scipy is not available";
  const auto dir =
      std::filesystem::temp_directory_path() / ("prism_qa_fir_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<ScipyCase> cases = scipy_cases();
  ASSERT_GE(cases.size(), 30u);
  nlohmann::json manifest = nlohmann::json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ScipyCase& c = cases[i];
    if (c.items == 0) c.items = std::max<std::size_t>(20000, 3 * c.numtaps + 1000);
    manifest.push_back({{"design", c.design},
                        {"numtaps", c.numtaps},
                        {"complex_input", c.complex_input},
                        {"shift", c.shift ? nlohmann::json(*c.shift) : nlohmann::json(nullptr)},
                        {"fs", c.fs},
                        {"first_index", c.first_index},
                        {"decimation", c.decimation},
                        {"align", c.same ? "same" : "causal"},
                        {"items", c.items},
                        {"seed", 1000 + i}});
  }
  std::ofstream((dir / "manifest.json").string()) << manifest.dump();
  const std::string script = std::string(PRISM_TEST_DATA_DIR) + "/scipy_fir.py";
  const std::string command = python + " " + shell_quote(script) + " " +
                              shell_quote((dir / "manifest.json").string()) + " " +
                              shell_quote(dir.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ScipyCase& c = cases[i];
    const bool complex_taps = complex_design(c.design);
    const std::string name = c.design + " " + std::to_string(c.numtaps) + " taps, " +
                             (c.complex_input ? "complex" : "real") + " input, D " +
                             std::to_string(c.decimation) + (c.same ? ", same" : ", causal") +
                             (c.shift ? ", shift " + std::to_string(*c.shift) : "");
    SCOPED_TRACE(name);
    const std::string idx = std::to_string(i);
    const std::vector<float> input = read_file<float>(dir / ("in_" + idx + ".bin"));
    FirSpec spec;
    if (complex_taps) {
      spec.taps = FilterTaps::from_complex(read_file<cd>(dir / ("taps_" + idx + ".bin")));
    } else {
      spec.taps = FilterTaps::from_real(read_file<double>(dir / ("taps_" + idx + ".bin")));
    }
    ASSERT_EQ(spec.taps.size(), c.numtaps);
    spec.complex_input = c.complex_input;
    spec.sample_rate = c.fs;
    spec.shift_hz = c.shift;
    spec.first_index = c.first_index;
    spec.decimation = c.decimation;
    spec.align = c.same ? FirAlign::same : FirAlign::causal;
    spec.fft_length = c.fft_length;
    const bool complex_out = c.complex_input || complex_taps || c.shift.has_value();
    std::vector<cd> expected;
    if (complex_out) {
      for (const cd& v : read_file<cd>(dir / ("ref_" + idx + ".bin"))) expected.push_back(v);
    } else {
      for (double v : read_file<double>(dir / ("ref_" + idx + ".bin")))
        expected.emplace_back(v, 0.0);
    }
    ASSERT_EQ(expected.size(), (c.items + c.decimation - 1) / c.decimation);

    FirFilter f(spec);
    ASSERT_EQ(f.complex_output(), complex_out);
    // Chunks below and above the tap count.
    for (std::size_t chunk : {c.numtaps / 3 + 1, 3 * c.numtaps + 17}) {
      f.reset();
      const FilterRun run = run_filter(f, input, {chunk}, 1000);
      ASSERT_EQ(run.outputs, expected.size()) << f.describe();
      const double err = relative_error(from_floats(run.out, complex_out), expected);
      EXPECT_LE(err, 2e-5) << f.describe() << ", chunks of " << chunk;
    }
  }
  std::filesystem::remove_all(dir);
}

// ---- 5. exact state --------------------------------------------------------------------------

struct StateCase {
  std::size_t taps;
  std::size_t decimation;
  bool complex_input, complex_taps, shift, same;
  std::size_t fft_length;
};

// A filter of random taps for a case, shifted by shift_hz at sample_rate where the case shifts.
FirSpec state_spec(const StateCase& c, std::mt19937_64& rng, double sample_rate, double shift_hz) {
  FirSpec spec;
  spec.taps = taps_of(noise(c.taps, c.complex_taps, rng), c.complex_taps);
  spec.complex_input = c.complex_input;
  spec.sample_rate = sample_rate;
  if (c.shift) spec.shift_hz = shift_hz;
  spec.decimation = c.decimation;
  spec.align = c.same ? FirAlign::same : FirAlign::causal;
  spec.fft_length = c.fft_length;
  return spec;
}

TEST(FirFilter, OutputIsBitIdenticalWhateverTheCutting) {
  std::mt19937_64 rng(99);
  const std::vector<StateCase> cases = {
      {63, 1, false, false, false, false, 0},  // packed real
      {64, 8, false, false, false, true, 0},     {127, 3, true, false, false, true, 0},
      {255, 5, false, true, true, false, 0},     {1000, 16, true, true, false, true, 0},
      {300, 4, false, false, false, true, 64},    // partitioned, packed
      {300, 3, true, false, true, false, 128},    // partitioned, complex
      {200, 3, false, false, false, false, 512},  // time-side decimation
  };
  for (const StateCase& c : cases) {
    FirSpec spec = state_spec(c, rng, 1e6, 123456.5);
    const std::size_t items = 5000;
    const std::vector<float> input = to_floats(noise(items, c.complex_input, rng), c.complex_input);

    spec.threads = 1;
    FirFilter whole_filter(spec);
    SCOPED_TRACE(whole_filter.describe());
    const FilterRun whole = run_filter(whole_filter, input, {items + 1}, 1000000);
    ASSERT_EQ(whole.outputs, (items + c.decimation - 1) / c.decimation);
    for (unsigned threads : {1u, 2u, 3u}) {
      spec.threads = threads;
      FirFilter f(spec);
      for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 1000u, 4999u, 5000u, 6000u}) {
        f.reset();
        const FilterRun run = run_filter(f, input, {chunk}, 1 + chunk % 4);
        ASSERT_EQ(run.out.size(), whole.out.size()) << "chunk " << chunk;
        EXPECT_EQ(std::memcmp(run.out.data(), whole.out.data(), run.out.size() * sizeof(float)), 0)
            << "chunk " << chunk << ", " << threads << " threads";
        EXPECT_EQ(run.counters.segments, whole.counters.segments);
      }
      // Irregular chunks, and a chunk of zero items between them.
      f.reset();
      const FilterRun irregular = run_filter(f, input, {0, 1, 500, 2, 0, 77, 1500, 3});
      ASSERT_EQ(irregular.out.size(), whole.out.size());
      EXPECT_EQ(
          std::memcmp(irregular.out.data(), whole.out.data(), whole.out.size() * sizeof(float)), 0);
    }
  }
}

TEST(FirFilter, ResetReproducesAndCountersBalance) {
  std::mt19937_64 rng(3);
  FirSpec spec;
  spec.taps = taps_of(noise(101, false, rng), false);
  spec.decimation = 4;
  spec.align = FirAlign::same;
  spec.complex_input = true;
  FirFilter f(spec);
  const std::vector<float> input = to_floats(noise(10007, true, rng), true);
  const FilterRun first = run_filter(f, input, {333});
  EXPECT_EQ(first.counters.items_in, 10007u);
  EXPECT_EQ(first.counters.items_out, (10007u + 3) / 4);
  EXPECT_EQ(first.outputs, (10007u + 3) / 4);
  EXPECT_GT(first.counters.segments, 0u);
  f.reset();
  EXPECT_EQ(f.counters().items_in, 0u);
  EXPECT_EQ(f.counters().items_out, 0u);
  EXPECT_EQ(f.counters().segments, 0u);
  const FilterRun second = run_filter(f, input, {4096});
  ASSERT_EQ(first.out.size(), second.out.size());
  EXPECT_EQ(std::memcmp(first.out.data(), second.out.data(), first.out.size() * sizeof(float)), 0);
  // A reset in the middle of a stream forgets it.
  f.reset();
  std::vector<float> scratch(f.max_output(5000) * 2);
  f.process(input.data(), 5000, scratch.data());
  f.reset();
  const FilterRun third = run_filter(f, input, {1000});
  EXPECT_EQ(std::memcmp(first.out.data(), third.out.data(), first.out.size() * sizeof(float)), 0);
}

// ---- 6. shift ----------------------------------------------------------------------------------

// One tap of 1: the output is the shifted input itself, so the phase error is all there is.
// The bound (3e-7, a few float roundings) fails a phase computed as double(n)·f/fs: its error
// grows as n·2^-53 cycles, 8e-6 rad at 2^36 and 1e-4 at 2^40.
TEST(FirFilter, ShiftPhaseIsExactFarIntoTheStream) {
  std::mt19937_64 rng(11);
  const std::vector<cd> x = rounded(noise(5000, true, rng));
  for (std::uint64_t start : {std::uint64_t{0}, (std::uint64_t{1} << 36) + 77,
                              (std::uint64_t{1} << 40) - 3, (std::uint64_t{1} << 62) + 5}) {
    for (const auto& [f_hz, fs_hz] : std::vector<std::pair<double, double>>{
             {12345.5, 48000.0}, {-0.3e6, 2.4e6}, {1e6 + 0.25, 2.4e6}, {-7.0e6, 2.4e6}}) {
      SCOPED_TRACE("start " + std::to_string(start) + ", shift " + std::to_string(f_hz) +
                   " Hz at " + std::to_string(fs_hz));
      Reference ref;
      ref.x = x;
      ref.h = {1.0};
      ref.shift = true;
      ref.f_half_hz = static_cast<std::int64_t>(std::llround(4 * f_hz));  // quarters: exact
      ref.fs_half_hz = static_cast<std::int64_t>(std::llround(4 * fs_hz));
      ref.first_index = start;
      FirSpec spec;
      spec.taps = FilterTaps::from_real({1.0});
      spec.complex_input = true;
      spec.sample_rate = fs_hz;
      spec.shift_hz = f_hz;
      spec.first_index = start;
      FirFilter f(spec);
      const FilterRun run = run_filter(f, to_floats(x, true), {1234});
      const std::vector<cd> expected = direct_reference(ref);
      EXPECT_LE(relative_error(from_floats(run.out, true), expected), 3e-7);
    }
  }
}

// ExactPhase against the same 128-bit reference, for frequencies of every kind: negative,
// above the rate, a tiny fraction of it, and a binary fraction far below one cycle per item.
TEST(ExactPhase, IsExactForAnyIndex) {
  struct Case {
    double f, fs;
    std::int64_t f_quarters, fs_quarters;
  };
  for (const Case& c : std::vector<Case>{{12345.5, 48000, 49382, 192000},
                                         {-0.3e6, 2.4e6, -1200000, 9600000},
                                         {7.25e9, 2.4e6, 29000000000, 9600000},
                                         {1.0, 3e9, 4, 12000000000},
                                         {0.25, 1.0, 1, 4}}) {
    const ExactPhase p(c.f, c.fs);
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1} << 36,
                            (std::uint64_t{1} << 53) + 1, ~std::uint64_t{0}}) {
      const __int128 fs = c.fs_quarters;
      __int128 r = static_cast<__int128>(c.f_quarters) * static_cast<__int128>(n) % fs;
      if (r < 0) r += fs;
      const double expected = static_cast<double>(r) / static_cast<double>(fs);
      EXPECT_NEAR(p.cycles(n), expected, 1e-15) << c.f << " Hz at " << c.fs << ", n = " << n;
      // The GPU's form (its division in double): within two ulps of 1.
      EXPECT_NEAR(p.terms().cycles_in_double(n), p.cycles(n), 2.3e-16) << c.f << " Hz at " << c.fs << ", n = " << n;
    }
  }
  // Far below a cycle per item: 2^-100 cycles per item, whose phase is n·2^-100.
  const ExactPhase tiny(std::ldexp(1.0, -100), 1.0);
  EXPECT_DOUBLE_EQ(tiny.cycles(std::uint64_t{1} << 60), std::ldexp(1.0, -40));
  EXPECT_DOUBLE_EQ(tiny.terms().cycles_in_double(std::uint64_t{1} << 60), std::ldexp(1.0, -40));
  // A rational kind whose denominator exceeds 2^64 (f/fs = 3·2^-70): the remainder's high word.
  const ExactPhase fine(3.0 * std::ldexp(1.0, -70), 1.0);
  for (std::uint64_t n : {std::uint64_t{12345}, ~std::uint64_t{0}})
    EXPECT_NEAR(fine.terms().cycles_in_double(n), fine.cycles(n), 4.5e-16 * fine.cycles(n)) << n;
  EXPECT_EQ(ExactPhase(0.0, 48000).cycles(12345), 0.0);
  EXPECT_THROW(ExactPhase(1.0, 0.0), std::invalid_argument);
}

// A stream resumed by a new filter whose first_index is where the first one stopped carries
// on with the same phase.
TEST(FirFilter, ShiftPhaseContinuesAcrossRuns) {
  std::mt19937_64 rng(12);
  const std::vector<float> input = to_floats(noise(4000, false, rng), false);
  FirSpec spec;
  spec.taps = FilterTaps::from_real({1.0});
  spec.sample_rate = 48000;
  spec.shift_hz = 1000.125;
  spec.first_index = 1000000;
  FirFilter whole(spec);
  const FilterRun all = run_filter(whole, input, {4000});
  spec.first_index = 1000000 + 1500;
  FirFilter second(spec);
  const FilterRun tail =
      run_filter(second, std::vector<float>(input.begin() + 1500, input.end()), {999});
  ASSERT_EQ(tail.out.size(), all.out.size() - 2 * 1500);
  EXPECT_LE(relative_error(
                from_floats(tail.out, true),
                from_floats(std::vector<float>(all.out.begin() + 2 * 1500, all.out.end()), true)),
            3e-7);
}

// ---- 7. taps switch ----------------------------------------------------------------------------

struct SwitchCase {
  std::size_t taps_before, taps_after, capacity, decimation;
  bool complex_input, complex_taps, shift, same;
  std::size_t fft_length;
};

// Outputs returned before set_taps are the old filter's, all later ones the new filter's over
// the whole input: the switch is exact, with nothing lost of the history.
TEST(FirFilter, SetTapsSwitchesExactlyAtACallBoundary) {
  std::mt19937_64 rng(13);
  for (const SwitchCase& c : std::vector<SwitchCase>{
           {63, 63, 0, 1, false, false, false, false, 0},       // same length, packed real
           {101, 31, 101, 1, false, false, false, true, 0},     // shorter, same alignment
           {40, 120, 120, 3, true, false, false, true, 0},      // longer, within the capacity
           {200, 150, 0, 4, true, true, true, false, 0},        // complex, shifted
           {301, 64, 301, 2, false, true, false, true, 0},      // real input, complex taps
           {500, 333, 500, 5, false, false, false, true, 128},  // partitioned, packed
           {500, 500, 0, 1, true, false, true, false, 256},     // partitioned, complex
       }) {
    SCOPED_TRACE("taps " + std::to_string(c.taps_before) + " -> " + std::to_string(c.taps_after) +
                 ", D " + std::to_string(c.decimation) + (c.same ? ", same" : ", causal"));
    Reference before, after;
    before.x = rounded(noise(6000, c.complex_input, rng));
    before.h = noise(c.taps_before, c.complex_taps, rng);
    before.shift = c.shift;
    before.f_half_hz = 2 * 3001;
    before.fs_half_hz = 2 * 44100;
    before.decimation = c.decimation;
    before.same = c.same;
    after = before;
    after.h = noise(c.taps_after, c.complex_taps, rng);
    const std::vector<cd> old_outputs = direct_reference(before);
    const std::vector<cd> new_outputs = direct_reference(after);

    FirSpec spec;
    spec.taps = taps_of(before.h, c.complex_taps);
    spec.complex_input = c.complex_input;
    spec.sample_rate = 44100;
    if (c.shift) spec.shift_hz = 3001.0;
    spec.decimation = c.decimation;
    spec.align = c.same ? FirAlign::same : FirAlign::causal;
    spec.max_taps = c.capacity;
    spec.fft_length = c.fft_length;
    FirFilter f(spec);
    const std::vector<float> input = to_floats(before.x, c.complex_input);
    const std::size_t in_c = c.complex_input ? 2 : 1, out_c = f.complex_output() ? 2 : 1;
    std::vector<float> out(f.max_output(6000) * out_c + 4000 * out_c);
    for (std::size_t switch_at : {1u, 2500u, 3999u}) {
      f.set_taps(taps_of(before.h, c.complex_taps));
      f.reset();
      std::size_t written = f.process(input.data(), switch_at, out.data());
      const std::size_t switched = written;
      f.set_taps(taps_of(after.h, c.complex_taps));
      for (std::size_t done = switch_at; done < 6000; done += 700) {
        const std::size_t n = std::min<std::size_t>(700, 6000 - done);
        written += f.process(input.data() + done * in_c, n, out.data() + written * out_c);
      }
      while (std::size_t got = f.flush(out.data() + written * out_c, 64)) written += got;
      ASSERT_EQ(written, old_outputs.size());
      const std::vector<cd> got = from_floats(
          std::vector<float>(out.begin(), out.begin() + written * out_c), f.complex_output());
      const std::vector<cd> got_before(got.begin(), got.begin() + switched);
      const std::vector<cd> got_after(got.begin() + switched, got.end());
      EXPECT_LE(relative_error(got_before, std::vector<cd>(old_outputs.begin(),
                                                           old_outputs.begin() + switched)),
                2e-6)
          << "switch after item " << switch_at << " (" << switched << " outputs)";
      EXPECT_LE(relative_error(got_after,
                               std::vector<cd>(new_outputs.begin() + switched, new_outputs.end())),
                2e-6)
          << "switch after item " << switch_at << " (" << switched << " outputs)";
    }
  }
}

TEST(FirFilter, SetTapsRejectsWhatTheFilterCannotTake) {
  FirSpec spec;
  spec.taps = FilterTaps::from_real(std::vector<double>(50, 0.02));
  spec.max_taps = 60;
  FirFilter f(spec);
  EXPECT_THROW(f.set_taps(FilterTaps::from_real(std::vector<double>(61, 0.1))), UsageError);
  EXPECT_THROW(f.set_taps(FilterTaps::from_real({})), UsageError);
  EXPECT_THROW(f.set_taps(FilterTaps::from_complex({cd(1, 1)})), UsageError);  // real output
  EXPECT_THROW(f.set_taps(FilterTaps::from_real({1.0, std::nan("")})), UsageError);
  EXPECT_NO_THROW(f.set_taps(FilterTaps::from_real(std::vector<double>(60, 0.1))));
  spec.shift_hz = 0.0;  // a shift (even of 0 Hz) makes the output complex
  FirFilter g(spec);
  EXPECT_TRUE(g.complex_output());
  EXPECT_NO_THROW(g.set_taps(FilterTaps::from_complex({cd(1, 1)})));
}

// ---- 7b. double precision ---------------------------------------------------------------------

// The same filter in double (FirSpec::double_precision) on random configurations of every path
// (packed real, complex, shift, folded and time-side decimation, partitioned), on input a float
// cannot hold (unrounded noise): within 1e-12 of the direct reference, where anything rounded
// through float would be about 1e-7 off.
TEST(FirFilterDouble, MatchesDirectReferenceOnRandomConfigurations) {
  std::mt19937_64 rng(20261207);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int i = 0; i < 60; ++i) {
    const std::size_t taps = 1 + rng() % 300, items = rng() % 3000, decimation = 1 + rng() % 12;
    const bool complex_input = coin(rng), complex_taps = coin(rng), shift = coin(rng), same = coin(rng);
    std::size_t fft_length = 0;
    if (i % 3 == 1) fft_length = taps + 1 + rng() % 200;
    if (i % 3 == 2) fft_length = std::max<std::size_t>(8, taps / (2 + rng() % 6) * 2);
    Reference ref;
    ref.x = noise(items, complex_input, rng);
    ref.h = noise(taps, complex_taps, rng);
    ref.shift = shift;
    ref.f_half_hz = -2 * 7919;
    ref.fs_half_hz = 2 * 48000;
    ref.first_index = 123456789;
    ref.decimation = decimation;
    ref.same = same;
    FirSpec spec;
    spec.taps = taps_of(ref.h, complex_taps);
    spec.complex_input = complex_input;
    spec.sample_rate = 48000;
    if (shift) spec.shift_hz = -7919.0;
    spec.first_index = ref.first_index;
    spec.decimation = decimation;
    spec.align = same ? FirAlign::same : FirAlign::causal;
    spec.fft_length = fft_length;
    spec.threads = 1 + i % 3;
    spec.double_precision = true;
    FirFilter f(spec);
    SCOPED_TRACE(f.describe());
    ASSERT_TRUE(f.double_precision());
    EXPECT_NE(f.describe().find("double precision"), std::string::npos);
    const std::vector<cd> expected = direct_reference(ref);
    const FilterRunOf<double> run =
        run_filter(f, to_floats<double>(ref.x, complex_input), {taps / 2 + 1, 3 * taps + 7});
    ASSERT_EQ(run.outputs, expected.size());
    EXPECT_EQ(run.counters.items_out, expected.size());
    EXPECT_LE(relative_error(from_floats(run.out, f.complex_output()), expected), 1e-12);
  }
}

// Exact state in double too: the bits depend neither on the cutting nor on the threads, and a
// taps switch at a call boundary is the new filter's over the same history.
TEST(FirFilterDouble, OutputIsBitIdenticalWhateverTheCuttingAndSwitchesExactly) {
  std::mt19937_64 rng(100);
  for (const StateCase& c : std::vector<StateCase>{{63, 1, false, false, false, false, 0},
                                                   {255, 5, false, true, true, false, 0},
                                                   {300, 4, false, false, false, true, 64},
                                                   {300, 3, true, false, true, false, 128}}) {
    FirSpec spec = state_spec(c, rng, 1e6, 123456.5);
    spec.double_precision = true;
    const std::size_t items = 5000;
    const std::vector<double> input = to_floats<double>(noise(items, c.complex_input, rng), c.complex_input);
    spec.threads = 1;
    FirFilter whole_filter(spec);
    SCOPED_TRACE(whole_filter.describe());
    const FilterRunOf<double> whole = run_filter(whole_filter, input, {items + 1}, 1000000);
    for (unsigned threads : {1u, 3u}) {
      spec.threads = threads;
      FirFilter f(spec);
      for (std::size_t chunk : {1u, 7u, 1000u, 6000u}) {
        f.reset();
        const FilterRunOf<double> run = run_filter(f, input, {chunk}, 1 + chunk % 4);
        ASSERT_EQ(run.out.size(), whole.out.size());
        EXPECT_EQ(std::memcmp(run.out.data(), whole.out.data(), run.out.size() * sizeof(double)), 0)
            << "chunk " << chunk << ", " << threads << " threads";
      }
    }
  }
  // The switch: outputs after it equal a filter built with the new taps, over the same input.
  FirSpec spec;
  spec.taps = taps_of(noise(101, false, rng), false);
  spec.max_taps = 150;
  spec.complex_input = true;
  spec.double_precision = true;
  const FilterTaps after = taps_of(noise(150, false, rng), false);
  const std::vector<double> input = to_floats<double>(noise(4000, true, rng), true);
  FirFilter f(spec);
  std::vector<double> out(2 * f.max_output(4000) + 64);
  const std::size_t before = f.process(input.data(), 2000, out.data());
  ASSERT_GT(before, 0u);
  f.set_taps(after);
  std::size_t total = before + f.process(input.data() + 2 * 2000, 2000, out.data() + 2 * before);
  while (std::size_t got = f.flush(out.data() + 2 * total, 16)) total += got;
  FirSpec fresh = spec;
  fresh.taps = after;
  FirFilter g(fresh);
  const FilterRunOf<double> reference = run_filter(g, input, {4000});
  ASSERT_EQ(total, reference.outputs);
  const std::vector<cd> got = from_floats(out, true), want = from_floats(reference.out, true);
  const std::vector<cd> switched(got.begin() + before, got.begin() + total);
  const std::vector<cd> expected(want.begin() + before, want.end());
  EXPECT_LE(relative_error(switched, expected), 1e-13);
}

TEST(FirFilterDouble, CallsOnTheOtherPrecisionAreRefused) {
  FirSpec spec;
  spec.taps = FilterTaps::from_real({0.5, 0.5});
  spec.double_precision = true;
  FirFilter wide(spec);
  std::vector<float> f(16);
  std::vector<double> d(16);
  EXPECT_THROW(wide.process(f.data(), 4, f.data()), std::logic_error);
  EXPECT_THROW(wide.flush(f.data(), 4), std::logic_error);
  EXPECT_NO_THROW(wide.process(d.data(), 4, d.data()));
  spec.double_precision = false;
  FirFilter single(spec);
  EXPECT_FALSE(single.double_precision());
  EXPECT_THROW(single.process(d.data(), 4, d.data()), std::logic_error);
  EXPECT_THROW(single.flush(d.data(), 4), std::logic_error);
}

// The double kernels against a reference: the sums of products and the packed pair's split and join.
TEST(FirKernels, DoubleKernelsMatchAReference) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> g;
  const std::size_t bins = 37, terms = 5, stride = 2 * bins + 6;
  std::vector<std::vector<double>> x(terms, std::vector<double>(2 * bins));
  std::vector<double> h(terms * stride);
  for (auto& v : x)
    for (double& e : v) e = g(rng);
  for (double& e : h) e = g(rng);
  std::vector<const double*> xs;
  for (auto& v : x) xs.push_back(v.data());
  std::vector<double> out(2 * bins, std::nan(""));
  fir::selected_sum_products64()(xs.data(), h.data(), stride, terms, out.data(), bins);
  for (std::size_t b = 0; b < bins; ++b) {
    cd sum = 0;
    for (std::size_t k = 0; k < terms; ++k)
      sum += cd(x[k][2 * b], x[k][2 * b + 1]) * cd(h[k * stride + 2 * b], h[k * stride + 2 * b + 1]);
    EXPECT_NEAR(out[2 * b], sum.real(), 1e-13);
    EXPECT_NEAR(out[2 * b + 1], sum.imag(), 1e-13);
  }
  const std::size_t n = 16;
  std::vector<double> z(2 * n), a(n + 2), b2(n + 2), w(2 * n);
  for (double& e : z) e = g(rng);
  fir::split_real_pair(z.data(), a.data(), b2.data(), n);
  // Z is any spectrum here; the join of the split gives back twice its Hermitian parts' sum.
  fir::join_real_pair(a.data(), b2.data(), w.data(), n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t m = (n - k) % n;
    const cd zk(z[2 * k], z[2 * k + 1]), zm(z[2 * m], z[2 * m + 1]);
    const cd a_k = zk + std::conj(zm), b_k = cd(0, -1) * (zk - std::conj(zm));
    EXPECT_NEAR(w[2 * k], (a_k + cd(0, 1) * b_k).real(), 1e-13);
    EXPECT_NEAR(w[2 * k + 1], (a_k + cd(0, 1) * b_k).imag(), 1e-13);
  }
  std::vector<double> folded(2 * 4);
  fir::fold_add(z.data(), folded.data(), 4, 4);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR(folded[i], z[i] + z[8 + i] + z[16 + i] + z[24 + i], 1e-13);
}

// ---- 8. counters, bounds, flush, errors, geometry
// ------------------------------------------------

TEST(FirFilter, FlushOwesTheTailAndThenNothing) {
  std::mt19937_64 rng(14);
  FirSpec spec;
  spec.taps = taps_of(noise(257, false, rng), false);
  spec.align = FirAlign::same;
  FirFilter f(spec);
  const std::vector<float> input = to_floats(noise(1000, false, rng), false);
  std::vector<float> out(f.max_output(1000) + 1000);
  const std::size_t early = f.process(input.data(), 1000, out.data());
  EXPECT_LE(early, 1000u - 128u);  // same: the last (M−1)//2 outputs need the zeros after the input
  std::size_t tail = 0;
  while (std::size_t got = f.flush(out.data() + early + tail, 1)) tail += got;
  EXPECT_EQ(early + tail, 1000u);
  EXPECT_EQ(f.flush(out.data(), 10), 0u);
  EXPECT_EQ(f.counters().items_out, 1000u);
  EXPECT_THROW(f.process(input.data(), 10, out.data()), std::logic_error);
  f.reset();
  EXPECT_EQ(f.process(input.data(), 0, out.data()), 0u);
  EXPECT_EQ(f.flush(out.data(), 10), 0u);  // no input: no output
}

// process(), flush() and set_taps() allocate nothing, on the calling thread or the workers.
TEST(FirFilter, ProcessFlushAndSetTapsDoNotAllocate) {
  std::mt19937_64 rng(15);
  for (const StateCase& c : std::vector<StateCase>{{63, 1, false, false, false, false, 0},
                                                   {255, 4, true, true, true, true, 0},
                                                   {300, 3, false, false, false, true, 64},
                                                   {300, 2, true, false, true, false, 128}}) {
    FirSpec spec = state_spec(c, rng, 1.0, 1000.0);
    spec.threads = 2;
    FirFilter f(spec);
    const FilterTaps other = taps_of(noise(c.taps, c.complex_taps, rng), c.complex_taps);
    const std::vector<float> input = to_floats(noise(20000, c.complex_input, rng), c.complex_input);
    std::vector<float> out(2 * f.max_output(20000) + 64);
    const std::size_t in_c = c.complex_input ? 2 : 1;
    g_allocations = 0;
    g_count_allocations = true;
    std::size_t written = f.process(input.data(), 7, out.data());
    written += f.process(input.data() + 7 * in_c, 9000, out.data());
    f.set_taps(other);
    written += f.process(input.data() + 9007 * in_c, 10993, out.data());
    while (f.flush(out.data(), 32) != 0) {
    }
    g_count_allocations = false;
    EXPECT_EQ(g_allocations.load(), 0) << f.describe();
    EXPECT_GT(written, 0u);
  }
}

TEST(FirFilter, MaxOutputIsAnExactBound) {
  for (std::size_t d : {1u, 3u, 8u}) {
    FirSpec spec;
    spec.taps = FilterTaps::from_real(std::vector<double>(31, 0.03));
    spec.decimation = d;
    FirFilter f(spec);
    const std::size_t unit = 2 * f.geometry().hop;  // real input and taps: two segments per FFT
    std::vector<float> input(10 * unit, 0.25f), out(10 * unit);
    // The most a call returns: U − 1 items were waiting, and the call completes as many
    // transforms as it can. max_output never exceeded is checked by every run_filter call.
    for (std::size_t n : {unit, unit + 1, 3 * unit - 5}) {
      f.reset();
      f.process(input.data(), unit - 1, out.data());
      const std::size_t got = f.process(input.data(), n, out.data());
      EXPECT_EQ(got, f.max_output(n)) << "D " << d << ", " << n << " items";
    }
  }
}

TEST(FirFilter, RejectsBadSpecsNamingTheSetting) {
  auto message = [](const FirSpec& spec) -> std::string {
    try {
      FirFilter f(spec);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  FirSpec good;
  good.taps = FilterTaps::from_real({0.5, 0.5});
  FirSpec s = good;
  s.taps = FilterTaps::from_real({});
  EXPECT_NE(message(s).find("taps"), std::string::npos);
  s = good;
  s.taps = FilterTaps::from_complex({cd(1, std::numeric_limits<double>::infinity())});
  EXPECT_NE(message(s).find("tap 0"), std::string::npos);
  s = good;
  s.decimation = 0;
  EXPECT_NE(message(s).find("decimate"), std::string::npos);
  s = good;
  s.sample_rate = 0;
  EXPECT_NE(message(s).find("sample_rate"), std::string::npos);
  s = good;
  s.sample_rate = std::nan("");
  EXPECT_NE(message(s).find("sample_rate"), std::string::npos);
  s = good;
  s.shift_hz = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(s).find("shift"), std::string::npos);
  s = good;
  s.max_taps = 1;
  EXPECT_NE(message(s).find("max_taps"), std::string::npos);
  s = good;
  s.fft_length = 1;
  EXPECT_NE(message(s).find("fft_length"), std::string::npos);
  s = good;
  s.fft_length = kMaxFftLength + 1;
  EXPECT_NE(message(s).find("fft_length"), std::string::npos);
  s = good;
  s.taps = FilterTaps::from_real(std::vector<double>(100, 0.01));
  s.fft_length = 3;  // odd: cannot hold 100 real taps, whole or partitioned
  EXPECT_NE(message(s).find("fft_length=3"), std::string::npos);
  s = good;
  s.decimation = kMaxDecimation + 1;
  EXPECT_NE(message(s).find("decimate="), std::string::npos);
  s = good;
  s.max_taps = kMaxTaps + 1;
  EXPECT_NE(message(s).find("taps"), std::string::npos);
  s = good;
  s.threads = kMaxThreads + 1;
  EXPECT_NE(message(s).find("threads="), std::string::npos);
  EXPECT_EQ(message(good), "");
}

TEST(FirGeometry, FoldsWhenTheDecimationDividesAndPartitionsLongFilters) {
  for (std::size_t m : {3u, 63u, 1023u, 8191u, 65535u, 65536u, 1u << 20})
    for (std::size_t d : {1u, 2u, 8u, 13u, 64u})
      for (bool packed : {false, true}) {
        FirGeometryRequest r;
        r.taps = m;
        r.decimation = d;
        r.packed_real = packed;
        const FirGeometry g = choose_fir_geometry(r);
        SCOPED_TRACE(std::to_string(m) + " taps, D " + std::to_string(d) + ": " + g.describe());
        // Moderate D fold; a large D (13, 64) may be cheaper on the time side for a tiny filter.
        if (d <= 8) {
          EXPECT_TRUE(g.fold);
        }
        if (g.fold) {
          EXPECT_EQ(g.fft_length % d, 0u);
          EXPECT_EQ(g.hop % d, 0u);
          EXPECT_EQ(g.inverse_length * d, g.fft_length);
        }
        EXPECT_GE(g.fft_length, g.hop + g.partition_taps - 1);
        EXPECT_EQ(g.partitions, (m + g.partition_taps - 1) / g.partition_taps);
        EXPECT_LE(g.fft_length, kMaxAutoFftLength);
        if (g.partitions > 1) {
          EXPECT_EQ(g.partition_taps, g.hop);
        }
        if (m >= kPartitionedFromTaps) {
          EXPECT_GT(g.partitions, 1u);
        }
      }
  // An explicit length not divisible by D decimates on the time side.
  FirGeometryRequest r;
  r.taps = 100;
  r.decimation = 3;
  r.fft_length = 512;
  const FirGeometry g = choose_fir_geometry(r);
  EXPECT_FALSE(g.fold);
  EXPECT_EQ(g.hop, 413u);
}

// The cost per item never falls as the tap count grows, and grows in small steps (the largest,
// under 10 %, where a partitioned filter needs one partition more): no sawtooth. GNU Radio's rule N
// = 2·nextpow2(M) (hop N − M + 1), costed by the same model, is a sawtooth: its cost climbs by
// ~1.5x as M nears a power of two, then drops when M passes it.
TEST(FirGeometry, CostGrowsSmoothlyWithTheTapCount) {
  for (std::size_t d : {1u, 8u})
    for (bool packed : {false, true}) {
      double previous = 0;
      for (std::size_t m = 16; m <= 40000; m += 1 + m / 200) {
        FirGeometryRequest r;
        r.taps = m;
        r.decimation = d;
        r.packed_real = packed;
        const double cost = choose_fir_geometry(r).cost_per_item;
        if (previous > 0) {
          EXPECT_LE(cost, previous * 1.10) << m << " taps, D " << d;
          EXPECT_GE(cost, previous) << m << " taps, D " << d;
        }
        previous = cost;
      }
    }
  auto gnuradio_cost = [](std::size_t m) {
    std::size_t n = 1;
    while (n < m) n *= 2;
    FirGeometryRequest r;
    r.taps = m;
    r.fft_length = 2 * n;
    return choose_fir_geometry(r).cost_per_item;
  };
  EXPECT_GT(gnuradio_cost(256) / gnuradio_cost(129), 1.3);
  EXPECT_LT(gnuradio_cost(257) / gnuradio_cost(256), 0.8);
}

// ---- kernels ---------------------------------------------------------------------------------

// Every version of sum_products this CPU runs gives the sums of products to float rounding,
// for tile-sized and ragged bin counts and any number of terms.
TEST(FirKernels, SumProductsVariantsMatchAReference) {
  std::mt19937_64 rng(21);
  std::normal_distribution<float> g(0.0f, 1.0f);
  const std::vector<fir::SumProductsVariant> variants = fir::sum_products_variants();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(fir::selected_sum_products(), variants.front().function);
  for (std::size_t bins : {1u, 15u, 16u, 17u, 64u, 250u})
    for (std::size_t terms : {1u, 2u, 7u, 40u}) {
      const std::size_t stride = 2 * bins + 6;
      std::vector<float> x(terms * stride), h(terms * stride);
      for (float& v : x) v = g(rng);
      for (float& v : h) v = g(rng);
      std::vector<const float*> pointers(terms);
      for (std::size_t k = 0; k < terms; ++k) pointers[k] = x.data() + (terms - 1 - k) * stride;
      std::vector<cd> expected(bins);
      double norm = 0;
      for (std::size_t b = 0; b < bins; ++b) {
        for (std::size_t k = 0; k < terms; ++k)
          expected[b] += cd(pointers[k][2 * b], pointers[k][2 * b + 1]) *
                         cd(h[k * stride + 2 * b], h[k * stride + 2 * b + 1]);
        norm += std::norm(expected[b]);
      }
      for (const fir::SumProductsVariant& v : variants) {
        std::vector<float> out(2 * bins, std::nanf(""));
        v.function(pointers.data(), h.data(), stride, terms, out.data(), bins);
        double err = 0;
        for (std::size_t b = 0; b < bins; ++b)
          err += std::norm(cd(out[2 * b], out[2 * b + 1]) - expected[b]);
        EXPECT_LE(std::sqrt(err / norm), 1e-6)
            << v.name << ", " << bins << " bins, " << terms << " terms";
      }
    }
}

// The split and join of two real signals' spectra packed in one complex FFT are inverses.
TEST(FirKernels, SplitAndJoinRealPairs) {
  std::mt19937_64 rng(22);
  const std::size_t n = 24;
  std::vector<double> a(n), b(n);
  std::normal_distribution<double> g;
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = g(rng);
    b[i] = g(rng);
  }
  auto dft = [&](auto value) {
    std::vector<cd> spectrum(n);
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i)
        spectrum[k] +=
            value(i) * std::polar(1.0, -2 * std::numbers::pi * double(i * k) / double(n));
    return spectrum;
  };
  const std::vector<cd> z = dft([&](std::size_t i) { return cd(a[i], b[i]); });
  const std::vector<cd> fa = dft([&](std::size_t i) { return cd(a[i], 0); });
  const std::vector<cd> fb = dft([&](std::size_t i) { return cd(b[i], 0); });
  const std::vector<float> zf = to_floats(z, true);
  std::vector<float> sa(n + 2), sb(n + 2), w(2 * n);
  fir::split_real_pair(zf.data(), sa.data(), sb.data(), n);
  for (std::size_t k = 0; k <= n / 2; ++k) {
    EXPECT_NEAR(sa[2 * k], 2 * fa[k].real(), 1e-4);
    EXPECT_NEAR(sa[2 * k + 1], 2 * fa[k].imag(), 1e-4);
    EXPECT_NEAR(sb[2 * k], 2 * fb[k].real(), 1e-4);
    EXPECT_NEAR(sb[2 * k + 1], 2 * fb[k].imag(), 1e-4);
  }
  fir::join_real_pair(sa.data(), sb.data(), w.data(), n);
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_NEAR(w[2 * k], 2 * z[k].real(), 1e-4);
    EXPECT_NEAR(w[2 * k + 1], 2 * z[k].imag(), 1e-4);
  }
}

}  // namespace
}  // namespace prism
