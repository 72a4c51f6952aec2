// Ports and memory domains: what flows on an edge of the stage graph, and where it lives.
//
//   PortKind          samples (StreamInfo: format, channels, rate, centre frequency, start time)
//                     or rows (SpectrumLayout: columns, axis values and unit, row interval,
//                     parameters). An item is one sample of every channel, or one row of floats.
//   PortDescription   the kind and its description: a stage checks its input's and derives its
//                     output's (a decimator changes the rate, a shift the centre frequency).
//   MemoryDomain      host (pageable), pinned host (page-locked, for DMA) or the memory of CUDA
//                     device N. Where two connected stages differ, the graph inserts a transfer.
#pragma once

#include <cstddef>
#include <string>

#include "spectrum_layout.hpp"
#include "stream_info.hpp"

namespace prism {

enum class PortKind : unsigned char { samples, rows };

// "samples" or "rows".
const char* port_kind_name(PortKind kind);

struct PortDescription {
  PortKind kind = PortKind::samples;
  StreamInfo samples;   // kind == samples
  SpectrumLayout rows;  // kind == rows (rows.stream: the samples they were computed from)

  static PortDescription of_samples(const StreamInfo& info);
  static PortDescription of_rows(const SpectrumLayout& layout);

  // Bytes of one item: a sample of every channel in its native format, or a row of floats.
  std::size_t item_bytes() const;
  // Items per second: the sample rate, or one over the row interval (0 when rows are irregular).
  double item_rate() const;
  // "cf32, 1 channel, 2.4e+06 Hz" or "rows of 1025 columns (dB re 1 V**2/Hz)".
  std::string describe() const;
};

enum class MemoryKind : unsigned char { host, pinned_host, cuda_device };

struct MemoryDomain {
  MemoryKind kind = MemoryKind::host;
  int device = 0;  // the CUDA device, for cuda_device

  static constexpr MemoryDomain host() { return {MemoryKind::host, 0}; }
  static constexpr MemoryDomain pinned_host() { return {MemoryKind::pinned_host, 0}; }
  static constexpr MemoryDomain cuda(int device) { return {MemoryKind::cuda_device, device}; }

  bool on_device() const { return kind == MemoryKind::cuda_device; }
  // Host code may read and write it (host or pinned host).
  bool host_accessible() const { return kind != MemoryKind::cuda_device; }
  // "host", "pinned host", "cuda:0".
  std::string name() const;

  friend bool operator==(const MemoryDomain& a, const MemoryDomain& b) {
    return a.kind == b.kind && (a.kind != MemoryKind::cuda_device || a.device == b.device);
  }
};

}  // namespace prism
