// GPU tests of the team FFT's fusion hooks (fft/cuda/fft_team.cuh): kernels of this file put a
// prologue (convert i16 to float, multiply by a window, zero-pad) and an epilogue (multiply by a
// filter spectrum; |X|², scale and dB) around TeamFft, several teams per CTA, and the results
// are compared with FFTW in double precision on the same converted input. Outputs are poisoned
// with NaN first, so an output the epilogue never wrote fails. Exits with 77 (ctest SKIP) when
// no device is usable.
#include <cuda_runtime.h>
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_team.cuh"
#include "tests/fft/cuda/gpu_test_main.hpp"

namespace prism::fft::gpu {
namespace {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

template <int kN>
__host__ __device__ constexpr int teams_per_cta() {
  return TeamFft<kN>::kThreads >= 256 ? 1 : 256 / TeamFft<kN>::kThreads;
}

// Complex transforms of i16 pairs: element i of transform t is (in[t][i] / 32768) * window[i]
// for i < valid, zero beyond; output k is X[k] * filter[k].
template <int kN>
__global__ void filter_kernel(const short* in, const float* window, int valid, const Cf* filter,
                              const Cf* twiddles, Cf* out, int transforms) {
  using Fft = TeamFft<kN>;
  extern __shared__ float shared[];
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const int t = static_cast<int>(blockIdx.x) * teams_per_cta<kN>() + team;
  const bool active = t < transforms;  // idle teams still take part in the CTA's barriers
  const short* row = in + 2ll * kN * (active ? t : 0);
  Fft fft;
  fft.load(lane, [&](int i) {
    if (i >= valid) return Cf{0.0f, 0.0f};
    const float w = window[i];
    return Cf{row[2 * i] * (w / 32768.0f), row[2 * i + 1] * (w / 32768.0f)};
  });
  fft.run(Fft::planes(shared, team), twiddles, lane, [&](int, int k, Cf x) {
    if (active) out[static_cast<long long>(t) * kN + k] = cmul(x, filter[k]);
  });
}

// Real transforms of 2·kN floats: output k (0..kN) is scale * |X[k]|² in dB.
template <int kN>
__global__ void power_db_kernel(const float* in, float scale, const Cf* twiddles,
                                const Cf* real_twiddles, float* out, int transforms) {
  using Fft = TeamFft<kN>;
  extern __shared__ float shared[];
  const int team = static_cast<int>(threadIdx.x) / Fft::kThreads;
  const int lane = static_cast<int>(threadIdx.x) - team * Fft::kThreads;
  const int t = static_cast<int>(blockIdx.x) * teams_per_cta<kN>() + team;
  const bool active = t < transforms;
  const float* row = in + 2ll * kN * (active ? t : 0);
  Fft fft;
  fft.load(lane, [&](int i) { return Cf{row[2 * i], row[2 * i + 1]}; });
  fft.run_real(Fft::planes(shared, team), twiddles, real_twiddles, lane, [&](int, int k, Cf x) {
    if (active) out[static_cast<long long>(t) * (kN + 1) + k] = 10.0f * log10f(scale * (x.re * x.re + x.im * x.im));
  });
}

template <class T>
T* to_device(const std::vector<T>& host) {
  T* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<std::complex<double>> in(x), out(x.size());
  fftw_plan plan = fftw_plan_dft_1d(n, reinterpret_cast<fftw_complex*>(in.data()),
                                    reinterpret_cast<fftw_complex*>(out.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

template <int kN>
void check_filter_hooks() {
  constexpr int kTransforms = 2 * teams_per_cta<kN>() + 1;  // an idle team in the last CTA
  const int valid = kN - kN / 5;                            // the rest is zero-padded
  std::mt19937_64 rng(kN);
  std::uniform_int_distribution<int> sample(-32768, 32767);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<short> in(2ull * kN * kTransforms);
  for (short& s : in) s = static_cast<short>(sample(rng));
  std::vector<float> window(kN);
  for (int i = 0; i < kN; ++i) window[i] = 0.5f - 0.5f * std::cos(2.0 * M_PI * i / kN);
  std::vector<Cf> filter(kN);
  for (Cf& h : filter) h = Cf{unit(rng), unit(rng)};
  const std::vector<Cf> twiddles = stage_twiddle_table(kN);

  short* d_in = to_device(in);
  float* d_window = to_device(window);
  Cf* d_filter = to_device(filter);
  Cf* d_twiddles = to_device(twiddles);
  Cf* d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_out, sizeof(Cf) * kN * kTransforms));
  CUDA_OK(cudaMemset(d_out, 0xff, sizeof(Cf) * kN * kTransforms));  // NaN
  const int shared = teams_per_cta<kN>() * TeamFft<kN>::kSharedFloats * static_cast<int>(sizeof(float));
  CUDA_OK(cudaFuncSetAttribute(filter_kernel<kN>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const int ctas = (kTransforms + teams_per_cta<kN>() - 1) / teams_per_cta<kN>();
  filter_kernel<kN><<<ctas, teams_per_cta<kN>() * TeamFft<kN>::kThreads, shared>>>(
      d_in, d_window, valid, d_filter, d_twiddles, d_out, kTransforms);
  CUDA_OK(cudaGetLastError());
  std::vector<Cf> out(static_cast<std::size_t>(kN) * kTransforms);
  CUDA_OK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(Cf), cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_window);
  cudaFree(d_filter);
  cudaFree(d_twiddles);
  cudaFree(d_out);

  double worst = 0.0;
  for (int t = 0; t < kTransforms; ++t) {
    std::vector<std::complex<double>> x(kN, 0.0);
    for (int i = 0; i < valid; ++i) {
      const double w = window[i] / 32768.0;
      x[i] = {in[2ull * (t * kN + i)] * w, in[2ull * (t * kN + i) + 1] * w};
    }
    const auto X = dft(x);
    double num = 0.0, den = 0.0;
    for (int k = 0; k < kN; ++k) {
      const std::complex<double> ref = X[k] * std::complex<double>(filter[k].re, filter[k].im);
      const Cf got = out[static_cast<std::size_t>(t) * kN + k];
      num += std::norm(std::complex<double>(got.re, got.im) - ref);
      den += std::norm(ref);
    }
    const double error = std::sqrt(num / den);
    EXPECT_TRUE(error < 1e-6) << "kN " << kN << " transform " << t << ": relative L2 error " << error;
    worst = std::max(worst, error);
  }
  std::printf("  filter hooks, kN %5d: worst relative L2 error %.2e over %d transforms\n", kN, worst, kTransforms);
}

template <int kN>
void check_power_db_hooks() {
  constexpr int kTransforms = 2 * teams_per_cta<kN>() + 1;
  const float scale = 1.0f / (2.0f * kN);
  std::mt19937_64 rng(kN + 1);
  std::uniform_real_distribution<float> unit(-0.5f, 0.5f);
  std::vector<float> in(2ull * kN * kTransforms);
  for (float& x : in) x = unit(rng);
  const std::vector<Cf> twiddles = stage_twiddle_table(kN);
  const std::vector<Cf> real_twiddles = unit_roots(2ll * kN, kN + 1);
  float* d_in = to_device(in);
  Cf* d_twiddles = to_device(twiddles);
  Cf* d_real = to_device(real_twiddles);
  float* d_out = nullptr;
  const std::size_t outputs = static_cast<std::size_t>(kN + 1) * kTransforms;
  CUDA_OK(cudaMalloc(&d_out, sizeof(float) * outputs));
  CUDA_OK(cudaMemset(d_out, 0xff, sizeof(float) * outputs));
  const int shared = teams_per_cta<kN>() * TeamFft<kN>::kSharedFloats * static_cast<int>(sizeof(float));
  CUDA_OK(cudaFuncSetAttribute(power_db_kernel<kN>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const int ctas = (kTransforms + teams_per_cta<kN>() - 1) / teams_per_cta<kN>();
  power_db_kernel<kN><<<ctas, teams_per_cta<kN>() * TeamFft<kN>::kThreads, shared>>>(
      d_in, scale, d_twiddles, d_real, d_out, kTransforms);
  CUDA_OK(cudaGetLastError());
  std::vector<float> out(outputs);
  CUDA_OK(cudaMemcpy(out.data(), d_out, outputs * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_twiddles);
  cudaFree(d_real);
  cudaFree(d_out);

  double worst = 0.0;
  for (int t = 0; t < kTransforms; ++t) {
    std::vector<std::complex<double>> x(2 * kN);
    for (int i = 0; i < 2 * kN; ++i) x[i] = in[static_cast<std::size_t>(t) * 2 * kN + i];
    const auto X = dft(x);
    for (int k = 0; k <= kN; ++k) {
      const double power = scale * std::norm(X[k]);
      const float got = out[static_cast<std::size_t>(t) * (kN + 1) + k];
      // dB of bins far below the frame's level carry the FFT's absolute rounding; compare
      // the bins above -50 dB of the mean power (1/12 for this input), where float rounding
      // stays below 1e-3 dB.
      if (power < 1e-5 / 12.0) continue;
      const double error = std::abs(got - 10.0 * std::log10(power));
      EXPECT_FALSE(!(error < 1e-3)) << "kN " << kN << " transform " << t << " bin " << k << ": " << got
                                    << " dB against " << 10.0 * std::log10(power);
      worst = std::max(worst, error);
    }
  }
  std::printf("  |X|^2 dB hooks, real length %5d: worst error %.2e dB over %d transforms\n", 2 * kN, worst,
              kTransforms);
}

TEST(TeamFftHooks, ConvertWindowZeroPadAndFilterMatchFftwDouble) {
  check_filter_hooks<32>();
  check_filter_hooks<64>();
  check_filter_hooks<256>();
  check_filter_hooks<1024>();
  check_filter_hooks<2048>();
  check_filter_hooks<8192>();
}

TEST(TeamFftHooks, RealInputPowerAndDecibelsMatchFftwDouble) {
  check_power_db_hooks<32>();
  check_power_db_hooks<128>();
  check_power_db_hooks<512>();
  check_power_db_hooks<2048>();
  check_power_db_hooks<4096>();
  check_power_db_hooks<8192>();
}

// The output slots of a team: over all lanes, output_index and real_output_index each reach
// every k < kN exactly once (and kN from slot kOutputs), and where a real transform pairs the
// last stage's butterflies, each thread holds the partner kN - k of every k it holds.
template <int kN>
void check_output_slots() {
  using Fft = TeamFft<kN>;
  for (const bool real : {false, true}) {
    std::vector<int> seen(kN, 0);
    for (int lane = 0; lane < Fft::kThreads; ++lane) {
      std::vector<int> held;
      for (int slot = 0; slot < Fft::kOutputs; ++slot) {
        const int k = real ? Fft::real_output_index(lane, slot) : Fft::output_index(lane, slot);
        ASSERT_GE(k, 0);
        ASSERT_LT(k, kN);
        ++seen[k];
        held.push_back(k);
      }
      if (real && Fft::kPairedReal) {
        for (int k : held) {
          EXPECT_NE(std::find(held.begin(), held.end(), k == 0 ? 0 : kN - k), held.end())
              << "n " << kN << " lane " << lane << ": partner of " << k << " elsewhere";
        }
      }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), kN) << "n " << kN << (real ? " real" : "");
    EXPECT_EQ(Fft::output_index(0, Fft::kOutputs), kN);
    EXPECT_EQ(Fft::real_output_index(0, Fft::kOutputs), kN);
  }
}

TEST(TeamFftHooks, OutputSlotsCoverEveryIndexOnce) {
  check_output_slots<32>();
  check_output_slots<64>();
  check_output_slots<128>();
  check_output_slots<256>();
  check_output_slots<512>();
  check_output_slots<1024>();
  check_output_slots<2048>();
  check_output_slots<4096>();
  check_output_slots<8192>();
  check_output_slots<16384>();
}

}  // namespace
}  // namespace prism::fft::gpu

int main(int argc, char** argv) {
  if (const int skip = prism::fft::test::skip_without_device("qa_FftTeam")) return skip;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
