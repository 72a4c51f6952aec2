// GPU checks of the tuning mode (fft/cuda/fft_tune.hpp): tuning two small lengths measures every
// candidate (none rejected: each blocking computes the default plan's result), the winner is
// written to the wisdom file named by PRISM_FFT_WISDOM, and planner_options_for() reads it back
// for the current device. Exits with 77 (ctest SKIP) when no device is usable.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fft/cuda/fft_tune.hpp"
#include "fft/cuda/fft_wisdom.hpp"
#include "tests/fft/cuda/gpu_test_main.hpp"

namespace prism::fft::gpu {
namespace {

namespace fs = std::filesystem;

class TuneOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("qa_FftTune_" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    wisdom_path_ = (directory_ / "cache" / "fft-wisdom.json").string();
    ::setenv("PRISM_FFT_WISDOM", wisdom_path_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("PRISM_FFT_WISDOM");
    fs::remove_all(directory_);
  }
  fs::path directory_;
  std::string wisdom_path_;
};

TEST_F(TuneOnDevice, TwoLengthsAreMeasuredWrittenAndReadBackAtPlanTime) {
  const PlanSpec specs[] = {PlanSpec{256, 4096, Transform::c2c_forward}, PlanSpec{1024, 1024, Transform::r2c}};
  const DeviceId device = cuda_device_id(0);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);

  Wisdom tuned;
  for (const PlanSpec& spec : specs) {
    SCOPED_TRACE(std::to_string(spec.n) + " " + std::string(transform_name(spec.transform)));
    std::size_t progress_calls = 0;
    TuneSettings settings;
    settings.runs = 20;
    settings.progress = [&](std::size_t candidate, std::size_t) { EXPECT_EQ(candidate, progress_calls++); };
    const WisdomEntry entry = tune(spec, 0, settings);

    EXPECT_TRUE(entry.key == wisdom_key(device, spec));
    EXPECT_EQ(entry.batch, spec.batch);
    const std::vector<PlannerOptions> candidates = planner_candidates(spec);
    ASSERT_EQ(entry.candidates.size(), candidates.size());
    EXPECT_EQ(progress_calls, candidates.size());
    ASSERT_GE(entry.candidates.size(), 2u) << "nothing was compared";
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const CandidateTime& c = entry.candidates[i];
      EXPECT_TRUE(same_options(c.options, candidates[i]));
      EXPECT_TRUE(c.rejected.empty()) << describe(c.options) << ": " << c.rejected;
      EXPECT_TRUE(std::isfinite(c.median_ms) && c.median_ms > 0.0) << describe(c.options);
    }
    EXPECT_DOUBLE_EQ(entry.default_ms, entry.candidates.front().median_ms);
    EXPECT_GT(entry.best_ms, 0.0);
    EXPECT_LE(entry.best_ms, entry.default_ms);
    std::printf("  %s n=%zu batch %zu: default %.4f ms, best %.4f ms (%s)\n",
                std::string(transform_name(spec.transform)).c_str(), spec.n, spec.batch,
                entry.default_ms, entry.best_ms, describe(entry.best).c_str());
    tuned.record(entry);
  }
  update_wisdom_file(default_wisdom_path(), tuned);
  ASSERT_EQ(default_wisdom_path(), wisdom_path_);

  const Wisdom loaded = Wisdom::load(wisdom_path_);
  ASSERT_EQ(loaded.entries().size(), 2u);
  for (const PlanSpec& spec : specs) {
    const WisdomEntry* written = loaded.find(wisdom_key(device, spec));
    ASSERT_NE(written, nullptr) << spec.n;
    EXPECT_TRUE(same_options(written->best, tuned.find(wisdom_key(device, spec))->best));
    EXPECT_TRUE(same_options(planner_options_for(spec), written->best)) << spec.n;
  }

  // The winner is usually the default; an entry whose best is not tells the lookup apart from
  // the fallback. It holds for this device only.
  PlannerOptions marked;
  marked.single_elements_per_block = 1024;
  marked.column_elements_per_block = 2048;
  marked.row_elements_per_block = 16384;
  WisdomEntry other = *loaded.find(wisdom_key(device, specs[0]));
  other.key.n = 512;
  other.best = marked;
  WisdomEntry elsewhere = other;
  elsewhere.key.n = 2048;
  elsewhere.key.device.name += " (another chip)";
  Wisdom extra;
  extra.record(other);
  extra.record(elsewhere);
  update_wisdom_file(wisdom_path_, extra);
  EXPECT_TRUE(same_options(planner_options_for(PlanSpec{512, 4096, Transform::c2c_forward}), marked));
  EXPECT_TRUE(same_options(planner_options_for(PlanSpec{2048, 4096, Transform::c2c_forward}),
                           PlannerOptions{}));
  EXPECT_EQ(Wisdom::load(wisdom_path_).entries().size(), 4u);
}

TEST_F(TuneOnDevice, LengthsBeyondThePlannerAreRefused) {
  EXPECT_THROW(tune(PlanSpec{static_cast<std::size_t>(kMaxPlannedLength) * 2, 1, Transform::c2c_forward}, 0),
               std::invalid_argument);
}

// Cluster passes are candidates for 2^15 ... 2^17 (here the half length of r2c 65536): each
// agrees with the default four-step on the device (else it would be rejected) and is timed.
TEST_F(TuneOnDevice, ClusterCandidatesAgreeWithTheFourStep) {
  int clusters = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, 0), cudaSuccess);
  if (clusters == 0) GTEST_SKIP() << "no thread-block clusters on this device";
  TuneSettings settings;
  settings.runs = 20;
  const WisdomEntry entry = tune(PlanSpec{1 << 16, 16, Transform::r2c}, 0, settings);
  int measured = 0;
  for (const CandidateTime& c : entry.candidates) {
    if (c.options.cluster_block_length == 0) continue;
    ++measured;
    EXPECT_TRUE(c.rejected.empty()) << describe(c.options) << ": " << c.rejected;
    EXPECT_TRUE(std::isfinite(c.median_ms) && c.median_ms > 0.0) << describe(c.options);
    std::printf("  r2c n=65536 batch 16, %s: %.4f ms (default %.4f ms)\n", describe(c.options).c_str(),
                c.median_ms, entry.default_ms);
  }
  EXPECT_EQ(measured, 2);
}

// The four-step splits on the tuning mode's own non-blocking stream, right after each plan is
// made (where a table still arriving would show): every split candidate agrees with the default
// plan at a batch of many blocks (r2c 65536: the splits an upload race once rejected), and the
// entry records its tuning time.
TEST_F(TuneOnDevice, FourStepSplitsAgreeWithTheDefault) {
  TuneSettings settings;
  settings.runs = 20;
  for (const PlanSpec& spec : {PlanSpec{1 << 16, 2048, Transform::r2c}, PlanSpec{48000, 2048, Transform::r2c},
                               PlanSpec{327680, 64, Transform::c2c_forward}}) {
    const WisdomEntry entry = tune(spec, 0, settings);
    int splits = 0;
    for (const CandidateTime& c : entry.candidates) {
      if (c.options.four_step_columns == 0) continue;
      ++splits;
      EXPECT_TRUE(c.rejected.empty()) << spec.n << ", " << describe(c.options) << ": " << c.rejected;
    }
    EXPECT_GE(splits, 8) << spec.n;
    EXPECT_GT(entry.tune_seconds, 0.0);
    std::printf("  %zu: %d splits, tuned in %.1f s\n", spec.n, splits, entry.tune_seconds);
  }
}

}  // namespace
}  // namespace prism::fft::gpu

int main(int argc, char** argv) {
  if (const int skip = prism::fft::test::skip_without_device("qa_FftTune")) return skip;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
