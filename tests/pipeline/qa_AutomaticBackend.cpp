// --backend auto's weighing of the GPU's start-up (pipeline/stage_registry.hpp,
// cpu_finishes_first): the CPU below kSpectrogramSamplesPerThreadBeforeGpu samples per worker
// thread, and the spectrogram stage made on the CPU for such an input, with a note where a GPU was
// there to be passed over (none where the machine has none: nothing was asked of a GPU).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "fft/fft.hpp"
#include "pipeline/stage_registry.hpp"

namespace prism {
namespace {

TEST(AutomaticBackend, CpuBelowTheCrossoverPerThread) {
  const std::uint64_t per_thread = kSpectrogramSamplesPerThreadBeforeGpu;
  EXPECT_TRUE(cpu_finishes_first(0, 1));
  EXPECT_TRUE(cpu_finishes_first(per_thread - 1, 1));
  EXPECT_FALSE(cpu_finishes_first(per_thread, 1));
  EXPECT_TRUE(cpu_finishes_first(4 * per_thread - 1, 4));
  EXPECT_FALSE(cpu_finishes_first(4 * per_thread, 4));
  // 0 threads: all cores.
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_TRUE(cpu_finishes_first(cores * per_thread - 1, 0));
  EXPECT_FALSE(cpu_finishes_first(cores * per_thread, 0));
}

TEST(AutomaticBackend, ShortInputsTakeTheCpu) {
  StageEnvironment environment;
  environment.backend = fft::BackendKind::automatic;
  environment.cpu_threads = 1;
  environment.expected_samples = 48000;
  const MadeStage made = make_spectrogram_stage(SpectrogramParams{}, environment);
  ASSERT_TRUE(made.stage);
  EXPECT_EQ(made.stage->describe().rfind("cpu", 0), 0u) << made.stage->describe();
  if (fft::backend_availability(fft::BackendKind::cufft).available) {
    EXPECT_NE(made.note.find("48000 samples are done sooner on the CPU"), std::string::npos) << made.note;
    EXPECT_NE(made.note.find("backend cuda takes the GPU"), std::string::npos) << made.note;
  } else {
    EXPECT_EQ(made.note, "");
  }
}

// A long input, or one of unknown length, keeps automatic's choice: the GPU where there is one.
TEST(AutomaticBackend, LongOrUnknownInputsKeepTheGpu) {
  StageEnvironment environment;
  environment.backend = fft::BackendKind::automatic;
  environment.cpu_threads = 1;
  for (const bool known : {true, false}) {
    if (known) environment.expected_samples = kSpectrogramSamplesPerThreadBeforeGpu;
    const MadeStage made = make_spectrogram_stage(SpectrogramParams{}, environment);
    ASSERT_TRUE(made.stage);
    const bool gpu = fft::backend_availability(fft::BackendKind::cufft).available;
    EXPECT_EQ(made.stage->describe().rfind("cpu", 0) == 0, !gpu) << made.stage->describe();
    EXPECT_EQ(made.note.find("samples are done sooner"), std::string::npos) << made.note;
  }
}

}  // namespace
}  // namespace prism
