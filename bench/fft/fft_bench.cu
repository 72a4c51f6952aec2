// fft_bench: our CUDA FFT beside cuFFT on the same device buffers, plus a device-to-device copy
// as the bandwidth ceiling (bench/RESULTS.md records its figures): CUDA events around each
// execution, warm-up, median of 25 runs, ~1 GiB working set (512 MiB in, 512 MiB out), plan
// creation outside the timed region, fresh random input in [-0.5, 0.5) for every length (for c2r
// a valid Hermitian half: the imaginary parts of X[0] and X[n/2] zeroed; FFTW and ours ignore
// them, cuFFT 12000's C2R does not at every length: 256 and 1024-65536 differed from ours by up
// to 6e-2, bench/RESULTS.md "cuFFT's c2r and the imaginary parts of X[0] and X[n/2]"); c2c, r2c
// and c2r. Prints GB/s (one read of the input and one write of the output), GFLOP/s
// (5 N log2 N complex, 2.5 N log2 N real) and the ratio to cuFFT; --tune also times the
// planner's candidates per length (fft_wisdom.hpp, planner_candidates; prism fft-tune measures
// the same list and records the winners) and, for the short lengths, the direct DFT and the FFT.
// The kinds dct2, dct3 and dct4 time the GPU DCT (fft/cuda/cuda_dct.hpp, norm backward) beside
// cuFFT's run of the FFT inside it alone (r2c, c2r or c2c of the length the recipe asks for),
// checked first against CpuDct in double precision (the diff column, against cuFFT for the
// FFT kinds); bench/fft/dct_peers.py
// times cupyx.scipy.fft.dct, a DCT on cuFFT, on the same lengths.
// --precision double times the double-precision transforms (c2c, r2c, c2r): our backend's
// (fft/cuda/fft64_plan.hpp; cuFFT's double plans where ours do not reach) beside cuFFT's Z2Z, D2Z
// and Z2D, each first checked against a long-double FFT on the first rows (fresh random input,
// NaN-poisoned outputs): the error columns are ours and cuFFT's relative L2 error there.
// --shapes times multi-dimensional transforms instead (c2c, r2c, c2r of arrays such as 1024x1024
// or 256x256x256, as many arrays as fill the working set, at least one): our backend's row steps
// and columns passes (fft/cuda/fft_nd_layout.hpp) beside cuFFT's rank-2/3 plan, the c2r
// input the r2c of random reals, ours checked against cuFFT first; GFLOP/s count 5 N log2 N
// (2.5 for real) with N the elements of an array.
//
//   fft_bench [--csv FILE] [--tune] [--runs N] [--sizes N,N,...] [--kinds c2c,r2c,c2r,dct2,dct3,dct4]
//             [--shapes AxB,AxBxC,... | --shapes default] [--precision double]
//     (--sizes: only these lengths; --kinds: only these transforms, e.g. under a profiler;
//      default c2c,r2c,c2r; --shapes default: 256^2 ... 8192^2 and 64^3 ... 512^3)
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/cuda_dct.hpp"
#include "fft/cuda/dct_steps.hpp"
#include "fft/cuda/fft64_plan.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_tune.hpp"
#include "fft/cuda/fft_wisdom.hpp"
#include "tests/fft/cuda/dct_reference.hpp"
#include "tests/fft/cuda/fft64_reference.hpp"

namespace {

using prism::fft::PlanSpec;
using prism::fft::Transform;

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    const cudaError_t status_ = (call);                                                    \
    if (status_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,                    \
                   cudaGetErrorString(status_));                                           \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CHECK_CUFFT(call)                                                                  \
  do {                                                                                     \
    const cufftResult status_ = (call);                                                    \
    if (status_ != CUFFT_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d %s: cufftResult %d\n", __FILE__, __LINE__, #call,        \
                   static_cast<int>(status_));                                             \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr std::size_t kHalfWorkingSet = std::size_t{512} << 20;  // bytes per buffer


template <class Fn>
double median_ms(Fn&& fn, int runs, cudaEvent_t start, cudaEvent_t stop) {
  for (int i = 0; i < 3; ++i) fn();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    CHECK_CUDA(cudaEventRecord(start));
    fn();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK_CUDA(cudaGetLastError());
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string kind;
  std::string shape;  // multi-dimensional rows: "1024x1024" (n is then the elements of an array)
  std::size_t n;
  std::size_t batch;
  double ours_ms;
  double cufft_ms;
  double bytes;
  double flops;
  double max_diff;
  std::string algorithm;
};

double relative_difference(const float* a, const float* b, std::size_t count) {
  double d2 = 0.0;
  double r2 = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    d2 += d * d;
    r2 += static_cast<double>(b[i]) * b[i];
  }
  return r2 > 0 ? std::sqrt(d2 / r2) : std::sqrt(d2);
}

// The relative L2 error of the first `rows` rows of a device DCT output against CpuDct<double>
// on the same input (the reference of the DCT's tests).
double dct_error(const prism::fft::DctSpec& spec, const float* d_in, const float* d_out, std::size_t rows) {
  std::vector<float> in(rows * spec.n);
  std::vector<float> out(rows * spec.n);
  CHECK_CUDA(cudaMemcpy(in.data(), d_in, in.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<double> ref = prism::fft::test::dct_reference(spec, in, rows);
  return prism::fft::test::dct_row_error(out.data(), ref.data(), ref.size());
}

// One DCT row of the table: ours beside cuFFT's run of the recipe's FFT alone.
Row bench_dct(int type, std::size_t n, float* d_in, float* d_out, int runs,
              unsigned long long& seed, cudaEvent_t start, cudaEvent_t stop) {
  const std::size_t batch = std::max<std::size_t>(1, kHalfWorkingSet / (n * sizeof(float)));
  const prism::fft::DctSpec spec{.n = n, .batch = batch, .type = static_cast<prism::fft::DctType>(type)};
  prism::fft::gpu::fill_uniform_random(d_in, batch * n, seed++);
  CHECK_CUDA(cudaGetLastError());
  prism::fft::CudaDct dct(spec);
  CHECK_CUDA(cudaMemset(d_out, 0xFF, batch * n * sizeof(float)));
  dct.execute(d_in, d_out, nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  Row row;
  row.kind = "dct" + std::to_string(type);
  row.n = n;
  row.batch = batch;
  row.max_diff = dct_error(spec, d_in, d_out, std::min<std::size_t>(batch, std::max<std::size_t>(1, 65536 / n)));
  row.ours_ms = median_ms([&] { dct.execute(d_in, d_out, nullptr); }, runs, start, stop);

  // cuFFT's run of the inner FFT on scratch of its own (its rows are longer than the DCT's).
  const prism::fft::gpu::DctRecipe recipe = prism::fft::gpu::make_dct_recipe(spec);
  const std::size_t fft_in_bytes = batch * static_cast<std::size_t>(recipe.fft_input_row_bytes);
  const std::size_t fft_out_bytes = batch * static_cast<std::size_t>(recipe.fft_output_row_bytes);
  void* fft_in = nullptr;
  void* fft_out = nullptr;
  CHECK_CUDA(cudaMalloc(&fft_in, fft_in_bytes));
  CHECK_CUDA(cudaMalloc(&fft_out, fft_out_bytes));
  CHECK_CUDA(cudaMemset(fft_in, 0, fft_in_bytes));
  const Transform t = recipe.fft.transform;
  cufftHandle handle;
  int fft_n = static_cast<int>(recipe.fft.n);
  CHECK_CUFFT(cufftPlanMany(&handle, 1, &fft_n, nullptr, 1, 0, nullptr, 1, 0,
                            t == Transform::r2c ? CUFFT_R2C : t == Transform::c2r ? CUFFT_C2R : CUFFT_C2C,
                            static_cast<int>(batch)));
  row.cufft_ms = median_ms(
      [&] {
        if (t == Transform::r2c)
          CHECK_CUFFT(cufftExecR2C(handle, static_cast<float*>(fft_in), static_cast<cufftComplex*>(fft_out)));
        else if (t == Transform::c2r)
          CHECK_CUFFT(cufftExecC2R(handle, static_cast<cufftComplex*>(fft_in), static_cast<float*>(fft_out)));
        else
          CHECK_CUFFT(cufftExecC2C(handle, static_cast<cufftComplex*>(fft_in), static_cast<cufftComplex*>(fft_out),
                                   CUFFT_FORWARD));
      },
      runs, start, stop);
  CHECK_CUFFT(cufftDestroy(handle));
  cudaFree(fft_in);
  cudaFree(fft_out);
  row.bytes = 2.0 * static_cast<double>(batch) * n * sizeof(float);
  row.flops = 2.5 * n * std::log2(std::max<double>(2.0, static_cast<double>(n))) * batch;
  row.algorithm = dct.describe();
  return row;
}

// "AxB" or "AxBxC" into lengths; empty where the text is not one.
std::vector<std::size_t> parse_shape(const std::string& text) {
  std::vector<std::size_t> shape;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string item = text.substr(start, end - start);
    char* tail = nullptr;
    const unsigned long long value = std::strtoull(item.c_str(), &tail, 10);
    if (item.empty() || *tail != '\0' || value == 0) return {};
    shape.push_back(static_cast<std::size_t>(value));
    start = end + 1;
  }
  return shape.size() >= 2 && shape.size() <= 3 ? shape : std::vector<std::size_t>{};
}

// One multi-dimensional row of the table: our backend's plan beside cuFFT's, on the same buffers.
Row bench_nd(const std::string& kind, const std::vector<std::size_t>& shape, float* d_in, float* d_out,
             std::size_t buffer_bytes, int runs, unsigned long long& seed, cudaEvent_t start, cudaEvent_t stop,
             prism::fft::Backend& ours_backend, prism::fft::Backend& cufft_backend) {
  using prism::fft::NdPlanSpec;
  const Transform t = kind == "c2r" ? Transform::c2r : kind == "r2c" ? Transform::r2c : Transform::c2c_forward;
  NdPlanSpec spec{shape, 1, t};
  const std::size_t in_bytes = prism::fft::nd_input_elements(spec) * (t == Transform::r2c ? 4 : 8);
  const std::size_t out_bytes = prism::fft::nd_output_elements(spec) * (t == Transform::c2r ? 4 : 8);
  Row row;
  row.kind = kind;
  row.shape = prism::fft::shape_text(shape);
  row.n = prism::fft::nd_array_elements(spec, false);
  spec.batch = std::max<std::size_t>(1, kHalfWorkingSet / in_bytes);
  spec.batch = std::min(spec.batch, buffer_bytes / std::max(in_bytes, out_bytes));
  row.batch = spec.batch;
  if (spec.batch == 0) {
    row.batch = 0;
    return row;
  }
  // cuFFT's own rank-k plan, run as the 1-D rows are (its c2r may overwrite the input; the
  // backend's plan would copy it first, which is not cuFFT's time).
  const std::vector<std::size_t> lengths_nd = prism::fft::nd_effective_shape(spec);
  std::vector<int> lengths(lengths_nd.begin(), lengths_nd.end());
  cufftHandle handle;
  CHECK_CUFFT(cufftPlanMany(&handle, static_cast<int>(lengths.size()), lengths.data(), nullptr, 1, 0, nullptr, 1, 0,
                            t == Transform::c2r ? CUFFT_C2R : t == Transform::r2c ? CUFFT_R2C : CUFFT_C2C,
                            static_cast<int>(spec.batch)));
  auto run_cufft = [&] {
    if (t == Transform::c2r) {
      CHECK_CUFFT(cufftExecC2R(handle, reinterpret_cast<cufftComplex*>(d_in), d_out));
    } else if (t == Transform::r2c) {
      CHECK_CUFFT(cufftExecR2C(handle, d_in, reinterpret_cast<cufftComplex*>(d_out)));
    } else {
      CHECK_CUFFT(cufftExecC2C(handle, reinterpret_cast<cufftComplex*>(d_in), reinterpret_cast<cufftComplex*>(d_out),
                               CUFFT_FORWARD));
    }
  };
  auto fill_input = [&] {
    if (t == Transform::c2r) {  // the spectra of random real arrays, through cuFFT's r2c
      prism::fft::gpu::fill_uniform_random(d_out, spec.batch * out_bytes / sizeof(float), seed++);
      CHECK_CUDA(cudaGetLastError());
      cufft_backend.plan_nd(NdPlanSpec{shape, spec.batch, Transform::r2c})->execute(d_out, d_in, nullptr);
    } else {
      prism::fft::gpu::fill_uniform_random(d_in, spec.batch * in_bytes / sizeof(float), seed++);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
  };
  fill_input();
  auto ours = ours_backend.plan_nd(spec);
  // Same result as cuFFT on the first arrays (broken steps must not look fast).
  const std::size_t check_floats = std::min(spec.batch * out_bytes, std::size_t{64} << 20) / sizeof(float);
  std::vector<float> host_ours(check_floats), host_cufft(check_floats);
  CHECK_CUDA(cudaMemset(d_out, 0xFF, spec.batch * out_bytes));
  ours->execute(d_in, d_out, nullptr);
  CHECK_CUDA(cudaMemcpy(host_ours.data(), d_out, check_floats * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemset(d_out, 0xFF, spec.batch * out_bytes));
  run_cufft();
  CHECK_CUDA(cudaMemcpy(host_cufft.data(), d_out, check_floats * sizeof(float), cudaMemcpyDeviceToHost));
  row.max_diff = relative_difference(host_ours.data(), host_cufft.data(), check_floats);
  fill_input();  // cuFFT's c2r wrote over it
  row.ours_ms = median_ms([&] { ours->execute(d_in, d_out, nullptr); }, runs, start, stop);
  row.cufft_ms = median_ms(run_cufft, runs, start, stop);
  CHECK_CUFFT(cufftDestroy(handle));
  row.bytes = static_cast<double>(spec.batch) * static_cast<double>(in_bytes + out_bytes);
  row.flops = (t == Transform::c2c_forward ? 5.0 : 2.5) * static_cast<double>(row.n) *
              std::log2(static_cast<double>(row.n)) * static_cast<double>(spec.batch);
  row.algorithm = prism::fft::gpu::describe_cuda_nd_plan(spec);
  return row;
}

// One double-precision row: our backend's plan beside cuFFT's, both checked first against the
// long-double FFT on the first rows (their relative L2 errors returned in max_diff and
// cufft_diff). The input: fresh random rows of up to 8 MiB, repeated over the batch.
Row bench_fp64(const std::string& kind, std::size_t n, void* d_in, void* d_out, std::size_t buffer_bytes, int runs,
               unsigned long long& seed, cudaEvent_t start, cudaEvent_t stop, prism::fft::Backend& ours_backend,
               prism::fft::Backend& cufft_backend, double& cufft_diff) {
  const Transform t = kind == "c2r" ? Transform::c2r : kind == "r2c" ? Transform::r2c : Transform::c2c_forward;
  PlanSpec spec{n, 1, t, false};
  const std::size_t in_row_bytes = prism::fft::test::fp64_input_row_doubles(spec) * sizeof(double);
  const std::size_t out_row_bytes = prism::fft::test::fp64_output_row_doubles(spec) * sizeof(double);
  spec.batch = std::max<std::size_t>(1, kHalfWorkingSet / in_row_bytes);
  spec.batch = std::min(spec.batch, buffer_bytes / std::max(in_row_bytes, out_row_bytes));
  Row row;
  row.kind = kind;
  row.n = n;
  row.batch = spec.batch;
  if (spec.batch == 0) return row;
  // Fresh random rows (a valid Hermitian half for c2r) in the first 8 MiB, tiled over the rest.
  const std::size_t fresh_rows = std::clamp<std::size_t>((std::size_t{8} << 20) / in_row_bytes, 1, spec.batch);
  std::mt19937_64 rng(seed++);
  const std::vector<double> fresh = prism::fft::test::fp64_random_input(spec, fresh_rows, rng);
  for (std::size_t r = 0; r < spec.batch; r += fresh_rows) {
    const std::size_t rows = std::min(fresh_rows, spec.batch - r);
    CHECK_CUDA(cudaMemcpy(static_cast<char*>(d_in) + r * in_row_bytes, fresh.data(), rows * in_row_bytes,
                          cudaMemcpyHostToDevice));
  }
  // The reference's rows: up to 2^20 points, at least one row.
  const std::size_t check_rows = std::clamp<std::size_t>((std::size_t{1} << 20) / n, 1, std::min<std::size_t>(fresh_rows, 4));
  auto error_of = [&](prism::fft::Plan& plan) {
    CHECK_CUDA(cudaMemset(d_out, 0xFF, spec.batch * out_row_bytes));
    plan.execute(d_in, d_out, nullptr);
    std::vector<double> out(check_rows * out_row_bytes / sizeof(double));
    CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
    return prism::fft::test::fp64_relative_error(spec, fresh.data(), out.data(), check_rows);
  };
  auto ours = ours_backend.plan(spec);
  row.max_diff = error_of(*ours);
  cufft_diff = error_of(*cufft_backend.plan(spec));
  row.ours_ms = median_ms([&] { ours->execute(d_in, d_out, nullptr); }, runs, start, stop);
  // cuFFT timed on a plan of its own, its Z2D free to overwrite the input (the backend's plan
  // copies the input first, which is not cuFFT's time); the input is not read again.
  cufftHandle handle;
  int n_int = static_cast<int>(n);
  CHECK_CUFFT(cufftPlanMany(&handle, 1, &n_int, nullptr, 1, 0, nullptr, 1, 0,
                            t == Transform::c2r ? CUFFT_Z2D : t == Transform::r2c ? CUFFT_D2Z : CUFFT_Z2Z,
                            static_cast<int>(spec.batch)));
  row.cufft_ms = median_ms(
      [&] {
        if (t == Transform::c2r)
          CHECK_CUFFT(cufftExecZ2D(handle, static_cast<cufftDoubleComplex*>(d_in), static_cast<double*>(d_out)));
        else if (t == Transform::r2c)
          CHECK_CUFFT(cufftExecD2Z(handle, static_cast<double*>(d_in), static_cast<cufftDoubleComplex*>(d_out)));
        else
          CHECK_CUFFT(cufftExecZ2Z(handle, static_cast<cufftDoubleComplex*>(d_in),
                                   static_cast<cufftDoubleComplex*>(d_out), CUFFT_FORWARD));
      },
      runs, start, stop);
  CHECK_CUFFT(cufftDestroy(handle));
  row.bytes = static_cast<double>(spec.batch) * static_cast<double>(in_row_bytes + out_row_bytes);
  row.flops = (t == Transform::c2c_forward ? 5.0 : 2.5) * n * std::log2(std::max(2.0, static_cast<double>(n))) *
              static_cast<double>(spec.batch);
  const std::string problem =
      prism::fft::gpu::fp64_plan_problem(spec, prism::fft::gpu::device_shared_bytes_limit());
  row.algorithm = problem.empty() ? prism::fft::gpu::make_fp64_layout(spec, prism::fft::gpu::device_shared_bytes_limit()).algorithm
                                  : "cuFFT's double plan (" + problem + ")";
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv_path;
  bool tune = false;
  bool double_precision = false;
  int runs = 25;
  std::vector<std::size_t> only_sizes;
  std::vector<std::string> kinds{"c2c", "r2c", "c2r"};
  std::vector<std::vector<std::size_t>> shapes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!std::strcmp(argv[i], "--tune")) tune = true;
    else if (!std::strcmp(argv[i], "--precision") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (value != "single" && value != "double") {
        std::fprintf(stderr, "fft_bench: --precision takes single or double, not '%s'\n", value.c_str());
        return 2;
      }
      double_precision = value == "double";
    }
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(20, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      for (char* item = std::strtok(argv[++i], ","); item; item = std::strtok(nullptr, ",")) {
        only_sizes.push_back(static_cast<std::size_t>(std::strtoull(item, nullptr, 10)));
      }
    }
    else if (!std::strcmp(argv[i], "--kinds") && i + 1 < argc) {
      kinds.clear();
      for (char* item = std::strtok(argv[++i], ","); item; item = std::strtok(nullptr, ",")) {
        if (std::strcmp(item, "c2c") && std::strcmp(item, "r2c") && std::strcmp(item, "c2r") &&
            std::strcmp(item, "dct2") && std::strcmp(item, "dct3") && std::strcmp(item, "dct4")) {
          std::fprintf(stderr, "fft_bench: --kinds takes c2c, r2c, c2r, dct2, dct3 and dct4, not '%s'\n", item);
          return 2;
        }
        kinds.emplace_back(item);
      }
      if (kinds.empty()) {
        std::fprintf(stderr, "fft_bench: --kinds names no transform (c2c, r2c, c2r, dct2, dct3, dct4)\n");
        return 2;
      }
    }
    else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc) {
      const std::string list = argv[++i];
      if (list == "default") {
        for (std::size_t side = 256; side <= 8192; side *= 2) shapes.push_back({side, side});
        for (std::size_t side = 64; side <= 512; side *= 2) shapes.push_back({side, side, side});
        continue;
      }
      std::size_t begin = 0;
      while (begin <= list.size()) {
        const std::size_t end = std::min(list.find(',', begin), list.size());
        const std::vector<std::size_t> shape = parse_shape(list.substr(begin, end - begin));
        if (shape.empty()) {
          std::fprintf(stderr, "fft_bench: --shapes takes AxB or AxBxC lengths (e.g. 1024x1024,256x256x256), not '%s'\n",
                       list.substr(begin, end - begin).c_str());
          return 2;
        }
        shapes.push_back(shape);
        begin = end + 1;
      }
    }
    else {
      std::fprintf(stderr,
                   "usage: fft_bench [--csv FILE] [--tune] [--runs N>=20] [--sizes N,N,...] "
                   "[--kinds c2c,r2c,c2r,dct2,dct3,dct4] [--shapes AxB,AxBxC,...|default] [--precision double]\n");
      return 2;
    }
  }
  int device = 0;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int cufft_version = 0;
  cufftGetVersion(&cufft_version);
  std::printf("device: %s, %d SMs, L2 %d MB; cuFFT %d; runs %d (median)\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, cufft_version, runs);

  // The working set, or the largest array of --shapes where that is more (512^3 c2c: 1 GiB).
  std::size_t buffer_bytes = kHalfWorkingSet + (std::size_t{16} << 20);
  for (const auto& shape : shapes) {
    const prism::fft::NdPlanSpec spec{shape, 1, Transform::r2c};
    buffer_bytes = std::max({buffer_bytes, prism::fft::nd_array_elements(spec, false) * 8,
                             prism::fft::nd_output_elements(spec) * 8});
  }
  float* d_in = nullptr;
  float* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, buffer_bytes));
  CHECK_CUDA(cudaMalloc(&d_out, buffer_bytes));
  cudaEvent_t start;
  cudaEvent_t stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));

  CHECK_CUDA(cudaMemset(d_in, 0x3c, buffer_bytes));
  const double copy_ms = median_ms(
      [&] { CHECK_CUDA(cudaMemcpyAsync(d_out, d_in, kHalfWorkingSet, cudaMemcpyDeviceToDevice)); },
      runs, start, stop);
  const double copy_gbs = 2.0 * kHalfWorkingSet / (copy_ms * 1e-3) / 1e9;
  std::printf("device-to-device copy of %zu MiB: %.3f ms, %.0f GB/s (read + write)\n\n",
              kHalfWorkingSet >> 20, copy_ms, copy_gbs);

  std::vector<std::size_t> sizes;
  for (int e = 8; e <= 24; ++e) sizes.push_back(std::size_t{1} << e);
  for (std::size_t n : {1000, 1920, 4095, 4097, 10007, 48000, 65537}) sizes.push_back(n);
  if (!only_sizes.empty()) sizes = only_sizes;

  auto ours_backend = prism::fft::make_cuda_backend();
  std::vector<Row> rows;
  unsigned long long seed = 12345;
  std::vector<float> host_ours;
  std::vector<float> host_cufft;

  // The single-precision table's header, where its rows follow (--precision double has a table of
  // its own and leaves out the single-precision lengths).
  if (!double_precision || !shapes.empty())
    std::printf("%-4s %9s %7s | %9s %8s %8s | %9s %8s | %6s | %9s | %s\n", "kind", "n", "batch", "ours ms", "GB/s",
                "GFLOP/s", "cuFFT ms", "GB/s", "ratio", "diff", "our algorithm");
  if (!shapes.empty()) {
    auto cufft_backend = prism::fft::make_cufft_backend();
    for (const std::string& kind : kinds) {
      if (kind != "c2c" && kind != "r2c" && kind != "c2r") continue;
      for (const auto& shape : shapes) {
        const Row row = bench_nd(kind, shape, d_in, d_out, buffer_bytes, runs, seed, start, stop, *ours_backend,
                                 *cufft_backend);
        if (row.batch == 0) {
          std::fprintf(stderr, "fft_bench: %s %s does not fit the buffers, skipped\n", kind.c_str(), row.shape.c_str());
          continue;
        }
        rows.push_back(row);
        std::printf("%-4s %11s %5zu | %9.3f %8.0f %8.0f | %9.3f %8.0f | %6.2f | %9.2e | %s\n", kind.c_str(),
                    row.shape.c_str(), row.batch, row.ours_ms, row.bytes / (row.ours_ms * 1e6),
                    row.flops / (row.ours_ms * 1e6), row.cufft_ms, row.bytes / (row.cufft_ms * 1e6),
                    row.cufft_ms / row.ours_ms, row.max_diff, row.algorithm.c_str());
        std::fflush(stdout);
      }
    }
    kinds.clear();  // --shapes times the multi-dimensional transforms only
  }
  if (double_precision && shapes.empty()) {  // --shapes times the multi-dimensional transforms only
    // Powers of two where the single-precision table has them, and the smooth and prime lengths
    // of its other rows (4097 and 10007 through cuFFT's double plans).
    if (only_sizes.empty()) {
      sizes.clear();
      for (int e = 8; e <= 22; e += 2) sizes.push_back(std::size_t{1} << e);
      for (std::size_t n : {1000, 1920, 4095, 4097, 8192, 10007, 48000}) sizes.push_back(n);
    }
    auto ours64 = prism::fft::make_cuda_backend(prism::fft::Precision::float64);
    auto cufft64 = prism::fft::make_cufft_backend(prism::fft::Precision::float64);
    std::printf("double precision: %s beside %s; error: relative L2 against a long-double FFT\n",
                ours64->describe().c_str(), cufft64->describe().c_str());
    std::printf("%-4s %9s %7s | %9s %8s | %9s %8s | %6s | %9s %9s | %s\n", "kind", "n", "batch", "ours ms", "GB/s",
                "cuFFT ms", "GB/s", "ratio", "ours err", "cuFFT err", "our algorithm");
    for (const std::string& kind : kinds) {
      if (kind != "c2c" && kind != "r2c" && kind != "c2r") continue;
      for (std::size_t n : sizes) {
        double cufft_error = 0.0;
        const Row row = bench_fp64(kind, n, d_in, d_out, buffer_bytes, runs, seed, start, stop, *ours64, *cufft64,
                                   cufft_error);
        if (row.batch == 0) continue;
        rows.push_back(row);
        std::printf("%-4s %9zu %7zu | %9.3f %8.0f | %9.3f %8.0f | %6.2f | %9.2e %9.2e | %s\n", kind.c_str(), n,
                    row.batch, row.ours_ms, row.bytes / (row.ours_ms * 1e6), row.cufft_ms,
                    row.bytes / (row.cufft_ms * 1e6), row.cufft_ms / row.ours_ms, row.max_diff, cufft_error,
                    row.algorithm.c_str());
        std::fflush(stdout);
      }
    }
    kinds.clear();
  }
  for (const std::string& kind_name : kinds) {
    const char* kind = kind_name.c_str();
    if (kind_name.rfind("dct", 0) == 0) {
      for (std::size_t n : sizes) {
        const Row row = bench_dct(kind_name[3] - '0', n, d_in, d_out, runs, seed, start, stop);
        rows.push_back(row);
        std::printf("%-4s %9zu %7zu | %9.3f %8.0f %8.0f | %9.3f %8.0f | %6.2f | %9.2e | %s (cuFFT: its FFT alone)\n",
                    kind, n, row.batch, row.ours_ms, row.bytes / (row.ours_ms * 1e6),
                    row.flops / (row.ours_ms * 1e6), row.cufft_ms, row.bytes / (row.cufft_ms * 1e6),
                    row.cufft_ms / row.ours_ms, row.max_diff, row.algorithm.c_str());
        std::fflush(stdout);
      }
      continue;
    }
    const bool inverse = !std::strcmp(kind, "c2r");
    const bool real = inverse || !std::strcmp(kind, "r2c");
    for (std::size_t n : sizes) {
      const std::size_t complex_row_bytes = real ? (n / 2 + 1) * 2 * sizeof(float) : n * 2 * sizeof(float);
      const std::size_t signal_row_bytes = real ? n * sizeof(float) : n * 2 * sizeof(float);
      const std::size_t in_row_bytes = inverse ? complex_row_bytes : signal_row_bytes;
      const std::size_t out_row_bytes = inverse ? signal_row_bytes : complex_row_bytes;
      std::size_t batch = std::max<std::size_t>(1, kHalfWorkingSet / in_row_bytes);
      // Short r2c rows: the spectrum is longer than the signal (n/2 + 1 complex values for n
      // floats), so fewer rows, that the output fits.
      if (batch * out_row_bytes > buffer_bytes) batch = buffer_bytes / out_row_bytes;
      if (batch == 0) {
        std::fprintf(stderr, "fft_bench: %s %zu does not fit the %zu MiB buffers, skipped\n", kind, n, buffer_bytes >> 20);
        continue;
      }
      const PlanSpec spec{n, batch, inverse ? Transform::c2r : real ? Transform::r2c : Transform::c2c_forward, false};

      const std::size_t in_floats = batch * in_row_bytes / sizeof(float);
      auto fill_input = [&] {
        prism::fft::gpu::fill_uniform_random(d_in, in_floats, seed++);
        CHECK_CUDA(cudaGetLastError());
        if (inverse) {  // Im X[0], and Im X[n/2] for even n, of every row
          CHECK_CUDA(cudaMemset2D(d_in + 1, in_row_bytes, 0, sizeof(float), batch));
          if (n % 2 == 0) CHECK_CUDA(cudaMemset2D(d_in + n + 1, in_row_bytes, 0, sizeof(float), batch));
        }
      };
      fill_input();

      auto ours = ours_backend->plan(spec);
      cufftHandle handle;
      int n_int = static_cast<int>(n);
      CHECK_CUFFT(cufftPlanMany(&handle, 1, &n_int, nullptr, 1, 0, nullptr, 1, 0,
                                inverse ? CUFFT_C2R : real ? CUFFT_R2C : CUFFT_C2C, static_cast<int>(batch)));
      auto run_cufft = [&] {
        if (inverse) {  // cuFFT's C2R may overwrite its input
          CHECK_CUFFT(cufftExecC2R(handle, reinterpret_cast<cufftComplex*>(d_in), d_out));
        } else if (real) {
          CHECK_CUFFT(cufftExecR2C(handle, d_in, reinterpret_cast<cufftComplex*>(d_out)));
        } else {
          CHECK_CUFFT(cufftExecC2C(handle, reinterpret_cast<cufftComplex*>(d_in),
                                   reinterpret_cast<cufftComplex*>(d_out), CUFFT_FORWARD));
        }
      };
      auto run_ours = [&] { ours->execute(d_in, d_out, nullptr); };

      // Same result as cuFFT on the first rows (a broken kernel must not look fast).
      const std::size_t check_floats = std::min<std::size_t>(batch * out_row_bytes, std::size_t{8} << 20) / sizeof(float);
      host_ours.resize(check_floats);
      host_cufft.resize(check_floats);
      CHECK_CUDA(cudaMemset(d_out, 0xFF, batch * out_row_bytes));
      run_ours();
      CHECK_CUDA(cudaMemcpy(host_ours.data(), d_out, check_floats * sizeof(float), cudaMemcpyDeviceToHost));
      run_cufft();
      CHECK_CUDA(cudaMemcpy(host_cufft.data(), d_out, check_floats * sizeof(float), cudaMemcpyDeviceToHost));
      const double diff = relative_difference(host_ours.data(), host_cufft.data(), check_floats);
      fill_input();  // cuFFT's C2R wrote over it

      Row row;
      row.kind = kind;
      row.n = n;
      row.batch = batch;
      row.ours_ms = median_ms(run_ours, runs, start, stop);
      row.cufft_ms = median_ms(run_cufft, runs, start, stop);
      row.bytes = static_cast<double>(batch) * (in_row_bytes + out_row_bytes);
      row.flops = (real ? 2.5 : 5.0) * n * std::log2(static_cast<double>(n)) * batch;
      row.max_diff = diff;
      row.algorithm = prism::fft::gpu::describe_cuda_plan(spec);
      CHECK_CUFFT(cufftDestroy(handle));
      ours.reset();
      rows.push_back(row);
      std::printf("%-4s %9zu %7zu | %9.3f %8.0f %8.0f | %9.3f %8.0f | %6.2f | %9.2e | %s\n",
                  kind, n, batch, row.ours_ms, row.bytes / (row.ours_ms * 1e6),
                  row.flops / (row.ours_ms * 1e6), row.cufft_ms, row.bytes / (row.cufft_ms * 1e6),
                  row.cufft_ms / row.ours_ms, diff, row.algorithm.c_str());
      std::fflush(stdout);

      if (tune) {
        // Tuning mode: the planner's candidates (the list prism fft-tune measures), timed on the
        // same buffers; the first is the default.
        const auto time_options = [&](const prism::fft::gpu::PlannerOptions& options) {
          auto plan = prism::fft::gpu::make_cuda_plan(spec, options);
          const double ms = median_ms([&] { plan->execute(d_in, d_out, nullptr); }, runs, start, stop);
          std::printf("    tune %-58s : %8.3f ms %8.0f GB/s  %s\n",
                      prism::fft::gpu::describe(options).c_str(), ms, row.bytes / (ms * 1e6),
                      prism::fft::gpu::make_plan_layout(spec, options).algorithm.c_str());
        };
        for (const prism::fft::gpu::PlannerOptions& options : prism::fft::gpu::planner_candidates(spec)) {
          time_options(options);
        }
        // Bluestein in place of the prime stages (radices 37 to 127), and the direct DFT and the
        // FFT for the short lengths that can take either: the planner takes the prime stages and
        // the direct DFT for their accuracy, so the candidates above do not vary them.
        if (prism::fft::gpu::prime_stage_count(static_cast<long long>(n)) > 0) {
          prism::fft::gpu::PlannerOptions options;
          options.prime_stages = 0;
          time_options(options);
        }
        if (inverse &&
            prism::fft::gpu::can_take_full_length_c2r(static_cast<long long>(n), prism::fft::gpu::PlannerOptions{})) {
          for (const int full_length : {1, -1}) {
            prism::fft::gpu::PlannerOptions options;
            options.full_length_c2r = full_length;
            time_options(options);
          }
        }
        if (prism::fft::gpu::direct_dft_length(static_cast<long long>(n), real) > 0) {
          for (const int direct : {1, -1}) {
            prism::fft::gpu::PlannerOptions options;
            options.direct_dft = direct;
            time_options(options);
          }
        }
      }
    }
  }

  std::printf("\ncopy %.0f GB/s; ours / copy and ratio to cuFFT per row above\n", copy_gbs);
  if (!csv_path.empty()) {
    if (FILE* f = std::fopen(csv_path.c_str(), "w")) {
      std::fprintf(f, "kind,n,batch,ours_ms,ours_gbs,ours_gflops,cufft_ms,cufft_gbs,ratio,copy_gbs,diff_vs_cufft,algorithm\n");
      for (const Row& r : rows) {
        const std::string n = r.shape.empty() ? std::to_string(r.n) : r.shape;
        std::fprintf(f, "%s,%s,%zu,%.5f,%.1f,%.1f,%.5f,%.1f,%.3f,%.1f,%.3e,\"%s\"\n", r.kind.c_str(), n.c_str(),
                     r.batch, r.ours_ms, r.bytes / (r.ours_ms * 1e6), r.flops / (r.ours_ms * 1e6),
                     r.cufft_ms, r.bytes / (r.cufft_ms * 1e6), r.cufft_ms / r.ours_ms, copy_gbs,
                     r.max_diff, r.algorithm.c_str());
      }
      std::fclose(f);
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
