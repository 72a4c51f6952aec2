// Processor: turns blocks of samples into rows of spectra. A processor knows nothing of files
// or devices: it sees blocks (with their absolute sample index) and writes rows into buffers
// the pipeline hands it. Output must not depend on how the input was cut into blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pipeline/block.hpp"
#include "pipeline/spectrum_layout.hpp"

namespace prism {

// What a processor took in and gave out, for the run summary and the accounting checks.
struct ProcessorCounters {
  std::uint64_t samples_in = 0;        // samples per channel received
  std::uint64_t frames = 0;            // STFT frames computed
  std::uint64_t rows_out = 0;          // rows written (frames / averaging)
  std::uint64_t tail_samples = 0;      // samples at the end that filled no complete frame
  std::uint64_t frames_unaveraged = 0; // trailing frames that filled no complete average
};

class Processor {
 public:
  virtual ~Processor() = default;

  // The meaning of the rows this processor writes (valid from construction on).
  virtual const SpectrumLayout& layout() const = 0;

  // The most rows one call of process() can write for a block of `block_samples` samples.
  // The pipeline sizes its row buffers from this once, before the run.
  virtual std::size_t max_rows_per_block(std::size_t block_samples) const = 0;

  // Consumes one block (blocks arrive in order, without gaps) and writes the rows it
  // completes into `rows` (room for max_rows_per_block(block.samples) * layout().columns
  // floats). Returns the number of rows written. Never allocates.
  virtual std::size_t process(const Block& block, float* rows) = 0;

  // Called once at the end of input; writes any rows still pending. Returns their number.
  virtual std::size_t finish(float* rows) = 0;

  // Blocks in flight: a processor that overlaps the transfer of one block with the work on
  // earlier ones (a GPU engine) keeps using up to k = blocks_in_flight() blocks after process()
  // returns. Then process() of block i writes the rows of block i-k (a latency of k blocks),
  // and once it returns the processor reads no block but the last k it was given; the pipeline
  // keeps those out of the pool (it sizes the pool k blocks larger). The default, 0: a block is
  // free again as soon as process() returns.
  virtual std::size_t blocks_in_flight() const { return 0; }

  // At the end of input, before finish(): writes the rows of the oldest block still in flight
  // (room as for process()) and returns true, after which that block is no longer read; returns
  // false when no block is left in flight. The pipeline calls it until it returns false.
  virtual bool drain(float* /*rows*/, std::size_t& rows_written) {
    rows_written = 0;
    return false;
  }

  // Rows named at submission, for processors with blocks in flight (a GPU engine whose rows of
  // block i can start their copy to the host as soon as they exist): when this returns true
  // the pipeline calls submit() and retire() instead of process() and drain(). submit() takes
  // block i and the buffer for block i's own rows (room as for process()), and returns the
  // number of rows of block i-k, which are in the buffer named with block i-k by then (0 while
  // fewer than k+1 blocks were submitted). retire(), at the end of input before finish(),
  // returns true with the row count of the oldest block still in flight (its rows in its
  // named buffer), false when none is left. A named buffer is the processor's to write until
  // its block is retired.
  virtual bool rows_named_at_submit() const { return false; }
  virtual std::size_t submit(const Block& block, float* rows) { return process(block, rows); }
  virtual bool retire(std::size_t& rows_written) {
    rows_written = 0;
    return false;
  }

  // When a run stops early (interrupted or failed): abandons the work in flight. After it
  // returns the processor reads no block (the pipeline may free the pool). Never throws.
  virtual void cancel() noexcept {}

  virtual ProcessorCounters counters() const = 0;

  // e.g. "cpu (FFTW, 2 threads)", for the run summary.
  virtual std::string describe() const = 0;
};

}  // namespace prism
