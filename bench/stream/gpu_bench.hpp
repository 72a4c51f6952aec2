// What the GPU benchmarks share (stream_bench.cu, bench/filter/fir_gpu_bench.cpp): checked CUDA
// calls, random input in a sample format, medians and percentiles, the pinned copy limits measured
// in the same run, a source of prefilled pinned chunks, and the printed and CSV record of a figure.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/source.hpp"

namespace prism::bench {

using prism::SampleFormat;
using prism::StreamInfo;
using Clock = std::chrono::steady_clock;

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                       \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

inline FILE* csv = nullptr;
inline void record(const std::string& section, const std::string& what, double value, const char* unit,
            double limit = 0.0) {
  if (limit > 0)
    std::printf("  %-58s %10.2f %-6s limit %8.2f  ratio %5.1f%%\n", what.c_str(), value, unit, limit,
                100.0 * value / limit);
  else
    std::printf("  %-58s %10.3f %s\n", what.c_str(), value, unit);
  if (csv) std::fprintf(csv, "%s,%s,%.6g,%s,%.6g\n", section.c_str(), what.c_str(), value, unit, limit);
}

// Random bits: only the copy limits use it (the copied values do not matter there).
inline void fill_random(void* data, std::size_t bytes, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto* words = static_cast<std::uint32_t*>(data);
  for (std::size_t i = 0; i < bytes / 4; ++i) words[i] = rng();
}

inline void fill_format(SampleFormat f, void* data, std::size_t samples, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  if (f == SampleFormat::cf32) {
    auto* x = static_cast<float*>(data);
    for (std::size_t i = 0; i < 2 * samples; ++i) x[i] = u(rng);
  } else if (f == SampleFormat::f32) {
    auto* x = static_cast<float*>(data);
    for (std::size_t i = 0; i < samples; ++i) x[i] = u(rng);
  } else if (f == SampleFormat::cf64 || f == SampleFormat::f64) {
    auto* x = static_cast<double*>(data);
    for (std::size_t i = 0; i < (f == SampleFormat::cf64 ? 2 : 1) * samples; ++i) x[i] = u(rng);
  } else if (f == SampleFormat::ci16) {
    auto* x = static_cast<std::int16_t*>(data);
    for (std::size_t i = 0; i < 2 * samples; ++i) x[i] = static_cast<std::int16_t>(u(rng) * 32767.0f);
  } else {
    throw std::logic_error("fill_format: no fill for " + std::string(prism::format_name(f)));
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

inline double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0.0;
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

// The median device time in ms of `work` (enqueued on `stream`) over 20 runs after 2 warm-ups,
// timed with events on that stream; `before` runs ahead of each, outside the timed span.
template <class Work, class Before>
double median_stream_ms(cudaStream_t stream, Work&& work, Before&& before) {
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<double> times;
  for (int r = 0; r < 22; ++r) {
    before();
    CHECK(cudaEventRecord(e0, stream));
    work();
    CHECK(cudaEventRecord(e1, stream));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) times.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return median(times);
}
template <class Work>
double median_stream_ms(cudaStream_t stream, Work&& work) {
  return median_stream_ms(stream, work, [] {});
}

// The device a benchmark runs on, printed; without one the benchmark exits 77 (ctest SKIP).
// `csv`, when open, gets its header.
inline void require_device_or_skip() {
  const prism::cuda::DeviceInfo device = prism::cuda::probe_device(0);
  if (!device.usable) {
    std::printf("SKIP: %s\n", device.reason.c_str());
    std::exit(77);
  }
  std::printf("device: %s\n", device.describe().c_str());
  if (csv) std::fprintf(csv, "section,what,value,unit,limit\n");
}

// ---- limits --------------------------------------------------------------------------------------

struct Limits {
  double h2d = 0, d2h = 0, both = 0;  // GB/s
};

inline Limits measure_copy_limits() {
  const std::size_t bytes = std::size_t{256} << 20;
  void *host = nullptr, *host2 = nullptr, *dev = nullptr, *dev2 = nullptr;
  CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocDefault));
  CHECK(cudaHostAlloc(&host2, bytes, cudaHostAllocDefault));
  CHECK(cudaMalloc(&dev, bytes));
  CHECK(cudaMalloc(&dev2, bytes));
  fill_random(host, bytes, 1);
  cudaStream_t a, b;
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  auto time_copy = [&](bool to_device, bool both) {
    std::vector<double> gbps;
    for (int r = 0; r < 22; ++r) {
      CHECK(cudaEventRecord(e0, a));
      if (to_device || both) CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, a));
      if (!to_device || both) {
        if (both) {
          CHECK(cudaStreamWaitEvent(b, e0));
          CHECK(cudaMemcpyAsync(host2, dev2, bytes, cudaMemcpyDeviceToHost, b));
          cudaEvent_t done;
          CHECK(cudaEventCreate(&done));
          CHECK(cudaEventRecord(done, b));
          CHECK(cudaStreamWaitEvent(a, done));
          CHECK(cudaEventDestroy(done));
        } else {
          CHECK(cudaMemcpyAsync(host2, dev2, bytes, cudaMemcpyDeviceToHost, a));
        }
      }
      CHECK(cudaEventRecord(e1, a));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 2) gbps.push_back((both ? 2.0 : 1.0) * static_cast<double>(bytes) / (ms * 1e6));
    }
    return median(gbps);
  };
  Limits l;
  l.h2d = time_copy(true, false);
  l.d2h = time_copy(false, false);
  l.both = time_copy(true, true);
  cudaFreeHost(host);
  cudaFreeHost(host2);
  cudaFree(dev);
  cudaFree(dev2);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  return l;
}

// A source of `seconds` worth of chunks: each chunk of the graph's pool is filled with random
// samples the first time it comes by, then handed over as it is (no copy per chunk). The timed
// window starts at the first chunk that comes by a second time, once every chunk of the pool is
// filled (filling takes far longer than streaming) and the graph is running.
class PrefilledSource final : public prism::Source {
 public:
  PrefilledSource(const StreamInfo& info, double seconds) : info_(info), seconds_(seconds) {}
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    if (filled_.insert(dst).second) {
      fill_format(info_.format, dst, max_samples, static_cast<std::uint32_t>(filled_.size()));
      return max_samples;
    }
    if (timed_chunks_ == 0) start_ = Clock::now();
    else if (std::chrono::duration<double>(Clock::now() - start_).count() >= seconds_) return 0;
    ++timed_chunks_;
    return max_samples;
  }
  std::string describe() const override { return "prefilled pinned chunks"; }
  Clock::time_point start() const { return start_; }
  std::uint64_t timed_chunks() const { return timed_chunks_; }

 private:
  StreamInfo info_;
  double seconds_;
  std::set<std::byte*> filled_;
  std::uint64_t timed_chunks_ = 0;
  Clock::time_point start_;
};


}  // namespace prism::bench
