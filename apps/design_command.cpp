// prism design: designs an FIR filter (pipeline/filter_design.hpp: scipy's firwin and
// kaiserord, or a complex band-pass), prints its figures and the scipy calls that make the same
// taps, writes the taps (.npy, text or JSON) and, with --plot, its response as a PNG.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/filter_design.hpp"
#include "pipeline/taps_file.hpp"
#include "pipeline/window.hpp"
#include "sinks/output_file.hpp"
#include "apps/response_plot.hpp"

namespace prism::app {

namespace {

struct DesignOptions {
  std::optional<std::string> lowpass, highpass, bandpass, bandstop, complex_bandpass;
  std::optional<std::string> rate, numtaps, transition, attenuation, window;
  std::string output, plot;
};

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::optional<double> parse_number(const std::string& text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

double parse_hz(const std::string& option, const std::string& text, const std::string& what) {
  const auto value = parse_number(text);
  if (!value) throw UsageError(option + " '" + text + "': expected " + what);
  return *value;
}

// "F1:F2" -> {F1, F2}.
std::vector<double> parse_edges(const std::string& option, const std::string& text, const std::string& range) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw UsageError(option + " '" + text + "': expected F1:F2 in Hz, " + range);
  const auto low = parse_number(text.substr(0, colon));
  const auto high = parse_number(text.substr(colon + 1));
  if (!low || !high) throw UsageError(option + " '" + text + "': expected F1:F2 in Hz, " + range);
  return {*low, *high};
}

// The option a FilterDesignSpec field came from.
std::string option_for(const std::string& field, const std::string& band_option) {
  if (field == "edges") return band_option;
  if (field == "sample_rate") return "--rate";
  return "--" + field;
}

// The scipy lines that make the same taps: numbers in their shortest text that reads back as the
// same double, so that pasting the lines gives the very taps.
std::string scipy_equivalent(const FilterDesign& d) {
  const FilterDesignSpec& s = d.spec;
  const std::string fs = shortest_decimal(s.sample_rate);
  const std::size_t numtaps = d.taps.size();
  std::string length_line;
  if (!s.numtaps) {
    const KaiserOrder order = kaiserord(*s.attenuation, *s.transition / (s.sample_rate / 2));
    length_line = "numtaps, beta = kaiserord(" + shortest_decimal(*s.attenuation) + ", " +
                  shortest_decimal(*s.transition) + " / (0.5 * " + fs + "))  # " + std::to_string(order.numtaps) +
                  ", " + shortest_decimal(order.beta);
    length_line += "\n";
    if (order.numtaps != numtaps) length_line += "numtaps |= 1  # odd, to pass fs/2\n";
  }
  const std::string n = s.numtaps ? std::to_string(numtaps) : "numtaps";
  const std::string window = s.numtaps && s.transition ? "width=" + shortest_decimal(*s.transition)
                             : s.numtaps                ? "window=" + d.window.scipy_argument()
                                                        : "window=('kaiser', beta)";
  if (s.band == BandKind::complex_bandpass) {
    // Negative edges in parentheses, for the reader.
    auto edge = [](double f) { return f < 0 ? "(" + shortest_decimal(f) + ")" : shortest_decimal(f); };
    const std::string low = edge(s.edges[0]), high = edge(s.edges[1]);
    return length_line + "h = firwin(" + n + ", (" + high + " - " + low + ") / 2, " + window + ", fs=" + fs +
           ") * np.exp(2j * np.pi * ((" + low + " + " + high + ") / 2 / " + fs + ") * (np.arange(" + n +
           ") - (" + n + " - 1) / 2))";
  }
  std::string cutoff;
  if (s.edges.size() == 1) {
    cutoff = shortest_decimal(s.edges[0]);
  } else {
    cutoff = "[";
    for (std::size_t i = 0; i < s.edges.size(); ++i) cutoff += (i ? ", " : "") + shortest_decimal(s.edges[i]);
    cutoff += "]";
  }
  return length_line + "h = firwin(" + n + ", " + cutoff + ", " + window + ", pass_zero='" +
         std::string(band_kind_name(s.band)) + "', fs=" + fs + ")";
}

// "6.25 ms", "312.5 µs", "1.5 s".
std::string seconds_text(double seconds) {
  char text[48];
  if (seconds >= 1 || seconds == 0) std::snprintf(text, sizeof text, "%.6g s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.6g ms", seconds * 1e3);
  else if (seconds >= 1e-6) std::snprintf(text, sizeof text, "%.6g us", seconds * 1e6);
  else std::snprintf(text, sizeof text, "%.6g ns", seconds * 1e9);
  return text;
}

std::string hz(double value) {
  char text[48];
  std::snprintf(text, sizeof text, "%.7g Hz", value);
  return text;
}

std::string bands_text(const std::vector<FrequencyBand>& bands) {
  if (bands.empty()) return "none (the transitions cover it)";
  std::string text;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    char piece[96];
    std::snprintf(piece, sizeof piece, "%s%.7g to %.7g Hz", i ? ", " : "", bands[i].low, bands[i].high);
    text += piece;
  }
  return text;
}

std::string title_of(const FilterDesign& d) {
  const FilterDesignSpec& s = d.spec;
  std::string edges;
  for (std::size_t i = 0; i < s.edges.size(); ++i) edges += (i ? " to " : " ") + hz(s.edges[i]);
  char text[256];
  std::snprintf(text, sizeof text, "%s%s, %zu taps, %s, fs %s", std::string(band_kind_name(s.band)).c_str(),
                edges.c_str(), d.taps.size(), d.window.to_string().c_str(), hz(s.sample_rate).c_str());
  return text;
}

TapsFormat output_format(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  const std::string extension = dot == std::string::npos || (slash != std::string::npos && dot < slash)
                                    ? ""
                                    : lowercase(path.substr(dot));
  if (extension == ".npy") return TapsFormat::npy;
  if (extension == ".json") return TapsFormat::json;
  if (extension == ".txt" || extension == ".csv" || extension == ".dat" || extension == ".taps")
    return TapsFormat::text;
  throw UsageError("-o '" + path + "': the extension picks the format: .npy (float64 or complex128), "
                   ".txt (one tap per line; also .csv, .dat, .taps) or .json");
}

FilterDesignSpec spec_from(const DesignOptions& o, std::string& band_option) {
  FilterDesignSpec spec;
  int bands = 0;
  const std::string single_range = "0 < F < rate/2";
  auto band = [&](const std::optional<std::string>& value, const char* option, BandKind kind) {
    if (!value) return;
    ++bands;
    band_option = option;
    spec.band = kind;
    if (kind == BandKind::lowpass || kind == BandKind::highpass)
      spec.edges = {parse_hz(option, *value, "a frequency in Hz, " + single_range)};
    else if (kind == BandKind::complex_bandpass)
      spec.edges = parse_edges(option, *value, "-rate/2 <= F1 < F2 <= rate/2 (e.g. -3000:500)");
    else
      spec.edges = parse_edges(option, *value, "0 < F1 < F2 < rate/2 (e.g. 300:3400)");
  };
  band(o.lowpass, "--lowpass", BandKind::lowpass);
  band(o.highpass, "--highpass", BandKind::highpass);
  band(o.bandpass, "--bandpass", BandKind::bandpass);
  band(o.bandstop, "--bandstop", BandKind::bandstop);
  band(o.complex_bandpass, "--complex-bandpass", BandKind::complex_bandpass);
  if (bands != 1)
    throw UsageError(std::string(bands == 0 ? "give" : "give only one of") +
                     " --lowpass F, --highpass F, --bandpass F1:F2, --bandstop F1:F2 or --complex-bandpass F1:F2");

  if (!o.rate) throw UsageError("--rate: give the sample rate in Hz (e.g. --rate 48000)");
  spec.sample_rate = parse_hz("--rate", *o.rate, "the sample rate in Hz, a positive number such as 48000 or 2.4e6");

  if (o.numtaps) {
    const std::string range = "1.." + std::to_string(kMaxDesignTaps);
    std::size_t numtaps = 0;
    const std::string& text = *o.numtaps;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), numtaps);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
      throw UsageError("--numtaps '" + text + "': expected a whole number of taps, " + range);
    spec.numtaps = numtaps;
  }
  if (o.transition)
    spec.transition = parse_hz("--transition", *o.transition, "a width in Hz, 0 < W < rate/2");
  if (o.attenuation)
    spec.attenuation = parse_hz("--attenuation", *o.attenuation, "a stopband attenuation in dB, 8..300");
  if (o.window) {
    try {
      spec.window = parse_window(*o.window);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--window: ") + e.what());
    }
  }

  // The ways to give the length, in the command line's words.
  if (!spec.numtaps && spec.transition && !spec.attenuation)
    throw UsageError("--transition: give --attenuation DB with it (Kaiser's formula then chooses the number "
                     "of taps), or --numtaps N");
  if (!spec.numtaps && spec.attenuation && !spec.transition)
    throw UsageError("--attenuation: give --transition W with it (Kaiser's formula then chooses the number "
                     "of taps)");
  if (!spec.numtaps && !(spec.transition && spec.attenuation))
    throw UsageError("give the length: --numtaps N, or --transition W and --attenuation DB "
                     "(Kaiser's formula chooses N)");
  if (spec.numtaps && spec.attenuation)
    throw UsageError("--attenuation goes with --transition instead of --numtaps: Kaiser's formula chooses "
                     "the number of taps from both (--numtaps N --transition W gives a Kaiser window for "
                     "N taps)");
  if (spec.window && spec.transition)
    throw UsageError("--window: with --transition the window is Kaiser's, its beta from the transition" +
                     std::string(spec.attenuation ? " and attenuation" : " and --numtaps") +
                     "; give --numtaps alone to choose a window");
  return spec;
}

int run_design(const DesignOptions& o) {
  std::string band_option;
  const FilterDesignSpec spec = spec_from(o, band_option);
  std::optional<TapsFormat> format;
  if (!o.output.empty()) format = output_format(o.output);
  if (!o.plot.empty()) {
    if (lowercase(o.plot).size() < 4 || lowercase(o.plot).substr(o.plot.size() - 4) != ".png")
      throw UsageError("--plot '" + o.plot + "': the plot is a PNG file; give a name ending in .png");
  }

  FilterDesign design;
  try {
    design = design_filter(spec);
  } catch (const FilterDesignError& e) {
    throw UsageError(option_for(e.field(), band_option) + ": " + e.reason());
  }
  const ResponseFigures figures = measure_response(design);

  // Files first (checked before any is written), then the report.
  if (!o.output.empty()) check_output_path(o.output);
  if (!o.plot.empty()) check_output_path(o.plot);
  const std::string scipy = scipy_equivalent(design);
  if (!o.output.empty()) {
    std::string comment;
    if (*format == TapsFormat::text) comment = title_of(design) + "\nscipy: " + scipy;
    write_file_atomically(o.output, encode_taps(design.taps, *format, comment));
  }
  if (!o.plot.empty()) write_file_atomically(o.plot, render_response_png(design, figures, title_of(design)));

  const FilterDesignSpec& s = design.spec;
  std::printf("%s\n", title_of(design).c_str());
  std::printf("  numtaps            %zu\n", design.taps.size());
  std::printf("  window             %s\n", design.window.to_string().c_str());
  if (design.window.kind == WindowKind::kaiser)
    std::printf("  beta               %s\n", shortest_decimal(design.window.parameters.at(0)).c_str());
  std::printf("  transition         %s (%s)\n", hz(design.transition).c_str(),
              design.transition_from_window ? "the window's main lobe" : "--transition");
  std::printf("  passband           %s\n", bands_text(design.passbands).c_str());
  std::printf("  stopband           %s\n", bands_text(design.stopbands).c_str());
  if (std::isfinite(figures.passband_ripple_db))
    std::printf("  passband ripple    %.4g dB (%+.4g to %+.4g dB)\n", figures.passband_ripple_db,
                figures.passband_min_db, figures.passband_max_db);
  else
    std::printf("  passband ripple    n/a (no passband outside the transitions)\n");
  if (std::isfinite(figures.stopband_attenuation_db))
    std::printf("  stopband atten.    %.2f dB\n", figures.stopband_attenuation_db);
  else
    std::printf("  stopband atten.    n/a (no stopband outside the transitions)\n");
  std::printf("  group delay        %s samples (%s)\n", shortest_decimal(design.group_delay).c_str(),
              seconds_text(design.group_delay / s.sample_rate).c_str());
  std::printf("scipy.signal equivalent:\n");
  std::size_t start = 0;
  while (start < scipy.size()) {
    std::size_t end = scipy.find('\n', start);
    if (end == std::string::npos) end = scipy.size();
    std::printf("  %s\n", scipy.substr(start, end - start).c_str());
    start = end + 1;
  }
  if (!o.output.empty())
    std::printf("wrote %s: %zu %s taps (%s)\n", o.output.c_str(), design.taps.size(),
                design.taps.is_complex ? "complex" : "real",
                *format == TapsFormat::npy ? (design.taps.is_complex ? "complex128" : "float64")
                : *format == TapsFormat::json ? "JSON" : "text");
  if (!o.plot.empty()) std::printf("wrote %s\n", o.plot.c_str());
  return kExitOk;
}

}  // namespace

Runner add_design_command(CLI::App& app) {
  auto o = std::make_shared<DesignOptions>();
  CLI::App* cmd = app.add_subcommand(
      "design",
      "Design an FIR filter by the window method (scipy.signal.firwin and kaiserord, in double "
      "precision), print its response figures, write its taps and plot its response.");
  cmd->footer(
      "The band (one of them), frequencies in Hz:\n"
      "  --lowpass F, --highpass F        0 < F < rate/2\n"
      "  --bandpass F1:F2, --bandstop F1:F2   0 < F1 < F2 < rate/2\n"
      "  --complex-bandpass F1:F2         complex taps passing F1..F2 only, -rate/2 <= F1 < F2 <= rate/2 "
      "(either may be negative: one sideband, an off-centre channel). A real low-pass of cutoff (F2-F1)/2 "
      "shifted to the band's centre: h[n] = p[n]·exp(j2π·fc/rate·(n-(N-1)/2)), fc = (F1+F2)/2.\n"
      "The length, one of:\n"
      "  --numtaps N [--window W]         N taps (1.." + std::to_string(kMaxDesignTaps) + ", odd when the "
      "band passes rate/2: highpass, bandstop), window W (default hamming, firwin's)\n"
      "  --transition W --attenuation DB  Kaiser's formula (kaiserord) chooses N and the Kaiser beta for DB "
      "dB (8..300) of stopband attenuation and passband ripple with transitions W Hz wide (0 < W < "
      "rate/2), centred on each edge\n"
      "  --numtaps N --transition W       N taps, a Kaiser window whose beta suits W (firwin's width=)\n"
      "Windows: " + window_names_help() + ".\n"
      "Printed: numtaps, the window (beta for Kaiser), the transition width the figures leave out "
      "around each edge (--transition, else the window's main lobe), the passband and stopband, "
      "the passband ripple (peak to peak of 20·log10|H|) and the stopband attenuation (-20·log10 of "
      "the largest |H| there) over them, the group delay ((N-1)/2 samples: the taps are linear-phase), "
      "and the scipy.signal calls that make the same taps (equal to 1e-12).\n"
      "-o writes the taps: .npy (float64, or complex128), .txt (one per line; complex as (re+imj), "
      "numpy.loadtxt reads it), .json ([...] or [[re, im], ...]). --plot draws |H(f)| in dB to a PNG.\n"
      "Examples:\n"
      "  prism design --lowpass 3000 --rate 48000 --numtaps 101 -o lowpass.npy\n"
      "  prism design --lowpass 3000 --rate 48000 --transition 500 --attenuation 80 --plot lowpass.png\n"
      "  prism design --bandpass 300:3400 --rate 8000 --numtaps 255 --window blackman -o voice.txt\n"
      "  prism design --highpass 100 --rate 44100 --numtaps 1001 --window kaiser:8.6\n"
      "  prism design --complex-bandpass -12e3:-2e3 --rate 2.4e6 --transition 1e3 --attenuation 70 -o lsb.npy\n"
      "Exit codes: 0 done, 1 an output file cannot be written, 2 usage error.");
  const std::string band_group = "Band (one of them, Hz)";
  cmd->add_option("--lowpass", o->lowpass, "Low-pass: passes 0..F")->group(band_group)->option_text("F");
  cmd->add_option("--highpass", o->highpass, "High-pass: passes F..rate/2")->group(band_group)->option_text("F");
  cmd->add_option("--bandpass", o->bandpass, "Band-pass: passes F1..F2")->group(band_group)->option_text("F1:F2");
  cmd->add_option("--bandstop", o->bandstop, "Band-stop: stops F1..F2")->group(band_group)->option_text("F1:F2");
  cmd->add_option("--complex-bandpass", o->complex_bandpass,
                  "Complex band-pass: passes F1..F2 of a complex signal, nothing at -F2..-F1")
      ->group(band_group)
      ->option_text("F1:F2");
  cmd->add_option("--rate", o->rate, "Sample rate, Hz (required)")->option_text("FS");
  cmd->add_option("--numtaps", o->numtaps, "Number of taps [1.." + std::to_string(kMaxDesignTaps) + "]")->option_text("N");
  cmd->add_option("--transition", o->transition, "Transition width around each edge, Hz")->option_text("W");
  cmd->add_option("--attenuation", o->attenuation, "Stopband attenuation (and passband ripple) to reach, dB")
      ->option_text("DB");
  cmd->add_option("--window", o->window, "Window for --numtaps designs [default: hamming]")->option_text("NAME[:P]");
  cmd->add_option("-o,--output", o->output, "Write the taps: .npy, .txt or .json")->option_text("FILE");
  cmd->add_option("--plot", o->plot, "Draw |H(f)| in dB into this PNG")->option_text("FILE.png");
  return [o] { return run_design(*o); };
}

}  // namespace prism::app
