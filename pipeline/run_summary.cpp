// Formats a RunReport as the text summary printed after a run, and as JSON.
#include "pipeline/run_summary.hpp"

#include <cstdio>
#include <sstream>

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
}  // namespace

std::string format_run_summary(const RunReport& r) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "run %s in %.3f s", outcome_name(r.outcome), r.elapsed_seconds);
  out << line << "\n";
  if (!r.error.empty()) out << "  error      " << r.error << "\n";
  const StreamInfo& s = r.stream;
  out << "  input      " << r.source_description << ": " << format_name(s.format) << ", "
      << s.channels << (s.channels == 1 ? " channel, " : " channels, ") << s.sample_rate << " Hz";
  if (s.center_frequency != 0.0) out << ", centre " << s.center_frequency << " Hz";
  out << "\n";
  out << "  processor  " << r.processor_description << "\n";
  const ProcessorCounters& p = r.processor;
  out << "  samples    " << r.samples_read << " read, " << p.samples_in << " processed, "
      << p.tail_samples << " in the tail (fill no frame), " << r.samples_dropped
      << " dropped (overruns)";
  if (r.overflows_of_unknown_length != 0)
    out << ", and the device lost samples " << r.overflows_of_unknown_length
        << " time(s) without saying how many";
  out << "\n";
  out << "  frames     " << p.frames << " computed, " << p.rows_out << " rows out";
  if (p.frames_unaveraged != 0)
    out << ", " << p.frames_unaveraged << " trailing frames fill no complete average (not output)";
  out << "\n";
  for (const SinkReport& sink : r.sinks)
    out << "  output     " << sink.description << ": " << sink.rows_written << " rows written\n";
  if (r.elapsed_seconds > 0 && s.sample_rate > 0) {
    const double rate = static_cast<double>(p.samples_in) / r.elapsed_seconds;
    std::snprintf(line, sizeof line, "  speed      %ssamples/s (%.1f× real time)",
                  format_count(rate).c_str(), rate / s.sample_rate);
    out << line << "\n";
  }
  out << "  memory     blocks " << format_bytes(r.pool_bytes) << ", rows "
      << format_bytes(r.row_buffer_bytes) << ", peak resident " << format_bytes(r.peak_rss_bytes)
      << "\n";
  const std::string mismatch = r.accounting_mismatch();
  out << "  accounting " << (mismatch.empty() ? "balanced" : "MISMATCH: " + mismatch) << "\n";
  return out.str();
}

nlohmann::json run_summary_json(const RunReport& r) {
  nlohmann::json sinks = nlohmann::json::array();
  for (const SinkReport& sink : r.sinks)
    sinks.push_back({{"output", sink.description},
                     {"rows_in", sink.rows_in},
                     {"rows_written", sink.rows_written}});
  return {
      {"outcome", outcome_name(r.outcome)},
      {"error", r.error},
      {"outputs_kept_incomplete", r.outputs_kept_incomplete},
      {"input",
       {{"description", r.source_description},
        {"format", std::string(format_name(r.stream.format))},
        {"channels", r.stream.channels},
        {"sample_rate", r.stream.sample_rate},
        {"center_frequency", r.stream.center_frequency}}},
      {"processor", r.processor_description},
      {"samples_read", r.samples_read},
      {"samples_dropped", r.samples_dropped},
      {"overflows_of_unknown_length", r.overflows_of_unknown_length},
      {"samples_processed", r.processor.samples_in},
      {"tail_samples", r.processor.tail_samples},
      {"blocks", r.blocks},
      {"frames", r.processor.frames},
      {"rows_out", r.processor.rows_out},
      {"frames_unaveraged", r.processor.frames_unaveraged},
      {"sinks", sinks},
      {"elapsed_seconds", r.elapsed_seconds},
      {"pool_bytes", r.pool_bytes},
      {"row_buffer_bytes", r.row_buffer_bytes},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"accounting", r.accounting_mismatch().empty() ? "balanced" : r.accounting_mismatch()},
  };
}

}  // namespace prism
