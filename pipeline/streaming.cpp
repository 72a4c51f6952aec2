// The synchronous streaming objects (streaming.hpp): one stage driven block by block in the
// caller's thread, with the graph's call sequence (configure, process, flush, reset).
#include "pipeline/streaming.hpp"

#include <algorithm>
#include <cstdint>
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
  bool flushed = false;  // flush() or flush_device() called: feed() refused until reset()
  bool drained = false;  // the stage's flush gave its last item
  StopToken never;
  // For the caller's streams (feed_device): made at the first call on the device.
  gpu::Event caller_ready = nullptr, stage_done = nullptr;

  Impl(std::unique_ptr<Stage> made, const StreamInfo& info, std::size_t block) : stage(std::move(made)) {
    if (!stage) throw std::invalid_argument("a streaming object needs a stage");
    if (stage->input_kind() != PortKind::samples)
      throw UsageError(stage->name() + ": takes rows, not samples: it cannot be fed samples");
    input = PortDescription::of_samples(info);
    block_items = block != kDefaultBlockItems ? block : stage_on_device() ? kGpuBlockItems : kHostBlockItems;
    output = stage->configure(input, block_items);
    if (block == kDefaultBlockItems && stage_on_device()) {
      // A stage with many outputs per item (a spectrogram with a small hop) takes smaller blocks,
      // so that a block's outputs stay within kGpuBlockOutputBytes of device memory.
      std::size_t shift = 0;
      const std::size_t bytes = stage->max_output(block_items) * output.item_bytes();
      while ((block_items >> shift) > kHostBlockItems && (bytes >> shift) > kGpuBlockOutputBytes) ++shift;
      if (shift > 0) {
        block_items >>= shift;
        output = stage->configure(input, block_items);
      }
    }
    // The streaming objects hand out floats (float32 rows and samples).
    if (output.kind == PortKind::rows && output.rows.double_values)
      throw UsageError(stage->name() + ": precision=double rows are float64, and the streaming objects give float32; "
                       "use precision=single here (double precision is for prism spectrogram and prism run)");
    if (output.kind == PortKind::samples &&
        (output.samples.format == SampleFormat::f64 || output.samples.format == SampleFormat::cf64))
      throw UsageError(stage->name() + ": precision=double samples are float64, and the streaming objects give "
                       "float32; use precision=single here (double precision is for prism filter and prism run)");
    block_output = std::max<std::size_t>(stage->max_output(block_items), 1);
    in_pool = make_pool(stage->input_domain(), block_items, input.item_bytes());
    out_pool = make_pool(stage->output_domain(), block_output, output.item_bytes());
  }

  ~Impl() {
    gpu::destroy_event(caller_ready);
    gpu::destroy_event(stage_done);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  bool stage_on_device() const { return stage->input_domain().on_device(); }

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

  void check_feed(const char* call, const void* items, std::size_t n) const {
    if (flushed) throw std::invalid_argument(stage->name() + ": " + call + " after flush(): call reset() first");
    if (n > 0 && items == nullptr) throw std::invalid_argument(stage->name() + ": " + call + " of null items");
  }

  std::size_t feed(const void* items, std::size_t n, float* out) {
    check_feed("feed()", items, n);
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
    flushed = true;
    if (drained) return 0;
    const std::size_t floats = output.item_bytes() / sizeof(float);
    std::size_t written = 0;
    while (true) {
      ChunkRef result = out_pool->acquire(never);
      const std::size_t made = stage->flush(*result);
      if (made == 0) {
        drained = true;
        break;
      }
      const std::size_t at = out.size();
      out.resize(at + made * floats);
      take(*result, made * output.item_bytes(), out.data() + at);
      items_out += made;
      written += made;
    }
    return written;
  }

  // ---- the caller's device memory and stream ----

  // The device `pointer` is on; refused when it is host memory, or another device than a GPU
  // stage's.
  int device_of(const void* pointer, const char* what) const {
    const int device = gpu::device_of(pointer);
    if (device < 0)
      throw std::invalid_argument(stage->name() + ": " + what +
                                  " is host memory: feed_device() and flush_device() take device memory "
                                  "(feed() and flush() take host memory)");
    if (stage_on_device() && device != stage->input_domain().device)
      throw std::invalid_argument(stage->name() + ": " + what + " is on CUDA device " + std::to_string(device) +
                                  ", the stage runs on device " + std::to_string(stage->input_domain().device));
    return device;
  }

  // A GPU stage's stream waits for the work the caller enqueued on `caller` so far.
  void after_caller(gpu::Stream caller) {
    if (!stage_on_device()) return;
    const int device = stage->input_domain().device;
    if (caller_ready == nullptr) caller_ready = gpu::create_event(device);
    if (stage_done == nullptr) stage_done = gpu::create_event(device);
    gpu::record(caller_ready, caller);
    gpu::stream_wait(stage->stream(), caller_ready);
  }
  // The caller's later work on `caller` waits for the stage's.
  void before_caller(gpu::Stream caller) {
    if (!stage_on_device()) return;
    gpu::record(stage_done, stage->stream());
    gpu::stream_wait(caller, stage_done);
  }

  // Runs `work` (the blocks of a device call) between after_caller and before_caller, on the
  // stage's device, the caller's current device restored after. When a block fails, the caller's
  // stream still waits for the blocks already enqueued, which read and write the caller's memory.
  template <typename Work>
  std::size_t on_callers_stream(gpu::Stream caller, Work work) {
    if (!stage_on_device()) return work();
    struct RestoreDevice {
      int device;
      ~RestoreDevice() {
        try {
          gpu::set_device(device);
        } catch (...) {  // nothing to do in a destructor; the call's own error, if any, is thrown
        }
      }
    } restore{gpu::current_device()};
    gpu::set_device(stage->input_domain().device);
    after_caller(caller);
    std::size_t result = 0;
    try {
      result = work();
    } catch (...) {
      try {
        before_caller(caller);
      } catch (...) {  // the first error is the one to report
      }
      throw;
    }
    before_caller(caller);
    return result;
  }

  // The GPU kernels may read and write with vector accesses: the caller's memory is used in
  // place where it is aligned as the pools' chunks are, and staged through a chunk otherwise.
  static bool aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

  std::size_t feed_device(const void* items, std::size_t n, float* out, gpu::Stream caller) {
    check_feed("feed_device()", items, n);
    if (n == 0) return 0;
    const int device = device_of(items, "items");
    if (max_output_of(n) > 0) device_of(out, "out");
    const auto* bytes = static_cast<const std::byte*>(items);
    const std::size_t in_bytes = input.item_bytes(), out_bytes = output.item_bytes();
    const std::size_t out_floats = out_bytes / sizeof(float);
    return on_callers_stream(caller, [&] {
      std::size_t written = 0;
      for (std::size_t first = 0; first < n; first += block_items) {
        const std::size_t count = std::min(block_items, n - first);
        const std::byte* from = bytes + first * in_bytes;
        float* to = out + written * out_floats;
        std::size_t made = 0;
        if (stage_on_device()) {
          // The caller's memory is the stage's chunk, or staged on the stage's stream (in order).
          const MemoryDomain domain = stage->input_domain();
          ChunkRef staged_in, staged_out;
          const void* in_data = from;
          if (!aligned(from)) {
            staged_in = in_pool->acquire(never);
            gpu::copy_async(staged_in->data, from, count * in_bytes, stage->stream(), device);
            in_data = staged_in->data;
          }
          float* out_data = to;
          if (!aligned(to)) {
            staged_out = out_pool->acquire(never);
            out_data = staged_out->as<float>();
          }
          const Chunk in = chunk_view(in_data, count, in_bytes, items_in, domain);
          Chunk result = chunk_view(out_data, stage->max_output(count), out_bytes, 0, domain);
          result.items = 0;
          made = stage->process(in, result);
          if (out_data != to && made > 0) gpu::copy_async(to, out_data, made * out_bytes, stage->stream(), device);
        } else {
          ChunkRef in = in_pool->acquire(never);
          gpu::copy_async(in->data, from, count * in_bytes, caller, device);
          gpu::host_wait_stream(caller);
          in->items = count;
          in->first_item = items_in;
          ChunkRef result = out_pool->acquire(never);
          made = stage->process(*in, *result);
          if (made > 0) {
            gpu::copy_async(to, result->data, made * out_bytes, caller, device);
            gpu::host_wait_stream(caller);
          }
        }
        items_in += count;
        items_out += made;
        written += made;
      }
      return written;
    });
  }

  std::size_t flush_device(float* out, std::size_t capacity, gpu::Stream caller) {
    if (drained || capacity == 0) {
      flushed = true;
      return 0;
    }
    const int device = device_of(out, "out");
    flushed = true;
    const std::size_t out_bytes = output.item_bytes(), out_floats = out_bytes / sizeof(float);
    return on_callers_stream(caller, [&] {
      std::size_t written = 0;
      while (written < capacity) {
        float* to = out + written * out_floats;
        // Into the caller's memory where it is aligned and the stage is on the device; else
        // through a chunk, at most a chunk's worth a call.
        const bool direct = stage_on_device() && aligned(to);
        ChunkRef staged;
        if (!direct) staged = out_pool->acquire(never);
        const std::size_t room = direct ? capacity - written : std::min(capacity - written, staged->capacity);
        Chunk result = chunk_view(direct ? static_cast<void*>(to) : staged->data, room, out_bytes, 0,
                                  stage_on_device() ? stage->input_domain() : MemoryDomain::host());
        result.items = 0;
        const std::size_t made = stage->flush(result);
        if (!direct && made > 0) {
          gpu::copy_async(to, staged->data, made * out_bytes, stage_on_device() ? stage->stream() : caller, device);
          if (!stage_on_device()) gpu::host_wait_stream(caller);
        }
        if (made == 0) {
          drained = true;
          break;
        }
        items_out += made;
        written += made;
      }
      return written;
    });
  }

  std::size_t max_output_of(std::size_t n) const {
    const std::size_t blocks = n / block_items, rest = n % block_items;
    return blocks * stage->max_output(block_items) + (rest > 0 ? stage->max_output(rest) : 0);
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

std::size_t StreamingStage::max_output(std::size_t n) const { return impl_->max_output_of(n); }

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

std::size_t StreamingStage::feed_device(const void* items, std::size_t n, float* out, gpu::Stream stream) {
  return impl_->feed_device(items, n, out, stream);
}

std::size_t StreamingStage::flush_device(float* out, std::size_t capacity, gpu::Stream stream) {
  return impl_->flush_device(out, capacity, stream);
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
  impl_->flushed = impl_->drained = false;
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
