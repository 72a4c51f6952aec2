// CPU checks of the FFT wisdom file (fft/cuda/fft_wisdom.hpp): round trip of every field,
// merging, keys that tell devices, transforms, lengths and batch classes apart, the nearest
// batch class at plan time, the file's default location and its environment override, errors
// that name the path (corrupt file, unwritable directory), and the tuning candidate list. No GPU.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_wisdom.hpp"

namespace prism::fft::gpu {
namespace {

namespace fs = std::filesystem;

const DeviceId kH200{"NVIDIA H200", 9, 0};
const DeviceId kL4{"NVIDIA L4", 8, 9};

class WisdomFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("qa_FftWisdom_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add, ignored);
    for (const auto& entry : fs::recursive_directory_iterator(directory_, ignored))
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(directory_, ignored);
  }
  std::string path(const std::string& name) const { return (directory_ / name).string(); }

  fs::path directory_;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

PlannerOptions options_of(int single, int column, int row,
                          int cluster = PlannerOptions{}.cluster_block_length) {
  PlannerOptions o;
  o.single_elements_per_block = single;
  o.column_elements_per_block = column;
  o.row_elements_per_block = row;
  o.cluster_block_length = cluster;
  return o;
}

WisdomEntry entry_of(const DeviceId& device, const PlanSpec& spec, const PlannerOptions& best,
                     double best_ms = 0.5) {
  WisdomEntry e;
  e.key = wisdom_key(device, spec);
  e.batch = spec.batch;
  e.best = best;
  e.best_ms = best_ms;
  e.default_ms = 0.75;
  CandidateTime by_default;
  by_default.median_ms = 0.75;
  CandidateTime winner;
  winner.options = best;
  winner.median_ms = best_ms;
  CandidateTime wrong;
  wrong.options = options_of(1024, 2048, 2048);
  wrong.rejected = "output differs from the default plan's (relative L2 3.00e-01)";
  e.candidates = {by_default, winner, wrong};
  e.tuned_at = "2025-01-31T12:00:00Z";
  e.prism_version = "0.1.0";
  return e;
}

void expect_same_options(const PlannerOptions& actual, const PlannerOptions& expected) {
  EXPECT_TRUE(same_options(actual, expected))
      << "got " << describe(actual) << ", expected " << describe(expected);
}

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---- keys -----------------------------------------------------------------------------------

TEST(WisdomKeys, BatchClassCountsPointsInPowersOfFour) {
  EXPECT_EQ(batch_class(PlanSpec{1024, 1, Transform::c2c_forward}), 5);   // 2^10
  EXPECT_EQ(batch_class(PlanSpec{1024, 2, Transform::c2c_forward}), 5);   // 2^11
  EXPECT_EQ(batch_class(PlanSpec{1024, 4, Transform::c2c_forward}), 6);   // 2^12
  EXPECT_EQ(batch_class(PlanSpec{4096, 1, Transform::r2c}), 6);
  EXPECT_EQ(batch_class(PlanSpec{1000, 1000, Transform::r2c}), 9);        // ~2^19.9
  EXPECT_EQ(batch_class(PlanSpec{1, 1, Transform::r2c}), 0);
  EXPECT_EQ(batch_class(PlanSpec{std::size_t{1} << 27, std::size_t{1} << 62, Transform::r2c}), 31);
}

TEST(WisdomKeys, DistinguishDevicesTransformsLengthsAndBatchClasses) {
  const PlanSpec base = PlanSpec{4096, 4096, Transform::r2c};
  Wisdom wisdom;
  const PlannerOptions a = options_of(1024, 8192, 8192);
  const PlannerOptions b = options_of(2048, 8192, 8192);
  const PlannerOptions c = options_of(8192, 8192, 8192);
  const PlannerOptions d = options_of(16384, 8192, 8192);
  const PlannerOptions e = options_of(4096, 2048, 2048);
  const PlannerOptions f = options_of(4096, 4096, 4096);
  wisdom.record(entry_of(kH200, base, a));
  wisdom.record(entry_of(kL4, base, b));
  wisdom.record(entry_of(DeviceId{"NVIDIA H200", 9, 1}, base, c));  // same name, other chip
  wisdom.record(entry_of(kH200, PlanSpec{4096, 4096, Transform::c2r}, d));
  wisdom.record(entry_of(kH200, PlanSpec{2048, 4096, Transform::r2c}, e));
  wisdom.record(entry_of(kH200, PlanSpec{4096, 4, Transform::r2c}, f));
  ASSERT_EQ(wisdom.entries().size(), 6u);

  auto best = [&](const DeviceId& device, const PlanSpec& spec) {
    const WisdomEntry* found = wisdom.find(wisdom_key(device, spec));
    EXPECT_NE(found, nullptr);
    return found ? found->best : PlannerOptions{};
  };
  expect_same_options(best(kH200, base), a);
  expect_same_options(best(kL4, base), b);
  expect_same_options(best(DeviceId{"NVIDIA H200", 9, 1}, base), c);
  expect_same_options(best(kH200, PlanSpec{4096, 4096, Transform::c2r}), d);
  expect_same_options(best(kH200, PlanSpec{2048, 4096, Transform::r2c}), e);
  expect_same_options(best(kH200, PlanSpec{4096, 4, Transform::r2c}), f);
  EXPECT_EQ(wisdom.find(wisdom_key(kH200, PlanSpec{4096, 4096, Transform::c2c_forward})), nullptr);
  EXPECT_EQ(wisdom.find(wisdom_key(DeviceId{"NVIDIA H100", 9, 0}, base)), nullptr);
}

TEST(WisdomKeys, NearestBatchClassOfTheSameDeviceTransformAndLength) {
  Wisdom wisdom;
  const PlannerOptions small = options_of(1024, 8192, 8192);
  const PlannerOptions large = options_of(16384, 8192, 8192);
  wisdom.record(entry_of(kH200, PlanSpec{1024, 1, Transform::c2c_forward}, small));         // class 5
  wisdom.record(entry_of(kH200, PlanSpec{1024, 1 << 14, Transform::c2c_forward}, large));   // class 12
  // Classes 6 and 11 are nearer 5 and 12; class 8 is 3 from 5 and 4 from 12.
  expect_same_options(wisdom.find_nearest(kH200, PlanSpec{1024, 4, Transform::c2c_forward})->best, small);
  expect_same_options(wisdom.find_nearest(kH200, PlanSpec{1024, 1 << 12, Transform::c2c_forward})->best, large);
  expect_same_options(wisdom.find_nearest(kH200, PlanSpec{1024, 1 << 6, Transform::c2c_forward})->best, small);
  expect_same_options(wisdom.find_nearest(kH200, PlanSpec{1024, std::size_t{1} << 40, Transform::c2c_forward})->best, large);
  // A tie goes to the larger class: class 8 is 2 from classes 6 and 10.
  Wisdom tie;
  tie.record(entry_of(kH200, PlanSpec{4096, 1, Transform::r2c}, small));        // class 6
  tie.record(entry_of(kH200, PlanSpec{4096, 1 << 8, Transform::r2c}, large));   // class 10
  expect_same_options(tie.find_nearest(kH200, PlanSpec{4096, 1 << 4, Transform::r2c})->best, large);
  EXPECT_EQ(wisdom.find_nearest(kL4, PlanSpec{1024, 1, Transform::c2c_forward}), nullptr);
  EXPECT_EQ(wisdom.find_nearest(kH200, PlanSpec{1024, 1, Transform::c2c_inverse}), nullptr);
  EXPECT_EQ(wisdom.find_nearest(kH200, PlanSpec{2048, 1, Transform::c2c_forward}), nullptr);
}

// ---- the file -------------------------------------------------------------------------------

TEST_F(WisdomFile, RoundTripKeepsEveryField) {
  Wisdom wisdom;
  const WisdomEntry original = entry_of(kH200, PlanSpec{4096, 4096, Transform::c2r},
                                        options_of(2048, 4096, 16384, 8192), 0.125);
  wisdom.record(original);
  const WisdomEntry no_clusters =
      entry_of(kL4, PlanSpec{1000, 3, Transform::c2c_inverse}, options_of(8192, 8192, 8192, 0));
  wisdom.record(no_clusters);
  PlannerOptions longer_convolution;
  longer_convolution.bluestein_length = 147456;
  const WisdomEntry bluestein =
      entry_of(kH200, PlanSpec{65537, 1023, Transform::c2c_forward}, longer_convolution);
  wisdom.record(bluestein);
  PlannerOptions narrow_teams;
  narrow_teams.rows_elements_per_thread = 16;
  const WisdomEntry rows = entry_of(kH200, PlanSpec{8192, 8192, Transform::c2c_forward}, narrow_teams);
  wisdom.record(rows);
  PlannerOptions decimal_teams;
  decimal_teams.rows_elements_per_thread = 10;
  const WisdomEntry decimal = entry_of(kH200, PlanSpec{2000, 1024, Transform::c2r}, decimal_teams);
  wisdom.record(decimal);
  PlannerOptions fft_only;  // set by hand: the tuning mode does not vary it
  fft_only.direct_dft = -1;
  const WisdomEntry no_direct = entry_of(kH200, PlanSpec{16, 4096, Transform::c2c_forward}, fft_only);
  wisdom.record(no_direct);
  PlannerOptions bluestein_only;  // likewise
  bluestein_only.prime_stages = 0;
  const WisdomEntry no_prime = entry_of(kH200, PlanSpec{4087, 1024, Transform::r2c}, bluestein_only);
  wisdom.record(no_prime);
  PlannerOptions half_length;  // likewise
  half_length.full_length_c2r = -1;
  const WisdomEntry no_full_length = entry_of(kH200, PlanSpec{1080, 1024, Transform::c2r}, half_length);
  wisdom.record(no_full_length);
  PlannerOptions rader;  // the tuning mode's Rader where the rule does not take it
  rader.rader = 1;
  const WisdomEntry rader_entry = entry_of(kH200, PlanSpec{7681, 2048, Transform::c2c_forward}, rader);
  wisdom.record(rader_entry);
  PlannerOptions short_columns;  // the tuning mode's four-step split
  short_columns.four_step_columns = 256;
  WisdomEntry split_entry = entry_of(kH200, PlanSpec{1 << 20, 64, Transform::c2c_forward}, short_columns);
  split_entry.tune_seconds = 12.75;
  wisdom.record(split_entry);
  const std::string file = path("sub/dir/fft-wisdom.json");  // directories are created
  wisdom.save(file);

  const Wisdom loaded = Wisdom::load(file);
  ASSERT_EQ(loaded.entries().size(), 10u);
  const WisdomEntry* split = loaded.find(split_entry.key);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->best.four_step_columns, 256);
  EXPECT_NE(describe(split->best).find(", four-step columns 256"), std::string::npos) << describe(split->best);
  EXPECT_DOUBLE_EQ(split->tune_seconds, 12.75);
  EXPECT_EQ(loaded.find(decimal.key)->best.four_step_columns, 0);  // absent: the planner's rule
  EXPECT_EQ(loaded.find(decimal.key)->tune_seconds, 0.0);          // absent: not recorded
  ASSERT_NE(loaded.find(rader_entry.key), nullptr);
  EXPECT_EQ(loaded.find(rader_entry.key)->best.rader, 1);
  EXPECT_NE(describe(loaded.find(rader_entry.key)->best).find(", rader"), std::string::npos);
  EXPECT_EQ(loaded.find(decimal.key)->best.rader, 0);  // absent: the planner's rule
  ASSERT_NE(loaded.find(no_full_length.key), nullptr);
  EXPECT_EQ(loaded.find(no_full_length.key)->best.full_length_c2r, -1);
  EXPECT_NE(describe(loaded.find(no_full_length.key)->best).find("no full-length c2r"), std::string::npos);
  EXPECT_EQ(loaded.find(decimal.key)->best.full_length_c2r, 0);  // absent: the planner's rule
  ASSERT_NE(loaded.find(no_prime.key), nullptr);
  EXPECT_EQ(loaded.find(no_prime.key)->best.prime_stages, 0);
  EXPECT_NE(describe(loaded.find(no_prime.key)->best).find("no prime stages"), std::string::npos);
  EXPECT_EQ(loaded.find(decimal.key)->best.prime_stages, 1);  // absent: prime stages
  const WisdomEntry* fft = loaded.find(no_direct.key);
  ASSERT_NE(fft, nullptr);
  EXPECT_EQ(fft->best.direct_dft, -1);
  EXPECT_NE(describe(fft->best).find("no direct DFT"), std::string::npos) << describe(fft->best);
  EXPECT_EQ(loaded.find(decimal.key)->best.direct_dft, 0);  // absent: the planner's rule
  const WisdomEntry* e = loaded.find(original.key);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key.device.name, "NVIDIA H200");
  EXPECT_EQ(e->key.device.major, 9);
  EXPECT_EQ(e->key.device.minor, 0);
  EXPECT_EQ(e->key.transform, Transform::c2r);
  EXPECT_EQ(e->key.n, 4096u);
  EXPECT_EQ(e->key.batch_class, batch_class(PlanSpec{4096, 4096, Transform::c2r}));
  EXPECT_EQ(e->batch, 4096u);
  expect_same_options(e->best, options_of(2048, 4096, 16384, 8192));
  EXPECT_DOUBLE_EQ(e->best_ms, 0.125);
  EXPECT_DOUBLE_EQ(e->default_ms, 0.75);
  ASSERT_EQ(e->candidates.size(), 3u);
  expect_same_options(e->candidates[1].options, options_of(2048, 4096, 16384, 8192));
  const WisdomEntry* off = loaded.find(no_clusters.key);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->best.cluster_block_length, 0);
  EXPECT_EQ(off->best.bluestein_length, 0);
  const WisdomEntry* longer = loaded.find(bluestein.key);
  ASSERT_NE(longer, nullptr);
  expect_same_options(longer->best, longer_convolution);
  EXPECT_NE(describe(longer->best).find("bluestein m 147456"), std::string::npos)
      << describe(longer->best);
  const WisdomEntry* narrow = loaded.find(rows.key);
  ASSERT_NE(narrow, nullptr);
  expect_same_options(narrow->best, narrow_teams);
  EXPECT_EQ(narrow->best.rows_elements_per_thread, 16);
  EXPECT_NE(describe(narrow->best).find("rows 16 per thread"), std::string::npos) << describe(narrow->best);
  const WisdomEntry* tens = loaded.find(decimal.key);
  ASSERT_NE(tens, nullptr);
  EXPECT_EQ(tens->best.rows_elements_per_thread, 10);
  EXPECT_NE(describe(tens->best).find("rows 10 per thread"), std::string::npos) << describe(tens->best);
  EXPECT_DOUBLE_EQ(e->candidates[1].median_ms, 0.125);
  EXPECT_TRUE(e->candidates[1].rejected.empty());
  EXPECT_EQ(e->candidates[2].rejected, original.candidates[2].rejected);
  EXPECT_EQ(e->tuned_at, "2025-01-31T12:00:00Z");
  EXPECT_EQ(e->prism_version, "0.1.0");
  EXPECT_EQ(loaded.to_text(), wisdom.to_text());

  const std::string text = read_text(file);
  EXPECT_NE(text.find("\"format\": \"prism-fft-wisdom\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"compute_capability\": \"9.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"transform\": \"c2r\""), std::string::npos) << text;
}

TEST_F(WisdomFile, MissingFileIsEmptyAndSavingLeavesNoTemporaryFiles) {
  EXPECT_TRUE(Wisdom::load(path("never-written.json")).entries().empty());
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, PlanSpec{256, 1, Transform::r2c}, options_of(1024, 8192, 8192)));
  wisdom.save(path("w.json"));
  wisdom.save(path("w.json"));  // over an existing file
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory_)) names.insert(entry.path().filename().string());
  EXPECT_EQ(names, std::set<std::string>{"w.json"});
  struct stat status {};
  ASSERT_EQ(::stat(path("w.json").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0644u);
}

TEST_F(WisdomFile, MergeReplacesSameKeysAndKeepsTheRest) {
  const PlanSpec a = PlanSpec{1024, 64, Transform::c2c_forward};
  const PlanSpec b = PlanSpec{2048, 64, Transform::c2c_forward};
  const PlanSpec c = PlanSpec{4096, 64, Transform::r2c};
  Wisdom old_wisdom;
  old_wisdom.record(entry_of(kH200, a, options_of(1024, 8192, 8192)));
  old_wisdom.record(entry_of(kH200, b, options_of(2048, 8192, 8192)));
  Wisdom newer;
  newer.record(entry_of(kH200, b, options_of(16384, 8192, 8192)));
  newer.record(entry_of(kH200, c, options_of(8192, 8192, 8192)));

  Wisdom merged = old_wisdom;
  merged.merge(newer);
  ASSERT_EQ(merged.entries().size(), 3u);
  expect_same_options(merged.find(wisdom_key(kH200, a))->best, options_of(1024, 8192, 8192));
  expect_same_options(merged.find(wisdom_key(kH200, b))->best, options_of(16384, 8192, 8192));
  expect_same_options(merged.find(wisdom_key(kH200, c))->best, options_of(8192, 8192, 8192));

  // The same through the file, as two tuning runs write it.
  const std::string file = path("fft-wisdom.json");
  update_wisdom_file(file, old_wisdom);
  const Wisdom written = update_wisdom_file(file, newer);
  const Wisdom loaded = Wisdom::load(file);
  EXPECT_EQ(loaded.to_text(), merged.to_text());
  EXPECT_EQ(written.to_text(), merged.to_text());
}

TEST_F(WisdomFile, LookupFollowsTheFileAndFallsBackToDefaults) {
  const std::string file = path("fft-wisdom.json");
  const PlanSpec tuned = PlanSpec{1024, 1 << 13, Transform::r2c};
  // No file: the defaults.
  expect_same_options(lookup_planner_options(kH200, tuned, file), PlannerOptions{});
  expect_same_options(lookup_planner_options(kH200, tuned, ""), PlannerOptions{});

  Wisdom wisdom;
  wisdom.record(entry_of(kH200, tuned, options_of(1024, 8192, 8192)));
  update_wisdom_file(file, wisdom);
  expect_same_options(lookup_planner_options(kH200, tuned, file), options_of(1024, 8192, 8192));
  // Another batch of the same length: the nearest class tuned.
  expect_same_options(lookup_planner_options(kH200, PlanSpec{1024, 1, Transform::r2c}, file),
                      options_of(1024, 8192, 8192));
  // Not tuned: another device, transform or length.
  expect_same_options(lookup_planner_options(kL4, tuned, file), PlannerOptions{});
  expect_same_options(lookup_planner_options(kH200, PlanSpec{1024, 1 << 13, Transform::c2r}, file),
                      PlannerOptions{});
  expect_same_options(lookup_planner_options(kH200, PlanSpec{512, 1 << 13, Transform::r2c}, file),
                      PlannerOptions{});

  // A new tuning run replaces the file: the next plan sees it (the cache follows the file).
  Wisdom retuned;
  retuned.record(entry_of(kH200, tuned, options_of(16384, 8192, 8192)));
  update_wisdom_file(file, retuned);
  expect_same_options(lookup_planner_options(kH200, tuned, file), options_of(16384, 8192, 8192));
}

TEST(WisdomPath, EnvironmentOverrideThenXdgCacheThenHome) {
  {
    ScopedEnv wisdom("PRISM_FFT_WISDOM", "/somewhere/mine.json");
    ScopedEnv cache("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/user");
    EXPECT_EQ(default_wisdom_path(), "/somewhere/mine.json");
  }
  {
    ScopedEnv wisdom("PRISM_FFT_WISDOM", std::nullopt);
    ScopedEnv cache("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/user");
    EXPECT_EQ(default_wisdom_path(), "/xdg/prism/fft-wisdom.json");
  }
  {
    ScopedEnv wisdom("PRISM_FFT_WISDOM", "");  // empty counts as unset
    ScopedEnv cache("XDG_CACHE_HOME", "relative/ignored");
    ScopedEnv home("HOME", "/home/user");
    EXPECT_EQ(default_wisdom_path(), "/home/user/.cache/prism/fft-wisdom.json");
  }
  {
    ScopedEnv wisdom("PRISM_FFT_WISDOM", std::nullopt);
    ScopedEnv cache("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv home("HOME", std::nullopt);
    EXPECT_EQ(default_wisdom_path(), "");
  }
}

// Loading must fail with a WisdomError whose message names the file and contains `reason`.
void expect_load_error(const std::string& file, const std::string& reason) {
  try {
    Wisdom::load(file);
    ADD_FAILURE() << file << " loaded, expected an error about: " << reason;
  } catch (const WisdomError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.path(), file);
    EXPECT_NE(message.find(file), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
  }
}

TEST_F(WisdomFile, CorruptFileErrorNamesThePathAndTheReason) {
  Wisdom valid;
  valid.record(entry_of(kH200, PlanSpec{1024, 1, Transform::r2c}, options_of(1024, 8192, 8192)));
  const std::string good = valid.to_text();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  };
  const struct {
    const char* name;
    std::string text;
    const char* reason;
  } cases[] = {
      {"truncated.json", good.substr(0, good.size() / 2), "not valid JSON"},
      {"empty.json", "", "not valid JSON"},
      {"other.json", "{\"entries\": []}", "not a prism FFT wisdom file"},
      {"array.json", "[1, 2]", "not a prism FFT wisdom file"},
      {"newer.json", replaced("\"version\": 1", "\"version\": 2"), "version 2"},
      {"no-entries.json", "{\"format\": \"prism-fft-wisdom\", \"version\": 1}", "\"entries\""},
      {"bad-n.json", replaced("\"n\": 1024", "\"n\": -3"), "entry 1: \"n\" must be a positive integer"},
      {"bad-kind.json", replaced("\"transform\": \"r2c\"", "\"transform\": \"dct\""), "unknown \"transform\" \"dct\""},
      {"bad-cc.json", replaced("\"compute_capability\": \"9.0\"", "\"compute_capability\": \"nine\""),
       "compute_capability"},
      {"bad-options.json",
       replaced("\"single_elements_per_block\": 1024", "\"single_elements_per_block\": \"many\""),
       "single_elements_per_block"},
      {"bad-cluster.json",
       replaced("\"cluster_block_length\": 0", "\"cluster_block_length\": 4096"),
       "\"cluster_block_length\" must be 0 (off), 8192 or 16384, not 4096"},
      {"bad-bluestein.json",
       replaced("\"bluestein_length\": 0", "\"bluestein_length\": -5"),
       "\"bluestein_length\" must be 0 (the planner's estimate) or a convolution length"},
      {"bad-rows-elements.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 24"),
       "\"rows_elements_per_thread\" must be 0 (the planner's rule), 16, 32 or 10, not 24"},
      {"bad-direct.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 0, \"direct_dft\": 3"),
       "\"direct_dft\" must be 0 (the planner's rule), 1 (wherever it can) or -1 (never), not 3"},
      {"bad-prime-stages.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 0, \"prime_stages\": -1"),
       "\"prime_stages\" must be 1 (prime stages) or 0 (Bluestein instead), not -1"},
      {"bad-full-length-c2r.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 0, \"full_length_c2r\": 2"),
       "\"full_length_c2r\" must be 0 (the planner's rule), 1 (wherever it can) or -1 (never), not 2"},
      {"bad-rader.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 0, \"rader\": 5"),
       "\"rader\" must be 0 (the planner's rule), 1 (wherever it can) or -1 (never), not 5"},
      {"bad-four-step-columns.json",
       replaced("\"rows_elements_per_thread\": 0", "\"rows_elements_per_thread\": 0, \"four_step_columns\": 32768"),
       "\"four_step_columns\" must be 0 (the planner's rule) or a column length up to 16384, not 32768"},
      {"bad-tune-seconds.json", replaced("\"tuned_at\"", "\"tune_seconds\": \"slow\", \"tuned_at\""),
       "\"tune_seconds\" must be a number of seconds, not \"slow\""},
      {"no-best.json", replaced("\"best\"", "\"worst\""), "\"best\" is missing"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = path(c.name);
    write_text(file, c.text);
    expect_load_error(file, c.reason);
  }
  // Unreadable: a directory where the file should be.
  fs::create_directories(path("a-directory.json"));
  expect_load_error(path("a-directory.json"), "not a regular file");
}

// Files written before an option existed load with its default.
TEST_F(WisdomFile, OptionsAbsentFromTheFileKeepTheirDefaults) {
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, PlanSpec{4097, 16, Transform::c2c_forward}, options_of(2048, 8192, 8192)));
  std::string text = wisdom.to_text();
  const std::string field = "\"bluestein_length\": 0,";
  std::size_t at = 0;
  int removed = 0;
  while ((at = text.find(field)) != std::string::npos) {
    text.erase(at, field.size());
    ++removed;
  }
  EXPECT_EQ(removed, 4) << "best and three candidates";
  const std::string file = path("older.json");
  write_text(file, text);
  const Wisdom loaded = Wisdom::load(file);
  ASSERT_EQ(loaded.entries().size(), 1u);
  expect_same_options(loaded.entries()[0].best, options_of(2048, 8192, 8192));
}

// Two plan-time lookups of spec in `file` that must both give the defaults; what they wrote to
// stderr.
std::string warnings_of_two_default_lookups(const PlanSpec& spec, const std::string& file) {
  ::testing::internal::CaptureStderr();
  const PlannerOptions first = lookup_planner_options(kH200, spec, file);
  const PlannerOptions second = lookup_planner_options(kH200, spec, file);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  expect_same_options(first, PlannerOptions{});
  expect_same_options(second, PlannerOptions{});
  return warnings;
}

TEST_F(WisdomFile, CorruptFileAtPlanTimeWarnsOnceAndPlansWithDefaults) {
  const std::string file = path("fft-wisdom.json");
  Wisdom wisdom;
  const PlanSpec spec = PlanSpec{2048, 8, Transform::c2c_forward};
  wisdom.record(entry_of(kH200, spec, options_of(1024, 8192, 8192)));
  wisdom.save(file);
  expect_same_options(lookup_planner_options(kH200, spec, file), options_of(1024, 8192, 8192));

  write_text(file, "{ not json");
  const std::string warnings = warnings_of_two_default_lookups(spec, file);
  EXPECT_NE(warnings.find("warning"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find(file), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find(file), warnings.rfind(file)) << "warned more than once: " << warnings;
}

// A convolution length the planner cannot use for the length (an edited file): the estimate's,
// with one warning; a usable one is followed.
TEST_F(WisdomFile, UnusableBluesteinLengthWarnsOnceAndPlansWithTheEstimate) {
  const std::string file = path("fft-wisdom.json");
  const PlanSpec spec = PlanSpec{4097, 16, Transform::c2c_forward};
  PlannerOptions usable;
  usable.bluestein_length = 10240;
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, spec, usable));
  wisdom.save(file);
  expect_same_options(lookup_planner_options(kH200, spec, file), usable);
  EXPECT_EQ(make_plan_layout(spec, lookup_planner_options(kH200, spec, file)).bluestein_length, 10240);

  PlannerOptions too_short;
  too_short.bluestein_length = 8190;
  wisdom.record(entry_of(kH200, spec, too_short));
  wisdom.save(file);
  const std::string warnings = warnings_of_two_default_lookups(spec, file);
  EXPECT_NE(warnings.find("\"bluestein_length\" 8190 for n = 4097 is below 2n - 2 = 8192"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find(file), warnings.rfind(file)) << "warned more than once: " << warnings;
}

// A four-step split that is no split of the length (an edited file): the planner's rule, with one
// warning; a split that fits is followed.
TEST_F(WisdomFile, UnusableFourStepSplitWarnsOnceAndPlansWithTheRule) {
  const std::string file = path("fft-wisdom.json");
  const PlanSpec spec = PlanSpec{1 << 18, 16, Transform::r2c};  // complex length 2^17
  PlannerOptions fits;
  fits.four_step_columns = 64;
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, spec, fits));
  wisdom.save(file);
  expect_same_options(lookup_planner_options(kH200, spec, file), fits);
  EXPECT_NE(make_plan_layout(spec, lookup_planner_options(kH200, spec, file)).algorithm.find("four-step 64x2048"),
            std::string::npos);

  PlannerOptions no_split;
  no_split.four_step_columns = 96;  // does not divide 2^17
  wisdom.record(entry_of(kH200, spec, no_split));
  wisdom.save(file);
  const std::string warnings = warnings_of_two_default_lookups(spec, file);
  EXPECT_NE(warnings.find("\"four_step_columns\" 96 for n = 262144 is no four-step split of its complex "
                          "length 131072"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find(file), warnings.rfind(file)) << "warned more than once: " << warnings;
  // At plan time, beyond any pass length.
  PlannerOptions too_long;
  too_long.four_step_columns = 32768;
  EXPECT_THROW(make_plan_layout(spec, too_long), std::invalid_argument);
}

// Saving must fail with a WisdomError naming the file, and leave what was there alone.
void expect_save_error(const Wisdom& wisdom, const std::string& file, const std::string& reason) {
  for (bool through_update : {false, true}) {
    try {
      if (through_update) update_wisdom_file(file, wisdom);
      else wisdom.save(file);
      ADD_FAILURE() << file << " written, expected an error about: " << reason;
    } catch (const WisdomError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(file), std::string::npos) << message;
      EXPECT_NE(message.find(reason), std::string::npos) << message;
    }
  }
}

TEST_F(WisdomFile, UnwritableDirectoryErrorNamesThePath) {
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, PlanSpec{1024, 1, Transform::r2c}, options_of(1024, 8192, 8192)));
  // The directory cannot exist: a regular file is in its place.
  write_text(path("plain-file"), "x");
  expect_save_error(wisdom, path("plain-file/prism/fft-wisdom.json"), "cannot create the directory");
  EXPECT_EQ(read_text(path("plain-file")), "x");
}

TEST_F(WisdomFile, ReadOnlyDirectoryErrorNamesThePathAndKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  const std::string file = path("locked/fft-wisdom.json");
  Wisdom old_wisdom;
  old_wisdom.record(entry_of(kL4, PlanSpec{512, 1, Transform::r2c}, options_of(2048, 8192, 8192)));
  old_wisdom.save(file);
  const std::string before = read_text(file);
  fs::permissions(path("locked"), fs::perms::owner_read | fs::perms::owner_exec);
  Wisdom wisdom;
  wisdom.record(entry_of(kH200, PlanSpec{1024, 1, Transform::r2c}, options_of(1024, 8192, 8192)));
  expect_save_error(wisdom, file, "Permission denied");
  EXPECT_EQ(read_text(file), before);
}

// ---- candidates -----------------------------------------------------------------------------

TEST(WisdomCandidates, DefaultFirstThenDistinctPlans) {
  for (const PlanSpec& spec : {PlanSpec{1024, 64, Transform::c2c_forward}, PlanSpec{4096, 8, Transform::r2c},
                               PlanSpec{1 << 18, 2, Transform::c2c_forward}, PlanSpec{10007, 2, Transform::c2r},
                               PlanSpec{1 << 16, 16, Transform::c2c_forward}, PlanSpec{1 << 17, 16, Transform::r2c},
                               PlanSpec{8192, 64, Transform::c2c_forward}, PlanSpec{16384, 16, Transform::c2r}}) {
    SCOPED_TRACE(std::to_string(spec.n) + " " + std::string(transform_name(spec.transform)));
    const std::vector<PlannerOptions> candidates = planner_candidates(spec);
    ASSERT_FALSE(candidates.empty());
    expect_same_options(candidates.front(), PlannerOptions{});
    EXPECT_GE(candidates.size(), 2u) << "nothing to choose from";
    std::set<std::string> launches;
    for (const PlannerOptions& options : candidates) {
      const PlanLayout layout = make_plan_layout(spec, options);
      std::string blocking;
      for (const Step& step : layout.steps) {
        blocking += step.kind == Step::Kind::cluster_pass
                        ? "cluster " + std::to_string(step.cluster.cluster) + "x" +
                              std::to_string(step.cluster.m) + " "
                        : std::to_string(step.pass.n) + ":" + std::to_string(step.pass.per_block) + "/" +
                              std::to_string(step.pass.threads) + "/" +
                              std::to_string(step.pass.rows_elements_per_thread) + " ";
      }
      EXPECT_TRUE(launches.insert(blocking).second) << describe(options) << " plans " << blocking
                                                    << "as an earlier candidate does";
    }
  }
  // One single pass: the four-step options change nothing, so only the single-pass blocking varies.
  for (const PlannerOptions& options : planner_candidates(PlanSpec{1024, 64, Transform::c2c_forward})) {
    EXPECT_EQ(options.column_elements_per_block, PlannerOptions{}.column_elements_per_block);
    EXPECT_EQ(options.row_elements_per_block, PlannerOptions{}.row_elements_per_block);
  }
  // A four-step length varies the column and row passes.
  bool varies_columns = false;
  for (const PlannerOptions& options : planner_candidates(PlanSpec{1 << 18, 2, Transform::c2c_forward}))
    varies_columns = varies_columns || options.column_elements_per_block != PlannerOptions{}.column_elements_per_block;
  EXPECT_TRUE(varies_columns);
  // A cluster length: both block lengths and the four-step instead.
  std::set<int> cluster_lengths;
  for (const PlannerOptions& options : planner_candidates(PlanSpec{1 << 16, 16, Transform::c2c_forward}))
    cluster_lengths.insert(options.cluster_block_length);
  EXPECT_EQ(cluster_lengths, (std::set<int>{0, 8192, 16384}));
  // A Bluestein length: the convolution lengths the estimate ranks next, each one planned; other
  // lengths have none. A length Rader's algorithm takes by default (65537): all six, and Rader
  // the default; one it can take but does not (7681): Rader a candidate of its own.
  for (const PlanSpec& spec : {PlanSpec{4097, 16, Transform::c2c_forward}, PlanSpec{65537, 4, Transform::r2c},
                               PlanSpec{7681, 16, Transform::c2c_forward}}) {
    SCOPED_TRACE(spec.n);
    std::vector<long long> lengths;
    bool rader_candidate = false;
    for (const PlannerOptions& options : planner_candidates(spec)) {
      rader_candidate = rader_candidate || options.rader == 1;
      if (options.bluestein_length == 0) continue;
      EXPECT_EQ(make_plan_layout(spec, options).bluestein_length, options.bluestein_length);
      lengths.push_back(options.bluestein_length);
    }
    const std::vector<long long> estimated = bluestein_lengths(static_cast<long long>(spec.n), 6);
    ASSERT_EQ(estimated.size(), 6u);
    const bool rader_default = rader_rule(static_cast<long long>(spec.n));
    EXPECT_EQ(rader_default, spec.n == 65537);
    EXPECT_EQ(rader_candidate, spec.n == 7681);  // 65537's is the default plan's, listed once
    if (rader_default) {
      EXPECT_EQ(make_plan_layout(spec).algorithm.find("rader"), 0u);
      EXPECT_EQ(lengths, estimated);
    } else {
      // The first is the default plan's, which the default options already measure.
      EXPECT_EQ(make_plan_layout(spec).bluestein_length, estimated.front());
      EXPECT_EQ(lengths, std::vector<long long>(estimated.begin() + 1, estimated.end()));
    }
  }
  for (const PlannerOptions& options : planner_candidates(PlanSpec{1 << 18, 2, Transform::c2c_forward}))
    EXPECT_EQ(options.bluestein_length, 0);
  // The four-step splits: every split of the complex length with compiled sides that plans
  // differently from the default, each planned as asked; none for a single pass.
  for (const PlanSpec& spec : {PlanSpec{1 << 20, 4, Transform::c2c_forward}, PlanSpec{48000, 64, Transform::c2c_inverse},
                               PlanSpec{1 << 18, 4, Transform::r2c}, PlanSpec{96000, 16, Transform::c2r}}) {
    SCOPED_TRACE(spec.n);
    const long long complex_length = planner_complex_length(spec);
    std::set<int> splits;
    for (const PlannerOptions& options : planner_candidates(spec)) {
      if (options.four_step_columns == 0) continue;
      EXPECT_TRUE(splits.insert(options.four_step_columns).second);
      const std::string split = "four-step " + std::to_string(options.four_step_columns) + "x" +
                                std::to_string(complex_length / options.four_step_columns);
      EXPECT_NE(make_plan_layout(spec, options).algorithm.find(split), std::string::npos)
          << make_plan_layout(spec, options).algorithm << " for " << split;
    }
    const std::vector<int> possible = four_step_column_candidates(complex_length);
    EXPECT_GE(splits.size() + 1, possible.size());  // the default's split is listed once, as the default
    EXPECT_GE(splits.size(), 4u);
    for (int columns : splits) EXPECT_NE(std::find(possible.begin(), possible.end(), columns), possible.end());
  }
  for (const PlannerOptions& options : planner_candidates(PlanSpec{16384, 4, Transform::c2c_forward}))
    EXPECT_EQ(options.four_step_columns, 0);
  // Rows with wide teams (8192; real transforms of twice that): both widths, the other width than
  // the planner's rule as a candidate of its own; other lengths have no such candidate.
  for (const PlanSpec& spec : {PlanSpec{8192, 64, Transform::c2c_forward}, PlanSpec{8192, 8, Transform::c2c_inverse},
                               PlanSpec{16384, 8, Transform::r2c}, PlanSpec{16384, 8, Transform::c2r}}) {
    SCOPED_TRACE(std::to_string(spec.n) + " " + std::string(transform_name(spec.transform)));
    std::set<int> widths;
    for (const PlannerOptions& options : planner_candidates(spec)) {
      const PlanLayout layout = make_plan_layout(spec, options);
      ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
      widths.insert(layout.steps[0].pass.rows_elements_per_thread);
    }
    EXPECT_EQ(widths, (std::set<int>{16, 32}));
  }
  // Rows of 500, 1000, 2000 and 4000: the decimal teams (the planner's rule, the default candidate)
  // against the plain rows kernel at each of its blockings (the candidates give rows of 4000 two
  // distinct blockings, the shorter rows three or more).
  for (const PlanSpec& spec : {PlanSpec{1000, 64, Transform::c2c_forward}, PlanSpec{500, 64, Transform::c2c_inverse},
                               PlanSpec{2000, 64, Transform::c2c_forward}, PlanSpec{1000, 8, Transform::r2c},
                               PlanSpec{2000, 8, Transform::c2r}, PlanSpec{4000, 8, Transform::r2c},
                               PlanSpec{4000, 16, Transform::c2c_inverse}, PlanSpec{8000, 8, Transform::c2r}}) {
    SCOPED_TRACE(std::to_string(spec.n) + " " + std::string(transform_name(spec.transform)));
    int decimal_candidates = 0;
    std::set<int> plain_blockings;
    for (const PlannerOptions& options : planner_candidates(spec)) {
      const PlanLayout layout = make_plan_layout(spec, options);
      ASSERT_EQ(layout.steps.size(), 1u) << layout.algorithm;
      const PassDesc& p = layout.steps[0].pass;
      if (p.rows_elements_per_thread == kDecimalTeamElements) {
        ++decimal_candidates;
        expect_same_options(options, PlannerOptions{});
      } else {
        EXPECT_EQ(p.rows_elements_per_thread, kElementsPerThread) << describe(options);
        plain_blockings.insert(p.per_block);
      }
    }
    EXPECT_EQ(decimal_candidates, 1);
    const bool real = spec.transform == Transform::r2c || spec.transform == Transform::c2r;
    const std::size_t rows_length = real ? spec.n / 2 : spec.n;
    EXPECT_GE(plain_blockings.size(), rows_length == 4000 ? 2u : 3u)
        << "the plain rows kernel at several blockings";
  }
  for (const PlanSpec& spec : {PlanSpec{4096, 64, Transform::c2c_forward}, PlanSpec{32768, 8, Transform::c2r},
                               PlanSpec{8000, 64, Transform::c2c_forward}}) {
    for (const PlannerOptions& options : planner_candidates(spec)) {
      for (const Step& step : make_plan_layout(spec, options).steps)
        EXPECT_EQ(step.pass.rows_elements_per_thread, kElementsPerThread)
            << spec.n << " has no teams to choose between: " << describe(options);
    }
  }
}

}  // namespace
}  // namespace prism::fft::gpu
