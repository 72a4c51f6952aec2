// Block: one buffer of samples in flight, in the stream's native format, interleaved by
// channel. It knows the absolute index of its first sample, so every stage can place what it
// computes in time without counting on its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prism {

struct Block {
  std::byte* data = nullptr;       // pool memory (page-aligned, pinned on GPU backends)
  std::size_t capacity_bytes = 0;  // size of data
  std::size_t samples = 0;         // samples per channel held now
  std::uint64_t first_sample = 0;  // absolute index of data's first sample in the stream
  unsigned slot = 0;               // index of this block in its pool
};

}  // namespace prism
