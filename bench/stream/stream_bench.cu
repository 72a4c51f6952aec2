// stream_bench: the GPU spectrogram's figures through the stage graph, each beside its limit
// measured in the same run (bench/RESULTS.md records them):
//   limits      pinned H2D and D2H copy bandwidth (cudaMemcpyAsync, 256 MiB, median of 20)
//   throughput  a graph source -> h2d -> spectrogram (GPU) -> d2h -> a sink of rows in pinned
//               host memory, cf32 and ci16 (or --format's alone), N = 1024..65536, overlap 0
//               and 50%, 3 chunks in flight (or --in-flight's), --seconds of streaming each (10
//               by default), against the H2D limit. The source hands over chunks of the graph's
//               pinned pool that hold random samples (written the first time each chunk comes
//               by), as a file source reads into them.
//   kernel      the spectrogram stage's process() on device chunks (the fused kernel, the
//               unfused paths with our FFT and cuFFT) against the chain window -> cuFFT R2C ->
//               dB, N = 4096, 2^28 samples on the device
//   mel         process() in modes psd, mel and mfcc on 2^26 samples at 16 kHz (torchaudio's
//               speech front end: nperseg 400, hop 160, nfft 512, n_mels 80 and 128, n_mfcc 40);
//               bench/stream/mel_peers.py times torchaudio on the same input size
//   double      process() in double precision (the unfused paths: our FP64 FFT, cuFFT's D2Z)
//               beside the same paths in single precision, N = 4096, 2^26 f32 samples
//   latency     a chunk leaving the source -> its rows at the sink in host memory, p50, p99,
//               p99.9 and the slowest, 64 KiB, 1 MiB and 16 MiB chunks (cf32, N = 4096, one
//               chunk at a time, the device idle between): the graph's threads, queues, copies
//               and kernels together. About 1.5 s of chunks per figure (20000 of 64 KiB or
//               1 MiB, 2000 of 16 MiB): over 1000 chunks (75 ms at 1 MiB) one pause of the
//               host of a millisecond would decide the p99 alone. The chunks over twice the
//               median are counted, with the episodes they fall in (late chunks less than
//               2 ms apart are one episode), to tell a pause of the host from a slow path
// Every throughput run checks its accounting (every edge of the graph balanced).
//
//   stream_bench [--seconds S] [--csv FILE] [--quick] [--only kernel|mel|double|latency|throughput]
//                [--in-flight K] [--format cf32|ci16]
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <atomic>
#include <set>
#include <thread>

#include "pipeline/chunk.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/graph.hpp"
#include "sinks/callback_sink.hpp"
#include "gpu_bench.hpp"

namespace {

using namespace prism::bench;

using prism::Chunk;
using prism::ChunkPool;
using prism::Graph;
using prism::PortDescription;
using prism::RunConfig;
using prism::RunReport;
using prism::SpectrogramParams;
using prism::cuda::CudaEngineOptions;
using prism::cuda::CudaSpectrogram;
using prism::cuda::TransformPath;

// ---- throughput ------------------------------------------------------------------------------

SpectrogramParams params_for(std::size_t n, bool half_overlap, bool decibels = false) {
  SpectrogramParams p;
  p.window = prism::parse_window("hann");
  p.nperseg = n;
  p.nfft = n;
  p.noverlap = half_overlap ? n / 2 : 0;
  p.decibels = decibels;
  return p;
}

struct ThroughputResult {
  double gbps = 0;          // input bytes per second / 1e9
  double seconds = 0;
  bool balanced = false;    // every edge of the graph balanced
  std::string path;         // how the spectrogram ran
};

// Streams `seconds` of chunks of 2^22 samples through source -> spectrogram -> sink (the graph
// adds h2d and d2h) with `in_flight` chunks per device edge.
ThroughputResult stream_through(SampleFormat format, std::size_t n, bool half_overlap, double seconds,
                                std::size_t in_flight, TransformPath path) {
  StreamInfo stream;
  stream.format = format;
  stream.sample_rate = 1e6;
  const std::size_t chunk_samples = std::size_t{1} << 22;  // 32 MiB of cf32, 16 MiB of ci16
  CudaEngineOptions options;
  options.path = path;
  PrefilledSource source(stream, seconds);
  Graph graph;
  auto stage = std::make_unique<CudaSpectrogram>(params_for(n, half_overlap), options);
  CudaSpectrogram& spectrogram = *stage;
  const Graph::Node in = graph.add_source(source);
  const Graph::Node spec = graph.add_stage(std::move(stage));
  graph.connect(in, spec);
  graph.connect(spec, graph.add_sink(std::make_unique<prism::CallbackSink>(prism::PortKind::rows,
                                                                           prism::CallbackSink::Functions{})));
  RunConfig config;
  config.block_samples = chunk_samples;
  config.block_count = 4;
  config.in_flight = in_flight;
  prism::StopToken stop;
  const RunReport report = graph.run(config, stop);
  const double elapsed = std::chrono::duration<double>(Clock::now() - source.start()).count();
  ThroughputResult r;
  r.seconds = elapsed;
  r.path = spectrogram.describe();
  // The chunks read before the window still in flight at its start add a few ms of work to it
  // (at most block_count + in_flight chunks), against seconds of streaming.
  r.gbps = static_cast<double>(source.timed_chunks() * chunk_samples * stream.frame_bytes()) / elapsed / 1e9;
  r.balanced = report.outcome == prism::RunOutcome::completed && report.accounting_mismatch().empty();
  if (!r.balanced) std::printf("  run: %s %s\n", report.error.c_str(), report.accounting_mismatch().c_str());
  return r;
}

// ---- the three-kernel chain -----------------------------------------------------------------

__global__ void window_kernel(const float* in, const float* window, float* out, std::size_t total, int n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) out[i] = in[i] * window[i % n];
}

__global__ void decibel_kernel(const float2* spectrum, float* out, std::size_t total, float scale) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) {
    const float2 x = spectrum[i];
    out[i] = 10.0f * log10f(fmaxf((x.x * x.x + x.y * x.y) * scale, 1e-30f));
  }
}

double chain_ms(std::size_t n, std::size_t samples) {
  const std::size_t frames = samples / n;
  const std::size_t bins = n / 2 + 1;
  float *in, *windowed, *window, *out;
  float2* spectrum;
  CHECK(cudaMalloc(&in, samples * 4));
  CHECK(cudaMalloc(&windowed, samples * 4));
  CHECK(cudaMalloc(&window, n * 4));
  CHECK(cudaMalloc(&spectrum, frames * bins * 8));
  CHECK(cudaMalloc(&out, frames * bins * 4));
  std::vector<float> host(samples);
  fill_format(SampleFormat::f32, host.data(), samples, 5);
  CHECK(cudaMemcpy(in, host.data(), samples * 4, cudaMemcpyHostToDevice));
  std::vector<float> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<float>(0.5 - 0.5 * std::cos(2 * M_PI * i / n));
  CHECK(cudaMemcpy(window, w.data(), n * 4, cudaMemcpyHostToDevice));
  cufftHandle plan;
  int nn = static_cast<int>(n), nb = static_cast<int>(bins);
  if (cufftPlanMany(&plan, 1, &nn, nullptr, 1, nn, nullptr, 1, nb, CUFFT_R2C, static_cast<int>(frames)) != CUFFT_SUCCESS) {
    std::fprintf(stderr, "cufftPlanMany failed\n");
    std::exit(1);
  }
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<double> times;
  for (int r = 0; r < 22; ++r) {
    CHECK(cudaEventRecord(e0));
    window_kernel<<<static_cast<unsigned>((samples + 255) / 256), 256>>>(in, window, windowed, samples, nn);
    cufftExecR2C(plan, windowed, reinterpret_cast<cufftComplex*>(spectrum));
    decibel_kernel<<<static_cast<unsigned>((frames * bins + 255) / 256), 256>>>(spectrum, out, frames * bins, 1e-6f);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) times.push_back(ms);
  }
  cufftDestroy(plan);
  cudaFree(in);
  cudaFree(windowed);
  cudaFree(window);
  cudaFree(spectrum);
  cudaFree(out);
  return median(times);
}

// The device time of the stage's process() on one chunk of `samples` already on the device:
// median of 20 calls (after 2 warm-up calls), timed with events on the stage's stream.
double engine_work_ms(TransformPath path, const SpectrogramParams& p, std::size_t samples, double rate = 1e6) {
  StreamInfo stream;
  stream.format = SampleFormat::f32;
  stream.sample_rate = rate;
  CudaEngineOptions options;
  options.path = path;
  CudaSpectrogram stage(p, options);
  const PortDescription out = stage.configure(PortDescription::of_samples(stream), samples);
  auto pool = [](prism::MemoryDomain domain, std::size_t items, std::size_t bytes) {
    ChunkPool::Shape shape;
    shape.count = 1;
    shape.capacity = items;
    shape.item_bytes = bytes;
    shape.domain = domain;
    return std::make_unique<ChunkPool>(shape);
  };
  const auto inputs = pool(stage.input_domain(), samples, stream.frame_bytes());
  const auto outputs = pool(stage.input_domain(), stage.max_output(samples), out.item_bytes());
  prism::StopToken never;
  prism::ChunkRef input = inputs->acquire(never), output = outputs->acquire(never);
  std::vector<float> host(samples);
  fill_format(SampleFormat::f32, host.data(), samples, 5);
  CHECK(cudaMemcpy(input->data, host.data(), samples * 4, cudaMemcpyHostToDevice));
  input->items = samples;
  const double ms = median_stream_ms(static_cast<cudaStream_t>(stage.stream()), [&] { stage.process(*input, *output); });
  std::printf("  (%s)\n", stage.describe().c_str());
  return ms;
}

// N = n, no overlap, dB, no detrend: the three-kernel chain's spectrogram.
SpectrogramParams chain_params(std::size_t n) {
  SpectrogramParams p = params_for(n, false, true);
  p.detrend = prism::Detrend::none;  // the chain does not detrend either
  return p;
}

// torchaudio's speech front end at 16 kHz: 25 ms frames (400 samples, hann) every 10 ms in a
// 512-point FFT, no detrend; mode psd gives the plain spectrogram's time beside the mel modes'.
SpectrogramParams speech_params(prism::SpectrumMode mode, std::size_t n_mels, std::size_t n_mfcc) {
  SpectrogramParams p;
  p.window = prism::parse_window("hann");
  p.nperseg = 400;
  p.noverlap = 240;
  p.nfft = 512;
  p.detrend = prism::Detrend::none;
  p.mode = mode;
  if (mode != prism::SpectrumMode::psd) p.n_mels = n_mels;
  if (mode == prism::SpectrumMode::mfcc) p.n_mfcc = n_mfcc;
  return p;
}

const char* path_name(TransformPath path) {
  switch (path) {
    case TransformPath::fused: return "cuda (fused)";
    case TransformPath::prism: return "cuda (our FFT, unfused)";
    case TransformPath::cufft: return "cufft";
  }
  return "?";
}

// ---- latency -----------------------------------------------------------------------------------

// One chunk at a time through source -> h2d -> spectrogram -> d2h -> sink: the source hands over
// chunk i once the rows of chunk i-1 have reached the sink, and the time from its hand-over to the
// arrival of its rows is the chunk's latency.
void latency(std::size_t chunk_bytes, TransformPath path, int count) {
  StreamInfo stream;
  stream.format = SampleFormat::cf32;
  stream.sample_rate = 1e6;
  const std::size_t samples = chunk_bytes / stream.frame_bytes();
  const SpectrogramParams params = params_for(4096, true);
  const std::uint64_t hop = params.hop();
  struct Paced final : prism::Source {
    StreamInfo info_;
    std::size_t samples = 0;
    int count = 0;
    std::atomic<int> handed{0};
    std::atomic<std::uint64_t> rows_seen{0};
    std::uint64_t hop = 1, nperseg = 1;
    std::vector<Clock::time_point> handed_at;  // sized once: the sink reads entries below `handed`
    const StreamInfo& info() const override { return info_; }
    // Rows of the input up to sample `end`.
    std::uint64_t rows_until(std::uint64_t end) const { return end >= nperseg ? (end - nperseg) / hop + 1 : 0; }
    std::size_t read(std::byte* dst, std::size_t) override {
      if (handed == count) return 0;
      if (handed == 0) fill_format(SampleFormat::cf32, dst, samples, 3);
      // The previous chunk's rows have all arrived: the device is idle.
      while (rows_seen.load(std::memory_order_acquire) < rows_until(static_cast<std::uint64_t>(handed) * samples))
        std::this_thread::yield();
      handed_at[static_cast<std::size_t>(handed.load())] = Clock::now();
      handed.fetch_add(1, std::memory_order_release);
      return samples;
    }
    std::string describe() const override { return "paced"; }
  } source;
  source.info_ = stream;
  source.samples = samples;
  source.count = count + 10;
  source.hop = hop;
  source.nperseg = params.nperseg;
  source.handed_at.resize(static_cast<std::size_t>(source.count));
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(source.count));
  CudaEngineOptions options;
  options.path = path;
  Graph graph;
  const Graph::Node in = graph.add_source(source);
  const Graph::Node spec = graph.add_stage(std::make_unique<CudaSpectrogram>(params, options));
  graph.connect(in, spec);
  std::size_t chunk_index = 0;
  prism::CallbackSink::Functions arrivals;
  arrivals.on_chunk = [&](const Chunk& rows) {
    const std::uint64_t seen = rows.first_item + rows.items;
    // The chunks whose last rows have now arrived.
    while (chunk_index < static_cast<std::size_t>(source.handed.load(std::memory_order_acquire)) &&
           source.rows_until((chunk_index + 1) * samples) <= seen) {
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - source.handed_at[chunk_index]).count());
      ++chunk_index;
    }
    source.rows_seen.store(seen, std::memory_order_release);
  };
  graph.connect(spec, graph.add_sink(std::make_unique<prism::CallbackSink>(prism::PortKind::rows, arrivals)));
  RunConfig config;
  config.block_samples = samples;
  config.in_flight = 1;
  prism::StopToken stop;
  const RunReport report = graph.run(config, stop);
  if (report.outcome != prism::RunOutcome::completed) std::printf("  run failed: %s\n", report.error.c_str());
  if (us.size() > 10) {  // warm-up
    us.erase(us.begin(), us.begin() + 10);
    source.handed_at.erase(source.handed_at.begin(), source.handed_at.begin() + 10);
  }
  const std::string name = std::to_string(chunk_bytes >> 10) + " KiB chunk, " + path_name(path) + ", through the graph";
  const double median = percentile(us, 0.5);
  record("latency", name + " p50", median, "us");
  record("latency", name + " p99", percentile(us, 0.99), "us");
  record("latency", name + " p99.9", percentile(us, 0.999), "us");
  record("latency", name + " slowest", us.empty() ? 0.0 : *std::max_element(us.begin(), us.end()), "us");
  // Late chunks and the episodes they fall in.
  std::size_t late = 0, episodes = 0;
  Clock::time_point last_late{};
  for (std::size_t i = 0; i < us.size(); ++i) {
    if (us[i] <= 2 * median) continue;
    ++late;
    if (late == 1 || source.handed_at[i] - last_late > std::chrono::milliseconds(2)) ++episodes;
    last_late = source.handed_at[i];
  }
  record("latency", name + " chunks over 2x p50 (of " + std::to_string(us.size()) + ")", static_cast<double>(late), "");
  record("latency", name + " episodes of late chunks", static_cast<double>(episodes), "");
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10.0;  // of streaming per configuration (the issue asks for >= 10 s)
  bool quick = false;
  std::string only;  // one section (the copy limits are measured for throughput only)
  std::size_t in_flight = 3;  // chunks per device edge in the throughput section
  std::vector<SampleFormat> formats{SampleFormat::cf32, SampleFormat::ci16};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--csv" && i + 1 < argc) csv = std::fopen(argv[++i], "w");
    else if (a == "--quick") quick = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--in-flight" && i + 1 < argc && std::strspn(argv[i + 1], "0123456789") == std::strlen(argv[i + 1]) &&
             std::atoi(argv[i + 1]) >= 1)
      in_flight = std::atoi(argv[++i]);
    else if (a == "--format" && i + 1 < argc && (std::string(argv[i + 1]) == "cf32" || std::string(argv[i + 1]) == "ci16"))
      formats = {std::string(argv[++i]) == "cf32" ? SampleFormat::cf32 : SampleFormat::ci16};
    else {
      std::fprintf(stderr,
                   "usage: stream_bench [--seconds S] [--csv FILE] [--quick] [--only kernel|mel|double|latency|throughput]\n"
                   "                    [--in-flight K] [--format cf32|ci16]   (K: the throughput section's chunks\n"
                   "                    per device edge, default 3; --format: its input format alone)\n");
      return 2;
    }
  }
  require_device_or_skip();

  auto wanted = [&](const char* section) { return only.empty() || only == section; };
  Limits limits;
  if (wanted("throughput")) {
    std::printf("limits (pinned, 256 MiB copies, median of 20):\n");
    limits = measure_copy_limits();
    record("limits", "pinned H2D", limits.h2d, "GB/s");
    record("limits", "pinned D2H", limits.d2h, "GB/s");
    record("limits", "pinned H2D + D2H at once (sum)", limits.both, "GB/s");
  }

  if (wanted("kernel")) {
    std::printf("kernel: N = 4096, 2^28 f32 samples on the device, window (hann) -> FFT -> dB:\n");
    const std::size_t kernel_samples = std::size_t{1} << 28;
    const double chain = chain_ms(4096, kernel_samples);
    record("kernel", "three-kernel chain window -> cuFFT R2C -> dB", chain, "ms");
    const double fused = engine_work_ms(TransformPath::fused, chain_params(4096), kernel_samples);
    record("kernel", "spectrogram stage, fused kernel (process() on a device chunk)", fused, "ms");
    record("kernel", "speed-up fused vs chain (target 4x)", chain / fused, "x");
    const double prism_path = engine_work_ms(TransformPath::prism, chain_params(4096), kernel_samples);
    record("kernel", "spectrogram stage, framing -> our FFT -> detector", prism_path, "ms");
    const double cufft_path = engine_work_ms(TransformPath::cufft, chain_params(4096), kernel_samples);
    record("kernel", "spectrogram stage, framing -> cuFFT -> detector", cufft_path, "ms");
    record("kernel", "bytes-bound floor (read 4 B + write 2 B per sample at D2D 4248 GB/s)",
           6.0 * kernel_samples / 4248e9 * 1e3, "ms");
  }

  if (wanted("mel")) {
    std::printf("mel: 2^26 f32 samples at 16 kHz on the device, nperseg 400, hop 160, nfft 512, hann:\n");
    const std::size_t mel_samples = std::size_t{1} << 26;
    using prism::SpectrumMode;
    record("mel", "psd (the spectrogram alone)",
           engine_work_ms(TransformPath::fused, speech_params(SpectrumMode::psd, 0, 0), mel_samples, 16000), "ms");
    for (std::size_t n_mels : {std::size_t{80}, std::size_t{128}}) {
      const std::string bands = std::to_string(n_mels);
      const SpectrogramParams mel = speech_params(SpectrumMode::mel, n_mels, 0);
      const SpectrogramParams mfcc = speech_params(SpectrumMode::mfcc, n_mels, 40);
      record("mel", "mel, n_mels " + bands, engine_work_ms(TransformPath::fused, mel, mel_samples, 16000), "ms");
      record("mel", "mfcc, n_mels " + bands + ", n_mfcc 40",
             engine_work_ms(TransformPath::fused, mfcc, mel_samples, 16000), "ms");
    }
  }

  if (wanted("double")) {
    std::printf("double: N = 4096, 2^26 f32 samples on the device, hann, psd, dB, no overlap:\n");
    const std::size_t double_samples = std::size_t{1} << 26;
    for (const bool wide : {false, true}) {
      SpectrogramParams p = chain_params(4096);
      p.double_precision = wide;
      const std::string precision = wide ? "double" : "single";
      for (const TransformPath path : {TransformPath::prism, TransformPath::cufft}) {
        const double ms = engine_work_ms(path, p, double_samples);
        record("double", std::string(path_name(path)) + ", " + precision + " precision", ms, "ms");
        record("double", std::string(path_name(path)) + ", " + precision + " precision, samples per second",
               double_samples / (ms * 1e-3) / 1e9, "GS/s");
      }
    }
  }

  if (wanted("latency")) {
    std::printf("latency (cf32, N = 4096, 50%% overlap, one chunk at a time):\n");
    for (std::size_t bytes : {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20}) {
      const int count = (bytes > (std::size_t{1} << 20) ? 2000 : 20000) / (quick ? 10 : 1);
      latency(bytes, TransformPath::cufft, count);
      latency(bytes, TransformPath::fused, count);
    }
  }

  if (!wanted("throughput")) {
    if (csv) std::fclose(csv);
    return 0;
  }
  std::printf("throughput (graph: chunks of 2^22 samples in pinned memory -> h2d -> spectrogram -> d2h -> rows "
              "in pinned memory, %.1f s each, %zu chunks in flight; limit: pinned H2D):\n", seconds, in_flight);
  record("throughput", "chunks in flight", static_cast<double>(in_flight), "");
  const std::vector<std::size_t> sizes = quick ? std::vector<std::size_t>{1024, 65536}
                                               : std::vector<std::size_t>{1024, 4096, 16384, 65536};
  for (SampleFormat format : formats) {
    for (std::size_t n : sizes) {
      for (bool half : {false, true}) {
        for (TransformPath path : {TransformPath::cufft, TransformPath::fused}) {
          const ThroughputResult r = stream_through(format, n, half, seconds, in_flight, path);
          const std::string name = std::string(prism::format_name(format)) + " N=" + std::to_string(n) +
                                   (half ? " overlap 50% " : " overlap 0 ") + path_name(path) +
                                   (r.balanced ? "" : " ACCOUNTING MISMATCH");
          record("throughput", name, r.gbps, "GB/s", limits.h2d);
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  return 0;
}
