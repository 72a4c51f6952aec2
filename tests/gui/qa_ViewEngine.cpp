// qa_ViewEngine: the viewer's processing side without a window, on the backend named by the
// first argument (cpu by default; cuda or cufft exit 77, ctest SKIP, where no CUDA device can
// be used): the generator's tones through the ViewEngine reach the session's row queue with
// their peaks in the right columns, the status names the backend, the samples received keep
// growing, and an FFT-size change starts a new session whose rows have the new size. The same
// rows the window would draw; the display itself is tested under Xvfb (test_view_*.py). On a
// GPU backend the display lines are made on the device: they must be the CPU's lines (same
// count, times, and values to float rounding), and each must also be in the device line ring,
// bit for bit, where its tag says.
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
#if PRISM_HAVE_CUDA
#include "gui/cuda/gpu_display_lines.hpp"
#endif
#include "sources/open_source.hpp"

namespace prism::view {
namespace {

fft::BackendKind g_backend = fft::BackendKind::cpu;

constexpr double kRate = 48000.0;
constexpr double kToneLow = 3000.0, kToneHigh = 15000.0;

std::unique_ptr<ViewEngine> start_engine(const ViewSettings& settings) {
  StageEnvironment choice;
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

struct Lines {
  std::shared_ptr<DisplaySession> session;
  std::vector<std::vector<float>> values;
  std::vector<double> times;
  std::vector<LineTag> tags;
  std::vector<std::vector<float>> in_device_ring;  // GPU sessions: each line's ring slot
};

// Every line of a five-second input played at 10× (the queue never fills: no line may be
// skipped), taken as the render thread takes them: a line's ring slot is read, then released.
Lines all_lines(fft::BackendKind backend, const ViewSettings& settings, std::size_t max_columns) {
  StageEnvironment choice;
  choice.backend = backend;
  ViewEngine::SourceFactory open = [] {
    return open_source("gen:rate=48000,duration=5,tone=3000@0.5,tone=15000@0.05,noise=0.0001,seed=5",
                       SourceOptions{});
  };
  ViewEngine engine(open, settings, max_columns, choice);
  Lines lines;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const bool ended = engine.status().ended;  // before the last look at the queue
    std::shared_ptr<DisplaySession> session = engine.session();
    if (session && session != lines.session) {
      EXPECT_FALSE(lines.session) << fft::backend_name(backend) << ": a second session started";
      lines.session = session;
    }
    double time_s = 0;
    LineTag tag;
    const float* row = session ? session->queue.front(&time_s, &tag) : nullptr;
    if (row == nullptr) {
      if (ended) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    const std::size_t columns = session->format.columns;
    lines.values.emplace_back(row, row + columns);
    lines.times.push_back(time_s);
    lines.tags.push_back(tag);
#if PRISM_HAVE_CUDA
    if (DeviceLineRing* ring = session->device_lines.get()) {
      std::vector<float> copy(columns, -1.0f);
      if (tag.device_slot >= 0) ring->copy_to_host(static_cast<std::size_t>(tag.device_slot), copy.data());
      lines.in_device_ring.push_back(std::move(copy));
      ring->release_before(tag.line + 1);
    }
#endif
    session->queue.release();
  }
  const EngineStatus status = engine.status();
  EXPECT_TRUE(status.ended) << fft::backend_name(backend) << ": the input did not end";
  EXPECT_EQ(status.error, "");
  EXPECT_EQ(status.display_rows_skipped, 0u);
  return lines;
}

// Paused, a seek still shows the new position: a display line from there arrives (a sweep's
// peak where the sweep is at that time), and the playback stays paused (the position moves on by
// no more than the preview, one frame and two lines' worth of samples).
TEST(ViewEngine, SeekWhilePausedShowsTheNewPosition) {
  ViewSettings settings;
  settings.fft_size = 4096;
  settings.lines_per_second = 50;
  StageEnvironment choice;
  choice.backend = g_backend;
  // 1000 Hz at 0 s, 11000 Hz at 30 s.
  ViewEngine engine(
      [] { return open_source("gen:rate=48000,duration=60,chirp=1000-21000@0.5", SourceOptions{}); },
      settings, 8192, choice);
  std::shared_ptr<DisplaySession> first;
  mean_rows(engine, 4096, 3, first);
  ASSERT_TRUE(first);
  engine.set_paused(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double paused_at = engine.status().position_s;
  EXPECT_LT(paused_at, 5.0);

  engine.seek(30.0);
  std::shared_ptr<DisplaySession> after;
  const float* row = nullptr;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (row == nullptr && std::chrono::steady_clock::now() < deadline) {
    after = engine.session();
    if (after && after != first) row = after->queue.front(nullptr);
    if (row == nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NE(row, nullptr) << "no display line after seeking to 30 s while paused";
  const DisplayFormat& f = after->format;
  const auto peak = static_cast<std::size_t>(std::max_element(row, row + f.columns) - row);
  EXPECT_NEAR(static_cast<double>(peak), static_cast<double>(column_of(f, 11000.0)), 3.0)
      << "the line shows the sweep at 30 s";
  after->queue.release();

  // The chunk in flight at the seek may still land (a few hundred samples on a loaded machine);
  // after that the position must stay where it is.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double position = engine.status().position_s;
  EXPECT_GE(position, 30.0);
  EXPECT_LE(position, 30.0 + (4096 + 2 * 48000 / 50 + 1) / 48000.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_DOUBLE_EQ(engine.status().position_s, position) << "the playback went on while paused";
  EXPECT_TRUE(engine.paused());
}

TEST(ViewEngine, DisplayLinesAreTheCpusLinesReducedAveragedAndThinned) {
  if (g_backend == fft::BackendKind::cpu) GTEST_SKIP() << "compares a GPU backend's lines with the CPU's";
  struct Case {
    std::size_t fft_size, max_columns;
    double overlap, lines_per_second, averaging_s;
  };
  // 2049 bins shown on 100 columns, ~2.3 spectra per line, averaged; 513 bins as they are,
  // ~3 spectra per line, not averaged.
  for (const Case& c : {Case{4096, 100, 0.75, 20, 0.05}, Case{1024, 8192, 0.5, 30, 0.0}}) {
    SCOPED_TRACE("fft " + std::to_string(c.fft_size) + ", " + std::to_string(c.max_columns) + " columns at most");
    ViewSettings settings;
    settings.fft_size = c.fft_size;
    settings.overlap = c.overlap;
    settings.window = "hann";
    settings.speed = 10;
    settings.loop = false;  // a loop would start a new session at every pass
    settings.lines_per_second = c.lines_per_second;
    settings.averaging_s = c.averaging_s;
    const Lines cpu = all_lines(fft::BackendKind::cpu, settings, c.max_columns);
    const Lines gpu = all_lines(g_backend, settings, c.max_columns);
    ASSERT_TRUE(cpu.session && gpu.session);
    const std::size_t columns = cpu.session->format.columns;
    ASSERT_EQ(gpu.session->format.columns, columns);
    EXPECT_EQ(columns, std::min<std::size_t>(c.fft_size / 2 + 1, c.max_columns));
    // Five seconds at the lines per second asked for (the first spectrum makes a line at once).
    EXPECT_NEAR(static_cast<double>(cpu.values.size()), 5 * c.lines_per_second, 2.0);
    ASSERT_EQ(gpu.values.size(), cpu.values.size());
    // Float rounding of the spectra moves bins far below a line's peak (the noise ~90 dB down)
    // by up to a tenth of a dB; within 60 dB of the peak the lines agree to a thousandth.
    double worst = 0, worst_strong = 0, total = 0;
    for (std::size_t i = 0; i < cpu.values.size(); ++i) {
      const float peak = *std::max_element(cpu.values[i].begin(), cpu.values[i].end());
      EXPECT_DOUBLE_EQ(gpu.times[i], cpu.times[i]) << "line " << i;
      EXPECT_EQ(cpu.tags[i].line, i);
      EXPECT_EQ(gpu.tags[i].line, i);
      EXPECT_EQ(cpu.tags[i].device_slot, -1);
      for (std::size_t k = 0; k < columns; ++k) {
        const double d = std::abs(static_cast<double>(gpu.values[i][k]) - cpu.values[i][k]);
        worst = std::max(worst, d);
        if (cpu.values[i][k] > peak - 60.0f) worst_strong = std::max(worst_strong, d);
        total += d;
      }
    }
    const double mean = total / static_cast<double>(cpu.values.size() * columns);
    std::printf("  %zu lines of %zu columns: worst difference %.2e dB (%.2e within 60 dB of the peak), mean %.2e dB\n",
                cpu.values.size(), columns, worst, worst_strong, mean);
    EXPECT_LT(worst_strong, 1e-3);
    EXPECT_LT(worst, 0.25);
    EXPECT_LT(mean, 2e-3);
#if PRISM_HAVE_CUDA
    ASSERT_TRUE(gpu.session->device_lines) << "a GPU session keeps its lines on the device";
    ASSERT_EQ(gpu.in_device_ring.size(), gpu.values.size());
    for (std::size_t i = 0; i < gpu.values.size(); ++i) {
      ASSERT_GE(gpu.tags[i].device_slot, 0) << "line " << i << " has no place in the ring";
      ASSERT_EQ(std::memcmp(gpu.in_device_ring[i].data(), gpu.values[i].data(), columns * sizeof(float)), 0)
          << "line " << i << " differs in the device ring";
    }
#endif
  }
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
