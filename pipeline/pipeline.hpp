// The CPU streaming run: a source thread, a processing thread and one thread per sink,
// connected by lock-free queues, with every buffer allocated before the first sample moves.
//
//   source thread ──[filled blocks]──► processing thread ──[row batches]──► sink threads
//        ▲                                   │                                   │
//        └─────────── free blocks ◄──────────┘          free row batches ◄───────┘
//
// Back-pressure: a file or generator source waits for a free block (a batch run never loses a
// sample); a live source never waits: with no free block it drops the samples it read and
// counts them as overruns. A stop (end of input, Ctrl-C through the StopToken, or an error in
// any stage) ends every thread; run_pipeline returns only when all of them have been joined.
// After an error the sinks are aborted (their partial outputs removed), except when a live
// input failed first (a device unplugged): what it delivered cannot be read again, so the sinks
// are finished as incomplete, as after an interruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/host_memory.hpp"
#include "pipeline/processor.hpp"
#include "pipeline/row_sink.hpp"
#include "pipeline/source.hpp"
#include "pipeline/stop_token.hpp"

namespace prism {

struct ProgressUpdate {
  std::uint64_t samples_done = 0;               // processed, per channel
  std::optional<std::uint64_t> samples_total;   // when the source knows its length
  double elapsed_seconds = 0.0;
  // Live input only: samples dropped so far because no block was free (the source's own
  // drops are Source::dropped_samples()). Lets a live display show overruns while running.
  std::uint64_t samples_dropped = 0;
};

struct PipelineConfig {
  std::size_t block_samples = std::size_t{1} << 16;  // samples per channel per block, >= 1
  std::size_t block_count = 4;                       // blocks in the pool, >= 2
  std::size_t row_buffer_count = 4;                  // row batches in flight, >= 1
  HostMemoryKind memory = HostMemoryKind::page_aligned;
  // Ends the input after this many samples per channel (those dropped by a live input count):
  // a capture of a given length from a live input, or the start of a file. The run completes.
  std::optional<std::uint64_t> max_samples;
  // Called from the processing thread after each block; keep it cheap (rate-limit inside).
  std::function<void(const ProgressUpdate&)> on_progress;
};

enum class RunOutcome { completed, interrupted, failed };

struct SinkReport {
  std::string description;
  std::uint64_t rows_in = 0;       // rows the pipeline handed to the sink
  std::uint64_t rows_written = 0;  // rows the sink says it wrote
};

struct RunReport {
  RunOutcome outcome = RunOutcome::completed;
  std::string error;  // what ended a failed run, with the stage that failed
  // A failed run whose outputs were kept, marked incomplete (a live input failed first; every
  // sink finished). False when they were removed.
  bool outputs_kept_incomplete = false;
  std::string source_description;
  StreamInfo stream;
  std::string processor_description;
  std::uint64_t samples_read = 0;     // samples per channel the source thread delivered
  std::uint64_t samples_dropped = 0;  // overruns: live samples with no free block, or dropped
                                      // by the device before they reached prism
  std::uint64_t overflows_of_unknown_length = 0;  // Source::overflows_of_unknown_length
  std::uint64_t blocks = 0;
  ProcessorCounters processor;
  std::vector<SinkReport> sinks;
  double elapsed_seconds = 0.0;
  std::size_t pool_bytes = 0;        // sample blocks
  std::size_t row_buffer_bytes = 0;  // row batches
  std::size_t peak_rss_bytes = 0;    // the process's peak resident memory (VmHWM)

  // Empty when every count balances: samples read = samples processed; rows out = rows in and
  // rows written at every sink. Otherwise a sentence saying which counts differ.
  std::string accounting_mismatch() const;
};

// Runs `source` through `processor` into `sinks` until the input ends, `stop` is requested, or
// a stage fails. Sinks are begun, then finished (complete or interrupted) or aborted (failed)
// here. Never throws for a stage's failure: it is reported in RunReport::error.
RunReport run_pipeline(Source& source, Processor& processor, const std::vector<RowSink*>& sinks,
                       const PipelineConfig& config, StopToken& stop);

// The process's peak resident set size in bytes (VmHWM), 0 where unknown.
std::size_t peak_resident_bytes();
// Resets the peak so that a later peak_resident_bytes() measures from now (Linux clear_refs);
// returns false where the system does not allow it.
bool reset_peak_resident_bytes();

}  // namespace prism
