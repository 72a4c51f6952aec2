// Graph (see graph.hpp). Sections: nodes and connections · configuration (transfers, stage
// configuration, pools) · the run (threads, queues, the clean stop) · the report.
#include "pipeline/graph.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sched.h>

#include <concurrentqueue/blockingconcurrentqueue.h>

#include "pipeline/decimal_text.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/transfer_stage.hpp"

namespace prism {

namespace {

using Clock = std::chrono::steady_clock;

// How long a thread with a core of its own looks for its next message before it sleeps.
constexpr std::chrono::microseconds kSpinBeforeSleeping{200};

// The cores this process may run on: its affinity mask (taskset, a container's cpuset), which
// std::thread::hardware_concurrency ignores.
unsigned usable_cores() {
#ifdef __linux__
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) return static_cast<unsigned>(CPU_COUNT(&allowed));
#endif
  return std::thread::hardware_concurrency();
}

// Items per chunk of the source: the block size in samples; a source of rows (computed
// elsewhere) gets as many rows as hold the floats of that many samples, so that a chunk of wide
// rows does not hold block-size rows.
std::size_t source_chunk_items(const RunConfig& config, const PortDescription& output) {
  if (output.kind != PortKind::rows) return config.block_samples;
  return std::max<std::size_t>(config.block_samples / std::max<std::size_t>(output.rows.columns, 1), 1);
}

// What travels on an edge's queue: a chunk, or the end of the producer's output. `complete`
// says whether the producer delivered all of its input (false after a stop or an error).
struct Message {
  ChunkRef chunk;
  bool end = false;
  bool complete = false;
};
using Queue = moodycamel::BlockingConcurrentQueue<Message>;

// The first error of a run wins; later ones are consequences of the stop it caused.
class ErrorSlot {
 public:
  bool set(const std::string& node, const std::string& what) {
    std::lock_guard lock(mutex_);  // only on the error path, never on the hot path
    if (!message_.empty()) return false;
    message_ = node + ": " + what;
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

bool current_exception_is_usage_error() {
  try {
    throw;
  } catch (const UsageError&) {
    return true;
  } catch (...) {
    return false;
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

// ---- nodes and connections ------------------------------------------------------------------

struct Graph::Impl {
  struct NodeSlot {
    NodeRole role = NodeRole::stage;
    std::unique_ptr<Source> owned_source;
    std::unique_ptr<Stage> owned_stage;
    std::unique_ptr<Sink> owned_sink;
    Source* source = nullptr;
    Stage* stage = nullptr;
    Sink* sink = nullptr;
    std::optional<Node> input;
    std::vector<Node> consumers;
    // Set by configure():
    PortDescription input_description;
    PortDescription output_description;
    std::size_t max_input_items = 0;
    std::size_t max_output_items = 0;
    std::unique_ptr<ChunkPool> pool;  // producers: the chunks of their output

    std::string name() const {
      if (source != nullptr) return source->describe();
      if (stage != nullptr) return stage->name();
      return sink->describe();
    }
    // A stage that reads or writes device memory works on a stream of its own.
    bool on_gpu() const {
      return stage != nullptr && (stage->input_domain().on_device() || stage->output_domain().on_device());
    }
    MemoryDomain input_domain() const { return stage != nullptr ? stage->input_domain() : MemoryDomain::host(); }
    MemoryDomain output_domain() const { return stage != nullptr ? stage->output_domain() : MemoryDomain::host(); }
  };

  std::vector<NodeSlot> nodes;
  std::vector<Node> order;  // the data flow's order (breadth first from the source), once configured
  bool configured = false;
  bool ran = false;

  Node add(NodeSlot slot) {
    if (configured) throw std::logic_error("a graph cannot change once configured");
    nodes.push_back(std::move(slot));
    return nodes.size() - 1;
  }

  Node source_node() const {
    for (Node n = 0; n < nodes.size(); ++n)
      if (nodes[n].role == NodeRole::source) return n;
    throw UsageError("the graph has no source");
  }

  void configure(const RunConfig& config);
  void insert_transfers();
  RunReport run(const RunConfig& config, StopToken& stop);
};

Graph::Graph() : impl_(std::make_unique<Impl>()) {}
Graph::~Graph() = default;

Graph::Node Graph::add_source(std::unique_ptr<Source> source) {
  if (!source) throw std::invalid_argument("add_source: no source given");
  for (const auto& n : impl_->nodes)
    if (n.role == NodeRole::source) throw std::invalid_argument("a graph has one source");
  Impl::NodeSlot slot;
  slot.role = NodeRole::source;
  slot.source = source.get();
  slot.owned_source = std::move(source);
  return impl_->add(std::move(slot));
}

Graph::Node Graph::add_source(Source& source) {
  for (const auto& n : impl_->nodes)
    if (n.role == NodeRole::source) throw std::invalid_argument("a graph has one source");
  Impl::NodeSlot slot;
  slot.role = NodeRole::source;
  slot.source = &source;
  return impl_->add(std::move(slot));
}

Graph::Node Graph::add_stage(std::unique_ptr<Stage> stage) {
  if (!stage) throw std::invalid_argument("add_stage: no stage given");
  Impl::NodeSlot slot;
  slot.stage = stage.get();
  slot.owned_stage = std::move(stage);
  return impl_->add(std::move(slot));
}

Graph::Node Graph::add_stage(Stage& stage) {
  Impl::NodeSlot slot;
  slot.stage = &stage;
  return impl_->add(std::move(slot));
}

Graph::Node Graph::add_sink(std::unique_ptr<Sink> sink) {
  if (!sink) throw std::invalid_argument("add_sink: no sink given");
  Impl::NodeSlot slot;
  slot.role = NodeRole::sink;
  slot.sink = sink.get();
  slot.owned_sink = std::move(sink);
  return impl_->add(std::move(slot));
}

Graph::Node Graph::add_sink(Sink& sink) {
  Impl::NodeSlot slot;
  slot.role = NodeRole::sink;
  slot.sink = &sink;
  return impl_->add(std::move(slot));
}

void Graph::connect(Node from, Node to) {
  auto& nodes = impl_->nodes;
  if (impl_->configured) throw std::logic_error("a graph cannot change once configured");
  if (from >= nodes.size() || to >= nodes.size()) throw std::invalid_argument("connect: no such node");
  if (from == to) throw std::invalid_argument("connect: a node cannot feed itself");
  if (nodes[from].role == NodeRole::sink)
    throw std::invalid_argument("connect: '" + nodes[from].name() + "' is a sink: it has no output");
  if (nodes[to].role == NodeRole::source)
    throw std::invalid_argument("connect: '" + nodes[to].name() + "' is a source: it has no input");
  if (nodes[to].input)
    throw std::invalid_argument("connect: '" + nodes[to].name() + "' already takes its input from '" +
                                nodes[*nodes[to].input].name() + "'");
  nodes[to].input = from;
  nodes[from].consumers.push_back(to);
}

Source& Graph::source() { return *impl_->nodes[impl_->source_node()].source; }

// ---- configuration ------------------------------------------------------------------------------

// Between a producer and consumers in another domain: one transfer per domain, shared by every
// consumer there (the samples cross the bus once however many stages read them).
void Graph::Impl::insert_transfers() {
  const std::size_t original = nodes.size();
  for (Node p = 0; p < original; ++p) {
    if (nodes[p].role == NodeRole::sink) continue;
    const MemoryDomain out = nodes[p].output_domain();
    std::vector<Node> kept;
    std::vector<std::pair<MemoryDomain, Node>> transfers;  // domain -> transfer node
    const std::vector<Node> consumers = nodes[p].consumers;
    for (Node c : consumers) {
      const MemoryDomain in = nodes[c].input_domain();
      if (in == out || (in.host_accessible() && out.host_accessible())) {
        kept.push_back(c);
        continue;
      }
      auto found = std::find_if(transfers.begin(), transfers.end(), [&](const auto& t) { return t.first == in; });
      Node t = 0;
      if (found != transfers.end()) {
        t = found->second;
      } else {
        // A transfer carries what its producer gives; whether the consumer takes it is checked
        // in configure(), naming the producer.
        const PortKind kind = nodes[p].stage != nullptr ? nodes[p].stage->output_kind() : PortKind::samples;
        NodeSlot slot;
        slot.role = NodeRole::transfer;
        const MemoryDomain from = out.on_device() ? out : MemoryDomain::pinned_host();
        const MemoryDomain to = in.on_device() ? in : MemoryDomain::pinned_host();
        slot.owned_stage = std::make_unique<TransferStage>(from, to, kind);
        slot.stage = slot.owned_stage.get();
        slot.input = p;
        nodes.push_back(std::move(slot));
        t = nodes.size() - 1;
        transfers.emplace_back(in, t);
        kept.push_back(t);
      }
      nodes[t].consumers.push_back(c);
      nodes[c].input = t;
    }
    nodes[p].consumers = kept;
  }
}

void Graph::configure(const RunConfig& config) { impl_->configure(config); }

void Graph::Impl::configure(const RunConfig& config) {
  if (configured) return;
  if (config.block_samples == 0) throw UsageError("the block size must be at least 1 sample");
  if (config.block_count < 2) throw UsageError("the pool needs at least 2 blocks (one filling, one in work)");
  if (config.in_flight < 1) throw UsageError("at least 1 chunk must be in flight on a GPU edge");
  const Node root = source_node();
  for (Node n = 0; n < nodes.size(); ++n) {
    if (nodes[n].role != NodeRole::source && !nodes[n].input)
      throw UsageError("'" + nodes[n].name() + "' has no input: connect it to the source or a stage");
    if (nodes[n].role != NodeRole::sink && nodes[n].consumers.empty())
      throw UsageError("the output of '" + nodes[n].name() + "' goes nowhere: connect it to a sink");
  }
  insert_transfers();

  // The data flow's order; a node not reached hangs off a cycle.
  order.clear();
  std::deque<Node> frontier{root};
  std::vector<bool> seen(nodes.size(), false);
  seen[root] = true;
  while (!frontier.empty()) {
    const Node n = frontier.front();
    frontier.pop_front();
    order.push_back(n);
    for (Node c : nodes[n].consumers) {
      if (seen[c]) throw UsageError("the graph has a cycle through '" + nodes[c].name() + "'");
      seen[c] = true;
      frontier.push_back(c);
    }
  }
  if (order.size() != nodes.size())
    throw UsageError("the graph has nodes that the source does not reach (a cycle)");

  // Every consumer takes the kind its producer gives (checked for the whole graph before anything
  // is configured, so that a wrong chain is named before any device is touched).
  for (Node n : order) {
    const NodeSlot& node = nodes[n];
    if (!node.input) continue;
    const NodeSlot& producer = nodes[*node.input];
    const PortKind given = producer.stage != nullptr    ? producer.stage->output_kind()
                           : producer.source != nullptr ? producer.source->output().kind
                                                        : PortKind::samples;
    const std::string producer_name = producer.role == NodeRole::transfer && producer.input
                                          ? nodes[*producer.input].name()
                                          : producer.name();
    if (node.sink != nullptr && !node.sink->accepts(given))
      throw UsageError("'" + node.name() + "' cannot take the " + port_kind_name(given) + " that '" + producer_name +
                       "' gives");
    if (node.stage != nullptr && node.stage->input_kind() != given)
      throw UsageError("'" + node.name() + "' takes " + port_kind_name(node.stage->input_kind()) + ", but '" +
                       producer_name + "' gives " + port_kind_name(given));
  }

  // Descriptions and chunk sizes, producer before consumer.
  NodeSlot& source = nodes[root];
  source.output_description = source.source->output();
  source.max_output_items = source_chunk_items(config, source.output_description);
  for (Node n : order) {
    NodeSlot& node = nodes[n];
    if (node.role == NodeRole::source) continue;
    const NodeSlot& producer = nodes[*node.input];
    const PortDescription& given = producer.output_description;
    node.input_description = given;
    node.max_input_items = producer.max_output_items;
    if (node.sink != nullptr) {
      node.sink->check_input(given);
      continue;
    }
    node.output_description = node.stage->configure(given, node.max_input_items);
    if (node.output_description.kind != node.stage->output_kind())
      throw std::logic_error("stage '" + node.name() + "' described its output as the wrong kind");
    if (node.on_gpu() && node.stage->stream() == nullptr)
      throw std::logic_error("stage '" + node.name() + "' works on a device but gives no stream");
    node.max_output_items = std::max<std::size_t>(node.stage->max_output(node.max_input_items), 1);
  }

  // The pools: device edges hold in_flight chunks, host edges block_count; the host side of a
  // transfer is pinned and holds in_flight more, so that the copies never starve the producer.
  for (Node n : order) {
    NodeSlot& node = nodes[n];
    if (node.role == NodeRole::sink) continue;
    ChunkPool::Shape shape;
    const MemoryDomain out = node.output_domain();
    bool feeds_transfer = false;
    for (Node c : node.consumers) {
      shape.consumers_on_gpu.push_back(nodes[c].on_gpu());
      feeds_transfer = feeds_transfer || nodes[c].role == NodeRole::transfer;
    }
    if (out.on_device()) {
      shape.domain = out;
      shape.count = config.in_flight;
    } else {
      const bool pinned = out.kind == MemoryKind::pinned_host || feeds_transfer;
      shape.domain = pinned ? MemoryDomain::pinned_host() : MemoryDomain::host();
      shape.count = config.block_count + (pinned ? config.in_flight : 0);
    }
    shape.capacity = node.max_output_items;
    shape.item_bytes = node.output_description.item_bytes();
    if (shape.item_bytes == 0) throw UsageError("'" + node.name() + "' gives items of no size");
    shape.producer_on_gpu = node.on_gpu();
    node.pool = std::make_unique<ChunkPool>(shape);
  }
  configured = true;
}

std::string Graph::describe() const {
  const auto& nodes = impl_->nodes;
  if (nodes.empty()) return "";
  std::ostringstream out;
  // Every path from the source to a sink, one per line.
  std::vector<std::vector<Node>> paths;
  std::vector<Node> path;
  std::function<void(Node)> walk = [&](Node n) {
    path.push_back(n);
    if (nodes[n].consumers.empty()) paths.push_back(path);
    for (Node c : nodes[n].consumers) walk(c);
    path.pop_back();
  };
  Node root = 0;
  try {
    root = impl_->source_node();
  } catch (const UsageError&) {
    return "(no source)";
  }
  walk(root);
  for (std::size_t p = 0; p < paths.size(); ++p) {
    if (p > 0) out << "\n";
    for (std::size_t i = 0; i < paths[p].size(); ++i) out << (i > 0 ? " ! " : "") << nodes[paths[p][i]].name();
  }
  return out.str();
}

// ---- the run ------------------------------------------------------------------------------------

RunReport Graph::run(const RunConfig& config, StopToken& stop) { return impl_->run(config, stop); }

RunReport Graph::Impl::run(const RunConfig& config, StopToken& stop) {
  RunReport report;
  const Clock::time_point start = Clock::now();
  ErrorSlot error;
  if (ran) throw std::logic_error("a graph runs once; build another for another run");
  ran = true;

  const Node root = nodes.empty() ? 0 : [&] {
    try {
      return source_node();
    } catch (...) {
      return Node{0};
    }
  }();
  if (!nodes.empty() && nodes[root].source != nullptr) report.stream = nodes[root].source->info();

  // The nodes as the report shows them (also when configuration fails: what was asked for).
  auto describe_nodes = [&] {
    report.nodes.clear();
    std::vector<Node> listed = order;
    if (listed.size() != nodes.size()) {
      listed.clear();
      for (Node n = 0; n < nodes.size(); ++n) listed.push_back(n);
    }
    std::vector<std::size_t> position(nodes.size(), 0);
    for (std::size_t i = 0; i < listed.size(); ++i) position[listed[i]] = i;
    for (Node n : listed) {
      const NodeSlot& node = nodes[n];
      NodeReport r;
      r.role = node.role;
      r.name = node.name();
      if (node.input) r.input = position[*node.input];
      if (node.source != nullptr) {
        r.description = node.source->describe();
        r.output_kind = PortKind::samples;
      } else if (node.stage != nullptr) {
        r.description = node.stage->describe();
        r.input_kind = node.stage->input_kind();
        r.output_kind = node.stage->output_kind();
      } else {
        r.description = node.sink->describe();
        if (node.input) r.input_kind = nodes[*node.input].output_description.kind;
      }
      report.nodes.push_back(std::move(r));
    }
    return position;
  };

  auto finish_report = [&](RunOutcome outcome, const std::vector<std::uint64_t>& delivered) {
    report.outcome = outcome;
    report.error = error.get();
    const std::vector<std::size_t> position = describe_nodes();
    for (Node n = 0; n < nodes.size(); ++n) {
      NodeReport& r = report.nodes[position[n]];
      const NodeSlot& node = nodes[n];
      r.items_delivered = n < delivered.size() ? delivered[n] : 0;
      if (node.stage != nullptr) {
        r.counters = node.stage->counters();
      } else if (node.sink != nullptr) {
        r.counters.items_in = r.items_delivered;
        r.counters.items_out = node.sink->items_written();
        r.counters.extras = node.sink->extras();
      } else {
        r.counters.items_out = report.samples_read;
        r.counters.extras = {{"dropped", report.samples_dropped}};
      }
      if (node.pool) {
        if (node.pool->shape().domain.on_device()) report.device_pool_bytes += node.pool->total_bytes();
        else report.host_pool_bytes += node.pool->total_bytes();
      }
    }
    report.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    report.peak_rss_bytes = peak_resident_bytes();
    return report;
  };

  try {
    configure(config);
  } catch (...) {
    error.set("setup", current_exception_text());
    report.usage_error = current_exception_is_usage_error();
    return finish_report(RunOutcome::failed, {});
  }

  // Sinks are opened before a sample moves, so that a bad output fails fast.
  std::vector<Node> sinks;
  for (Node n : order)
    if (nodes[n].role == NodeRole::sink) sinks.push_back(n);
  std::size_t begun = 0;
  try {
    for (; begun < sinks.size(); ++begun) nodes[sinks[begun]].sink->begin(nodes[sinks[begun]].input_description);
  } catch (...) {
    error.set("output " + nodes[sinks[begun]].name(), current_exception_text());
    report.usage_error = current_exception_is_usage_error();
    for (std::size_t i = 0; i < begun; ++i) nodes[sinks[i]].sink->abort();
    return finish_report(RunOutcome::failed, {});
  }

  const Source& source_ref = *nodes[root].source;
  const StreamInfo& info = source_ref.info();
  const bool overruns = source_ref.overruns_when_late();  // never waits for a chunk, drops instead
  Source& source = *nodes[root].source;

  // One queue per consumer (its input edge). A queue holds at most its producer's pool plus the
  // end message.
  std::vector<std::unique_ptr<Queue>> inbox(nodes.size());
  for (Node n = 0; n < nodes.size(); ++n)
    if (nodes[n].input) inbox[n] = std::make_unique<Queue>(nodes[*nodes[n].input].pool->shape().count + 1);
  std::vector<std::atomic<std::uint64_t>> delivered(nodes.size());
  std::vector<std::atomic<bool>> completed(nodes.size());  // sinks: the whole input arrived
  std::vector<std::byte> overrun_scratch;
  if (overruns) overrun_scratch.resize(nodes[root].max_output_items * source.output().item_bytes());

  std::optional<std::uint64_t> expected_samples = info.length;  // for the progress bar
  if (config.max_samples)
    expected_samples = std::min(info.length.value_or(*config.max_samples), *config.max_samples);
  std::atomic<std::uint64_t> samples_read{0}, samples_dropped{0}, chunks_read{0};
  std::atomic<bool> input_ended{false};
  std::atomic<bool> live_input_failed_first{false};
  // When the source's read in progress began (steady clock ticks), 0 while none is: a read that
  // lasts longer than the stall timeout is a stalled input.
  std::atomic<Clock::rep> read_began{0};

  // Sends `message` (a chunk or the end) to every consumer of `n`; a chunk's reference is shared.
  auto send = [&](Node n, const ChunkRef& chunk, bool end, bool complete) {
    for (Node c : nodes[n].consumers) inbox[c]->enqueue(Message{chunk, end, complete});
  };
  // Stages run on threads of their own, except that consecutive GPU stages (transfers included)
  // where each feeds only the next share one: they only enqueue work, so one thread keeps ahead
  // of the device for all of them, and a chunk crosses h2d -> GPU stages -> d2h without waiting
  // for another thread to wake up.
  std::vector<std::vector<Node>> segments;
  std::vector<std::optional<std::size_t>> segment_of(nodes.size());
  for (Node n : order) {
    const NodeSlot& node = nodes[n];
    if (node.stage == nullptr) continue;
    const NodeSlot& producer = nodes[*node.input];
    const auto joined = segment_of[*node.input];
    if (node.on_gpu() && producer.on_gpu() && producer.consumers.size() == 1 && joined &&
        segments[*joined].back() == *node.input) {
      segments[*joined].push_back(n);
      segment_of[n] = joined;
    } else {
      segment_of[n] = segments.size();
      segments.push_back({n});
    }
  }

  // Takes the next message of `n`'s input; false when a stop came first (only while `stoppable`).
  // Where every thread of the graph has a core of its own and one is left over (for the
  // libraries' threads, such as ZeroMQ's I/O; the CPU stages' own workers are not counted), a
  // thread that finds its queue empty keeps looking for a while before it sleeps: a chunk that
  // follows within that time is taken without the wake-up of a sleeping thread (tens of
  // microseconds, at times far more), which would otherwise add to every chunk's latency. With
  // fewer cores the looking would take the core from the thread that makes the next chunk, so it
  // sleeps at once.
  const std::size_t graph_threads = 1 + sinks.size() + segments.size();
  const bool spin_before_sleeping = usable_cores() > graph_threads;
  auto receive = [&](Node n, Message& message, bool stoppable) {
    if (spin_before_sleeping) {
      const Clock::time_point spin_until = Clock::now() + kSpinBeforeSleeping;
      while (Clock::now() < spin_until)
        if (inbox[n]->try_dequeue(message)) return true;
    }
    while (!inbox[n]->wait_dequeue_timed(message, kStopPollInterval))
      if (stoppable && stop.stop_requested()) return false;
    return true;
  };
  // Lets go of every message left in `n`'s input, up to the producer's end (always sent).
  auto drain = [&](Node n) {
    Message message;
    while (true) {
      inbox[n]->wait_dequeue(message);
      if (message.end) return;
    }
  };
  auto slot_of = [&](Node consumer) {
    const auto& list = nodes[*nodes[consumer].input].consumers;
    return static_cast<std::size_t>(std::find(list.begin(), list.end(), consumer) - list.begin());
  };

  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // the source
    std::uint64_t position = 0;
    ChunkPool& pool = *nodes[root].pool;
    const std::size_t block_samples = nodes[root].max_output_items;
    bool complete = false;
    try {
      while (!stop.stop_requested()) {
        // What max_samples leaves to read; 0 ends the input as the source's own end does.
        const std::size_t wanted =
            config.max_samples ? std::min<std::uint64_t>(block_samples, *config.max_samples - position) : block_samples;
        ChunkRef chunk;
        if (wanted != 0) {
          chunk = overruns ? pool.try_acquire() : pool.acquire(stop);
          if (!chunk && !overruns) break;  // stopped while waiting
        }
        std::byte* destination = chunk ? chunk->data : overrun_scratch.data();
        read_began.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
        const std::size_t n = wanted == 0 ? 0 : source.read(destination, wanted);
        read_began.store(0, std::memory_order_relaxed);
        if (n == 0) {
          input_ended = true;
          complete = true;
          break;
        }
        if (!chunk) {  // a device with every chunk busy: an overrun
          samples_dropped += n;
          position += n;
          continue;
        }
        chunk->items = n;
        chunk->first_item = position;
        position += n;
        samples_read += n;
        ++chunks_read;
        send(root, chunk, false, false);
        if (config.on_progress)
          config.on_progress({samples_read.load(std::memory_order_relaxed), expected_samples,
                              std::chrono::duration<double>(Clock::now() - start).count(),
                              samples_dropped.load(std::memory_order_relaxed)});
      }
    } catch (...) {
      read_began.store(0, std::memory_order_relaxed);
      live_input_failed_first =
          error.set("input " + source.describe(), current_exception_text()) && source.delivers_once();
      stop.request_stop();
    }
    send(root, ChunkRef{}, true, complete);
  });

  for (Node n : order) {
    if (nodes[n].sink != nullptr) {
      threads.emplace_back([&, n] {
        Sink& sink = *nodes[n].sink;
        bool failed = false;
        Message message;
        while (true) {
          receive(n, message, false);  // a sink takes everything that was computed
          if (message.end) {
            completed[n] = message.complete && !failed;
            break;
          }
          if (failed) continue;
          try {
            Chunk& chunk = *message.chunk;
            if (chunk.ready_pending) gpu::host_wait(chunk.ready);
            sink.write(chunk);
            delivered[n] += chunk.items;
          } catch (...) {
            error.set("output " + sink.describe(), current_exception_text());
            stop.request_stop();
            failed = true;  // keep taking messages so that the chunks go back
          }
          message.chunk.reset();
        }
      });
    }
  }

  for (const std::vector<Node>& segment : segments) {
    threads.emplace_back([&, segment] {
      std::vector<std::uint64_t> next_item(segment.size(), 0);
      std::vector<std::size_t> slot(segment.size(), 0);  // each stage's consumer slot on its input edge
      slot[0] = slot_of(segment[0]);
      Node current = segment[0];  // the stage at work, for the error message
      // Makes `out` (stage i's output of `items` items) ready to be read, and numbers its items.
      auto finish_output = [&](std::size_t i, ChunkRef& out, std::size_t items) {
        const gpu::Stream stream = nodes[segment[i]].stage->stream();
        if (stream != nullptr) {
          gpu::record(out->ready, stream);
          out->ready_pending = true;
        }
        out->items = items;
        out->first_item = next_item[i];
        next_item[i] += items;
      };
      std::function<bool(std::size_t, ChunkRef)> run_stage;
      // Hands `chunk`, output of stage i, on: to stage i+1 of the segment, or to the consumers of
      // the segment's last stage. False when a stop came first.
      std::function<bool(std::size_t, ChunkRef)> pass_on = [&](std::size_t i, ChunkRef chunk) {
        if (i + 1 == segment.size()) {
          send(segment.back(), chunk, false, false);
          return true;
        }
        return run_stage(i + 1, std::move(chunk));
      };
      // Stage i takes `input`; what it writes goes on.
      run_stage = [&](std::size_t i, ChunkRef input) {
        const Node n = segment[i];
        current = n;
        Stage& stage = *nodes[n].stage;
        const gpu::Stream stream = stage.stream();
        Chunk& in = *input;
        if (in.ready_pending) {
          if (stream != nullptr) gpu::stream_wait(stream, in.ready);
          else gpu::host_wait(in.ready);
        }
        ChunkRef out = nodes[n].pool->acquire(stop, stream);
        if (!out) return false;
        delivered[n] += in.items;
        const std::size_t items = stage.process(in, *out);
        if (stream != nullptr) input.released_on(slot[i], stream);
        input.reset();
        finish_output(i, out, items);
        return items == 0 || pass_on(i, std::move(out));
      };
      // At the end of input, each stage's flush goes through the stages after it.
      auto flush_all = [&] {
        for (std::size_t i = 0; i < segment.size(); ++i) {
          const Node n = segment[i];
          while (true) {
            current = n;
            ChunkRef out = nodes[n].pool->acquire(stop, nodes[n].stage->stream());
            if (!out) return false;
            const std::size_t items = nodes[n].stage->flush(*out);
            finish_output(i, out, items);
            if (items == 0) break;
            if (!pass_on(i, std::move(out))) return false;
          }
        }
        return true;
      };
      bool complete = false, input_finished = false;
      try {
        Message message;
        while (receive(segment[0], message, true)) {
          if (message.end) {
            input_finished = true;
            // A producer that stopped early leaves nothing to flush.
            complete = message.complete && flush_all();
            break;
          }
          if (!run_stage(0, std::move(message.chunk)) || stop.stop_requested()) break;
        }
      } catch (...) {
        error.set(nodes[current].name(), current_exception_text());
        stop.request_stop();
      }
      send(segment.back(), ChunkRef{}, true, complete);
      if (!input_finished) drain(segment[0]);
    });
  }

  // Wake a source that waits on a device or a pipe once a stop is requested.
  // Watch for a stalled input: a read that delivers nothing for the stall timeout ends the run
  // as a failing live input does, keeping what it delivered before.
  // Beyond about 292 years the nanosecond count overflows: any timeout that long never ends.
  const bool stall_watched = config.stall_timeout_s > 0 && config.stall_timeout_s < 1e9;
  const auto stall_timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(stall_watched ? config.stall_timeout_s : 0.0));
  while (!input_ended && !stop.stop_requested()) {
    std::this_thread::sleep_for(kStopPollInterval);
    const Clock::rep began = read_began.load(std::memory_order_relaxed);
    if (!stall_watched || began == 0 ||
        Clock::now() - Clock::time_point(Clock::duration(began)) < stall_timeout)
      continue;
    if (error.set("input " + source.describe(),
                  "delivered nothing for " + number_text(config.stall_timeout_s) +
                      " s (the stall timeout, " + config.name("stall_timeout_s") + "): the device or the program "
                      "feeding it stopped without an error"))
      live_input_failed_first = true;
    stop.request_stop();
  }
  if (!input_ended) source.interrupt();
  for (std::thread& t : threads) t.join();
  // Work still enqueued on a GPU stream reads or writes chunks: let it end before anything goes.
  for (Node n : order) {
    if (!nodes[n].on_gpu()) continue;
    try {
      gpu::host_wait_stream(nodes[n].stage->stream());
    } catch (...) {
      error.set(nodes[n].name(), current_exception_text());
    }
  }

  report.samples_read = samples_read;
  report.samples_dropped = samples_dropped + source.dropped_samples();
  report.overflows_of_unknown_length = source.overflows_of_unknown_length();
  report.chunks = chunks_read;

  std::string failure = error.get();
  bool all_complete = true;
  for (Node s : sinks) all_complete = all_complete && completed[s];
  const bool interrupted = failure.empty() && !all_complete;
  if (failure.empty()) {
    for (Node s : sinks) {
      Sink& sink = *nodes[s].sink;
      try {
        sink.finish(!interrupted);
      } catch (...) {
        error.set("output " + sink.describe(), current_exception_text());
        sink.abort();
      }
    }
    failure = error.get();
    if (!failure.empty()) {
      // One output failed to commit: the others must not claim a complete run beside it.
      for (Node s : sinks) nodes[s].sink->abort();
    }
  } else if (live_input_failed_first) {
    // What a live device delivered before it failed cannot be captured again: the sinks keep
    // it, marked incomplete, as after an interruption.
    report.outputs_kept_incomplete = true;
    for (Node s : sinks) {
      Sink& sink = *nodes[s].sink;
      try {
        sink.finish(false);
      } catch (...) {
        sink.abort();
        report.outputs_kept_incomplete = false;
      }
    }
  } else {
    for (Node s : sinks) nodes[s].sink->abort();
  }
  std::vector<std::uint64_t> counts(nodes.size());
  for (Node n = 0; n < nodes.size(); ++n) counts[n] = delivered[n];
  if (!failure.empty()) return finish_report(RunOutcome::failed, counts);
  return finish_report(interrupted ? RunOutcome::interrupted : RunOutcome::completed, counts);
}

// ---- the report ---------------------------------------------------------------------------------

const NodeReport* RunReport::node(const std::string& name) const {
  for (const NodeReport& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

std::vector<const NodeReport*> RunReport::sinks() const {
  std::vector<const NodeReport*> list;
  for (const NodeReport& n : nodes)
    if (n.role == NodeRole::sink) list.push_back(&n);
  return list;
}

std::string RunReport::accounting_mismatch() const {
  std::ostringstream out;
  for (const NodeReport& n : nodes) {
    if (!n.input) continue;
    const NodeReport& producer = nodes[*n.input];
    // Items still queued when a run stopped early never reached their consumer.
    if (outcome == RunOutcome::completed && n.items_delivered != producer.counters.items_out)
      out << "'" << producer.name << "' gave " << producer.counters.items_out << " items but '" << n.name
          << "' received " << n.items_delivered << "; ";
    if (n.role == NodeRole::sink) {
      if (n.counters.items_out != n.items_delivered)
        out << "'" << n.name << "' wrote " << n.counters.items_out << " of the " << n.items_delivered
            << " items it received; ";
    } else if (n.counters.items_in != n.items_delivered) {
      out << "'" << n.name << "' counted " << n.counters.items_in << " items in of the " << n.items_delivered
          << " it received; ";
    }
  }
  std::string text = out.str();
  if (text.size() >= 2) text.resize(text.size() - 2);
  return text;
}

}  // namespace prism
