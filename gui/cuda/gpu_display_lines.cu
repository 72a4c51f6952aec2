// GpuDisplayLines and DeviceLineRing (gpu_display_lines.hpp). Sections: the kernel ·
// DeviceLineRing · GpuDisplayLines.
#include "gui/cuda/gpu_display_lines.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pipeline/cuda/cuda_check.hpp"
#include "pipeline/gpu_runtime.hpp"

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
  // The ring is made and freed on the graph's and the viewer's threads while a spectrogram may
  // be capturing its CUDA graphs: gpu_runtime.hpp.
  const auto lock = gpu::lock_device_wide_calls();
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_);
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, columns_ * capacity_ * sizeof(float)),
        "cudaMalloc (display line ring, " + std::to_string(capacity_) + " lines)", device_);
  data_ = static_cast<float*>(p);
}

DeviceLineRing::~DeviceLineRing() {
  const auto lock = gpu::lock_device_wide_calls();
  cudaSetDevice(device_);
  cudaFree(data_);
}

void DeviceLineRing::copy_to_host(std::size_t s, float* out) const {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_);
  check_cuda(cudaMemcpy(out, slot(s), columns_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy (ring slot)", device_);
}

// ---- GpuDisplayLines -----------------------------------------------------------------------------

// The closings of a chunk travel in pinned memory, in a ring of buffers: a buffer is rewritten
// only once its previous copy to the device has run (its event), which the ring's length makes
// all but certain by then.
constexpr std::size_t kClosingBuffers = 8;

struct GpuDisplayLines::Impl {
  std::size_t requested_columns, ring_lines;
  const std::atomic<double>& lines_per_second;
  const std::atomic<double>& averaging_s;

  int device = 0;
  std::size_t bins = 0, columns = 0, max_rows = 0;
  SpectrumLayout spectrum;
  std::optional<LinePlanner> planner;
  std::atomic<std::uint64_t> spectra_seen{0}, lines_made{0};
  std::uint64_t chunks = 0;

  std::vector<LineClosing*> closings_host;
  std::vector<LineClosing*> closings_device;
  std::vector<cudaEvent_t> closings_copied;
  std::vector<bool> closings_in_use;
  double* sum = nullptr;
  double* average = nullptr;

  std::mutex infos_mutex;  // the stage's thread appends, the sink's thread takes
  std::deque<LineInfo> infos;
  std::vector<LineInfo> made;  // one chunk's, before they join `infos` (kept: no allocation per chunk)

  Impl(std::size_t c, std::size_t r, const std::atomic<double>& lps, const std::atomic<double>& avg)
      : requested_columns(c), ring_lines(r), lines_per_second(lps), averaging_s(avg) {}

  ~Impl() { release(); }

  void release() noexcept {
    const auto lock = gpu::lock_device_wide_calls();
    cudaSetDevice(device);
    for (LineClosing* p : closings_host) cudaFreeHost(p);
    for (LineClosing* p : closings_device) cudaFree(p);
    for (cudaEvent_t e : closings_copied) cudaEventDestroy(e);
    closings_host.clear();
    closings_device.clear();
    closings_copied.clear();
    closings_in_use.clear();
    cudaFree(sum);
    cudaFree(average);
    sum = average = nullptr;
  }
};

GpuDisplayLines::GpuDisplayLines(int device, std::size_t columns, std::size_t ring_lines,
                                 const std::atomic<double>& lines_per_second, const std::atomic<double>& averaging_s)
    : device_(device), impl_(std::make_unique<Impl>(columns, ring_lines, lines_per_second, averaging_s)) {
  impl_->device = device;
  stream_ = gpu::create_stream(device);
}

GpuDisplayLines::~GpuDisplayLines() {
  cudaSetDevice(device_);
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  impl_.reset();
  gpu::destroy_stream(stream_);
}

std::string GpuDisplayLines::describe() const {
  return "cuda: spectra reduced to " + std::to_string(impl_->columns) +
         " display columns, averaged and thinned on the device (and kept in its ring for the texture)";
}

PortDescription GpuDisplayLines::configure(const PortDescription& input, std::size_t max_input_items) {
  Impl& m = *impl_;
  m.release();
  const SpectrumLayout& spectrum = input.rows;
  m.spectrum = spectrum;
  m.bins = spectrum.columns;
  m.columns = std::min(m.bins, std::max<std::size_t>(m.requested_columns, 1));
  m.max_rows = std::max<std::size_t>(max_input_items, 1);
  m.planner.emplace(spectrum.row_interval);
  const auto lock = gpu::lock_device_wide_calls();
  check_cuda(cudaSetDevice(m.device), "cudaSetDevice", m.device);
  for (std::size_t i = 0; i < kClosingBuffers; ++i) {
    void* host = nullptr;
    void* dev = nullptr;
    check_cuda(cudaHostAlloc(&host, m.max_rows * sizeof(LineClosing), cudaHostAllocDefault),
               "cudaHostAlloc (display line plan)", m.device);
    m.closings_host.push_back(static_cast<LineClosing*>(host));
    check_cuda(cudaMalloc(&dev, m.max_rows * sizeof(LineClosing)), "cudaMalloc (display line plan)", m.device);
    m.closings_device.push_back(static_cast<LineClosing*>(dev));
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate", m.device);
    m.closings_copied.push_back(event);
    m.closings_in_use.push_back(false);
  }
  for (double** p : {&m.sum, &m.average}) {
    void* dev = nullptr;
    check_cuda(cudaMalloc(&dev, m.columns * sizeof(double)), "cudaMalloc (display line sums)", m.device);
    *p = static_cast<double*>(dev);
  }
  ring_ = std::make_shared<DeviceLineRing>(m.device, m.columns, m.ring_lines);
  reset();

  SpectrumLayout lines = spectrum;
  lines.columns = m.columns;
  lines.frequencies.resize(m.columns);
  for (std::size_t c = 0; c < m.columns; ++c) {
    const std::size_t b0 = first_bin_of_column(c, m.columns, m.bins), b1 = first_bin_of_column(c + 1, m.columns, m.bins);
    lines.frequencies[c] = (spectrum.frequencies[b0] + spectrum.frequencies[b1 - 1]) / 2;
  }
  lines.decibels = true;
  lines.row_interval = 0;  // lines come as the planner thins them, not at a fixed rate
  return PortDescription::of_rows(lines);
}

void GpuDisplayLines::reset() {
  Impl& m = *impl_;
  check_cuda(cudaSetDevice(m.device), "cudaSetDevice", m.device);
  const auto st = static_cast<cudaStream_t>(stream_);
  for (double* p : {m.sum, m.average})
    check_cuda(cudaMemsetAsync(p, 0, m.columns * sizeof(double), st), "cudaMemsetAsync (display line sums)", m.device);
  m.planner.emplace(m.spectrum.row_interval);
  m.spectra_seen = 0;
  m.lines_made = 0;
  std::lock_guard lock(m.infos_mutex);
  m.infos.clear();
}

StageCounters GpuDisplayLines::counters() const {
  return {impl_->spectra_seen.load(std::memory_order_relaxed), impl_->lines_made.load(std::memory_order_relaxed), {}};
}

std::size_t GpuDisplayLines::process(const Chunk& input, Chunk& output) {
  Impl& m = *impl_;
  check_cuda(cudaSetDevice(m.device), "cudaSetDevice", m.device);
  const std::size_t count = input.items;
  const std::size_t buffer = m.chunks++ % kClosingBuffers;
  if (m.closings_in_use[buffer])
    check_cuda(cudaEventSynchronize(m.closings_copied[buffer]), "cudaEventSynchronize (display line plan)", m.device);
  LineClosing* closings = m.closings_host[buffer];
  std::size_t lines = 0;
  std::vector<LineInfo>& made = m.made;
  made.clear();
  for (std::size_t r = 0; r < count; ++r) {
    const auto line = m.planner->add_spectrum(m.lines_per_second.load(std::memory_order_relaxed),
                                              m.averaging_s.load(std::memory_order_relaxed));
    const std::uint64_t spectrum_index = m.spectra_seen.fetch_add(1, std::memory_order_relaxed);
    if (!line) continue;
    const std::uint64_t number = m.lines_made.fetch_add(1, std::memory_order_relaxed);
    const long long slot = ring_->may_write(number) ? static_cast<long long>(number % ring_->capacity()) : -1;
    closings[lines] = {static_cast<int>(r), static_cast<int>(line->spectra), line->alpha, slot};
    made.push_back({{number, slot}, m.spectrum.row_time(spectrum_index), line->spectra});
    ++lines;
  }
  const auto st = static_cast<cudaStream_t>(stream_);
  if (lines > 0) {
    check_cuda(cudaMemcpyAsync(m.closings_device[buffer], closings, lines * sizeof(LineClosing), cudaMemcpyHostToDevice,
                               st),
               "cudaMemcpyAsync (display line plan)", m.device);
    check_cuda(cudaEventRecord(m.closings_copied[buffer], st), "cudaEventRecord (display line plan)", m.device);
    m.closings_in_use[buffer] = true;
  }
  if (count > 0) {
    const unsigned threads = 128;
    const unsigned grid = static_cast<unsigned>((m.columns + threads - 1) / threads);
    display_lines_kernel<<<grid, threads, 0, st>>>(input.as<float>(), static_cast<int>(count), static_cast<int>(m.bins),
                                                   static_cast<int>(m.columns), m.closings_device[buffer],
                                                   static_cast<int>(lines), m.sum, m.average, output.as<float>(),
                                                   ring_->data());
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
