// FFT wisdom: which planner options won the tuning measurements (fft_tune.hpp) for a device,
// transform kind, length and batch class, with the measured time of every candidate, kept in a
// JSON file across runs as FFTW's wisdom is. Also the one list of tuning candidates (the tuning
// mode and fft_bench --tune both measure it). Plain host C++ (part of prism_fft_plan): built and
// tested without CUDA; C++17 so that the CUDA sources can include it.
//
// File: PRISM_FFT_WISDOM, else $XDG_CACHE_HOME/prism/fft-wisdom.json, else
// ~/.cache/prism/fft-wisdom.json. Written atomically (temporary file + rename) under a lock,
// merged with what is there so that tuning some lengths keeps the others.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fft/cuda/fft_plan.hpp"
#include "fft/fft.hpp"
#include "pipeline/errors.hpp"

namespace prism::fft::gpu {

// A chip as wisdom tells them apart: the same kernels rank differently on different chips.
struct DeviceId {
  std::string name;  // cudaDeviceProp::name, e.g. "NVIDIA H200"
  int major = 0;     // compute capability
  int minor = 0;
};
bool operator==(const DeviceId& a, const DeviceId& b);
bool operator!=(const DeviceId& a, const DeviceId& b);
// "NVIDIA H200 (compute capability 9.0)"
std::string describe(const DeviceId& device);

// What one wisdom entry was measured for.
struct WisdomKey {
  DeviceId device;
  Transform transform = Transform::c2c_forward;
  std::size_t n = 0;
  int batch_class = 0;  // batch_class(spec)
};
bool operator==(const WisdomKey& a, const WisdomKey& b);

// floor(log4(n * batch)): the points one execute transforms, in powers of four. How many blocks
// a launch has (so which blocking keeps the device busy) depends on it, not on n or batch alone.
int batch_class(const PlanSpec& spec);
WisdomKey wisdom_key(const DeviceId& device, const PlanSpec& spec);

// "c2c_forward", "c2c_inverse", "r2c", "c2r" (the names in the wisdom file).
std::string_view transform_name(Transform transform);

bool same_options(const PlannerOptions& a, const PlannerOptions& b);
// "single 4096, column 8192, row 8192, cluster off" (elements per block of each kind of pass,
// cluster passes), then ", bluestein m 12288" where the options fix Bluestein's length.
std::string describe(const PlannerOptions& options);

// Candidates the tuning mode measures for spec: the default options first, then every variation
// of the elements per block, of cluster passes, of the four-step split (the radix order across
// passes, four_step_column_candidates) and, in Bluestein plans, of the convolution
// length (the next cheapest estimates) that changes the plan (a variation planning the same
// launches as an earlier candidate is left out). Builds one plan layout per variation on the host (tables
// included: ~0.3 s each at n = 2^24). Throws std::invalid_argument where make_plan_layout does.
std::vector<PlannerOptions> planner_candidates(const PlanSpec& spec);

struct CandidateTime {
  PlannerOptions options;
  double median_ms = 0.0;  // median time of one execute; meaningless when rejected
  std::string rejected;    // why it cannot win (plan failed, output differs); empty: valid
};

struct WisdomEntry {
  WisdomKey key;
  std::size_t batch = 0;  // the batch it was measured with (one of the key's class)
  PlannerOptions best;
  double best_ms = 0.0;
  double default_ms = 0.0;
  std::vector<CandidateTime> candidates;  // in measurement order, the default first
  std::string tuned_at;                   // UTC, ISO 8601
  std::string prism_version;              // of the kernels measured
  // Wall time of the whole measurement of this entry (plans of every candidate included); 0 in
  // files written before it was recorded.
  double tune_seconds = 0.0;
};

// A wisdom file that cannot be read or written; what() is "PATH: reason".
class WisdomError : public InputError {
 public:
  using InputError::InputError;
};

class Wisdom {
 public:
  // A missing file is an empty store. Throws WisdomError naming the path and the reason when
  // the file cannot be read or is not a wisdom file of a version this build reads.
  static Wisdom load(const std::string& path);
  // Parses the text of a wisdom file; `path` only names it in errors.
  static Wisdom parse(const std::string& text, const std::string& path);
  // Writes to a temporary file beside `path` and renames it over `path` (readers see the old
  // or the new file, never a part), creating the directory. Throws WisdomError.
  void save(const std::string& path) const;
  std::string to_text() const;

  // Adds the entry, replacing the one with the same key.
  void record(WisdomEntry entry);
  // Records every entry of `newer` (its entries replace ours with the same key).
  void merge(const Wisdom& newer);

  const WisdomEntry* find(const WisdomKey& key) const;
  // The entry of this device, transform and length whose batch class is nearest spec's (the
  // larger class on a tie); null when that length was never tuned on this device.
  const WisdomEntry* find_nearest(const DeviceId& device, const PlanSpec& spec) const;
  const std::vector<WisdomEntry>& entries() const { return entries_; }

 private:
  std::vector<WisdomEntry> entries_;
};

// PRISM_FFT_WISDOM, else $XDG_CACHE_HOME/prism/fft-wisdom.json, else
// $HOME/.cache/prism/fft-wisdom.json; empty when none of the three variables is set.
std::string default_wisdom_path();

// Loads the file at `path`, merges `fresh` into it and saves it, holding an exclusive lock
// (flock on PATH.lock) so that two tuning runs do not lose each other's entries. Returns what
// was written. Throws WisdomError (a corrupt file is not overwritten).
Wisdom update_wisdom_file(const std::string& path, const Wisdom& fresh);

// Plan time: the options for spec on `device` from the wisdom file at `path` (exact batch class,
// else the nearest tuned one), the defaults when the length was not tuned there. A file that
// cannot be used gives the defaults and one warning on stderr per version of the file, never an
// error. The parsed file is cached and re-read when it changes. Thread-safe.
PlannerOptions lookup_planner_options(const DeviceId& device, const PlanSpec& spec,
                                      const std::string& path);

}  // namespace prism::fft::gpu
