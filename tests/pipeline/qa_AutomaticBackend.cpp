// --backend auto's weighing of the GPU's start-up (pipeline/stage_registry.hpp,
// cpu_finishes_first): the CPU below kSpectrogramSamplesPerThreadBeforeGpu samples per worker
// thread (counting at most kSpectrogramCpuWorkersThatCount of them), and the spectrogram stage made
// on the CPU for such an input, with a note where a GPU was there to be passed over (none where
// the machine has none: nothing was asked of a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "fft/fft.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/stage_registry.hpp"

namespace prism {
namespace {

TEST(AutomaticBackend, CpuBelowTheCrossoverPerThread) {
  const std::uint64_t per_thread = kSpectrogramSamplesPerThreadBeforeGpu;
  EXPECT_TRUE(cpu_finishes_first(0, 1));
  EXPECT_TRUE(cpu_finishes_first(per_thread - 1, 1));
  EXPECT_FALSE(cpu_finishes_first(per_thread, 1));
  EXPECT_TRUE(cpu_finishes_first(3 * per_thread - 1, 3));
  EXPECT_FALSE(cpu_finishes_first(3 * per_thread, 3));
  // Threads beyond kSpectrogramCpuWorkersThatCount do not raise the bound.
  const std::uint64_t most = kSpectrogramCpuWorkersThatCount * per_thread;
  EXPECT_TRUE(cpu_finishes_first(most - 1, 64));
  EXPECT_FALSE(cpu_finishes_first(most, 64));
  // 0 threads: all cores.
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t counted = std::min<std::uint64_t>(cores, kSpectrogramCpuWorkersThatCount);
  EXPECT_TRUE(cpu_finishes_first(counted * per_thread - 1, 0));
  EXPECT_FALSE(cpu_finishes_first(counted * per_thread, 0));
}

TEST(AutomaticBackend, ShortInputsTakeTheCpu) {
  StageEnvironment environment;
  environment.backend = fft::BackendKind::automatic;
  environment.cpu_threads = 1;
  environment.expected_samples = 48000;
  const MadeStage made = make_spectrogram_stage(SpectrogramParams{}, environment);
  ASSERT_TRUE(made.stage);
  EXPECT_EQ(made.stage->describe().rfind("cpu", 0), 0u) << made.stage->describe();
  if (gpu_seen_without_cuda()) {
    EXPECT_NE(made.note.find("a run of 48000 samples is expected to finish sooner on the CPU"), std::string::npos)
        << made.note;
    EXPECT_NE(made.note.find("backend cuda takes the GPU"), std::string::npos) << made.note;
  } else {
    EXPECT_EQ(made.note, "");
  }
}

// The note's condition: a GPU shown by the driver and not hidden; never in a build without CUDA.
TEST(AutomaticBackend, HiddenOrUnusableGpusGetNoNote) {
  const char* given = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string saved = given ? given : "";
  for (const char* hidden : {"", "-1", " -1,0"}) {
    setenv("CUDA_VISIBLE_DEVICES", hidden, 1);
    EXPECT_FALSE(gpu_seen_without_cuda()) << "CUDA_VISIBLE_DEVICES='" << hidden << "'";
  }
  if (given)
    setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
#if !PRISM_HAVE_CUDA
  EXPECT_FALSE(gpu_seen_without_cuda());
#endif
}

// A long input, or one of unknown length, keeps automatic's choice: the GPU where there is one.
TEST(AutomaticBackend, LongOrUnknownInputsKeepTheGpu) {
  StageEnvironment environment;
  environment.backend = fft::BackendKind::automatic;
  environment.cpu_threads = 1;
  for (const bool known : {true, false}) {
    if (known)
      environment.expected_samples = kSpectrogramSamplesPerThreadBeforeGpu;
    else
      environment.expected_samples.reset();
    const MadeStage made = make_spectrogram_stage(SpectrogramParams{}, environment);
    ASSERT_TRUE(made.stage);
    const bool gpu = fft::backend_availability(fft::BackendKind::cufft).available;
    EXPECT_EQ(made.stage->describe().rfind("cpu", 0) == 0, !gpu) << made.stage->describe();
    EXPECT_EQ(made.note.find("expected to finish sooner"), std::string::npos) << made.note;
  }
}

// A setting only the CPU computes decides before the length: the note names the setting, and does
// not send the user to a GPU backend that would refuse it.
TEST(AutomaticBackend, CpuOnlySettingIsTheReasonGiven) {
  StageEnvironment environment;
  environment.backend = fft::BackendKind::automatic;
  environment.cpu_threads = 1;
  environment.expected_samples = 48000;
  SpectrogramParams params;
  params.detrend = Detrend::linear;
  const MadeStage made = make_spectrogram_stage(params, environment);
  ASSERT_TRUE(made.stage);
  EXPECT_EQ(made.stage->describe().rfind("cpu", 0), 0u) << made.stage->describe();
  if (gpu_seen_without_cuda()) {
    EXPECT_NE(made.note.find("detrend linear is computed on the CPU backend only"), std::string::npos) << made.note;
    EXPECT_EQ(made.note.find("takes the GPU"), std::string::npos) << made.note;
  } else {
    EXPECT_EQ(made.note, "");
  }
  // A long input, or one of unknown length, stays on the CPU too: the GPU would not compute it.
  for (const bool known : {true, false}) {
    if (known)
      environment.expected_samples = std::uint64_t{1} << 40;
    else
      environment.expected_samples.reset();
    const MadeStage long_run = make_spectrogram_stage(params, environment);
    EXPECT_EQ(long_run.stage->describe().rfind("cpu", 0), 0u) << long_run.stage->describe();
    EXPECT_EQ(long_run.note, made.note);
  }
  // Asked for by name, a GPU backend refuses the setting, whatever the length.
  environment.backend = fft::BackendKind::cuda;
  EXPECT_THROW(make_spectrogram_stage(params, environment), UsageError);
}

}  // namespace
}  // namespace prism
