// CudaChannel (cuda_channel.hpp): the channel stages' kernels and their host side — the items
// kept from earlier chunks, the one-pole's state and the shift's anchors on the device.
#include "pipeline/cuda/cuda_channel.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/channel_math.hpp"
#include "pipeline/cuda/cuda_check.hpp"
#include "pipeline/cuda/cuda_fir.hpp"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/cuda/native_samples.cuh"
#include "pipeline/errors.hpp"

namespace prism::cuda {
namespace device {

constexpr int kThreads = 256;
// The one-pole chain's tile of block sums.
constexpr int kChainTile = 2048;
// The shift's pinned anchor slots (as the spectrogram's descriptor slots).
constexpr std::size_t kAnchorSlots = 8;

// A chunk's items as the elementwise kernels read them: converted on load from the chunk itself
// (the stages that keep no items from earlier chunks), else from the stage's buffer of them.
struct Items {
  NativeSamples native;
  const unsigned char* raw = nullptr;
  const float2* converted = nullptr;
  __device__ __forceinline__ float2 operator[](unsigned long long i) const {
    return raw != nullptr ? convert_sample(native, raw, i) : converted[i];
  }
};

__global__ void channel_load_kernel(NativeSamples k, const unsigned char* raw, float2* items, unsigned long long n) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) items[i] = convert_sample(k, raw, i);
}

// y = g·x per float, in double, rounded once (Gain::process).
__global__ void channel_gain_kernel(Items x, unsigned long long n, double g, int complex_items, float* out) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float2 v = x[i];
  if (complex_items) {
    out[2 * i] = static_cast<float>(channel::mul(g, v.x));
    out[2 * i + 1] = static_cast<float>(channel::mul(g, v.y));
  } else {
    out[i] = static_cast<float>(channel::mul(g, v.x));
  }
}

// The shift (complex output) or cw (its real part): item i of a call starting at `first`.
__global__ void channel_mix_kernel(Items x, unsigned long long n, unsigned long long first,
                                   const double2* anchors, const double2* table, int complex_input, int real_part,
                                   float* out) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const unsigned long long item = first + i;
  const double2 a = anchors[item / channel::kPhasorBlockItems - first / channel::kPhasorBlockItems];
  const double2 t = table[item % channel::kPhasorBlockItems];
  const channel::Phasor p = channel::phasor_product(a.x, a.y, t.x, t.y);
  const float2 v = x[i];
  const channel::Phasor y = complex_input ? channel::mix_complex(v.x, v.y, p) : channel::mix_real(v.x, p);
  if (real_part) {
    out[i] = static_cast<float>(y.re);
  } else {
    out[2 * i] = static_cast<float>(y.re);
    out[2 * i + 1] = static_cast<float>(y.im);
  }
}

struct DemodulatorConstants {
  int fm = 0;  // else am
  int one_pole = 0;
  double scale = 0.0;  // fm's discriminator scale
  double b0 = 0.0, b1 = 0.0;
};

__device__ __forceinline__ double demodulated(const DemodulatorConstants& k, const float2* x, long long i) {
  return k.fm ? channel::discriminator(x[i].x, x[i].y, x[i - 1].x, x[i - 1].y, k.scale)
              : channel::envelope(x[i].x, x[i].y);
}

// am, fm: v[i] (the output, without the one-pole) or u[i] = b0·v[i] + b1·v[i − 1] into `values`.
// x[−1] and x[−2] are the items kept from before the call.
__global__ void channel_demodulate_kernel(DemodulatorConstants k, const float2* x, unsigned long long n, double* values,
                                          float* out) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const long long at = static_cast<long long>(i);
  const double v = demodulated(k, x, at);
  if (!k.one_pole) {
    out[i] = static_cast<float>(v);
    return;
  }
  values[i] = channel::one_pole_input(k.b0, k.b1, v, demodulated(k, x, at - 1));
}

__global__ void one_pole_block_kernel(channel::OnePoleCall c, double* values, const channel::OnePoleState* state,
                                      double* totals) {
  const unsigned long long j = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (j < c.blocks()) channel::one_pole_block(c, j, values, *state, totals);
}

// One CTA: the blocks' sums pass through shared memory a tile at a time, so that the one thread
// that chains them waits on no global load.
__global__ void one_pole_chain_kernel(channel::OnePoleCall c, const double* totals, double* starts,
                                      channel::OnePoleState* state) {
  __shared__ double tile[kChainTile];
  double y = state->boundary;
  const unsigned long long blocks = c.blocks(), completed = c.completed_blocks();
  for (unsigned long long base = 0; base < completed; base += kChainTile) {
    const int count = static_cast<int>(min(static_cast<unsigned long long>(kChainTile), completed - base));
    __syncthreads();
    for (int q = threadIdx.x; q < count; q += blockDim.x) tile[q] = totals[base + q];
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll 8
      for (int q = 0; q < count; ++q) {
        starts[base + q] = y;
        y = channel::one_pole_chain_step(c, tile[q], y);
      }
    }
  }
  if (threadIdx.x == 0) {
    if (completed < blocks) starts[blocks - 1] = y;  // the block the call ends inside
    channel::OnePoleState s = *state;
    channel::one_pole_chain_end(c, y, totals[blocks - 1], s);
    *state = s;
  }
}

__global__ void one_pole_output_kernel(channel::OnePoleCall c, const double* values, const double* starts, float* out) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < c.items) out[i] = static_cast<float>(channel::one_pole_output(c, i, values, starts));
}

// resample: output j of the call, output k = first_output + j, whose newest input is window item
// first_offset + (first_phase + j·down) div up + q − 1 at phase (first_phase + j·down) mod up;
// `valid` items of the window exist (zeros beyond: the end of the input).
__global__ void channel_resample_kernel(const float2* window, unsigned long long valid, unsigned long long count,
                                        unsigned long long first_offset, unsigned long long first_phase,
                                        unsigned long long up, unsigned long long down, const float* banks, int q,
                                        int complex_items, float* out) {
  const unsigned long long j = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (j >= count) return;
  const unsigned long long t = first_phase + j * down;
  const unsigned long long start = first_offset + t / up;
  const float* bank = banks + (t % up) * static_cast<unsigned long long>(q);
  float re = 0.0f, im = 0.0f;
  for (int r = 0; r < q; ++r) {
    const unsigned long long at = start + r;
    const float2 x = at < valid ? window[at] : make_float2(0.0f, 0.0f);
    re = fmaf(bank[r], x.x, re);
    im = fmaf(bank[r], x.y, im);
  }
  if (complex_items) {
    out[2 * j] = re;
    out[2 * j + 1] = im;
  } else {
    out[j] = re;
  }
}

// resample by 1/1: the input, unchanged.
__global__ void channel_copy_kernel(Items x, unsigned long long n, int complex_items, float* out) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float2 v = x[i];
  if (complex_items) {
    out[2 * i] = v.x;
    out[2 * i + 1] = v.y;
  } else {
    out[i] = v.x;
  }
}

}  // namespace device

namespace {

unsigned grid_for(unsigned long long items) {
  return static_cast<unsigned>((items + device::kThreads - 1) / device::kThreads);
}

}  // namespace

struct CudaChannel::Impl {
  std::string stage_name;
  unsigned channel = 0;
  Planner planner;
  KeyNamer key_name;
  DeviceInfo device_info;
  int device = 0;
  long long fault_call = -1;
  cudaStream_t compute = nullptr;

  bool configured = false;
  GpuChannelPlan plan;
  device::NativeSamples native;
  std::size_t max_items = 0;
  float2* items[2] = {nullptr, nullptr};  // history_items kept, then a chunk's items (loads_items)
  bool loads_items = true;
  int parity = 0;
  double* values = nullptr;               // am, fm: u, then the local sums
  double* totals = nullptr;
  double* starts = nullptr;
  double* powers = nullptr;
  channel::OnePoleState* pole_state = nullptr;
  std::unique_ptr<CudaFir> sideband;      // usb, lsb: the band-pass as the fir computes it
  float* banks = nullptr;                 // resample
  std::uint64_t outputs = 0;              // resample: outputs written
  bool flushing = false;
  double2* table = nullptr;               // shift, cw
  double2* anchors = nullptr;
  // The host's copies in a ring: slot s is rewritten once its last copy has run (its event), so
  // that process() waits only when the stream is kAnchorSlots calls behind.
  double* anchors_pinned = nullptr;
  std::size_t anchor_slot_doubles = 0;
  cudaEvent_t anchors_copied[device::kAnchorSlots] = {};
  bool anchors_pending[device::kAnchorSlots] = {};
  std::uint64_t next_item = 0;
  std::uint64_t calls = 0;
  std::atomic<std::uint64_t> items_in{0}, items_out{0};

  Impl(std::string n, unsigned c, Planner p, int d, KeyNamer k)
      : stage_name(std::move(n)), channel(c), planner(std::move(p)), key_name(std::move(k)) {
    const auto lock = gpu::lock_device_wide_calls();
    device_info = probe_device(d);
    if (!device_info.usable) throw CudaError(device_info.reason);
    device = d;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    fault_call = gpu::injected_alloc_call();  // PRISM_CUDA_FAULT=alloc@N
    check_cuda(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking),
               "cudaStreamCreate (" + stage_name + ")", device);
  }

  ~Impl() {
    const auto lock = gpu::lock_device_wide_calls();
    release();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamDestroy(compute);
  }

  template <typename T>
  T* allocate(std::size_t count, const char* what) {
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
    check_cuda(cudaMalloc(&p, bytes), std::string("cudaMalloc (") + what + ")", device);
    return static_cast<T*>(p);
  }

  template <typename T>
  void upload(T* to, const void* from, std::size_t count, const char* what) {
    if (count > 0)
      check_cuda(cudaMemcpy(to, from, count * sizeof(T), cudaMemcpyHostToDevice), std::string("cudaMemcpy (") + what + ")",
                 device);
  }

  PortDescription configure(const PortDescription& input, std::size_t max_input_items) {
    release();
    const StreamInfo& stream = input.samples;
    if (channel >= stream.channels)
      throw UsageError(key_name("channel") + " " + std::to_string(channel) + " is out of range: the input has " +
                       std::to_string(stream.channels) + " channel(s)");
    if (max_input_items == 0) throw std::invalid_argument("the chunk size must be at least 1 item");
    StreamInfo floats = stream;
    floats.format = float_format(is_complex(stream.format));
    floats.channels = 1;
    floats.float_full_scale = stream.floats_have_full_scale();  // dBFS downstream, as on the CPU
    sideband.reset();
    Design design = planner(floats);
    plan = std::move(design.plan);
    if (plan.op == GpuChannelOp::sideband) return configure_sideband(input, floats, design.output, max_input_items);
    native = device::native_samples_of(stream, channel, true);
    max_items = max_input_items;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    const auto lock = gpu::lock_device_wide_calls();
    try {
      // The elementwise stages (no items kept) read each chunk itself, converting on load.
      loads_items = plan.history_items > 0 || plan.op == GpuChannelOp::resample;
      for (float2*& buffer : items)
        buffer = allocate<float2>(plan.history_items + (loads_items ? max_items : 0), "channel items");
      if (plan.one_pole) {
        const std::size_t blocks = GpuChannelPlan::max_pole_blocks(max_items);
        values = allocate<double>(max_items, "one-pole values");
        totals = allocate<double>(blocks, "one-pole block sums");
        starts = allocate<double>(blocks, "one-pole block starts");
        powers = allocate<double>(plan.pole_powers.size(), "one-pole powers");
        upload<double>(powers, plan.pole_powers.data(), plan.pole_powers.size(), "one-pole powers");
        pole_state = allocate<channel::OnePoleState>(1, "one-pole state");
      }
      if (plan.op == GpuChannelOp::resample) {
        banks = allocate<float>(plan.resampler_banks.size(), "resampler banks");
        upload<float>(banks, plan.resampler_banks.data(), plan.resampler_banks.size(), "resampler banks");
      }
      if (plan.phase) {
        table = allocate<double2>(plan.phasor_table.size() / 2, "phasor table");
        upload<double2>(table, plan.phasor_table.data(), plan.phasor_table.size() / 2, "phasor table");
        const std::size_t count = GpuChannelPlan::max_anchors(max_items);
        anchors = allocate<double2>(count, "phasor anchors");
        anchor_slot_doubles = 2 * count;
        check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&anchors_pinned), device::kAnchorSlots * count * sizeof(double2),
                                 cudaHostAllocDefault),
                   "cudaHostAlloc (phasor anchors)", device);
        for (cudaEvent_t& event : anchors_copied)
          check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate (anchors)", device);
      }
      // A copy from pageable memory may return before its DMA lands, on the legacy stream,
      // which the stage's stream does not wait for.
      check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (set-up uploads)", device);
    } catch (...) {
      release();
      throw;
    }
    configured = true;
    reset_state();
    return PortDescription::of_samples(design.output);
  }

  // PRISM_CUDA_FAULT=alloc@N: the N-th process() call (0-based) attempts an impossible allocation.
  void count_call() {
    if (fault_call >= 0 && calls == static_cast<std::uint64_t>(fault_call)) {
      void* p = nullptr;
      check_cuda(cudaMalloc(&p, std::size_t{1} << 50), "cudaMalloc (fault injected by PRISM_CUDA_FAULT)", device);
    }
    ++calls;
  }

  // usb, lsb: y = Re(h ∗ x), causal, by the fir's kernels (one FFT convolution per segment in
  // place of M products per output), the real parts stored.
  PortDescription configure_sideband(const PortDescription& input, const StreamInfo& floats, const StreamInfo& output,
                                     std::size_t max_input_items) {
    FirSpec spec;
    spec.taps = FilterTaps::from_complex(plan.sideband_filter);
    spec.complex_input = true;
    spec.sample_rate = floats.sample_rate;
    const auto fir_planner = [spec, output](const StreamInfo&) { return CudaFir::Design{spec, output, true}; };
    auto fir = std::make_unique<CudaFir>(channel, fir_planner, device, key_name);
    const PortDescription described = fir->configure(input, max_input_items);
    sideband = std::move(fir);  // only once configured: the stage's calls go to it from here on
    max_items = max_input_items;
    configured = true;
    calls = 0;
    items_in = items_out = 0;
    return described;
  }

  void release() noexcept {
    const auto lock = gpu::lock_device_wide_calls();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamSynchronize(compute);
    for (void* p : {static_cast<void*>(items[0]), static_cast<void*>(items[1]), static_cast<void*>(values),
                    static_cast<void*>(totals), static_cast<void*>(starts), static_cast<void*>(powers),
                    static_cast<void*>(pole_state), static_cast<void*>(banks),
                    static_cast<void*>(table), static_cast<void*>(anchors)})
      if (p != nullptr) cudaFree(p);
    if (anchors_pinned != nullptr) cudaFreeHost(anchors_pinned);
    for (cudaEvent_t& event : anchors_copied) {
      if (event != nullptr) cudaEventDestroy(event);
      event = nullptr;
    }
    items[0] = items[1] = nullptr;
    values = totals = starts = powers = nullptr;
    pole_state = nullptr;
    banks = nullptr;
    table = anchors = nullptr;
    anchors_pinned = nullptr;
    for (bool& pending : anchors_pending) pending = false;
    configured = false;
  }

  void reset_state() {
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    if (plan.history_items > 0)
      check_cuda(cudaMemsetAsync(items[0], 0, plan.history_items * sizeof(float2), compute),
                 "cudaMemsetAsync (channel history)", device);
    if (pole_state != nullptr)
      check_cuda(cudaMemsetAsync(pole_state, 0, sizeof(channel::OnePoleState), compute),
                 "cudaMemsetAsync (one-pole state)", device);
    parity = 0;
    next_item = 0;
    outputs = 0;
    flushing = false;
    items_in = 0;
    items_out = 0;
  }

  // resample: outputs [outputs, end) over the window items[parity] holding `valid` items, the
  // first of them item `window_first` of the input.
  std::size_t launch_resample(std::uint64_t end, std::uint64_t window_first, unsigned long long valid, float* out) {
    if (end <= outputs) return 0;
    const unsigned long long count = end - outputs;
    const GpuChannelPlan::ResamplePoint first = plan.resample_point(outputs);
    // Output k's window starts at its newest input − (q − 1); after every output whose newest
    // input had arrived, the next one's is at least the history's end, so the start is in the window.
    const unsigned long long offset = first.input + 1 - plan.taps_per_phase - window_first;
    device::channel_resample_kernel<<<grid_for(count), device::kThreads, 0, compute>>>(
        items[parity], valid, count, offset, first.phase, plan.up, plan.down, banks,
        static_cast<int>(plan.taps_per_phase), plan.complex_output ? 1 : 0, out);
    check_cuda(cudaGetLastError(), "channel_resample_kernel launch", device);
    outputs = end;
    return static_cast<std::size_t>(count);
  }

  std::size_t flush(Chunk& output) {
    if (!configured) throw std::logic_error("CudaChannel::flush before configure");
    if (plan.op != GpuChannelOp::resample || plan.up == plan.down) return 0;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    flushing = true;
    // The outputs that read the zeros after the input; the window holds the last q − 1 items.
    const std::uint64_t end = std::min<std::uint64_t>(plan.total_outputs(next_item), outputs + output.capacity);
    const std::size_t written =
        launch_resample(end, next_item - plan.history_items, plan.history_items, output.as<float>());
    items_out.store(outputs, std::memory_order_relaxed);
    return written;
  }

  void launch_mix(const device::Items& x, unsigned long long n, float* out) {
    const std::size_t slot = calls % device::kAnchorSlots;
    if (anchors_pending[slot])
      check_cuda(cudaEventSynchronize(anchors_copied[slot]), "cudaEventSynchronize (phasor anchors)", device);
    double* pinned = anchors_pinned + slot * anchor_slot_doubles;
    const std::size_t count = plan.anchors(next_item, n, pinned);
    // Into the one device buffer: the copy runs after the kernels before it on the stream.
    check_cuda(cudaMemcpyAsync(anchors, pinned, count * sizeof(double2), cudaMemcpyHostToDevice, compute),
               "cudaMemcpyAsync (phasor anchors)", device);
    check_cuda(cudaEventRecord(anchors_copied[slot], compute), "cudaEventRecord (phasor anchors)", device);
    anchors_pending[slot] = true;
    device::channel_mix_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(
        x, n, next_item, anchors, table, plan.complex_input ? 1 : 0, plan.op == GpuChannelOp::cw ? 1 : 0, out);
    check_cuda(cudaGetLastError(), "channel_mix_kernel launch", device);
  }

  void launch_demodulator(const float2* x, unsigned long long n, float* out) {
    device::DemodulatorConstants k;
    k.fm = plan.op == GpuChannelOp::fm ? 1 : 0;
    k.one_pole = plan.one_pole ? 1 : 0;
    k.scale = plan.discriminator_scale;
    k.b0 = plan.b0;
    k.b1 = plan.b1;
    device::channel_demodulate_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(k, x, n, values, out);
    check_cuda(cudaGetLastError(), "channel_demodulate_kernel launch", device);
    if (!plan.one_pole) return;
    channel::OnePoleCall c;
    c.first = next_item;
    c.items = n;
    c.a = plan.a;
    c.powers = powers;
    device::one_pole_block_kernel<<<grid_for(c.blocks()), device::kThreads, 0, compute>>>(c, values, pole_state, totals);
    check_cuda(cudaGetLastError(), "one_pole_block_kernel launch", device);
    device::one_pole_chain_kernel<<<1, device::kThreads, 0, compute>>>(c, totals, starts, pole_state);
    check_cuda(cudaGetLastError(), "one_pole_chain_kernel launch", device);
    device::one_pole_output_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(c, values, starts, out);
    check_cuda(cudaGetLastError(), "one_pole_output_kernel launch", device);
  }

  std::size_t process(const Chunk& input, Chunk& output) {
    if (!configured) throw std::logic_error("CudaChannel::process before configure");
    if (input.items > max_items)
      throw std::invalid_argument("a chunk of " + std::to_string(input.items) + " items exceeds the configured " +
                                  std::to_string(max_items));
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);  // the calling thread may be new
    count_call();
    if (flushing) throw std::logic_error("CudaChannel::process after flush; reset first");
    const unsigned long long n = input.items;
    if (n == 0) return 0;
    const std::size_t history = plan.history_items;
    float2* kept = items[parity];
    float2* x = kept + history;
    // The elementwise stages read the chunk itself; the others their items behind the kept ones.
    device::Items elementwise;
    elementwise.native = native;
    if (!loads_items) {
      elementwise.raw = reinterpret_cast<const unsigned char*>(input.data);
    } else {
      device::channel_load_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(
          native, reinterpret_cast<const unsigned char*>(input.data), x, n);
      check_cuda(cudaGetLastError(), "channel_load_kernel launch", device);
      elementwise.converted = x;
    }
    float* out = output.as<float>();
    std::size_t written = static_cast<std::size_t>(n);
    switch (plan.op) {
      case GpuChannelOp::gain:
        device::channel_gain_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(
            elementwise, n, plan.factor, plan.complex_input ? 1 : 0, out);
        check_cuda(cudaGetLastError(), "channel_gain_kernel launch", device);
        break;
      case GpuChannelOp::shift:
      case GpuChannelOp::cw: launch_mix(elementwise, n, out); break;
      case GpuChannelOp::am:
      case GpuChannelOp::fm: launch_demodulator(x, n, out); break;
      case GpuChannelOp::sideband: throw std::logic_error("CudaChannel: usb and lsb run on their fir");
      case GpuChannelOp::resample:
        if (plan.up == plan.down) {
          device::channel_copy_kernel<<<grid_for(n), device::kThreads, 0, compute>>>(
              elementwise, n, plan.complex_output ? 1 : 0, out);
          check_cuda(cudaGetLastError(), "channel_copy_kernel launch", device);
          outputs += n;
        } else {
          written = launch_resample(plan.ready_outputs(next_item + n), next_item - history, history + n, out);
        }
        break;
    }
    if (history > 0) {  // the last history_items items, in front of the next chunk's
      check_cuda(cudaMemcpyAsync(items[1 - parity], kept + n, history * sizeof(float2), cudaMemcpyDeviceToDevice, compute),
                 "cudaMemcpyAsync (channel history)", device);
      parity = 1 - parity;
    }
    next_item += n;
    if (plan.op != GpuChannelOp::resample) outputs = next_item;
    items_in.store(next_item, std::memory_order_relaxed);
    items_out.store(outputs, std::memory_order_relaxed);
    return written;
  }
};

CudaChannel::CudaChannel(std::string name, unsigned channel, Planner planner, int device, KeyNamer key_name)
    : impl_(std::make_unique<Impl>(std::move(name), channel, std::move(planner), device, std::move(key_name))) {}

CudaChannel::~CudaChannel() = default;

std::string CudaChannel::name() const { return impl_->stage_name; }

std::string CudaChannel::describe() const {
  if (impl_->sideband) return "cuda " + impl_->plan.describe() + "; " + impl_->sideband->describe();
  return "cuda " + (impl_->configured ? impl_->plan.describe() : impl_->stage_name + " (not configured)") + "; " +
         impl_->device_info.describe();
}

MemoryDomain CudaChannel::input_domain() const { return MemoryDomain::cuda(impl_->device); }

PortDescription CudaChannel::configure(const PortDescription& input, std::size_t max_input_items) {
  return impl_->configure(input, max_input_items);
}

// usb and lsb are their fir's calls.
std::size_t CudaChannel::process(const Chunk& input, Chunk& output) {
  if (!impl_->sideband) return impl_->process(input, output);
  check_cuda(cudaSetDevice(impl_->device), "cudaSetDevice", impl_->device);
  impl_->count_call();  // the stage's own fault injection, as for the other stages
  return impl_->sideband->process(input, output);
}

void CudaChannel::reset() {
  if (impl_->sideband) impl_->sideband->reset();
  else if (impl_->configured) impl_->reset_state();
}

std::size_t CudaChannel::max_output(std::size_t input_items) const {
  return impl_->sideband ? impl_->sideband->max_output(input_items) : impl_->plan.max_output(input_items);
}

std::size_t CudaChannel::flush(Chunk& output) {
  return impl_->sideband ? impl_->sideband->flush(output) : impl_->flush(output);
}

StageCounters CudaChannel::counters() const {
  if (impl_->sideband) {
    const StageCounters fir = impl_->sideband->counters();
    return {fir.items_in, fir.items_out, {}};
  }
  return {impl_->items_in.load(std::memory_order_relaxed), impl_->items_out.load(std::memory_order_relaxed), {}};
}

gpu::Stream CudaChannel::stream() const { return impl_->sideband ? impl_->sideband->stream() : impl_->compute; }

}  // namespace prism::cuda
