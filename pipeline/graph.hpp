// Graph: a source, stages and sinks connected by typed edges, and the threaded run that moves
// chunks through them.
//
//   Graph g;
//   auto in   = g.add_source(open_source("rec.sigmf-meta"));
//   auto spec = g.add_stage(std::move(made.stage));      // samples -> rows
//   g.connect(in, spec);
//   g.connect(spec, g.add_sink(open_sink("spec.png")));  // fan out: connect more sinks or stages
//   g.connect(in, g.add_sink(open_sink("copy.sigmf-meta")));
//   RunReport report = g.run(config, stop);
//
// Configuration (configure(), or the start of run()): checks that each consumer takes the kind of
// items its producer gives, inserts a transfer stage where two connected nodes live in different
// memory domains (host -> CUDA device, device -> host: samples cross the bus in their native
// format), configures every stage from its input's description, and sizes every chunk pool.
// Host edges hold `block_count` chunks; device edges `in_flight` chunks: the chunks whose copies
// and kernels overlap. Nothing allocates after that.
//
// The run: one thread per node, a bounded queue per edge. The source thread reads chunks (a file
// or generator source waits for a free chunk; a live source never waits: it counts what it
// drops). A stage thread takes its input chunk, writes an output chunk and passes it to every
// consumer; a chunk goes back to its pool when its last consumer lets go. GPU stages only enqueue
// work; their chunks carry the events that order it (gpu_runtime.hpp). A stop (end of input,
// Ctrl-C through the StopToken, or an error in any node) ends every thread; run() returns when
// all of them have been joined and every GPU stream is idle.
//
// Outputs: after an error the sinks are aborted (their partial outputs removed), except when a
// live input failed first (a device unplugged) or the input stalled (RunConfig::stall_timeout_s):
// what it delivered cannot be read again, so the sinks are finished as incomplete, as after an
// interruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "source.hpp"
#include "stage.hpp"
#include "stop_token.hpp"

namespace prism {

struct ProgressUpdate {
  std::uint64_t samples_done = 0;              // read from the source, per channel
  std::optional<std::uint64_t> samples_total;  // when the source knows its length
  double elapsed_seconds = 0.0;
  // Live input only: samples dropped so far because no chunk was free (the source's own drops
  // are Source::dropped_samples()). Lets a live display show overruns while running.
  std::uint64_t samples_dropped = 0;
};

struct RunConfig {
  std::size_t block_samples = std::size_t{1} << 16;  // samples per channel per source chunk, >= 1
  std::size_t block_count = 4;                       // chunks per host edge, >= 2
  std::size_t in_flight = 2;                         // chunks per device edge, >= 1
  // Ends the input after this many samples per channel (those dropped by a live input count):
  // a capture of a given length from a live input, or the start of a file. The run completes.
  std::optional<std::uint64_t> max_samples;
  // A source read that delivers nothing for this many seconds ends the run with an error naming
  // the input, keeping the outputs marked incomplete, as when a live input fails. 0: never.
  double stall_timeout_s = 0;
  // How messages name these fields: by the field's name ("stall_timeout_s") when null; the
  // command line names its options (--stall-timeout). A plain function, as
  // SourceOptions::field_namer.
  std::string (*field_namer)(std::string_view field) = nullptr;
  std::string name(std::string_view field) const {
    return field_namer ? field_namer(field) : std::string(field);
  }
  // Called from the source thread after each chunk; keep it cheap (rate-limit inside).
  std::function<void(const ProgressUpdate&)> on_progress;
};

enum class RunOutcome { completed, interrupted, failed };

enum class NodeRole { source, stage, transfer, sink };

// One node of a finished (or failed) run: what it is and what it counted.
struct NodeReport {
  std::string name;         // "gen", "spectrogram", "h2d", "spec.png"
  NodeRole role = NodeRole::stage;
  std::string description;  // Stage::describe(), Sink::describe(), Source::describe()
  std::optional<std::size_t> input;  // index of the producer in RunReport::nodes
  std::optional<PortKind> input_kind, output_kind;
  std::uint64_t items_delivered = 0;  // items the graph handed to this node's input
  StageCounters counters;             // the node's own counts (a sink's items_out: items written)
};

struct RunReport {
  RunOutcome outcome = RunOutcome::completed;
  std::string error;  // what ended a failed run, with the node that failed
  // The run failed before any item moved, on a setting that cannot work (a UsageError from a
  // stage's or a sink's setup, e.g. a PNG given angle rows): the command line's exit code 2.
  bool usage_error = false;
  // A failed run whose outputs were kept, marked incomplete (a live input failed first; every
  // sink finished). False when they were removed.
  bool outputs_kept_incomplete = false;
  StreamInfo stream;                  // the source's
  std::uint64_t samples_read = 0;     // samples per channel the source delivered
  std::uint64_t samples_dropped = 0;  // overruns: live samples with no free chunk, or dropped
                                      // by the device before they reached prism
  std::uint64_t overflows_of_unknown_length = 0;  // Source::overflows_of_unknown_length
  std::uint64_t chunks = 0;           // chunks the source delivered
  std::vector<NodeReport> nodes;      // the source first, then in the order of the data flow
  double elapsed_seconds = 0.0;
  std::size_t host_pool_bytes = 0;    // chunk pools in host memory (pinned included)
  std::size_t device_pool_bytes = 0;  // chunk pools in device memory
  std::size_t peak_rss_bytes = 0;     // the process's peak resident memory (VmHWM)

  // Empty when every count balances: on every edge the items out of the producer equal the
  // items each consumer took in, and each sink wrote what it received. Otherwise a sentence
  // saying which counts differ.
  std::string accounting_mismatch() const;
  // The first node of this name, or null.
  const NodeReport* node(const std::string& name) const;
  // The sinks, in the order they were added.
  std::vector<const NodeReport*> sinks() const;
};

class Graph {
 public:
  using Node = std::size_t;

  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Nodes given by reference are not owned and must outlive the graph.
  Node add_source(std::unique_ptr<Source> source);
  Node add_source(Source& source);
  Node add_stage(std::unique_ptr<Stage> stage);
  Node add_stage(Stage& stage);
  Node add_sink(std::unique_ptr<Sink> sink);
  Node add_sink(Sink& sink);
  // Items flow from `from` (a source or a stage) into `to` (a stage or a sink, which takes one
  // input). Throws std::invalid_argument for a connection the graph cannot have.
  void connect(Node from, Node to);

  // Checks and sizes everything (see the top of this file); throws UsageError when a consumer does
  // not take what its producer gives or a stage refuses its input (naming both), std::runtime_error
  // or CudaError when memory cannot be had. run() does it when it was not done.
  void configure(const RunConfig& config);

  // Runs until the input ends, `stop` is requested, or a node fails. Sinks are begun, then
  // finished (complete or interrupted) or aborted (failed) here. Never throws for a node's
  // failure: it is reported in RunReport::error.
  RunReport run(const RunConfig& config, StopToken& stop);

  // The chain as text, transfers included once configured: "gen ! spectrogram ! spec.png".
  std::string describe() const;

  Source& source();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process's peak resident set size in bytes (VmHWM), 0 where unknown.
std::size_t peak_resident_bytes();
// Resets the peak so that a later peak_resident_bytes() measures from now (Linux clear_refs);
// returns false where the system does not allow it.
bool reset_peak_resident_bytes();

}  // namespace prism
