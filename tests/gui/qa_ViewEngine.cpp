// qa_ViewEngine: the viewer's processing side without a window, on the backend named by the
// first argument (cpu by default; cuda or cufft exit 77, ctest SKIP, where no CUDA device can
// be used): the generator's tones through the ViewEngine reach the session's row queue with
// their peaks in the right columns, the status names the backend, the samples received keep
// growing, and an FFT-size change starts a new session whose rows have the new size. The same
// rows the window would draw; the display itself is tested under Xvfb (test_view_*.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fft/fft.hpp"
#include "gui/view_engine.hpp"
#include "sources/open_source.hpp"

namespace prism::view {
namespace {

fft::BackendKind g_backend = fft::BackendKind::cpu;

constexpr double kRate = 48000.0;
constexpr double kToneLow = 3000.0, kToneHigh = 15000.0;

std::unique_ptr<ViewEngine> start_engine(const ViewSettings& settings) {
  ProcessorChoice choice;
  choice.backend = g_backend;
  ViewEngine::SourceFactory open = [] {
    return open_source("gen:rate=48000,duration=inf,tone=3000@0.5,tone=15000@0.05,noise=0.0001,seed=3",
                       SourceOptions{});
  };
  return std::make_unique<ViewEngine>(open, settings, 8192, choice);
}

// Waits (up to 20 s) for a session of `fft_size` and `rows` of its rows; returns their mean.
std::vector<double> mean_rows(ViewEngine& engine, std::size_t fft_size, int rows,
                              std::shared_ptr<DisplaySession>& session) {
  std::vector<double> sum;
  int got = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (got < rows && std::chrono::steady_clock::now() < deadline) {
    std::shared_ptr<DisplaySession> now = engine.session();
    const EngineStatus status = engine.status();
    if (!status.error.empty()) {
      ADD_FAILURE() << "the processing failed: " << status.error;
      return {};
    }
    if (!now || now->format.fft_size != fft_size) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (now != session) {
      session = now;
      sum.assign(now->format.columns, 0.0);
      got = 0;
    }
    const float* row = now->queue.front(nullptr);
    if (row == nullptr) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += row[c];
    now->queue.release();
    ++got;
  }
  EXPECT_EQ(got, rows) << "rows of the session with FFT size " << fft_size;
  for (double& v : sum) v /= std::max(got, 1);
  return sum;
}

// The column whose band holds `hz`.
std::size_t column_of(const DisplayFormat& f, double hz) {
  const double width = (f.frequency_high - f.frequency_low) / static_cast<double>(f.columns);
  return static_cast<std::size_t>((hz - f.frequency_low) / width);
}

void expect_tones(const std::vector<double>& row, const DisplayFormat& f) {
  ASSERT_EQ(row.size(), f.columns);
  const std::size_t low = column_of(f, kToneLow), high = column_of(f, kToneHigh);
  const auto peak = std::max_element(row.begin(), row.end()) - row.begin();
  EXPECT_NEAR(static_cast<double>(peak), static_cast<double>(low), 1.0) << "the strongest tone's column";
  // The weaker tone stands 40 dB above the noise floor half-way between the tones.
  const std::size_t between = (low + high) / 2;
  const double near_high = *std::max_element(row.begin() + static_cast<long>(high) - 1, row.begin() + static_cast<long>(high) + 2);
  EXPECT_GT(near_high - row[between], 40.0) << "tone at 15 kHz: " << near_high << " dB, floor " << row[between] << " dB";
  EXPECT_NEAR(row[static_cast<std::size_t>(peak)] - near_high, 20.0, 1.0) << "the tones are 20 dB apart";
}

TEST(ViewEngine, TonesReachTheRowsInTheirColumnsAndAnFftSizeChangeStartsANewSession) {
  ViewSettings settings;
  settings.fft_size = 4096;
  settings.overlap = 0.5;
  settings.window = "blackmanharris";
  settings.speed = 0;  // as fast as possible
  settings.lines_per_second = 10000;
  std::unique_ptr<ViewEngine> engine = start_engine(settings);

  std::shared_ptr<DisplaySession> session;
  const std::vector<double> first = mean_rows(*engine, 4096, 50, session);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->format.fft_bins, 2049u);
  EXPECT_DOUBLE_EQ(session->format.sample_rate, kRate);
  expect_tones(first, session->format);

  const EngineStatus status = engine->status();
  const std::string expected = g_backend == fft::BackendKind::cpu ? "cpu" : std::string(fft::backend_name(g_backend));
  EXPECT_EQ(status.processor.rfind(expected, 0), 0u) << status.processor;
  if (g_backend != fft::BackendKind::cpu) {
    EXPECT_NE(status.processor.find("device 0"), std::string::npos) << status.processor;
  }
  EXPECT_GT(status.samples_received, 2048u * 50u);  // 50 rows at a hop of 2048
  EXPECT_EQ(status.overrun_samples, 0u);

  settings.fft_size = 16384;
  engine->apply(settings);
  std::shared_ptr<DisplaySession> second_session;
  const std::vector<double> second = mean_rows(*engine, 16384, 20, second_session);
  ASSERT_TRUE(second_session);
  EXPECT_GT(second_session->format.generation, session->format.generation);
  EXPECT_EQ(second_session->format.fft_bins, 8193u);
  expect_tones(second, second_session->format);
  std::printf("  %s: %s\n", std::string(fft::backend_name(g_backend)).c_str(), engine->status().processor.c_str());
}

}  // namespace
}  // namespace prism::view

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) {
    prism::view::g_backend = prism::fft::parse_backend(argv[1]);
    const prism::fft::Availability a = prism::fft::backend_availability(prism::view::g_backend);
    if (!a.available) {
      std::printf("qa_ViewEngine %s: skipped: %s\n", argv[1], a.reason.c_str());
      return 77;
    }
  }
  return RUN_ALL_TESTS();
}
