// GpuDisplayLines and DeviceLineRing (gpu_display_lines.hpp). Sections: the kernel ·
// DeviceLineRing · GpuDisplayLines.
#include "gui/cuda/gpu_display_lines.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pipeline/cuda/cuda_check.hpp"

namespace prism::view {

using cuda::check_cuda;

namespace {

// ---- the kernel ----------------------------------------------------------------------------------

// One closing spectrum of a block: its index in the block, the spectra in its line, the line's
// weight in the running average, and its ring slot (-1: not kept on the device).
struct LineClosing {
  int row;
  int spectra;
  double alpha;
  long long slot;
};

// One thread per display column walks the block's spectra in order: the maximum of its bins,
// summed until a spectrum closes a line, then the line's mean joins the running average and the
// line is written (dB) to the output rows and to the ring. The partial sums and the average
// carry across blocks in `sum` and `average`.
__global__ void display_lines_kernel(const float* __restrict__ spectra, int count, int bins, int columns,
                                     const LineClosing* __restrict__ closings, int lines, double* sum, double* average,
                                     float* __restrict__ out, float* __restrict__ ring) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= columns) return;
  const std::size_t b0 = first_bin_of_column(c, columns, bins), b1 = first_bin_of_column(c + 1, columns, bins);
  double s = sum[c], a = average[c];
  int next = 0;
  for (int r = 0; r < count; ++r) {
    const float* row = spectra + static_cast<long long>(r) * bins;
    float m = row[b0];
    for (std::size_t b = b0 + 1; b < b1; ++b) m = fmaxf(m, row[b]);
    s += m;
    if (next < lines && closings[next].row == r) {
      const LineClosing& l = closings[next];
      a += l.alpha * (s / l.spectra - a);
      const float db = line_decibels(a);
      out[static_cast<long long>(next) * columns + c] = db;
      if (l.slot >= 0) ring[l.slot * columns + c] = db;
      s = 0;
      ++next;
    }
  }
  sum[c] = s;
  average[c] = a;
}

}  // namespace

// ---- DeviceLineRing ------------------------------------------------------------------------------

DeviceLineRing::DeviceLineRing(int device, std::size_t columns, std::size_t capacity_lines)
    : device_(device), columns_(columns), capacity_(std::max<std::size_t>(capacity_lines, 1)) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_);
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, columns_ * capacity_ * sizeof(float)),
        "cudaMalloc (display line ring, " + std::to_string(capacity_) + " lines)", device_);
  data_ = static_cast<float*>(p);
}

DeviceLineRing::~DeviceLineRing() {
  cudaSetDevice(device_);
  cudaFree(data_);
}

void DeviceLineRing::copy_to_host(std::size_t s, float* out) const {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_);
  check_cuda(cudaMemcpy(out, slot(s), columns_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy (ring slot)", device_);
}

// ---- GpuDisplayLines -----------------------------------------------------------------------------

struct GpuDisplayLines::Impl {
  std::size_t requested_columns, ring_lines;
  const std::atomic<double>& lines_per_second;
  const std::atomic<double>& averaging_s;

  int device = 0;
  std::size_t bins = 0, columns = 0, max_rows = 0;
  SpectrumLayout spectrum;
  std::optional<LinePlanner> planner;
  std::uint64_t spectra_seen = 0, lines_made = 0, blocks = 0;

  // The closings of a block travel in pinned memory, one buffer per block that can be in
  // flight (plus margin): a buffer is reused only after its block was retired.
  std::vector<LineClosing*> closings_host;
  std::vector<LineClosing*> closings_device;
  double* sum = nullptr;
  double* average = nullptr;

  std::mutex infos_mutex;  // the engine's thread appends, the sink's thread takes
  std::deque<LineInfo> infos;
  std::vector<LineInfo> made;  // one block's, before they join `infos` (kept: no allocation per block)

  Impl(std::size_t c, std::size_t r, const std::atomic<double>& lps, const std::atomic<double>& avg)
      : requested_columns(c), ring_lines(r), lines_per_second(lps), averaging_s(avg) {}

  ~Impl() {
    cudaSetDevice(device);
    for (LineClosing* p : closings_host) cudaFreeHost(p);
    for (LineClosing* p : closings_device) cudaFree(p);
    cudaFree(sum);
    cudaFree(average);
  }
};

GpuDisplayLines::GpuDisplayLines(std::size_t columns, std::size_t ring_lines,
                                 const std::atomic<double>& lines_per_second, const std::atomic<double>& averaging_s)
    : impl_(std::make_unique<Impl>(columns, ring_lines, lines_per_second, averaging_s)) {}

GpuDisplayLines::~GpuDisplayLines() = default;

void GpuDisplayLines::prepare(const SpectrumLayout& spectrum, int device, std::size_t max_rows_per_block,
                              std::size_t blocks_in_flight) {
  Impl& m = *impl_;
  m.device = device;
  m.spectrum = spectrum;
  m.bins = spectrum.columns;
  m.columns = std::min(m.bins, std::max<std::size_t>(m.requested_columns, 1));
  m.max_rows = std::max<std::size_t>(max_rows_per_block, 1);
  m.planner.emplace(spectrum.row_interval);
  check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
  const std::size_t buffers = blocks_in_flight + 3;
  for (std::size_t i = 0; i < buffers; ++i) {
    void* host = nullptr;
    void* dev = nullptr;
    check_cuda(cudaHostAlloc(&host, m.max_rows * sizeof(LineClosing), cudaHostAllocDefault),
          "cudaHostAlloc (display line plan)", device);
    m.closings_host.push_back(static_cast<LineClosing*>(host));
    check_cuda(cudaMalloc(&dev, m.max_rows * sizeof(LineClosing)), "cudaMalloc (display line plan)", device);
    m.closings_device.push_back(static_cast<LineClosing*>(dev));
  }
  for (double** p : {&m.sum, &m.average}) {
    void* dev = nullptr;
    check_cuda(cudaMalloc(&dev, m.columns * sizeof(double)), "cudaMalloc (display line sums)", device);
    *p = static_cast<double*>(dev);
    check_cuda(cudaMemset(*p, 0, m.columns * sizeof(double)), "cudaMemset (display line sums)", device);
  }
  ring_ = std::make_shared<DeviceLineRing>(device, m.columns, m.ring_lines);
}

std::size_t GpuDisplayLines::output_columns() const { return impl_->columns; }

std::size_t GpuDisplayLines::enqueue(const float* rows, std::size_t count, float* out, void* stream) {
  Impl& m = *impl_;
  const std::size_t buffer = m.blocks++ % m.closings_host.size();
  LineClosing* closings = m.closings_host[buffer];
  std::size_t lines = 0;
  std::vector<LineInfo>& made = m.made;
  made.clear();
  for (std::size_t r = 0; r < count; ++r) {
    const auto line = m.planner->add_spectrum(m.lines_per_second.load(std::memory_order_relaxed),
                                              m.averaging_s.load(std::memory_order_relaxed));
    const std::uint64_t spectrum_index = m.spectra_seen++;
    if (!line) continue;
    const std::uint64_t number = m.lines_made++;
    const long long slot = ring_->may_write(number) ? static_cast<long long>(number % ring_->capacity()) : -1;
    closings[lines] = {static_cast<int>(r), static_cast<int>(line->spectra), line->alpha, slot};
    made.push_back({{number, slot}, m.spectrum.row_time(spectrum_index), line->spectra});
    ++lines;
  }
  const auto st = static_cast<cudaStream_t>(stream);
  if (lines > 0)
    check_cuda(cudaMemcpyAsync(m.closings_device[buffer], closings, lines * sizeof(LineClosing), cudaMemcpyHostToDevice, st),
          "cudaMemcpyAsync (display line plan)", m.device);
  if (count > 0) {
    const unsigned threads = 128;
    const unsigned grid = static_cast<unsigned>((m.columns + threads - 1) / threads);
    display_lines_kernel<<<grid, threads, 0, st>>>(rows, static_cast<int>(count), static_cast<int>(m.bins),
                                                   static_cast<int>(m.columns), m.closings_device[buffer],
                                                   static_cast<int>(lines), m.sum, m.average, out, ring_->data());
    check_cuda(cudaGetLastError(), "display_lines_kernel launch", m.device);
  }
  std::lock_guard lock(m.infos_mutex);
  m.infos.insert(m.infos.end(), made.begin(), made.end());
  return lines;
}

std::optional<GpuDisplayLines::LineInfo> GpuDisplayLines::take_line_info() {
  std::lock_guard lock(impl_->infos_mutex);
  if (impl_->infos.empty()) return std::nullopt;
  LineInfo info = impl_->infos.front();
  impl_->infos.pop_front();
  return info;
}

}  // namespace prism::view
