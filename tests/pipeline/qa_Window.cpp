// Tests of the window functions (pipeline/window.cpp): values against scipy 1.10's
// get_window(spec, n, fftbins=True and False), from reference vectors checked in under data/
// (made by data/make_window_reference.py), and the parsing of window names.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/window.hpp"

namespace prism {
namespace {

nlohmann::json load_reference() {
  const std::string path = std::string(PRISM_TEST_DATA_DIR) + "/window_reference.json";
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(file);
}

TEST(Window, MatchesScipyGetWindow) {
  const nlohmann::json reference = load_reference();
  ASSERT_GE(reference["windows"].size(), 200u);
  std::size_t symmetric_count = 0;
  for (const auto& entry : reference["windows"]) {
    const std::string text = entry["spec"];
    const std::size_t n = entry["n"];
    const bool symmetric = entry["symmetric"];
    symmetric_count += symmetric ? 1 : 0;
    const std::vector<double> expected = entry["values"].get<std::vector<double>>();
    const WindowSpec spec = parse_window(text);
    const std::vector<double> w =
        make_window(spec, n, symmetric ? WindowSymmetry::symmetric : WindowSymmetry::periodic);
    ASSERT_EQ(w.size(), n) << text;
    // The cosine-sum and Tukey windows follow scipy's arithmetic step by step; Kaiser's I0
    // comes from libstdc++ rather than Cephes.
    const double tolerance = spec.kind == WindowKind::kaiser ? 1e-13 : 4e-16;
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(w[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
          << text << (symmetric ? " symmetric" : " periodic") << " n=" << n << " i=" << i;
  }
  EXPECT_GE(symmetric_count, 100u);
}

TEST(Window, PeriodicIsTheDefault) {
  const WindowSpec spec{WindowKind::blackman, 0};
  EXPECT_EQ(make_window(spec, 33), make_window(spec, 33, WindowSymmetry::periodic));
  EXPECT_NE(make_window(spec, 33), make_window(spec, 33, WindowSymmetry::symmetric));
}

TEST(Window, SymmetricIsSymmetricAndEndsAtItsEdgeValues) {
  // hann(9, sym=True) is zero at both ends and 1 in the middle; every symmetric window mirrors.
  const std::vector<double> hann = make_window({WindowKind::hann, 0}, 9, WindowSymmetry::symmetric);
  EXPECT_EQ(hann.front(), 0.0);
  EXPECT_NEAR(hann.back(), 0.0, 1e-16);
  EXPECT_NEAR(hann[4], 1.0, 1e-15);
  for (const char* text : {"hamming", "blackman", "blackmanharris", "flattop", "kaiser:7", "tukey:0.3"}) {
    for (std::size_t n : {2u, 10u, 11u}) {
      const std::vector<double> w = make_window(parse_window(text), n, WindowSymmetry::symmetric);
      for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(w[i], w[n - 1 - i], 1e-15) << text << " " << n;
    }
  }
}

TEST(Window, PeriodicIsSymmetricOfOneMoreWithoutItsLast) {
  // hann(8, periodic) = hann(9, symmetric)[:-1]; its first value is 0 and it peaks at n/2.
  const std::vector<double> w = make_window({WindowKind::hann, 0}, 8);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_NEAR(w[4], 1.0, 1e-15);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_NEAR(w[i], w[8 - i], 1e-15);
}

TEST(Window, ShortLengths) {
  EXPECT_TRUE(make_window({WindowKind::hann, 0}, 0).empty());
  EXPECT_EQ(make_window({WindowKind::kaiser, 5}, 1), std::vector<double>{1.0});
}

TEST(Window, ParsesNamesAndAliases) {
  struct Expect {
    const char* text;
    WindowKind kind;
    double parameter;
  };
  const Expect cases[] = {
      {"hann", WindowKind::hann, 0},
      {"Hanning", WindowKind::hann, 0},
      {"hamming", WindowKind::hamming, 0},
      {"blackman", WindowKind::blackman, 0},
      {"blackmanharris", WindowKind::blackmanharris, 0},
      {"blackman-harris", WindowKind::blackmanharris, 0},
      {"flattop", WindowKind::flattop, 0},
      {"flat top", WindowKind::flattop, 0},
      {"boxcar", WindowKind::boxcar, 0},
      {"rect", WindowKind::boxcar, 0},
      {"rectangular", WindowKind::boxcar, 0},
      {"ones", WindowKind::boxcar, 0},
      {"kaiser:8.6", WindowKind::kaiser, 8.6},
      {"ksr:0", WindowKind::kaiser, 0},
      {"tukey", WindowKind::tukey, 0.5},
      {"tukey:0.25", WindowKind::tukey, 0.25},
      {" TUKEY : 1 ", WindowKind::tukey, 1.0},
  };
  for (const Expect& c : cases) {
    const WindowSpec spec = parse_window(c.text);
    EXPECT_EQ(spec.kind, c.kind) << c.text;
    EXPECT_EQ(spec.parameter, c.parameter) << c.text;
  }
}

TEST(Window, PrintsAndReadsBack) {
  EXPECT_EQ(WindowSpec({WindowKind::kaiser, 8.6}).to_string(), "kaiser:8.6");
  EXPECT_EQ(WindowSpec({WindowKind::tukey, 0.25}).to_string(), "tukey:0.25");
  EXPECT_EQ(WindowSpec({WindowKind::hann, 0}).to_string(), "hann");
  EXPECT_EQ(WindowSpec({WindowKind::blackmanharris, 0}).to_string(), "blackmanharris");
  for (const char* text : {"boxcar", "hann", "hamming", "blackman", "blackmanharris", "flattop",
                           "kaiser:14", "tukey:0.1"})
    EXPECT_EQ(parse_window(text).to_string(), text);
}

// Each wrong text gives a UsageError whose message says what is wrong and lists the windows.
TEST(Window, RejectsWrongText) {
  struct Expect {
    const char* text;
    const char* says;
  };
  const Expect cases[] = {
      {"foo", "unknown window 'foo'"},
      {"", "unknown window"},
      {"kaiser", "needs its beta"},
      {"kaiser:", "must be a number"},
      {"kaiser:abc", "must be a number"},
      {"kaiser:-1", "must be >= 0"},
      {"kaiser:inf", "must be a number"},
      {"tukey:1.5", "must be in [0, 1]"},
      {"tukey:0.5x", "must be a number"},
      {"hann:2", "takes no parameter"},
  };
  for (const Expect& c : cases) {
    try {
      parse_window(c.text);
      ADD_FAILURE() << "no error for '" << c.text << "'";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(c.says), std::string::npos) << message;
      EXPECT_NE(message.find("blackmanharris"), std::string::npos) << message;
    }
  }
}

TEST(Window, HelpListsEveryWindow) {
  const std::string help = window_names_help();
  for (const char* name : {"boxcar", "hann", "hamming", "blackman", "blackmanharris", "flattop",
                           "kaiser", "tukey"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace prism
