// Tests of Resampler (pipeline/resampler.hpp):
//   1. scipy        resample_poly over 20 (up, down) pairs, real and complex, default and custom
//                   taps: relative L2 <= 2e-5 against scipy in double and in float32; the
//                   default taps equal scipy's firwin design
//   2. streaming    chunks of 1, 2, 3, 7, 64, 1000 and more than the input give the bits of one
//                   call; flush by one output at a time; reset reproduces; max_output is a
//                   bound that is reached; empty and one-item inputs
//   3. ratios       resample_ratio reduces exactly and refuses large terms
//   4. errors       each names its field
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/resampler.hpp"
#include "tests/pipeline/streaming_harness.hpp"

namespace prism {
namespace {

using test::relative_l2;
using test::run_in_chunks;
using test::same_bits;

// Noise plus two tones (one below, one above the lower Nyquist frequency of most ratios), so
// both the passband and the stopband of the filter are exercised.
std::vector<float> test_signal(std::size_t items, bool complex_items, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  const std::size_t width = complex_items ? 2 : 1;
  std::vector<float> x(items * width);
  for (std::size_t n = 0; n < items; ++n) {
    const double t = static_cast<double>(n);
    const double a = 2 * std::numbers::pi * 0.0123 * t, b = 2 * std::numbers::pi * 0.37 * t;
    if (complex_items) {
      x[2 * n] = static_cast<float>(std::cos(a) + 0.5 * std::cos(b)) + noise(rng);
      x[2 * n + 1] = static_cast<float>(std::sin(a) - 0.5 * std::sin(b)) + noise(rng);
    } else {
      x[n] = static_cast<float>(std::cos(a) + 0.5 * std::cos(b)) + noise(rng);
    }
  }
  return x;
}

std::vector<float> resample_whole(const ResamplerSpec& spec, const std::vector<float>& x) {
  Resampler r(spec);
  const std::size_t width = spec.complex_input ? 2 : 1;
  return run_in_chunks(r, x, width, width, x.size() / width + 1);
}

template <typename T>
std::vector<T> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::vector<T> values(bytes / sizeof(T));
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(bytes));
  return values;
}

// ---- 1. scipy ------------------------------------------------------------------------------

struct ScipyCase {
  std::uint64_t up;
  std::uint64_t down;
  bool complex_input;
  std::size_t items;
  std::vector<double> taps;  // empty: default
};

TEST(Resampler, MatchesScipyResamplePoly) {
  const std::string python = test::scipy_python();
  if (python.empty()) GTEST_SKIP() << "python3 with scipy is not available";
  const auto dir =
      std::filesystem::temp_directory_path() / ("prism_qa_resampler_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  std::vector<ScipyCase> cases;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs = {
      {1, 2},  {2, 1},  {3, 2},       {2, 3},  {147, 160}, {160, 147}, {1, 48},
      {48, 1}, {1, 50}, {5, 4},       {4, 5},  {7, 3},     {3, 7},     {10, 1},
      {1, 10}, {6, 4},  {441, 24000}, {13, 1}, {1, 1},     {320, 441}};
  for (const auto& [up, down] : pairs)
    for (bool complex_input : {false, true})
      cases.push_back({up, down, complex_input, 10001, {}});  // > a history block
  // Custom taps: odd and even lengths, shorter and longer than up.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> tap(-0.5, 0.5);
  for (std::size_t length : {31u, 40u, 2u, 1u}) {
    std::vector<double> taps(length);
    for (double& t : taps) t = tap(rng);
    cases.push_back({3, 2, false, 3001, taps});
    cases.push_back({5, 7, true, 3001, taps});
  }
  // Inputs shorter than the filter.
  cases.push_back({1, 50, false, 7, {}});
  cases.push_back({48, 1, true, 1, {}});

  nlohmann::json manifest = nlohmann::json::array();
  std::vector<std::vector<float>> inputs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ScipyCase& c = cases[i];
    inputs.push_back(test_signal(c.items, c.complex_input, static_cast<unsigned>(100 + i)));
    const std::string name = "case" + std::to_string(i);
    std::ofstream(dir / (name + ".in"), std::ios::binary)
        .write(reinterpret_cast<const char*>(inputs.back().data()),
               static_cast<std::streamsize>(inputs.back().size() * sizeof(float)));
    nlohmann::json entry = {
        {"name", name}, {"up", c.up}, {"down", c.down}, {"complex", c.complex_input}};
    if (!c.taps.empty()) entry["taps"] = c.taps;
    manifest.push_back(entry);
  }
  std::ofstream(dir / "cases.json") << manifest.dump();
  const std::string script = std::string(PRISM_TEST_DATA_DIR) + "/scipy_resample_poly.py";
  const std::string command =
      python + " " + test::shell_quote(script) + " " + test::shell_quote(dir.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  double worst64 = 0, worst32 = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ScipyCase& c = cases[i];
    const std::string name = "case" + std::to_string(i);
    SCOPED_TRACE(name + ": " + std::to_string(c.up) + "/" + std::to_string(c.down) +
                 (c.complex_input ? " complex" : " real") +
                 (c.taps.empty() ? "" : ", " + std::to_string(c.taps.size()) + " custom taps"));
    ResamplerSpec spec{c.up, c.down, c.complex_input, c.taps};
    const std::vector<float> ours = resample_whole(spec, inputs[i]);
    const auto ref64 = read_file<double>(dir / (name + ".ref64"));
    const auto ref32 = read_file<double>(dir / (name + ".ref32"));
    ASSERT_EQ(ours.size(), ref64.size());
    ASSERT_EQ(ours.size(), ref32.size());
    const std::size_t width = c.complex_input ? 2 : 1;
    EXPECT_EQ(ours.size() / width,
              (c.items * (c.up / std::gcd(c.up, c.down)) + c.down / std::gcd(c.up, c.down) - 1) /
                  (c.down / std::gcd(c.up, c.down)));
    const double e64 = relative_l2(ours, ref64), e32 = relative_l2(ours, ref32);
    EXPECT_LE(e64, 2e-5);
    EXPECT_LE(e32, 2e-5);
    worst64 = std::max(worst64, e64);
    worst32 = std::max(worst32, e32);

    if (c.taps.empty() && c.up / std::gcd(c.up, c.down) != c.down / std::gcd(c.up, c.down)) {
      const auto scipy_taps = read_file<double>(dir / (name + ".taps"));
      const std::vector<double> taps = design_resampler_taps(c.up, c.down);
      ASSERT_EQ(taps.size(), scipy_taps.size());
      double largest = 0, difference = 0;
      for (std::size_t k = 0; k < taps.size(); ++k) {
        largest = std::max(largest, std::abs(scipy_taps[k]));
        difference = std::max(difference, std::abs(taps[k] - scipy_taps[k]));
      }
      EXPECT_LE(difference, 1e-12 * largest);
    }
  }
  RecordProperty("worst_relative_l2_vs_scipy_float64", std::to_string(worst64));
  RecordProperty("worst_relative_l2_vs_scipy_float32", std::to_string(worst32));
  std::printf("relative L2 against scipy, worst of %zu cases: %.3g (float64), %.3g (float32)\n",
              cases.size(), worst64, worst32);
  std::filesystem::remove_all(dir);
}

// ---- 2. streaming --------------------------------------------------------------------------

TEST(Resampler, OutputDoesNotDependOnTheChunking) {
  for (const auto& [up, down] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 2}, {2, 1}, {3, 2}, {147, 160}, {160, 147}, {1, 48}, {48, 1}, {1, 1}})
    for (bool complex_input : {false, true}) {
      SCOPED_TRACE(std::to_string(up) + "/" + std::to_string(down) +
                   (complex_input ? " complex" : " real"));
      const std::size_t items = 9000;  // more than a history block: compactions happen
      const std::vector<float> x = test_signal(items, complex_input, 3);
      const ResamplerSpec spec{up, down, complex_input, {}};
      const std::vector<float> whole = resample_whole(spec, x);
      const std::size_t width = complex_input ? 2 : 1;
      for (std::size_t chunk : test::exactness_chunks(items)) {
        Resampler r(spec);
        EXPECT_TRUE(same_bits(run_in_chunks(r, x, width, width, chunk), whole))
            << "chunks of " << chunk;
      }
      // Flushed one output at a time.
      Resampler r(spec);
      EXPECT_TRUE(same_bits(run_in_chunks(r, x, width, width, 1000, 1), whole));
      // Reset reproduces, also after a partial flush.
      float scratch[2];
      r.reset();
      std::vector<float> partial(r.max_output(items) * width);
      r.process(x.data(), items, partial.data());
      r.flush(scratch, 1);
      r.reset();
      EXPECT_TRUE(same_bits(run_in_chunks(r, x, width, width, 64), whole)) << "after reset";
    }
}

// Resampler64: resample_poly's definition written out here in long double, on input a float cannot
// hold; within 1e-13 (a float path would be about 1e-7 off), and bit-identical whatever the cutting.
TEST(Resampler, DoublePrecisionMatchesTheDefinitionAndIsExact) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> g(0.0, 0.3);
  for (const auto& [up, down] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 2}, {3, 2}, {147, 160}, {1, 50}, {5, 1}})
    for (bool complex_input : {false, true}) {
      SCOPED_TRACE(std::to_string(up) + "/" + std::to_string(down) + (complex_input ? " complex" : " real"));
      const std::size_t items = 7001, width = complex_input ? 2 : 1;
      std::vector<double> x(items * width);
      for (double& v : x) v = g(rng);
      const ResamplerSpec spec{up, down, complex_input, {}};
      Resampler64 whole_resampler(spec);
      const std::vector<double> whole = run_in_chunks(whole_resampler, x, width, width, items + 1);
      // y[k] = Σ_j h[j]·xu[k·down + half − j], xu the input with up − 1 zeros after each item.
      const std::vector<double>& h = whole_resampler.taps();
      const std::size_t half = whole_resampler.half_length();
      const std::uint64_t u = whole_resampler.up(), d = whole_resampler.down();
      const std::size_t outputs = static_cast<std::size_t>((items * u + d - 1) / d);
      ASSERT_EQ(whole.size(), outputs * width);
      std::vector<double> expected(outputs * width);
      for (std::size_t k = 0; k < outputs; ++k)
        for (std::size_t c = 0; c < width; ++c) {
          long double sum = 0;
          for (std::size_t j = 0; j < h.size(); ++j) {
            const std::int64_t i = static_cast<std::int64_t>(k * d + half) - static_cast<std::int64_t>(j);
            if (i < 0 || i % static_cast<std::int64_t>(u) != 0) continue;
            const auto n = static_cast<std::size_t>(i / static_cast<std::int64_t>(u));
            if (n < items) sum += static_cast<long double>(h[j]) * x[n * width + c];
          }
          expected[k * width + c] = static_cast<double>(sum);
        }
      EXPECT_LE(relative_l2(whole, expected), 1e-13);
      for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
        Resampler64 r(spec);
        EXPECT_TRUE(same_bits(run_in_chunks(r, x, width, width, chunk, 3), whole)) << "chunks of " << chunk;
      }
    }
}

TEST(Resampler, MaxOutputIsReachedAndNeverExceeded) {
  // Upsampling by 48: after the filter's half length has arrived, one item gives 48 outputs.
  Resampler up48({48, 1, false, {}});
  EXPECT_EQ(up48.max_output(1), 48u);
  EXPECT_EQ(up48.max_output(0), 0u);
  std::vector<float> x(100, 1.0f), out(48 * 100);
  std::size_t reached = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const std::size_t got = up48.process(&x[n], 1, out.data());
    EXPECT_LE(got, 48u);
    reached = std::max(reached, got);
  }
  EXPECT_EQ(reached, 48u);
  // 147/160: ceil(n·147/160).
  Resampler r({147, 160, true, {}});
  EXPECT_EQ(r.max_output(160), 147u);
  EXPECT_EQ(r.max_output(161), 148u);
  EXPECT_EQ(r.max_output(1), 1u);
  // Unreduced terms are reduced.
  Resampler six_four({6, 4, false, {}});
  EXPECT_EQ(six_four.up(), 3u);
  EXPECT_EQ(six_four.down(), 2u);
  EXPECT_EQ(six_four.half_length(), 30u);
  EXPECT_EQ(six_four.taps().size(), 61u);
  EXPECT_EQ(six_four.taps_per_phase(), 21u);
}

TEST(Resampler, EmptyAndTinyInputs) {
  Resampler r({1, 50, false, {}});
  float out[4] = {};
  EXPECT_EQ(r.process(nullptr, 0, out), 0u);
  EXPECT_EQ(r.flush(out, 4), 0u);
  r.reset();
  const float one = 1.0f;
  EXPECT_EQ(r.process(&one, 1, out), 0u);
  EXPECT_EQ(r.flush(out, 4), 1u);  // ceil(1/50)
  EXPECT_EQ(r.flush(out, 4), 0u);
  EXPECT_FLOAT_EQ(out[0], static_cast<float>(r.taps()[r.half_length()]));
  EXPECT_THROW(r.process(&one, 1, out), std::logic_error);
}

// The identity ratio returns the input bit for bit, as resample_poly's copy.
TEST(Resampler, EqualTermsCopyTheInput) {
  Resampler r({5, 5, true, {0.25, 0.5}});
  std::vector<float> x = {1.5f, -0.0f, std::numeric_limits<float>::infinity(), 3.0f};
  std::vector<float> out(4);
  ASSERT_EQ(r.process(x.data(), 2, out.data()), 2u);
  EXPECT_TRUE(same_bits(out, x));
  EXPECT_EQ(r.flush(out.data(), 4), 0u);
}

// ---- 3. ratios -----------------------------------------------------------------------------

TEST(Resampler, RatioOfTwoRates) {
  auto ratio = [](double in, double out) {
    const ResampleRatio r = resample_ratio(in, out);
    return std::to_string(r.up) + "/" + std::to_string(r.down);
  };
  EXPECT_EQ(ratio(2.4e6, 48000), "1/50");
  EXPECT_EQ(ratio(48000, 44100), "147/160");
  EXPECT_EQ(ratio(44100, 48000), "160/147");
  EXPECT_EQ(ratio(48000, 2.4e6), "50/1");
  EXPECT_EQ(ratio(2.4e6, 44100), "147/8000");
  EXPECT_EQ(ratio(250e3, 48e3), "24/125");
  EXPECT_EQ(ratio(48000, 48000), "1/1");
  EXPECT_EQ(ratio(0.5, 0.75), "3/2");
  EXPECT_EQ(ratio(1.0, 1024.0), "1024/1");
  // 1e6/3 is not a ratio of small integers in double: refused, naming the output rate.
  try {
    resample_ratio(1e6 / 3, 48000);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("output_rate=48000 is out of range", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 65536"), std::string::npos) << e.what();
  }
  try {
    resample_ratio(2.4e6, 44100, 1000);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("147/8000"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resample_ratio(0.125, 48000), UsageError);  // 384000/1
}

// ---- 4. errors -----------------------------------------------------------------------------

void expect_usage_error(const ResamplerSpec& spec, const std::string& starts_with) {
  try {
    Resampler r(spec);
    ADD_FAILURE() << "no error, expected " << starts_with;
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(starts_with, 0), 0u) << e.what();
  }
}

TEST(Resampler, ErrorsNameTheField) {
  expect_usage_error({0, 2, false, {}}, "up=0 is out of range");
  expect_usage_error({2, 0, false, {}}, "down=0 is out of range");
  expect_usage_error({1, 65537, false, {}}, "down=65537 is out of range");
  expect_usage_error({65537 * 3, 3, false, {}},
                     "up=196611 is out of range: 196611/3 reduces to 65537/1");
  expect_usage_error({3, 2, false, {1.0, std::nan(""), 1.0}}, "taps: tap 1 is not a finite number");
  expect_usage_error({3, 2, false, std::vector<double>(kMaxResamplerTaps + 1, 0.0)}, "taps: ");
  // Large but reducible terms are fine.
  EXPECT_NO_THROW(Resampler({65536 * 4, 4 * 3, false, {1.0}}));
  try {
    resample_ratio(-1, 48000);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("input_rate=-1 is out of range", 0), 0u) << e.what();
  }
  try {
    resample_ratio(48000, std::numeric_limits<double>::infinity());
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("output_rate=inf is out of range", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace prism
