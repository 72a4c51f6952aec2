// GPU accuracy tests of our CUDA FFT beside cuFFT: fresh random input in [-0.5, 0.5), output
// poisoned with NaN before each run, relative L2 error against FFTW in double precision. Sweeps
// every length 2..4096 and 200 random lengths up to 10^6 (plus the powers of two to 2^24, the
// benchmark's odd lengths and every length with a compiled kernel), c2c forward / inverse, r2c,
// c2r, and prints the worst error per
// class beside cuFFT's on the same input. Exits with 77 (ctest SKIP) when no device is usable.
// PRISM_FFT_QUICK=1 shortens the sweeps (lengths 2..64 and every power of two, 20 random
// lengths) for quick checks during kernel work. PRISM_FFT_PRIME_STAGES=0 runs them with
// PlannerOptions::prime_stages = 0: Bluestein for the lengths with a prime factor 37 to 127;
// PRISM_FFT_FULL_LENGTH_C2R=1 with PlannerOptions::full_length_c2r = 1: every c2r that one pass
// can take through the complex FFT of the full length (-1: none). PRISM_FFT_SWEEP_RANGE=A-B
// takes only the lengths A..B of the sweep 2..4096 (a re-sweep of the lengths a change moved).
#include <cuda_runtime.h>
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "tests/fft/cuda/fft_reference.hpp"
#include "tests/fft/cuda/nd_fftw_reference.hpp"
#include "tests/fft/nd_reference.hpp"
#include "tests/fft/cuda/gpu_test_main.hpp"

namespace prism::fft {
namespace {

constexpr double kCorrectness = 1e-6;  // anything above is a wrong result, not rounding

bool quick_mode() {
  const char* value = std::getenv("PRISM_FFT_QUICK");
  return value && *value && *value != '0';
}

// The lengths of AllLengthsUpTo4096: 2..4096, or PRISM_FFT_SWEEP_RANGE=A-B within it.
bool sweep_range(std::size_t& first, std::size_t& last) {
  first = 2;
  last = 4096;
  const char* value = std::getenv("PRISM_FFT_SWEEP_RANGE");
  if (!value || !*value) return true;
  unsigned long a = 0;
  unsigned long b = 0;
  char tail = 0;
  if (std::sscanf(value, "%lu-%lu%c", &a, &b, &tail) != 2 || a < 2 || b > 4096 || a > b) {
    std::fprintf(stderr, "PRISM_FFT_SWEEP_RANGE='%s': expected A-B with 2 <= A <= B <= 4096\n", value);
    return false;
  }
  first = a;
  last = b;
  return true;
}

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

gpu::PlannerOptions sweep_options() {
  gpu::PlannerOptions options;
  const char* value = std::getenv("PRISM_FFT_PRIME_STAGES");
  if (value && *value) options.prime_stages = std::atoi(value);
  const char* full_length = std::getenv("PRISM_FFT_FULL_LENGTH_C2R");
  if (full_length && *full_length) options.full_length_c2r = std::atoi(full_length);
  return options;
}

std::string length_class(std::size_t n) {
  const bool pow2 = (n & (n - 1)) == 0;
  if (pow2 && n <= 65536) return "pow2 <= 2^16";
  if (pow2) return "pow2 2^17..2^26";
  if (!gpu::is_direct_length(static_cast<long long>(n), sweep_options())) return "bluestein";
  int radices[gpu::kMaxStages];
  const int count = gpu::factorize(static_cast<long long>(n), radices, gpu::kMaxStages);
  if (std::any_of(radices, radices + count, gpu::is_prime_stage_radix)) return "primes 37..127";
  if (std::any_of(radices, radices + count, gpu::is_large_prime_radix)) return "primes 17..31";
  return "smooth (2,3,5,7,11,13)";
}

struct ClassResult {
  int sizes = 0;
  double ours = 0.0;
  double cufft = 0.0;
  std::size_t ours_worst_n = 0;
  int above_cufft = 0;  // sizes where ours > 1.1 * cuFFT
  std::string above_list;  // those sizes: "n (ours / cuFFT)", for the summary
};
std::map<std::string, ClassResult>& results() {
  static std::map<std::string, ClassResult> table;
  return table;
}

struct DeviceBuffers {
  float* in = nullptr;
  float* out = nullptr;
  std::size_t in_bytes = 0;
  std::size_t out_bytes = 0;
  ~DeviceBuffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

// Runs `plan` on the input (already on the device), returns the output rows on the host.
std::vector<float> run_on_device(Plan& plan, const std::vector<float>& input, DeviceBuffers& buf,
                                 cudaStream_t stream) {
  const PlanSpec& spec = plan.spec();
  EXPECT_EQ(cudaMemcpy(buf.in, input.data(), buf.in_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  float* out = spec.in_place ? buf.in : buf.out;
  if (!spec.in_place) {
    EXPECT_EQ(cudaMemset(buf.out, 0xFF, buf.out_bytes), cudaSuccess);  // NaN
  }
  plan.execute(buf.in, out, stream);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> result(spec.in_place ? buf.in_bytes / sizeof(float) : buf.out_bytes / sizeof(float));
  EXPECT_EQ(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return result;
}

// Relative errors of the whole batch taken as one vector (the figure compared: a short row's own
// error is a noisy estimate of it), and the worst row's (the correctness bound: one wrong row
// must not hide in a long batch).
struct Errors {
  double ours = 0.0;
  double cufft = 0.0;
  double ours_worst_row = 0.0;
  double cufft_worst_row = 0.0;
};

Errors measure(const PlanSpec& spec, std::mt19937_64& rng, Backend& ours_backend,
               Backend& cufft_backend, cudaStream_t stream) {
  const long long in_floats = test::input_row_floats(spec);
  const long long out_floats = test::output_row_floats(spec);
  const std::vector<float> input = test::make_input(spec, in_floats, spec.batch, rng);
  DeviceBuffers buf;
  buf.in_bytes = static_cast<std::size_t>(in_floats) * spec.batch * sizeof(float);
  buf.out_bytes = static_cast<std::size_t>(out_floats) * spec.batch * sizeof(float);
  EXPECT_EQ(cudaMalloc(&buf.in, buf.in_bytes), cudaSuccess);
  if (!spec.in_place) {
    EXPECT_EQ(cudaMalloc(&buf.out, buf.out_bytes), cudaSuccess);
  }

  auto ours_plan = ours_backend.plan(spec);
  const std::vector<float> ours = run_on_device(*ours_plan, input, buf, stream);
  ours_plan.reset();
  auto cufft_plan = cufft_backend.plan(spec);
  const std::vector<float> theirs = run_on_device(*cufft_plan, input, buf, stream);
  cufft_plan.reset();

  Errors e;
  test::ErrorSum ours_all;
  test::ErrorSum cufft_all;
  const std::size_t row_out = static_cast<std::size_t>(out_floats);
  for (std::size_t row = 0; row < spec.batch; ++row) {
    const std::vector<double> ref =
        test::reference_row(spec, input.data() + row * static_cast<std::size_t>(in_floats));
    test::ErrorSum a;
    a.add(ours.data() + row * row_out, ref);
    test::ErrorSum b;
    b.add(theirs.data() + row * row_out, ref);
    ours_all.add(ours.data() + row * row_out, ref);
    cufft_all.add(theirs.data() + row * row_out, ref);
    e.ours_worst_row = std::max(e.ours_worst_row, a.relative());
    e.cufft_worst_row = std::max(e.cufft_worst_row, b.relative());
  }
  e.ours = ours_all.relative();
  e.cufft = cufft_all.relative();
  return e;
}

// Plans with given planner options (our kernels).
class OptionsBackend final : public Backend {
 public:
  explicit OptionsBackend(const gpu::PlannerOptions& options) : options_(options) {}
  BackendKind kind() const override { return BackendKind::cuda; }
  bool device_memory() const override { return true; }
  std::unique_ptr<Plan> plan(const PlanSpec& spec) override { return gpu::make_cuda_plan(spec, options_); }
  std::unique_ptr<NdPlan> plan_nd(const NdPlanSpec& spec) override { return gpu::make_cuda_nd_plan(spec, *this); }
  std::string describe() const override { return "prism CUDA FFT with planner options"; }

 private:
  gpu::PlannerOptions options_;
};

class FftCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sweep_options().prime_stages != gpu::PlannerOptions{}.prime_stages ||
        sweep_options().full_length_c2r != gpu::PlannerOptions{}.full_length_c2r) {
      ours_ = std::make_unique<OptionsBackend>(sweep_options());
    } else {
      ours_ = make_cuda_backend();
    }
    cufft_ = make_cufft_backend();
    CUDA_OK(cudaStreamCreate(&stream_));
  }
  void TearDown() override { cudaStreamDestroy(stream_); }

  // With our backend, or one with other planner options.
  void check(const PlanSpec& spec, std::mt19937_64& rng, Backend* ours = nullptr) {
    const Errors e = measure(spec, rng, ours ? *ours : *ours_, *cufft_, stream_);
    const std::string key = length_class(spec.n) + " | " + test::transform_name(spec.transform);
    ClassResult& r = results()[key];
    ++r.sizes;
    if (e.ours > r.ours) {
      r.ours = e.ours;
      r.ours_worst_n = spec.n;
    }
    r.cufft = std::max(r.cufft, e.cufft);
    if (e.ours > 1.1 * e.cufft) {
      ++r.above_cufft;
      char entry[64];
      std::snprintf(entry, sizeof entry, "%s%zu (%.3g / %.3g)", r.above_list.empty() ? "" : ", ", spec.n,
                    e.ours, e.cufft);
      r.above_list += entry;
    }
    EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(spec.transform) << " n=" << spec.n
                                    << " batch=" << spec.batch << (spec.in_place ? " in place " : " ")
                                    << gpu::describe_cuda_plan(spec);
  }

  // Each length (the half of r2c / c2r) in every kind, 7 rows up to 4096 (a last block partly
  // filled where a block holds several) and 2 above, every other one in place: planned without
  // Bluestein, within 1.1x cuFFT's error or 3e-7.
  void check_without_bluestein(const std::vector<std::size_t>& lengths, const gpu::PlannerOptions& options,
                               Backend& ours, std::mt19937_64& rng, const char* label) {
    int index = 0;
    for (const std::size_t n_or_half : lengths) {
      for (Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r}) {
        const bool real = t == Transform::r2c || t == Transform::c2r;
        const bool in_place = ++index % 2 == 0;
        const PlanSpec spec{real ? 2 * n_or_half : n_or_half, n_or_half <= 4096 ? 7u : 2u, t, in_place};
        const std::string algorithm = gpu::make_plan_layout(spec, options).algorithm;
        ASSERT_EQ(algorithm.find("bluestein"), std::string::npos) << algorithm;
        const Errors e = measure(spec, rng, ours, *cufft_, stream_);
        EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
            << test::transform_name(t) << " n=" << spec.n << " " << algorithm << ", cuFFT " << e.cufft;
        EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(t) << " n=" << spec.n;
        std::printf("%s %-12s n=%-7zu %-8s %-44s ours %.3g cuFFT %.3g\n", label, test::transform_name(t), spec.n,
                    in_place ? "in place" : "", algorithm.c_str(), e.ours, e.cufft);
      }
    }
  }

  std::unique_ptr<Backend> ours_;
  std::unique_ptr<Backend> cufft_;
  cudaStream_t stream_ = nullptr;
};

constexpr Transform kAllTransforms[] = {Transform::c2c_forward, Transform::c2c_inverse,
                                        Transform::r2c, Transform::c2r};

// At least 4096 elements per length (three rows from 1366 up), so that the errors compared are
// those of the length and not of a few rows' draw.
TEST_F(FftCuda, AllLengthsUpTo4096) {
  std::mt19937_64 rng(1);
  const bool quick = quick_mode();
  std::size_t first = 0;
  std::size_t last = 0;
  ASSERT_TRUE(sweep_range(first, last));
  for (std::size_t n = first; n <= last; ++n) {
    if (quick && n > 64 && (n & (n - 1)) != 0) continue;
    const std::size_t batch = std::max<std::size_t>(3, (4096 + n - 1) / n);
    for (Transform t : kAllTransforms) {
      check(PlanSpec{n, batch, t, n % 16 == 7}, rng);
      if (HasFailure()) return;
    }
  }
}

TEST_F(FftCuda, RandomLengthsUpToOneMillion) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> log_size(std::log(4097.0), std::log(1.0e6));
  const int count = quick_mode() ? 20 : 200;
  for (int i = 0; i < count; ++i) {
    const auto n = static_cast<std::size_t>(std::exp(log_size(rng)));
    for (Transform t : kAllTransforms) {
      check(PlanSpec{n, 1, t, i % 9 == 4}, rng);
      if (HasFailure()) return;
    }
  }
}

TEST_F(FftCuda, PowersOfTwoAndBenchmarkLengths) {
  std::mt19937_64 rng(3);
  std::vector<std::size_t> sizes = {1000, 1920, 4095, 4097, 10007, 48000, 65537, 1000003};
  for (int e = 13; e <= 24; ++e) sizes.push_back(std::size_t{1} << e);
  for (std::size_t n : sizes) {
    for (Transform t : kAllTransforms) {
      check(PlanSpec{n, n <= 65536 ? 4u : 1u, t, false}, rng);
      if (HasFailure()) return;
    }
  }
  check(PlanSpec{std::size_t{1} << 26, 1, Transform::c2c_forward, false}, rng);
}

// Every length with a compiled kernel (fft_pass.hpp), as c2c and as the half length of r2c / c2r,
// with more rows than one block holds and a last block only partly filled (batch 2 * per block
// + 1, at most 65), every third in place.
TEST_F(FftCuda, CompiledLengths) {
  std::mt19937_64 rng(5);
  gpu::PlannerOptions fft_only;
  fft_only.direct_dft = -1;  // the shortest (4, 8, 16) take the direct DFT by the planner's rule
  OptionsBackend ours(fft_only);
  for (int i = 0; i < gpu::kCompiledLengthCount; ++i) {
    const auto n = static_cast<std::size_t>(gpu::kCompiledLengths[i]);
    const auto per_block = static_cast<unsigned>(std::max<std::size_t>(1, 4096 / n));
    const unsigned batch = std::min(2 * per_block + 1, 65u);
    for (Transform t : kAllTransforms) {
      const std::size_t length = (t == Transform::r2c || t == Transform::c2r) ? 2 * n : n;
      check(PlanSpec{length, batch, t, i % 3 == 1}, rng, &ours);
      if (HasFailure()) return;
    }
  }
}

// Runs the first `kRows` rows of a plan of spec's batch on a stream: those rows are right and
// the rest of the output is not written.
void check_partial_batch(Backend& backend, const PlanSpec& spec, std::mt19937_64& rng,
                         cudaStream_t stream) {
  const long long in_floats = test::input_row_floats(spec);
  const long long out_floats = test::output_row_floats(spec);
  const std::vector<float> input = test::make_input(spec, in_floats, spec.batch, rng);
  DeviceBuffers buf;
  buf.in_bytes = input.size() * sizeof(float);
  buf.out_bytes = static_cast<std::size_t>(out_floats) * spec.batch * sizeof(float);
  CUDA_OK(cudaMalloc(&buf.in, buf.in_bytes));
  CUDA_OK(cudaMalloc(&buf.out, buf.out_bytes));
  CUDA_OK(cudaMemcpy(buf.in, input.data(), buf.in_bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(buf.out, 0xFF, buf.out_bytes));  // NaN
  auto plan = backend.plan(spec);
  constexpr std::size_t kRows = 3;
  plan->execute(buf.in, buf.out, kRows, stream);
  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<float> out(static_cast<std::size_t>(out_floats) * spec.batch);
  CUDA_OK(cudaMemcpy(out.data(), buf.out, buf.out_bytes, cudaMemcpyDeviceToHost));
  for (std::size_t row = 0; row < kRows; ++row) {
    test::ErrorSum e;
    e.add(out.data() + row * out_floats, test::reference_row(spec, input.data() + row * in_floats));
    EXPECT_LE(e.relative(), 4e-7) << test::transform_name(spec.transform) << " n=" << spec.n
                                  << " row " << row;
  }
  EXPECT_TRUE(std::all_of(out.begin() + kRows * out_floats, out.end(),
                          [](float v) { return std::isnan(v); }))
      << test::transform_name(spec.transform) << " n=" << spec.n << ": rows beyond " << kRows
      << " written";
}

// Fewer rows than the plan's batch (c2c; the rows kernel's c2c inverse, r2c and c2r with part of
// a block's rows; r2c and c2r with two real rows per transform and an odd count, r2c 10007
// through the split pass, r2c and c2r 65537 by Rader; four-step c2c and r2c).
TEST_F(FftCuda, PartialBatchOnStream) {
  std::mt19937_64 rng(4);
  for (const PlanSpec& spec : {PlanSpec{1024, 8, Transform::c2c_forward, false},
                               PlanSpec{64, 8, Transform::c2c_inverse, false},
                               PlanSpec{512, 8, Transform::r2c, false},
                               PlanSpec{256, 8, Transform::c2r, false},
                               PlanSpec{4095, 8, Transform::r2c, false},
                               PlanSpec{4097, 8, Transform::c2r, false},
                               PlanSpec{10007, 8, Transform::r2c, false},
                               PlanSpec{65537, 8, Transform::r2c, false},
                               PlanSpec{65537, 8, Transform::c2r, false},
                               PlanSpec{32768, 8, Transform::c2c_forward, false},
                               PlanSpec{65536, 8, Transform::c2c_inverse, false},
                               PlanSpec{131072, 8, Transform::r2c, false},
                               PlanSpec{262144, 8, Transform::c2r, false}}) {
    check_partial_batch(*ours_, spec, rng, stream_);
  }
}


// Stages of radix 17 to 31 (the run-time stage loop), in the quick sweep too: every such radix in
// one pass, c2c and as the half of r2c / c2r, 7 rows (a last block partly filled where a block
// holds several); two of them in one transform; a four-step of two such halves and one of a power
// of two; every other one in place. Within 1.1x cuFFT's error, as every such length up to 4096
// was in the whole sweep (bench/RESULTS.md "Stockham stages of radix 17 to 31"), or 3e-7.
TEST_F(FftCuda, LargePrimeRadices) {
  std::mt19937_64 rng(6);
  check_without_bluestein({1088, 912, 2944, 2900, 15872, 119, 391, 430882, 507904}, sweep_options(), *ours_,
                          rng, "radix 17..31");
}

// Prime stages (radices 37 to 127, prime_stage_item; PlannerOptions::prime_stages = 1 whatever
// PRISM_FFT_PRIME_STAGES says), in the quick sweep too: 127 alone (37 alone
// takes the direct DFT), 37 and 127 after power-of-two and radix-3 stages, two prime stages in
// one transform, c2c and as the half of r2c / c2r, several transforms to a block and a partly
// filled last one (7 rows), a four-step with one in a half and one with one in each; every other
// one in place. Within 1.1x cuFFT's error or 3e-7.
TEST_F(FftCuda, PrimeStages) {
  std::mt19937_64 rng(37);
  gpu::PlannerOptions options;
  options.prime_stages = 1;
  OptionsBackend ours(options);
  check_without_bluestein({37, 127, 1184, 127 * 24, 37 * 41, 61 * 67, 113 * 127, 101 * 8192}, options, ours, rng,
                          "prime stage");
}

// c2r through the complex FFT of the full length (PlannerOptions::full_length_c2r): the lengths
// of the planner's rule by default, and with 1 compiled lengths (whose pass kernels take the
// Hermitian rows in their element loads; the decimal ones have passes in the rows kernel's stage
// order, which no compiled pass kernel runs), run-time loop lengths, radix 17 and a prime stage;
// batches of one row and of several with a partly filled last block, every other one in place.
// Within 1.1x cuFFT's error or 3e-7, and no row wrong.
TEST_F(FftCuda, FullLengthC2r) {
  std::mt19937_64 rng(1080);
  gpu::PlannerOptions always;
  always.full_length_c2r = 1;
  OptionsBackend forced(always);
  OptionsBackend by_default(gpu::PlannerOptions{});  // whatever PRISM_FFT_FULL_LENGTH_C2R says
  int index = 0;
  for (const std::size_t n : {135u, 162u, 243u, 1080u, 1000u, 2000u, 4000u, 1024u, 4096u, 8192u, 250u,
                              2187u, 306u, 148u, 4095u}) {
    const bool by_rule = gpu::full_length_c2r_rule(static_cast<long long>(n));
    for (const unsigned batch : {1u, 7u}) {
      const PlanSpec spec{n, batch, Transform::c2r, ++index % 2 == 0};
      Backend& ours = by_rule ? by_default : forced;
      const std::string algorithm = gpu::make_plan_layout(spec, by_rule ? gpu::PlannerOptions{} : always).algorithm;
      EXPECT_NE(algorithm.find("real of the full length"), std::string::npos) << n << " " << algorithm;
      const Errors e = measure(spec, rng, ours, *cufft_, stream_);
      EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft)) << "c2r n=" << n << " " << algorithm << ", cuFFT " << e.cufft;
      EXPECT_LE(e.ours_worst_row, kCorrectness) << "c2r n=" << n << " batch " << batch << " " << algorithm;
      std::printf("full-length c2r n=%-5zu batch %u %-8s %-44s ours %.3g cuFFT %.3g\n", n, batch,
                  spec.in_place ? "in place" : "", algorithm.c_str(), e.ours, e.cufft);
    }
  }
}

// Rader's algorithm (PlannerOptions::rader): the primes the planner's rule gives it, and with 1
// shorter ones (257, 641, 7681), every kind, one row and
// three (an odd count of real rows: a pair without its second row), every other one in place.
// Within 1.1x cuFFT's error or 3e-7, and no row wrong.
TEST_F(FftCuda, Rader) {
  std::mt19937_64 rng(65537);
  gpu::PlannerOptions always;
  always.rader = 1;
  OptionsBackend forced(always);
  OptionsBackend by_default(gpu::PlannerOptions{});
  int index = 0;
  for (const std::size_t n : {12289u, 18433u, 40961u, 65537u, 786433u, 257u, 641u, 7681u}) {
    const bool by_rule = gpu::rader_rule(static_cast<long long>(n));
    for (Transform t : kAllTransforms) {
      for (const unsigned batch : {1u, 3u}) {
        const PlanSpec spec{n, batch, t, ++index % 2 == 0};
        const std::string algorithm = gpu::make_plan_layout(spec, by_rule ? gpu::PlannerOptions{} : always).algorithm;
        EXPECT_EQ(algorithm.find("rader"), 0u) << n << " " << algorithm;
        const Errors e = measure(spec, rng, by_rule ? by_default : forced, *cufft_, stream_);
        EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
            << test::transform_name(t) << " n=" << n << " " << algorithm << ", cuFFT " << e.cufft;
        EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(t) << " n=" << n << " batch " << batch;
        std::printf("rader %-12s n=%-7zu batch %u %-8s %-44s ours %.3g cuFFT %.3g\n", test::transform_name(t), n,
                    batch, spec.in_place ? "in place" : "", algorithm.c_str(), e.ours, e.cufft);
      }
    }
  }
}

// Bluestein over the shortest convolution, m = 2n - 2 (4097, 2049 by default; 8191 over 16380,
// a length without a compiled kernel, forced), and the one-pass kernel's registers between its
// FFTs (bluestein_held_elements: 4093 and 4097 over 8192, 2049 over 4096, 8191 over 16384; 6007
// over 12288 through shared memory): every kind, one row and three, every other one in place.
// Within 1.1x cuFFT's error or 3e-7, and no row wrong.
TEST_F(FftCuda, BluesteinShortestConvolution) {
  std::mt19937_64 rng(8192);
  int index = 0;
  const std::pair<std::size_t, int> cases[] = {{4097, 0}, {4093, 0}, {2049, 0}, {6007, 0}, {8191, 0}, {8191, 16380}};
  for (const auto& [n, m] : cases) {
    gpu::PlannerOptions options;
    options.bluestein_length = m;
    OptionsBackend backend(options);
    for (Transform t : kAllTransforms) {
      for (const unsigned batch : {1u, 3u}) {
        const PlanSpec spec{n, batch, t, ++index % 2 == 0};
        const gpu::PlanLayout layout = gpu::make_plan_layout(spec, options);
        EXPECT_EQ(layout.algorithm.find("bluestein"), 0u) << n << " " << layout.algorithm;
        if (n == 4097 || n == 2049 || m == 16380) {
          EXPECT_EQ(layout.bluestein_length, gpu::bluestein_min_length(static_cast<long long>(n)));
        }
        const Errors e = measure(spec, rng, backend, *cufft_, stream_);
        EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
            << test::transform_name(t) << " n=" << n << " " << layout.algorithm << ", cuFFT " << e.cufft;
        EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(t) << " n=" << n << " batch " << batch;
        std::printf("bluestein %-12s n=%-5zu batch %u %-8s %-58s ours %.3g cuFFT %.3g\n", test::transform_name(t),
                    n, batch, spec.in_place ? "in place" : "", layout.algorithm.c_str(), e.ours, e.cufft);
      }
    }
  }
}

// Cluster passes of both block lengths (2^15 ... 2^17 and real transforms of twice that), three
// rows, in and out of place (in-place real rows are not 16-byte aligned: element loads), against
// cuFFT on the same input. Skipped where the device has no thread-block clusters.
TEST_F(FftCuda, ClusterPasses) {
  int device = 0;
  int clusters = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  if (clusters == 0) GTEST_SKIP() << "no thread-block clusters on this device";
  std::mt19937_64 rng(6);
  for (const int preferred : {8192, 16384}) {
    gpu::PlannerOptions options;
    options.cluster_block_length = preferred;
    OptionsBackend ours(options);
    for (Transform t : kAllTransforms) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      for (const std::size_t half_or_n : {std::size_t{1} << 15, std::size_t{1} << 16, std::size_t{1} << 17}) {
        for (const bool in_place : {false, true}) {
          const PlanSpec spec{real ? 2 * half_or_n : half_or_n, 3, t, in_place};
          const std::string algorithm = gpu::make_plan_layout(spec, options).algorithm;
          ASSERT_EQ(algorithm.rfind("cluster", 0), 0u) << algorithm;
          const Errors e = measure(spec, rng, ours, *cufft_, stream_);
          EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
              << test::transform_name(t) << " n=" << spec.n << (in_place ? " in place " : " ")
              << algorithm << ": cuFFT " << e.cufft;
          std::printf("cluster pass %-12s n=%-7zu %-8s %-40s ours %.3g cuFFT %.3g\n",
                      test::transform_name(t), spec.n, in_place ? "in place" : "", algorithm.c_str(),
                      e.ours, e.cufft);
        }
      }
    }
    check_partial_batch(ours, PlanSpec{65536, 8, Transform::c2c_inverse, false}, rng, stream_);
    check_partial_batch(ours, PlanSpec{131072, 8, Transform::r2c, false}, rng, stream_);
  }
}

// r2c over a half length n1 x 500 whose row pass runs the four-step kernel's decimal real rows,
// and c2r over 500 x n2 whose column pass runs its decimal real columns (FourStepShape::decimal):
// 48000, 96000 and 10^6, one row and three, in and out of place, within 1.1x cuFFT's error or
// 3e-7, and executions of fewer rows than the plan's batch.
TEST_F(FftCuda, DecimalRealRows) {
  std::mt19937_64 rng(12);
  for (const Transform t : {Transform::r2c, Transform::c2r}) {
    for (const std::size_t n : {std::size_t{48000}, std::size_t{96000}, std::size_t{1000000}}) {
      for (const unsigned batch : {1u, 3u}) {
        for (const bool in_place : {false, true}) {
          const PlanSpec spec{n, batch, t, in_place};
          const std::string algorithm = gpu::make_plan_layout(spec, {}).algorithm;
          ASSERT_NE(algorithm.find(t == Transform::r2c ? "x500, real via half length, post-processing in the row pass"
                                                       : "four-step 500x"),
                    std::string::npos)
              << algorithm;
          const Errors e = measure(spec, rng, *ours_, *cufft_, stream_);
          EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft)) << test::transform_name(t) << " n=" << n << " batch="
                                                           << batch << (in_place ? " in place " : " ") << algorithm;
          std::printf("decimal real %s n=%-7zu batch=%u %-8s ours %.3g cuFFT %.3g\n", test::transform_name(t), n,
                      batch, in_place ? "in place" : "", e.ours, e.cufft);
        }
      }
    }
  }
  check_partial_batch(*ours_, PlanSpec{48000, 5, Transform::r2c, false}, rng, stream_);
  check_partial_batch(*ours_, PlanSpec{48000, 5, Transform::c2r, false}, rng, stream_);
}

// The rows kernel at both team widths (16 and 32 elements per thread) for rows of 8192: c2c 8192
// and real transforms of 16384, three rows, in and out of place, against cuFFT on the same input:
// whichever width the planner's rule or a wisdom file picks computes the transform.
TEST_F(FftCuda, RowsTeamWidths) {
  std::mt19937_64 rng(7);
  const std::size_t half_or_n = gpu::kWideRowsLength;
  for (const int elements : {gpu::kElementsPerThread, gpu::kWideTeamElements}) {
    gpu::PlannerOptions options;
    options.rows_elements_per_thread = elements;
    OptionsBackend ours(options);
    for (Transform t : kAllTransforms) {
      const bool real = t == Transform::r2c || t == Transform::c2r;
      for (const bool in_place : {false, true}) {
        const PlanSpec spec{real ? 2 * half_or_n : half_or_n, 3, t, in_place};
        const std::string algorithm = gpu::make_plan_layout(spec, options).algorithm;
        ASSERT_NE(algorithm.find(", " + std::to_string(elements) + " per thread"), std::string::npos)
            << algorithm;
        const Errors e = measure(spec, rng, ours, *cufft_, stream_);
        EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
            << test::transform_name(t) << " n=" << spec.n << (in_place ? " in place " : " ")
            << algorithm << ": cuFFT " << e.cufft;
        std::printf("rows %2d per thread %-12s n=%-6zu %-8s ours %.3g cuFFT %.3g\n", elements,
                    test::transform_name(t), spec.n, in_place ? "in place" : "", e.ours, e.cufft);
      }
    }
    check_partial_batch(ours, PlanSpec{8192, 5, Transform::c2c_inverse, false}, rng, stream_);
    check_partial_batch(ours, PlanSpec{16384, 5, Transform::c2r, false}, rng, stream_);
  }
}

// The threads the current device's multiprocessors hold at once, all of them together.
void resident_threads(std::size_t& threads) {
  int device = 0;
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CUDA_OK(cudaDeviceGetAttribute(&threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  threads = static_cast<std::size_t>(multiprocessors) * static_cast<std::size_t>(threads_per_multiprocessor);
}

// The rows kernel's lengths that prefetch a later row's input into L2 (rows_prefetch), with a
// batch past the rows that teams prefetch ahead (RowsPassDesc::prefetch_ahead: a quarter of the
// rows that the device's multiprocessors hold at once), so that the last rows of the batch are
// prefetched right up to the end of the buffer; in and out of place, against cuFFT.
TEST_F(FftCuda, RowsPrefetch) {
  std::size_t resident = 0;
  ASSERT_NO_FATAL_FAILURE(resident_threads(resident));
  struct Case {
    std::size_t n;
    Transform transform;
    gpu::RowsKind kind;
    bool in_place;
  };
  std::mt19937_64 rng(8);
  for (const Case& c : {Case{256, Transform::c2c_forward, gpu::RowsKind::forward, true},
                        Case{4096, Transform::c2c_inverse, gpu::RowsKind::inverse, false},
                        Case{16384, Transform::c2c_forward, gpu::RowsKind::forward, false},
                        Case{4096, Transform::r2c, gpu::RowsKind::real_forward, true},
                        Case{32768, Transform::r2c, gpu::RowsKind::real_forward, false},
                        Case{4096, Transform::c2r, gpu::RowsKind::real_inverse, false}}) {
    const bool real = c.transform == Transform::r2c || c.transform == Transform::c2r;
    const int rows_length = static_cast<int>(real ? c.n / 2 : c.n);
    ASSERT_TRUE(gpu::rows_prefetch(rows_length, c.kind)) << c.n;
    const std::size_t most_ahead = resident / gpu::team_threads(rows_length) / 4;
    const PlanSpec spec{c.n, most_ahead + 7, c.transform, c.in_place};
    const Errors e = measure(spec, rng, *ours_, *cufft_, stream_);
    EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
        << test::transform_name(c.transform) << " n=" << c.n << " batch=" << spec.batch
        << (c.in_place ? " in place " : " ") << gpu::describe_cuda_plan(spec) << ": cuFFT " << e.cufft;
  }
}

// The four-step's plain row passes that prefetch a later block's input into L2
// (four_step_prefetch; forward in c2c, inverse in c2c and c2r) from 2^15 to 2^24, with batches
// past the blocks that a block prefetches ahead (FourStepPassDesc::prefetch_ahead: a quarter of
// the blocks the multiprocessors hold at once, each of at least 512 threads and at most 16384
// elements), so that the last blocks are prefetched right up to the end of the pass's input; in
// and out of place, against cuFFT.
TEST_F(FftCuda, FourStepPrefetch) {
  std::size_t resident = 0;
  ASSERT_NO_FATAL_FAILURE(resident_threads(resident));
  const std::size_t most_ahead = resident / 512 / 4;
  struct Case {
    std::size_t n;
    Transform transform;
    bool in_place;
  };
  std::mt19937_64 rng(12);
  for (const Case& c : {Case{1 << 15, Transform::c2c_forward, false}, Case{1 << 16, Transform::c2c_inverse, true},
                        Case{1 << 16, Transform::c2r, false}, Case{1 << 21, Transform::c2c_forward, true},
                        Case{1 << 22, Transform::c2c_inverse, false}, Case{1 << 24, Transform::c2r, false}}) {
    const bool real = c.transform == Transform::r2c || c.transform == Transform::c2r;
    const std::size_t half_or_n = real ? c.n / 2 : c.n;
    const PlanSpec spec{c.n, (most_ahead + 8) * 16384 / half_or_n + 1, c.transform, c.in_place};
    int prefetching = 0;
    for (const gpu::Step& step : gpu::make_plan_layout(spec).steps) {
      gpu::FourStepPassDesc d;
      if (step.kind == gpu::Step::Kind::fft_pass && gpu::four_step_pass_of(step.pass, d, gpu::kMaxSharedBytesPerBlock) &&
          gpu::four_step_prefetch(d.n, d.kind)) {
        ++prefetching;
      }
    }
    ASSERT_GT(prefetching, 0) << gpu::describe_cuda_plan(spec);
    const Errors e = measure(spec, rng, *ours_, *cufft_, stream_);
    EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
        << test::transform_name(c.transform) << " n=" << c.n << " batch=" << spec.batch
        << (c.in_place ? " in place " : " ") << gpu::describe_cuda_plan(spec) << ": cuFFT " << e.cufft;
  }
}

// Four-steps with rows longer than the four-step kernel takes, the rows in place in the scratch
// and then the transpose step (rows_then_transpose): c2c 2^25 (2048 x 16384) and 2^26 (4096 x
// 16384) both ways, in and out of place, and r2c and c2r 2^26 (half length 2^25), against cuFFT;
// every plan holds the transpose step, r2c's with the post-processing (r2c_post: two rows, one
// of them in place).
TEST_F(FftCuda, RowsThenTranspose) {
  struct Case {
    std::size_t n;
    unsigned batch;
    Transform transform;
    bool in_place;
  };
  std::mt19937_64 rng(13);
  for (const Case& c : {Case{1 << 25, 2, Transform::c2c_forward, false}, Case{1 << 25, 1, Transform::c2c_inverse, true},
                        Case{1 << 26, 1, Transform::c2c_inverse, false}, Case{1 << 26, 1, Transform::c2c_forward, true},
                        Case{1 << 26, 1, Transform::r2c, false}, Case{1 << 26, 2, Transform::r2c, true},
                        Case{1 << 26, 1, Transform::c2r, false}}) {
    const PlanSpec spec{c.n, c.batch, c.transform, c.in_place};
    const std::vector<gpu::Step> steps = gpu::make_plan_layout(spec).steps;
    const auto transpose = std::find_if(steps.begin(), steps.end(),
                                        [](const gpu::Step& s) { return s.kind == gpu::Step::Kind::transpose; });
    ASSERT_NE(transpose, steps.end()) << gpu::describe_cuda_plan(spec);
    EXPECT_EQ(transpose->transpose.r2c_post, c.transform == Transform::r2c) << gpu::describe_cuda_plan(spec);
    const Errors e = measure(spec, rng, *ours_, *cufft_, stream_);
    EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
        << test::transform_name(c.transform) << " n=" << c.n << " batch=" << spec.batch
        << (c.in_place ? " in place " : " ") << gpu::describe_cuda_plan(spec) << ": cuFFT " << e.cufft;
    EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(c.transform) << " n=" << c.n;
  }
}

// The tuning mode's four-step splits (PlannerOptions::four_step_columns): every split with
// compiled sides of these lengths, in each kind, one row and several, in and out of place, within
// 1.1x cuFFT's error or 3e-7 (the tuning mode would reject a wrong one; here it fails).
TEST_F(FftCuda, FourStepSplits) {
  std::mt19937_64 rng(14);
  int index = 0;
  for (const std::size_t n : {std::size_t{1} << 16, std::size_t{48000}, std::size_t{98304}}) {
    for (const Transform t : kAllTransforms) {
      for (const int columns : gpu::four_step_column_candidates(gpu::planner_complex_length(PlanSpec{n, 1, t}))) {
        gpu::PlannerOptions options;
        options.four_step_columns = columns;
        OptionsBackend split(options);
        ++index;
        const PlanSpec spec{n, index % 3 == 0 ? 1u : 5u, t, index % 2 == 0};
        const std::string algorithm = gpu::make_plan_layout(spec, options).algorithm;
        const Errors e = measure(spec, rng, split, *cufft_, stream_);
        EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
            << test::transform_name(t) << " n=" << n << " batch=" << spec.batch
            << (spec.in_place ? " in place " : " ") << algorithm << ": cuFFT " << e.cufft;
        EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(t) << " n=" << n << " " << algorithm;
      }
    }
  }
  EXPECT_GE(index, 60);
}

// Rows of 500, 1000, 2000 and 4000 on the rows kernel's decimal teams (10 elements per thread,
// the planner's rule) and on the plain rows kernel (the option's 16): c2c of these lengths both
// ways and the real transforms of twice them, 67 rows (the last block of two, four or eight rows
// partial), in and out of place, against cuFFT on the same input.
TEST_F(FftCuda, DecimalRowsTeams) {
  std::mt19937_64 rng(11);
  for (const int elements : {gpu::kDecimalTeamElements, gpu::kElementsPerThread}) {
    gpu::PlannerOptions options;
    options.rows_elements_per_thread = elements;
    OptionsBackend ours(options);
    for (const std::size_t half_or_n : {std::size_t{500}, std::size_t{1000}, std::size_t{2000}, std::size_t{4000}}) {
      for (Transform t : kAllTransforms) {
        const bool real = t == Transform::r2c || t == Transform::c2r;
        for (const bool in_place : {false, true}) {
          const PlanSpec spec{real ? 2 * half_or_n : half_or_n, 67, t, in_place};
          const gpu::PlanLayout layout = gpu::make_plan_layout(spec, options);
          gpu::RowsPassDesc d;
          ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
          ASSERT_EQ(gpu::rows_pass_of(layout.steps[0].pass, d), elements == gpu::kDecimalTeamElements)
              << layout.algorithm;
          ASSERT_TRUE(gpu::plain_rows_pass(layout.steps[0].pass, d)) << layout.algorithm;
          ASSERT_EQ(d.elements_per_thread, elements);
          const Errors e = measure(spec, rng, ours, *cufft_, stream_);
          EXPECT_LE(e.ours, std::max(3e-7, 1.1 * e.cufft))
              << test::transform_name(t) << " n=" << spec.n << (in_place ? " in place " : " ")
              << layout.algorithm << ": cuFFT " << e.cufft;
          std::printf("rows of %-4zu at %2d per thread %-12s n=%-5zu %-8s ours %.3g cuFFT %.3g\n", half_or_n,
                      elements, test::transform_name(t), spec.n, in_place ? "in place" : "", e.ours, e.cufft);
        }
      }
      check_partial_batch(ours, PlanSpec{half_or_n, 9, Transform::c2c_forward, false}, rng, stream_);
      check_partial_batch(ours, PlanSpec{2 * half_or_n, 9, Transform::c2r, false}, rng, stream_);
    }
  }
}

// The direct DFT (fft_direct.hpp) at every length it takes, against the FFT the planner would
// otherwise run (Stockham or Bluestein) and cuFFT on the same input, 4096 elements or more per
// length, every third in place: its error is the one rounding to float of a sum in double, below
// both. And a partial batch on each of its kernels: the rows asked for, no others written.
TEST_F(FftCuda, DirectDft) {
  std::mt19937_64 rng(13);
  gpu::PlannerOptions direct_options;
  direct_options.direct_dft = 1;
  gpu::PlannerOptions fft_options;
  fft_options.direct_dft = -1;
  OptionsBackend direct(direct_options);
  OptionsBackend fft(fft_options);
  double worst = 0.0;
  for (Transform t : kAllTransforms) {
    const bool real = t == Transform::r2c || t == Transform::c2r;
    for (std::size_t n = 2; n <= 2 * gpu::kMaxDirectLength; ++n) {
      if (gpu::direct_dft_length(static_cast<long long>(n), real) == 0) continue;
      const PlanSpec spec{n, std::max<std::size_t>(3, (4096 + n - 1) / n), t, n % 3 == 1};
      ASSERT_EQ(gpu::make_plan_layout(spec, direct_options).steps[0].kind, gpu::Step::Kind::direct_dft);
      const std::uint64_t seed = rng();
      std::mt19937_64 same_input(seed);
      const Errors e = measure(spec, same_input, direct, *cufft_, stream_);
      same_input.seed(seed);
      const Errors f = measure(spec, same_input, fft, *cufft_, stream_);
      ASSERT_EQ(e.cufft, f.cufft) << "not the same input";
      EXPECT_LE(e.ours, std::max(4e-8, 1.1 * e.cufft))
          << test::transform_name(t) << " n=" << n << ": FFT " << f.ours << ", cuFFT " << e.cufft;
      EXPECT_LE(e.ours_worst_row, kCorrectness) << test::transform_name(t) << " n=" << n;
      worst = std::max(worst, e.ours);
      std::printf("direct DFT %-12s n=%-4zu %-8s direct %.3g  FFT %.3g (%s)  cuFFT %.3g\n", test::transform_name(t), n,
                  spec.in_place ? "in place" : "", e.ours, f.ours, gpu::make_plan_layout(spec, fft_options).algorithm.c_str(),
                  e.cufft);
    }
    // The kernel of output pairs (61, half 50) and the row per thread (12, half 12).
    check_partial_batch(direct, PlanSpec{real ? std::size_t{100} : std::size_t{61}, 200, t, false}, rng, stream_);
    check_partial_batch(direct, PlanSpec{real ? std::size_t{24} : std::size_t{12}, 200, t, false}, rng, stream_);
  }
  std::printf("direct DFT: worst %.3g\n", worst);
}

void print_results() {
  std::printf("\n%-24s | %-12s | %5s | %-10s | %-9s | %-10s | %s\n", "length class", "transform",
              "sizes", "ours worst", "at n", "cuFFT worst", "sizes ours > 1.1x cuFFT");
  for (const auto& [key, r] : results()) {
    const auto bar = key.find(" | ");
    std::printf("%-24s | %-12s | %5d | %10.3g | %9zu | %11.3g | %d\n", key.substr(0, bar).c_str(),
                key.substr(bar + 3).c_str(), r.sizes, r.ours, r.ours_worst_n, r.cufft, r.above_cufft);
  }
  // Which sizes, so that a change's effect on them can be followed.
  for (const auto& [key, r] : results()) {
    if (r.above_cufft > 0) std::printf("above 1.1x cuFFT, %s: %s\n", key.c_str(), r.above_list.c_str());
  }
}

// Runs `count` arrays through the plan; returns the worst array's error and the batch's (the
// arrays asked for), checking the input unchanged and, with `rest_poisoned`, the other arrays
// not written.
std::pair<double, double> nd_errors(NdPlan& plan, const test::NdReference& r, std::size_t count, bool rest_poisoned,
                                    cudaStream_t stream) {
  const NdPlanSpec& spec = plan.spec();
  DeviceBuffers buf;
  buf.in_bytes = r.input.size() * sizeof(float);
  buf.out_bytes = r.expected.size() * sizeof(float);
  EXPECT_EQ(cudaMalloc(&buf.in, buf.in_bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&buf.out, buf.out_bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(buf.in, r.input.data(), buf.in_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(buf.out, 0xFF, buf.out_bytes), cudaSuccess);  // NaN
  plan.execute(buf.in, buf.out, count, stream);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<float> out(r.expected.size()), in(r.input.size());
  EXPECT_EQ(cudaMemcpy(out.data(), buf.out, buf.out_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(in.data(), buf.in, buf.in_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(in == r.input) << shape_text(spec.shape) << ": input modified";
  const std::size_t per_array = r.expected.size() / spec.batch;
  if (rest_poisoned) {
    for (std::size_t i = count * per_array; i < out.size(); ++i) {
      EXPECT_TRUE(std::isnan(out[i])) << shape_text(spec.shape) << ": written past the arrays asked for, " << i;
      if (!std::isnan(out[i])) break;
    }
  }
  double worst = 0.0;
  for (std::size_t array = 0; array < count; ++array)
    worst = std::max(worst, test::relative_error(out.data() + array * per_array, r.expected.data() + array * per_array,
                                                 per_array));
  return {worst, test::relative_error(out.data(), r.expected.data(), count * per_array)};
}

// Multi-dimensional transforms (fft_nd_layout.hpp's chain on the device, cuFFT's rank-k plans)
// against FFTW's in double (tests/fft/cuda/nd_fftw_reference.hpp): 2-D and 3-D, c2c both ways,
// r2c, c2r (on the spectra of real arrays), rows that take the single-pass, direct, Bluestein,
// Rader, four-step and paired real plans, and a unit real axis; three arrays, and two of the three
// (the third stays poisoned where no row step runs on cuFFT), the input kept; ours and cuFFT
// within 1e-6 per array, ours within 1.5x cuFFT's error or 3e-7 over the batch.
TEST_F(FftCuda, MultiDimensional) {
  // Where a device gives a block less shared memory than the planner plans for, row steps may
  // run on cuFFT, which transforms the whole batch: arrays past `count` are then written.
  int device = 0, optin = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const bool only_ours = optin >= gpu::kMaxSharedBytesPerBlock;
  std::mt19937_64 rng(0x4e44);
  const std::vector<std::vector<std::size_t>> shapes = {{256, 256},    {1024, 1024}, {4096, 4096},  {100, 1000},
                                                        {1, 4096},     {64, 64, 64}, {128, 128, 128}, {256, 256, 256},
                                                        {17, 31, 48},  {3, 5, 4097}, {9, 1, 11},    {2, 12289},
                                                        {3, 257},      {2, 131072},  {12, 1},       {1000, 999},
                                                        {8192, 512},   {16384, 64}};
  for (const auto& shape : shapes) {
    for (Transform t : kAllTransforms) {
      const NdPlanSpec spec{shape, 3, t};
      const test::NdReference r = test::nd_fftw_reference(spec, rng);
      auto ours = ours_->plan_nd(spec);
      // All three arrays (odd row counts for the paired real rows), then two of them: the third
      // must stay poisoned where no row step runs on cuFFT.
      const auto [ours_worst, ours_all] = nd_errors(*ours, r, 3, false, stream_);
      const double ours_worst_of_two = nd_errors(*ours, r, 2, only_ours, stream_).first;
      ours.reset();
      EXPECT_LE(ours_worst_of_two, kCorrectness) << shape_text(shape) << " " << test::transform_name(t) << ", 2 arrays";
      auto cufft = cufft_->plan_nd(spec);
      const auto [cufft_worst, cufft_all] = nd_errors(*cufft, r, 3, false, stream_);
      cufft.reset();
      EXPECT_LE(ours_worst, kCorrectness) << shape_text(shape) << " " << test::transform_name(t) << " "
                                          << gpu::describe_cuda_nd_plan(spec);
      EXPECT_LE(cufft_worst, kCorrectness) << shape_text(shape) << " " << test::transform_name(t) << " (cuFFT)";
      EXPECT_LE(ours_all, std::max(3e-7, 1.5 * cufft_all))
          << shape_text(shape) << " " << test::transform_name(t) << ": cuFFT " << cufft_all;
      std::printf("nd %-12s %-12s ours %.3g cuFFT %.3g  %s\n", shape_text(shape).c_str(), test::transform_name(t),
                  ours_all, cufft_all, gpu::describe_cuda_nd_plan(spec).c_str());
    }
  }
  // A 4096 x 1 c2c (the unit axis dropped) and, past the transpose grid's limits, 70000 arrays
  // of 17 x 2 and a 4194304 x 2, both through the transposes' chain (the grid steps over arrays
  // and tiles); 70000 arrays of 2 x 2 through a columns pass.
  for (const NdPlanSpec& spec : {NdPlanSpec{{4096, 1}, 3, Transform::c2c_forward},
                                 NdPlanSpec{{17, 2}, 70000, Transform::c2c_inverse},
                                 NdPlanSpec{{2, 2}, 70000, Transform::c2c_inverse},
                                 NdPlanSpec{{4194304, 2}, 1, Transform::c2c_forward}}) {
    const test::NdReference r = test::nd_fftw_reference(spec, rng);
    auto ours = ours_->plan_nd(spec);
    const auto [ours_worst, ours_all] = nd_errors(*ours, r, spec.batch, false, stream_);
    EXPECT_LE(ours_worst, kCorrectness) << shape_text(spec.shape) << " x" << spec.batch << " "
                                        << gpu::describe_cuda_nd_plan(spec);
    std::printf("nd %-12s x%-6zu ours %.3g  %s\n", shape_text(spec.shape).c_str(), spec.batch, ours_all,
                gpu::describe_cuda_nd_plan(spec).c_str());
  }
}

}  // namespace
}  // namespace prism::fft

int main(int argc, char** argv) {
  if (const int skip = prism::fft::test::skip_without_device("qa_FftCuda")) return skip;
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  prism::fft::print_results();
  return rc;
}
