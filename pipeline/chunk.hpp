// Chunks and their pools: the buffers that carry items along the graph's edges.
//
//   Chunk      items of one port (samples of every channel in their native format, or rows of
//              floats) in one memory domain, with the absolute index of its first item and, where
//              a GPU wrote it, the event that says it is ready (see gpu_runtime.hpp).
//   ChunkRef   a counted reference: a chunk sent to several consumers (a fan-out) goes back to its
//              pool when the last of them lets go.
//   ChunkPool  a fixed set of equally sized chunks, allocated once before the first sample moves
//              and recycled through a lock-free queue: its size bounds a run's memory whatever the
//              input's length, and its depth is the number of chunks in flight on the edge.
//
// Back-pressure: a file or generator source waits for a free chunk (a batch run never loses a
// sample); a live source takes one only if one is free, and counts an overrun otherwise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_runtime.hpp"
#include "port.hpp"
#include "stop_token.hpp"

namespace prism {

class ChunkPool;

struct Chunk {
  std::byte* data = nullptr;
  std::size_t capacity = 0;    // items it can hold
  std::size_t item_bytes = 0;  // bytes of one item
  MemoryDomain domain;
  std::size_t items = 0;         // items it holds now
  std::uint64_t first_item = 0;  // absolute index of its first item in the stream
  // Set by a GPU producer: the chunk's data is written once this event has happened.
  gpu::Event ready = nullptr;
  bool ready_pending = false;

  Chunk() = default;
  // A copy is a view of the same data, without the pool's bookkeeping (see chunk_view).
  Chunk(const Chunk& other)
      : data(other.data), capacity(other.capacity), item_bytes(other.item_bytes), domain(other.domain),
        items(other.items), first_item(other.first_item), ready(other.ready), ready_pending(other.ready_pending) {}
  Chunk& operator=(const Chunk&) = delete;

  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(data);
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data);
  }
  std::size_t bytes() const { return items * item_bytes; }

 private:
  friend class ChunkPool;
  friend class ChunkRef;
  ChunkPool* pool_ = nullptr;
  std::atomic<int> references_{0};
  // Per consumer of the edge: a GPU consumer's "done reading" event, to be waited for before the
  // chunk is written again.
  std::vector<gpu::Event> released_;
  std::vector<unsigned char> release_pending_;
};

// A chunk over memory the caller owns (host memory, no pool): how embedding code and tests hand
// their own buffers to a sink or a stage.
Chunk chunk_view(const void* data, std::size_t items, std::size_t item_bytes, std::uint64_t first_item = 0,
                 MemoryDomain domain = MemoryDomain::host());

class ChunkRef {
 public:
  ChunkRef() = default;
  ChunkRef(const ChunkRef& other);
  ChunkRef(ChunkRef&& other) noexcept : chunk_(other.chunk_) { other.chunk_ = nullptr; }
  ChunkRef& operator=(ChunkRef other) noexcept {
    std::swap(chunk_, other.chunk_);
    return *this;
  }
  ~ChunkRef() { reset(); }

  Chunk* get() const { return chunk_; }
  Chunk& operator*() const { return *chunk_; }
  Chunk* operator->() const { return chunk_; }
  explicit operator bool() const { return chunk_ != nullptr; }

  // Consumer `slot` of the edge is done enqueuing its reads on `stream`: the next producer of this
  // chunk waits for what was enqueued there (records the slot's event).
  void released_on(std::size_t slot, gpu::Stream stream);
  // Lets go of the chunk (it returns to its pool when no reference is left).
  void reset() noexcept;

 private:
  friend class ChunkPool;
  explicit ChunkRef(Chunk* chunk) : chunk_(chunk) {}
  Chunk* chunk_ = nullptr;
};

// How long a thread waits on a queue before it looks at the stop flag again.
inline constexpr std::chrono::milliseconds kStopPollInterval{20};

class ChunkPool {
 public:
  struct Shape {
    std::size_t count = 2;         // chunks, >= 1
    std::size_t capacity = 1;      // items per chunk, >= 1
    std::size_t item_bytes = 4;    // >= 1
    MemoryDomain domain;
    bool producer_on_gpu = false;  // chunks get a `ready` event
    // One entry per consumer of the edge: whether it reads on a GPU (its chunks then get a
    // `released` event for that consumer).
    std::vector<bool> consumers_on_gpu;
  };

  // Allocates every chunk (throws std::runtime_error or CudaError naming the size and reason).
  explicit ChunkPool(const Shape& shape);
  ~ChunkPool();
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;

  // Waits for a free chunk; an empty reference when `stop` is requested first. The chunk's earlier
  // GPU readers are waited for: on `stream` when the producer works on one, else on the host.
  ChunkRef acquire(const StopToken& stop, gpu::Stream stream = nullptr);
  // A free chunk, or an empty reference at once when none is free.
  ChunkRef try_acquire(gpu::Stream stream = nullptr);

  const Shape& shape() const { return shape_; }
  std::size_t chunk_bytes() const { return chunk_bytes_; }
  std::size_t total_bytes() const { return chunk_bytes_ * chunks_.size(); }

 private:
  friend class ChunkRef;
  ChunkRef prepare(Chunk* chunk, gpu::Stream stream);
  void give_back(Chunk* chunk) noexcept;
  void release_memory() noexcept;
  // The free chunks: a lock-free queue (chunk.cpp), kept out of this header so that it names no
  // third-party type.
  struct FreeQueue;

  Shape shape_;
  std::size_t chunk_bytes_ = 0;
  std::byte* memory_ = nullptr;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::unique_ptr<FreeQueue> free_;
};

}  // namespace prism
