// channel_gpu_bench: the channel stages on the GPU (pipeline/cuda/cuda_channel.hpp) — shift,
// gain, am, fm (narrow and wide), resample (2.4 MHz to 48 kHz), usb, cw — beside the CPU's same
// stage and the device copy floor,
// in one run (bench/RESULTS.md records them):
//   check   2^20 fresh random items through the GPU stage into an output poisoned with NaN,
//           against the CPU's on the same items (relative L2 at most 1e-6, 1e-5 for usb and
//           resample; every output written)
//   gpu     process() on one device chunk of --items items (default 2^24), cf32 at 2.4 MHz
//           (usb and cw at 48 kHz, where those demodulators run), median of 20 calls timed with
//           events on the stage's stream
//   cpu     the CPU stage on the same chunk in host memory (one core: the engines are
//           single-threaded), median of 5 calls
//   copy    a device-to-device copy of the input's bytes and the output's: the floor of a stage
//           that reads and writes every item once
//
//   channel_gpu_bench [--items N] [--csv FILE]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/stream/gpu_bench.hpp"
#include "pipeline/chunk.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/gpu_fir_plan.hpp"
#include "pipeline/stage_registry.hpp"

namespace {

using namespace prism::bench;
using prism::ChunkPool;
using prism::PortDescription;

struct Subject {
  const char* spec;
  double rate;
  double tolerance;  // the check's relative L2: the band-pass sums thousands of floats in another order
};

std::unique_ptr<prism::Stage> make(const std::string& spec, prism::fft::BackendKind backend) {
  prism::StageEnvironment environment;
  environment.backend = backend;
  return std::move(prism::make_stage(prism::parse_stage_spec(spec), environment).stage);
}

std::unique_ptr<ChunkPool> pool(prism::MemoryDomain domain, std::size_t items, std::size_t bytes) {
  ChunkPool::Shape shape;
  shape.count = 1;
  shape.capacity = std::max<std::size_t>(items, 1);
  shape.item_bytes = bytes;
  shape.domain = domain;
  return std::make_unique<ChunkPool>(shape);
}

StreamInfo cf32_at(double rate) {
  StreamInfo s;
  s.format = SampleFormat::cf32;
  s.sample_rate = rate;
  return s;
}

bool check(const Subject& subject) {
  const std::size_t items = std::size_t{1} << 20;
  const PortDescription in = PortDescription::of_samples(cf32_at(subject.rate));
  std::vector<std::byte> input(items * in.item_bytes());
  fill_format(SampleFormat::cf32, input.data(), items, 77);
  auto gpu = make(subject.spec, prism::fft::BackendKind::cuda);
  const PortDescription out = gpu->configure(in, items);
  auto gpu_in = pool(gpu->input_domain(), items, in.item_bytes());
  auto gpu_out = pool(gpu->input_domain(), items, out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef a = gpu_in->acquire(never), b = gpu_out->acquire(never);
  CHECK(cudaMemcpy(a->data, input.data(), input.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(b->data, 0xFF, items * out.item_bytes()));  // NaN
  CHECK(cudaDeviceSynchronize());  // the legacy stream's work, before the stage's stream reads it
  a->items = items;
  const std::size_t written = gpu->process(*a, *b);
  CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(gpu->stream())));
  std::vector<float> got(written * out.item_bytes() / sizeof(float));
  CHECK(cudaMemcpy(got.data(), b->data, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  auto cpu = make(subject.spec, prism::fft::BackendKind::cpu);
  cpu->configure(in, items);
  auto cpu_in = pool(prism::MemoryDomain::host(), items, in.item_bytes());
  auto cpu_out = pool(prism::MemoryDomain::host(), items, out.item_bytes());
  prism::ChunkRef c = cpu_in->acquire(never), d = cpu_out->acquire(never);
  std::memcpy(c->data, input.data(), input.size());
  c->items = items;
  const std::size_t expected_count = cpu->process(*c, *d);
  // usb and lsb on the GPU (the fir's overlap-save) hold the items of a segment not yet complete
  // for the next call (fewer than the longest FFT), where the CPU's direct products give every
  // output at once; every other stage gives the CPU's count.
  const std::string spec = subject.spec;
  const bool by_segments = spec.rfind("usb", 0) == 0 || spec.rfind("lsb", 0) == 0;
  const std::size_t held_back = expected_count - std::min(written, expected_count);
  if (written > expected_count || (by_segments ? held_back >= prism::kGpuFirMaxFftLength : held_back != 0)) {
    std::printf("  CHECK FAILED %s: %zu outputs on the GPU, %zu on the CPU\n", subject.spec, written, expected_count);
    return false;
  }
  const float* expected = d->as<float>();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) {
      std::printf("  CHECK FAILED %s: output float %zu not written (NaN)\n", subject.spec, i);
      return false;
    }
    num += (static_cast<double>(got[i]) - expected[i]) * (static_cast<double>(got[i]) - expected[i]);
    den += static_cast<double>(expected[i]) * expected[i];
  }
  const double error = std::sqrt(num / std::max(den, 1e-300));
  std::printf("  check %s: %zu outputs, relative L2 %.2e against the CPU\n", subject.spec, written, error);
  return error <= subject.tolerance;
}

// Median ms of process() on one device chunk; `out_bytes` gets the bytes one call writes.
double gpu_ms(const Subject& subject, std::size_t items, std::size_t& out_bytes, std::string& description) {
  const StreamInfo stream = cf32_at(subject.rate);
  auto stage = make(subject.spec, prism::fft::BackendKind::cuda);
  const PortDescription out = stage->configure(PortDescription::of_samples(stream), items);
  auto inputs = pool(stage->input_domain(), items, stream.frame_bytes());
  auto outputs = pool(stage->input_domain(), items, out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef input = inputs->acquire(never), output = outputs->acquire(never);
  std::vector<std::byte> host(items * stream.frame_bytes());
  fill_format(SampleFormat::cf32, host.data(), items, 5);
  CHECK(cudaMemcpy(input->data, host.data(), host.size(), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());
  input->items = items;
  std::size_t written = 0;
  const double ms = median_stream_ms(static_cast<cudaStream_t>(stage->stream()),
                                     [&] { written = stage->process(*input, *output); }, [&] { stage->reset(); });
  out_bytes = written * out.item_bytes();
  description = stage->describe();
  return ms;
}

double cpu_ms(const Subject& subject, std::size_t items) {
  const StreamInfo stream = cf32_at(subject.rate);
  auto stage = make(subject.spec, prism::fft::BackendKind::cpu);
  const PortDescription out = stage->configure(PortDescription::of_samples(stream), items);
  auto inputs = pool(prism::MemoryDomain::host(), items, stream.frame_bytes());
  auto outputs = pool(prism::MemoryDomain::host(), items, out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef input = inputs->acquire(never), output = outputs->acquire(never);
  fill_format(SampleFormat::cf32, input->data, items, 5);
  input->items = items;
  std::vector<double> times;
  for (int r = 0; r < 6; ++r) {
    stage->reset();
    const auto t0 = Clock::now();
    stage->process(*input, *output);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (r > 0) times.push_back(ms);
  }
  return median(times);
}

double copy_ms(std::size_t bytes) {
  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  const double ms = median_stream_ms(nullptr, [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  cudaFree(a);
  cudaFree(b);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t items = std::size_t{1} << 24;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--items" && i + 1 < argc) {
      items = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--csv" && i + 1 < argc) {
      csv = std::fopen(argv[++i], "w");
    } else {
      std::fprintf(stderr, "usage: channel_gpu_bench [--items N] [--csv FILE]\n");
      return 2;
    }
  }
  if (items == 0) {
    std::fprintf(stderr, "channel_gpu_bench: --items must be at least 1\n");
    return 2;
  }
  require_device_or_skip();
  const Subject subjects[] = {
      {"gain:6", 2.4e6, 1e-6},  {"shift:250000", 2.4e6, 1e-6}, {"am", 2.4e6, 1e-6}, {"fm", 2.4e6, 1e-6},
      {"fm:wide", 2.4e6, 1e-6}, {"resample:48000", 2.4e6, 1e-5}, {"usb", 48000, 1e-5}, {"cw", 48000, 1e-6},
  };
  bool checked = true;
  std::printf("check: 2^20 items, GPU against CPU\n");
  for (const Subject& s : subjects) checked = check(s) && checked;
  if (!checked) return 1;
  std::printf("process() on %zu cf32 items: GPU (median of 20) and CPU (median of 5), GS/s of input\n", items);
  for (const Subject& s : subjects) {
    std::size_t out_bytes = 0;
    std::string description;
    const double gpu = gpu_ms(s, items, out_bytes, description);
    const double cpu = cpu_ms(s, items);
    // A copy of half the bytes the stage reads and writes moves as many.
    const double floor = copy_ms((items * 8 + out_bytes) / 2);
    const double n = static_cast<double>(items);
    std::printf("  %s: GPU %.3f ms, CPU %.2f ms  [%s]\n", s.spec, gpu, cpu, description.c_str());
    record("gpu", std::string(s.spec) + " GPU (limit: the copy floor)", n / gpu / 1e6, "GS/s", n / floor / 1e6);
    record("cpu", std::string(s.spec) + " CPU", n / cpu / 1e6, "GS/s");
  }
  return 0;
}
