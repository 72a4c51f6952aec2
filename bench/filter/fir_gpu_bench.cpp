// fir_gpu_bench: the fir stage on the GPU (pipeline/cuda/cuda_fir.hpp), each figure beside its
// limit measured in the same run (bench/RESULTS.md records them; bench/filter/fir_gpu_peers.py
// measures cupyx's oaconvolve and fftconvolve on the same sizes):
//   copy    a device-to-device copy of the kernel section's input: the floor of a stage that
//           reads and writes every item once
//   kernel  process() on one device chunk of 2^26 items (--items: other chunk sizes, e.g. where
//           the decimation's fold starts to pay; PRISM_GPU_FIR_FOLD=always|never pins it), cf32
//           and f32, a low-pass of 63, 255, 1023, 2047, 4095, 8191, 16385 and 65535 taps
//           (partitioned beyond 2048; --taps: a list of others; --fft-length N: the fir's fft_length, which
//           partitions taps longer than N) designed as firwin, D = 1 and 8 (--decimations: others):
//           median of 20 calls timed with events on the stage's stream. Each configuration is
//           first checked: 2^20 fresh random items through the GPU stage, configured for the
//           timed chunk (whose size picks the FFT length), into an output poisoned with NaN,
//           against the CPU's fir on the same taps (relative L2 at most 2e-5 over the outputs
//           both returned, every one written)
//   stream  chunks of 2^22 items in pinned memory -> h2d -> fir -> d2h -> a sink, 3 chunks in
//           flight, --seconds each, cf32 and ci16 in, against the pinned H2D + D2H limit
// --precision double: the fir's precision=double, cf64 and f64 items in the copy and kernel
// sections (checked against the CPU's double to 1e-12), each configuration on --backend cuda (our
// FP64 FFT) and cufft (cuFFT's double plans); cf64 and ci16 streamed.
//
//   fir_gpu_bench [--seconds S] [--csv FILE] [--only copy|kernel|stream] [--items N,N...] [--taps M,M...]
//                 [--decimations D,D...] [--fft-length N] [--precision single|double]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/stream/gpu_bench.hpp"
#include "pipeline/chunk.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/callback_sink.hpp"

namespace {

using namespace prism::bench;
using prism::Chunk;
using prism::ChunkPool;
using prism::PortDescription;

constexpr double kRate = 1e6;

std::size_t fft_length = 0;    // --fft-length: 0, the fir's own choice
bool double_precision = false;  // --precision double

std::string spec_for(std::size_t taps, std::size_t decimation) {
  return "fir:lowpass=100000,numtaps=" + std::to_string(taps) + ",decimate=" + std::to_string(decimation) +
         (fft_length != 0 ? ",fft_length=" + std::to_string(fft_length) : "") +
         (double_precision ? ",precision=double" : "");
}

// n output reals (float or double, as the precision) from `data`, as doubles.
std::vector<double> reals_of(const void* data, std::size_t n) {
  std::vector<double> v(n);
  if (double_precision) std::memcpy(v.data(), data, n * sizeof(double));
  else std::copy_n(static_cast<const float*>(data), n, v.begin());
  return v;
}

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

StreamInfo stream_of(SampleFormat format) {
  StreamInfo s;
  s.format = format;
  s.sample_rate = kRate;
  return s;
}

// The GPU stage's outputs for `items` fresh random items against the CPU's, the stage configured
// for chunks of `chunk` items as the timing's (its plan follows the largest chunk); false on a
// mismatch.
bool check(const std::string& spec, SampleFormat format, std::size_t items, std::size_t chunk,
           prism::fft::BackendKind backend = prism::fft::BackendKind::cuda) {
  const StreamInfo stream = stream_of(format);
  const PortDescription in = PortDescription::of_samples(stream);
  std::vector<std::byte> input(items * stream.frame_bytes());
  fill_format(format, input.data(), items, 77);
  auto gpu = make(spec, backend);
  const PortDescription out = gpu->configure(in, std::max(items, chunk));
  auto gpu_in = pool(gpu->input_domain(), items, in.item_bytes());
  auto gpu_out = pool(gpu->input_domain(), gpu->max_output(items), out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef a = gpu_in->acquire(never), b = gpu_out->acquire(never);
  CHECK(cudaMemcpy(a->data, input.data(), input.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(b->data, 0xFF, b->capacity * out.item_bytes()));  // NaN
  // Both ran on the legacy stream, which the stage's non-blocking stream does not wait for (the
  // memset had landed after the kernel's first outputs in a run on the H200).
  CHECK(cudaDeviceSynchronize());
  a->items = items;
  const std::size_t written = gpu->process(*a, *b);
  CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(gpu->stream())));
  std::vector<std::byte> got_bytes(written * out.item_bytes());
  CHECK(cudaMemcpy(got_bytes.data(), b->data, got_bytes.size(), cudaMemcpyDeviceToHost));
  const std::size_t real_bytes = double_precision ? sizeof(double) : sizeof(float);
  std::vector<double> got = reals_of(got_bytes.data(), got_bytes.size() / real_bytes);

  auto cpu = make(spec, prism::fft::BackendKind::cpu);
  cpu->configure(in, items);
  auto cpu_in = pool(prism::MemoryDomain::host(), items, in.item_bytes());
  auto cpu_out = pool(prism::MemoryDomain::host(), cpu->max_output(items), out.item_bytes());
  prism::ChunkRef c = cpu_in->acquire(never), d = cpu_out->acquire(never);
  std::memcpy(c->data, input.data(), input.size());
  c->items = items;
  const std::size_t expected_count = cpu->process(*c, *d);
  // The two backends cut the stream into segments of different lengths, so one call returns
  // different counts of the same outputs: their common part is compared.
  const std::size_t common = std::min(written, expected_count) * out.item_bytes() / real_bytes;
  const std::vector<double> expected = reals_of(d->data, common);
  if (common < got.size() / 2) {
    std::printf("  CHECK FAILED %s: %zu outputs on the GPU, %zu on the CPU\n", spec.c_str(), written, expected_count);
    return false;
  }
  got.resize(common);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) {
      std::printf("  CHECK FAILED %s: output float %zu not written (NaN)\n", spec.c_str(), i);
      return false;
    }
    num += (got[i] - expected[i]) * (got[i] - expected[i]);
    den += expected[i] * expected[i];
  }
  const double error = std::sqrt(num / std::max(den, 1e-300));
  std::printf("  check %s %s: %zu outputs compared, relative L2 %.2e against the CPU\n", spec.c_str(),
              std::string(prism::format_name(format)).c_str(), common * real_bytes / out.item_bytes(), error);
  return error <= (double_precision ? 1e-12 : 2e-5);
}

// Median ms of process() on one device chunk of `items`.
double kernel_ms(const std::string& spec, SampleFormat format, std::size_t items, std::string& description,
                 prism::fft::BackendKind backend = prism::fft::BackendKind::cuda) {
  const StreamInfo stream = stream_of(format);
  auto stage = make(spec, backend);
  const PortDescription out = stage->configure(PortDescription::of_samples(stream), items);
  auto inputs = pool(stage->input_domain(), items, stream.frame_bytes());
  auto outputs = pool(stage->input_domain(), stage->max_output(items), out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef input = inputs->acquire(never), output = outputs->acquire(never);
  std::vector<std::byte> host(items * stream.frame_bytes());
  fill_format(format, host.data(), items, 5);
  CHECK(cudaMemcpy(input->data, host.data(), host.size(), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());  // the legacy stream's copy, before the stage's stream reads it
  input->items = items;
  const double ms = median_stream_ms(static_cast<cudaStream_t>(stage->stream()),
                                     [&] { stage->process(*input, *output); }, [&] { stage->reset(); });
  description = stage->describe();
  return ms;
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

// Items per second (and bytes in + out per second) streamed through source -> fir -> sink.
struct StreamResult {
  double items_per_s = 0, gbps = 0;
  bool balanced = false;
};

StreamResult stream_through(const std::string& spec, SampleFormat format, double seconds) {
  const StreamInfo stream = stream_of(format);
  const std::size_t chunk = std::size_t{1} << 22;
  PrefilledSource source(stream, seconds);
  prism::Graph graph;
  auto stage = make(spec, prism::fft::BackendKind::cuda);
  const prism::Graph::Node in = graph.add_source(source);
  const prism::Graph::Node fir = graph.add_stage(std::move(stage));
  graph.connect(in, fir);
  std::size_t out_item_bytes = 0;
  std::uint64_t out_items = 0;
  prism::CallbackSink::Functions functions;
  functions.on_begin = [&](const PortDescription& d) { out_item_bytes = d.item_bytes(); };
  functions.on_chunk = [&](const Chunk& c) { out_items += c.items; };
  graph.connect(fir, graph.add_sink(std::make_unique<prism::CallbackSink>(prism::PortKind::samples, functions)));
  prism::RunConfig config;
  config.block_samples = chunk;
  config.block_count = 4;
  config.in_flight = 3;
  prism::StopToken stop;
  const prism::RunReport report = graph.run(config, stop);
  const double elapsed = std::chrono::duration<double>(Clock::now() - source.start()).count();
  StreamResult r;
  const double items = static_cast<double>(source.timed_chunks() * chunk);
  r.items_per_s = items / elapsed;
  // Output bytes in the same proportion to the input as over the whole run.
  const double out_per_in = report.samples_read > 0 ? static_cast<double>(out_items) / report.samples_read : 0.0;
  r.gbps = items * (stream.frame_bytes() + out_per_in * out_item_bytes) / elapsed / 1e9;
  r.balanced = report.outcome == prism::RunOutcome::completed && report.accounting_mismatch().empty();
  if (!r.balanced) std::printf("  run: %s %s\n", report.error.c_str(), report.accounting_mismatch().c_str());
  return r;
}

}  // namespace

// "65536,1048576" -> {65536, 1048576}; empty on anything that is not a list of positive integers.
std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return {};
    values.push_back(std::stoull(item));
    if (values.back() == 0) return {};
    at = comma + 1;
  }
  return values;
}

int main(int argc, char** argv) {
  double seconds = 5.0;
  std::string only;
  std::vector<std::size_t> chunk_sizes = {std::size_t{1} << 26};
  std::vector<std::size_t> tap_counts = {63, 255, 1023, 2047, 4095, 8191, 16385, 65535};
  std::vector<std::size_t> decimations = {1, 8};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--csv" && i + 1 < argc) csv = std::fopen(argv[++i], "w");
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--items" && i + 1 < argc && !(chunk_sizes = parse_list(argv[++i])).empty()) continue;
    else if (a == "--taps" && i + 1 < argc && !(tap_counts = parse_list(argv[++i])).empty()) continue;
    else if (a == "--fft-length" && i + 1 < argc) fft_length = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--decimations" && i + 1 < argc && !(decimations = parse_list(argv[++i])).empty()) continue;
    else if (a == "--precision" && i + 1 < argc && (std::strcmp(argv[i + 1], "single") == 0 ||
                                                     std::strcmp(argv[i + 1], "double") == 0))
      double_precision = std::strcmp(argv[++i], "double") == 0;
    else {
      std::fprintf(stderr,
                   "usage: fir_gpu_bench [--seconds S] [--csv FILE] [--only copy|kernel|stream] [--items N,N...] "
                   "[--taps M,M...] [--decimations D,D...] [--fft-length N] [--precision single|double]\n");
      return 2;
    }
  }
  const SampleFormat complex_items = double_precision ? SampleFormat::cf64 : SampleFormat::cf32;
  const SampleFormat real_items = double_precision ? SampleFormat::f64 : SampleFormat::f32;
  const std::string complex_name(prism::format_name(complex_items)), real_name(prism::format_name(real_items));
  require_device_or_skip();
  auto wanted = [&](const char* section) { return only.empty() || only == section; };
  const std::size_t items = std::size_t{1} << 26;
  double floor_complex = 0, floor_real = 0;
  if (wanted("copy") || wanted("kernel")) {
    std::printf("copy: device to device, 2^26 items (median of 20):\n");
    floor_complex = items / (copy_ms(items * prism::sample_bytes(complex_items)) * 1e-3) / 1e9;
    floor_real = items / (copy_ms(items * prism::sample_bytes(real_items)) * 1e-3) / 1e9;
    record("copy", complex_name + " read + write (the floor)", floor_complex, "GS/s");
    record("copy", real_name + " read + write (the floor)", floor_real, "GS/s");
  }
  bool checks_passed = true;
  if (wanted("kernel")) {
    for (std::size_t chunk : chunk_sizes) {
      std::printf("kernel: process() on %zu items on the device, low-pass (firwin), median of 20:\n", chunk);
      for (SampleFormat format : {complex_items, real_items}) {
        for (std::size_t taps : tap_counts) {
          for (std::size_t decimation : decimations) {
            for (prism::fft::BackendKind backend : {prism::fft::BackendKind::cuda, prism::fft::BackendKind::cufft}) {
              if (backend == prism::fft::BackendKind::cufft && !double_precision) continue;  // the same kernels
              const std::string spec = spec_for(taps, decimation);
              if (!check(spec, format, std::size_t{1} << 20, chunk, backend)) {
                checks_passed = false;
                continue;
              }
              std::string description;
              const double ms = kernel_ms(spec, format, chunk, description, backend);
              const double gsps = chunk / (ms * 1e-3) / 1e9;
              record("kernel",
                     std::string(prism::format_name(format)) + " taps " + std::to_string(taps) + " D " +
                         std::to_string(decimation) +
                         (double_precision ? " --backend " + std::string(prism::fft::backend_name(backend)) : "") +
                         (chunk_sizes.size() > 1 ? " items " + std::to_string(chunk) : ""),
                     gsps, "GS/s", format == complex_items ? floor_complex : floor_real);
              std::printf("    (%s)\n", description.c_str());
            }
          }
        }
      }
    }
  }
  if (wanted("stream")) {
    std::printf("limits (pinned, 256 MiB copies, median of 20):\n");
    const Limits limits = measure_copy_limits();
    record("limits", "pinned H2D", limits.h2d, "GB/s");
    record("limits", "pinned D2H", limits.d2h, "GB/s");
    record("limits", "pinned H2D + D2H at once (sum)", limits.both, "GB/s");
    std::printf("stream: chunks of 2^22 items, pinned -> h2d -> fir -> d2h -> sink, 3 in flight, %.1f s each:\n",
                seconds);
    for (SampleFormat format : {complex_items, SampleFormat::ci16}) {
      for (std::size_t taps : {63, 1023}) {
        for (std::size_t decimation : {1, 8}) {
          const StreamResult r = stream_through(spec_for(taps, decimation), format, seconds);
          const std::string name = std::string(prism::format_name(format)) + " taps " + std::to_string(taps) +
                                   " D " + std::to_string(decimation) + (r.balanced ? "" : " ACCOUNTING MISMATCH");
          record("stream", name + ", bytes in + out", r.gbps, "GB/s", limits.both);
          record("stream", name + ", input items", r.items_per_s / 1e9, "GS/s");
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  return checks_passed ? 0 : 1;
}
