// qa_CudaFir: the fir stage on the GPU against the CPU's (both made by the stage registry from the
// same spec, so the same taps): native formats (the 16 of SampleFormat's, most of them) and channels, real and complex input and taps,
// tap counts up to 65535 (partitioned beyond 8192 taps or an FFT length shorter than them),
// shift, decimation (folded and not) and both alignments, to a relative L2 of 2e-5; where the
// decimation folds by default;
// the graph's harness (output bit-identical for every cutting of the input, counters, reset);
// a chain fir → spectrogram that stays on the device (one copy in, one out); set_taps with the
// calls before it still queued; and an injected CUDA failure. In double precision (our FP64 FFT
// between the gather and store kernels): the CPU's double outputs to 1e-12, the harness and the
// switch.
//
// Exits 77 (ctest SKIP) when no usable CUDA device is present (device_test_main.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/cuda/cuda_fir.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/fir_filter.hpp"
#include "pipeline/gpu_runtime.hpp"
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
  const char* spec;  // the fir's settings
  SampleFormat format;
  unsigned channels;
  // Where set: what the GPU stage's description says with the fold pinned on, so that a case
  // meant for a fold kernel fails if the plan stops choosing it.
  const char* folded = nullptr;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"fir:lowpass=5000,numtaps=63", SampleFormat::f32, 1},
      {"fir:lowpass=5000,numtaps=63,align=same", SampleFormat::cf32, 1},
      {"fir:bandpass=1000:9000,numtaps=255,decimate=8,fft_length=1024", SampleFormat::cf32, 1},
      {"fir:highpass=2000,numtaps=255,decimate=3,align=same", SampleFormat::f32, 1},
      {"fir:lowpass=3000,numtaps=1023,shift=-7000.5", SampleFormat::cf32, 1},
      {"fir:lowpass=3000,numtaps=1023,shift=2500,decimate=8,align=same,fft_length=4096", SampleFormat::f32, 1},
      {"fir:complex_bandpass=-4000:1000,numtaps=511,decimate=5", SampleFormat::cf32, 1},
      {"fir:complex_bandpass=500:6000,numtaps=64", SampleFormat::f32, 1},
      {"fir:bandstop=4000:8000,numtaps=4095,decimate=64", SampleFormat::cf32, 1},
      {"fir:lowpass=400,numtaps=8191,align=same,fft_length=16384", SampleFormat::cf32, 1},  // one spectrum
      {"fir:lowpass=8000,numtaps=127,channel=1", SampleFormat::ci16, 2},
      {"fir:lowpass=8000,numtaps=33,decimate=2,channel=2,fft_length=1024", SampleFormat::cu8, 3},
      {"fir:lowpass=8000,numtaps=3", SampleFormat::i8, 1},
      {"fir:lowpass=1000,numtaps=1,align=same", SampleFormat::cf32, 1},
      {"fir:lowpass=6000,numtaps=200,fft_length=1024,decimate=7", SampleFormat::ci8, 1},
      {"fir:lowpass=5000,numtaps=63", SampleFormat::cf64, 1},
      {"fir:lowpass=5000,numtaps=63,channel=1", SampleFormat::ci32, 2},
      {"fir:lowpass=5000,numtaps=63,decimate=2", SampleFormat::cu16, 1},
      {"fir:lowpass=5000,numtaps=63", SampleFormat::u32, 1},
      // The folded decimation: with the cases above, each of its nine kernels (N 1024, 2048,
      // 4096 and D 2, 4, 8), δ = c mod D of 0 and not. The automatic length follows the chunk
      // (pick_gpu_fir_plan), so the kernels' cases name theirs.
      {"fir:lowpass=5000,numtaps=400,decimate=4,align=same,fft_length=2048", SampleFormat::cf32, 1},
      {"fir:lowpass=2000,numtaps=101,decimate=4,shift=1500,fft_length=1024", SampleFormat::f32, 1},
      {"fir:lowpass=2000,numtaps=400,decimate=8,fft_length=2048", SampleFormat::cf32, 1},
      {"fir:lowpass=5000,numtaps=300,fft_length=2048,decimate=2", SampleFormat::f32, 1},
      {"fir:lowpass=9000,numtaps=1023,decimate=2,align=same,fft_length=4096", SampleFormat::f32, 1},
      {"fir:lowpass=4000,numtaps=1000,decimate=4,shift=-1200,fft_length=4096", SampleFormat::cf32, 1},
      // One spectrum at N 8192, the first automatic choice on a device a call fills.
      {"fir:lowpass=5000,numtaps=63,fft_length=8192", SampleFormat::cf32, 1},
      {"fir:lowpass=3000,numtaps=2000,decimate=8,align=same,fft_length=8192", SampleFormat::f32, 1},
      // Partitioned filters (with the 4095 taps above): beyond 2048 taps partitions of 2048 at
      // N 4096, beyond 16384 of 8192 at N 16384, and FFT lengths shorter than the taps
      // (partitions of N/2).
      {"fir:lowpass=100,numtaps=9001", SampleFormat::cf32, 1},                                  // K 5
      {"fir:lowpass=300,numtaps=20000,decimate=8,align=same,shift=1000", SampleFormat::f32, 1},  // K 3
      {"fir:lowpass=1000,numtaps=65535,align=same", SampleFormat::cf32, 1},                     // K 8
      {"fir:lowpass=2000,numtaps=3000,fft_length=1024,decimate=3", SampleFormat::ci16, 1},      // K 6
      {"fir:complex_bandpass=-4000:1000,numtaps=700,fft_length=256,align=same", SampleFormat::cf32, 1},  // K 6
      {"fir:lowpass=2000,numtaps=5000,fft_length=512,decimate=300,align=same", SampleFormat::f32, 1},  // D > B
      // The group delay (100000 samples) longer than the input: the first flush passes over
      // segments without outputs.
      {"fir:lowpass=500,numtaps=200001,align=same", SampleFormat::cf32, 1},  // K 25
      // Real input and taps in the fold kernels, two segments per transform: with 22 and 23 (N
      // 2048 and 4096 at D 2) each of the nine packed kernels, δ of 0 and not. The last two are
      // 22 and 23 on complex input, for the unpacked kernels at those lengths.
      {"fir:lowpass=6000,numtaps=63,decimate=2,align=same,fft_length=1024", SampleFormat::f32, 1,
       "decimation 2 in frequency (inverse FFT 512), two real segments per transform"},
      {"fir:highpass=3000,numtaps=201,decimate=4,fft_length=1024", SampleFormat::i16, 1,
       "decimation 4 in frequency (inverse FFT 256), two real segments per transform"},
      {"fir:lowpass=2000,numtaps=255,decimate=8,align=same,fft_length=1024", SampleFormat::f32, 1,
       "decimation 8 in frequency (inverse FFT 128), two real segments per transform"},
      {"fir:lowpass=4000,numtaps=500,decimate=4,align=same,fft_length=2048,channel=1", SampleFormat::f32, 2,
       "decimation 4 in frequency (inverse FFT 512), two real segments per transform"},
      {"fir:lowpass=2000,numtaps=700,decimate=8,fft_length=2048", SampleFormat::f32, 1,
       "decimation 8 in frequency (inverse FFT 256), two real segments per transform"},
      {"fir:lowpass=3000,numtaps=1500,decimate=4,align=same,fft_length=4096", SampleFormat::u8, 1,
       "decimation 4 in frequency (inverse FFT 1024), two real segments per transform"},
      {"fir:lowpass=2000,numtaps=2047,decimate=8,fft_length=4096", SampleFormat::f32, 1,
       "decimation 8 in frequency (inverse FFT 512), two real segments per transform"},
      {"fir:lowpass=5000,numtaps=300,fft_length=2048,decimate=2", SampleFormat::cf32, 1,
       "decimation 2 in frequency (inverse FFT 1024)"},
      {"fir:lowpass=9000,numtaps=1023,decimate=2,align=same,fft_length=4096", SampleFormat::cf32, 1,
       "decimation 2 in frequency (inverse FFT 2048)"},
      // Partitioned and folded (the sums folded onto N/D bins; with 28 above, N 16384 and D 8):
      // each inverse length from 256 to 8192, δ of 0 and not.
      {"fir:lowpass=100,numtaps=9001,decimate=4", SampleFormat::cf32, 1,
       "partitions of 2048, decimation 4 in frequency (inverse FFT 1024)"},
      {"fir:lowpass=2000,numtaps=3000,fft_length=1024,decimate=2,align=same", SampleFormat::ci16, 1,
       "partitions of 512, decimation 2 in frequency (inverse FFT 512)"},
      {"fir:lowpass=2000,numtaps=1500,fft_length=512,decimate=2", SampleFormat::f32, 1,
       "partitions of 256, decimation 2 in frequency (inverse FFT 256)"},
      {"fir:lowpass=1000,numtaps=65535,decimate=8,align=same", SampleFormat::f32, 1,
       "partitions of 8192, decimation 8 in frequency (inverse FFT 2048)"},
      {"fir:lowpass=1000,numtaps=20000,decimate=2", SampleFormat::cf32, 1,
       "partitions of 8192, decimation 2 in frequency (inverse FFT 8192)"},
      {"fir:lowpass=1000,numtaps=20000,decimate=2,fft_length=8192,align=same", SampleFormat::f32, 1,
       "partitions of 4096, decimation 2 in frequency (inverse FFT 4096)"},
  };
  return list;
}

StreamInfo stream_of(const Case& c) {
  StreamInfo s;
  s.format = c.format;
  s.channels = c.channels;
  s.sample_rate = 48000.0;
  s.center_frequency = 1e6;
  return s;
}

std::unique_ptr<Stage> make_fir(const std::string& spec, fft::BackendKind backend) {
  StageEnvironment environment;
  environment.backend = backend;
  environment.cpu_threads = 2;
  MadeStage made = make_stage(parse_stage_spec(spec), environment);
  return std::move(made.stage);
}

// Pins where the fold kernels run (PRISM_GPU_FIR_FOLD) for the stages made while it lives: the
// tests of the kernels run every chunk size on both kernels, where by default only a call that
// fills the device folds.
class FoldPinned {
 public:
  explicit FoldPinned(const char* choice) { setenv("PRISM_GPU_FIR_FOLD", choice, 1); }
  ~FoldPinned() { unsetenv("PRISM_GPU_FIR_FOLD"); }
  FoldPinned(const FoldPinned&) = delete;
  FoldPinned& operator=(const FoldPinned&) = delete;
};

TEST(CudaFir, MatchesTheCpuForEveryCaseAndChunkSize) {
  for (const Case& c : cases()) {
    const StreamInfo stream = stream_of(c);
    const std::size_t samples = 70000;
    const auto input = test::random_samples(c.format, c.channels, samples, 99);
    const PortDescription in = PortDescription::of_samples(stream);
    auto cpu = make_fir(c.spec, fft::BackendKind::cpu);
    test::StageDriver cpu_driver(*cpu, in, samples);
    const std::vector<float> reference = as_floats(cpu_driver.run(input, samples));
    ASSERT_FALSE(reference.empty()) << c.spec;
    for (const char* fold : {"always", "never"})
    for (const std::size_t chunk : {samples, std::size_t{4096}, std::size_t{999}, std::size_t{1}}) {
      if (chunk == 1 && std::string(c.spec).find("numtaps=63,") == std::string::npos) continue;  // time
      const FoldPinned pinned(fold);
      auto gpu = make_fir(c.spec, fft::BackendKind::cuda);
      test::StageDriver driver(*gpu, in, chunk);
      const std::vector<float> out = as_floats(driver.run(input, chunk));
      const std::string where = std::string(c.spec) + ", chunk " + std::to_string(chunk) + ", fold " + fold + ": " +
                                gpu->describe();
      if (c.folded != nullptr && std::string(fold) == "always") {
        EXPECT_NE(gpu->describe().find(c.folded), std::string::npos) << where;
      }
      EXPECT_EQ(driver.output().samples.format, cpu_driver.output().samples.format) << where;
      EXPECT_EQ(driver.output().samples.sample_rate, cpu_driver.output().samples.sample_rate) << where;
      EXPECT_EQ(driver.output().samples.center_frequency, cpu_driver.output().samples.center_frequency) << where;
      EXPECT_EQ(driver.output().samples.float_full_scale, cpu_driver.output().samples.float_full_scale) << where;
      ASSERT_EQ(out.size(), reference.size()) << where;
      EXPECT_LE(relative_l2(out, reference), 2e-5) << where;
      EXPECT_EQ(gpu->counters().items_in, cpu->counters().items_in) << where;
      EXPECT_EQ(gpu->counters().items_out, cpu->counters().items_out) << where;
    }
  }
}

TEST(CudaFir, StageHarness) {
  // Among them decimation by 8 (N 4096 and 8192), 2 (N 1024) and 4 (N 2048), folded and not,
  // two real segments per transform (0, 26, 35 and 39 folded: a segment's partner the same in
  // every cutting), and partitioned filters (N 16384 and 256; 28 and 43 folded).
  for (const char* fold : {"always", "never"})
  for (const std::size_t index : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{11}, std::size_t{19},
                                  std::size_t{26}, std::size_t{28}, std::size_t{31}, std::size_t{35},
                                  std::size_t{39}, std::size_t{43}}) {
    const FoldPinned pinned(fold);
    const Case& c = cases()[index];
    SCOPED_TRACE(std::string(c.spec) + ", fold " + fold);
    test::StageCheck check;
    check.tolerance = 0.0;  // each segment is computed the same way whatever the cutting
    test::check_stage([&] { return make_fir(c.spec, fft::BackendKind::cuda); },
                      test::samples_input(stream_of(c), test::random_samples(c.format, c.channels, 20000, 5)), check);
  }
}

// precision=double on the GPU against the CPU's double: native formats read in double (f32,
// f64, cf64, ci16, ci32, u8, a channel of two), real and complex input and taps, a shift (its
// phase exact at every output), decimation beyond the hop, both alignments, lengths that are not
// powers of two (5000 on our FP64 FFT; 310, whose factor 31 our FP64 FFT does not take, on
// cuFFT's) and a long filter (20000 taps at N 131072); every cutting; --backend cufft (cuFFT's
// double plans for every length).
TEST(CudaFir, DoublePrecisionMatchesTheCpusDouble) {
  const std::vector<Case> wide = {
      {"fir:lowpass=5000,numtaps=63,precision=double", SampleFormat::f64, 1},
      {"fir:lowpass=5000,numtaps=63,align=same,precision=double", SampleFormat::cf64, 1},
      {"fir:bandpass=1000:9000,numtaps=255,decimate=8,precision=double", SampleFormat::cf32, 1},
      {"fir:lowpass=3000,numtaps=1023,shift=-7000.5,decimate=3,align=same,precision=double", SampleFormat::ci16, 1},
      {"fir:complex_bandpass=-4000:1000,numtaps=511,decimate=5,precision=double", SampleFormat::f32, 1},
      {"fir:lowpass=2000,numtaps=3000,fft_length=5000,shift=1234.5,precision=double", SampleFormat::cf64, 1},
      {"fir:lowpass=8000,numtaps=127,channel=1,precision=double", SampleFormat::ci32, 2},
      {"fir:lowpass=1000,numtaps=20000,align=same,shift=1000,precision=double", SampleFormat::cf64, 1},
      {"fir:lowpass=8000,numtaps=3,decimate=7,precision=double", SampleFormat::u8, 1},
      // D > B: segments without outputs.
      {"fir:lowpass=2000,numtaps=300,fft_length=310,decimate=50,align=same,precision=double", SampleFormat::cf32, 1},
  };
  for (const Case& c : wide) {
    const StreamInfo stream = stream_of(c);
    const std::size_t samples = 70000;
    const auto input = test::random_samples(c.format, c.channels, samples, 54);
    const PortDescription in = PortDescription::of_samples(stream);
    auto cpu = make_fir(c.spec, fft::BackendKind::cpu);
    test::StageDriver cpu_driver(*cpu, in, samples);
    const std::vector<double> reference = test::as_values<double>(cpu_driver.run(input, samples));
    ASSERT_FALSE(reference.empty()) << c.spec;
    for (const std::size_t chunk : {samples, std::size_t{4096}, std::size_t{999}, std::size_t{1}}) {
      if (chunk == 1 && std::string(c.spec).find("numtaps=63,") == std::string::npos) continue;  // time
      auto gpu = make_fir(c.spec, fft::BackendKind::cuda);
      test::StageDriver driver(*gpu, in, chunk);
      const std::vector<double> out = test::as_values<double>(driver.run(input, chunk));
      const std::string where = std::string(c.spec) + ", chunk " + std::to_string(chunk) + ": " + gpu->describe();
      EXPECT_NE(gpu->describe().find("in double precision"), std::string::npos) << where;
      EXPECT_EQ(driver.output().samples.format, cpu_driver.output().samples.format) << where;
      EXPECT_EQ(driver.output().samples.sample_rate, cpu_driver.output().samples.sample_rate) << where;
      EXPECT_EQ(driver.output().samples.center_frequency, cpu_driver.output().samples.center_frequency) << where;
      ASSERT_EQ(out.size(), reference.size()) << where;
      EXPECT_LE(relative_l2(out, reference), 1e-12) << where;
      EXPECT_EQ(gpu->counters().items_in, cpu->counters().items_in) << where;
      EXPECT_EQ(gpu->counters().items_out, cpu->counters().items_out) << where;
    }
    auto on_cufft = make_fir(c.spec, fft::BackendKind::cufft);
    test::StageDriver driver(*on_cufft, in, 4096);
    const std::vector<double> out = test::as_values<double>(driver.run(input, 4096));
    EXPECT_NE(on_cufft->describe().find("cuFFT's double FFTs"), std::string::npos) << on_cufft->describe();
    ASSERT_EQ(out.size(), reference.size()) << c.spec << ", cufft";
    EXPECT_LE(relative_l2(out, reference), 1e-12) << c.spec << ", cufft";
  }
  // The harness on our FP64 FFT, and on cuFFT's (whose batch, a slice's rows, follows the chunk).
  for (const auto& [index, backend] : std::vector<std::pair<std::size_t, fft::BackendKind>>{
           {0, fft::BackendKind::cuda}, {3, fft::BackendKind::cuda}, {5, fft::BackendKind::cuda},
           {9, fft::BackendKind::cuda}, {0, fft::BackendKind::cufft}, {3, fft::BackendKind::cufft}}) {
    const Case& c = wide[index];
    SCOPED_TRACE(std::string(c.spec) + " on " + std::string(fft::backend_name(backend)));
    test::StageCheck check;
    check.tolerance = 0.0;  // each segment is computed the same way whatever the cutting
    test::check_stage([&, backend = backend] { return make_fir(c.spec, backend); },
                      test::samples_input(stream_of(c), test::random_samples(c.format, c.channels, 20000, 5)), check);
  }
  // auto keeps a fir in double on the CPU, saying so; an FFT length shorter than the taps is a
  // usage error naming it on the GPU.
  StageEnvironment environment;
  MadeStage made = make_stage(parse_stage_spec("fir:lowpass=100,numtaps=301,precision=double"), environment);
  EXPECT_EQ(made.stage->input_domain().kind, MemoryDomain::host().kind);
  EXPECT_NE(made.note.find("the fir in double runs on the CPU backend"), std::string::npos) << made.note;
  StreamInfo floats;
  floats.format = SampleFormat::cf32;
  floats.sample_rate = 48000;
  auto short_length = make_fir("fir:lowpass=100,numtaps=301,fft_length=300,precision=double", fft::BackendKind::cuda);
  try {
    short_length->configure(PortDescription::of_samples(floats), 4096);
    ADD_FAILURE() << "configured";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fft_length=300: the GPU filter in double takes a length from the tap count"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaFir, ByDefaultTheLengthAndTheFoldFollowTheLargestChunk) {
  StreamInfo stream;
  stream.format = SampleFormat::cf32;
  stream.sample_rate = 48000;
  const PortDescription in = PortDescription::of_samples(stream);
  auto gpu = make_fir("fir:lowpass=3000,numtaps=1023,decimate=8", fft::BackendKind::cuda);
  // 65536 items: no choice fills the device; unfolded at 4096 makes the most CTAs (22 segments,
  // a CTA each; 8192 unfolded 10; folded, 8 segments per CTA at 4096 and 16 at 2048).
  gpu->configure(in, 65536);
  EXPECT_NE(gpu->describe().find("every 8th point of the inverse FFT"), std::string::npos) << gpu->describe();
  EXPECT_NE(gpu->describe().find("hop 3074"), std::string::npos) << gpu->describe();
  // 2^26 items: 21 845 segments, many CTAs per multiprocessor: the first choice.
  gpu->configure(in, std::size_t{1} << 26);
  EXPECT_NE(gpu->describe().find("FFT 4096 (hop 3072)"), std::string::npos) << gpu->describe();
  EXPECT_NE(gpu->describe().find("decimation 8 in frequency (inverse FFT 512)"), std::string::npos)
      << gpu->describe();
  {
    const FoldPinned pinned("never");
    auto unfolded = make_fir("fir:lowpass=3000,numtaps=1023,decimate=8", fft::BackendKind::cuda);
    unfolded->configure(in, std::size_t{1} << 26);
    EXPECT_NE(unfolded->describe().find("FFT 8192 (hop 7170)"), std::string::npos) << unfolded->describe();
    EXPECT_NE(unfolded->describe().find("every 8th point"), std::string::npos) << unfolded->describe();
  }
  {
    const FoldPinned pinned("sometimes");
    EXPECT_THROW(make_fir("fir:lowpass=3000,numtaps=1023,decimate=8", fft::BackendKind::cuda), UsageError);
  }
  // Without decimation: the longest transform on a large chunk, matching the CPU there (the
  // cases above name their lengths or run small chunks).
  const std::size_t samples = 300000;
  const auto input = test::random_samples(SampleFormat::cf32, 1, samples, 17);
  auto cpu = make_fir("fir:lowpass=5000,numtaps=255,align=same", fft::BackendKind::cpu);
  test::StageDriver cpu_driver(*cpu, in, samples);
  const std::vector<float> reference = as_floats(cpu_driver.run(input, samples));
  auto long_chunks = make_fir("fir:lowpass=5000,numtaps=255,align=same", fft::BackendKind::cuda);
  test::StageDriver driver(*long_chunks, in, std::size_t{1} << 22);
  EXPECT_NE(long_chunks->describe().find("FFT 8192 (hop 7938)"), std::string::npos) << long_chunks->describe();
  const std::vector<float> out = as_floats(driver.run(input, samples));
  ASSERT_EQ(out.size(), reference.size());
  EXPECT_LE(relative_l2(out, reference), 2e-5);
  // A small chunk: the shortest transform, whose hop holds the fewest items back.
  long_chunks->configure(in, 4096);
  EXPECT_NE(long_chunks->describe().find("FFT 1024 (hop 770)"), std::string::npos) << long_chunks->describe();
}

TEST(CudaFir, LongFiltersArePartitionedOnTheGpuAndBadLengthsAreUsageErrors) {
  StreamInfo stream;
  stream.format = SampleFormat::cf32;
  stream.sample_rate = 48000;
  auto gpu = make_fir("fir:lowpass=100,numtaps=20001", fft::BackendKind::cuda);
  gpu->configure(PortDescription::of_samples(stream), 4096);
  EXPECT_NE(gpu->describe().find("in 3 partitions of 8192"), std::string::npos) << gpu->describe();
  // auto puts it on the GPU too.
  StageEnvironment environment;
  MadeStage made = make_stage(parse_stage_spec("fir:lowpass=100,numtaps=20001"), environment);
  EXPECT_EQ(made.stage->input_domain().kind, MemoryDomain::cuda(0).kind) << made.note;
  // An FFT length the GPU cannot take: a usage error naming it on cuda, the CPU with a note on auto.
  auto bad = make_fir("fir:lowpass=100,numtaps=101,fft_length=3000", fft::BackendKind::cuda);
  try {
    bad->configure(PortDescription::of_samples(stream), 4096);
    FAIL() << "configured";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fft_length"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("16384"), std::string::npos) << e.what();
  }
  made = make_stage(parse_stage_spec("fir:lowpass=100,numtaps=101,fft_length=3000"), environment);
  EXPECT_NE(made.note.find("CPU"), std::string::npos) << made.note;
  EXPECT_EQ(made.stage->input_domain().kind, MemoryDomain::host().kind);
}

// set_taps between two process() calls whose kernels are still queued (nothing waits between
// them): the outputs returned before are the old filter's, the later ones the new filter's over
// the same history, as FirFilter's switch, for one spectrum (complex, shifted; real and packed;
// folded with `same` and fewer taps than the capacity) and partitioned filters.
TEST(CudaFir, SetTapsSwitchesExactlyWithKernelsInFlight) {
  struct Switch {
    std::size_t taps_before, taps_after, capacity, decimation;
    bool complex_input, complex_taps;
    std::optional<double> shift;
    FirAlign align;
    std::size_t fft_length;
  };
  std::mt19937 rng(404);
  std::normal_distribution<double> normal;
  const auto taps_of = [&](std::size_t m, bool complex) {
    if (!complex) {
      std::vector<double> h(m);
      for (double& t : h) t = normal(rng) / std::sqrt(static_cast<double>(m));
      return FilterTaps::from_real(h);
    }
    std::vector<std::complex<double>> h(m);
    for (auto& t : h) t = {normal(rng) / std::sqrt(static_cast<double>(m)), normal(rng) / std::sqrt(static_cast<double>(m))};
    return FilterTaps::from_complex(h);
  };
  const auto run_switch = [&](const Switch& c, auto zero) {
    using T = decltype(zero);
    constexpr bool kDouble = sizeof(T) == sizeof(double);
    SCOPED_TRACE("taps " + std::to_string(c.taps_before) + " -> " + std::to_string(c.taps_after) + ", capacity " +
                 std::to_string(c.capacity) + ", D " + std::to_string(c.decimation) + (kDouble ? ", double" : ""));
    FirSpec spec;
    spec.taps = taps_of(c.taps_before, c.complex_taps);
    spec.complex_input = c.complex_input;
    spec.sample_rate = 48000.0;
    spec.shift_hz = c.shift;
    spec.decimation = c.decimation;
    spec.align = c.align;
    spec.max_taps = c.capacity;
    spec.fft_length = c.fft_length;
    spec.threads = 1;
    spec.double_precision = kDouble;
    const FilterTaps after = taps_of(c.taps_after, c.complex_taps);
    const std::size_t items = 60000, chunk = 7000, switch_at = 28000;  // the switch after 4 calls
    const std::size_t in_c = c.complex_input ? 2 : 1;
    std::vector<T> input(items * in_c);
    for (T& v : input) v = static_cast<T>(normal(rng));

    // FirFilter over the whole input, with the old taps and with the new.
    const auto cpu_run = [&](const FilterTaps* switched) {
      FirFilter filter(spec);
      if (switched != nullptr) filter.set_taps(*switched);
      const std::size_t out_c = filter.complex_output() ? 2 : 1;
      std::vector<T> out((filter.max_output(items) + 20000) * out_c);
      std::size_t n = filter.process(input.data(), items, out.data());
      while (std::size_t got = filter.flush(out.data() + n * out_c, 4096)) n += got;
      out.resize(n * out_c);
      return out;
    };
    const std::vector<T> old_outputs = cpu_run(nullptr), new_outputs = cpu_run(&after);

    StreamInfo floats;
    floats.format = float_format(c.complex_input, kDouble);
    floats.sample_rate = spec.sample_rate;
    floats.channels = 1;
    StreamInfo output = floats;
    const bool complex_output = c.complex_input || c.complex_taps || c.shift.has_value();
    output.format = float_format(complex_output, kDouble);
    cuda::CudaFir fir(0, [&](const StreamInfo&) { return cuda::CudaFir::Design{spec, output}; }, 0);
    fir.configure(PortDescription::of_samples(floats), chunk);
    const std::size_t out_c = complex_output ? 2 : 1;
    const std::size_t out_items = old_outputs.size() / out_c;
    T* device_in = static_cast<T*>(gpu::device_alloc(input.size() * sizeof(T), 0, "test input"));
    T* device_out = static_cast<T*>(gpu::device_alloc((out_items + 1) * out_c * sizeof(T), 0, "test output"));
    gpu::copy_async(device_in, input.data(), input.size() * sizeof(T), fir.stream(), 0);
    std::size_t written = 0, switched = 0;
    for (std::size_t first = 0; first < items; first += chunk) {
      if (first == switch_at) {
        fir.set_taps(after);  // the calls before are still queued on the stage's stream
        switched = written;
      }
      Chunk in;
      in.data = reinterpret_cast<std::byte*>(device_in + first * in_c);
      in.items = in.capacity = std::min(chunk, items - first);
      in.item_bytes = in_c * sizeof(T);
      in.domain = MemoryDomain::cuda(0);
      in.first_item = first;
      Chunk out;
      out.data = reinterpret_cast<std::byte*>(device_out + written * out_c);
      out.capacity = fir.max_output(chunk);
      out.item_bytes = out_c * sizeof(T);
      out.domain = MemoryDomain::cuda(0);
      written += fir.process(in, out);
    }
    for (;;) {
      Chunk out;
      out.data = reinterpret_cast<std::byte*>(device_out + written * out_c);
      out.capacity = out_items - std::min(out_items, written);
      out.item_bytes = out_c * sizeof(T);
      out.domain = MemoryDomain::cuda(0);
      const std::size_t got = out.capacity > 0 ? fir.flush(out) : 0;
      if (got == 0) break;
      written += got;
    }
    ASSERT_EQ(written, out_items);
    std::vector<T> got(written * out_c);
    gpu::copy_async(got.data(), device_out, got.size() * sizeof(T), fir.stream(), 0);
    gpu::host_wait_stream(fir.stream());
    gpu::device_free(device_in);
    gpu::device_free(device_out);
    ASSERT_GT(switched, 0u);
    ASSERT_LT(switched, written);
    const auto part = [&](const std::vector<T>& v, std::size_t from, std::size_t to) {
      return std::vector<T>(v.begin() + static_cast<long>(from * out_c), v.begin() + static_cast<long>(to * out_c));
    };
    const double tolerance = kDouble ? 1e-12 : 2e-5;
    EXPECT_LT(relative_l2(part(got, 0, switched), part(old_outputs, 0, switched)), tolerance) << fir.describe();
    EXPECT_LT(relative_l2(part(got, switched, written), part(new_outputs, switched, written)), tolerance)
        << fir.describe();
  };
  for (const Switch& c : std::vector<Switch>{
           {255, 255, 0, 1, true, true, 3000.0, FirAlign::causal, 0},      // one spectrum, shifted
           {255, 200, 300, 1, false, false, std::nullopt, FirAlign::same, 0},  // real: two segments per transform
           {400, 301, 600, 4, true, false, std::nullopt, FirAlign::same, 2048},  // folded, fewer taps
           {1500, 1000, 1500, 1, true, true, std::nullopt, FirAlign::same, 512},  // partitioned
           {1200, 1500, 1500, 8, false, true, -2000.0, FirAlign::causal, 1024},  // partitioned, folded
       }) {
    run_switch(c, 0.0f);
  }
  // In double precision (one spectrum on our FP64 FFT): shifted and complex, real, and a shorter
  // filter in its room.
  for (const Switch& c : std::vector<Switch>{
           {255, 255, 0, 1, true, true, 3000.0, FirAlign::causal, 0},
           {255, 200, 300, 3, false, false, std::nullopt, FirAlign::same, 0},
           {1500, 1000, 1500, 1, true, true, -2000.0, FirAlign::same, 0},
       }) {
    run_switch(c, 0.0);
  }
}

TEST(CudaFir, AChainOfGpuStagesStaysOnTheDevice) {
  const FoldPinned pinned("always");  // the fold kernels in the chain (compute-sanitizer runs this test)
  // Complex input shifted, real input and taps (two segments per transform), and a partitioned
  // filter (its sums folded).
  const std::pair<SampleFormat, std::string> chains[] = {
      {SampleFormat::ci16, "fir:lowpass=50000,numtaps=255,shift=-100000,decimate=4"},
      {SampleFormat::i16, "fir:lowpass=50000,numtaps=255,decimate=4"},
      {SampleFormat::ci16, "fir:lowpass=50000,numtaps=1500,fft_length=512,decimate=2"},  // partitioned
  };
  for (const auto& [format, fir] : chains) {
    SCOPED_TRACE(fir);
    StreamInfo stream;
    stream.format = format;
    stream.sample_rate = 1e6;
    const auto input = test::random_samples(format, 1, 300000, 3);
    const std::string spectrogram = "spectrogram:nperseg=256,window=hann";
    StageEnvironment gpu_environment;
    gpu_environment.backend = fft::BackendKind::cuda;
    StageEnvironment cpu_environment;
    cpu_environment.backend = fft::BackendKind::cpu;
    // source → fir → spectrogram → host sink
    ChainRun gpu = run_chain(stream, input,
                             test::chain_of(make_stage(parse_stage_spec(fir), gpu_environment).stage,
                                            make_stage(parse_stage_spec(spectrogram), gpu_environment).stage));
    ChainRun cpu = run_chain(stream, input,
                             test::chain_of(make_stage(parse_stage_spec(fir), cpu_environment).stage,
                                            make_stage(parse_stage_spec(spectrogram), cpu_environment).stage));
    ASSERT_EQ(gpu.report.outcome, RunOutcome::completed) << gpu.report.error;
    EXPECT_EQ(gpu.report.accounting_mismatch(), "");
    test::expect_one_copy_each_way(gpu.report);
    ASSERT_EQ(gpu.items.size(), cpu.items.size());
    EXPECT_LE(relative_l2(gpu.items, cpu.items), 1e-4);
  }
}

TEST(CudaFir, InjectedFailureEndsTheRunWithAClearMessage) {
  setenv("PRISM_CUDA_FAULT", "alloc@3", 1);
  auto fir = make_fir("fir:lowpass=5000,numtaps=63", fft::BackendKind::cuda);
  unsetenv("PRISM_CUDA_FAULT");
  StreamInfo stream;
  stream.format = SampleFormat::f32;
  stream.sample_rate = 48000;
  const auto input = test::random_samples(SampleFormat::f32, 1, 100000, 4);
  StageEnvironment environment;
  environment.backend = fft::BackendKind::cuda;
  ChainRun run = run_chain(
      stream, input,
      test::chain_of(std::move(fir), make_stage(parse_stage_spec("spectrogram:nperseg=256"), environment).stage));
  EXPECT_EQ(run.report.outcome, RunOutcome::failed);
  EXPECT_NE(run.report.error.find("fir: cudaMalloc (fault injected by PRISM_CUDA_FAULT)"), std::string::npos)
      << run.report.error;
  EXPECT_TRUE(run.aborted);
}

}  // namespace
}  // namespace prism
