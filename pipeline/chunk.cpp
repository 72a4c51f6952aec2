// Chunks, their counted references and their pools (see chunk.hpp).
#include "pipeline/chunk.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <concurrentqueue/blockingconcurrentqueue.h>

#include "pipeline/host_memory.hpp"

namespace prism {

struct ChunkPool::FreeQueue {
  explicit FreeQueue(std::size_t capacity) : queue(capacity) {}
  moodycamel::BlockingConcurrentQueue<Chunk*> queue;
};

void ChunkPool::give_back(Chunk* chunk) noexcept { free_->queue.enqueue(chunk); }

Chunk chunk_view(const void* data, std::size_t items, std::size_t item_bytes, std::uint64_t first_item,
                 MemoryDomain domain) {
  Chunk chunk;
  chunk.data = static_cast<std::byte*>(const_cast<void*>(data));
  chunk.capacity = items;
  chunk.item_bytes = item_bytes;
  chunk.domain = domain;
  chunk.items = items;
  chunk.first_item = first_item;
  return chunk;
}

ChunkRef::ChunkRef(const ChunkRef& other) : chunk_(other.chunk_) {
  if (chunk_ != nullptr) chunk_->references_.fetch_add(1, std::memory_order_relaxed);
}

void ChunkRef::released_on(std::size_t slot, gpu::Stream stream) {
  gpu::record(chunk_->released_.at(slot), stream);
  chunk_->release_pending_[slot] = 1;
}

void ChunkRef::reset() noexcept {
  if (chunk_ == nullptr) return;
  Chunk* chunk = chunk_;
  chunk_ = nullptr;
  // acq_rel: the last holder sees every other holder's writes (their release events among them)
  // before the chunk goes back.
  if (chunk->references_.fetch_sub(1, std::memory_order_acq_rel) == 1 && chunk->pool_ != nullptr)
    chunk->pool_->give_back(chunk);
}

namespace {

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

std::size_t page_size() {
  const long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

}  // namespace

ChunkPool::ChunkPool(const Shape& shape)
    : shape_(shape), free_(std::make_unique<FreeQueue>(std::max<std::size_t>(shape.count, 1))) {
  if (shape.count == 0) throw std::invalid_argument("a chunk pool needs at least one chunk");
  if (shape.capacity == 0 || shape.item_bytes == 0) throw std::invalid_argument("a chunk pool needs non-empty chunks");
  // Chunks start on page boundaries on the host (and 256-byte ones on a device), so that every
  // chunk is aligned for vector loads and DMA alike.
  const bool device = shape.domain.on_device();
  chunk_bytes_ = round_up(shape.capacity * shape.item_bytes, device ? 256 : page_size());
  const std::size_t total = chunk_bytes_ * shape.count;
  try {
    // One allocation for all chunks: one pin, one free, no fragmentation.
    if (device) {
      memory_ = static_cast<std::byte*>(gpu::device_alloc(total, shape.domain.device, "chunk pool"));
    } else {
      HostBuffer buffer = allocate_host(total, shape.domain.kind == MemoryKind::pinned_host
                                                   ? HostMemoryKind::cuda_pinned
                                                   : HostMemoryKind::page_aligned);
      memory_ = buffer.release();
    }
    chunks_.reserve(shape.count);
    const int event_device = device ? shape.domain.device : 0;
    for (std::size_t i = 0; i < shape.count; ++i) {
      auto chunk = std::make_unique<Chunk>();
      chunk->data = memory_ + i * chunk_bytes_;
      chunk->capacity = shape.capacity;
      chunk->item_bytes = shape.item_bytes;
      chunk->domain = shape.domain;
      chunk->pool_ = this;
      chunks_.push_back(std::move(chunk));
      Chunk& c = *chunks_.back();
      if (shape.producer_on_gpu) c.ready = gpu::create_event(event_device);
      c.released_.assign(shape.consumers_on_gpu.size(), nullptr);
      c.release_pending_.assign(shape.consumers_on_gpu.size(), 0);
      for (std::size_t k = 0; k < shape.consumers_on_gpu.size(); ++k)
        if (shape.consumers_on_gpu[k]) c.released_[k] = gpu::create_event(event_device);
      free_->queue.enqueue(&c);
    }
  } catch (...) {
    release_memory();
    throw;
  }
}

ChunkPool::~ChunkPool() { release_memory(); }

void ChunkPool::release_memory() noexcept {
  for (auto& chunk : chunks_) {
    if (chunk->ready != nullptr) gpu::destroy_event(chunk->ready);
    for (gpu::Event e : chunk->released_)
      if (e != nullptr) gpu::destroy_event(e);
  }
  chunks_.clear();
  if (memory_ == nullptr) return;
  if (shape_.domain.on_device()) {
    gpu::device_free(memory_);
  } else {
    HostBufferDeleter{shape_.domain.kind == MemoryKind::pinned_host ? HostMemoryKind::cuda_pinned
                                                                     : HostMemoryKind::page_aligned}(memory_);
  }
  memory_ = nullptr;
}

ChunkRef ChunkPool::prepare(Chunk* chunk, gpu::Stream stream) {
  for (std::size_t k = 0; k < chunk->release_pending_.size(); ++k) {
    if (!chunk->release_pending_[k]) continue;
    if (stream != nullptr) gpu::stream_wait(stream, chunk->released_[k]);
    else gpu::host_wait(chunk->released_[k]);
    chunk->release_pending_[k] = 0;
  }
  chunk->items = 0;
  chunk->first_item = 0;
  chunk->ready_pending = false;
  chunk->references_.store(1, std::memory_order_relaxed);
  return ChunkRef(chunk);
}

ChunkRef ChunkPool::acquire(const StopToken& stop, gpu::Stream stream) {
  Chunk* chunk = nullptr;
  while (!free_->queue.wait_dequeue_timed(chunk, kStopPollInterval))
    if (stop.stop_requested()) return {};
  return prepare(chunk, stream);
}

ChunkRef ChunkPool::try_acquire(gpu::Stream stream) {
  Chunk* chunk = nullptr;
  return free_->queue.try_dequeue(chunk) ? prepare(chunk, stream) : ChunkRef{};
}

}  // namespace prism
