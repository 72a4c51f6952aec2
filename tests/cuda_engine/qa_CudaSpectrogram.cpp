// qa_CudaSpectrogram: the spectrogram stage on the GPU against the CPU reference (CpuSpectrogram,
// which the CLI tests hold to scipy) — every sample format, real and complex input, several
// channels, overlaps, zero padding, detrend, scaling, mode, dB and K-frame averaging, through the
// three transform paths (the fused kernel's rows bit-identical for every chunk size), in double
// precision (the unfused paths, against the CPU's double rows), and the modes
// mel and mfcc (bands, dB, logarithms, cepstra) the same way; the graph's
// harness; a graph run with its transfers and 1, 2 and 4 chunks in flight (rows in order, every
// edge balanced, not a bit changed); graphs run in eight threads at once (a batch's files), each
// giving its rows; and an injected CUDA failure (a clear error, the sinks
// aborted, no output presented as complete).
//
// Exits 77 (ctest SKIP) when no usable CUDA device is present (device_test_main.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/cpu_spectrogram.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_mel_rows.hpp"
#include "pipeline/graph.hpp"
#include "sinks/callback_sink.hpp"
#include "../pipeline/stage_harness.hpp"
#include "device_chain.hpp"
#include "random_samples.hpp"

namespace prism {
namespace {

using test::relative_l2;

using cuda::CudaEngineOptions;
using cuda::CudaSpectrogram;
using cuda::TransformPath;

// Random samples in [-0.5, 0.5) (+ a DC offset) in the given native format.
std::vector<std::byte> make_input(SampleFormat format, unsigned channels, std::size_t samples,
                                  std::uint32_t seed) {
  return test::random_samples(format, channels, samples, seed, 0.2f);  // a DC offset for the detrend
}

// Feeds `input` to `stage` (configured here) in chunks of `chunk` samples, directly as the graph
// would, and collects every row in order (values of type T: float, or double in double precision).
template <typename T = float>
std::vector<T> run_chunks(Stage& stage, const StreamInfo& stream, const std::vector<std::byte>& input,
                          std::size_t chunk) {
  test::StageDriver driver(stage, PortDescription::of_samples(stream), chunk);
  const std::vector<std::byte> bytes = driver.run(input, chunk);
  std::vector<T> rows(bytes.size() / sizeof(T));
  std::memcpy(rows.data(), bytes.data(), bytes.size());
  return rows;
}

std::uint64_t extra(const StageCounters& c, const std::string& name) {
  for (const Counter& e : c.extras)
    if (e.name == name) return e.value;
  ADD_FAILURE() << "no counter '" << name << "'";
  return 0;
}

// The largest |a - b| of rows of type T; NaN where any difference is NaN (a NaN row must not pass).
template <typename T>
double max_abs_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (!(d <= worst)) worst = d;
  }
  return worst;
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

using RowsCheck = std::function<void(const std::vector<float>& got, const std::vector<float>& want,
                                      const std::string& where)>;

// `params` on the GPU path `path` over `input` cut into chunks of four sizes, against
// CpuSpectrogram on the whole input (`expect_close`), with the path taken and the counters.
void check_against_the_cpu(TransformPath path, const SpectrogramParams& params, const StreamInfo& stream,
                           const std::vector<std::byte>& input, const std::string& label,
                           const RowsCheck& expect_close) {
  const std::size_t samples = input.size() / stream.frame_bytes();
  CpuSpectrogram cpu(params, 1);
  const std::vector<float> reference = run_chunks(cpu, stream, input, samples);
  ASSERT_FALSE(reference.empty()) << label;
  std::vector<float> first;
  for (std::size_t chunk : {std::size_t{1000}, std::size_t{37}, samples, params.nperseg + 1}) {
    CudaEngineOptions options;
    options.path = path;
    options.force_fused = true;  // the fused kernel's averaging too, with few rows per chunk
    CudaSpectrogram gpu(params, options);
    const std::vector<float> rows = run_chunks(gpu, stream, input, chunk);
    const std::string where = label + ", chunk " + std::to_string(chunk) + ": " + gpu.describe();
    expect_close(rows, reference, where);
    if (path != TransformPath::cufft) {
      const bool fused = cuda::fused_path_supports(params, is_complex(stream.format));
      EXPECT_EQ(gpu.path(), fused && path == TransformPath::fused ? TransformPath::fused : TransformPath::prism)
          << where;
    }
    const StageCounters a = gpu.counters(), b = cpu.counters();
    EXPECT_EQ(a.items_in, b.items_in) << where;
    EXPECT_EQ(a.items_out, b.items_out) << where;
    EXPECT_EQ(extra(a, "tail samples"), extra(b, "tail samples")) << where;
    // The fused kernel computes each row on its own: bit for bit the same whatever the chunk
    // size. Our FFT library pairs neighbouring real rows for odd lengths (two real rows per
    // complex transform), so there a row's rounding depends on its neighbour in the batch.
    if (first.empty()) first = rows;
    else if (gpu.path() == TransformPath::fused) EXPECT_EQ(rows, first) << where << " (against the first chunk size)";
    else expect_close(rows, first, where + " (against the first chunk size)");
  }
}

std::string path_test_name(const ::testing::TestParamInfo<TransformPath>& info) {
  switch (info.param) {
    case TransformPath::cufft: return "cufft";
    case TransformPath::prism: return "prism";
    case TransformPath::fused: break;
  }
  return "fused";
}

class CudaSpectrogramTest : public ::testing::TestWithParam<TransformPath> {};

TEST_P(CudaSpectrogramTest, MatchesTheCpuForEveryCaseAndChunkSize) {
  for (const Case& c : cases()) {
    const auto input = make_input(c.format, c.channels, 5 * c.nperseg + 3001, 1234);
    check_against_the_cpu(GetParam(), params_of(c), stream_of(c), input, name_of(c),
                          [&](const std::vector<float>& got, const std::vector<float>& want, const std::string& where) {
                            expect_close(got, want, c.decibels, where);
                          });
  }
}

// The graph's harness: cuttings, reset, and a run through a graph with its transfers.
TEST_P(CudaSpectrogramTest, StageHarness) {
  for (std::size_t index : {std::size_t{0}, std::size_t{3}, std::size_t{7}}) {
    const Case& c = cases()[index];
    SCOPED_TRACE(name_of(c));
    CudaEngineOptions options;
    options.path = GetParam();
    options.force_fused = true;
    test::StageCheck check;
    check.tolerance = GetParam() == TransformPath::fused ? 0.0 : 2e-6;
    test::check_stage([&] { return std::make_unique<CudaSpectrogram>(params_of(c), options); },
                      test::samples_input(stream_of(c), make_input(c.format, c.channels, 4 * c.nperseg + 777, 5)),
                      check);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, CudaSpectrogramTest,
                         ::testing::Values(TransformPath::cufft, TransformPath::prism, TransformPath::fused),
                         path_test_name);

TEST(CudaEngine, LongAveragesLeavingFewRowsPerChunkTakeTheUnfusedPath) {
  const Case& c = cases()[1];  // cf32, nfft 256
  SpectrogramParams params = params_of(c);
  params.average = 64;
  CudaEngineOptions options;
  options.path = TransformPath::fused;
  CudaSpectrogram gpu(params, options);
  gpu.configure(PortDescription::of_samples(stream_of(c)), 4096);
  EXPECT_EQ(gpu.path(), TransformPath::prism);
  EXPECT_NE(gpu.describe().find("too few for the fused kernel"), std::string::npos) << gpu.describe();
  params.average = 1;
  CudaSpectrogram unaveraged(params, options);
  unaveraged.configure(PortDescription::of_samples(stream_of(c)), 4096);
  EXPECT_EQ(unaveraged.path(), TransformPath::fused) << unaveraged.describe();
}

// ---- modes mel and mfcc ----------------------------------------------------------------------------

struct MelCase {
  SampleFormat format;
  unsigned channels;
  std::size_t nperseg, noverlap, nfft;
  SpectrumMode mode;
  std::size_t n_mels, n_mfcc;
  MelScale scale;
  MelNorm norm;
  double power;
  bool decibels, log_mels;
  std::size_t average;
  AverageKind average_kind;
  double f_min, f_max;  // f_max 0: the default, fs/2
  const char* window;
};

std::string name_of(const MelCase& c) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s x%u nperseg %zu noverlap %zu nfft %zu %s n_mels %zu n_mfcc %zu %s/%s power %g%s%s K=%zu%s",
                std::string(format_name(c.format)).c_str(), c.channels, c.nperseg, c.noverlap, c.nfft,
                c.mode == SpectrumMode::mel ? "mel" : "mfcc", c.n_mels, c.n_mfcc, to_string(c.scale).c_str(),
                to_string(c.norm).c_str(), c.power, c.decibels ? " dB" : "", c.log_mels ? " log_mels" : "", c.average,
                c.average_kind == AverageKind::max ? ":max" : "");
  return text;
}

// Power-of-two nfft take the fused kernel, the others (and powers other than 1 and 2) our FFT
// between the framing and the detector; empty bands (more bands than bins); the mel kernel's
// eight rows per block and its one row per block for many bands.
const std::vector<MelCase>& mel_cases() {
  static const std::vector<MelCase> list = {
      {SampleFormat::f32, 1, 400, 240, 512, SpectrumMode::mel, 40, 0, MelScale::htk, MelNorm::none, 2.0, false, false, 1, AverageKind::mean, 0, 0, "hann"},
      {SampleFormat::i16, 2, 1024, 512, 1024, SpectrumMode::mel, 128, 0, MelScale::slaney, MelNorm::slaney, 1.0, true, false, 3, AverageKind::mean, 20, 7600, "hamming"},
      {SampleFormat::f32, 1, 256, 128, 256, SpectrumMode::mfcc, 64, 13, MelScale::htk, MelNorm::none, 2.0, false, false, 1, AverageKind::mean, 0, 0, "hann"},
      {SampleFormat::u8, 1, 300, 100, 301, SpectrumMode::mfcc, 40, 20, MelScale::slaney, MelNorm::slaney, 0.5, false, true, 2, AverageKind::max, 50, 0, "tukey:0.25"},
      {SampleFormat::f32, 1, 2048, 1536, 4096, SpectrumMode::mel, 80, 0, MelScale::htk, MelNorm::slaney, 3.0, true, false, 1, AverageKind::mean, 0, 6000, "blackman"},
      {SampleFormat::f32, 1, 64, 32, 64, SpectrumMode::mel, 80, 0, MelScale::htk, MelNorm::none, 2.0, true, false, 1, AverageKind::mean, 0, 0, "hann"},
      {SampleFormat::i16, 1, 600, 300, 600, SpectrumMode::mfcc, 128, 128, MelScale::htk, MelNorm::none, 2.0, false, false, 4, AverageKind::mean, 0, 0, "hann"},
      // One row per block (1024 bands), more coefficients than the block's 128 threads.
      {SampleFormat::f32, 1, 2048, 1024, 2048, SpectrumMode::mfcc, 1024, 200, MelScale::htk, MelNorm::none, 2.0, false, false, 1, AverageKind::mean, 0, 0, "hann"},
      // kGpuMfccMaxBands bands: 64 KiB of shared memory, most bands empty.
      {SampleFormat::f32, 1, 512, 256, 512, SpectrumMode::mfcc, 8192, 13, MelScale::slaney, MelNorm::slaney, 1.0, false, true, 1, AverageKind::mean, 0, 0, "hann"},
  };
  return list;
}

SpectrogramParams params_of(const MelCase& c) {
  SpectrogramParams p;
  p.window = parse_window(c.window);
  p.nperseg = c.nperseg;
  p.noverlap = c.noverlap;
  p.nfft = c.nfft;
  p.mode = c.mode;
  p.n_mels = c.n_mels;
  if (c.mode == SpectrumMode::mfcc) p.n_mfcc = c.n_mfcc;
  p.mel_scale = c.scale;
  p.mel_norm = c.norm;
  p.power = c.power;
  p.decibels = c.decibels;
  p.log_mels = c.log_mels;
  p.average = c.average;
  p.average_kind = c.average_kind;
  p.f_min = c.f_min;
  if (c.f_max > 0) p.f_max = c.f_max;
  p.channel = c.channels - 1;
  return p;
}

StreamInfo stream_of(const MelCase& c) {
  StreamInfo s;
  s.format = c.format;
  s.channels = c.channels;
  s.sample_rate = 16000.0;
  return s;
}

class CudaMelTest : public ::testing::TestWithParam<TransformPath> {};

TEST_P(CudaMelTest, MelAndMfccRowsMatchTheCpuForEveryChunkSize) {
  for (const MelCase& c : mel_cases()) {
    const auto input = make_input(c.format, c.channels, 6 * c.nperseg + 3001, 99);
    const std::size_t width = c.mode == SpectrumMode::mel ? c.n_mels : c.n_mfcc;
    check_against_the_cpu(GetParam(), params_of(c), stream_of(c), input, name_of(c),
                          [&](const std::vector<float>& got, const std::vector<float>& want, const std::string& where) {
                            ASSERT_EQ(got.size(), want.size()) << where;
                            ASSERT_EQ(got.size() % width, 0u) << where << ": rows of " << width << " values";
                            if (c.decibels) EXPECT_LE(max_abs_difference(got, want), 2e-3) << where;
                            else EXPECT_LE(relative_l2(got, want), c.mode == SpectrumMode::mfcc ? 1e-5 : 2e-6) << where;
                          });
  }
}

TEST_P(CudaMelTest, StageHarness) {
  for (std::size_t index : {std::size_t{1}, std::size_t{3}}) {
    const MelCase& c = mel_cases()[index];
    SCOPED_TRACE(name_of(c));
    CudaEngineOptions options;
    options.path = GetParam();
    options.force_fused = true;
    test::StageCheck check;
    // Bit for bit where the fused kernel runs (our FFT pairs the rows of odd lengths, nfft 301 here).
    const bool fused = GetParam() == TransformPath::fused && cuda::fused_path_supports(params_of(c), false);
    check.tolerance = fused ? 0.0 : 1e-5;
    test::check_stage([&] { return std::make_unique<CudaSpectrogram>(params_of(c), options); },
                      test::samples_input(stream_of(c), make_input(c.format, c.channels, 4 * c.nperseg + 777, 5)),
                      check);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, CudaMelTest,
                         ::testing::Values(TransformPath::cufft, TransformPath::prism, TransformPath::fused),
                         path_test_name);

TEST(CudaMel, ComplexInputAndTooManyCepstralBandsAreRefusedByName) {
  SpectrogramParams params = params_of(mel_cases()[0]);
  StreamInfo stream = stream_of(mel_cases()[0]);
  stream.format = SampleFormat::cf32;
  CudaSpectrogram gpu(params, CudaEngineOptions{});
  try {
    gpu.configure(PortDescription::of_samples(stream), 4096);
    ADD_FAILURE() << "complex input was taken in mode mel";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs real input"), std::string::npos) << e.what();
  }
  params.mode = SpectrumMode::mfcc;
  params.n_mels = kGpuMfccMaxBands + 1;
  params.n_mfcc = 13;
  try {
    CudaSpectrogram refused(params, CudaEngineOptions{});
    ADD_FAILURE() << "mfcc of " << params.n_mels << " bands was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("n_mels"), std::string::npos) << e.what();
  }
}

// ---- double precision ----------------------------------------------------------------------------
// The unfused paths in double (our FP64 FFT or cuFFT's double plans), the mel kernel on double
// rows, against CpuSpectrogram in double (FFTW's double-precision library, which the CLI tests
// hold to scipy to 1e-12).

double relative_l2_double(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return std::sqrt(difference / norm);
}

// `params` in double precision on the GPU path `path` over `input` cut four ways, against the
// CPU's double rows: relative L2 1e-12 for linear values, 1e-8 dB (a relative error of 2.3e-9)
// for dB values; the counters as the CPU's.
void check_double_against_the_cpu(TransformPath path, SpectrogramParams params, const StreamInfo& stream,
                                  const std::vector<std::byte>& input, const std::string& label) {
  params.double_precision = true;
  const std::size_t samples = input.size() / stream.frame_bytes();
  CpuSpectrogram cpu(params, 1);
  const std::vector<double> reference = run_chunks<double>(cpu, stream, input, samples);
  ASSERT_FALSE(reference.empty()) << label;
  for (std::size_t chunk : {std::size_t{1000}, std::size_t{37}, samples, params.nperseg + 1}) {
    CudaEngineOptions options;
    options.path = path;
    CudaSpectrogram gpu(params, options);
    const std::vector<double> rows = run_chunks<double>(gpu, stream, input, chunk);
    const std::string where = label + ", chunk " + std::to_string(chunk) + ": " + gpu.describe();
    EXPECT_NE(gpu.path(), TransformPath::fused) << where;
    EXPECT_NE(gpu.describe().find("in double precision"), std::string::npos) << where;
    ASSERT_EQ(rows.size(), reference.size()) << where;
    if (params.decibels && params.mode != SpectrumMode::mfcc)
      EXPECT_LE(max_abs_difference(rows, reference), 1e-8) << where;
    else
      EXPECT_LE(relative_l2_double(rows, reference), 1e-12) << where;
    const StageCounters a = gpu.counters(), b = cpu.counters();
    EXPECT_EQ(a.items_in, b.items_in) << where;
    EXPECT_EQ(a.items_out, b.items_out) << where;
  }
}

// Samples a float cannot hold: 32-bit integers over about 2^31 (more than 24 significant bits),
// and doubles with bits below a float's. A conversion or a history through float would be
// ~1e-8 off, far above the tolerance.
const std::vector<Case>& wide_format_cases() {
  static const std::vector<Case> list = {
      {SampleFormat::i32, 2, 512, 256, 512, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "hann"},
      {SampleFormat::ci32, 1, 300, 100, 301, Detrend::constant, Scaling::spectrum, SpectrumMode::magnitude, false, 2, AverageKind::mean, "hamming"},
      {SampleFormat::u32, 1, 1024, 512, 1024, Detrend::none, Scaling::density, SpectrumMode::psd, true, 1, AverageKind::mean, "blackman"},
      {SampleFormat::cu32, 1, 256, 128, 256, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 3, AverageKind::max, "hann"},
      {SampleFormat::f64, 1, 4096, 2048, 4096, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "kaiser:8.6"},
      {SampleFormat::cf64, 2, 255, 200, 255, Detrend::constant, Scaling::spectrum, SpectrumMode::psd, false, 1, AverageKind::mean, "tukey:0.5"},
      {SampleFormat::u16, 1, 128, 64, 128, Detrend::constant, Scaling::density, SpectrumMode::psd, false, 1, AverageKind::mean, "hann"},
      {SampleFormat::cu16, 1, 100, 50, 128, Detrend::none, Scaling::density, SpectrumMode::magnitude, false, 1, AverageKind::mean, "hann"},
  };
  return list;
}

// make_input, with f64/cf64 values moved off float's grid (random_samples writes floats there).
std::vector<std::byte> make_wide_input(SampleFormat format, unsigned channels, std::size_t samples,
                                       std::uint32_t seed) {
  std::vector<std::byte> bytes = make_input(format, channels, samples, seed);
  if (format == SampleFormat::f64 || format == SampleFormat::cf64) {
    std::mt19937 rng(seed + 1);
    std::uniform_real_distribution<double> tiny(-1.0, 1.0);
    for (std::size_t at = 0; at + 8 <= bytes.size(); at += 8) {
      double v;
      std::memcpy(&v, &bytes[at], 8);
      v += std::ldexp(tiny(rng), -30);
      std::memcpy(&bytes[at], &v, 8);
    }
  }
  return bytes;
}

class CudaDoubleTest : public ::testing::TestWithParam<TransformPath> {};

TEST_P(CudaDoubleTest, RowsMatchTheCpusDoubleRowsForEveryCaseAndChunkSize) {
  for (const Case& c : cases())
    check_double_against_the_cpu(GetParam(), params_of(c), stream_of(c),
                                 make_input(c.format, c.channels, 5 * c.nperseg + 3001, 4321), name_of(c));
}

TEST_P(CudaDoubleTest, SamplesAFloatCannotHoldAreConvertedInDouble) {
  for (const Case& c : wide_format_cases()) {
    const auto input = make_wide_input(c.format, c.channels, 5 * c.nperseg + 3001, 777);
    check_double_against_the_cpu(GetParam(), params_of(c), stream_of(c), input, name_of(c));
    SpectrogramParams raw = params_of(c);  // the stored integer values, unscaled
    raw.integer_scale = IntegerScale::raw;
    check_double_against_the_cpu(GetParam(), raw, stream_of(c), input, name_of(c) + " raw");
  }
}

TEST_P(CudaDoubleTest, MelAndMfccRowsMatchTheCpusDoubleRows) {
  for (const MelCase& c : mel_cases())
    check_double_against_the_cpu(GetParam(), params_of(c), stream_of(c),
                                 make_input(c.format, c.channels, 6 * c.nperseg + 3001, 98), name_of(c));
}

INSTANTIATE_TEST_SUITE_P(Paths, CudaDoubleTest,
                         ::testing::Values(TransformPath::cufft, TransformPath::prism, TransformPath::fused),
                         path_test_name);

// ---- through a graph: transfers inserted, chunks in flight ---------------------------------------

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

struct Collected {
  std::vector<float> rows;
  bool finished = false, complete = false, aborted = false;
};

RunReport run_graph(MemorySource& source, std::unique_ptr<Stage> stage, const RunConfig& config, Collected& out) {
  Graph graph;
  const Graph::Node in = graph.add_source(source);
  const Graph::Node spectrogram = graph.add_stage(std::move(stage));
  graph.connect(in, spectrogram);
  std::size_t columns = 0;
  auto sink = std::make_unique<CallbackSink>(
      PortKind::rows,
      CallbackSink::Functions{
          .on_begin = [&](const PortDescription& d) { columns = d.rows.columns; },
          .on_chunk =
              [&](const Chunk& chunk) {
                EXPECT_EQ(chunk.first_item, out.rows.size() / columns);
                out.rows.insert(out.rows.end(), chunk.as<float>(), chunk.as<float>() + chunk.items * columns);
              },
          .on_end =
              [&](CallbackSink::End how) {
                out.finished = how != CallbackSink::End::failed;
                out.complete = how == CallbackSink::End::completed;
                out.aborted = how == CallbackSink::End::failed;
              }},
      "collector");
  graph.connect(spectrogram, graph.add_sink(std::move(sink)));
  StopToken stop;
  return graph.run(config, stop);
}

TEST(CudaGraph, RowsInOrderAndEveryEdgeBalancesWithChunksInFlight) {
  const Case& c = cases()[0];
  const StreamInfo stream = stream_of(c);
  const auto input = make_input(c.format, c.channels, 300000, 7);
  CpuSpectrogram cpu(params_of(c), 1);
  const auto reference = run_chunks(cpu, stream, input, 300000);
  std::vector<float> first;
  for (std::size_t in_flight : {1, 2, 4}) {
    MemorySource source(stream, input);
    Collected collected;
    RunConfig config;
    config.block_samples = 5000;
    config.block_count = 3;
    config.in_flight = in_flight;
    const RunReport report =
        run_graph(source, std::make_unique<CudaSpectrogram>(params_of(c), CudaEngineOptions{}), config, collected);
    const std::string where = "in flight " + std::to_string(in_flight);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << where << ": " << report.error;
    EXPECT_EQ(report.accounting_mismatch(), "") << where;
    ASSERT_NE(report.node("h2d"), nullptr) << where << ": the graph copies the samples to the device";
    ASSERT_NE(report.node("d2h"), nullptr) << where << ": and the rows back";
    EXPECT_EQ(report.node("h2d")->counters.items_out, 300000u);
    // The source's pinned pool feeds the copy: block_count + in_flight chunks of 5000 f32.
    EXPECT_GE(report.host_pool_bytes, (3 + in_flight) * 5000 * 4);
    EXPECT_GT(report.device_pool_bytes, 0u);
    EXPECT_TRUE(collected.finished && collected.complete);
    expect_close(collected.rows, reference, false, where);
    if (first.empty()) first = collected.rows;
    else EXPECT_EQ(collected.rows, first) << where << ": chunks in flight changed a bit";
  }
}

TEST(CudaGraph, GraphsRunningInThreadsAtOnceEachGiveTheirRows) {
  // A batch on the GPU runs one graph per file at once: one stage's set-up (allocations,
  // uploads, graph capture) and release must not break another's capture.
  const std::vector<std::size_t> picks = {1, 0, 3, 12};  // real and complex, fused and not
  std::vector<std::vector<std::byte>> inputs;
  std::vector<std::vector<float>> alone;  // each case's rows from a run on its own
  RunConfig config;
  config.block_samples = 16384;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const Case& c = cases()[picks[i]];
    inputs.push_back(make_input(c.format, c.channels, 120000, static_cast<std::uint32_t>(20 + i)));
    MemorySource source(stream_of(c), inputs.back());
    Collected collected;
    const RunReport report =
        run_graph(source, std::make_unique<CudaSpectrogram>(params_of(c), CudaEngineOptions{}), config, collected);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << name_of(c) << ": " << report.error;
    ASSERT_FALSE(collected.rows.empty());
    alone.push_back(collected.rows);
  }
  constexpr std::size_t kThreads = 8, kRounds = 4;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t round = 0; round < kRounds && failures[t].empty(); ++round) {
        const std::size_t i = (t + round) % picks.size();
        const Case& c = cases()[picks[i]];
        try {
          MemorySource source(stream_of(c), inputs[i]);
          Collected collected;
          const RunReport report =
              run_graph(source, std::make_unique<CudaSpectrogram>(params_of(c), CudaEngineOptions{}), config, collected);
          if (report.outcome != RunOutcome::completed)
            failures[t] = name_of(c) + ": " + report.error;
          else if (collected.rows != alone[i])
            failures[t] = name_of(c) + ": rows differ from the run on its own";
        } catch (const std::exception& e) {
          failures[t] = name_of(c) + ": " + e.what();
        }
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (std::size_t t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(CudaGraph, InjectedFailureEndsTheRunWithAClearMessageAndAbortsTheSinks) {
  setenv("PRISM_CUDA_FAULT", "alloc@5", 1);
  const Case& c = cases()[0];
  const StreamInfo stream = stream_of(c);
  MemorySource source(stream, make_input(c.format, c.channels, 200000, 8));
  auto gpu = std::make_unique<CudaSpectrogram>(params_of(c), CudaEngineOptions{});
  unsetenv("PRISM_CUDA_FAULT");
  Collected collected;
  RunConfig config;
  config.block_samples = 4096;
  const RunReport report = run_graph(source, std::move(gpu), config, collected);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("spectrogram: cudaMalloc (fault injected by PRISM_CUDA_FAULT"), std::string::npos)
      << report.error;
  EXPECT_NE(report.error.find("out of memory"), std::string::npos) << report.error;
  EXPECT_TRUE(collected.aborted);
}

TEST(CudaDevice, ANonexistentDeviceIsNamedInTheError) {
  const cuda::DeviceInfo info = cuda::probe_device(9999);
  EXPECT_FALSE(info.usable);
  EXPECT_NE(info.reason.find("--device 9999 does not exist"), std::string::npos) << info.reason;
  const Case& c = cases()[0];
  CudaEngineOptions options;
  options.device = 9999;
  EXPECT_THROW(CudaSpectrogram(params_of(c), options), CudaError);
}

}  // namespace
}  // namespace prism
