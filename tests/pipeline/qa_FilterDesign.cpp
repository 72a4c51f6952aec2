// Tests of filter design (pipeline/filter_design.cpp).
//   1. against scipy 1.10 through Debian's python3 (data/scipy_filter_design.py): firwin over
//      several hundred parameter sets (every window, every pass_zero, multi-band, width, scale,
//      fs, odd and even numtaps up to 65535, and the parameter errors), kaiserord, kaiser_beta,
//      kaiser_atten, the complex band-pass, freqz, group delay, and the response figures
//      against a dense freqz. Random sets come from a fixed seed; PRISM_TEST_SEED picks others.
//   2. without python: FilterDesignSpec (what each way of giving the length designs, the
//      validation and its messages), the complex band-pass's response, the figures of Kaiser
//      designs against their specification.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/filter_design.hpp"

namespace prism {
namespace {

using nlohmann::json;
using cdouble = std::complex<double>;

// ---- running scipy ------------------------------------------------------------------------

bool have_scipy() {
  const std::string python = PRISM_TEST_PYTHON;
  return !python.empty() && ::access(python.c_str(), X_OK) == 0 &&
         std::system((python + " -c 'import scipy.signal' 2>/dev/null").c_str()) == 0;
}

#define SKIP_WITHOUT_SCIPY() \
  if (!have_scipy()) GTEST_SKIP() << "python3 with scipy is not available"

// The results of data/scipy_filter_design.py for `cases`, in order.
json run_scipy(const json& cases) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("prism_qa_filter_design_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string in = (dir / "cases.json").string();
  const std::string out = (dir / "results.json").string();
  std::ofstream(in) << cases.dump();
  const std::string command = std::string(PRISM_TEST_PYTHON) + " '" + PRISM_TEST_DATA_DIR +
                              "/scipy_filter_design.py' '" + in + "' '" + out + "'";
  const int status = std::system(command.c_str());
  if (status != 0) {
    std::filesystem::remove_all(dir);
    throw std::runtime_error("scipy_filter_design.py failed: " + command);
  }
  std::ifstream file(out);
  json results = json::parse(file);
  std::filesystem::remove_all(dir);
  if (results.size() != cases.size()) throw std::runtime_error("scipy_filter_design.py lost cases");
  return results;
}

std::uint64_t test_seed() {
  const char* text = std::getenv("PRISM_TEST_SEED");
  return text ? std::strtoull(text, nullptr, 10) : 20261201;
}

// max|a − b| / max|b|.
template <typename T>
double relative_error(const std::vector<T>& a, const std::vector<T>& b) {
  double difference = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    difference = std::max(difference, std::abs(a[i] - b[i]));
    largest = std::max(largest, std::abs(b[i]));
  }
  return largest == 0.0 ? difference : difference / largest;
}

// ---- firwin cases ---------------------------------------------------------------------------

struct FirwinCase {
  std::size_t numtaps = 0;
  std::vector<double> cutoff;
  FirwinOptions options;
};

json pass_zero_json(PassZero p) {
  switch (p) {
    case PassZero::yes: return true;
    case PassZero::no: return false;
    case PassZero::lowpass: return "lowpass";
    case PassZero::highpass: return "highpass";
    case PassZero::bandpass: return "bandpass";
    case PassZero::bandstop: return "bandstop";
  }
  return true;
}

std::string describe(const FirwinCase& c) {
  std::string text = "firwin(" + std::to_string(c.numtaps) + ", [";
  for (double f : c.cutoff) text += std::to_string(f) + " ";
  text += "], window=" + c.options.window.to_string() + ", pass_zero=" + pass_zero_json(c.options.pass_zero).dump() +
          ", scale=" + (c.options.scale ? "True" : "False") + ", fs=" + std::to_string(c.options.fs);
  if (c.options.width) text += ", width=" + std::to_string(*c.options.width);
  return text + ")";
}

json to_json(const FirwinCase& c) {
  json j = {{"kind", "firwin"},
            {"numtaps", c.numtaps},
            {"cutoff", c.cutoff},
            {"window", c.options.window.to_string()},
            {"pass_zero", pass_zero_json(c.options.pass_zero)},
            {"scale", c.options.scale},
            {"fs", c.options.fs}};
  j["width"] = c.options.width ? json(*c.options.width) : json(nullptr);
  return j;
}

const std::vector<WindowSpec>& all_windows() {
  static const std::vector<WindowSpec> windows = {
      {WindowKind::boxcar},   {WindowKind::hann},        {WindowKind::hamming},
      {WindowKind::blackman}, {WindowKind::blackmanharris}, {WindowKind::flattop},
      {WindowKind::kaiser, 0},   {WindowKind::kaiser, 5.65326},  {WindowKind::kaiser, 14},
      {WindowKind::tukey, 0},    {WindowKind::tukey, 0.25},     {WindowKind::tukey, 1},
  };
  return windows;
}

bool passes_nyquist(const FirwinCase& c) {
  const bool zero = c.options.pass_zero == PassZero::yes || c.options.pass_zero == PassZero::lowpass ||
                    c.options.pass_zero == PassZero::bandstop;
  return (c.cutoff.size() % 2 == 1) != zero;
}

// Hand-picked sets: each window and pass_zero with short, odd, even and long filters, and
// the parameter errors scipy raises.
std::vector<FirwinCase> structured_cases() {
  std::vector<FirwinCase> cases;
  const std::vector<std::pair<PassZero, std::vector<double>>> bands = {
      {PassZero::lowpass, {0.2}},           {PassZero::highpass, {0.3}},
      {PassZero::bandpass, {0.1, 0.35}},    {PassZero::bandstop, {0.25, 0.6}},
      {PassZero::yes, {0.1, 0.2, 0.5, 0.7}}, {PassZero::no, {0.05, 0.3, 0.45, 0.9}},
      {PassZero::yes, {0.3, 0.5, 0.8}},      {PassZero::no, {0.4, 0.6, 0.8}},
      {PassZero::bandpass, {0.2, 0.4, 0.6}},
  };
  for (const WindowSpec& window : all_windows()) {
    for (const auto& [pass_zero, cutoff] : bands) {
      for (std::size_t numtaps : {1u, 2u, 3u, 4u, 7u, 30u, 31u, 128u, 257u}) {
        FirwinCase c;
        c.numtaps = numtaps;
        c.cutoff = cutoff;
        c.options.window = window;
        c.options.pass_zero = pass_zero;
        cases.push_back(c);
      }
    }
  }
  // fs in Hz, scale off, width (Kaiser from kaiser_atten), long filters.
  for (double fs : {1.0, 48000.0, 2.4e6, 1e9}) {
    for (bool scale : {true, false}) {
      FirwinCase c;
      c.numtaps = 201;
      c.cutoff = {0.11 * fs, 0.27 * fs};
      c.options.fs = fs;
      c.options.scale = scale;
      c.options.pass_zero = PassZero::bandstop;
      cases.push_back(c);
      c.options.width = 0.01 * fs;
      cases.push_back(c);
    }
  }
  for (std::size_t numtaps : {4095u, 4096u, 65535u}) {
    FirwinCase c;
    c.numtaps = numtaps;
    c.cutoff = {3000.0};
    c.options.fs = 48000;
    c.options.window = {WindowKind::kaiser, 8.6};
    cases.push_back(c);
  }
  // Errors: even numtaps passing fs/2, cutoffs out of range or not increasing, the named
  // pass_zero with the wrong number of cutoffs.
  auto error_case = [&](std::size_t numtaps, std::vector<double> cutoff, PassZero pass_zero) {
    FirwinCase c;
    c.numtaps = numtaps;
    c.cutoff = std::move(cutoff);
    c.options.pass_zero = pass_zero;
    cases.push_back(c);
  };
  error_case(10, {0.3}, PassZero::highpass);
  error_case(10, {0.3, 0.5}, PassZero::bandstop);
  error_case(10, {0.3, 0.5, 0.7}, PassZero::bandpass);
  error_case(11, {0.0}, PassZero::lowpass);
  error_case(11, {1.0}, PassZero::lowpass);
  error_case(11, {-0.1}, PassZero::lowpass);
  error_case(11, {1.5}, PassZero::no);
  error_case(11, {0.3, 0.3}, PassZero::bandpass);
  error_case(11, {0.5, 0.3}, PassZero::bandstop);
  error_case(11, {0.2, 0.3}, PassZero::lowpass);
  error_case(11, {0.2, 0.3}, PassZero::highpass);
  error_case(11, {0.2}, PassZero::bandpass);
  error_case(11, {0.2}, PassZero::bandstop);
  return cases;
}

// Random sets: any pass_zero and number of bands, log-uniform numtaps to 3000 (now and then
// even where that is an error), any window, width, scale and fs.
std::vector<FirwinCase> random_cases(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::vector<double> rates = {2.0, 1.0, 0.37, 8000.0, 44100.0, 48000.0, 2.4e6, 1e9};
  const PassZero kinds[] = {PassZero::yes,      PassZero::no,       PassZero::lowpass,
                            PassZero::highpass, PassZero::bandpass, PassZero::bandstop};
  std::vector<FirwinCase> cases;
  while (cases.size() < count) {
    FirwinCase c;
    c.options.fs = rates[rng() % rates.size()];
    c.options.pass_zero = kinds[rng() % 6];
    std::size_t cutoffs = 1;
    if (c.options.pass_zero == PassZero::bandpass || c.options.pass_zero == PassZero::bandstop)
      cutoffs = 2 + rng() % 4;
    else if (c.options.pass_zero == PassZero::yes || c.options.pass_zero == PassZero::no)
      cutoffs = 1 + rng() % 5;
    std::vector<double> cutoff;
    for (std::size_t i = 0; i < cutoffs; ++i) cutoff.push_back((0.005 + 0.99 * unit(rng)) * c.options.fs / 2);
    std::sort(cutoff.begin(), cutoff.end());
    if (std::adjacent_find(cutoff.begin(), cutoff.end()) != cutoff.end()) continue;
    c.cutoff = cutoff;
    c.numtaps = static_cast<std::size_t>(std::exp(unit(rng) * std::log(3000.0)));
    c.numtaps = std::max<std::size_t>(c.numtaps, 1);
    if (passes_nyquist(c) && c.numtaps % 2 == 0 && rng() % 8 != 0) ++c.numtaps;
    WindowSpec window = all_windows()[rng() % all_windows().size()];
    if (window.kind == WindowKind::kaiser) window.parameters = {20 * unit(rng)};
    if (window.kind == WindowKind::tukey) window.parameters = {unit(rng)};
    c.options.window = window;
    c.options.scale = rng() % 4 != 0;
    if (rng() % 5 == 0) c.options.width = (0.001 + 0.2 * unit(rng)) * c.options.fs / 2;
    cases.push_back(c);
  }
  return cases;
}

TEST(FilterDesign, FirwinMatchesScipy) {
  SKIP_WITHOUT_SCIPY();
  std::vector<FirwinCase> cases = structured_cases();
  const std::vector<FirwinCase> random = random_cases(400, test_seed());
  cases.insert(cases.end(), random.begin(), random.end());
  json requests = json::array();
  for (const FirwinCase& c : cases) requests.push_back(to_json(c));
  const json results = run_scipy(requests);

  std::size_t compared = 0, errors = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const FirwinCase& c = cases[i];
    SCOPED_TRACE(describe(c));
    if (results[i].contains("error")) {
      ++errors;
      EXPECT_THROW(firwin(c.numtaps, c.cutoff, c.options), FilterDesignError)
          << "scipy: " << results[i]["error"];
      continue;
    }
    std::vector<double> taps;
    ASSERT_NO_THROW(taps = firwin(c.numtaps, c.cutoff, c.options));
    const auto expected = results[i]["taps"].get<std::vector<double>>();
    ASSERT_EQ(taps.size(), expected.size());
    const double error = relative_error(taps, expected);
    worst = std::max(worst, error);
    EXPECT_LE(error, 1e-12);
    ++compared;
  }
  EXPECT_GE(compared, 1000u);
  EXPECT_GE(errors, 20u);
  std::printf("firwin: %zu designs equal scipy's (worst max|diff|/max|h| %.2e), %zu errors as scipy's\n",
              compared, worst, errors);
}

TEST(FilterDesign, KaiserFormulasMatchScipy) {
  SKIP_WITHOUT_SCIPY();
  json requests = json::array();
  struct Order {
    double ripple, width;
  };
  std::vector<Order> orders;
  for (double ripple : {8.0, 8.5, 10.0, 20.0, 21.0, 21.0001, 30.0, 49.99, 50.0, 50.01, 60.0, 80.0,
                        120.0, 200.0, -65.0, 7.99, 3.0})
    for (double width : {2e-4, 0.001, 0.0375, 0.05, 0.1, 0.3, 1.0, 1.7})
      orders.push_back({ripple, width});
  for (const Order& o : orders) requests.push_back({{"kind", "kaiserord"}, {"ripple", o.ripple}, {"width", o.width}});
  std::vector<double> attenuations;
  for (int i = 0; i <= 300; ++i) attenuations.push_back(0.5 * i + (i % 7) * 0.013);
  for (double a : attenuations) requests.push_back({{"kind", "kaiser_beta"}, {"a", a}});
  struct Atten {
    std::size_t numtaps;
    double width;
  };
  std::vector<Atten> attens;
  for (std::size_t numtaps : {1u, 2u, 51u, 211u, 4096u, 100001u})
    for (double width : {0.0, 0.0375, 0.25, 1.0}) attens.push_back({numtaps, width});
  for (const Atten& a : attens)
    requests.push_back({{"kind", "kaiser_atten"}, {"numtaps", a.numtaps}, {"width", a.width}});
  const json results = run_scipy(requests);

  std::size_t index = 0;
  for (const Order& o : orders) {
    const json& r = results[index++];
    SCOPED_TRACE("kaiserord(" + std::to_string(o.ripple) + ", " + std::to_string(o.width) + ")");
    if (r.contains("error")) {
      EXPECT_THROW(kaiserord(o.ripple, o.width), FilterDesignError);
      continue;
    }
    const KaiserOrder order = kaiserord(o.ripple, o.width);
    EXPECT_EQ(order.numtaps, r["numtaps"].get<std::size_t>());
    EXPECT_NEAR(order.beta, r["beta"].get<double>(), 1e-14 * std::max(1.0, order.beta));
  }
  for (double a : attenuations) {
    const double expected = results[index++]["value"];
    EXPECT_NEAR(kaiser_beta(a), expected, 1e-14 * std::max(1.0, expected)) << "kaiser_beta(" << a << ")";
  }
  for (const Atten& a : attens) {
    const double expected = results[index++]["value"];
    EXPECT_NEAR(kaiser_atten(a.numtaps, a.width), expected, 1e-13 * expected)
        << "kaiser_atten(" << a.numtaps << ", " << a.width << ")";
  }
}

TEST(FilterDesign, ComplexBandpassMatchesShiftedScipyPrototype) {
  SKIP_WITHOUT_SCIPY();
  struct Case {
    std::size_t numtaps;
    double f_low, f_high, fs;
    WindowSpec window;
  };
  const std::vector<Case> cases = {
      {101, 300, 3000, 8000, {WindowKind::hamming}},          // USB
      {100, -3000, -300, 8000, {WindowKind::hamming}},        // LSB, even length
      {255, -5000, 20000, 96000, {WindowKind::kaiser, 7.5}},     // off-centre, asymmetric
      {63, 100e3, 150e3, 2.4e6, {WindowKind::blackman}},
      {64, -1.2e6, -0.2e6, 2.4e6, {WindowKind::hann}},        // touching -fs/2
      {33, -0.9, 0.99, 2.0, {WindowKind::tukey, 0.3}},
      {1, -100, 100, 1000, {WindowKind::hamming}},
      {2, 10, 110, 1000, {WindowKind::boxcar}},
      {4097, 123.4, 567.8, 2000, {WindowKind::blackmanharris}},
      {65535, 30e3, 31e3, 250e3, {WindowKind::kaiser, 10}},      // long: the phase stays exact
      {65536, -249e3, -200e3, 500e3, {WindowKind::flattop}},
  };
  json requests = json::array();
  for (const Case& c : cases)
    requests.push_back({{"kind", "complex_bandpass"}, {"numtaps", c.numtaps}, {"f_low", c.f_low},
                        {"f_high", c.f_high}, {"fs", c.fs}, {"window", c.window.to_string()}});
  const json results = run_scipy(requests);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(std::to_string(c.numtaps) + " taps, " + std::to_string(c.f_low) + " to " +
                 std::to_string(c.f_high) + " of " + std::to_string(c.fs));
    const auto h = complex_bandpass(c.numtaps, c.f_low, c.f_high, c.fs, c.window);
    const auto re = results[i]["re"].get<std::vector<double>>();
    const auto im = results[i]["im"].get<std::vector<double>>();
    ASSERT_EQ(h.size(), re.size());
    std::vector<cdouble> expected(re.size());
    for (std::size_t n = 0; n < re.size(); ++n) expected[n] = {re[n], im[n]};
    EXPECT_LE(relative_error(h, expected), 1e-12);
  }
}

TEST(FilterDesign, FreqzAndGroupDelayMatchScipy) {
  SKIP_WITHOUT_SCIPY();
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<double> normal;
  struct Case {
    FilterTaps taps;
    std::size_t points;
    bool whole;
    double fs;
  };
  std::vector<Case> cases;
  for (std::size_t m : {1u, 5u, 64u, 333u})
    for (bool complex : {false, true})
      for (std::size_t points : {1u, 7u, 100u, 512u})
        for (bool whole : {false, true}) {
          Case c;
          if (complex) {
            std::vector<cdouble> h(m);
            for (cdouble& v : h) v = {normal(rng), normal(rng)};
            c.taps = FilterTaps::from_complex(h);
          } else {
            std::vector<double> h(m);
            for (double& v : h) v = normal(rng);
            c.taps = FilterTaps::from_real(h);
          }
          c.points = points;
          c.whole = whole;
          c.fs = points % 2 ? 48000.0 : 2 * std::numbers::pi;
          cases.push_back(c);
        }
  auto taps_json = [](json& j, const FilterTaps& t) {
    std::vector<double> re(t.size()), im(t.size());
    for (std::size_t n = 0; n < t.size(); ++n) re[n] = t[n].real(), im[n] = t[n].imag();
    j["re"] = re;
    j["im"] = t.is_complex ? json(im) : json(nullptr);
  };
  json requests = json::array();
  for (const Case& c : cases) {
    json j = {{"kind", "freqz"}, {"points", c.points}, {"whole", c.whole}, {"fs", c.fs}};
    taps_json(j, c.taps);
    requests.push_back(j);
  }
  const std::vector<double> delay_frequencies = {0.0, 1234.5, 10000.0, -7000.0};
  for (const Case& c : cases)
    if (c.points == 100 && c.whole)
      for (double f : delay_frequencies) {
        json j = {{"kind", "group_delay"}, {"frequency", f}, {"fs", 48000.0}};
        taps_json(j, c.taps);
        requests.push_back(j);
      }
  const json results = run_scipy(requests);

  std::size_t index = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.taps.size()) + (c.taps.is_complex ? " complex" : " real") +
                 " taps, " + std::to_string(c.points) + " points" + (c.whole ? ", whole" : ""));
    const json& r = results[index++];
    const FrequencyResponse response = freqz(c.taps, c.points, c.whole, c.fs);
    const auto w = r["w"].get<std::vector<double>>();
    const auto re = r["re"].get<std::vector<double>>();
    const auto im = r["im"].get<std::vector<double>>();
    ASSERT_EQ(response.values.size(), re.size());
    double scale = 0.0;
    for (std::size_t n = 0; n < c.taps.size(); ++n) scale += std::abs(c.taps[n]);
    for (std::size_t k = 0; k < re.size(); ++k) {
      EXPECT_NEAR(response.frequencies[k], w[k], 1e-12 * c.fs) << k;
      EXPECT_NEAR(std::abs(response.values[k] - cdouble(re[k], im[k])), 0.0, 1e-13 * scale) << k;
    }
  }
  for (const Case& c : cases)
    if (c.points == 100 && c.whole)
      for (double f : delay_frequencies) {
        const double expected = results[index++]["value"];
        // H near 0 makes the group delay ill-conditioned; random taps keep |H| away from it.
        EXPECT_NEAR(group_delay_at(c.taps, f, 48000.0), expected, 1e-8 * std::max(1.0, std::abs(expected)))
            << c.taps.size() << " taps at " << f << " Hz";
      }
}

// The figures of designs of every kind against scipy's dense freqz (2^20 points per fs).
TEST(FilterDesign, FiguresMatchADenseScipyGrid) {
  SKIP_WITHOUT_SCIPY();
  std::vector<FilterDesignSpec> specs;
  auto spec = [&](BandKind band, std::vector<double> edges, double fs) {
    FilterDesignSpec s;
    s.band = band;
    s.edges = std::move(edges);
    s.sample_rate = fs;
    return s;
  };
  FilterDesignSpec s = spec(BandKind::lowpass, {1000}, 8000);
  s.numtaps = 63;
  specs.push_back(s);
  s.window = WindowSpec{WindowKind::blackman};
  specs.push_back(s);
  s = spec(BandKind::highpass, {5000}, 48000);
  s.transition = 500;
  s.attenuation = 70;
  specs.push_back(s);
  s = spec(BandKind::bandpass, {3000, 6000}, 44100);
  s.numtaps = 255;
  s.window = WindowSpec{WindowKind::kaiser, 6};
  specs.push_back(s);
  s = spec(BandKind::bandstop, {50e3, 60e3}, 1e6);
  s.transition = 4e3;
  s.attenuation = 45;
  specs.push_back(s);
  s = spec(BandKind::complex_bandpass, {-20e3, 5e3}, 250e3);
  s.transition = 2e3;
  s.attenuation = 80;
  specs.push_back(s);
  s = spec(BandKind::complex_bandpass, {90e3, 125e3}, 250e3);  // up to fs/2: the stopband wraps
  s.numtaps = 200;
  s.window = WindowSpec{WindowKind::hann};
  specs.push_back(s);

  std::vector<FilterDesign> designs;
  json requests = json::array();
  for (const FilterDesignSpec& sp : specs) {
    designs.push_back(design_filter(sp));
    const FilterDesign& d = designs.back();
    std::vector<double> re(d.taps.size()), im(d.taps.size());
    for (std::size_t n = 0; n < d.taps.size(); ++n) re[n] = d.taps[n].real(), im[n] = d.taps[n].imag();
    json j = {{"kind", "figures"}, {"fs", sp.sample_rate}, {"re", re}};
    j["im"] = d.taps.is_complex ? json(im) : json(nullptr);
    j["passbands"] = json::array();
    j["stopbands"] = json::array();
    for (const FrequencyBand& b : d.passbands) j["passbands"].push_back({b.low, b.high});
    for (const FrequencyBand& b : d.stopbands) j["stopbands"].push_back({b.low, b.high});
    requests.push_back(j);
  }
  const json results = run_scipy(requests);
  for (std::size_t i = 0; i < designs.size(); ++i) {
    const FilterDesign& d = designs[i];
    SCOPED_TRACE(std::string(band_kind_name(d.spec.band)) + ", " + std::to_string(d.taps.size()) +
                 " taps, " + d.window.to_string());
    ASSERT_FALSE(d.passbands.empty());
    ASSERT_FALSE(d.stopbands.empty());
    const ResponseFigures f = measure_response(d);
    const json& r = results[i];
    const double db = 20.0;
    // The dense grid may only fall short of an extreme (by less than 0.01 dB here); the
    // figures are the extremes themselves.
    EXPECT_NEAR(f.passband_min_db, db * std::log10(r["passband_min"].get<double>()), 0.01);
    EXPECT_NEAR(f.passband_max_db, db * std::log10(r["passband_max"].get<double>()), 0.01);
    EXPECT_NEAR(f.stopband_attenuation_db, -db * std::log10(r["stopband_max"].get<double>()), 0.01);
    EXPECT_LE(f.passband_min_db, db * std::log10(r["passband_min"].get<double>()) + 1e-9);
    EXPECT_GE(f.passband_max_db, db * std::log10(r["passband_max"].get<double>()) - 1e-9);
    EXPECT_LE(f.stopband_attenuation_db, -db * std::log10(r["stopband_max"].get<double>()) + 1e-9);
    EXPECT_TRUE(f.linear_phase);
    EXPECT_EQ(f.group_delay, 0.5 * (static_cast<double>(d.taps.size()) - 1));
  }
}

// ---- 2. without python ----------------------------------------------------------------------

FilterDesignSpec lowpass_spec() {
  FilterDesignSpec s;
  s.band = BandKind::lowpass;
  s.edges = {1000};
  s.sample_rate = 8000;
  s.numtaps = 101;
  return s;
}

// Each way of giving the length designs what the scipy calls of filter_design.hpp make.
TEST(FilterDesign, SpecDesignsAsTheScipyCalls) {
  FilterDesignSpec s = lowpass_spec();
  FilterDesign d = design_filter(s);
  EXPECT_EQ(d.window.to_string(), "hamming");
  EXPECT_EQ(d.taps.real, firwin(101, {1000}, {.fs = 8000}));
  EXPECT_TRUE(d.transition_from_window);
  EXPECT_EQ(d.group_delay, 50.0);

  s.window = WindowSpec{WindowKind::blackman};
  d = design_filter(s);
  EXPECT_EQ(d.taps.real, firwin(101, {1000}, {.window = {WindowKind::blackman}, .fs = 8000}));

  // numtaps + transition: firwin's width (Kaiser, beta from kaiser_atten).
  s.window.reset();
  s.transition = 300;
  d = design_filter(s);
  EXPECT_EQ(d.window.kind, WindowKind::kaiser);
  EXPECT_EQ(d.window.parameters.at(0), kaiser_beta(kaiser_atten(101, 300.0 / 4000)));
  EXPECT_EQ(d.taps.real, firwin(101, {1000}, {.width = 300, .fs = 8000}));
  EXPECT_FALSE(d.transition_from_window);
  EXPECT_EQ(d.transition, 300);

  // transition + attenuation: kaiserord; a highpass gets an odd length.
  s.numtaps.reset();
  s.attenuation = 60;
  d = design_filter(s);
  const KaiserOrder order = kaiserord(60, 300.0 / 4000);
  EXPECT_EQ(d.taps.size(), order.numtaps);
  EXPECT_EQ(d.window.parameters.at(0), order.beta);
  s.band = BandKind::highpass;
  double transition = 300;  // one for which kaiserord gives an even length
  while (kaiserord(60, transition / 4000).numtaps % 2 != 0) transition += 1;
  s.transition = transition;
  d = design_filter(s);
  EXPECT_EQ(d.taps.size(), kaiserord(60, transition / 4000).numtaps + 1);
  EXPECT_EQ(d.taps.real, firwin(d.taps.size(), {1000},
                                {.window = d.window, .pass_zero = PassZero::highpass, .fs = 8000}));

  // complex band-pass: the prototype's length and window.
  s.band = BandKind::complex_bandpass;
  s.edges = {-500, 1500};
  d = design_filter(s);
  ASSERT_TRUE(d.taps.is_complex);
  EXPECT_EQ(d.taps.size(), kaiserord(60, transition / 4000).numtaps);
  EXPECT_EQ(d.taps.complex, complex_bandpass(d.taps.size(), -500, 1500, 8000, d.window));
}

// The bands the figures use: the ideal bands without the transitions around each edge.
TEST(FilterDesign, FigureBandsLeaveOutTheTransitions) {
  FilterDesignSpec s;
  s.band = BandKind::bandstop;
  s.edges = {1000, 2000};
  s.sample_rate = 8000;
  s.transition = 200;
  s.attenuation = 50;
  FilterDesign d = design_filter(s);
  ASSERT_EQ(d.passbands.size(), 2u);
  ASSERT_EQ(d.stopbands.size(), 1u);
  EXPECT_EQ(d.passbands[0].low, 0);
  EXPECT_EQ(d.passbands[0].high, 900);
  EXPECT_EQ(d.passbands[1].low, 2100);
  EXPECT_EQ(d.passbands[1].high, 4000);
  EXPECT_EQ(d.stopbands[0].low, 1100);
  EXPECT_EQ(d.stopbands[0].high, 1900);

  s.band = BandKind::complex_bandpass;
  s.edges = {-3000, 500};
  d = design_filter(s);
  ASSERT_EQ(d.passbands.size(), 1u);
  ASSERT_EQ(d.stopbands.size(), 2u);
  EXPECT_EQ(d.passbands[0].low, -2900);
  EXPECT_EQ(d.passbands[0].high, 400);
  EXPECT_EQ(d.stopbands[0].low, -4000);  // the stopband crosses fs/2: two pieces
  EXPECT_EQ(d.stopbands[0].high, -3100);
  EXPECT_EQ(d.stopbands[1].low, 600);
  EXPECT_EQ(d.stopbands[1].high, 4000);
  s.edges = {2000, 4000};  // up to fs/2: the stopband is one piece below
  d = design_filter(s);
  ASSERT_EQ(d.stopbands.size(), 1u);
  EXPECT_EQ(d.stopbands[0].low, -4000 + 100);
  EXPECT_EQ(d.stopbands[0].high, 1900);
  s.edges = {-4000, -2000};  // from -fs/2: one piece above
  d = design_filter(s);
  ASSERT_EQ(d.stopbands.size(), 1u);
  EXPECT_EQ(d.stopbands[0].low, -1900);
  EXPECT_EQ(d.stopbands[0].high, 4000 - 100);

  // Without a transition, the window's main lobe: 4/M·fs for a Hann window (first null at 2/M).
  s = lowpass_spec();
  s.numtaps = 201;
  s.window = WindowSpec{WindowKind::hann};
  d = design_filter(s);
  EXPECT_NEAR(d.transition, 4.0 / 201 * 8000, 0.05 * 4.0 / 201 * 8000);
  s.window = WindowSpec{WindowKind::boxcar};
  d = design_filter(s);
  EXPECT_NEAR(d.transition, 2.0 / 201 * 8000, 0.05 * 2.0 / 201 * 8000);
}

// A complex band-pass passes [f_low, f_high] and nothing else, on either side of 0.
TEST(FilterDesign, ComplexBandpassResponse) {
  FilterDesignSpec s;
  s.band = BandKind::complex_bandpass;
  s.edges = {-3000, 500};  // asymmetric about 0
  s.sample_rate = 16000;
  s.transition = 400;
  s.attenuation = 70;
  const FilterDesign d = design_filter(s);
  const FilterTaps& h = d.taps;
  const std::size_t m = h.size();
  const double fc = -1250;
  EXPECT_NEAR(std::abs(response_at(h, fc, 16000)), 1.0, 1e-12);
  // The window method puts the edges at half amplitude.
  EXPECT_NEAR(std::abs(response_at(h, -3000, 16000)), 0.5, 1e-3);
  EXPECT_NEAR(std::abs(response_at(h, 500, 16000)), 0.5, 1e-3);
  // Mirror frequencies are not passed (a real filter would pass them).
  EXPECT_LT(std::abs(response_at(h, 2000, 16000)), std::pow(10.0, -69.0 / 20));
  EXPECT_GT(std::abs(response_at(h, -2000, 16000)), 0.999);
  // Conjugate-symmetric taps: linear phase, the prototype's delay everywhere in the passband.
  for (std::size_t n = 0; n < m; ++n) EXPECT_NEAR(std::abs(h.complex[m - 1 - n] - std::conj(h.complex[n])), 0.0, 1e-15);
  EXPECT_TRUE(is_linear_phase(h));
  for (double f : {-2500.0, -1250.0, 0.0, 300.0})
    EXPECT_NEAR(group_delay_at(h, f, 16000), 0.5 * (m - 1), 1e-6) << f;
  // Its magnitude is the prototype's shifted by fc.
  const FilterTaps prototype = FilterTaps::from_real(firwin(m, {1750}, {.window = d.window, .fs = 16000}));
  for (double f : {-7000.0, -3100.0, -1000.0, 0.0, 600.0, 4321.0})
    EXPECT_NEAR(std::abs(response_at(h, f, 16000)), std::abs(response_at(prototype, f - fc, 16000)), 1e-12) << f;
  const ResponseFigures figures = measure_response(d);
  EXPECT_GE(figures.stopband_attenuation_db, 70 - 0.6);
  EXPECT_LT(figures.passband_ripple_db, 0.01);
}

// Kaiser's formula keeps its promise, within what an empirical formula allows: 1 dB where
// one edge makes the ripple (scipy's own example misses by 0.125 dB; these figures equal a dense
// scipy.signal.freqz, see FiguresMatchADenseScipyGrid), 2 dB where two edges' ripples add.
TEST(FilterDesign, KaiserDesignsMeetTheirAttenuation) {
  for (BandKind band : {BandKind::lowpass, BandKind::highpass, BandKind::bandpass, BandKind::bandstop}) {
    for (double attenuation : {25.0, 40.0, 60.0, 90.0, 120.0}) {
      FilterDesignSpec s;
      s.band = band;
      s.edges = band == BandKind::lowpass || band == BandKind::highpass ? std::vector<double>{12000}
                                                                         : std::vector<double>{9000, 15000};
      s.sample_rate = 48000;
      s.transition = 1000;
      s.attenuation = attenuation;
      const FilterDesign d = design_filter(s);
      const ResponseFigures f = measure_response(d);
      SCOPED_TRACE(std::string(band_kind_name(band)) + " " + std::to_string(attenuation) + " dB");
      const double margin = s.edges.size() == 1 ? 1.0 : 2.0;
      EXPECT_GE(f.stopband_attenuation_db, attenuation - margin);
      const double deviation = std::pow(10.0, -(attenuation - margin) / 20);
      EXPECT_LE(f.passband_max_db, 20 * std::log10(1 + deviation));
      EXPECT_GE(f.passband_min_db, 20 * std::log10(1 - deviation));
      EXPECT_EQ(f.group_delay, 0.5 * (static_cast<double>(d.taps.size()) - 1));
    }
  }
}

TEST(FilterDesign, FiguresOfTapsThatAreNotLinearPhase) {
  // A two-tap average delayed by one: h = [0, 0.5, 0.5, 0]... is symmetric; [1, 0.5] is not.
  const FilterTaps h = FilterTaps::from_real({1.0, 0.5});
  EXPECT_FALSE(is_linear_phase(h));
  const ResponseFigures f = measure_response(h, 2.0, {{0.0, 0.2}}, {});
  EXPECT_FALSE(f.linear_phase);
  EXPECT_NEAR(f.group_delay, group_delay_at(h, 0.1, 2.0), 1e-15);
  EXPECT_NEAR(group_delay_at(h, 0.0, 2.0), 0.5 / 1.5, 1e-15);  // Σn·h / Σh at DC
  EXPECT_TRUE(std::isnan(f.stopband_attenuation_db));
  EXPECT_NEAR(f.passband_max_db, 20 * std::log10(1.5), 1e-12);  // at DC
  EXPECT_TRUE(is_linear_phase(FilterTaps::from_real({1.0, -2.0, 0.0, 2.0, -1.0})));  // antisymmetric
}

// ---- validation -----------------------------------------------------------------------------

void expect_error(const FilterDesignSpec& s, const std::string& field, const std::string& says) {
  try {
    design_filter(s);
    ADD_FAILURE() << "no error; expected " << field << ": " << says;
  } catch (const FilterDesignError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.reason()).find(says), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()), field + ": " + e.reason());
  }
}

TEST(FilterDesign, SpecValidationNamesTheField) {
  FilterDesignSpec s = lowpass_spec();
  s.sample_rate = 0;
  expect_error(s, "sample_rate", "positive");
  s.sample_rate = std::nan("");
  expect_error(s, "sample_rate", "positive");

  s = lowpass_spec();
  s.edges = {4000};
  expect_error(s, "edges", "between 0 and 4000 Hz");
  s.edges = {0};
  expect_error(s, "edges", "between 0 and 4000 Hz");
  s.edges = {1000, 2000};
  expect_error(s, "edges", "a lowpass takes one cutoff frequency; got 2");
  s.band = BandKind::bandpass;
  s.edges = {2000, 1000};
  expect_error(s, "edges", "must increase");
  s.edges = {1000};
  expect_error(s, "edges", "a bandpass takes two edges");
  s.edges = {1000, INFINITY};
  expect_error(s, "edges", "finite");
  s.band = BandKind::complex_bandpass;
  s.edges = {-5000, 1000};
  expect_error(s, "edges", "within [-4000, 4000]");
  s.edges = {1000, -1000};
  expect_error(s, "edges", "lower edge must be below");
  s.edges = {-4000, 4000};
  expect_error(s, "edges", "narrower than the sample rate");

  s = lowpass_spec();
  s.numtaps = 0;
  expect_error(s, "numtaps", "must be 1..4194304");
  s.numtaps = kMaxDesignTaps + 1;
  expect_error(s, "numtaps", "must be 1..4194304");
  s.band = BandKind::highpass;
  s.numtaps = 100;
  expect_error(s, "numtaps", "must be odd");
  s.band = BandKind::bandpass;
  s.edges = {1000, 2000, 3000};  // the last band reaches fs/2
  expect_error(s, "numtaps", "try 101");

  s = lowpass_spec();
  s.numtaps.reset();
  expect_error(s, "numtaps", "give numtaps, or transition and attenuation");
  s.transition = 100;
  expect_error(s, "attenuation", "give it with transition");
  s.transition.reset();
  s.attenuation = 60;
  expect_error(s, "transition", "give it with attenuation");
  s.transition = 0.001;
  expect_error(s, "transition", "too narrow");
  s.transition = -1;
  expect_error(s, "transition", "between 0 and 4000 Hz");
  s.transition = 100;
  s.attenuation = 7;
  expect_error(s, "attenuation", "8 to 300 dB");
  s.attenuation = 60;
  s.window = WindowSpec{WindowKind::hann};
  expect_error(s, "window", "Kaiser's");
  s.window.reset();
  s.numtaps = 101;
  expect_error(s, "attenuation", "not all three");
  s.transition.reset();
  expect_error(s, "attenuation", "not with numtaps");
}

TEST(FilterDesign, ScipyFunctionsNameTheirParameter) {
  auto field_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const FilterDesignError& e) {
      return e.field();
    }
    return "(no error)";
  };
  EXPECT_EQ(field_of([] { firwin(0, {0.5}); }), "numtaps");
  EXPECT_EQ(field_of([] { firwin(10, {0.5}, {.pass_zero = PassZero::no}); }), "numtaps");
  EXPECT_EQ(field_of([] { firwin(11, {}); }), "cutoff");
  EXPECT_EQ(field_of([] { firwin(11, {std::nan("")}); }), "cutoff");
  EXPECT_EQ(field_of([] { firwin(11, {0.5}, {.fs = -2}); }), "fs");
  EXPECT_EQ(field_of([] { firwin(11, {0.5}, {.width = 0.0}); }), "width");
  EXPECT_EQ(field_of([] { kaiserord(7.9, 0.1); }), "ripple");
  EXPECT_EQ(field_of([] { kaiserord(60, 0.0); }), "width");
  EXPECT_EQ(field_of([] { kaiserord(60, 1e-9); }), "width");
  EXPECT_EQ(field_of([] { complex_bandpass(11, 0.5, 0.2, 2.0); }), "f_high");
  EXPECT_EQ(field_of([] { complex_bandpass(11, -1.5, 0.2, 2.0); }), "f_low");
  EXPECT_EQ(field_of([] { complex_bandpass(0, -0.5, 0.2, 2.0); }), "numtaps");
  // A FilterDesignError is a UsageError (exit 2 on the command line).
  EXPECT_THROW(firwin(0, {0.5}), UsageError);
}

}  // namespace
}  // namespace prism
