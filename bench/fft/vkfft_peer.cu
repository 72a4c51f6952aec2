// vkfft_peer: VkFFT's DCT as a benchmark peer of fft_bench --kinds dct2,dct3,dct4, on the same
// working set (rows of n float32 filling 512 MiB, batched 1-D, in place, as VkFFT runs by default):
// CUDA events around VkFFTAppend, 3 warm-ups, median of 25, plan creation (VkFFT's run-time
// compilation) outside the timed region; fresh random input in [-0.5, 0.5) for the check (the
// timed calls then transform the same buffer in place again and again). Before timing, the
// first row is checked against a direct DCT in double precision (O(n²), for n up to 16384), up to
// the one constant factor VkFFT's unnormalised DCT may differ by, which is printed.
//
// VkFFT is not part of prism and none of its code is in this tree: build this file by hand on the
// GPU machine against a copy of VkFFT's headers (v1.3.4, its vkFFT/ folder), e.g.
//   nvcc -O3 -std=c++17 -arch=sm_90 -DVKFFT_BACKEND=1 -I VKFFT/vkFFT bench/fft/vkfft_peer.cu \
//        -lcuda -lnvrtc -o vkfft_peer
//   ./vkfft_peer --sizes 256,4096,4097 --types 2,3,4
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vkFFT.h"

namespace {

constexpr std::size_t kHalfWorkingSet = std::size_t{512} << 20;

#define CHECK_CUDA(call)                                                                        \
  do {                                                                                          \
    const cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_));                     \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

std::vector<std::size_t> parse_list(const char* text) {
  std::vector<std::size_t> values;
  std::string copy(text);
  for (char* item = std::strtok(copy.data(), ","); item; item = std::strtok(nullptr, ","))
    values.push_back(std::strtoull(item, nullptr, 10));
  return values;
}

// scipy's unnormalised DCT of one row, in double precision, directly.
std::vector<double> direct_dct(const std::vector<float>& x, int type) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  const double pi = 3.14159265358979323846;
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      if (type == 2) sum += 2.0 * x[j] * std::cos(pi * k * (2.0 * j + 1) / (2.0 * n));
      if (type == 3) sum += (j == 0 ? 1.0 : 2.0) * x[j] * std::cos(pi * j * (2.0 * k + 1) / (2.0 * n));
      if (type == 4) sum += 2.0 * x[j] * std::cos(pi * (2.0 * j + 1) * (2.0 * k + 1) / (4.0 * n));
    }
    y[k] = sum;
  }
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes{256, 1024, 4096, 16384, 65536, 1048576, 1000, 4095, 4097, 10007, 48000};
  std::vector<std::size_t> types{2, 3, 4};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--types") && i + 1 < argc) types = parse_list(argv[++i]);
    else {
      std::fprintf(stderr, "usage: vkfft_peer [--sizes N,N,...] [--types 2,3,4]\n");
      return 2;
    }
  }
  CHECK_CUDA(cudaSetDevice(0));
  CUdevice device = 0;
  cuDeviceGet(&device, 0);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  float* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, kHalfWorkingSet));
  cudaEvent_t start;
  cudaEvent_t stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::mt19937 rng(20261204);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  std::printf("VkFFT %d\n%-5s %9s %7s | %9s %8s | %9s %10s\n", VkFFTGetVersion(), "kind", "n", "batch",
              "VkFFT ms", "GB/s", "error", "its scale");
  for (const std::size_t type : types) {
    for (const std::size_t n : sizes) {
      const std::size_t batch = std::max<std::size_t>(1, kHalfWorkingSet / (n * sizeof(float)));
      std::vector<float> host(batch * n);
      for (float& v : host) v = uniform(rng);
      CHECK_CUDA(cudaMemcpy(buffer, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));

      VkFFTConfiguration configuration = {};
      VkFFTApplication app = {};
      pfUINT buffer_size = static_cast<pfUINT>(batch * n * sizeof(float));
      configuration.FFTdim = 1;
      configuration.size[0] = n;
      configuration.numberBatches = batch;
      configuration.performDCT = type;
      configuration.device = &device;
      configuration.stream = &stream;
      configuration.num_streams = 1;
      configuration.buffer = reinterpret_cast<void**>(&buffer);
      configuration.bufferSize = &buffer_size;
      const VkFFTResult planned = initializeVkFFT(&app, configuration);
      if (planned != VKFFT_SUCCESS) {
        std::printf("dct%zu %9zu %7zu | VkFFT could not plan it (VkFFTResult %d)\n", type, n, batch,
                    static_cast<int>(planned));
        deleteVkFFT(&app);
        continue;
      }
      VkFFTLaunchParams launch = {};
      launch.buffer = reinterpret_cast<void**>(&buffer);
      // Forward: DCT-II for type 2, and the type asked for otherwise (VkFFT's inverse of type 2 is
      // type 3; of 3, type 2).
      auto run = [&] {
        const VkFFTResult result = VkFFTAppend(&app, -1, &launch);
        if (result != VKFFT_SUCCESS) {
          std::fprintf(stderr, "VkFFTAppend: VkFFTResult %d\n", static_cast<int>(result));
          std::exit(1);
        }
      };
      std::string check = "-";
      std::string scale_text = "-";
      if (n <= 16384) {
        run();
        CHECK_CUDA(cudaStreamSynchronize(stream));
        std::vector<float> row(n);
        CHECK_CUDA(cudaMemcpy(row.data(), buffer, n * sizeof(float), cudaMemcpyDeviceToHost));
        const std::vector<double> ref =
            direct_dct(std::vector<float>(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n)),
                       static_cast<int>(type));
        double dot = 0.0;
        double ref2 = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
          dot += row[k] * ref[k];
          ref2 += ref[k] * ref[k];
        }
        const double scale = dot / ref2;  // least-squares factor between VkFFT's and scipy's
        double d2 = 0.0;
        for (std::size_t k = 0; k < n; ++k) d2 += std::pow(row[k] - scale * ref[k], 2);
        char text[64];
        std::snprintf(text, sizeof text, "%.2e", std::sqrt(d2 / ref2) / std::fabs(scale));
        check = text;
        std::snprintf(text, sizeof text, "%.4g", scale);
        scale_text = text;
      }
      for (int w = 0; w < 3; ++w) run();
      std::vector<float> times;
      for (int r = 0; r < 25; ++r) {
        CHECK_CUDA(cudaEventRecord(start, stream));
        run();
        CHECK_CUDA(cudaEventRecord(stop, stream));
        CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      const double ms = times[times.size() / 2];
      std::printf("dct%zu %9zu %7zu | %9.3f %8.0f | %9s %10s\n", type, n, batch, ms,
                  2.0 * batch * n * sizeof(float) / (ms * 1e6), check.c_str(), scale_text.c_str());
      std::fflush(stdout);
      deleteVkFFT(&app);
    }
  }
  cudaFree(buffer);
  return 0;
}
