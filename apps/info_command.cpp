// prism info: what an input holds (format, channels, rate, centre frequency, length, start).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "apps/commands.hpp"
#include "pipeline/errors.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct InfoOptions {
  std::string input;
  std::string format;
  std::optional<double> rate;
  unsigned channels = 1;
  double center_frequency = 0.0;
  bool json = false;
};

void print_text(const nlohmann::json& description) {
  for (const auto& [key, value] : description.items()) {
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    std::printf("%-18s %s\n", (key + ":").c_str(), text.c_str());
  }
}

int run_info(const InfoOptions& o) {
  SourceOptions options;
  if (!o.format.empty()) {
    const auto format = parse_format(o.format);
    if (!format)
      throw UsageError("--format '" + o.format + "' is unknown (known: " + format_names_help() + ")");
    options.format = *format;
  }
  options.sample_rate = o.rate;
  options.channels = o.channels;
  options.center_frequency = o.center_frequency;
  const nlohmann::json description = describe_input(o.input, options);
  if (o.json) std::printf("%s\n", description.dump(2).c_str());
  else print_text(description);
  return kExitOk;
}

}  // namespace

Runner add_info_command(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Describe what an input holds: container, sample format, channels, sample rate, "
              "centre frequency, length and start time.");
  cmd->add_option("input", o->input, "Input file (WAV/FLAC/OGG, SigMF, raw) or gen[:...]")->required();
  cmd->add_option("--format", o->format, "Sample format of raw input: " + format_names_help());
  cmd->add_option("--rate", o->rate, "Sample rate of raw input, Hz");
  cmd->add_option("--channels", o->channels, "Interleaved channels of raw input")->capture_default_str();
  cmd->add_option("--center-freq", o->center_frequency, "Centre frequency, Hz: labels raw input, or relabels any input");
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  return [o] { return run_info(*o); };
}

}  // namespace prism::app
