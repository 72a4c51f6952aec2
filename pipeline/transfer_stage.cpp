// TransferStage (see transfer_stage.hpp).
#include "pipeline/transfer_stage.hpp"

#include <stdexcept>

namespace prism {

TransferStage::TransferStage(MemoryDomain from, MemoryDomain to, PortKind kind) : from_(from), to_(to), kind_(kind) {
  if (from == to || (!from.on_device() && !to.on_device()))
    throw std::invalid_argument("a transfer needs two different domains, one of them a CUDA device");
  device_ = from.on_device() ? from.device : to.device;
}

TransferStage::~TransferStage() {
  if (stream_ == nullptr) return;
  try {
    gpu::host_wait_stream(stream_);
  } catch (...) {  // a failed device: nothing left to wait for
  }
  gpu::destroy_stream(stream_);
}

std::string TransferStage::name() const {
  if (!from_.on_device()) return "h2d";
  if (!to_.on_device()) return "d2h";
  return "d2d";
}

std::string TransferStage::describe() const {
  return "copies from " + from_.name() + " to " + to_.name() + " (cudaMemcpyAsync on its own stream)";
}

PortDescription TransferStage::configure(const PortDescription& input, std::size_t) {
  if (stream_ == nullptr) stream_ = gpu::create_stream(device_);
  return input;
}

std::size_t TransferStage::process(const Chunk& input, Chunk& output) {
  gpu::set_device(device_);
  if (input.items > 0) gpu::copy_async(output.data, input.data, input.bytes(), stream_, device_);
  items_.fetch_add(input.items, std::memory_order_relaxed);
  bytes_.fetch_add(input.bytes(), std::memory_order_relaxed);
  return input.items;
}

void TransferStage::reset() {
  items_ = 0;
  bytes_ = 0;
}

StageCounters TransferStage::counters() const {
  const std::uint64_t items = items_.load(std::memory_order_relaxed);
  return {items, items, {{"bytes", bytes_.load(std::memory_order_relaxed)}}};
}

}  // namespace prism
