// CudaSpectrogram (cuda_spectrogram.hpp): the host side of the CUDA streaming engine —
// device set-up, buffers, cuFFT plan, graph capture, and the per-block submit / retire cycle.
//
// Contents:
//   1. checked calls and device probing
//   2. Impl: set-up        tables and layout (as CpuSpectrogram), buffers, streams, graphs
//   3. Impl: one block     descriptor, H2D, graph replay, D2H; retiring the oldest block
//   4. the public class
#include "pipeline/cuda/cuda_spectrogram.hpp"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "pipeline/cuda/cuda_check.hpp"
#include "pipeline/cuda/cuda_spectrogram_kernels.cuh"
#include "pipeline/errors.hpp"
#include "pipeline/window.hpp"

namespace prism::cuda {
namespace {

// ---- 1. checked calls and device probing -----------------------------------------------------

std::string bytes_text(std::size_t bytes) {
  char text[64];
  if (bytes >= (std::size_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  else
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of device memory)";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
  }
}

void check_cufft(cufftResult status, std::string_view call, int device) {
  if (status == CUFFT_SUCCESS) return;
  throw CudaError(std::string(call) + ": " + cufft_result_name(status) + " (code " +
                  std::to_string(static_cast<int>(status)) + ", device " +
                  std::to_string(device) + ")");
}

int format_code(SampleFormat f) {
  switch (f) {
    case SampleFormat::f32: return device::f32;
    case SampleFormat::cf32: return device::cf32;
    case SampleFormat::i16: return device::i16;
    case SampleFormat::ci16: return device::ci16;
    case SampleFormat::i8: return device::i8;
    case SampleFormat::ci8: return device::ci8;
    case SampleFormat::u8: return device::u8;
    case SampleFormat::cu8: return device::cu8;
  }
  return device::f32;
}

// PRISM_CUDA_FAULT=alloc@N: the N-th process() call attempts an impossible allocation.
long long injected_fault_block() {
  const char* text = std::getenv("PRISM_CUDA_FAULT");
  if (text == nullptr || std::strncmp(text, "alloc@", 6) != 0) return -1;
  return std::atoll(text + 6);
}

}  // namespace

bool fused_path_supports(const SpectrogramParams& p, bool complex_input) {
  const std::size_t n = p.nfft;
  return n >= kFusedMinNfft && n <= (complex_input ? kFusedMaxComplexNfft : kFusedMaxRealNfft) &&
         (n & (n - 1)) == 0;
}

namespace {

// The fused kernel of one team length: its function, CTA size and shared memory.
struct FusedKernel {
  const void* function = nullptr;
  int threads = 0;
  int teams = 0;  // transforms side by side in one CTA
  int shared_bytes = 0;
  void (*launch)(dim3 grid, cudaStream_t stream, const device::EngineConstants& k,
                 const device::BlockDescriptor* d, const unsigned char* raw, const float* history,
                 int history_floats, const float* window, const fft::gpu::Cf* stage_twiddles,
                 const fft::gpu::Cf* real_twiddles, const float* column_scale, float* carry,
                 float* rows) = nullptr;
};

template <int kN, bool kReal>
FusedKernel fused_kernel_of() {
  FusedKernel f;
  f.function = reinterpret_cast<const void*>(&device::fused_kernel<kN, kReal>);
  f.threads = device::fused_cta_threads<kN>();
  f.teams = device::fused_teams<kN>();
  f.shared_bytes = device::fused_shared_bytes<kN>();
  f.launch = [](dim3 grid, cudaStream_t stream, const device::EngineConstants& k, const device::BlockDescriptor* d,
                const unsigned char* raw, const float* history, int history_floats, const float* window,
                const fft::gpu::Cf* stage_twiddles, const fft::gpu::Cf* real_twiddles, const float* column_scale,
                float* carry, float* rows) {
    device::fused_kernel<kN, kReal><<<grid, device::fused_cta_threads<kN>(), device::fused_shared_bytes<kN>(), stream>>>(
        k, d, raw, history, history_floats, window, stage_twiddles, real_twiddles, column_scale, carry, rows);
  };
  return f;
}

// The team length kN: nfft for complex input, nfft/2 (pairs of samples) for real input.
template <bool kReal>
FusedKernel fused_kernel_for(int team_length) {
  switch (team_length) {
    case 32: if constexpr (kReal) return fused_kernel_of<32, kReal>(); else break;
    case 64: return fused_kernel_of<64, kReal>();
    case 128: return fused_kernel_of<128, kReal>();
    case 256: return fused_kernel_of<256, kReal>();
    case 512: return fused_kernel_of<512, kReal>();
    case 1024: return fused_kernel_of<1024, kReal>();
    case 2048: return fused_kernel_of<2048, kReal>();
    case 4096: return fused_kernel_of<4096, kReal>();
    case 8192: return fused_kernel_of<8192, kReal>();
    default: break;
  }
  return FusedKernel{};
}

}  // namespace

std::string DeviceInfo::describe() const {
  if (!usable) return "no usable CUDA device: " + reason;
  char text[256];
  std::snprintf(text, sizeof text, "%s (device %d, sm_%d%d, %s)", name.c_str(), index,
                compute_major, compute_minor, bytes_text(total_bytes).c_str());
  return text;
}

DeviceInfo probe_device(int index) {
  DeviceInfo info;
  info.index = index;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // No driver (cudaErrorInsufficientDriver on a machine without a GPU) or no device.
    const bool absent = status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver;
    info.reason = std::string(absent ? "no CUDA device is present (" : "(") + "cudaGetDeviceCount: " +
                  cudaGetErrorString(status) + ")";
    cudaGetLastError();
    return info;
  }
  if (count == 0) {
    info.reason = "no CUDA device is present";
    return info;
  }
  if (index < 0 || index >= count) {
    info.reason = "--device " + std::to_string(index) + " does not exist (devices 0.." +
                  std::to_string(count - 1) + ")";
    return info;
  }
  cudaDeviceProp prop{};
  status = cudaGetDeviceProperties(&prop, index);
  if (status != cudaSuccess) {
    info.reason = std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(status);
    return info;
  }
  info.name = prop.name;
  info.total_bytes = prop.totalGlobalMem;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  // Can this build's kernels run here? (they are compiled for one architecture)
  cudaFuncAttributes attributes{};
  status = cudaSetDevice(index);
  if (status == cudaSuccess) status = cudaFuncGetAttributes(&attributes, device::history_kernel);
  if (status != cudaSuccess) {
    info.reason = info.name + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
                  ") cannot run this build's kernels: " + cudaGetErrorString(status);
    cudaGetLastError();
    return info;
  }
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) info.free_bytes = free_bytes;
  info.usable = true;
  return info;
}

// ---- 2. Impl: set-up ---------------------------------------------------------------------------

struct CudaSpectrogram::Impl {
  StreamInfo stream;
  SpectrogramParams params;
  CudaEngineOptions options;
  DeviceInfo device_info;
  int device = 0;
  SpectrumLayout layout;
  device::EngineConstants k{};
  TransformPath path = TransformPath::cufft;
  std::string path_note;  // why the fused path was not taken, when it was asked for
  std::size_t max_block_samples = 0;
  std::size_t max_frames = 0;      // frames one block can complete
  std::size_t max_rows = 0;        // rows one block can complete
  std::size_t chunks = 1;          // FFT batches per block (cufft path)
  std::size_t slots = 0;           // k + 1
  std::size_t history_floats = 0;  // one history buffer
  std::size_t hop = 0;
  std::size_t columns = 0;

  // Device memory.
  std::vector<unsigned char*> raw;  // per slot: one block in its native format
  std::vector<float*> rows_device;  // per slot: the block's rows
  device::BlockDescriptor* descriptors_device = nullptr;  // per slot
  float* history = nullptr;         // two buffers of history_floats
  float* carry = nullptr;           // two rows
  float* window = nullptr;
  float* column_scale = nullptr;
  fft::gpu::Cf* stage_twiddles = nullptr;  // fused path: the team FFT's tables
  fft::gpu::Cf* real_twiddles = nullptr;
  FusedKernel fused;
  float* frames = nullptr;          // cufft path: one chunk of frames
  float2* spectrum = nullptr;       // cufft path: their transforms
  void* fft_work = nullptr;
  std::size_t device_bytes = 0;

  // Pinned host memory.
  device::BlockDescriptor* descriptors_host = nullptr;  // per slot
  std::vector<float*> rows_host;                         // per slot
  std::size_t host_bytes = 0;

  cudaStream_t h2d = nullptr, compute = nullptr, d2h = nullptr;
  std::vector<cudaEvent_t> h2d_done, compute_done, d2h_done;
  cufftHandle plan = 0;
  bool plan_made = false;
  std::unique_ptr<fft::Backend> prism_backend;  // prism path: our FFT library
  std::unique_ptr<fft::Plan> prism_plan;
  std::vector<cudaGraphExec_t> graphs;
  bool graph_in_use = false;
  std::string graph_note;

  // Stream state (host).
  std::atomic<std::uint64_t> samples_in{0};
  std::atomic<std::uint64_t> frames_done{0};
  std::uint64_t history_first = 0;
  int history_parity = 0;
  int carry_parity = 0;
  std::uint64_t submitted = 0;  // blocks given to process()
  std::size_t in_flight = 0;    // submitted, not yet retired
  std::vector<std::size_t> slot_rows;
  // Per slot: where its rows' copy was queued at submission (pinned staging for
  // process_borrowed(), the named buffer for submit()); null: they wait on the device for the
  // buffer given when the block is retired (process(): one DMA straight into it).
  std::vector<float*> slot_destination;
  long long fault_block = -1;
  // What leaves the device per slot: the spectra, or a row stage's output (row_stage).
  std::vector<float*> stage_out;
  std::size_t out_columns = 0;
  std::atomic<std::uint64_t> stage_rows_out{0};

  Impl(const StreamInfo& s, const SpectrogramParams& p, std::size_t max_block, const CudaEngineOptions& o)
      : stream(s), params(p), options(o), max_block_samples(max_block) {
    params.validate();
    if (!(stream.sample_rate > 0)) throw std::invalid_argument("the sample rate must be positive");
    if (stream.channels < 1) throw std::invalid_argument("the stream has no channels");
    if (params.channel >= stream.channels)
      throw UsageError("--channel " + std::to_string(params.channel) + " is out of range: the input has " +
                       std::to_string(stream.channels) + " channel(s)");
    if (max_block_samples == 0) throw std::invalid_argument("the block size must be at least 1 sample");
    if (options.blocks_in_flight < 1) throw UsageError("blocks in flight must be at least 1");
    device_info = probe_device(options.device);
    if (!device_info.usable) throw CudaError(device_info.reason);
    device = options.device;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    fault_block = injected_fault_block();

    const bool complex_input = is_complex(stream.format);
    hop = params.hop();
    columns = complex_input ? params.nfft : params.nfft / 2 + 1;
    path = options.path;
    if (path == TransformPath::fused && !fused_path_supports(params, complex_input)) path = TransformPath::prism;
    make_constants(complex_input);
    layout = spectrogram_layout(stream, params);

    max_frames = (max_block_samples - 1) / hop + 1;
    // The fused kernel gives each averaging group to one team of threads, which runs the
    // group's frames one after another: with long averages a block holds too few groups to
    // fill the device, and the unfused path (every frame in parallel, then the averaging
    // across columns) is faster. Two groups per multiprocessor are enough.
    const std::size_t groups = max_frames / params.average;
    if (path == TransformPath::fused && params.average > 1 && !options.force_fused &&
        groups < std::min<std::size_t>(max_frames, 2 * static_cast<std::size_t>(device_info.multiprocessors))) {
      path = TransformPath::prism;
      path_note = "averages of " + std::to_string(params.average) + " frames leave " + std::to_string(groups) +
                  " rows per block, too few for the fused kernel";
    }
    max_rows = (max_frames + params.average - 1) / params.average;
    slots = options.blocks_in_flight + 1;
    slot_rows.assign(slots, 0);
    slot_destination.assign(slots, nullptr);
    const std::size_t components = complex_input ? 2 : 1;
    history_floats = params.nperseg * components;
    // One FFT batch holds at most ~16 Mi floats of frames (64 MiB), so memory is bounded for
    // any hop; a block with more frames runs several batches.
    const std::size_t frame_floats = params.nfft * components;
    const std::size_t chunk_frames =
        std::max<std::size_t>(1, std::min(max_frames, (std::size_t{1} << 24) / frame_floats));
    chunks = path == TransformPath::fused ? 1 : (max_frames + chunk_frames - 1) / chunk_frames;
    k.chunk_frames = static_cast<unsigned>(path == TransformPath::fused ? max_frames : chunk_frames);
    k.spectrum_stride = static_cast<int>(complex_input ? params.nfft : params.nfft / 2 + 1);

    try {
      allocate_and_upload(complex_input, chunk_frames);
      capture_graphs();
      prepare_row_stage();
    } catch (...) {
      release();
      throw;
    }
  }

  ~Impl() { release(); }

  void prepare_row_stage() {
    out_columns = columns;
    DeviceRowStage* stage = options.row_stage;
    if (stage == nullptr) return;
    stage->prepare(layout, device, max_rows, options.blocks_in_flight);
    out_columns = stage->output_columns();
    if (out_columns == 0 || out_columns > columns)
      throw std::logic_error("a row stage writes " + std::to_string(out_columns) + " floats per row; the engine's " +
                             "buffers hold 1 to " + std::to_string(columns));
    for (std::size_t s = 0; s < slots; ++s) stage_out.push_back(device_alloc<float>(max_rows * out_columns, "stage rows"));
  }

  // Where slot s's rows to the host are on the device.
  const float* rows_leaving(std::size_t s) const { return stage_out.empty() ? rows_device[s] : stage_out[s]; }

  void make_constants(bool complex_input) {
    k.format = format_code(stream.format);
    k.complex_input = complex_input ? 1 : 0;
    k.channels = static_cast<int>(stream.channels);
    k.channel = static_cast<int>(params.channel);
    k.sample_bytes = static_cast<int>(sample_bytes(stream.format));
    k.frame_bytes = static_cast<int>(stream.frame_bytes());
    const bool unit = params.integer_scale == IntegerScale::unit;
    switch (stream.format) {
      case SampleFormat::i16:
      case SampleFormat::ci16: k.scale = unit ? 1.0f / 32768.0f : 1.0f; break;
      case SampleFormat::i8:
      case SampleFormat::ci8: k.scale = unit ? 1.0f / 128.0f : 1.0f; break;
      case SampleFormat::u8:
      case SampleFormat::cu8:
        k.scale = unit ? 1.0f / 128.0f : 1.0f;
        k.offset = unit ? 128.0f : 0.0f;
        break;
      default: break;
    }
    k.nperseg = static_cast<int>(params.nperseg);
    k.hop = static_cast<int>(params.hop());
    k.nfft = static_cast<int>(params.nfft);
    k.columns = static_cast<int>(columns);
    k.average = static_cast<int>(params.average);
    k.average_max = params.average_kind == AverageKind::max ? 1 : 0;
    k.magnitude = params.mode == SpectrumMode::magnitude ? 1 : 0;
    k.decibels = params.decibels ? 1 : 0;
    k.detrend = params.detrend == Detrend::constant ? 1 : 0;
    const DecibelScale db = spectrogram_decibels(params);
    k.decibel_multiplier = db.multiplier;
    k.decibel_floor = db.floor;
  }

  template <typename T>
  T* device_alloc(std::size_t count, const char* what) {
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
    check_cuda(cudaMalloc(&p, bytes), std::string("cudaMalloc (") + what + ", " + bytes_text(bytes) + ")", device);
    device_bytes += bytes;
    return static_cast<T*>(p);
  }

  template <typename T>
  T* pinned_alloc(std::size_t count, const char* what) {
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
    check_cuda(cudaHostAlloc(&p, bytes, cudaHostAllocDefault),
          std::string("cudaHostAlloc (") + what + ", " + bytes_text(bytes) + ")", device);
    host_bytes += bytes;
    return static_cast<T*>(p);
  }

  void allocate_and_upload(bool complex_input, std::size_t chunk_frames) {
    check_cuda(cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking), "cudaStreamCreate (H2D)", device);
    check_cuda(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "cudaStreamCreate (compute)", device);
    check_cuda(cudaStreamCreateWithFlags(&d2h, cudaStreamNonBlocking), "cudaStreamCreate (D2H)", device);
    for (auto* events : {&h2d_done, &compute_done, &d2h_done}) {
      events->assign(slots, nullptr);
      for (cudaEvent_t& e : *events)
        check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate", device);
    }
    const std::size_t block_bytes = max_block_samples * stream.frame_bytes();
    for (std::size_t s = 0; s < slots; ++s) {
      raw.push_back(device_alloc<unsigned char>(block_bytes, "raw block"));
      rows_device.push_back(device_alloc<float>(max_rows * columns, "rows"));
      rows_host.push_back(pinned_alloc<float>(max_rows * columns, "pinned rows"));
    }
    descriptors_device = device_alloc<device::BlockDescriptor>(slots, "block descriptors");
    descriptors_host = pinned_alloc<device::BlockDescriptor>(slots, "pinned block descriptors");
    history = device_alloc<float>(2 * history_floats, "history");
    check_cuda(cudaMemset(history, 0, 2 * history_floats * sizeof(float)), "cudaMemset (history)", device);
    carry = device_alloc<float>(2 * columns, "carry");
    check_cuda(cudaMemset(carry, 0, 2 * columns * sizeof(float)), "cudaMemset (carry)", device);

    const std::vector<double> w = make_window(params.window, params.nperseg);
    // Zero beyond nperseg up to nfft: the fused kernel windows whole pairs without a bound check.
    std::vector<float> window_host(std::max(params.nperseg, params.nfft) + 1, 0.0f);
    std::copy(w.begin(), w.end(), window_host.begin());
    window = device_alloc<float>(window_host.size(), "window");
    check_cuda(cudaMemcpy(window, window_host.data(), window_host.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy (window)", device);
    const std::vector<float> scale_host = spectrogram_column_scales(stream, params, w);
    column_scale = device_alloc<float>(columns, "column scales");
    check_cuda(cudaMemcpy(column_scale, scale_host.data(), columns * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy (column scales)", device);

    if (path == TransformPath::fused) {
      const int team_length = static_cast<int>(complex_input ? params.nfft : params.nfft / 2);
      fused = complex_input ? fused_kernel_for<false>(team_length) : fused_kernel_for<true>(team_length);
      if (fused.function == nullptr) throw std::logic_error("no fused kernel for nfft " + std::to_string(params.nfft));
      const std::vector<fft::gpu::Cf> stage_table = fft::gpu::stage_twiddle_table(team_length);
      stage_twiddles = device_alloc<fft::gpu::Cf>(stage_table.size(), "FFT stage twiddles");
      check_cuda(cudaMemcpy(stage_twiddles, stage_table.data(), stage_table.size() * sizeof(fft::gpu::Cf),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy (FFT stage twiddles)", device);
      if (!complex_input) {
        const std::vector<fft::gpu::Cf> real_table = fft::gpu::unit_roots(2ll * team_length, team_length + 1);
        real_twiddles = device_alloc<fft::gpu::Cf>(real_table.size(), "real-FFT twiddles");
        check_cuda(cudaMemcpy(real_twiddles, real_table.data(), real_table.size() * sizeof(fft::gpu::Cf),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy (real-FFT twiddles)", device);
      }
      check_cuda(cudaFuncSetAttribute(fused.function, cudaFuncAttributeMaxDynamicSharedMemorySize, fused.shared_bytes),
            "cudaFuncSetAttribute (fused kernel shared memory)", device);
    } else {
      const std::size_t components = complex_input ? 2 : 1;
      frames = device_alloc<float>(chunk_frames * params.nfft * components, "frames");
      check_cuda(cudaMemset(frames, 0, chunk_frames * params.nfft * components * sizeof(float)),
            "cudaMemset (frames)", device);
      spectrum = device_alloc<float2>(chunk_frames * static_cast<std::size_t>(k.spectrum_stride), "spectra");
      if (path == TransformPath::prism) {
        fft::PlanSpec spec;
        spec.n = params.nfft;
        spec.batch = chunk_frames;
        spec.transform = complex_input ? fft::Transform::c2c_forward : fft::Transform::r2c;
        try {
          prism_backend = fft::make_cuda_backend();
          prism_plan = prism_backend->plan(spec);
        } catch (const std::exception& e) {
          throw CudaError(std::string("our FFT plan (nfft ") + std::to_string(params.nfft) + ", batch " +
                          std::to_string(chunk_frames) + "): " + e.what() + " (device " + std::to_string(device) + ")");
        }
        device_bytes += prism_plan->device_bytes();
      } else {
        int n = static_cast<int>(params.nfft);
        int out_n = k.spectrum_stride;
        const cufftType type = complex_input ? CUFFT_C2C : CUFFT_R2C;
        check_cufft(cufftCreate(&plan), "cufftCreate", device);
        plan_made = true;
        check_cufft(cufftSetAutoAllocation(plan, 0), "cufftSetAutoAllocation", device);
        std::size_t work_bytes = 0;
        check_cufft(cufftMakePlanMany(plan, 1, &n, nullptr, 1, n, nullptr, 1, out_n, type,
                                      static_cast<int>(chunk_frames), &work_bytes),
                    "cufftMakePlanMany (nfft " + std::to_string(n) + ", batch " + std::to_string(chunk_frames) + ")",
                    device);
        fft_work = device_alloc<unsigned char>(work_bytes, "cuFFT work area");
        check_cufft(cufftSetWorkArea(plan, fft_work), "cufftSetWorkArea", device);
        check_cufft(cufftSetStream(plan, compute), "cufftSetStream", device);
      }
    }
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (set-up)", device);
  }

  // The per-block work for slot s, launched on the compute stream.
  void launch_block_work(std::size_t s) {
    const device::BlockDescriptor* d = descriptors_device + s;
    const int history_int = static_cast<int>(history_floats);
    if (path == TransformPath::fused) {
      const unsigned groups = static_cast<unsigned>(max_frames / params.average + 2);
      fused.launch(dim3((groups + fused.teams - 1) / fused.teams), compute, k, d, raw[s], history, history_int,
                   window, stage_twiddles, real_twiddles, column_scale, carry, rows_device[s]);
      check_cuda(cudaGetLastError(), "fused_kernel launch", device);
    } else {
      const bool complex_input = k.complex_input != 0;
      const unsigned column_tiles = static_cast<unsigned>((columns + 255) / 256);
      const unsigned groups = static_cast<unsigned>(k.chunk_frames / params.average + 2);
      for (std::size_t c = 0; c < chunks; ++c) {
        device::frame_kernel<<<k.chunk_frames, 256, 0, compute>>>(k, d, raw[s], history, history_int, window,
                                                                 frames, static_cast<unsigned>(c));
        check_cuda(cudaGetLastError(), "frame_kernel launch", device);
        if (prism_plan) {
          try {
            prism_plan->execute(frames, spectrum, k.chunk_frames, compute);
          } catch (const std::exception& e) {
            throw CudaError(std::string("our FFT: ") + e.what() + " (device " + std::to_string(device) + ")");
          }
        } else if (complex_input) {
          check_cufft(cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(frames),
                                   reinterpret_cast<cufftComplex*>(spectrum), CUFFT_FORWARD),
                      "cufftExecC2C", device);
        } else {
          check_cufft(cufftExecR2C(plan, frames, reinterpret_cast<cufftComplex*>(spectrum)), "cufftExecR2C",
                      device);
        }
        device::detect_kernel<<<dim3(groups, column_tiles), 256, 0, compute>>>(
            k, d, spectrum, column_scale, carry, rows_device[s], static_cast<unsigned>(c));
        check_cuda(cudaGetLastError(), "detect_kernel launch", device);
      }
    }
    const unsigned history_tiles = static_cast<unsigned>((params.nperseg + 255) / 256);
    device::history_kernel<<<history_tiles, 256, 0, compute>>>(k, d, raw[s], history, history_int);
    check_cuda(cudaGetLastError(), "history_kernel launch", device);
  }

  // One graph per slot (its buffers differ); if capture is refused, the kernels are launched
  // directly and describe() says so.
  void capture_graphs() {
    if (!options.use_graph) {
      graph_note = "direct launches";
      return;
    }
    graphs.assign(slots, nullptr);
    for (std::size_t s = 0; s < slots; ++s) {
      cudaGraph_t graph = nullptr;
      check_cuda(cudaStreamBeginCapture(compute, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", device);
      try {
        launch_block_work(s);
      } catch (const CudaError& e) {
        cudaStreamEndCapture(compute, &graph);
        if (graph != nullptr) cudaGraphDestroy(graph);
        cudaGetLastError();
        graph_note = std::string("direct launches (graph capture refused: ") + e.what() + ")";
        destroy_graphs();
        return;
      }
      check_cuda(cudaStreamEndCapture(compute, &graph), "cudaStreamEndCapture", device);
      const cudaError_t status = cudaGraphInstantiate(&graphs[s], graph, 0);
      cudaGraphDestroy(graph);
      check_cuda(status, "cudaGraphInstantiate", device);
    }
    graph_in_use = true;
    graph_note = "one CUDA graph per block";
  }

  void destroy_graphs() {
    for (cudaGraphExec_t& g : graphs)
      if (g != nullptr) cudaGraphExecDestroy(g);
    graphs.clear();
    graph_in_use = false;
  }

  void release() noexcept {
    cudaSetDevice(device);
    for (cudaStream_t st : {h2d, compute, d2h})
      if (st != nullptr) cudaStreamSynchronize(st);
    destroy_graphs();
    if (plan_made) cufftDestroy(plan);
    plan_made = false;
    prism_plan.reset();
    prism_backend.reset();
    for (auto* events : {&h2d_done, &compute_done, &d2h_done}) {
      for (cudaEvent_t e : *events)
        if (e != nullptr) cudaEventDestroy(e);
      events->clear();
    }
    for (cudaStream_t* st : {&h2d, &compute, &d2h}) {
      if (*st != nullptr) cudaStreamDestroy(*st);
      *st = nullptr;
    }
    for (unsigned char* p : raw) cudaFree(p);
    for (float* p : rows_device) cudaFree(p);
    for (float* p : stage_out) cudaFree(p);
    stage_out.clear();
    for (float* p : rows_host) cudaFreeHost(p);
    raw.clear();
    rows_device.clear();
    rows_host.clear();
    for (void* p : {static_cast<void*>(descriptors_device), static_cast<void*>(history), static_cast<void*>(carry),
                    static_cast<void*>(window), static_cast<void*>(column_scale), static_cast<void*>(stage_twiddles), static_cast<void*>(real_twiddles),
                    static_cast<void*>(frames), static_cast<void*>(spectrum), fft_work})
      if (p != nullptr) cudaFree(p);
    descriptors_device = nullptr;
    history = carry = window = column_scale = frames = nullptr;
    spectrum = nullptr;
    stage_twiddles = real_twiddles = nullptr;
    fft_work = nullptr;
    if (descriptors_host != nullptr) cudaFreeHost(descriptors_host);
    descriptors_host = nullptr;
  }

  // ---- 3. Impl: one block ----------------------------------------------------------------

  // Submits `block` with its rows' destination (see submit()); once k blocks are in flight,
  // retires the oldest into `copy_to` (null: wherever its rows went) and returns its row count.
  std::size_t submit_and_retire(const Block& block, float* destination, float* copy_to, const float*& rows) {
    submit(block, destination);
    if (in_flight <= options.blocks_in_flight) return 0;
    return retire_oldest(copy_to, rows);
  }

  // At the end of input: retires the oldest block still in flight, if any.
  bool retire_any(float* copy_to, const float*& rows, std::size_t& rows_written) {
    rows_written = 0;
    if (in_flight == 0) return false;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    rows_written = retire_oldest(copy_to, rows);
    return true;
  }

  // Submits a block. destination: where its rows are copied as soon as its work is done (pinned
  // staging or a buffer the caller named); null: they stay on the device until the block is
  // retired, then go into the buffer the retiring call gives.
  void submit(const Block& block, float* destination) {
    const bool deferred = destination == nullptr;
    if (block.samples > max_block_samples)
      throw std::invalid_argument("a block of " + std::to_string(block.samples) +
                                  " samples exceeds the engine's maximum of " + std::to_string(max_block_samples));
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);  // the calling thread may be new
    if (fault_block >= 0 && submitted == static_cast<std::uint64_t>(fault_block))
      device_alloc<unsigned char>(std::size_t{1} << 50, "fault injected by PRISM_CUDA_FAULT");

    const std::size_t s = submitted % slots;
    const std::uint64_t block_first = samples_in.load(std::memory_order_relaxed);
    const std::uint64_t block_end = block_first + block.samples;
    const std::uint64_t nperseg = params.nperseg;
    const std::uint64_t K = params.average;
    const std::uint64_t f0 = frames_done.load(std::memory_order_relaxed);
    const std::uint64_t f1 = block_end >= nperseg ? std::max(f0, (block_end - nperseg) / hop + 1) : f0;

    device::BlockDescriptor& d = descriptors_host[s];
    d.block_first = block_first;
    d.block_samples = block.samples;
    d.first_frame = f0;
    d.end_frame = f1;
    d.history_first = history_first;
    d.next_history_first = f1 * hop;
    d.history_parity = history_parity;
    d.carry_parity = carry_parity;

    check_cuda(cudaMemcpyAsync(raw[s], block.data, block.samples * stream.frame_bytes(), cudaMemcpyHostToDevice, h2d),
          "cudaMemcpyAsync (block to device)", device);
    check_cuda(cudaMemcpyAsync(descriptors_device + s, &d, sizeof d, cudaMemcpyHostToDevice, h2d),
          "cudaMemcpyAsync (descriptor to device)", device);
    check_cuda(cudaEventRecord(h2d_done[s], h2d), "cudaEventRecord (H2D)", device);
    check_cuda(cudaStreamWaitEvent(compute, h2d_done[s], 0), "cudaStreamWaitEvent (compute after H2D)", device);
    if (graph_in_use)
      check_cuda(cudaGraphLaunch(graphs[s], compute), "cudaGraphLaunch", device);
    else
      launch_block_work(s);
    std::size_t rows = static_cast<std::size_t>(f1 / K - f0 / K);
    if (options.row_stage != nullptr) {
      rows = options.row_stage->enqueue(rows_device[s], rows, stage_out[s], compute);
      check_cuda(cudaGetLastError(), "the row stage's launches", device);
      stage_rows_out.fetch_add(rows, std::memory_order_relaxed);
    }
    check_cuda(cudaEventRecord(compute_done[s], compute), "cudaEventRecord (compute)", device);
    // Deferred rows queue nothing on the D2H stream now: a wait for this block's work there
    // would hold back the D2H of older blocks queued at their retirement.
    if (!deferred) {
      check_cuda(cudaStreamWaitEvent(d2h, compute_done[s], 0), "cudaStreamWaitEvent (D2H after compute)", device);
      if (rows > 0)
        check_cuda(cudaMemcpyAsync(destination, rows_leaving(s), rows * out_columns * sizeof(float),
                              cudaMemcpyDeviceToHost, d2h),
              "cudaMemcpyAsync (rows to host)", device);
      check_cuda(cudaEventRecord(d2h_done[s], d2h), "cudaEventRecord (D2H)", device);
    }
    slot_rows[s] = rows;
    slot_destination[s] = destination;

    // The host's copy of the stream state, as the kernels will leave it.
    const std::size_t chunks_run =
        f1 > f0 ? static_cast<std::size_t>((f1 - f0 + k.chunk_frames - 1) / k.chunk_frames) : 0;
    carry_parity ^= static_cast<int>(chunks_run & 1u);
    history_parity ^= 1;
    history_first = f1 * hop;
    frames_done.store(f1, std::memory_order_relaxed);
    samples_in.store(block_end, std::memory_order_relaxed);
    ++submitted;
    ++in_flight;
  }

  // Waits for the oldest block's rows (the only blocking call of a block's cycle) and returns
  // their count. dest: bring them there (null: leave them where their copy went, pinned staging
  // for rows that waited on the device); `rows` points at where they are.
  std::size_t retire_oldest(float* dest, const float*& rows) {
    const std::size_t s = (submitted - in_flight) % slots;
    const std::size_t count = slot_rows[s];
    const std::size_t bytes = count * out_columns * sizeof(float);
    const std::string_view wait = "cudaEventSynchronize (rows of the oldest block)";
    if (slot_destination[s] == nullptr) {
      float* target = dest != nullptr ? dest : rows_host[s];
      check_cuda(cudaStreamWaitEvent(d2h, compute_done[s], 0), "cudaStreamWaitEvent (D2H after compute)", device);
      if (count > 0)
        check_cuda(cudaMemcpyAsync(target, rows_leaving(s), bytes, cudaMemcpyDeviceToHost, d2h),
              "cudaMemcpyAsync (rows to host)", device);
      check_cuda(cudaEventRecord(d2h_done[s], d2h), "cudaEventRecord (D2H)", device);
      check_cuda(cudaEventSynchronize(d2h_done[s]), wait, device);
      rows = target;
    } else {
      check_cuda(cudaEventSynchronize(d2h_done[s]), wait, device);
      rows = slot_destination[s];
      if (dest != nullptr && dest != rows && count > 0) std::memcpy(dest, rows, bytes);
    }
    --in_flight;
    return count;
  }

  double time_block_work_ms(const Block& block, int repetitions) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    device::BlockDescriptor& d = descriptors_host[0];
    const std::uint64_t nperseg = params.nperseg;
    d = device::BlockDescriptor{};
    d.block_samples = block.samples;
    d.end_frame = block.samples >= nperseg ? (block.samples - nperseg) / hop + 1 : 0;
    d.next_history_first = d.end_frame * hop;
    check_cuda(cudaMemcpy(raw[0], block.data, block.samples * stream.frame_bytes(), cudaMemcpyHostToDevice),
          "cudaMemcpy (benchmark block)", device);
    check_cuda(cudaMemcpy(descriptors_device, &d, sizeof d, cudaMemcpyHostToDevice), "cudaMemcpy (descriptor)", device);
    cudaEvent_t start = nullptr, stop = nullptr;
    check_cuda(cudaEventCreate(&start), "cudaEventCreate", device);
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate", device);
    std::vector<float> times;
    for (int r = 0; r < repetitions + 2; ++r) {  // two warm-up replays
      check_cuda(cudaEventRecord(start, compute), "cudaEventRecord", device);
      if (graph_in_use) check_cuda(cudaGraphLaunch(graphs[0], compute), "cudaGraphLaunch", device);
      else launch_block_work(0);
      check_cuda(cudaEventRecord(stop, compute), "cudaEventRecord", device);
      check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize (benchmark)", device);
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", device);
      if (r >= 2) times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times.empty() ? 0.0 : times[times.size() / 2];
  }

  void cancel() noexcept {
    cudaSetDevice(device);
    for (cudaStream_t st : {h2d, compute, d2h})
      if (st != nullptr) cudaStreamSynchronize(st);
    in_flight = 0;
  }

  ProcessorCounters counters() const {
    ProcessorCounters c = spectrogram_counters(params, samples_in.load(std::memory_order_relaxed),
                                               frames_done.load(std::memory_order_relaxed));
    if (options.row_stage != nullptr) c.rows_out = stage_rows_out.load(std::memory_order_relaxed);
    return c;
  }

  std::string describe() const {
    int cufft_version = 0;
    cufftGetVersion(&cufft_version);
    std::string text;
    switch (path) {
      case TransformPath::fused:
        text = "cuda: one fused kernel per block (convert, frame, window, our Stockham FFT, detect)";
        break;
      case TransformPath::prism:
        text = "cuda: our FFT (" + fft::gpu::describe_cuda_plan(prism_plan->spec()) +
               ") between the framing and detector kernels";
        if (options.path == TransformPath::fused)
          text += " (" + (path_note.empty() ? "the fused kernel takes power-of-two nfft " + std::to_string(kFusedMinNfft) + ".." +
                  std::to_string(k.complex_input ? kFusedMaxComplexNfft : kFusedMaxRealNfft) : path_note) + ")";
        break;
      case TransformPath::cufft:
        text = "cufft: cuFFT " + std::to_string(cufft_version) + " between the framing and detector kernels";
        break;
    }
    return text + "; " + device_info.describe() + "; " + std::to_string(options.blocks_in_flight) +
           " blocks in flight, " + graph_note + "; device memory " + bytes_text(device_bytes) + ", pinned staging " +
           bytes_text(host_bytes);
  }
};

// ---- 4. the public class -------------------------------------------------------------------------

CudaSpectrogram::CudaSpectrogram(const StreamInfo& stream, const SpectrogramParams& params,
                                 std::size_t max_block_samples, const CudaEngineOptions& options)
    : impl_(std::make_unique<Impl>(stream, params, max_block_samples, options)) {}

CudaSpectrogram::~CudaSpectrogram() = default;

const SpectrumLayout& CudaSpectrogram::layout() const { return impl_->layout; }

std::size_t CudaSpectrogram::max_rows_per_block(std::size_t block_samples) const {
  return spectrogram_max_rows_per_block(impl_->params, block_samples);
}

std::size_t CudaSpectrogram::process(const Block& block, float* rows) {
  const float* where = nullptr;
  return impl_->submit_and_retire(block, nullptr, rows, where);
}
std::size_t CudaSpectrogram::process_borrowed(const Block& block, const float*& rows) {
  return impl_->submit_and_retire(block, impl_->rows_host[impl_->submitted % impl_->slots], nullptr, rows);
}
bool CudaSpectrogram::drain_borrowed(const float*& rows, std::size_t& rows_written) {
  return impl_->retire_any(nullptr, rows, rows_written);
}
double CudaSpectrogram::time_block_work_ms(const Block& block, int repetitions) {
  return impl_->time_block_work_ms(block, repetitions);
}
std::size_t CudaSpectrogram::finish(float* /*rows*/) { return 0; }
bool CudaSpectrogram::rows_named_at_submit() const { return true; }
std::size_t CudaSpectrogram::submit(const Block& block, float* rows) {
  const float* where = nullptr;
  return impl_->submit_and_retire(block, rows, nullptr, where);
}
bool CudaSpectrogram::retire(std::size_t& rows_written) {
  const float* where = nullptr;
  return impl_->retire_any(nullptr, where, rows_written);
}
std::size_t CudaSpectrogram::blocks_in_flight() const { return impl_->options.blocks_in_flight; }
bool CudaSpectrogram::drain(float* rows, std::size_t& rows_written) {
  const float* where = nullptr;
  return impl_->retire_any(rows, where, rows_written);
}
void CudaSpectrogram::cancel() noexcept { impl_->cancel(); }
ProcessorCounters CudaSpectrogram::counters() const { return impl_->counters(); }
std::string CudaSpectrogram::describe() const { return impl_->describe(); }
std::size_t CudaSpectrogram::device_bytes() const { return impl_->device_bytes; }
std::size_t CudaSpectrogram::host_bytes() const { return impl_->host_bytes; }
TransformPath CudaSpectrogram::path() const { return impl_->path; }
bool CudaSpectrogram::graph_in_use() const { return impl_->graph_in_use; }
const DeviceInfo& CudaSpectrogram::device() const { return impl_->device_info; }

}  // namespace prism::cuda
