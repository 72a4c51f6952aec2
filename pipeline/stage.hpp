// Stage and Sink: the two interfaces of the graph's nodes besides the source (pipeline/source.hpp).
//
//   Source  no input, one output port: fills chunks with samples (files, devices, generators).
//   Stage   one input port, one output port: turns chunks into chunks (a spectrogram turns
//           samples into rows, a filter samples into samples, a transfer moves them between
//           memory domains). Stateful stages give output that does not depend on how their
//           input was cut into chunks.
//   Sink    one input port, no output: where items leave the graph (files, audio, the viewer,
//           a program's callback).
//
// A stage's life cycle: made from its settings (stage_registry.hpp) → configure() once per run
// with its input's description and largest chunk, where it checks the input, derives its output
// and allocates → process() per chunk and flush() at the end of input, on the graph's thread for
// the stage → reset() to run again from its initial state. Nothing on the hot path allocates,
// locks a mutex or synchronises a whole device.
//
// GPU stages (input_domain() on a CUDA device) only enqueue work on their stream() and know how
// many items they write on the host. The graph makes that stream wait for the input chunk's
// `ready` event before process() and records the output chunk's `ready` event after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chunk.hpp"
#include "port.hpp"

namespace prism {

// A named count beyond items in and out: frames, tail samples, underflows ...
struct Counter {
  std::string name;
  std::uint64_t value = 0;
};

struct StageCounters {
  std::uint64_t items_in = 0;   // items taken from the input port
  std::uint64_t items_out = 0;  // items written to the output port
  std::vector<Counter> extras;
};

class Stage {
 public:
  virtual ~Stage() = default;

  // The registry's name ("spectrogram", "h2d"), and how this one runs, for the run summary
  // ("cpu: FFTW 3.3.10 (single precision), 2 threads").
  virtual std::string name() const = 0;
  virtual std::string describe() const = 0;

  virtual PortKind input_kind() const = 0;
  virtual PortKind output_kind() const = 0;
  // Where the stage reads its input and writes its output.
  virtual MemoryDomain input_domain() const { return MemoryDomain::host(); }
  virtual MemoryDomain output_domain() const { return input_domain(); }

  // Before a run (may allocate; may be called again for another run): checks `input` (UsageError
  // naming the setting that does not suit it) and returns the output's description. Chunks of at
  // most `max_input_items` items will arrive.
  virtual PortDescription configure(const PortDescription& input, std::size_t max_input_items) = 0;
  // The most items process() can write for an input chunk of `input_items` items; sizes the
  // output pool once, after configure().
  virtual std::size_t max_output(std::size_t input_items) const = 0;

  // Takes the input chunk's items (in order, without gaps; `input.first_item` is their absolute
  // index) and writes at most max_output(input.items) items into `output.data`. Returns how many.
  virtual std::size_t process(const Chunk& input, Chunk& output) = 0;
  // At the end of input: writes up to output.capacity of the items still owed and returns how
  // many; the graph calls it until it returns 0.
  virtual std::size_t flush(Chunk& /*output*/) { return 0; }
  // Back to the state before the first chunk (counters too); the configuration stays.
  virtual void reset() = 0;
  // Safe to call from another thread while the stage runs.
  virtual StageCounters counters() const = 0;

  // GPU stages: the stream their work is enqueued on; null for a host stage.
  virtual gpu::Stream stream() const { return nullptr; }
};

class Sink {
 public:
  virtual ~Sink() = default;

  virtual bool accepts(PortKind kind) const = 0;

  // Life cycle: begin() once, write() for each chunk in order, then exactly one of
  //   finish(complete=true)   the input ended and every item arrived: commit the output;
  //   finish(complete=false)  the run was interrupted (or a live input failed): commit what
  //                           arrived, marked as incomplete where the format allows;
  //   abort()                 an error ended the run: remove the partial output, so that no
  //                           partial file is left pretending to be complete.
  // File sinks write under a temporary name and rename it into place on finish().
  //
  // begin() opens the output; throws InputError (path and reason) when it cannot be created,
  // UsageError when the output cannot hold this input (complex samples into WAV).
  virtual void begin(const PortDescription& input) = 0;
  // Called when the graph is configured, before anything is opened: throws UsageError when the
  // output cannot hold this input, so that it is refused before the run.
  virtual void check_input(const PortDescription& /*input*/) const {}
  // `chunk.items` items in host memory, the first being item number `chunk.first_item`.
  virtual void write(const Chunk& chunk) = 0;
  virtual void finish(bool complete) = 0;
  virtual void abort() noexcept = 0;

  // Items this sink has written so far, and any counts of its own (playback underflows ...).
  virtual std::uint64_t items_written() const = 0;
  virtual std::vector<Counter> extras() const { return {}; }
  // What it writes, for the run summary: "out.npy (+ out.json)".
  virtual std::string describe() const = 0;
};

}  // namespace prism
