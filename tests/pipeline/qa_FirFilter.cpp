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
//                           highpass, bandpass, bandstop and complex band-pass taps, 3 .. 65535
//                           and 131073 taps, D 1 .. 64, shift, chunks below and above M
//   5. exact state          bit-identical outputs for chunks of 1, 2, 3, 7, 64, 1000 and more
//                           than the input, for 1, 2 and 3 threads; reset reproduces
//   6. shift                phase accurate after 2^36 and 2^40 items (exact reference phase)
//   7. taps switch          set_taps is exact: outputs after the switch are the new filter's
//                           over the same history; capacity, errors
//   8. counters, bounds, flush, errors, geometry
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/fir_geometry.hpp"

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
  std::vector<cd> x;            // input
  std::vector<cd> h;            // taps
  bool shift = false;
  std::int64_t f_half_hz = 0;   // shift and rate, both doubled (so halves are integers)
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

struct FilterRun {
  std::vector<float> out;  // every output, flush included
  FirCounters counters;
  std::size_t outputs = 0;
};

// Processes `input` (floats) in chunks whose sizes (in items) cycle through `chunks`, then
// flushes `flush_capacity` outputs at a time. Checks the max_output bound on every call.
FilterRun run_filter(FirFilter& f, const std::vector<float>& input, const std::vector<std::size_t>& chunks,
               std::size_t flush_capacity = 5) {
  const std::size_t in_c = f.complex_input() ? 2 : 1;
  const std::size_t out_c = f.complex_output() ? 2 : 1;
  const std::size_t items = input.size() / in_c;
  FilterRun run;
  std::vector<float> buffer;
  std::size_t done = 0, which = 0;
  while (done < items) {
    const std::size_t n = std::min(chunks[which++ % chunks.size()], items - done);
    const std::size_t bound = f.max_output(n);
    buffer.assign((bound + 1) * out_c, std::nanf(""));
    const std::size_t got = f.process(input.data() + done * in_c, n, buffer.data());
    EXPECT_LE(got, bound) << "max_output(" << n << ") was exceeded";
    run.out.insert(run.out.end(), buffer.begin(), buffer.begin() + got * out_c);
    done += n;
  }
  buffer.assign(flush_capacity * out_c, 0.0f);
  for (;;) {
    const std::size_t got = f.flush(buffer.data(), flush_capacity);
    if (got == 0) break;
    run.out.insert(run.out.end(), buffer.begin(), buffer.begin() + got * out_c);
  }
  run.counters = f.counters();
  run.outputs = run.out.size() / out_c;
  return run;
}

std::vector<float> to_floats(const std::vector<cd>& v, bool complex) {
  std::vector<float> f;
  f.reserve(v.size() * (complex ? 2 : 1));
  for (const cd& z : v) {
    f.push_back(static_cast<float>(z.real()));
    if (complex) f.push_back(static_cast<float>(z.imag()));
  }
  return f;
}

std::vector<cd> from_floats(const std::vector<float>& f, bool complex) {
  std::vector<cd> v;
  if (complex) {
    for (std::size_t i = 0; i + 1 < f.size(); i += 2) v.emplace_back(f[i], f[i + 1]);
  } else {
    for (float x : f) v.emplace_back(x, 0.0);
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

FirTaps taps_of(const std::vector<cd>& h, bool complex) {
  if (complex) return FirTaps::complex(h);
  std::vector<double> real(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) real[i] = h[i].real();
  return FirTaps::real(std::move(real));
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
  const FilterRun run = run_filter(f, to_floats(ref.x, c.complex_input), {c.taps / 2 + 1, 3 * c.taps + 7});
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
           {1, 100, 1, 0, false, false, false, false},   // one tap: a gain
           {1, 100, 3, 0, true, false, true, true},
           {2, 1, 1, 0, false, false, false, true},      // one input item
           {5, 0, 1, 0, true, true, false, true},        // no input at all
           {64, 10, 1, 0, false, false, false, true},    // input shorter than the filter
           {64, 10, 64, 0, true, false, false, true},
           {3, 500, 200, 0, false, false, false, false}, // D far above M
           {300, 2000, 7, 0, false, true, false, true},
           {40, 1000, 4, 45, false, false, false, true}, // N − M + 1 < D with an explicit N
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
  std::size_t items = 0;     // 0: max(20000, 3·numtaps + 1000)
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
  if (python.empty() || std::system((python + " -c 'import scipy.signal' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "python3 with scipy is not available";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("prism_qa_fir_" + std::to_string(::getpid()));
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
      spec.taps = FirTaps::complex(read_file<cd>(dir / ("taps_" + idx + ".bin")));
    } else {
      spec.taps = FirTaps::real(read_file<double>(dir / ("taps_" + idx + ".bin")));
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
      for (double v : read_file<double>(dir / ("ref_" + idx + ".bin"))) expected.emplace_back(v, 0.0);
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

TEST(FirFilter, OutputIsBitIdenticalWhateverTheCutting) {
  std::mt19937_64 rng(99);
  const std::vector<StateCase> cases = {
      {63, 1, false, false, false, false, 0},   // packed real
      {64, 8, false, false, false, true, 0},
      {127, 3, true, false, false, true, 0},
      {255, 5, false, true, true, false, 0},
      {1000, 16, true, true, false, true, 0},
      {300, 4, false, false, false, true, 64},   // partitioned, packed
      {300, 3, true, false, true, false, 128},   // partitioned, complex
      {200, 3, false, false, false, false, 512}, // time-side decimation
  };
  for (const StateCase& c : cases) {
    FirSpec spec;
    const std::vector<cd> h = noise(c.taps, c.complex_taps, rng);
    spec.taps = taps_of(h, c.complex_taps);
    spec.complex_input = c.complex_input;
    spec.sample_rate = 1e6;
    if (c.shift) spec.shift_hz = 123456.5;
    spec.decimation = c.decimation;
    spec.align = c.same ? FirAlign::same : FirAlign::causal;
    spec.fft_length = c.fft_length;
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
      EXPECT_EQ(std::memcmp(irregular.out.data(), whole.out.data(), whole.out.size() * sizeof(float)), 0);
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

}  // namespace
}  // namespace prism
