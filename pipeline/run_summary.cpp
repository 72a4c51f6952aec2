// Formats a RunReport as the text summary printed after a run, and as JSON.
#include "pipeline/run_summary.hpp"

#include <cstdio>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

namespace prism {

std::string format_bytes(std::size_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(text, sizeof text, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024) std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0) std::snprintf(text, sizeof text, "%.0f KiB", b / 1024.0);
  else std::snprintf(text, sizeof text, "%zu B", bytes);
  return text;
}

std::string format_count(double value) {
  char text[32];
  if (value >= 1e9) std::snprintf(text, sizeof text, "%.2f G", value / 1e9);
  else if (value >= 1e6) std::snprintf(text, sizeof text, "%.2f M", value / 1e6);
  else if (value >= 1e3) std::snprintf(text, sizeof text, "%.1f k", value / 1e3);
  else std::snprintf(text, sizeof text, "%.0f ", value);
  return text;
}

namespace {
const char* outcome_name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::completed: return "completed";
    case RunOutcome::interrupted: return "interrupted";
    case RunOutcome::failed: return "failed";
  }
  return "?";
}

const char* role_name(NodeRole role) {
  switch (role) {
    case NodeRole::source: return "source";
    case NodeRole::stage: return "stage";
    case NodeRole::transfer: return "transfer";
    case NodeRole::sink: return "output";
  }
  return "?";
}

// "samples" or "rows", for the items of a port.
std::string items_name(const std::optional<PortKind>& kind) {
  return kind ? port_kind_name(*kind) : "items";
}

// "frames 1875, tail samples 32"
std::string extras_text(const std::vector<Counter>& extras) {
  std::string text;
  for (const Counter& c : extras) text += (text.empty() ? "" : ", ") + c.name + " " + std::to_string(c.value);
  return text;
}

std::string json_key(std::string name) {
  for (char& c : name)
    if (c == ' ' || c == '-') c = '_';
  return name;
}

// A failed run removes its outputs (Sink::abort), unless a live input's failure kept them.
bool outputs_removed(const RunReport& r) {
  return r.outcome == RunOutcome::failed && !r.outputs_kept_incomplete;
}

}  // namespace

std::string format_run_summary(const RunReport& r) {
  std::ostringstream out;
  char line[256];
  auto label = [&](const std::string& name) {
    out << "  " << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ');
  };
  std::snprintf(line, sizeof line, "run %s in %.3f s", outcome_name(r.outcome), r.elapsed_seconds);
  out << line << "\n";
  if (!r.error.empty()) {
    label("error");
    out << r.error << "\n";
  }
  const StreamInfo& s = r.stream;
  for (const NodeReport& n : r.nodes) {
    switch (n.role) {
      case NodeRole::source:
        label("input");
        out << n.description << ": " << format_name(s.format) << ", " << s.channels
            << (s.channels == 1 ? " channel, " : " channels, ") << s.sample_rate << " Hz";
        if (s.center_frequency != 0.0) out << ", centre " << s.center_frequency << " Hz";
        out << "\n";
        label("samples");
        out << r.samples_read << " read, " << r.samples_dropped << " dropped (overruns)";
        if (r.overflows_of_unknown_length != 0)
          out << ", and the device lost samples " << r.overflows_of_unknown_length
              << " time(s) without saying how many";
        out << "\n";
        break;
      case NodeRole::stage:
      case NodeRole::transfer: {
        label(n.name);
        out << n.description << "\n";
        label("");
        out << n.counters.items_in << " " << items_name(n.input_kind) << " in, " << n.counters.items_out << " "
            << items_name(n.output_kind) << " out";
        const std::string extras = extras_text(n.counters.extras);
        if (!extras.empty()) out << "; " << extras;
        out << "\n";
        break;
      }
      case NodeRole::sink: {
        label("output");
        if (outputs_removed(r)) {
          out << n.description << ": removed, as the run failed (" << n.counters.items_out << " "
              << items_name(n.input_kind) << " not kept)";
        } else {
          out << n.description << ": " << n.counters.items_out << " " << items_name(n.input_kind) << " written";
        }
        const std::string extras = extras_text(n.counters.extras);
        if (!extras.empty()) out << " (" << extras << ")";
        out << "\n";
        break;
      }
    }
  }
  if (r.elapsed_seconds > 0 && s.sample_rate > 0) {
    const double rate = static_cast<double>(r.samples_read) / r.elapsed_seconds;
    std::snprintf(line, sizeof line, "%ssamples/s (%.1f× real time)", format_count(rate).c_str(),
                  rate / s.sample_rate);
    label("speed");
    out << line << "\n";
  }
  label("memory");
  out << "chunk pools " << format_bytes(r.host_pool_bytes) << " host";
  if (r.device_pool_bytes != 0) out << " + " << format_bytes(r.device_pool_bytes) << " device";
  out << ", peak resident " << format_bytes(r.peak_rss_bytes) << "\n";
  const std::string mismatch = r.accounting_mismatch();
  label("accounting");
  out << (mismatch.empty() ? "balanced" : "MISMATCH: " + mismatch) << "\n";
  return out.str();
}

std::string run_summary_json(const RunReport& r) {
  nlohmann::json stages = nlohmann::json::array();
  nlohmann::json outputs = nlohmann::json::array();
  for (const NodeReport& n : r.nodes) {
    nlohmann::json entry = {{"name", n.name}, {"role", role_name(n.role)}, {"description", n.description}};
    if (n.input) entry["input"] = *n.input;
    if (n.input_kind) entry["input_kind"] = port_kind_name(*n.input_kind);
    if (n.output_kind) entry["output_kind"] = port_kind_name(*n.output_kind);
    entry["items_delivered"] = n.items_delivered;
    if (n.role == NodeRole::sink) {
      entry["items_written"] = outputs_removed(r) ? 0 : n.counters.items_out;
      entry["kept"] = !outputs_removed(r);
    } else {
      entry["items_in"] = n.counters.items_in;
      entry["items_out"] = n.counters.items_out;
    }
    for (const Counter& c : n.counters.extras) entry[json_key(c.name)] = c.value;
    (n.role == NodeRole::sink ? outputs : stages).push_back(std::move(entry));
  }
  const nlohmann::json summary = {
      {"outcome", outcome_name(r.outcome)},
      {"error", r.error},
      {"outputs_kept_incomplete", r.outputs_kept_incomplete},
      {"input",
       {{"description", r.nodes.empty() ? std::string() : r.nodes.front().description},
        {"format", std::string(format_name(r.stream.format))},
        {"channels", r.stream.channels},
        {"sample_rate", r.stream.sample_rate},
        {"center_frequency", r.stream.center_frequency}}},
      {"samples_read", r.samples_read},
      {"samples_dropped", r.samples_dropped},
      {"overflows_of_unknown_length", r.overflows_of_unknown_length},
      {"chunks", r.chunks},
      {"stages", stages},
      {"outputs", outputs},
      {"elapsed_seconds", r.elapsed_seconds},
      {"host_pool_bytes", r.host_pool_bytes},
      {"device_pool_bytes", r.device_pool_bytes},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"accounting", r.accounting_mismatch().empty() ? "balanced" : r.accounting_mismatch()},
  };
  return summary.dump(2);
}

}  // namespace prism
