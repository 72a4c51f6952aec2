// qa_ViewSettings: the viewer's settings (validation, JSON round trip, the config file, scripts)
// and the display row queue between the processing and the render thread.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "gui/display_rows.hpp"
#include "gui/view_settings.hpp"
#include "pipeline/errors.hpp"

namespace prism::view {
namespace {

std::filesystem::path temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("qa_ViewSettings_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ViewSettings, DefaultsAreValid) { EXPECT_NO_THROW(ViewSettings{}.validate()); }

TEST(ViewSettings, JsonRoundTrip) {
  ViewSettings a;
  a.fft_size = 65536;
  a.window = "kaiser:8.6";
  a.colormap = "turbo";
  a.db_min = -90;
  a.view_low_hz = 100;
  a.view_high_hz = 2000;
  ViewSettings b;
  b.apply_json_text(a.to_json_text(), "test");
  EXPECT_EQ(b, a);
  EXPECT_EQ(b.to_json_text(), a.to_json_text());
}

TEST(ViewSettings, RejectsOutOfRangeNamingTheKey) {
  ViewSettings s;
  EXPECT_THROW(s.apply_json_text(R"({"fft_size": 100})", "cli"), UsageError);
  EXPECT_THROW(s.apply_json_text(R"({"overlap": 0.99})", "cli"), UsageError);
  EXPECT_THROW(s.apply_json_text(R"({"colormap": "jet"})", "cli"), UsageError);
  EXPECT_THROW(s.apply_json_text(R"({"db_min": 0, "db_max": -10})", "cli"), UsageError);
  EXPECT_THROW(s.apply_json_text("[1]", "cli"), UsageError);       // not an object
  EXPECT_THROW(s.apply_json_text("{ broken", "cli"), UsageError);  // not JSON
  try {
    s.apply_json_text(R"({"window": 3})", "view.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("window"), std::string::npos);
  }
  EXPECT_EQ(s.fft_size, ViewSettings{}.fft_size);  // a failed apply changes nothing
}

// A zoom saved on one input's band does not carry over to an input of another band.
TEST(ViewSettings, ZoomBelongsToItsBand) {
  const auto speech = input_band(16000, 0, false);
  const auto radio = input_band(2.4e6, 100e6, true);
  EXPECT_EQ(speech, std::make_pair(0.0, 8000.0));
  EXPECT_EQ(radio, std::make_pair(98.8e6, 101.2e6));
  ViewSettings s;
  s.keep_zoom_for_band(speech.first, speech.second);
  s.view_low_hz = 100;
  s.view_high_hz = 3000;
  ViewSettings saved;
  saved.apply_json_text(s.to_json_text(), "view.json");
  ViewSettings same = saved;
  same.keep_zoom_for_band(speech.first, speech.second);  // the same input again: kept
  EXPECT_EQ(same.view_low_hz, std::optional<double>(100));
  EXPECT_EQ(same.view_high_hz, std::optional<double>(3000));
  ViewSettings other = saved;
  other.keep_zoom_for_band(radio.first, radio.second);  // another band: the whole band
  EXPECT_FALSE(other.view_low_hz);
  EXPECT_FALSE(other.view_high_hz);
  EXPECT_EQ(other.view_band_low_hz, std::optional<double>(98.8e6));
  ViewSettings unknown_band;  // a zoom saved without its band (older files): dropped
  unknown_band.view_low_hz = 100;
  unknown_band.view_high_hz = 3000;
  unknown_band.keep_zoom_for_band(speech.first, speech.second);
  EXPECT_FALSE(unknown_band.view_low_hz);
}

TEST(ViewSettings, ProcessingDiffers) {
  ViewSettings a, b;
  b.colormap = "magma";
  b.db_max = 0;
  EXPECT_FALSE(a.processing_differs(b));
  b.fft_size = 8192;
  EXPECT_TRUE(a.processing_differs(b));
}

TEST(ViewSettings, ConfigFileSavesAndLoads) {
  const auto path = (temp_dir() / "prism" / "view.json").string();
  ViewSettings a;
  a.lines_per_second = 123;
  a.peak_hold = true;
  ASSERT_EQ(save_settings_file(path, a), "");
  ViewSettings b;
  EXPECT_TRUE(load_settings_file(path, b));
  EXPECT_EQ(b.lines_per_second, 123);
  EXPECT_TRUE(b.peak_hold);
  std::ofstream(path) << "{ broken";
  ViewSettings c;
  EXPECT_FALSE(load_settings_file(path, c));  // reported and ignored, defaults stay
  EXPECT_EQ(c.lines_per_second, ViewSettings{}.lines_per_second);
  EXPECT_FALSE(load_settings_file(path + ".missing", c));
}

TEST(ViewSettings, DefaultConfigPathFollowsXdg) {
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(default_config_path(), "/tmp/xdg-test/prism/view.json");
}

TEST(ViewSettings, ScriptSteps) {
  const auto path = (temp_dir() / "script.json").string();
  std::ofstream(path) << R"([{"frame": 3, "set": {"colormap": "magma"}}, {"time_s": 1.5, "set": {"fft_size": 1024}}])";
  const auto steps = load_script(path);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(*steps[0].frame, 3);
  EXPECT_DOUBLE_EQ(*steps[1].time_s, 1.5);
  std::ofstream(path) << R"([{"set": {}}])";
  EXPECT_THROW(load_script(path), InputError);
}

// A number a setting's type cannot hold is refused, not truncated or wrapped (a float beyond
// the range of the integer was undefined behaviour in the conversion).
TEST(ViewSettings, WholeNumberSettingsRefuseFractionsAndOverflow) {
  ViewSettings s;
  for (const char* text : {R"({"fft_size": 4096.5})", R"({"fft_size": 1e300})", R"({"fft_size": -4096})",
                           R"({"channel": 4294967296})", R"({"channel": -1})", R"({"channel": 1.5})"}) {
    try {
      apply_settings_text(text, "view.json", s, nullptr);
      ADD_FAILURE() << text << " was accepted";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("view.json"), std::string::npos) << message;
      EXPECT_NE(message.find("whole number"), std::string::npos) << message;
    }
  }
  apply_settings_text(R"({"fft_size": 8192, "channel": 3})", "view.json", s, nullptr);
  EXPECT_EQ(s.fft_size, 8192u);
  EXPECT_EQ(s.channel, 3u);
  EXPECT_THROW(apply_settings_text("{ broken", "view.json", s, nullptr), InputError);
}

TEST(ViewSettings, ScriptStepTimesMustBeWholeFramesOrSeconds) {
  for (const char* text : {R"([{"frame": 1e300, "set": {}}])", R"([{"frame": 2.5, "set": {}}])",
                           R"([{"frame": -1, "set": {}}])", R"([{"frame": "3", "set": {}}])",
                           R"([{"time_s": -1, "set": {}}])", R"([{"time_s": "soon", "set": {}}])"}) {
    try {
      (void)parse_script(text, "script.json");
      ADD_FAILURE() << text << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.path(), "script.json") << e.what();
    }
  }
  const auto steps = parse_script(R"([{"frame": 0, "set": {}}, {"time_s": 0.25, "set": {}}])", "script.json");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(*steps[0].frame, 0);
  EXPECT_DOUBLE_EQ(*steps[1].time_s, 0.25);
  // A step's settings are applied as the JSON object they were written as.
  const auto colour = parse_script(R"([{"frame": 3, "set": {"colormap": "magma", "fft_size": 1024}}])", "s.json");
  ViewSettings applied;
  applied.apply_json_text(colour.at(0).set, "script step 1");
  EXPECT_EQ(applied.colormap, "magma");
  EXPECT_EQ(applied.fft_size, 1024u);
}

TEST(DisplayRowQueue, FullQueueSkipsAndCounts) {
  DisplayRowQueue q(4, 3);
  const float row[4] = {1, 2, 3, 4};
  EXPECT_TRUE(q.push(row, 0.1));
  EXPECT_TRUE(q.push(row, 0.2));
  EXPECT_TRUE(q.push(row, 0.3));
  EXPECT_FALSE(q.push(row, 0.4));
  EXPECT_EQ(q.skipped(), 1u);
  double t = 0;
  const float* front = q.front(&t);
  ASSERT_NE(front, nullptr);
  EXPECT_DOUBLE_EQ(t, 0.1);
  EXPECT_EQ(front[3], 4);
  q.release();
  EXPECT_EQ(q.size(), 2u);
}

TEST(DisplayRowQueue, TwoThreadsDeliverInOrder) {
  DisplayRowQueue q(64, 8);
  constexpr int kRows = 5000;
  std::thread producer([&] {
    std::vector<float> row(64);
    for (int i = 0; i < kRows; ++i) {
      std::fill(row.begin(), row.end(), static_cast<float>(i));
      while (!q.push(row.data(), i)) std::this_thread::yield();  // the test retries; the viewer skips
    }
  });
  int expected = 0;
  while (expected < kRows) {
    double t = 0;
    if (const float* row = q.front(&t)) {
      ASSERT_EQ(row[0], static_cast<float>(expected));
      ASSERT_EQ(row[63], static_cast<float>(expected));
      ASSERT_EQ(t, expected);
      q.release();
      ++expected;
    }
  }
  producer.join();
}

}  // namespace
}  // namespace prism::view
