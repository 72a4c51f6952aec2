// GpuChannelFilter (gpu_channel_filter.hpp): a CudaFir fed from host memory.
#include "gui/cuda/gpu_channel_filter.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <utility>

#include "pipeline/chunk.hpp"
#include "pipeline/cuda/cuda_fir.hpp"
#include "pipeline/gpu_runtime.hpp"

namespace prism::view {

struct GpuChannelFilter::Impl {
  int device;
  std::size_t max_items;
  std::size_t in_floats, out_floats;  // per item
  std::unique_ptr<cuda::CudaFir> fir;
  float* input = nullptr;
  float* output = nullptr;
  Chunk in_chunk, out_chunk;
  std::uint64_t items_in = 0;

  Impl(const FirSpec& spec, int d, std::size_t max_input_items) : device(d), max_items(max_input_items) {
    if (max_items == 0) throw std::invalid_argument("GpuChannelFilter: a piece holds at least one item");
    StreamInfo input_info;
    input_info.format = spec.complex_input ? SampleFormat::cf32 : SampleFormat::f32;
    input_info.sample_rate = spec.sample_rate;
    input_info.channels = 1;
    const bool complex_output = spec.complex_input || spec.taps.is_complex || spec.shift_hz.has_value();
    StreamInfo output_info = input_info;
    output_info.format = complex_output ? SampleFormat::cf32 : SampleFormat::f32;
    output_info.sample_rate = spec.sample_rate / static_cast<double>(spec.decimation);
    in_floats = spec.complex_input ? 2 : 1;
    out_floats = complex_output ? 2 : 1;
    fir = std::make_unique<cuda::CudaFir>(
        0, [spec, output_info](const StreamInfo&) { return cuda::CudaFir::Design{spec, output_info}; }, device);
    fir->configure(PortDescription::of_samples(input_info), max_items);
    const std::size_t max_out = fir->max_output(max_items);
    try {
      input = static_cast<float*>(gpu::device_alloc(max_items * in_floats * sizeof(float), device, "channel input"));
      output = static_cast<float*>(
          gpu::device_alloc(std::max<std::size_t>(max_out, 1) * out_floats * sizeof(float), device, "channel output"));
    } catch (...) {
      release();
      throw;
    }
    in_chunk.data = reinterpret_cast<std::byte*>(input);
    in_chunk.capacity = max_items;
    in_chunk.item_bytes = in_floats * sizeof(float);
    in_chunk.domain = MemoryDomain::cuda(device);
    out_chunk.data = reinterpret_cast<std::byte*>(output);
    out_chunk.capacity = max_out;
    out_chunk.item_bytes = out_floats * sizeof(float);
    out_chunk.domain = MemoryDomain::cuda(device);
  }

  ~Impl() { release(); }

  void release() noexcept {
    cudaSetDevice(device);
    if (fir) cudaStreamSynchronize(static_cast<cudaStream_t>(fir->stream()));
    // device_free holds the device-wide lock (gpu_runtime.hpp), as a free may wait for the device.
    gpu::device_free(input);
    gpu::device_free(output);
    input = output = nullptr;
  }

  std::size_t process(const float* in, std::size_t n, float* out) {
    if (n > max_items) throw std::logic_error("GpuChannelFilter::process: more items than it was made for");
    if (n == 0) return 0;
    const gpu::Stream stream = fir->stream();
    gpu::set_device(device);  // the sink's thread may be new
    gpu::copy_async(input, in, n * in_floats * sizeof(float), stream, device);
    in_chunk.items = n;
    in_chunk.first_item = items_in;
    out_chunk.items = 0;
    const std::size_t m = fir->process(in_chunk, out_chunk);
    items_in += n;
    if (m > 0) gpu::copy_async(out, output, m * out_floats * sizeof(float), stream, device);
    gpu::host_wait_stream(stream);
    return m;
  }
};

GpuChannelFilter::GpuChannelFilter(const FirSpec& spec, int device, std::size_t max_input_items)
    : impl_(std::make_unique<Impl>(spec, device, max_input_items)) {}

GpuChannelFilter::~GpuChannelFilter() = default;

std::size_t GpuChannelFilter::max_output(std::size_t n) const { return impl_->fir->max_output(n); }

std::size_t GpuChannelFilter::process(const float* in, std::size_t n, float* out) {
  return impl_->process(in, n, out);
}

void GpuChannelFilter::set_taps(const FilterTaps& taps) { impl_->fir->set_taps(taps); }

std::string GpuChannelFilter::where() const { return "GPU " + std::to_string(impl_->device); }

}  // namespace prism::view
