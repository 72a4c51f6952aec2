// Tests of the window functions (pipeline/window.cpp): values of every window of scipy 1.10's
// get_window(window, n, fftbins=True and False), from reference vectors checked in under data/
// (made by data/make_window_reference.py), the cases scipy refuses, and the parsing of names
// and parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <fstream>
#include <set>
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

// The tolerance of each family, relative to max(1, |value|): the windows that follow scipy's
// arithmetic step by step agree to an ulp or two; Kaiser's I0 (libstdc++ rather than Cephes),
// chebwin's FFT (FFTW rather than pocketfft), dpss's eigenvector (inverse iteration rather than
// LAPACK) and the sums of taylor differ in the last digits.
double tolerance_of(WindowKind kind) {
  switch (kind) {
    case WindowKind::kaiser:
    case WindowKind::kaiser_bessel_derived:
    case WindowKind::chebwin:
    case WindowKind::dpss:
    case WindowKind::taylor: return 1e-12;
    default: return 1e-15;
  }
}

TEST(Window, MatchesScipyGetWindow) {
  const nlohmann::json reference = load_reference();
  ASSERT_GE(reference["windows"].size(), 800u);
  std::size_t symmetric_count = 0, error_count = 0;
  std::set<WindowKind> kinds;
  for (const auto& entry : reference["windows"]) {
    const std::string text = entry["spec"];
    const std::size_t n = entry["n"];
    const bool symmetric = entry["symmetric"];
    const WindowSymmetry symmetry = symmetric ? WindowSymmetry::symmetric : WindowSymmetry::periodic;
    symmetric_count += symmetric ? 1 : 0;
    const WindowSpec spec = parse_window(text);
    kinds.insert(spec.kind);
    const std::string label = text + (symmetric ? " symmetric" : " periodic") + " n=" + std::to_string(n);
    if (entry.contains("error")) {
      // scipy refuses this one: so does prism, with a usage error that says why.
      ++error_count;
      EXPECT_FALSE(window_problem(spec, n, symmetry).empty()) << label;
      EXPECT_THROW(make_window(spec, n, symmetry), UsageError) << label;
      continue;
    }
    const std::vector<double> expected = entry["values"].get<std::vector<double>>();
    const std::vector<double> w = make_window(spec, n, symmetry);
    ASSERT_EQ(w.size(), n) << label;
    const double tolerance = tolerance_of(spec.kind);
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(w[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i]))) << label << " i=" << i;
  }
  EXPECT_GE(symmetric_count, 400u);
  EXPECT_GE(error_count, 20u);
  EXPECT_EQ(kinds.size(), 25u) << "every window of scipy.signal.get_window";
}

// Long windows agree with scipy too: dpss, chebwin and taylor at a length where their eigenvector,
// FFT and sums have the most room to drift (values from scipy 1.10, get_window(..., 1000)).
// chebwin evaluates cosh(999·acosh(x)), whose condition number near x = 1 is in the thousands:
// an ulp of difference in x (libm against numpy) shows as a few 1e-12 in the window.
TEST(Window, LongDpssAndChebwin) {
  const std::vector<double> dpss = make_window(parse_window("dpss:4"), 1000);
  const std::vector<double> cheb = make_window(parse_window("chebwin:100"), 1000);
  const std::vector<double> taylor = make_window(parse_window("taylor:5:40"), 1000);
  EXPECT_NEAR(dpss[0], 4.6138924319074837e-05, 1e-12);
  EXPECT_NEAR(dpss[250], 0.20782865141041532, 1e-12);
  EXPECT_NEAR(dpss[100], 0.0096889300995922, 1e-12);
  EXPECT_NEAR(cheb[1], 0.0002972667068474858, 1e-11);
  EXPECT_NEAR(cheb[333], 0.5410391373384239, 1e-11);
  EXPECT_NEAR(taylor[0], 0.10998263503415823, 1e-12);
  EXPECT_NEAR(taylor[777], 0.50551090675752, 1e-12);
}

TEST(Window, PeriodicIsTheDefault) {
  const WindowSpec spec{WindowKind::blackman};
  EXPECT_EQ(make_window(spec, 33), make_window(spec, 33, WindowSymmetry::periodic));
  EXPECT_NE(make_window(spec, 33), make_window(spec, 33, WindowSymmetry::symmetric));
}

TEST(Window, SymmetricIsSymmetricAndEndsAtItsEdgeValues) {
  // hann(9, sym=True) is zero at both ends and 1 in the middle; every symmetric window mirrors.
  const std::vector<double> hann = make_window({WindowKind::hann}, 9, WindowSymmetry::symmetric);
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
  const std::vector<double> w = make_window({WindowKind::hann}, 8);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_NEAR(w[4], 1.0, 1e-15);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_NEAR(w[i], w[8 - i], 1e-15);
}

TEST(Window, ShortLengths) {
  EXPECT_TRUE(make_window({WindowKind::hann}, 0).empty());
  EXPECT_EQ(make_window({WindowKind::kaiser, 5}, 1), std::vector<double>{1.0});
}

TEST(Window, ParsesNamesAliasesAndParameters) {
  struct Expect {
    const char* text;
    WindowKind kind;
    std::vector<double> parameters;
  };
  const double none = std::numeric_limits<double>::quiet_NaN();
  const Expect cases[] = {
      {"hann", WindowKind::hann, {}},
      {"Hanning", WindowKind::hann, {}},
      {"blackman-harris", WindowKind::blackmanharris, {}},
      {"flat top", WindowKind::flattop, {}},
      {"rect", WindowKind::boxcar, {}},
      {"ones", WindowKind::boxcar, {}},
      {"tri", WindowKind::triang, {}},
      {"bart", WindowKind::bartlett, {}},
      {"par", WindowKind::parzen, {}},
      {"bmn", WindowKind::bohman, {}},
      {"nut", WindowKind::nuttall, {}},
      {"bth", WindowKind::barthann, {}},
      {"halfcosine", WindowKind::cosine, {}},
      {"sinc", WindowKind::lanczos, {}},
      {"kaiser:8.6", WindowKind::kaiser, {8.6}},
      {"ksr:0", WindowKind::kaiser, {0}},
      {"tukey", WindowKind::tukey, {0.5}},
      {" TUKEY : 1 ", WindowKind::tukey, {1.0}},
      {"exponential", WindowKind::exponential, {none, 1.0}},
      {"poisson:none:3", WindowKind::exponential, {none, 3.0}},
      {"exponential:2.5", WindowKind::exponential, {2.5, 1.0}},
      {"taylor", WindowKind::taylor, {4, 30, 1}},
      {"taylorwin:6:50:false", WindowKind::taylor, {6, 50, 0}},
      {"kbd:4", WindowKind::kaiser_bessel_derived, {4}},
      {"kaiser bessel derived:4", WindowKind::kaiser_bessel_derived, {4}},
      {"gauss:2.5", WindowKind::gaussian, {2.5}},
      {"ggs:1.5:7", WindowKind::general_gaussian, {1.5, 7}},
      {"general_cosine:1:2:3", WindowKind::general_cosine, {1, 2, 3}},
      {"general hamming:0.6", WindowKind::general_hamming, {0.6}},
      {"dpss:3", WindowKind::dpss, {3}},
      {"cheb:100", WindowKind::chebwin, {100}},
  };
  for (const Expect& c : cases) {
    const WindowSpec spec = parse_window(c.text);
    EXPECT_EQ(spec.kind, c.kind) << c.text;
    ASSERT_EQ(spec.parameters.size(), c.parameters.size()) << c.text;
    for (std::size_t i = 0; i < c.parameters.size(); ++i) {
      if (std::isnan(c.parameters[i])) EXPECT_TRUE(std::isnan(spec.parameters[i])) << c.text;
      else EXPECT_EQ(spec.parameters[i], c.parameters[i]) << c.text;
    }
  }
}

TEST(Window, PrintsAndReadsBack) {
  EXPECT_EQ(WindowSpec(WindowKind::kaiser, 8.6).to_string(), "kaiser:8.6");
  EXPECT_EQ(WindowSpec(WindowKind::tukey, 0.25).to_string(), "tukey:0.25");
  EXPECT_EQ(WindowSpec(WindowKind::hann).to_string(), "hann");
  EXPECT_EQ(parse_window("exponential").to_string(), "exponential:none:1");
  EXPECT_EQ(parse_window("taylor").to_string(), "taylor:4:30:true");
  EXPECT_EQ(parse_window("kbd:4").to_string(), "kaiser_bessel_derived:4");
  for (const char* text : {"boxcar", "triang", "hann", "hamming", "blackman", "blackmanharris", "flattop", "bartlett",
                           "parzen", "bohman", "nuttall", "barthann", "cosine", "lanczos", "kaiser:14", "tukey:0.1",
                           "exponential:3:0.5", "taylor:6:50:false", "gaussian:2.5", "general_gaussian:1.5:7",
                           "general_cosine:0.5:0.5", "general_hamming:0.6", "dpss:3", "chebwin:100",
                           "kaiser_bessel_derived:4"})
    EXPECT_EQ(parse_window(text).to_string(), text);
}

TEST(Window, ScipyArgumentIsPython) {
  EXPECT_EQ(parse_window("hann").scipy_argument(), "'hann'");
  EXPECT_EQ(parse_window("kaiser:8.6").scipy_argument(), "('kaiser', 8.6)");
  EXPECT_EQ(parse_window("kaiser:14").scipy_argument(), "('kaiser', 14.0)");
  EXPECT_EQ(parse_window("exponential").scipy_argument(), "('exponential', None, 1.0)");
  EXPECT_EQ(parse_window("taylor:6").scipy_argument(), "('taylor', 6, 30.0, True)");
  EXPECT_EQ(parse_window("general_cosine:0.5:0.5").scipy_argument(), "('general_cosine', [0.5, 0.5])");
  EXPECT_EQ(parse_window("kbd:4").scipy_argument(), "('kbd', 4.0)");
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
      {"gaussian", "needs its std"},
      {"gaussian:0", "must be > 0"},
      {"general_gaussian:2", "needs its sig"},
      {"taylor:0", "whole number"},
      {"taylor:2.5", "whole number"},
      {"taylor:4:30:maybe", "must be a number"},
      {"taylor:4:30:true:1", "at most 3"},
      {"exponential:none:0", "must be > 0"},
      {"dpss", "needs its NW"},
      {"dpss:-1", "must be > 0"},
      {"chebwin", "needs its at"},
      {"general_cosine", "needs its a"},
      {"kbd", "needs its beta"},
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

// Beyond what a double holds (Kaiser's I0 past beta ~713: NaN windows, and std::cyl_bessel_i
// throws far beyond) or what finishes (Taylor's nbar² coefficients): usage errors.
TEST(Window, RefusesKaiserBetaAndTaylorNbarBeyondTheirLimits) {
  for (const char* spec : {"kaiser:701", "kbd:6666666666666.6", "taylor:301", "taylor:588400"}) {
    const std::string problem = window_problem(parse_window(spec), 64, WindowSymmetry::periodic);
    EXPECT_NE(problem.find("must be at most"), std::string::npos) << spec << ": " << problem;
    EXPECT_THROW((void)make_window(parse_window(spec), 64), UsageError) << spec;
  }
  for (const char* spec : {"kaiser:700", "taylor:300"}) {
    const std::vector<double> w = make_window(parse_window(spec), 64);
    for (double v : w) EXPECT_TRUE(std::isfinite(v)) << spec;
  }
}

// What depends on the length: scipy's own refusals, as usage errors.
TEST(Window, RefusesWhatScipyRefusesAtALength) {
  EXPECT_NE(window_problem(parse_window("dpss:8"), 16, WindowSymmetry::periodic).find("less than half"),
            std::string::npos);
  EXPECT_EQ(window_problem(parse_window("dpss:7.9"), 16, WindowSymmetry::periodic), "");
  EXPECT_NE(window_problem(parse_window("kbd:4"), 15, WindowSymmetry::symmetric).find("even lengths"),
            std::string::npos);
  EXPECT_NE(window_problem(parse_window("exponential:3"), 16, WindowSymmetry::symmetric).find("center"),
            std::string::npos);
  EXPECT_EQ(window_problem(parse_window("exponential:3"), 16, WindowSymmetry::periodic), "");
  EXPECT_THROW(make_window(parse_window("kbd:4"), 15), UsageError);
  EXPECT_THROW(make_window(WindowSpec(WindowKind::hann, 1.0), 16), UsageError) << "hann takes no parameter";
}

TEST(Window, HelpListsEveryWindowWithItsParameters) {
  const std::string help = window_names_help();
  for (const char* name : {"boxcar", "triang", "blackman", "hamming", "hann", "bartlett", "flattop", "parzen",
                           "bohman", "blackmanharris", "nuttall", "barthann", "cosine", "exponential[:CENTER[:TAU]]",
                           "tukey[:ALPHA]", "taylor[:NBAR[:SLL[:NORM]]]", "lanczos", "kaiser:BETA",
                           "kaiser_bessel_derived:BETA", "gaussian:STD", "general_gaussian:P:SIG",
                           "general_cosine:A:...", "general_hamming:ALPHA", "dpss:NW", "chebwin:AT"})
    EXPECT_NE(help.find(name), std::string::npos) << name << " in " << help;
}

}  // namespace
}  // namespace prism
