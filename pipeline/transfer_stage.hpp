// TransferStage: moves chunks between memory domains — host to a CUDA device, a device to the
// host, one device to another — with asynchronous copies on a stream of its own (a copy engine
// per direction). The graph inserts one wherever two connected nodes live in different domains;
// items cross unchanged (samples in their native format: ci16 is half the bytes of cf32).
#pragma once

#include <atomic>
#include <string>

#include "pipeline/stage.hpp"

namespace prism {

class TransferStage final : public Stage {
 public:
  // from/to: different domains, at least one of them a CUDA device. Host memory on either side
  // is pinned (the graph gives the host side of a transfer a pinned pool), so copies are DMA.
  // The stream is made at configure(), on the device.
  TransferStage(MemoryDomain from, MemoryDomain to, PortKind kind);
  ~TransferStage() override;

  std::string name() const override;  // "h2d", "d2h" or "d2d"
  std::string describe() const override;
  PortKind input_kind() const override { return kind_; }
  PortKind output_kind() const override { return kind_; }
  MemoryDomain input_domain() const override { return from_; }
  MemoryDomain output_domain() const override { return to_; }
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override { return input_items; }
  std::size_t process(const Chunk& input, Chunk& output) override;
  void reset() override;
  StageCounters counters() const override;
  gpu::Stream stream() const override { return stream_; }

 private:
  MemoryDomain from_, to_;
  PortKind kind_;
  int device_ = 0;  // the device whose copy engine runs the copies
  gpu::Stream stream_ = nullptr;
  std::atomic<std::uint64_t> items_{0};
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace prism
