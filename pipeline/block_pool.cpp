// BlockPool: blocks allocated once, recycled through a lock-free queue (see block_pool.hpp).
#include "pipeline/block_pool.hpp"

#include <unistd.h>

#include <stdexcept>

namespace prism {

BlockPool::BlockPool(std::size_t block_count, std::size_t block_bytes, HostMemoryKind kind)
    : kind_(kind), free_(block_count) {
  if (block_count == 0) throw std::invalid_argument("a block pool needs at least one block");
  if (block_bytes == 0) throw std::invalid_argument("a block pool needs non-empty blocks");
  const long page = sysconf(_SC_PAGESIZE);
  const std::size_t align = page > 0 ? static_cast<std::size_t>(page) : 4096;
  block_bytes_ = (block_bytes + align - 1) / align * align;
  // One allocation for all blocks: one pin, one free, and no fragmentation.
  storage_ = allocate_host(block_bytes_ * block_count, kind);
  blocks_.resize(block_count);
  for (std::size_t i = 0; i < block_count; ++i) {
    blocks_[i].data = storage_.get() + i * block_bytes_;
    blocks_[i].capacity_bytes = block_bytes_;
    blocks_[i].slot = static_cast<unsigned>(i);
    free_.enqueue(&blocks_[i]);
  }
}

Block* BlockPool::acquire(const StopToken& stop) {
  Block* block = nullptr;
  while (!free_.wait_dequeue_timed(block, kStopPollInterval)) {
    if (stop.stop_requested()) return nullptr;
  }
  return block;
}

Block* BlockPool::try_acquire() {
  Block* block = nullptr;
  return free_.try_dequeue(block) ? block : nullptr;
}

void BlockPool::release(Block* block) {
  block->samples = 0;
  free_.enqueue(block);
}

}  // namespace prism
