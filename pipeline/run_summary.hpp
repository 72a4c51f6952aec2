// The run summary: what a run read, computed, wrote and dropped, how fast, and in how much
// memory — as text for people and as JSON for scripts and tests.
#pragma once

#include <string>

#include "graph.hpp"

namespace prism {

// Multi-line, human-readable; the first line says how the run ended, then the input, every stage
// (its description, items in and out, its own counts), every output, speed, memory, accounting.
std::string format_run_summary(const RunReport& report);

// The same as the text of a JSON object (indented by 2), what --summary-json writes:
// {"samples_read": ..., "stages": [...], "outputs": [...], "accounting": "balanced", ...}.
std::string run_summary_json(const RunReport& report);

// "1.5 MiB", "230 KiB".
std::string format_bytes(std::size_t bytes);
// "12.3 M", "870 k" (for rates).
std::string format_count(double value);

}  // namespace prism
