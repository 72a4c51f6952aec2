// prism info: what an input holds (format, channels, rate, centre frequency, length, start).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "apps/commands.hpp"
#include "apps/input_options.hpp"
#include "pipeline/errors.hpp"
#include "sources/input_description.hpp"
#include "sources/open_source.hpp"

namespace prism::app {

namespace {

struct InfoOptions {
  std::string input;
  InputOptions raw;
  bool json = false;
};

// The common fields first, in the order a person reads them; then what the container adds.
void print_text(const nlohmann::json& description) {
  static const char* const kFirst[] = {"input",        "container",      "format",
                                       "channels",     "sample_rate",    "center_frequency",
                                       "length_samples", "duration_s",   "start_time",
                                       "file_size",    "live"};
  auto print = [](const std::string& key, const nlohmann::json& value) {
    // A list of objects (SigMF annotations, retunes): its count, then one line each.
    if (value.is_array() && !value.empty() && value.front().is_object()) {
      std::printf("%-18s %zu\n", (key + ":").c_str(), value.size());
      for (const auto& item : value) std::printf("  %s\n", item.dump().c_str());
      return;
    }
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    std::printf("%-18s %s\n", (key + ":").c_str(), text.c_str());
  };
  for (const char* key : kFirst)
    if (description.contains(key)) print(key, description[key]);
  for (const auto& [key, value] : description.items()) {
    bool shown = false;
    for (const char* first : kFirst) shown = shown || key == first;
    if (!shown) print(key, value);
  }
}

int run_info(const InfoOptions& o) {
  const nlohmann::json description = describe_input(o.input, to_source_options(o.raw));
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
  cmd->add_option("input", o->input, "Input file (WAV/FLAC/OGG, SigMF, raw), gen[:...], audio:[NAME|INDEX], sdr[:ARGS] or zmq:...")->required();
  add_input_options(*cmd, o->raw);
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  return [o] { return run_info(*o); };
}

}  // namespace prism::app
