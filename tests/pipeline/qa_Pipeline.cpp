// The threaded run: accounting, back-pressure, overruns of live sources, bounded memory and the
// clean stop (end of input, a stop request, a failing source, processor or sink).
// The sources, processor and sinks here are small real implementations whose behaviour the
// tests control (how many samples, when to fail), so that each property is checked exactly.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pipeline/format.hpp"
#include "pipeline/pipeline.hpp"
#include "pipeline/run_summary.hpp"

namespace prism {
namespace {

// Counts up: sample k has the value k (as float), so any loss or reordering shows in the sums.
class RampSource : public Source {
 public:
  RampSource(std::uint64_t length, bool live = false, std::uint64_t fail_at = UINT64_MAX)
      : fail_at_(fail_at) {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
    info_.length = length;
    info_.live = live;
    length_ = length;
  }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    if (next_ >= fail_at_) throw std::runtime_error("device unplugged");
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_samples, length_ - next_));
    auto* out = reinterpret_cast<float*>(dst);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(next_ + i);
    next_ += n;
    return n;
  }
  std::string describe() const override { return "ramp"; }
  std::uint64_t produced() const { return next_; }

 private:
  StreamInfo info_;
  std::uint64_t length_ = 0;
  std::uint64_t next_ = 0;
  std::uint64_t fail_at_;
};

// A source that never ends until interrupted, like a device or a pipe.
class EndlessSource : public Source {
 public:
  EndlessSource() {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
  }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    std::memset(dst, 0, max_samples * sizeof(float));
    return max_samples;
  }
  std::string describe() const override { return "endless"; }

 private:
  StreamInfo info_;
};

// One row per block: [sum of samples, count, first sample index]. Optionally slow or failing.
class BlockSumProcessor : public Processor {
 public:
  explicit BlockSumProcessor(std::chrono::microseconds delay = {}, std::uint64_t fail_after = UINT64_MAX)
      : delay_(delay), fail_after_(fail_after) {
    layout_.columns = 3;
    layout_.frequencies = {0, 1, 2};
    layout_.row_interval = 1;
  }
  const SpectrumLayout& layout() const override { return layout_; }
  std::size_t max_rows_per_block(std::size_t) const override { return 1; }
  std::size_t process(const Block& block, float* rows) override {
    if (counters_.rows_out >= fail_after_) throw std::runtime_error("kernel failed");
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const auto* samples = reinterpret_cast<const float*>(block.data);
    double sum = 0;
    for (std::size_t i = 0; i < block.samples; ++i) sum += samples[i];
    rows[0] = static_cast<float>(sum);
    rows[1] = static_cast<float>(block.samples);
    rows[2] = static_cast<float>(block.first_sample);
    counters_.samples_in += block.samples;
    ++counters_.frames;
    ++counters_.rows_out;
    return 1;
  }
  std::size_t finish(float*) override { return 0; }
  ProcessorCounters counters() const override { return counters_; }
  std::string describe() const override { return "block sum"; }

 private:
  SpectrumLayout layout_;
  ProcessorCounters counters_;
  std::chrono::microseconds delay_;
  std::uint64_t fail_after_;
};

// BlockSumProcessor's rows with k blocks in flight, the way a GPU engine returns them: block i's
// row comes out k calls later, computed only then from the block's samples (so a block the
// pipeline gave back to the pool too early shows up as a wrong sum). With rows named at
// submission the row is written into the buffer named with the block, and only at retirement
// (so rows handed to the sinks before then show up as stale).
class InFlightSumProcessor : public Processor {
 public:
  InFlightSumProcessor(std::size_t k, bool named) : k_(k), named_(named) {
    layout_.columns = 3;
    layout_.frequencies = {0, 1, 2};
    layout_.row_interval = 1;
  }
  const SpectrumLayout& layout() const override { return layout_; }
  std::size_t max_rows_per_block(std::size_t) const override { return 1; }
  std::size_t blocks_in_flight() const override { return k_; }
  bool rows_named_at_submit() const override { return named_; }

  std::size_t process(const Block& block, float* rows) override {
    EXPECT_FALSE(named_) << "process() called on a processor that names rows at submission";
    queue_.push_back({block, nullptr});
    if (queue_.size() <= k_) return 0;
    return retire_into(rows);
  }
  bool drain(float* rows, std::size_t& rows_written) override {
    rows_written = 0;
    if (queue_.empty()) return false;
    rows_written = retire_into(rows);
    return true;
  }
  std::size_t submit(const Block& block, float* rows) override {
    EXPECT_TRUE(named_) << "submit() called on a processor that does not name rows at submission";
    queue_.push_back({block, rows});
    if (queue_.size() <= k_) return 0;
    return retire_into(nullptr);
  }
  bool retire(std::size_t& rows_written) override {
    rows_written = 0;
    if (queue_.empty()) return false;
    rows_written = retire_into(nullptr);
    return true;
  }
  std::size_t finish(float*) override { return 0; }
  ProcessorCounters counters() const override { return counters_; }
  std::string describe() const override { return "in-flight block sum"; }

 private:
  struct Pending {
    Block block;
    float* named_rows;
  };
  std::size_t retire_into(float* rows) {
    const Pending p = queue_.front();
    queue_.pop_front();
    float* out = named_ ? p.named_rows : rows;
    const auto* samples = reinterpret_cast<const float*>(p.block.data);
    double sum = 0;
    for (std::size_t i = 0; i < p.block.samples; ++i) sum += samples[i];
    out[0] = static_cast<float>(sum);
    out[1] = static_cast<float>(p.block.samples);
    out[2] = static_cast<float>(p.block.first_sample);
    counters_.samples_in += p.block.samples;
    ++counters_.frames;
    ++counters_.rows_out;
    return 1;
  }
  SpectrumLayout layout_;
  ProcessorCounters counters_;
  std::size_t k_;
  bool named_;
  std::deque<Pending> queue_;
};

// Keeps what it is given and how it ended.
class RecordingSink : public RowSink {
 public:
  explicit RecordingSink(std::uint64_t fail_after_rows = UINT64_MAX) : fail_after_(fail_after_rows) {}
  void begin(const SpectrumLayout& layout) override { columns_ = layout.columns; begun = true; }
  void write(const float* rows, std::size_t count, std::uint64_t first_row) override {
    if (rows_ + count > fail_after_) throw std::runtime_error("disk full");
    EXPECT_EQ(first_row, rows_);
    values.insert(values.end(), rows, rows + count * columns_);
    rows_ += count;
  }
  void finish(bool complete) override { finished = true; finished_complete = complete; }
  void abort() noexcept override { aborted = true; }
  std::uint64_t rows_written() const override { return rows_; }
  std::string describe() const override { return "recorder"; }

  std::vector<float> values;
  bool begun = false, finished = false, finished_complete = false, aborted = false;

 private:
  std::size_t columns_ = 0;
  std::uint64_t rows_ = 0;
  std::uint64_t fail_after_;
};

PipelineConfig small_config(std::size_t block_samples = 100, std::size_t blocks = 3) {
  PipelineConfig config;
  config.block_samples = block_samples;
  config.block_count = blocks;
  config.row_buffer_count = 2;
  return config;
}

TEST(Pipeline, BatchRunBalancesExactlyAndKeepsOrder) {
  const std::uint64_t length = 100'003;  // not a multiple of the block size
  RampSource source(length);
  BlockSumProcessor processor;
  RecordingSink a, b;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&a, &b}, small_config(), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_read, length);
  EXPECT_EQ(report.processor.samples_in, length);
  EXPECT_EQ(report.samples_dropped, 0u);
  EXPECT_EQ(report.blocks, (length + 99) / 100);
  EXPECT_EQ(report.accounting_mismatch(), "");
  for (RecordingSink* sink : {&a, &b}) {
    EXPECT_TRUE(sink->finished && sink->finished_complete && !sink->aborted);
    ASSERT_EQ(sink->values.size(), report.blocks * 3);
    double total = 0, count = 0;
    for (std::size_t r = 0; r < report.blocks; ++r) {
      total += sink->values[r * 3];
      count += sink->values[r * 3 + 1];
      EXPECT_EQ(sink->values[r * 3 + 2], static_cast<float>(r * 100));  // blocks in order
    }
    EXPECT_EQ(count, static_cast<double>(length));
    EXPECT_NEAR(total, static_cast<double>(length) * (length - 1) / 2, 1e-6 * total);
  }
}

TEST(Pipeline, BlocksInFlightComeOutInOrderWithRowsReturnedOrNamedAtSubmission) {
  const std::uint64_t length = 20'011;
  for (bool named : {false, true}) {
    for (std::size_t k : {1, 2, 3}) {
      for (std::size_t row_buffers : {1, 2}) {
        const std::string where = std::string(named ? "named" : "returned") + ", k " + std::to_string(k) +
                                  ", " + std::to_string(row_buffers) + " row buffers";
        RampSource source(length);
        InFlightSumProcessor processor(k, named);
        RecordingSink sink;
        StopToken stop;
        PipelineConfig config = small_config(100, 2);
        config.row_buffer_count = row_buffers;
        const RunReport report = run_pipeline(source, processor, {&sink}, config, stop);
        ASSERT_EQ(report.outcome, RunOutcome::completed) << where << ": " << report.error;
        EXPECT_EQ(report.accounting_mismatch(), "") << where;
        ASSERT_EQ(sink.values.size(), report.blocks * 3) << where;
        for (std::size_t r = 0; r < report.blocks; ++r) {
          const double first = static_cast<double>(r * 100);
          const double n = std::min<double>(100, static_cast<double>(length) - first);
          EXPECT_EQ(sink.values[r * 3 + 2], static_cast<float>(first)) << where << ", row " << r;
          EXPECT_EQ(sink.values[r * 3 + 1], static_cast<float>(n)) << where << ", row " << r;
          EXPECT_NEAR(sink.values[r * 3], n * first + n * (n - 1) / 2, 1e-3) << where << ", row " << r;
        }
      }
    }
  }
}

TEST(Pipeline, SlowProcessingMakesFileSourcesWaitNotDrop) {
  RampSource source(5'000);
  BlockSumProcessor processor(std::chrono::microseconds(500));
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(100, 2), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_dropped, 0u);
  EXPECT_EQ(report.processor.samples_in, 5'000u);
}

TEST(Pipeline, LiveSourceCountsOverrunsInsteadOfWaiting) {
  RampSource source(200'000, /*live=*/true);
  BlockSumProcessor processor(std::chrono::microseconds(200));
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(100, 2), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_GT(report.samples_dropped, 0u) << "a fast live source on a slow processor must overrun";
  EXPECT_EQ(report.samples_read + report.samples_dropped, source.produced());
  EXPECT_EQ(report.processor.samples_in, report.samples_read);
  EXPECT_EQ(report.accounting_mismatch(), "");
  // What did arrive is placed at its true position in the stream, gaps and all.
  std::uint64_t last_first = 0;
  for (std::size_t r = 0; r < sink.values.size() / 3; ++r) {
    const auto first = static_cast<std::uint64_t>(sink.values[r * 3 + 2]);
    if (r > 0) {
      EXPECT_GT(first, last_first);
    }
    last_first = first;
  }
}

TEST(Pipeline, MaxSamplesEndsTheInputThere) {
  // A file cut inside a block, at a block boundary, and longer than the file.
  for (const std::uint64_t max : {std::uint64_t{1234}, std::uint64_t{1300}, std::uint64_t{9000}}) {
    RampSource source(5'000);
    BlockSumProcessor processor;
    RecordingSink sink;
    StopToken stop;
    PipelineConfig config = small_config(100, 3);
    config.max_samples = max;
    const RunReport report = run_pipeline(source, processor, {&sink}, config, stop);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
    const std::uint64_t expected = std::min<std::uint64_t>(max, 5'000);
    EXPECT_EQ(report.samples_read, expected) << "max " << max;
    EXPECT_EQ(source.produced(), expected) << "the source was read past the limit";
    EXPECT_EQ(report.processor.samples_in, expected);
    double sum = 0;
    for (std::size_t r = 0; r < sink.values.size() / 3; ++r) sum += sink.values[r * 3];
    EXPECT_NEAR(sum, static_cast<double>(expected) * (expected - 1) / 2, 1e-3 * expected);
  }
  // A live input: the limit counts what was dropped too, so the capture spans max samples of time.
  RampSource live(200'000, /*live=*/true);
  BlockSumProcessor slow(std::chrono::microseconds(200));
  RecordingSink sink;
  StopToken stop;
  PipelineConfig config = small_config(100, 2);
  config.max_samples = 50'000;
  const RunReport report = run_pipeline(live, slow, {&sink}, config, stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_read + report.samples_dropped, 50'000u);
  EXPECT_EQ(live.produced(), 50'000u);
  EXPECT_EQ(report.accounting_mismatch(), "");
}

TEST(Pipeline, StopRequestEndsAnEndlessRunAsInterrupted) {
  EndlessSource source;
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(), stop);
  stopper.join();
  EXPECT_EQ(report.outcome, RunOutcome::interrupted);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.finished_complete) << "an interrupted run's output is marked incomplete";
  EXPECT_FALSE(sink.aborted);
  EXPECT_GT(report.processor.samples_in, 0u);
  EXPECT_EQ(sink.rows_written(), report.processor.rows_out);
}

TEST(Pipeline, FailingSourceAbortsSinksAndNamesTheStage) {
  RampSource source(1'000'000, false, /*fail_at=*/5'000);
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("input ramp"), std::string::npos) << report.error;
  EXPECT_NE(report.error.find("device unplugged"), std::string::npos) << report.error;
  EXPECT_TRUE(sink.aborted);
  EXPECT_FALSE(sink.finished);
  EXPECT_FALSE(report.outputs_kept_incomplete);
}

TEST(Pipeline, FailingLiveSourceKeepsWhatItDeliveredMarkedIncomplete) {
  // A device unplugged mid-capture: its samples cannot be read again, so the rows stay.
  RampSource source(1'000'000, /*live=*/true, /*fail_at=*/5'000);
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(100, 64), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("device unplugged"), std::string::npos) << report.error;
  EXPECT_TRUE(report.outputs_kept_incomplete);
  EXPECT_FALSE(sink.aborted);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.finished_complete);
  EXPECT_GT(sink.rows_written(), 0u);
  // Every row that reached the sink holds the ramp's samples at their place.
  for (std::size_t r = 0; r < sink.values.size() / 3; ++r) {
    const double n = sink.values[r * 3 + 1], first = sink.values[r * 3 + 2];
    EXPECT_NEAR(sink.values[r * 3], n * first + n * (n - 1) / 2, 1e-3 * (n * first + 1)) << "row " << r;
  }
  EXPECT_EQ(run_summary_json(report)["outputs_kept_incomplete"], true);
}

TEST(Pipeline, FailingProcessorAbortsSinks) {
  RampSource source(1'000'000);
  BlockSumProcessor processor({}, /*fail_after=*/7);
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("processing: kernel failed"), std::string::npos) << report.error;
  EXPECT_TRUE(sink.aborted);
}

TEST(Pipeline, FailingSinkStopsTheRunAndAbortsEverySink) {
  RampSource source(1'000'000);
  BlockSumProcessor processor;
  RecordingSink good, bad(/*fail_after_rows=*/10);
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&good, &bad}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("disk full"), std::string::npos) << report.error;
  EXPECT_TRUE(good.aborted);
  EXPECT_TRUE(bad.aborted);
  EXPECT_LT(report.processor.samples_in, 1'000'000u) << "the run stopped early";
}

TEST(Pipeline, RejectsAPoolTooSmallToOverlap) {
  RampSource source(10);
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  PipelineConfig config = small_config(100, 1);
  const RunReport report = run_pipeline(source, processor, {&sink}, config, stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("at least 2 blocks"), std::string::npos) << report.error;
  EXPECT_FALSE(sink.begun);
}

TEST(Pipeline, MemoryStaysBoundedForAnInput100TimesThePool) {
  const std::size_t block_samples = 1 << 16;  // 256 KiB blocks, 1 MiB pool
  const std::uint64_t length = std::uint64_t{100} * 4 * block_samples;  // 100 MiB of samples
  RampSource source(length);
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  const bool can_reset = reset_peak_resident_bytes();
  const std::size_t before = peak_resident_bytes();
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(block_samples, 4), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.processor.samples_in, length);
  EXPECT_EQ(report.samples_read * sizeof(float), 100 * report.pool_bytes);
  if (!can_reset) GTEST_SKIP() << "/proc/self/clear_refs is not writable here; peak not measurable";
  const std::size_t growth = report.peak_rss_bytes > before ? report.peak_rss_bytes - before : 0;
  EXPECT_LT(growth, 16u << 20) << "peak resident memory grew by " << format_bytes(growth)
                               << " for a " << format_bytes(report.pool_bytes) << " pool";
}

TEST(Pipeline, SummaryNamesEveryCount) {
  RampSource source(1234);
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(), stop);
  const std::string text = format_run_summary(report);
  EXPECT_NE(text.find("run completed"), std::string::npos) << text;
  EXPECT_NE(text.find("1234 read, 1234 processed"), std::string::npos) << text;
  EXPECT_NE(text.find("accounting balanced"), std::string::npos) << text;
  const nlohmann::json json = run_summary_json(report);
  EXPECT_EQ(json["samples_read"], 1234);
  EXPECT_EQ(json["accounting"], "balanced");
  EXPECT_EQ(json["overflows_of_unknown_length"], 0);
  EXPECT_EQ(text.find("without saying how many"), std::string::npos) << text;
}

// A live device that reported losses without their length (an SDR driver without time stamps).
class OverflowingSource : public RampSource {
 public:
  OverflowingSource() : RampSource(1000, /*live=*/true) {}
  std::uint64_t overflows_of_unknown_length() const override { return 3; }
};

TEST(Pipeline, SummarySaysWhenTheDeviceLostSamplesOfUnknownLength) {
  OverflowingSource source;
  BlockSumProcessor processor;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_pipeline(source, processor, {&sink}, small_config(), stop);
  EXPECT_EQ(report.overflows_of_unknown_length, 3u);
  const std::string text = format_run_summary(report);
  EXPECT_NE(text.find("the device lost samples 3 time(s) without saying how many"), std::string::npos) << text;
  EXPECT_EQ(run_summary_json(report)["overflows_of_unknown_length"], 3);
}

}  // namespace
}  // namespace prism
