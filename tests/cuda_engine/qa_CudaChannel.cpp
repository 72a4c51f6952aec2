// qa_CudaChannel: shift, resample, gain and the demodulators am, fm, usb, lsb, cw on the GPU against the CPU's
// (both made by the stage registry from the same spec): bit for bit where the arithmetic is the
// same (gain, shift, cw, am without its high-pass), to a relative L2 of 1e-6 (the one-pole by
// blocks, atan2's last bit) or 1e-5 (the band-pass's order of sums) elsewhere, for native formats and
// channels and every chunk size; the graph's harness (output bit-identical for every cutting,
// counters, reset); where automatic places them; chains fir → demodulator → spectrogram that stay
// on the device; and an injected CUDA failure.
//
// Exits 77 (ctest SKIP) when no usable CUDA device is present (device_test_main.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/stage_registry.hpp"
#include "sinks/callback_sink.hpp"
#include "../pipeline/stage_harness.hpp"
#include "device_chain.hpp"
#include "random_samples.hpp"

namespace prism {
namespace {

using test::as_floats;
using test::ChainRun;
using test::relative_l2;
using test::run_chain;

struct Case {
  const char* spec;
  SampleFormat format;
  unsigned channels;
  double rate;
  // 0: bit for bit (the GPU computes the CPU's operations in the CPU's order); else the relative
  // L2 allowed (the one-pole by blocks and atan2: 1e-6; the band-pass by FFT convolution against
  // the CPU's direct products, and the resampler's float sums in another order: 1e-5).
  double tolerance;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"gain:6", SampleFormat::f32, 1, 48000, 0},
      {"gain:linear=-0.5", SampleFormat::cf32, 1, 48000, 0},
      {"gain:3,channel=1", SampleFormat::ci16, 2, 48000, 0},
      {"shift:-7000.5", SampleFormat::cf32, 1, 48000, 0},
      {"shift:2500", SampleFormat::f32, 1, 48000, 0},
      {"shift:12000,channel=2", SampleFormat::cu8, 3, 48000, 0},
      {"am", SampleFormat::cf32, 1, 48000, 1e-6},
      {"am:dc_corner=0", SampleFormat::cf32, 1, 48000, 0},
      {"am:dc_corner=300", SampleFormat::ci16, 1, 48000, 1e-6},
      {"fm", SampleFormat::cf32, 1, 48000, 1e-6},
      {"fm:wide", SampleFormat::cf32, 1, 240000, 1e-6},
      {"fm:deviation=3000,deemphasis=75", SampleFormat::ci8, 1, 48000, 1e-6},
      {"usb", SampleFormat::cf32, 1, 48000, 1e-5},
      {"lsb:low=200,high=2500,transition=300", SampleFormat::ci8, 1, 48000, 1e-5},
      {"usb:attenuation=80", SampleFormat::cf64, 1, 96000, 1e-5},
      {"resample:24000", SampleFormat::f32, 1, 48000, 1e-5},
      {"resample:up=3,down=2", SampleFormat::cf32, 1, 48000, 1e-5},
      {"resample:44100", SampleFormat::ci16, 1, 48000, 1e-5},  // 147/160
      {"resample:50000", SampleFormat::cf32, 1, 2.5e6, 1e-5},  // 1/50
      {"resample:up=2,down=2", SampleFormat::cf32, 1, 48000, 0},  // 1/1: the input
      {"cw", SampleFormat::cf32, 1, 48000, 0},
      {"cw:bfo=-500", SampleFormat::cf64, 1, 8000, 0},
  };
  return list;
}

StreamInfo stream_of(const Case& c) {
  StreamInfo s;
  s.format = c.format;
  s.channels = c.channels;
  s.sample_rate = c.rate;
  s.center_frequency = 1e6;
  return s;
}

std::unique_ptr<Stage> make(const std::string& spec, fft::BackendKind backend) {
  StageEnvironment environment;
  environment.backend = backend;
  return std::move(make_stage(parse_stage_spec(spec), environment).stage);
}

TEST(CudaChannel, MatchesTheCpuForEveryCaseAndChunkSize) {
  for (const Case& c : cases()) {
    const std::size_t samples = 70000;
    const auto input = test::random_samples(c.format, c.channels, samples, 21, 0.1f);
    const PortDescription in = PortDescription::of_samples(stream_of(c));
    auto cpu = make(c.spec, fft::BackendKind::cpu);
    test::StageDriver cpu_driver(*cpu, in, samples);
    const std::vector<float> reference = as_floats(cpu_driver.run(input, samples));
    ASSERT_FALSE(reference.empty()) << c.spec;
    for (const std::size_t chunk : {samples, std::size_t{4096}, std::size_t{999}, std::size_t{1}}) {
      if (chunk == 1 && c.format != SampleFormat::cf32) continue;  // time
      auto gpu = make(c.spec, fft::BackendKind::cuda);
      test::StageDriver driver(*gpu, in, chunk);
      const std::vector<float> out = as_floats(driver.run(input, chunk));
      const std::string where = std::string(c.spec) + ", chunk " + std::to_string(chunk) + ": " + gpu->describe();
      EXPECT_EQ(gpu->input_domain(), MemoryDomain::cuda(0)) << where;
      EXPECT_EQ(driver.output().samples.format, cpu_driver.output().samples.format) << where;
      EXPECT_EQ(driver.output().samples.sample_rate, cpu_driver.output().samples.sample_rate) << where;
      EXPECT_EQ(driver.output().samples.center_frequency, cpu_driver.output().samples.center_frequency) << where;
      EXPECT_EQ(driver.output().samples.float_full_scale, cpu_driver.output().samples.float_full_scale) << where;
      ASSERT_EQ(out.size(), reference.size()) << where;
      if (c.tolerance == 0) {
        EXPECT_EQ(std::memcmp(out.data(), reference.data(), out.size() * sizeof(float)), 0) << where;
      } else {
        EXPECT_LE(relative_l2(out, reference), c.tolerance) << where;
      }
      EXPECT_EQ(gpu->counters().items_in, cpu->counters().items_in) << where;
      EXPECT_EQ(gpu->counters().items_out, cpu->counters().items_out) << where;
    }
  }
}

TEST(CudaChannel, StageHarness) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.spec);
    test::StageCheck check;
    check.tolerance = 0.0;  // the one-pole's blocks and the phasor's anchors follow the item index
    test::check_stage([&] { return make(c.spec, fft::BackendKind::cuda); },
                      test::samples_input(stream_of(c), test::random_samples(c.format, c.channels, 20000, 5, 0.1f)),
                      check);
  }
}

TEST(CudaChannel, AutomaticKeepsTheLightStagesWhereTheirInputIs) {
  for (const char* spec : {"fm", "shift:1000", "gain:3", "usb", "cw", "am", "resample:24000"}) {
    StageEnvironment environment;  // automatic
    MadeStage alone = make_stage(parse_stage_spec(spec), environment);
    EXPECT_EQ(alone.stage->input_domain(), MemoryDomain::host()) << spec;
    environment.input_on_gpu = true;
    MadeStage after_gpu = make_stage(parse_stage_spec(spec), environment);
    EXPECT_EQ(after_gpu.stage->input_domain(), MemoryDomain::cuda(0)) << spec << ": " << after_gpu.note;
    EXPECT_EQ(after_gpu.stage->name(), parse_stage_spec(spec).name);
  }
  // Asked for by name: the GPU, whatever is before.
  EXPECT_EQ(make("resample:24000", fft::BackendKind::cuda)->input_domain(), MemoryDomain::cuda(0));
}

std::vector<std::unique_ptr<Stage>> made(const std::vector<std::string>& specs, fft::BackendKind backend) {
  std::vector<std::unique_ptr<Stage>> stages;
  for (const std::string& spec : specs) stages.push_back(make(spec, backend));
  return stages;
}

TEST(CudaChannel, AChainFromTheFirToTheSpectrogramStaysOnTheDevice) {
  const std::vector<std::vector<std::string>> chains = {
      {"fir:lowpass=100000,numtaps=255,shift=-100000,decimate=4", "fm:wide", "resample:48000",
       "spectrogram:nperseg=256,window=hann"},
      {"fir:lowpass=5000,numtaps=511,shift=20000,decimate=20", "am", "gain:-6", "spectrogram:nperseg=256"},
      {"fir:complex_bandpass=0:4000,numtaps=255,decimate=20", "usb", "spectrogram:nperseg=128"},
  };
  for (const std::vector<std::string>& chain : chains) {
    SCOPED_TRACE(chain.front() + " ! " + chain[1]);
    StreamInfo stream;
    stream.format = SampleFormat::ci16;
    stream.sample_rate = 1e6;
    const auto input = test::random_samples(SampleFormat::ci16, 1, 400000, 3);
    ChainRun gpu = run_chain(stream, input, made(chain, fft::BackendKind::cuda));
    ChainRun cpu = run_chain(stream, input, made(chain, fft::BackendKind::cpu));
    ASSERT_EQ(gpu.report.outcome, RunOutcome::completed) << gpu.report.error;
    EXPECT_EQ(gpu.report.accounting_mismatch(), "");
    test::expect_one_copy_each_way(gpu.report);
    ASSERT_EQ(gpu.items.size(), cpu.items.size());
    ASSERT_FALSE(cpu.items.empty());
    EXPECT_LE(relative_l2(gpu.items, cpu.items), 1e-4);
  }
}

// fm on the channel stages' kernels, usb on its fir's: the stage's own fault injection either way.
TEST(CudaChannel, InjectedFailureEndsTheRunWithAClearMessage) {
  for (const char* spec : {"fm", "usb"}) {
    SCOPED_TRACE(spec);
    setenv("PRISM_CUDA_FAULT", "alloc@3", 1);
    auto stage = make(spec, fft::BackendKind::cuda);
    unsetenv("PRISM_CUDA_FAULT");
    StreamInfo stream;
    stream.format = SampleFormat::cf32;
    stream.sample_rate = 48000;
    std::vector<std::unique_ptr<Stage>> stages;
    stages.push_back(std::move(stage));
    stages.push_back(make("spectrogram:nperseg=256", fft::BackendKind::cuda));
    ChainRun run = run_chain(stream, test::random_samples(SampleFormat::cf32, 1, 100000, 4), std::move(stages));
    EXPECT_EQ(run.report.outcome, RunOutcome::failed);
    EXPECT_NE(run.report.error.find(std::string(spec) + ": cudaMalloc (fault injected by PRISM_CUDA_FAULT)"),
              std::string::npos)
        << run.report.error;
    EXPECT_TRUE(run.aborted);
  }
}

}  // namespace
}  // namespace prism
