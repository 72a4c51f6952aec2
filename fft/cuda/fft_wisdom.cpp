// FFT wisdom (fft_wisdom.hpp): the keys, the tuning candidates, the JSON file (parse, atomic
// save, locked merge) and the cached plan-time lookup.
//
// Contents:
//   1. keys and names      DeviceId, WisdomKey, batch_class, transform_name, describe
//   2. candidates          planner_candidates
//   3. the JSON format     Wisdom::parse, Wisdom::to_text
//   4. the store           record, merge, find, find_nearest
//   5. the file            default_wisdom_path, load, save, update_wisdom_file
//   6. plan-time lookup    lookup_planner_options
#include "fft/cuda/fft_wisdom.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace prism::fft::gpu {

using json = nlohmann::json;

// A field added to PlannerOptions must be written and read in the wisdom file
// (options_to_json / options_from_json), compared in same_options and varied in
// planner_candidates (or, as direct_dft, say there why not); this fails to compile until then.
static_assert(sizeof(PlannerOptions) == 11 * sizeof(int),
              "PlannerOptions changed: update fft_wisdom.cpp (file format, comparison, candidates)");

namespace {

constexpr const char* kFormatName = "prism-fft-wisdom";
constexpr int kFormatVersion = 1;

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

// ---- 1. keys and names -------------------------------------------------------------------

bool operator==(const DeviceId& a, const DeviceId& b) {
  return a.name == b.name && a.major == b.major && a.minor == b.minor;
}
bool operator!=(const DeviceId& a, const DeviceId& b) { return !(a == b); }

std::string describe(const DeviceId& device) {
  return device.name + " (compute capability " + std::to_string(device.major) + "." +
         std::to_string(device.minor) + ")";
}

bool operator==(const WisdomKey& a, const WisdomKey& b) {
  return a.device == b.device && a.transform == b.transform && a.n == b.n &&
         a.batch_class == b.batch_class;
}

int batch_class(const PlanSpec& spec) {
  const std::size_t n = std::max<std::size_t>(spec.n, 1);
  const std::size_t batch = std::max<std::size_t>(spec.batch, 1);
  // Saturates instead of overflowing: every such size is "the device is full" anyway.
  const std::size_t points = batch > SIZE_MAX / n ? SIZE_MAX : n * batch;
  int log2_points = 0;
  for (std::size_t p = points; p > 1; p >>= 1) ++log2_points;
  return log2_points / 2;
}

WisdomKey wisdom_key(const DeviceId& device, const PlanSpec& spec) {
  WisdomKey key;
  key.device = device;
  key.transform = spec.transform;
  key.n = spec.n;
  key.batch_class = batch_class(spec);
  return key;
}

std::string_view transform_name(Transform transform) {
  switch (transform) {
    case Transform::c2c_forward: return "c2c_forward";
    case Transform::c2c_inverse: return "c2c_inverse";
    case Transform::r2c: return "r2c";
    case Transform::c2r: return "c2r";
  }
  return "?";
}

bool same_options(const PlannerOptions& a, const PlannerOptions& b) {
  return a.single_elements_per_block == b.single_elements_per_block &&
         a.column_elements_per_block == b.column_elements_per_block &&
         a.row_elements_per_block == b.row_elements_per_block &&
         a.cluster_block_length == b.cluster_block_length &&
         a.bluestein_length == b.bluestein_length &&
         a.rows_elements_per_thread == b.rows_elements_per_thread && a.direct_dft == b.direct_dft &&
         a.prime_stages == b.prime_stages && a.full_length_c2r == b.full_length_c2r &&
         a.rader == b.rader && a.four_step_columns == b.four_step_columns;
}

std::string describe(const PlannerOptions& options) {
  return "single " + std::to_string(options.single_elements_per_block) + ", column " +
         std::to_string(options.column_elements_per_block) + ", row " +
         std::to_string(options.row_elements_per_block) + ", cluster " +
         (options.cluster_block_length == 0 ? std::string("off")
                                            : std::to_string(options.cluster_block_length)) +
         (options.bluestein_length == 0 ? std::string()
                                        : ", bluestein m " + std::to_string(options.bluestein_length)) +
         (options.rows_elements_per_thread == 0
              ? std::string()
              : ", rows " + std::to_string(options.rows_elements_per_thread) + " per thread") +
         (options.direct_dft == 0 ? std::string() : options.direct_dft > 0 ? ", direct DFT" : ", no direct DFT") +
         (options.prime_stages == 0 ? ", no prime stages" : "") +
         (options.full_length_c2r == 0 ? std::string()
          : options.full_length_c2r > 0 ? ", full-length c2r" : ", no full-length c2r") +
         (options.rader == 0 ? std::string() : options.rader > 0 ? ", rader" : ", no rader") +
         (options.four_step_columns == 0
              ? std::string()
              : ", four-step columns " + std::to_string(options.four_step_columns));
}

// ---- 2. candidates -----------------------------------------------------------------------

namespace {

// What the options can change in a plan: the blocking of each pass, and the passes and their
// radices (cluster passes, Bluestein's length). Equal signatures launch the same kernels.
std::string layout_signature(const PlanLayout& layout) {
  std::ostringstream signature;
  signature << layout.algorithm;
  for (const Step& step : layout.steps) {
    const PassDesc& p = step.pass;
    signature << '|' << static_cast<int>(step.kind) << ':' << p.n << ',' << p.per_block << ','
              << p.threads << ',' << p.rows_elements_per_thread << ',' << p.smem_stride << ','
              << p.smem_elems << ',';
    for (int s = 0; s < p.num_stages; ++s) signature << p.stages[s].radix << 'x';
    signature << ',' << step.rows.h << ',' << step.cluster.cluster;
  }
  return signature.str();
}

}  // namespace

// Convolution lengths of a Bluestein plan the tuning mode measures, the estimate's first.
constexpr std::size_t kBluesteinCandidates = 6;

std::vector<PlannerOptions> planner_candidates(const PlanSpec& spec) {
  // Elements per block: fewer transforms per block give more blocks (small batches fill the
  // device), more give fewer, larger blocks (fewer launches' worth of tails and index math).
  // They size the blocks of the pass kernel and the plain rows kernel, so these take the rows
  // at 16 per thread: the decimal lengths' rows then run on the plain rows kernel too.
  std::vector<PlannerOptions> variations{PlannerOptions{}};
  for (int single : {1024, 2048, 4096, 8192, 16384}) {
    PlannerOptions o;
    o.single_elements_per_block = single;
    o.rows_elements_per_thread = kElementsPerThread;
    variations.push_back(o);
  }
  for (int column : {2048, 4096, 8192, 16384}) {
    for (int row : {2048, 4096, 8192, 16384}) {
      PlannerOptions o;
      o.column_elements_per_block = column;
      o.row_elements_per_block = row;
      variations.push_back(o);
    }
  }
  // The rows kernel's teams at either width (rows of 8192), and the decimal teams against the
  // plain rows kernel (rows of 500 and 1000: 16 per thread).
  for (int elements : {kElementsPerThread, kWideTeamElements, kDecimalTeamElements}) {
    PlannerOptions o;
    o.rows_elements_per_thread = elements;
    variations.push_back(o);
  }
  // Cluster passes of either block length, or the four-step instead.
  for (int cluster : {0, 8192, 16384}) {
    PlannerOptions o;
    o.cluster_block_length = cluster;
    variations.push_back(o);
  }
  // The direct DFT (PlannerOptions::direct_dft) is not varied: the planner's rule takes it for
  // its accuracy where an FFT would be less accurate than cuFFT, and speed alone must not undo
  // that.
  // Nor are the prime stages (PlannerOptions::prime_stages), for the same reason: Bluestein is
  // faster for some of their lengths but less accurate than cuFFT. Nor the full-length c2r
  // (PlannerOptions::full_length_c2r), which the rule takes where the half length's error was
  // above 1.1x cuFFT's.
  // Rader's algorithm where it can take the length (PlannerOptions::rader; a Bluestein length
  // below sets Bluestein).
  if (can_take_rader(static_cast<long long>(spec.n))) {
    PlannerOptions o;
    o.rader = 1;
    variations.push_back(o);
  }
  // Bluestein's convolution length: the estimate's next cheapest. A plan with Bluestein
  // transforms spec.n with it (the real kinds too: two real rows per complex transform), and
  // only lengths that are not direct take it.
  if (!is_direct_length(static_cast<long long>(spec.n))) {
    for (long long m : bluestein_lengths(static_cast<long long>(spec.n), kBluesteinCandidates)) {
      PlannerOptions o;
      o.bluestein_length = static_cast<int>(m);
      variations.push_back(o);
    }
  }
  // The radix order across the passes: every four-step split whose sides have compiled kernels
  // (of the complex length, the half length of an even real transform), at the default blocking.
  for (int columns : four_step_column_candidates(planner_complex_length(spec))) {
    PlannerOptions o;
    o.four_step_columns = columns;
    variations.push_back(o);
  }
  std::vector<PlannerOptions> candidates;
  std::vector<std::string> signatures;
  for (const PlannerOptions& options : variations) {
    const bool listed = std::any_of(candidates.begin(), candidates.end(), [&](const PlannerOptions& c) {
      return same_options(c, options);
    });
    if (listed) continue;
    std::string signature = layout_signature(make_plan_layout(spec, options));
    if (std::find(signatures.begin(), signatures.end(), signature) != signatures.end()) continue;
    signatures.push_back(std::move(signature));
    candidates.push_back(options);
  }
  return candidates;
}

// ---- 3. the JSON format ------------------------------------------------------------------
//
// {"format": "prism-fft-wisdom", "version": 1, "entries": [
//   {"device": "NVIDIA H200", "compute_capability": "9.0", "transform": "r2c", "n": 4096,
//    "batch_class": 12, "batch": 4096,
//    "best": {"single_elements_per_block": 8192, ...}, "best_ms": 0.051, "default_ms": 0.057,
//    "candidates": [{"options": {...}, "median_ms": 0.057},
//                   {"options": {...}, "rejected": "output differs from the default plan's ..."}],
//    "tuned_at": "2025-01-31T12:00:00Z", "prism_version": "0.1.0", "tune_seconds": 1.5}]}
// Options at their defaults are left out: "four_step_columns", "direct_dft", "prime_stages",
// "full_length_c2r", "rader".

namespace {

// A malformed file; the caller adds the path.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

json options_to_json(const PlannerOptions& o) {
  json j{{"single_elements_per_block", o.single_elements_per_block},
         {"column_elements_per_block", o.column_elements_per_block},
         {"row_elements_per_block", o.row_elements_per_block},
         {"cluster_block_length", o.cluster_block_length},
         {"bluestein_length", o.bluestein_length},
         {"rows_elements_per_thread", o.rows_elements_per_thread}};
  // Written where set (by hand, or the tuning mode's Rader), so that files stay as they were.
  if (o.direct_dft != 0) j["direct_dft"] = o.direct_dft;
  if (o.prime_stages != 1) j["prime_stages"] = o.prime_stages;
  if (o.full_length_c2r != 0) j["full_length_c2r"] = o.full_length_c2r;
  if (o.rader != 0) j["rader"] = o.rader;
  if (o.four_step_columns != 0) j["four_step_columns"] = o.four_step_columns;
  return j;
}

long long positive_integer(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) throw FormatError(where + ": \"" + key + "\" is missing");
  if (!found->is_number_integer() || found->get<long long>() < 1) {
    throw FormatError(where + ": \"" + key + "\" must be a positive integer, not " + found->dump());
  }
  return found->get<long long>();
}

double milliseconds(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) throw FormatError(where + ": \"" + key + "\" is missing");
  if (!found->is_number() || !(found->get<double>() >= 0.0)) {
    throw FormatError(where + ": \"" + key + "\" must be a time in ms >= 0, not " + found->dump());
  }
  return found->get<double>();
}

std::string text_field(const json& object, const char* key, const std::string& where,
                       bool required) {
  const auto found = object.find(key);
  if (found == object.end()) {
    if (required) throw FormatError(where + ": \"" + key + "\" is missing");
    return {};
  }
  if (!found->is_string()) throw FormatError(where + ": \"" + key + "\" must be a string");
  return found->get<std::string>();
}

const json& object_field(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) throw FormatError(where + ": \"" + key + "\" is missing");
  if (!found->is_object()) throw FormatError(where + ": \"" + key + "\" must be an object");
  return *found;
}

// Fields absent from the file keep their defaults, so that files written before an option
// existed still load.
PlannerOptions options_from_json(const json& j, const std::string& where) {
  PlannerOptions o;
  auto field = [&](const char* key, int& value) {
    if (!j.contains(key)) return;
    const long long v = positive_integer(j, key, where);
    if (v > (1 << 30)) throw FormatError(where + ": \"" + key + "\" is out of range");
    value = static_cast<int>(v);
  };
  field("single_elements_per_block", o.single_elements_per_block);
  field("column_elements_per_block", o.column_elements_per_block);
  field("row_elements_per_block", o.row_elements_per_block);
  if (j.contains("cluster_block_length")) {
    const json& value = j["cluster_block_length"];
    const bool known = value.is_number_integer() &&
                       (value.get<long long>() == 0 ||
                        std::find(std::begin(kClusterBlockLengths), std::end(kClusterBlockLengths),
                                  value.get<long long>()) != std::end(kClusterBlockLengths));
    if (!known) {
      throw FormatError(where + ": \"cluster_block_length\" must be 0 (off), 8192 or 16384, not " +
                        value.dump());
    }
    o.cluster_block_length = value.get<int>();
  }
  if (j.contains("bluestein_length")) {
    const json& value = j["bluestein_length"];
    if (!value.is_number_integer() || value.get<long long>() < 0 ||
        value.get<long long>() > 2 * kMaxPlannedLength) {
      throw FormatError(where + ": \"bluestein_length\" must be 0 (the planner's estimate) or a " +
                        "convolution length up to " + std::to_string(2 * kMaxPlannedLength) +
                        ", not " + value.dump());
    }
    o.bluestein_length = value.get<int>();
  }
  if (j.contains("rows_elements_per_thread")) {
    const json& value = j["rows_elements_per_thread"];
    if (!value.is_number_integer() || !known_rows_elements_per_thread(value.get<long long>())) {
      throw FormatError(where + ": \"rows_elements_per_thread\" must be " + kRowsElementsPerThreadChoices +
                        ", not " + value.dump());
    }
    o.rows_elements_per_thread = value.get<int>();
  }
  // The rule-or-override options, set by hand: 0 (the planner's rule), 1 (wherever it can), -1 (never).
  const auto rule_option = [&](const char* key, int& field) {
    if (!j.contains(key)) return;
    const json& value = j[key];
    if (!value.is_number_integer() || value.get<long long>() < -1 || value.get<long long>() > 1) {
      throw FormatError(where + ": \"" + key + "\" must be 0 (the planner's rule), 1 (wherever it can) or -1 " +
                        "(never), not " + value.dump());
    }
    field = value.get<int>();
  };
  rule_option("direct_dft", o.direct_dft);
  if (j.contains("prime_stages")) {
    const json& value = j["prime_stages"];
    if (!value.is_number_integer() || (value.get<long long>() != 0 && value.get<long long>() != 1)) {
      throw FormatError(where + ": \"prime_stages\" must be 1 (prime stages) or 0 (Bluestein instead), not " +
                        value.dump());
    }
    o.prime_stages = value.get<int>();
  }
  rule_option("full_length_c2r", o.full_length_c2r);
  rule_option("rader", o.rader);
  if (j.contains("four_step_columns")) {
    const json& value = j["four_step_columns"];
    if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > kMaxSinglePass) {
      throw FormatError(where + ": \"four_step_columns\" must be 0 (the planner's rule) or a column length " +
                        "up to " + std::to_string(kMaxSinglePass) + ", not " + value.dump());
    }
    o.four_step_columns = value.get<int>();
  }
  return o;
}

Transform transform_from_name(const std::string& name, const std::string& where) {
  for (Transform t : {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r})
    if (transform_name(t) == name) return t;
  throw FormatError(where + ": unknown \"transform\" \"" + name +
                    "\" (c2c_forward, c2c_inverse, r2c or c2r)");
}

// "9.0" -> 9, 0.
void parse_compute_capability(const std::string& text, DeviceId& device, const std::string& where) {
  const std::size_t dot = text.find('.');
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 3 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos || !digits(text.substr(0, dot)) || !digits(text.substr(dot + 1))) {
    throw FormatError(where + ": \"compute_capability\" must read MAJOR.MINOR, not \"" + text + "\"");
  }
  device.major = std::stoi(text.substr(0, dot));
  device.minor = std::stoi(text.substr(dot + 1));
}

WisdomEntry entry_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw FormatError(where + ": not an object");
  WisdomEntry e;
  e.key.device.name = text_field(j, "device", where, true);
  parse_compute_capability(text_field(j, "compute_capability", where, true), e.key.device, where);
  e.key.transform = transform_from_name(text_field(j, "transform", where, true), where);
  e.key.n = static_cast<std::size_t>(positive_integer(j, "n", where));
  const auto batch_class_field = j.find("batch_class");
  if (batch_class_field == j.end() || !batch_class_field->is_number_integer() ||
      batch_class_field->get<long long>() < 0 || batch_class_field->get<long long>() > 64) {
    throw FormatError(where + ": \"batch_class\" must be an integer 0..64");
  }
  e.key.batch_class = batch_class_field->get<int>();
  e.batch = static_cast<std::size_t>(positive_integer(j, "batch", where));
  e.best = options_from_json(object_field(j, "best", where), where + ", best");
  e.best_ms = milliseconds(j, "best_ms", where);
  e.default_ms = milliseconds(j, "default_ms", where);
  if (const auto list = j.find("candidates"); list != j.end()) {
    if (!list->is_array()) throw FormatError(where + ": \"candidates\" must be an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& c = (*list)[i];
      const std::string at = where + ", candidate " + std::to_string(i + 1);
      if (!c.is_object()) throw FormatError(at + ": not an object");
      CandidateTime t;
      t.options = options_from_json(object_field(c, "options", at), at);
      t.rejected = text_field(c, "rejected", at, false);
      if (t.rejected.empty()) t.median_ms = milliseconds(c, "median_ms", at);
      else if (c.contains("median_ms") && c["median_ms"].is_number()) t.median_ms = c["median_ms"].get<double>();
      e.candidates.push_back(std::move(t));
    }
  }
  e.tuned_at = text_field(j, "tuned_at", where, false);
  e.prism_version = text_field(j, "prism_version", where, false);
  if (const auto seconds = j.find("tune_seconds"); seconds != j.end()) {
    if (!seconds->is_number() || !(seconds->get<double>() >= 0.0)) {
      throw FormatError(where + ": \"tune_seconds\" must be a number of seconds, not " + seconds->dump());
    }
    e.tune_seconds = seconds->get<double>();
  }
  return e;
}

json entry_to_json(const WisdomEntry& e) {
  json candidates = json::array();
  for (const CandidateTime& t : e.candidates) {
    json c{{"options", options_to_json(t.options)}};
    if (std::isfinite(t.median_ms)) c["median_ms"] = t.median_ms;
    if (!t.rejected.empty()) c["rejected"] = t.rejected;
    candidates.push_back(std::move(c));
  }
  json entry{{"device", e.key.device.name},
              {"compute_capability",
                   std::to_string(e.key.device.major) + "." + std::to_string(e.key.device.minor)},
              {"transform", std::string(transform_name(e.key.transform))},
              {"n", e.key.n},
              {"batch_class", e.key.batch_class},
              {"batch", e.batch},
              {"best", options_to_json(e.best)},
              {"best_ms", e.best_ms},
              {"default_ms", e.default_ms},
              {"candidates", std::move(candidates)},
              {"tuned_at", e.tuned_at},
              {"prism_version", e.prism_version}};
  if (e.tune_seconds > 0.0) entry["tune_seconds"] = e.tune_seconds;
  return entry;
}

// nlohmann's what() starts with "[json.exception.parse_error.101] ": keep the sentence.
std::string json_reason(const std::exception& e) {
  std::string text = e.what();
  if (!text.empty() && text[0] == '[') {
    const std::size_t end = text.find("] ");
    if (end != std::string::npos) text.erase(0, end + 2);
  }
  return text;
}

}  // namespace

Wisdom Wisdom::parse(const std::string& text, const std::string& path) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw WisdomError(path, "corrupt wisdom file, not valid JSON (" + json_reason(e) + ")");
  }
  try {
    if (!document.is_object() || !document.contains("format") ||
        document["format"] != kFormatName) {
      throw FormatError(std::string("not a prism FFT wisdom file (no \"format\": \"") +
                        kFormatName + "\")");
    }
    const auto version = document.find("version");
    if (version == document.end() || !version->is_number_integer()) {
      throw FormatError("\"version\" is missing or not an integer");
    }
    if (version->get<long long>() != kFormatVersion) {
      throw FormatError("wisdom format version " + version->dump() + ", this prism reads version " +
                        std::to_string(kFormatVersion));
    }
    const auto entries = document.find("entries");
    if (entries == document.end() || !entries->is_array()) {
      throw FormatError("\"entries\" is missing or not an array");
    }
    Wisdom wisdom;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      wisdom.record(entry_from_json((*entries)[i], "entry " + std::to_string(i + 1)));
    }
    return wisdom;
  } catch (const FormatError& e) {
    throw WisdomError(path, std::string("corrupt wisdom file: ") + e.what());
  } catch (const json::exception& e) {
    throw WisdomError(path, "corrupt wisdom file: " + json_reason(e));
  }
}

std::string Wisdom::to_text() const {
  json entries = json::array();
  for (const WisdomEntry& e : entries_) entries.push_back(entry_to_json(e));
  const json document{{"format", kFormatName}, {"version", kFormatVersion}, {"entries", entries}};
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// ---- 4. the store ------------------------------------------------------------------------

void Wisdom::record(WisdomEntry entry) {
  for (WisdomEntry& existing : entries_) {
    if (existing.key == entry.key) {
      existing = std::move(entry);
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

void Wisdom::merge(const Wisdom& newer) {
  for (const WisdomEntry& entry : newer.entries_) record(entry);
}

const WisdomEntry* Wisdom::find(const WisdomKey& key) const {
  for (const WisdomEntry& entry : entries_)
    if (entry.key == key) return &entry;
  return nullptr;
}

const WisdomEntry* Wisdom::find_nearest(const DeviceId& device, const PlanSpec& spec) const {
  const int wanted = batch_class(spec);
  const WisdomEntry* nearest = nullptr;
  for (const WisdomEntry& entry : entries_) {
    if (entry.key.device != device || entry.key.transform != spec.transform || entry.key.n != spec.n)
      continue;
    if (!nearest) {
      nearest = &entry;
      continue;
    }
    const int distance = std::abs(entry.key.batch_class - wanted);
    const int best = std::abs(nearest->key.batch_class - wanted);
    if (distance < best || (distance == best && entry.key.batch_class > nearest->key.batch_class))
      nearest = &entry;
  }
  return nearest;
}

// ---- 5. the file -------------------------------------------------------------------------

std::string default_wisdom_path() {
  const char* explicit_path = std::getenv("PRISM_FFT_WISDOM");
  if (explicit_path && *explicit_path) return explicit_path;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  // The XDG spec: a relative XDG_CACHE_HOME is invalid and to be ignored.
  if (cache && cache[0] == '/') return std::string(cache) + "/prism/fft-wisdom.json";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/prism/fft-wisdom.json";
  return {};
}

Wisdom Wisdom::load(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return {};  // not tuned yet
    throw WisdomError(path, "cannot read the wisdom file: " + errno_text(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    throw WisdomError(path, "cannot read the wisdom file: not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw WisdomError(path, "cannot read the wisdom file: " + errno_text(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw WisdomError(path, "cannot read the wisdom file: " + errno_text(errno));
  return parse(text.str(), path);
}

namespace {

std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

void create_directory_of(const std::string& path) {
  const std::string directory = directory_of(path);
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    throw WisdomError(path, "cannot write the wisdom file: cannot create the directory " +
                                directory + ": " + error.message());
  }
}

bool write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void Wisdom::save(const std::string& path) const {
  create_directory_of(path);
  const std::string text = to_text();
  std::string temporary = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    throw WisdomError(path, "cannot write the wisdom file: cannot create a file in " +
                                directory_of(path) + ": " + errno_text(errno));
  }
  ::fchmod(fd, 0644);  // mkstemp's 0600 would hide the cache from other readers
  const bool written = write_all(fd, text) && ::fsync(fd) == 0;
  const int write_error = errno;
  if (::close(fd) != 0 || !written) {
    const int error = written ? errno : write_error;
    ::unlink(temporary.c_str());
    throw WisdomError(path, "cannot write the wisdom file: " + errno_text(error));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw WisdomError(path, "cannot write the wisdom file: cannot rename " + temporary +
                                " over it: " + errno_text(error));
  }
}

Wisdom update_wisdom_file(const std::string& path, const Wisdom& fresh) {
  create_directory_of(path);
  const std::string lock_path = path + ".lock";
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) {
    throw WisdomError(path, "cannot write the wisdom file: cannot create its lock file " +
                                lock_path + ": " + errno_text(errno));
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the flock
  } unlock{lock};
  while (::flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) {
      throw WisdomError(path, "cannot lock the wisdom file (" + lock_path + "): " + errno_text(errno));
    }
  }
  Wisdom merged = Wisdom::load(path);
  merged.merge(fresh);
  merged.save(path);
  return merged;
}

// ---- 6. plan-time lookup -----------------------------------------------------------------

namespace {

// One file at a time: its identity (a rename gives a new inode, an edit a new mtime or size)
// and what was made of it.
struct CachedWisdom {
  std::string path;
  bool present = false;
  dev_t device = 0;
  ino_t inode = 0;
  long long mtime_ns = -1;
  off_t size = -1;
  Wisdom wisdom;
  bool warned_unusable = false;  // an entry's option this planner cannot use
};

}  // namespace

PlannerOptions lookup_planner_options(const DeviceId& device, const PlanSpec& spec,
                                      const std::string& path) {
  if (path.empty()) return {};
  static std::mutex mutex;
  static CachedWisdom cached;
  const std::lock_guard<std::mutex> lock(mutex);

  struct stat status {};
  const bool present = ::stat(path.c_str(), &status) == 0;
  const long long mtime_ns =
      present ? static_cast<long long>(status.st_mtim.tv_sec) * 1000000000ll + status.st_mtim.tv_nsec
              : -1;
  const bool same = cached.path == path && cached.present == present &&
                    (!present || (cached.device == status.st_dev && cached.inode == status.st_ino &&
                                  cached.mtime_ns == mtime_ns && cached.size == status.st_size));
  if (!same) {
    cached = CachedWisdom{};
    cached.path = path;
    cached.present = present;
    if (present) {
      cached.device = status.st_dev;
      cached.inode = status.st_ino;
      cached.mtime_ns = mtime_ns;
      cached.size = status.st_size;
    }
    try {
      cached.wisdom = Wisdom::load(path);
    } catch (const WisdomError& e) {
      // Planning goes on with the default options; `prism fft-tune` reports it as an error.
      std::fprintf(stderr, "prism: warning: FFT wisdom ignored, planning with the defaults: %s\n",
                   e.what());
    }
  }
  const WisdomEntry* entry = cached.wisdom.find_nearest(device, spec);
  if (!entry) return {};
  PlannerOptions options = entry->best;
  // A convolution length this planner cannot use for n (a hand-edited file, or one tuned by a
  // planner of other limits): the estimate's, with one warning per version of the file.
  const std::string problem =
      options.bluestein_length == 0
          ? std::string()
          : bluestein_length_problem(static_cast<long long>(spec.n), options.bluestein_length);
  if (!problem.empty()) {
    if (!cached.warned_unusable) {
      std::fprintf(stderr,
                   "prism: warning: FFT wisdom %s: \"bluestein_length\" %d for n = %zu is %s; "
                   "planning with the estimate\n",
                   path.c_str(), options.bluestein_length, spec.n, problem.c_str());
      cached.warned_unusable = true;
    }
    options.bluestein_length = 0;
  }
  // Likewise a four-step split that is no split of this length's complex length.
  if (options.four_step_columns != 0 &&
      !can_take_four_step_columns(planner_complex_length(spec), options.four_step_columns)) {
    if (!cached.warned_unusable) {
      std::fprintf(stderr,
                   "prism: warning: FFT wisdom %s: \"four_step_columns\" %d for n = %zu is no four-step "
                   "split of its complex length %lld; planning with the planner's rule\n",
                   path.c_str(), options.four_step_columns, spec.n, planner_complex_length(spec));
      cached.warned_unusable = true;
    }
    options.four_step_columns = 0;
  }
  return options;
}

}  // namespace prism::fft::gpu
