// The threaded CPU run (see pipeline.hpp): threads, queues, accounting and the clean stop.
#include "pipeline/pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <concurrentqueue/blockingconcurrentqueue.h>

#include "pipeline/block_pool.hpp"

namespace prism {

namespace {

using Clock = std::chrono::steady_clock;

// A buffer of rows travelling from the processing thread to every sink; it goes back to the
// free queue when the last sink is done with it.
struct RowBatch {
  // Sized once: max rows per block × columns; pinned with a GPU processor, whose rows then come
  // back into it by DMA.
  HostBuffer memory;
  float* values = nullptr;
  std::size_t count = 0;
  std::size_t rows = 0;
  std::uint64_t first_row = 0;
  std::atomic<int> pending_sinks{0};
};

template <typename T>
using Queue = moodycamel::BlockingConcurrentQueue<T>;

// What a processor with blocks in flight still holds, oldest first: a ring sized once.
template <typename T>
class InFlight {
 public:
  explicit InFlight(std::size_t capacity) : items_(capacity) {}
  void push(T item) { items_[(first_ + count_++) % items_.size()] = item; }
  T pop() {
    T item = items_[first_];
    first_ = (first_ + 1) % items_.size();
    --count_;
    return item;
  }
  std::size_t size() const { return count_; }

 private:
  std::vector<T> items_;
  std::size_t first_ = 0, count_ = 0;
};

// The first error of a run wins; later ones are consequences of the stop it caused.
class ErrorSlot {
 public:
  // Keeps the first error only; true when this was it.
  bool set(const std::string& stage, const std::string& what) {
    std::lock_guard lock(mutex_);  // only on the error path, never on the hot path
    if (!message_.empty()) return false;
    message_ = stage + ": " + what;
    return true;
  }
  std::string get() const {
    std::lock_guard lock(mutex_);
    return message_;
  }

 private:
  mutable std::mutex mutex_;
  std::string message_;
};

std::string current_exception_text() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

std::size_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      std::size_t kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

bool reset_peak_resident_bytes() {
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  return static_cast<bool>(clear.flush());
}

std::string RunReport::accounting_mismatch() const {
  std::ostringstream out;
  if (outcome == RunOutcome::completed && samples_read != processor.samples_in)
    out << "the source delivered " << samples_read << " samples but the processor took in "
        << processor.samples_in << "; ";
  for (const SinkReport& sink : sinks) {
    if (sink.rows_in != processor.rows_out)
      out << sink.description << " received " << sink.rows_in << " rows of "
          << processor.rows_out << "; ";
    if (sink.rows_written != sink.rows_in)
      out << sink.description << " wrote " << sink.rows_written << " of the " << sink.rows_in
          << " rows it received; ";
  }
  std::string text = out.str();
  if (text.size() >= 2) text.resize(text.size() - 2);
  return text;
}

RunReport run_pipeline(Source& source, Processor& processor, const std::vector<RowSink*>& sinks,
                       const PipelineConfig& config, StopToken& stop) {
  RunReport report;
  report.source_description = source.describe();
  report.stream = source.info();
  report.processor_description = processor.describe();
  for (RowSink* sink : sinks) report.sinks.push_back({sink->describe(), 0, 0});

  const Clock::time_point start = Clock::now();
  const StreamInfo& info = source.info();
  const bool live = info.live;
  const std::size_t block_samples = config.block_samples;
  const std::size_t columns = processor.layout().columns;
  const std::size_t max_rows = processor.max_rows_per_block(block_samples);
  // Blocks the processor keeps after process() returns (see Processor::blocks_in_flight): the
  // pool holds them on top of block_count, so the source is never starved by them.
  const std::size_t in_flight = processor.blocks_in_flight();
  ErrorSlot error;

  auto finish_report = [&](RunOutcome outcome) {
    report.outcome = outcome;
    report.error = error.get();
    report.processor = processor.counters();
    for (std::size_t i = 0; i < sinks.size(); ++i) report.sinks[i].rows_written = sinks[i]->rows_written();
    report.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    report.peak_rss_bytes = peak_resident_bytes();
    return report;
  };

  // Everything the run needs is allocated here, before any thread starts.
  std::unique_ptr<BlockPool> pool;
  std::vector<RowBatch> batches;
  std::vector<std::byte> overrun_scratch;
  try {
    if (block_samples == 0) throw std::invalid_argument("the block size must be at least 1 sample");
    if (config.block_count < 2) throw std::invalid_argument("the pool needs at least 2 blocks");
    pool = std::make_unique<BlockPool>(config.block_count + in_flight,
                                       block_samples * info.frame_bytes(), config.memory);
    // A processor that names the row buffers at submission holds one per block in flight.
    const std::size_t named = processor.rows_named_at_submit() ? in_flight : 0;
    batches = std::vector<RowBatch>(std::max<std::size_t>(config.row_buffer_count, 1) + named);
    for (RowBatch& batch : batches) {
      batch.count = std::max<std::size_t>(max_rows, 1) * columns;
      batch.memory = allocate_host(batch.count * sizeof(float), config.memory);
      batch.values = reinterpret_cast<float*>(batch.memory.get());
      std::fill_n(batch.values, batch.count, 0.0f);
    }
    if (live) overrun_scratch.resize(block_samples * info.frame_bytes());
  } catch (...) {
    error.set("setup", current_exception_text());
    return finish_report(RunOutcome::failed);
  }
  report.pool_bytes = pool->total_bytes();
  report.row_buffer_bytes = batches.size() * batches[0].count * sizeof(float);

  // Open every sink before a sample moves, so a bad output path fails fast.
  std::size_t begun = 0;
  try {
    for (; begun < sinks.size(); ++begun) sinks[begun]->begin(processor.layout());
  } catch (...) {
    error.set("output", current_exception_text());
    for (std::size_t i = 0; i < begun; ++i) sinks[i]->abort();
    return finish_report(RunOutcome::failed);
  }

  Queue<Block*> filled(config.block_count + in_flight + 1);
  Queue<RowBatch*> free_batches(batches.size());
  for (RowBatch& batch : batches) free_batches.enqueue(&batch);
  std::vector<std::unique_ptr<Queue<RowBatch*>>> sink_queues;
  for (std::size_t i = 0; i < sinks.size(); ++i)
    sink_queues.push_back(std::make_unique<Queue<RowBatch*>>(batches.size() + 1));
  std::vector<std::atomic<std::uint64_t>> sink_rows_in(sinks.size());

  std::optional<std::uint64_t> expected_samples = info.length;  // for the progress bar
  if (config.max_samples) expected_samples = std::min(info.length.value_or(*config.max_samples), *config.max_samples);
  std::atomic<std::uint64_t> samples_read{0};
  std::atomic<std::uint64_t> samples_dropped{0};
  std::atomic<std::uint64_t> blocks_read{0};
  std::atomic<bool> input_ended{false};          // the source saw the end of its input
  std::atomic<bool> live_input_failed_first{false};  // the run's error is a live device's
  std::atomic<bool> processing_completed{false}; // every block and the final rows went out

  std::thread source_thread([&] {
    std::uint64_t position = 0;
    try {
      while (!stop.stop_requested()) {
        // What max_samples leaves to read; 0 ends the input as the source's own end does.
        const std::size_t wanted =
            config.max_samples ? std::min<std::uint64_t>(block_samples, *config.max_samples - position) : block_samples;
        Block* block = nullptr;
        if (wanted != 0) {
          block = live ? pool->try_acquire() : pool->acquire(stop);
          if (block == nullptr && !live) break;  // stopped while waiting
        }
        std::byte* destination = block != nullptr ? block->data : overrun_scratch.data();
        const std::size_t n = wanted == 0 ? 0 : source.read(destination, wanted);
        if (n == 0) {
          if (block != nullptr) pool->release(block);
          input_ended = true;
          filled.enqueue(nullptr);  // end of input
          break;
        }
        if (block == nullptr) {  // live input with every block busy: an overrun
          samples_dropped += n;
          position += n;
          continue;
        }
        block->samples = n;
        block->first_sample = position;
        position += n;
        samples_read += n;
        ++blocks_read;
        filled.enqueue(block);
      }
    } catch (...) {
      live_input_failed_first = error.set("input " + source.describe(), current_exception_text()) && live;
      stop.request_stop();
    }
  });

  std::thread processing_thread([&] {
    std::uint64_t next_row = 0;
    std::uint64_t samples_done = 0;
    // The blocks the processor still reads, oldest first, and with rows named at submission
    // the row batch of each of them.
    InFlight<Block*> held(in_flight + 1);
    const bool named = processor.rows_named_at_submit();
    InFlight<RowBatch*> named_batches(in_flight + 1);
    auto release_oldest = [&] { pool->release(held.pop()); };
    auto dispatch = [&](RowBatch* batch, std::size_t rows) {
      if (rows == 0 || sinks.empty()) {
        free_batches.enqueue(batch);
        return;
      }
      batch->rows = rows;
      batch->first_row = next_row;
      next_row += rows;
      batch->pending_sinks.store(static_cast<int>(sinks.size()), std::memory_order_release);
      for (auto& queue : sink_queues) queue->enqueue(batch);
    };
    auto take_batch = [&]() -> RowBatch* {
      RowBatch* batch = nullptr;
      while (!free_batches.wait_dequeue_timed(batch, kStopPollInterval))
        if (stop.stop_requested()) return nullptr;
      return batch;
    };
    try {
      while (true) {
        Block* block = nullptr;
        if (!filled.wait_dequeue_timed(block, kStopPollInterval)) {
          if (stop.stop_requested()) break;
          continue;
        }
        RowBatch* batch = take_batch();
        if (batch == nullptr) {
          if (block != nullptr) pool->release(block);
          break;
        }
        if (block == nullptr) {  // end of input: the blocks in flight, then the pending rows
          // Each retired block's rows: in the batch named with it, or drained into this one.
          std::size_t drained = 0;
          while (named ? processor.retire(drained) : processor.drain(batch->values, drained)) {
            if (held.size() > 0) release_oldest();
            if (named) {
              if (named_batches.size() > 0) dispatch(named_batches.pop(), drained);
              continue;
            }
            dispatch(batch, drained);
            batch = take_batch();
            if (batch == nullptr) break;
          }
          if (batch == nullptr) break;
          dispatch(batch, processor.finish(batch->values));
          processing_completed = true;
          break;
        }
        if (named) {
          const std::size_t rows = processor.submit(*block, batch->values);
          named_batches.push(batch);
          if (named_batches.size() > in_flight) dispatch(named_batches.pop(), rows);
        } else {
          dispatch(batch, processor.process(*block, batch->values));
        }
        samples_done += block->samples;
        held.push(block);
        if (held.size() > in_flight) release_oldest();
        if (config.on_progress)
          config.on_progress({samples_done, expected_samples,
                              std::chrono::duration<double>(Clock::now() - start).count(),
                              samples_dropped.load(std::memory_order_relaxed)});
        if (stop.stop_requested()) break;
      }
    } catch (...) {
      error.set("processing", current_exception_text());
      stop.request_stop();
    }
    // A stopped run abandons the work in flight before its blocks and row buffers are freed
    // (also when a submission failed half-way, with nothing held yet).
    if (!processing_completed) processor.cancel();
    while (held.size() > 0) release_oldest();
    for (auto& queue : sink_queues) queue->enqueue(nullptr);  // every sink thread ends
  });

  std::vector<std::thread> sink_threads;
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    sink_threads.emplace_back([&, i] {
      bool failed = false;
      while (true) {
        RowBatch* batch = nullptr;
        sink_queues[i]->wait_dequeue(batch);
        if (batch == nullptr) break;
        if (!failed) {
          try {
            sinks[i]->write(batch->values, batch->rows, batch->first_row);
            sink_rows_in[i] += batch->rows;
          } catch (...) {
            error.set("output " + sinks[i]->describe(), current_exception_text());
            stop.request_stop();
            failed = true;  // keep draining so the other sinks' batches come back
          }
        }
        if (batch->pending_sinks.fetch_sub(1, std::memory_order_acq_rel) == 1)
          free_batches.enqueue(batch);
      }
    });
  }

  // Wake a source that waits on a device or a pipe once a stop is requested.
  while (!input_ended && !stop.stop_requested()) std::this_thread::sleep_for(kStopPollInterval);
  if (!input_ended) source.interrupt();
  source_thread.join();
  processing_thread.join();
  for (std::thread& t : sink_threads) t.join();

  report.samples_read = samples_read;
  report.samples_dropped = samples_dropped + source.dropped_samples();
  report.overflows_of_unknown_length = source.overflows_of_unknown_length();
  report.blocks = blocks_read;
  for (std::size_t i = 0; i < sinks.size(); ++i) report.sinks[i].rows_in = sink_rows_in[i];

  std::string failure = error.get();
  const bool interrupted = failure.empty() && !processing_completed;
  if (failure.empty()) {
    for (RowSink* sink : sinks) {
      try {
        sink->finish(!interrupted);
      } catch (...) {
        error.set("output " + sink->describe(), current_exception_text());
        sink->abort();
      }
    }
    failure = error.get();
  } else if (live_input_failed_first) {
    // What a live device delivered before it failed cannot be captured again: the sinks keep
    // it, marked incomplete, as after an interruption.
    report.outputs_kept_incomplete = true;
    for (RowSink* sink : sinks) {
      try {
        sink->finish(false);
      } catch (...) {
        sink->abort();
        report.outputs_kept_incomplete = false;
      }
    }
  } else {
    for (RowSink* sink : sinks) sink->abort();
  }
  if (!failure.empty()) return finish_report(RunOutcome::failed);
  return finish_report(interrupted ? RunOutcome::interrupted : RunOutcome::completed);
}

}  // namespace prism
