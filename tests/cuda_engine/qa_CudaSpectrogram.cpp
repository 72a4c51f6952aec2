// qa_CudaSpectrogram: the CUDA streaming engine against the CPU reference (CpuSpectrogram, which
// the CLI tests hold to scipy) — every sample format, real and complex input, several channels,
// overlaps, zero padding, detrend, scaling, mode, dB and K-frame averaging, through the three
// transform paths (the fused kernel's rows bit-identical for every block size), for several block sizes and numbers of blocks in flight; the pipeline run
// with blocks in flight (rows in order, accounting balanced); and an injected CUDA failure
// (a clear error, the sinks aborted, no output presented as complete).
//
// Exits 77 (ctest SKIP) when no usable CUDA device is present, before any test runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline/cpu_spectrogram.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/pipeline.hpp"

namespace prism {
namespace {

using cuda::CudaEngineOptions;
using cuda::CudaSpectrogram;
using cuda::TransformPath;

// Random samples in [-0.5, 0.5) (+ a DC offset) in the given native format.
std::vector<std::byte> make_input(SampleFormat format, unsigned channels, std::size_t samples,
                                  std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  const std::size_t components = samples * channels * components_per_sample(format);
  std::vector<std::byte> bytes(components * component_bytes(format));
  for (std::size_t i = 0; i < components; ++i) {
    const float v = uniform(rng) + 0.2f;
    switch (format) {
      case SampleFormat::f32:
      case SampleFormat::cf32: std::memcpy(&bytes[i * 4], &v, 4); break;
      case SampleFormat::i16:
      case SampleFormat::ci16: {
        const auto x = static_cast<std::int16_t>(std::lround(v * 30000.0f));
        std::memcpy(&bytes[i * 2], &x, 2);
        break;
      }
      case SampleFormat::i8:
      case SampleFormat::ci8: bytes[i] = static_cast<std::byte>(static_cast<std::int8_t>(std::lround(v * 120.0f))); break;
      case SampleFormat::u8:
      case SampleFormat::cu8: bytes[i] = static_cast<std::byte>(static_cast<std::uint8_t>(std::lround(128.0f + v * 120.0f))); break;
    }
  }
  return bytes;
}

// Feeds `input` to `processor` in blocks of `block_samples` and collects every row in order.
std::vector<float> run_blocks(Processor& processor, const std::vector<std::byte>& input,
                              std::size_t frame_bytes, std::size_t block_samples) {
  const std::size_t total = input.size() / frame_bytes;
  const std::size_t columns = processor.layout().columns;
  std::vector<float> rows;
  std::vector<float> batch(std::max<std::size_t>(processor.max_rows_per_block(block_samples), 1) * columns);
  // Each block keeps its own copy, alive until the processor has let go of it.
  std::vector<std::vector<std::byte>> copies((total + block_samples - 1) / block_samples + 1);
  std::size_t index = 0;
  for (std::size_t first = 0; first < total; first += block_samples, ++index) {
    const std::size_t n = std::min(block_samples, total - first);
    copies[index].assign(input.begin() + static_cast<std::ptrdiff_t>(first * frame_bytes),
                         input.begin() + static_cast<std::ptrdiff_t>((first + n) * frame_bytes));
    Block block;
    block.data = copies[index].data();
    block.capacity_bytes = copies[index].size();
    block.samples = n;
    block.first_sample = first;
    const std::size_t written = processor.process(block, batch.data());
    rows.insert(rows.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(written * columns));
  }
  std::size_t drained = 0;
  while (processor.drain(batch.data(), drained))
    rows.insert(rows.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(drained * columns));
  const std::size_t tail = processor.finish(batch.data());
  rows.insert(rows.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(tail * columns));
  return rows;
}

double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

struct Case {
  SampleFormat format;
  unsigned channels;
  std::size_t nperseg, noverlap, nfft;
  Detrend detrend;
  Scaling scaling;
  SpectrumMode mode;
  bool decibels;
  std::size_t average;
  AverageKind average_kind;
  const char* window;
};

std::string name_of(const Case& c) {
  char text[256];
  std::snprintf(text, sizeof text, "%s x%u nperseg %zu noverlap %zu nfft %zu %s %s %s%s K=%zu%s %s",
                std::string(format_name(c.format)).c_str(), c.channels, c.nperseg, c.noverlap, c.nfft,
                c.detrend == Detrend::constant ? "constant" : "none",
                c.scaling == Scaling::density ? "density" : "spectrum",
                c.mode == SpectrumMode::psd ? "psd" : "magnitude", c.decibels ? " dB" : "", c.average,
                c.average_kind == AverageKind::max ? ":max" : "", c.window);
  return text;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {SampleFormat::f32, 1, 256, 32, 256, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "tukey:0.25"},
      {SampleFormat::cf32, 1, 256, 128, 256, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "hann"},
      {SampleFormat::f32, 1, 100, 99, 128, Detrend::none, Scaling::spectrum, SpectrumMode::magnitude, false, 1, AverageKind::mean, "hamming"},
      {SampleFormat::cf32, 1, 1000, 500, 1024, Detrend::constant, Scaling::spectrum, SpectrumMode::psd, true, 3, AverageKind::mean, "blackman"},
      {SampleFormat::i16, 2, 512, 0, 512, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "hann"},
      {SampleFormat::ci16, 1, 1024, 512, 1024, Detrend::constant, Scaling::density, SpectrumMode::psd, true, 1, AverageKind::mean, "kaiser:8.6"},
      {SampleFormat::i8, 1, 64, 16, 64, Detrend::constant, Scaling::density, SpectrumMode::magnitude, false, 4, AverageKind::max, "flattop"},
      {SampleFormat::ci8, 3, 128, 64, 256, Detrend::none, Scaling::density, SpectrumMode::psd, false, 5, AverageKind::mean, "boxcar"},
      {SampleFormat::u8, 1, 300, 100, 301, Detrend::constant, Scaling::spectrum, SpectrumMode::psd, false, 1, AverageKind::mean, "blackmanharris"},
      {SampleFormat::cu8, 2, 4096, 2048, 4096, Detrend::constant, Scaling::density, SpectrumMode::psd, true, 2, AverageKind::max, "hann"},
      {SampleFormat::cf32, 1, 255, 200, 255, Detrend::constant, Scaling::density, SpectrumMode::magnitude, true, 1, AverageKind::mean, "tukey:0.5"},
      {SampleFormat::f32, 1, 8192, 4096, 8192, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "hann"},
      {SampleFormat::cf32, 1, 8192, 6000, 8192, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 2, AverageKind::mean, "hann"},
      {SampleFormat::f32, 2, 16000, 8000, 16384, Detrend::none, Scaling::spectrum, SpectrumMode::magnitude, true, 1, AverageKind::mean, "hamming"},
      {SampleFormat::f32, 1, 32, 16, 32, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 3, AverageKind::mean, "hann"},
  };
  return list;
}

SpectrogramParams params_of(const Case& c) {
  SpectrogramParams p;
  p.window = parse_window(c.window);
  p.nperseg = c.nperseg;
  p.noverlap = c.noverlap;
  p.nfft = c.nfft;
  p.detrend = c.detrend;
  p.scaling = c.scaling;
  p.mode = c.mode;
  p.decibels = c.decibels;
  p.average = c.average;
  p.average_kind = c.average_kind;
  p.channel = c.channels - 1;
  return p;
}

StreamInfo stream_of(const Case& c) {
  StreamInfo s;
  s.format = c.format;
  s.channels = c.channels;
  s.sample_rate = 48000.0;
  return s;
}

// The GPU's rows against the CPU's: relative L2 for linear values, absolute dB for dB values.
void expect_close(const std::vector<float>& gpu, const std::vector<float>& cpu, bool decibels,
                  const std::string& label) {
  ASSERT_EQ(gpu.size(), cpu.size()) << label;
  ASSERT_FALSE(cpu.empty()) << label;
  if (decibels)
    EXPECT_LE(max_abs_difference(gpu, cpu), 2e-3) << label;
  else
    EXPECT_LE(relative_l2(gpu, cpu), 2e-6) << label;
}

class CudaSpectrogramTest : public ::testing::TestWithParam<TransformPath> {};

TEST_P(CudaSpectrogramTest, MatchesTheCpuForEveryCaseBlockSizeAndBlocksInFlight) {
  for (const Case& c : cases()) {
    const std::string label = name_of(c);
    const SpectrogramParams params = params_of(c);
    const StreamInfo stream = stream_of(c);
    const std::size_t samples = 5 * c.nperseg + 3001;
    const auto input = make_input(c.format, c.channels, samples, 1234);
    CpuSpectrogram cpu(stream, params, samples, 1);
    const std::vector<float> reference = run_blocks(cpu, input, stream.frame_bytes(), samples);
    std::vector<float> first;
    for (std::size_t block : {std::size_t{1000}, std::size_t{37}, samples, std::size_t{c.nperseg + 1}}) {
      for (std::size_t in_flight : {1, 3}) {
        CudaEngineOptions options;
        options.path = GetParam();
        options.blocks_in_flight = in_flight;
        options.force_fused = true;  // the fused kernel's averaging too, with few rows per block
        CudaSpectrogram gpu(stream, params, block, options);
        const std::vector<float> rows = run_blocks(gpu, input, stream.frame_bytes(), block);
        const std::string where = label + ", block " + std::to_string(block) + ", in flight " +
                                  std::to_string(in_flight) + ": " + gpu.describe();
        expect_close(rows, reference, c.decibels, where);
        if (GetParam() != TransformPath::cufft) {
          const bool fused = cuda::fused_path_supports(params, is_complex(c.format));
          EXPECT_EQ(gpu.path(), fused && GetParam() == TransformPath::fused ? TransformPath::fused : TransformPath::prism)
              << where;
        }
        const ProcessorCounters a = gpu.counters(), b = cpu.counters();
        EXPECT_EQ(a.samples_in, b.samples_in) << where;
        EXPECT_EQ(a.rows_out, b.rows_out) << where;
        EXPECT_EQ(a.tail_samples, b.tail_samples) << where;
        // The fused kernel computes each row on its own: bit for bit the same whatever the block
        // size. Our FFT library pairs neighbouring real rows for odd lengths (two real rows per
        // complex transform), so there a row's rounding depends on its neighbour in the batch.
        if (first.empty()) first = rows;
        else if (gpu.path() == TransformPath::fused) EXPECT_EQ(rows, first) << where << " (against the first block size)";
        else expect_close(rows, first, c.decibels, where + " (against the first block size)");
      }
    }
  }
}

TEST_P(CudaSpectrogramTest, BlocksInFlightDoNotChangeABit) {
  const Case& c = cases()[1];
  const auto input = make_input(c.format, c.channels, 50000, 99);
  std::vector<float> first;
  for (std::size_t in_flight : {1, 2, 4}) {
    CudaEngineOptions options;
    options.path = GetParam();
    options.blocks_in_flight = in_flight;
    CudaSpectrogram gpu(stream_of(c), params_of(c), 4096, options);
    const auto rows = run_blocks(gpu, input, stream_of(c).frame_bytes(), 4096);
    if (first.empty()) first = rows;
    else EXPECT_EQ(rows, first) << "in flight " << in_flight;
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, CudaSpectrogramTest,
                         ::testing::Values(TransformPath::cufft, TransformPath::prism, TransformPath::fused),
                         [](const auto& info) {
                           switch (info.param) {
                             case TransformPath::cufft: return std::string("cufft");
                             case TransformPath::prism: return std::string("prism");
                             case TransformPath::fused: break;
                           }
                           return std::string("fused");
                         });

TEST(CudaEngine, LongAveragesLeavingFewRowsPerBlockTakeTheUnfusedPath) {
  const Case& c = cases()[1];  // cf32, nfft 256
  SpectrogramParams params = params_of(c);
  params.average = 64;
  CudaEngineOptions options;
  options.path = TransformPath::fused;
  CudaSpectrogram gpu(stream_of(c), params, 4096, options);
  EXPECT_EQ(gpu.path(), TransformPath::prism);
  EXPECT_NE(gpu.describe().find("too few for the fused kernel"), std::string::npos) << gpu.describe();
  params.average = 1;
  CudaSpectrogram unaveraged(stream_of(c), params, 4096, options);
  EXPECT_EQ(unaveraged.path(), TransformPath::fused) << unaveraged.describe();
}

// ---- the pipeline with blocks in flight ------------------------------------------------------

class MemorySource : public Source {
 public:
  MemorySource(StreamInfo info, std::vector<std::byte> data) : info_(info), data_(std::move(data)) {}
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    const std::size_t frame = info_.frame_bytes();
    const std::size_t n = std::min(max_samples, (data_.size() - position_) / frame);
    std::memcpy(dst, data_.data() + position_, n * frame);
    position_ += n * frame;
    return n;
  }
  std::string describe() const override { return "memory"; }

 private:
  StreamInfo info_;
  std::vector<std::byte> data_;
  std::size_t position_ = 0;
};

class CollectingSink : public RowSink {
 public:
  void begin(const SpectrumLayout& layout) override { columns_ = layout.columns; }
  void write(const float* rows, std::size_t count, std::uint64_t first_row) override {
    EXPECT_EQ(first_row, rows_.size() / columns_);
    rows_.insert(rows_.end(), rows, rows + count * columns_);
  }
  void finish(bool complete) override { finished_ = true; complete_ = complete; }
  void abort() noexcept override { aborted_ = true; }
  std::uint64_t rows_written() const override { return rows_.size() / std::max<std::size_t>(columns_, 1); }
  std::string describe() const override { return "collector"; }

  std::vector<float> rows_;
  std::size_t columns_ = 0;
  bool finished_ = false, complete_ = false, aborted_ = false;
};

TEST(CudaPipeline, RowsInOrderAndAccountingBalancesWithBlocksInFlight) {
  const Case& c = cases()[0];
  const StreamInfo stream = stream_of(c);
  const auto input = make_input(c.format, c.channels, 300000, 7);
  CpuSpectrogram cpu(stream, params_of(c), 300000, 1);
  const auto reference = run_blocks(cpu, input, stream.frame_bytes(), 300000);
  for (std::size_t in_flight : {1, 2, 3}) {
    MemorySource source(stream, input);
    CudaEngineOptions options;
    options.blocks_in_flight = in_flight;
    CudaSpectrogram gpu(stream, params_of(c), 5000, options);
    CollectingSink sink;
    PipelineConfig config;
    config.block_samples = 5000;
    config.block_count = 3;
    config.memory = HostMemoryKind::cuda_pinned;
    StopToken stop;
    const RunReport report = run_pipeline(source, gpu, {&sink}, config, stop);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
    EXPECT_EQ(report.accounting_mismatch(), "");
    EXPECT_EQ(report.pool_bytes, (3 + in_flight) * ((5000 * 4 + 4095) / 4096 * 4096));
    EXPECT_TRUE(sink.finished_ && sink.complete_);
    expect_close(sink.rows_, reference, false, "pipeline, in flight " + std::to_string(in_flight));
  }
}

TEST(CudaPipeline, InjectedFailureEndsTheRunWithAClearMessageAndAbortsTheSinks) {
  setenv("PRISM_CUDA_FAULT", "alloc@5", 1);
  const Case& c = cases()[0];
  const StreamInfo stream = stream_of(c);
  MemorySource source(stream, make_input(c.format, c.channels, 200000, 8));
  CudaSpectrogram gpu(stream, params_of(c), 4096, CudaEngineOptions{});
  unsetenv("PRISM_CUDA_FAULT");
  CollectingSink sink;
  PipelineConfig config;
  config.block_samples = 4096;
  config.memory = HostMemoryKind::cuda_pinned;
  StopToken stop;
  const RunReport report = run_pipeline(source, gpu, {&sink}, config, stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("processing: cudaMalloc (fault injected by PRISM_CUDA_FAULT"), std::string::npos)
      << report.error;
  EXPECT_NE(report.error.find("out of memory"), std::string::npos) << report.error;
  EXPECT_TRUE(sink.aborted_);
  EXPECT_FALSE(sink.finished_);
}

TEST(CudaDevice, ANonexistentDeviceIsNamedInTheError) {
  const cuda::DeviceInfo info = cuda::probe_device(9999);
  EXPECT_FALSE(info.usable);
  EXPECT_NE(info.reason.find("--device 9999 does not exist"), std::string::npos) << info.reason;
  const Case& c = cases()[0];
  CudaEngineOptions options;
  options.device = 9999;
  EXPECT_THROW(CudaSpectrogram(stream_of(c), params_of(c), 4096, options), cuda::CudaError);
}

}  // namespace
}  // namespace prism

int main(int argc, char** argv) {
  const prism::cuda::DeviceInfo device = prism::cuda::probe_device(0);
  if (!device.usable) {
    std::printf("SKIP: %s\n", device.reason.c_str());
    return 77;
  }
  std::printf("device: %s\n", device.describe().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
