// BlockPool: a fixed set of equally sized sample buffers, allocated once and recycled through a
// lock-free queue (moodycamel::BlockingConcurrentQueue). The pool's size bounds the memory of a
// run whatever the input's length.
//
// Back-pressure: a file or generator source calls acquire() and waits for a free block, so a
// batch run never loses a sample; a live source calls try_acquire() and, when none is free,
// counts an overrun instead of waiting.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include <concurrentqueue/blockingconcurrentqueue.h>

#include "pipeline/block.hpp"
#include "pipeline/host_memory.hpp"
#include "pipeline/stop_token.hpp"

namespace prism {

class BlockPool {
 public:
  // block_count >= 1 buffers of block_bytes each (rounded up to whole pages).
  BlockPool(std::size_t block_count, std::size_t block_bytes, HostMemoryKind kind);
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // Waits for a free block; returns nullptr only when `stop` is requested first.
  Block* acquire(const StopToken& stop);
  // Returns a free block, or nullptr at once when none is free.
  Block* try_acquire();
  // Gives a block back (its contents are forgotten).
  void release(Block* block);

  std::size_t block_count() const { return blocks_.size(); }
  std::size_t block_bytes() const { return block_bytes_; }
  std::size_t total_bytes() const { return block_bytes_ * blocks_.size(); }
  HostMemoryKind memory_kind() const { return kind_; }

 private:
  std::size_t block_bytes_;
  HostMemoryKind kind_;
  HostBuffer storage_;
  std::vector<Block> blocks_;
  moodycamel::BlockingConcurrentQueue<Block*> free_;
};

// How long a thread waits on a queue before it looks at the stop flag again.
inline constexpr std::chrono::milliseconds kStopPollInterval{20};

}  // namespace prism
