// The viewer's display lines made on the GPU, for `prism view` on a CUDA backend:
//   GpuDisplayLines  a GPU stage (rows -> rows, both on the device) behind the spectrogram stage:
//                    reduces each chunk's spectra to the display's columns, averages and thins
//                    them (gui/display_line_plan.hpp, the same rules as the CPU) on the device,
//                    so that only display lines leave it; it also keeps each line in the
//                    session's DeviceLineRing;
//   DeviceLineRing   the newest lines in device memory, from which the render thread writes the
//                    waterfall texture through CUDA–OpenGL interop (gui/cuda_gl_texture.hpp).
// A line's slot in the ring is only rewritten once the render thread has released the line
// that used it; when the render thread falls that far behind, new lines are not kept on the
// device (their tag says so) and reach the texture from host memory instead.
// Plain C++ header: no CUDA types.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "gui/display_line_plan.hpp"
#include "gui/display_rows.hpp"
#include "pipeline/stage.hpp"

namespace prism::view {

class DeviceLineRing {
 public:
  // Throws prism::cuda::CudaError when the memory cannot be had.
  DeviceLineRing(int device, std::size_t columns, std::size_t capacity_lines);
  ~DeviceLineRing();
  DeviceLineRing(const DeviceLineRing&) = delete;
  DeviceLineRing& operator=(const DeviceLineRing&) = delete;

  int device() const { return device_; }
  std::size_t columns() const { return columns_; }
  std::size_t capacity() const { return capacity_; }
  // Device memory of slot s: columns() floats.
  const float* slot(std::size_t s) const { return data_ + s * columns_; }
  float* data() { return data_; }

  // The render thread: every line before `line_end` is in the texture (or was dropped).
  void release_before(std::uint64_t line_end) {
    std::uint64_t seen = released_.load(std::memory_order_relaxed);
    while (line_end > seen && !released_.compare_exchange_weak(seen, line_end, std::memory_order_release)) {}
  }
  // The stage: whether line `line` may take its slot (line % capacity) now.
  bool may_write(std::uint64_t line) const { return line < released_.load(std::memory_order_acquire) + capacity_; }

  // Tests: slot s brought to the host (synchronous).
  void copy_to_host(std::size_t s, float* out) const;

 private:
  int device_;
  std::size_t columns_, capacity_;
  float* data_ = nullptr;
  std::atomic<std::uint64_t> released_{0};
};

class GpuDisplayLines final : public Stage {
 public:
  // device: where the spectra are. columns: the display's width (lines have min(bins, columns)
  // columns). ring_lines: how many lines the device ring keeps. The two settings are read for
  // every spectrum, so changes act at once.
  GpuDisplayLines(int device, std::size_t columns, std::size_t ring_lines, const std::atomic<double>& lines_per_second,
                  const std::atomic<double>& averaging_s);
  ~GpuDisplayLines() override;

  std::string name() const override { return "display lines"; }
  std::string describe() const override;
  PortKind input_kind() const override { return PortKind::rows; }
  PortKind output_kind() const override { return PortKind::rows; }
  MemoryDomain input_domain() const override { return MemoryDomain::cuda(device_); }
  // Spectra in linear power in; lines in dB out (columns: min(bins, display columns)).
  PortDescription configure(const PortDescription& input, std::size_t max_input_items) override;
  std::size_t max_output(std::size_t input_items) const override { return input_items; }
  std::size_t process(const Chunk& input, Chunk& output) override;
  void reset() override;
  StageCounters counters() const override;  // spectra in, lines out
  gpu::Stream stream() const override { return stream_; }

  // What the sink needs of each line the stage hands out, in the same order.
  struct LineInfo {
    LineTag tag;
    double time_s = 0;         // of its last spectrum, from the stream's start
    std::size_t spectra = 0;   // spectra averaged into it
  };
  // The next line's, or nothing when every line enqueued so far was taken.
  std::optional<LineInfo> take_line_info();

  // The device ring (after configure()).
  std::shared_ptr<DeviceLineRing> ring() const { return ring_; }

 private:
  struct Impl;
  int device_;
  gpu::Stream stream_ = nullptr;
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<DeviceLineRing> ring_;
};

}  // namespace prism::view
