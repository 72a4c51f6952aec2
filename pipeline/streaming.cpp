// The synchronous streaming objects (streaming.hpp): one stage driven block by block in the
// caller's thread, with the graph's call sequence (configure, process, flush, reset).
#include "pipeline/streaming.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "pipeline/chunk.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_runtime.hpp"

namespace prism {

struct StreamingStage::Impl {
  std::unique_ptr<Stage> stage;
  std::string note;
  PortDescription input, output;
  std::size_t block_items = 0;
  std::size_t block_output = 0;  // stage.max_output(block_items)
  std::unique_ptr<ChunkPool> in_pool, out_pool;
  std::uint64_t items_in = 0, items_out = 0;
  bool flushed = false;
  StopToken never;

  Impl(std::unique_ptr<Stage> made, const StreamInfo& info, std::size_t block) : stage(std::move(made)) {
    if (!stage) throw std::invalid_argument("a streaming object needs a stage");
    if (block == 0) throw UsageError("block_items: must be at least 1");
    if (stage->input_kind() != PortKind::samples)
      throw UsageError(stage->name() + ": takes rows, not samples: it cannot be fed samples");
    input = PortDescription::of_samples(info);
    block_items = block;
    output = stage->configure(input, block_items);
    // The streaming objects hand out floats (float32 rows and samples).
    if (output.kind == PortKind::rows && output.rows.double_values)
      throw UsageError(stage->name() + ": precision=double rows are float64, and the streaming objects give float32; "
                       "use precision=single here (double precision is for prism spectrogram and prism run)");
    block_output = std::max<std::size_t>(stage->max_output(block_items), 1);
    in_pool = make_pool(stage->input_domain(), block_items, input.item_bytes());
    out_pool = make_pool(stage->output_domain(), block_output, output.item_bytes());
  }

  static std::unique_ptr<ChunkPool> make_pool(MemoryDomain domain, std::size_t capacity, std::size_t item_bytes) {
    ChunkPool::Shape shape;
    shape.count = 1;
    shape.capacity = capacity;
    shape.item_bytes = std::max<std::size_t>(item_bytes, 1);
    shape.domain = domain.on_device() ? domain : MemoryDomain::host();
    return std::make_unique<ChunkPool>(shape);
  }

  // Copies into or out of a chunk in the stage's domain (a synchronous copy on a device).
  void put(Chunk& chunk, const void* data, std::size_t bytes) {
    if (bytes == 0) return;
    if (!chunk.domain.on_device()) {
      std::memcpy(chunk.data, data, bytes);
      return;
    }
    gpu::host_wait_stream(stage->stream());
    gpu::copy_async(chunk.data, data, bytes, stage->stream(), chunk.domain.device);
    gpu::host_wait_stream(stage->stream());
  }
  void take(const Chunk& chunk, std::size_t bytes, float* out) {
    if (bytes == 0) return;  // `out` may be the null storage of an empty vector
    if (!chunk.domain.on_device()) {
      std::memcpy(out, chunk.data, bytes);
      return;
    }
    gpu::host_wait_stream(stage->stream());
    gpu::copy_async(out, chunk.data, bytes, stage->stream(), chunk.domain.device);
    gpu::host_wait_stream(stage->stream());
  }

  std::size_t feed(const void* items, std::size_t n, float* out) {
    if (flushed) throw std::invalid_argument(stage->name() + ": feed() after flush(): call reset() first");
    if (n > 0 && items == nullptr) throw std::invalid_argument(stage->name() + ": feed() of null items");
    const auto* bytes = static_cast<const std::byte*>(items);
    const std::size_t in_bytes = input.item_bytes(), out_bytes = output.item_bytes();
    std::size_t written = 0;
    for (std::size_t first = 0; first < n; first += block_items) {
      const std::size_t count = std::min(block_items, n - first);
      ChunkRef in = in_pool->acquire(never);
      put(*in, bytes + first * in_bytes, count * in_bytes);
      in->items = count;
      in->first_item = items_in;
      ChunkRef result = out_pool->acquire(never);
      const std::size_t made = stage->process(*in, *result);
      take(*result, made * out_bytes, out + written * (out_bytes / sizeof(float)));
      items_in += count;
      items_out += made;
      written += made;
    }
    return written;
  }

  std::size_t flush(std::vector<float>& out) {
    if (flushed) return 0;
    flushed = true;
    const std::size_t floats = output.item_bytes() / sizeof(float);
    std::size_t written = 0;
    while (true) {
      ChunkRef result = out_pool->acquire(never);
      const std::size_t made = stage->flush(*result);
      if (made == 0) break;
      const std::size_t at = out.size();
      out.resize(at + made * floats);
      take(*result, made * output.item_bytes(), out.data() + at);
      items_out += made;
      written += made;
    }
    return written;
  }
};

StreamingStage::StreamingStage(const std::string& spec, const StreamInfo& input, const StageEnvironment& environment,
                               std::size_t block_items)
    : StreamingStage(make_stage(parse_stage_spec(spec), environment), input, block_items) {}

StreamingStage::StreamingStage(MadeStage made, const StreamInfo& input, std::size_t block_items)
    : impl_(std::make_unique<Impl>(std::move(made.stage), input, block_items)) {
  impl_->note = std::move(made.note);
}

StreamingStage::StreamingStage(std::unique_ptr<Stage> stage, const StreamInfo& input, std::size_t block_items)
    : impl_(std::make_unique<Impl>(std::move(stage), input, block_items)) {}

StreamingStage::~StreamingStage() = default;
StreamingStage::StreamingStage(StreamingStage&&) noexcept = default;
StreamingStage& StreamingStage::operator=(StreamingStage&&) noexcept = default;

const PortDescription& StreamingStage::output() const { return impl_->output; }
std::string StreamingStage::describe() const { return impl_->stage->describe(); }
const std::string& StreamingStage::note() const { return impl_->note; }
std::size_t StreamingStage::floats_per_item() const { return impl_->output.item_bytes() / sizeof(float); }

std::size_t StreamingStage::max_output(std::size_t n) const {
  const std::size_t blocks = n / impl_->block_items, rest = n % impl_->block_items;
  return blocks * impl_->stage->max_output(impl_->block_items) + (rest > 0 ? impl_->stage->max_output(rest) : 0);
}

std::size_t StreamingStage::feed(const void* items, std::size_t n, float* out) { return impl_->feed(items, n, out); }

std::size_t StreamingStage::feed(const void* items, std::size_t n, std::vector<float>& out) {
  const std::size_t at = out.size();
  out.resize(at + max_output(n) * floats_per_item());
  const std::size_t made = impl_->feed(items, n, out.data() + at);
  out.resize(at + made * floats_per_item());
  return made;
}

std::vector<float> StreamingStage::feed(const void* items, std::size_t n) {
  std::vector<float> out;
  feed(items, n, out);
  return out;
}

std::size_t StreamingStage::flush(std::vector<float>& out) { return impl_->flush(out); }

std::vector<float> StreamingStage::flush() {
  std::vector<float> out;
  impl_->flush(out);
  return out;
}

void StreamingStage::reset() {
  impl_->stage->reset();
  impl_->items_in = impl_->items_out = 0;
  impl_->flushed = false;
}

StageCounters StreamingStage::counters() const { return impl_->stage->counters(); }

namespace {

MadeStage checked_spectrogram(const SpectrogramParams& params, const StageEnvironment& environment) {
  params.validate();
  return make_spectrogram_stage(params, environment);
}

}  // namespace

Spectrogram::Spectrogram(const SpectrogramParams& params, const StreamInfo& input,
                         const StageEnvironment& environment, std::size_t block_items)
    : StreamingStage(checked_spectrogram(params, environment), input, block_items) {}

}  // namespace prism
