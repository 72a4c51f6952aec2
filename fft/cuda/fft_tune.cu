// The tuning mode of our CUDA FFT (fft_tune.hpp): each planner candidate is checked against the
// default plan's output, then timed with CUDA events; and the plan-time lookup of the winner
// for the current device.
#include "fft/cuda/fft_tune.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_plan.hpp"

namespace prism::fft::gpu {

namespace {

// Candidates differ only in blocking, so anything beyond float rounding is a wrong result.
constexpr double kAgreement = 1e-5;
// A candidate replaces the default only below 99% of its time: run-to-run noise must not make
// the wisdom flip between equivalent blockings.
constexpr double kRequiredGain = 0.99;
constexpr int kWarmUpRuns = 3;
constexpr int kMinRuns = 20;
constexpr int kThreads = 256;

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("FFT tuning: ") + what + ": " + cudaGetErrorString(status));
  }
}

struct DeviceBuffer {
  void* data = nullptr;
  DeviceBuffer(std::size_t bytes, const char* what) {
    check_cuda(cudaMalloc(&data, std::max<std::size_t>(bytes, 16)), what);
  }
  ~DeviceBuffer() {
    if (data) cudaFree(data);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* floats() const { return static_cast<float*>(data); }
};

struct OwnStream {
  cudaStream_t stream = nullptr;
  OwnStream() { check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~OwnStream() {
    if (stream) cudaStreamDestroy(stream);
  }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
};

struct OwnEvent {
  cudaEvent_t event = nullptr;
  OwnEvent() { check_cuda(cudaEventCreate(&event), "cudaEventCreate"); }
  ~OwnEvent() {
    if (event) cudaEventDestroy(event);
  }
  OwnEvent(const OwnEvent&) = delete;
  OwnEvent& operator=(const OwnEvent&) = delete;
};

// Tuning one device must not move the caller's thread to it for good.
struct CurrentDeviceScope {
  int previous = 0;
  bool restore = false;
  explicit CurrentDeviceScope(int device) {
    restore = cudaGetDevice(&previous) == cudaSuccess;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
  }
  ~CurrentDeviceScope() {
    if (restore) cudaSetDevice(previous);
  }
};

// Uniform floats in [-0.5, 0.5) from a per-element hash (no generator state): fill_uniform_random.
__global__ void fill_random(float* data, std::size_t count, unsigned long long seed) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    data[i] = static_cast<float>(x >> 40) * (1.0f / 16777216.0f) - 0.5f;
  }
}

// c2r input: X[0] and X[n/2] (n even) of a real signal's spectrum are real.
__global__ void make_spectrum_ends_real(float* rows, std::size_t batch, long long row_complex,
                                        long long n) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= batch) return;
  float* r = rows + row * static_cast<std::size_t>(row_complex) * 2;
  r[1] = 0.0f;
  if (n % 2 == 0) r[2 * (n / 2) + 1] = 0.0f;
}

// sums[0] += sum (out - ref)^2, sums[1] += sum ref^2, in double. A NaN in `out` (the poison
// of an element never written) makes sums[0] NaN.
__global__ void squared_sums(const float* out, const float* ref, std::size_t count, double* sums) {
  __shared__ double difference_part[kThreads];
  __shared__ double norm_part[kThreads];
  double difference = 0.0;
  double norm = 0.0;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const double d = static_cast<double>(out[i]) - static_cast<double>(ref[i]);
    difference += d * d;
    norm += static_cast<double>(ref[i]) * static_cast<double>(ref[i]);
  }
  difference_part[threadIdx.x] = difference;
  norm_part[threadIdx.x] = norm;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      difference_part[threadIdx.x] += difference_part[threadIdx.x + half];
      norm_part[threadIdx.x] += norm_part[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], difference_part[0]);
    atomicAdd(&sums[1], norm_part[0]);
  }
}

unsigned grid_for(std::size_t count) {
  return static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 4096));
}

std::size_t input_floats(const PlanSpec& spec) {
  const std::size_t row = static_cast<std::size_t>(input_row_length(spec));
  return (spec.transform == Transform::r2c ? row : 2 * row) * spec.batch;
}

std::size_t output_floats(const PlanSpec& spec) {
  const std::size_t row = static_cast<std::size_t>(output_row_length(spec));
  return (spec.transform == Transform::c2r ? row : 2 * row) * spec.batch;
}

// ||out - ref|| / ||ref|| over `count` floats on the device; NaN when out holds a NaN.
double relative_l2(const float* out, const float* ref, std::size_t count, double* sums,
                   cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(sums, 0, 2 * sizeof(double), stream), "cudaMemsetAsync");
  squared_sums<<<grid_for(count), kThreads, 0, stream>>>(out, ref, count, sums);
  check_cuda(cudaGetLastError(), "squared_sums launch");
  double host[2] = {0.0, 0.0};
  check_cuda(cudaMemcpyAsync(host, sums, sizeof(host), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream), "relative_l2");
  return host[1] > 0.0 ? std::sqrt(host[0] / host[1]) : std::sqrt(host[0]);
}

double median(std::vector<float> times) {
  std::sort(times.begin(), times.end());
  const std::size_t middle = times.size() / 2;
  return times.size() % 2 ? times[middle] : 0.5 * (static_cast<double>(times[middle - 1]) + times[middle]);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2e", value);
  return text;
}

}  // namespace

DeviceId cuda_device_id(int device) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  DeviceId id;
  id.name = prop.name;
  id.major = prop.major;
  id.minor = prop.minor;
  return id;
}

WisdomEntry tune(const PlanSpec& requested, int device, const TuneSettings& settings) {
  PlanSpec spec = requested;
  spec.in_place = false;  // the buffers of one plan are compared and timed out of place
  if (static_cast<long long>(spec.n) > kMaxPlannedLength) {
    throw std::invalid_argument("FFT length " + std::to_string(spec.n) +
                                " is beyond our planner (cuFFT computes it): nothing to tune");
  }
  const int runs = std::max(kMinRuns, settings.runs);
  const auto tuning_began = std::chrono::steady_clock::now();
  const std::vector<PlannerOptions> candidates = planner_candidates(spec);

  CurrentDeviceScope device_scope(device);
  WisdomEntry entry;
  entry.key = wisdom_key(cuda_device_id(device), spec);
  entry.batch = spec.batch;
  entry.tuned_at = utc_now();
#ifdef PRISM_VERSION
  entry.prism_version = PRISM_VERSION;
#endif

  const std::size_t in_count = input_floats(spec);
  const std::size_t out_count = output_floats(spec);
  DeviceBuffer input(in_count * sizeof(float), "cudaMalloc input");
  DeviceBuffer output(out_count * sizeof(float), "cudaMalloc output");
  DeviceBuffer reference(out_count * sizeof(float), "cudaMalloc reference");
  DeviceBuffer sums(2 * sizeof(double), "cudaMalloc sums");
  OwnStream own_stream;
  const cudaStream_t stream = own_stream.stream;
  OwnEvent start;
  OwnEvent stop;

  const unsigned long long seed =
      (static_cast<unsigned long long>(std::random_device{}()) << 32) ^ std::random_device{}();
  // The same input before every candidate's checked run, in case a plan reads and writes it.
  auto write_input = [&] {
    fill_uniform_random(input.floats(), in_count, seed, stream);
    if (spec.transform == Transform::c2r) {
      make_spectrum_ends_real<<<static_cast<unsigned>((spec.batch + kThreads - 1) / kThreads),
                                kThreads, 0, stream>>>(input.floats(), spec.batch,
                                                       input_row_length(spec),
                                                       static_cast<long long>(spec.n));
      check_cuda(cudaGetLastError(), "make_spectrum_ends_real launch");
    }
  };

  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (settings.progress) settings.progress(i, candidates.size());
    const bool is_default = i == 0;
    CandidateTime measured;
    measured.options = candidates[i];
    measured.median_ms = std::numeric_limits<double>::quiet_NaN();

    std::unique_ptr<Plan> plan;
    try {
      plan = make_cuda_plan(spec, candidates[i]);
      write_input();
      check_cuda(cudaMemsetAsync(output.data, 0xFF, out_count * sizeof(float), stream), "cudaMemsetAsync");
      plan->execute(input.data, output.data, stream);
      check_cuda(cudaStreamSynchronize(stream), "execute");
    } catch (const std::exception& e) {
      if (is_default) throw std::runtime_error(std::string("the default plan failed: ") + e.what());
      measured.rejected = std::string("failed: ") + e.what();
      // A failed launch leaves a (non-sticky) error behind; a sticky one fails the next call.
      cudaGetLastError();
      entry.candidates.push_back(std::move(measured));
      continue;
    }
    if (is_default) {
      // The reference of the others; its own L2 with itself is NaN where it left an element.
      if (!std::isfinite(relative_l2(output.floats(), output.floats(), out_count, static_cast<double*>(sums.data), stream))) {
        throw std::runtime_error("the default plan's output holds NaN (elements never written)");
      }
      check_cuda(cudaMemcpyAsync(reference.data, output.data, out_count * sizeof(float),
                                 cudaMemcpyDeviceToDevice, stream),
                 "cudaMemcpyAsync reference");
    } else {
      const double difference = relative_l2(output.floats(), reference.floats(), out_count,
                                            static_cast<double*>(sums.data), stream);
      if (!(difference < kAgreement)) {
        measured.rejected = "output differs from the default plan's (relative L2 " +
                            scientific(difference) + ")";
        entry.candidates.push_back(std::move(measured));
        continue;
      }
    }

    for (int w = 0; w < kWarmUpRuns; ++w) plan->execute(input.data, output.data, stream);
    std::vector<float> times;
    times.reserve(static_cast<std::size_t>(runs));
    for (int r = 0; r < runs; ++r) {
      check_cuda(cudaEventRecord(start.event, stream), "cudaEventRecord");
      plan->execute(input.data, output.data, stream);
      check_cuda(cudaEventRecord(stop.event, stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(stop.event), "cudaEventSynchronize");
      float ms = 0.0f;
      check_cuda(cudaEventElapsedTime(&ms, start.event, stop.event), "cudaEventElapsedTime");
      times.push_back(ms);
    }
    measured.median_ms = median(std::move(times));
    entry.candidates.push_back(std::move(measured));
  }

  const CandidateTime& by_default = entry.candidates.front();
  const CandidateTime* fastest = nullptr;
  for (std::size_t i = 1; i < entry.candidates.size(); ++i) {
    const CandidateTime& c = entry.candidates[i];
    if (!c.rejected.empty()) continue;
    if (!fastest || c.median_ms < fastest->median_ms) fastest = &c;
  }
  const bool gain = fastest && fastest->median_ms < kRequiredGain * by_default.median_ms;
  const CandidateTime& winner = gain ? *fastest : by_default;
  entry.best = winner.options;
  entry.best_ms = winner.median_ms;
  entry.default_ms = by_default.median_ms;
  entry.tune_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - tuning_began).count();
  return entry;
}

PlannerOptions planner_options_for(const PlanSpec& spec) {
  const std::string path = default_wisdom_path();
  if (path.empty()) return {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // not left behind for the plan's own error checks
    return {};
  }
  // cudaGetDeviceProperties takes milliseconds: once per device.
  static std::mutex mutex;
  static std::vector<std::pair<int, DeviceId>> known;
  DeviceId id;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = std::find_if(known.begin(), known.end(),
                                    [device](const auto& entry) { return entry.first == device; });
    if (found != known.end()) {
      id = found->second;
    } else {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return {};
      }
      id.name = prop.name;
      id.major = prop.major;
      id.minor = prop.minor;
      known.emplace_back(device, id);
    }
  }
  return lookup_planner_options(id, spec, path);
}

void fill_uniform_random(float* device_data, std::size_t count, unsigned long long seed, void* stream) {
  if (count == 0) return;
  fill_random<<<grid_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(device_data, count, seed);
  check_cuda(cudaGetLastError(), "fill_random launch");
}

}  // namespace prism::fft::gpu
