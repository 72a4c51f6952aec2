// CudaSpectrogram (cuda_spectrogram.hpp): the host side of the spectrogram stage on a GPU —
// device set-up, buffers, FFT plans, graph capture, and the per-chunk descriptor and replay.
//
// Contents:
//   1. checked calls and device probing
//   2. Impl: set-up        tables and layout (as CpuSpectrogram), buffers, stream, graphs
//   3. Impl: one chunk     descriptor, graph replay
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
#include <type_traits>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft64_plan.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "pipeline/cuda/cuda_check.hpp"
#include "pipeline/cuda/cuda_spectrogram_kernels.cuh"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_mel_rows.hpp"
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
  std::string fault;
  if (status == CUFFT_SUCCESS) {
    fault = gpu::injected_fault(call);
    if (fault.empty()) return;
    status = CUFFT_EXEC_FAILED;
  }
  throw CudaError(std::string(call) + ": " + cufft_result_name(status) + " (code " +
                  std::to_string(static_cast<int>(status)) + ", device " + std::to_string(device) + ")" +
                  (fault.empty() ? "" : " (" + fault + ")"));
}

}  // namespace

bool fused_path_supports(const SpectrogramParams& p, bool complex_input) {
  if (p.double_precision) return false;  // the fused kernel computes in float
  // |X|^power for a power other than 1 and 2 (modes mel, mfcc) is the unfused detector's only.
  if (p.is_mel() && p.power != 1.0 && p.power != 2.0) return false;
  const std::size_t n = p.resolved().nfft;
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
                 const device::BlockDescriptor* d, const float* history, int history_values, const float* window,
                 const fft::gpu::Cf* stage_twiddles, const fft::gpu::Cf* real_twiddles, const float* column_scale,
                 float* carry) = nullptr;
};

template <int kN, bool kReal>
FusedKernel fused_kernel_of() {
  FusedKernel f;
  f.function = reinterpret_cast<const void*>(&device::fused_kernel<kN, kReal>);
  f.threads = device::fused_cta_threads<kN>();
  f.teams = device::fused_teams<kN>();
  f.shared_bytes = device::fused_shared_bytes<kN>();
  f.launch = [](dim3 grid, cudaStream_t stream, const device::EngineConstants& k, const device::BlockDescriptor* d,
                const float* history, int history_values, const float* window, const fft::gpu::Cf* stage_twiddles,
                const fft::gpu::Cf* real_twiddles, const float* column_scale, float* carry) {
    device::fused_kernel<kN, kReal><<<grid, device::fused_cta_threads<kN>(), device::fused_shared_bytes<kN>(), stream>>>(
        k, d, history, history_values, window, stage_twiddles, real_twiddles, column_scale, carry);
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
  if (status == cudaSuccess) status = cudaFuncGetAttributes(&attributes, device::history_kernel<float>);
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

// Descriptors in a ring: slot s is rewritten only once its previous copy to the device has run,
// which the ring's length makes all but certain by then.
constexpr std::size_t kDescriptorSlots = 8;

// Threads of the mel kernel's CTA: they share out the bands of its rows, then the coefficients.
constexpr int kMelThreads = 128;
constexpr std::size_t kMelMaxCtas = std::size_t{1} << 20;  // beyond, each CTA takes several groups

struct CudaSpectrogram::Impl {
  SpectrogramParams params;
  CudaEngineOptions options;
  KeyNamer name;
  DeviceInfo device_info;
  int device = 0;
  long long fault_block = -1;
  cudaStream_t compute = nullptr;

  // Set by configure().
  StreamInfo stream;
  SpectrumLayout layout;
  device::EngineConstants k{};
  TransformPath path = TransformPath::cufft;
  std::string path_note;  // why the fused path was not taken, when it was asked for
  // Double precision (unfused paths only): the history, carry, window, column scales, frames,
  // spectra and rows are doubles, and the FFT is our FP64 library's or cuFFT's Z2Z/D2Z.
  bool wide = false;
  std::size_t real_bytes = sizeof(float);
  bool configured = false;
  std::size_t max_block_samples = 0;
  std::size_t max_frames = 0;      // frames one chunk can complete
  std::size_t chunks = 1;          // FFT batches per chunk (unfused paths)
  std::size_t history_values = 0;  // one history buffer, in values (floats, or doubles in double)
  std::size_t hop = 0;
  std::size_t columns = 0;

  // Device memory; history, carry, window, column_scale, frames and spectrum hold float or
  // double values (real_bytes each).
  device::BlockDescriptor* descriptors_device = nullptr;  // per descriptor slot
  void* history = nullptr;          // two buffers of history_values
  void* carry = nullptr;            // two rows
  void* window = nullptr;
  void* column_scale = nullptr;
  fft::gpu::Cf* stage_twiddles = nullptr;  // fused path: the team FFT's tables
  fft::gpu::Cf* real_twiddles = nullptr;
  FusedKernel fused;
  void* frames = nullptr;           // unfused paths: one batch of frames
  void* detector_rows = nullptr;    // modes mel, mfcc: the detector's rows of one chunk
  int* mel_band_first = nullptr;    // modes mel, mfcc: the tables of gpu_mel_rows.hpp
  int* mel_band_start = nullptr;
  double* mel_weights = nullptr;
  double* mel_cepstrum = nullptr;
  GpuMelRowArgs mel_args;           // pointing at them
  int mel_rows_per_cta = 1;
  std::size_t mel_shared_bytes = 0;
  std::size_t max_rows = 0;         // rows one chunk can complete
  void* spectrum = nullptr;         // unfused paths: their transforms (complex)
  void* fft_work = nullptr;
  std::size_t device_bytes = 0;

  // Pinned host memory: the descriptors, and per slot the event after its copy.
  device::BlockDescriptor* descriptors_host = nullptr;
  std::vector<cudaEvent_t> descriptor_copied;
  std::vector<bool> descriptor_in_use;

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
  std::uint64_t submitted = 0;  // chunks given to process()

  Impl(const SpectrogramParams& p, const CudaEngineOptions& o, KeyNamer n)
      : params(p.resolved()), options(o), name(std::move(n)) {
    params.validate(name);
    wide = params.double_precision;
    real_bytes = wide ? sizeof(double) : sizeof(float);
    // What the kernels do not compute is refused here too, for programs that make this stage
    // themselves (the stage registry refuses it, or falls back to the CPU, before).
    if (const std::string setting = spectrogram_cpu_only_setting(params, name); !setting.empty())
      throw UsageError("the GPU spectrogram does not compute " + setting + "; use the CPU spectrogram");
    const auto lock = gpu::lock_device_wide_calls();
    device_info = probe_device(options.device);
    if (!device_info.usable) throw CudaError(device_info.reason);
    device = options.device;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    fault_block = gpu::injected_alloc_call();  // PRISM_CUDA_FAULT=alloc@N
    check_cuda(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "cudaStreamCreate (compute)", device);
  }

  ~Impl() {
    const auto lock = gpu::lock_device_wide_calls();
    release();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamDestroy(compute);
  }

  void configure(const StreamInfo& s, std::size_t max_block) {
    release();
    stream = s;
    max_block_samples = max_block;
    if (!(stream.sample_rate > 0)) throw std::invalid_argument("the sample rate must be positive");
    if (stream.channels < 1) throw std::invalid_argument("the stream has no channels");
    if (params.channel >= stream.channels)
      throw UsageError(name("channel") + " " + std::to_string(params.channel) + " is out of range: the input has " +
                       std::to_string(stream.channels) + " channel(s)");
    check_mel_stream(stream, params, name);
    if (max_block_samples == 0) throw std::invalid_argument("the chunk size must be at least 1 sample");
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);

    const bool complex_input = is_complex(stream.format);
    hop = params.hop();
    columns = complex_input ? params.nfft : params.nfft / 2 + 1;
    path = options.path;
    path_note.clear();
    if (path == TransformPath::fused && !fused_path_supports(params, complex_input)) {
      path = TransformPath::prism;
      if (wide) path_note = "the fused kernel computes in single precision";
    }
    make_constants();
    layout = spectrogram_layout(stream, params);

    max_frames = (max_block_samples - 1) / hop + 1;
    max_rows = spectrogram_max_rows_per_block(params, max_block_samples);
    // The fused kernel gives each averaging group to one team of threads, which runs the
    // group's frames one after another: with long averages a chunk holds too few groups to
    // fill the device, and the unfused path (every frame in parallel, then the averaging
    // across columns) is faster. Two groups per multiprocessor are enough.
    const std::size_t groups = max_frames / params.average;
    if (path == TransformPath::fused && params.average > 1 && !options.force_fused &&
        groups < std::min<std::size_t>(max_frames, 2 * static_cast<std::size_t>(device_info.multiprocessors))) {
      path = TransformPath::prism;
      path_note = "averages of " + std::to_string(params.average) + " frames leave " + std::to_string(groups) +
                  " rows per chunk, too few for the fused kernel";
    }
    const std::size_t components = complex_input ? 2 : 1;
    history_values = params.nperseg * components;
    // One FFT batch holds at most 64 MiB of frames, so memory is bounded for any hop; a chunk
    // with more frames runs several batches.
    const std::size_t frame_bytes = params.nfft * components * real_bytes;
    const std::size_t chunk_frames =
        std::max<std::size_t>(1, std::min(max_frames, (std::size_t{64} << 20) / frame_bytes));
    chunks = path == TransformPath::fused ? 1 : (max_frames + chunk_frames - 1) / chunk_frames;
    k.chunk_frames = static_cast<unsigned>(path == TransformPath::fused ? max_frames : chunk_frames);
    k.spectrum_stride = static_cast<int>(complex_input ? params.nfft : params.nfft / 2 + 1);

    const auto lock = gpu::lock_device_wide_calls();  // another run's capture would fail meanwhile
    try {
      allocate_and_upload(complex_input, chunk_frames);
      capture_graphs();
    } catch (...) {
      release();
      throw;
    }
    reset_state();
    configured = true;
  }

  void make_constants() {
    k = device::EngineConstants{};
    static_cast<device::NativeSamples&>(k) =
        device::native_samples_of(stream, params.channel, params.integer_scale == IntegerScale::unit);
    k.nperseg = static_cast<int>(params.nperseg);
    k.hop = static_cast<int>(params.hop());
    k.nfft = static_cast<int>(params.nfft);
    k.columns = static_cast<int>(columns);
    k.average = static_cast<int>(params.average);
    k.average_max = params.average_kind == AverageKind::max ? 1 : 0;
    k.detector = params.mode == SpectrumMode::magnitude ? 1 : 0;
    if (params.is_mel()) {  // CpuSpectrogram's detectors: power 2 and 1 exactly, others through pow
      k.detector = params.power == 2.0 ? 0 : params.power == 1.0 ? 1 : 2;
      k.half_power = static_cast<float>(params.power / 2.0);
      k.wide_half_power = params.power / 2.0;
    }
    k.decibels = params.decibels && !params.is_mel() ? 1 : 0;  // the mel bands take the dB
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

  // `count` values of the engine's precision.
  void* device_alloc_reals(std::size_t count, const char* what) {
    return wide ? static_cast<void*>(device_alloc<double>(count, what))
                : static_cast<void*>(device_alloc<float>(count, what));
  }

  template <typename T>
  T* upload(const std::vector<T>& host, const char* what) {
    T* device_pointer = device_alloc<T>(host.size(), what);
    check_cuda(cudaMemcpy(device_pointer, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
               std::string("cudaMemcpy (") + what + ")", device);
    return device_pointer;
  }

  // Values computed in double, uploaded in the engine's precision.
  void* upload_reals(const std::vector<double>& values, const char* what) {
    if (wide) return upload(values, what);
    return upload(std::vector<float>(values.begin(), values.end()), what);
  }

  void allocate_and_upload(bool complex_input, std::size_t chunk_frames) {
    descriptor_copied.assign(kDescriptorSlots, nullptr);
    descriptor_in_use.assign(kDescriptorSlots, false);
    for (cudaEvent_t& e : descriptor_copied)
      check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate", device);
    descriptors_device = device_alloc<device::BlockDescriptor>(kDescriptorSlots, "chunk descriptors");
    void* pinned = nullptr;
    check_cuda(cudaHostAlloc(&pinned, kDescriptorSlots * sizeof(device::BlockDescriptor), cudaHostAllocDefault),
               "cudaHostAlloc (pinned chunk descriptors)", device);
    descriptors_host = static_cast<device::BlockDescriptor*>(pinned);
    history = device_alloc_reals(2 * history_values, "history");
    carry = device_alloc_reals(2 * columns, "carry");

    const std::vector<double> w = make_window(params.window, params.nperseg);
    // Zero beyond nperseg up to nfft: the fused kernel windows whole pairs without a bound check.
    std::vector<double> window_host(std::max(params.nperseg, params.nfft) + 1, 0.0);
    std::copy(w.begin(), w.end(), window_host.begin());
    window = upload_reals(window_host, "window");
    // The CPU's factors: rounded to float once, or kept in double.
    if (wide) column_scale = upload(spectrogram_column_scales_double(stream, params, w), "column scales");
    else column_scale = upload(spectrogram_column_scales(stream, params, w), "column scales");

    if (params.is_mel()) upload_mel_tables();

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
      frames = device_alloc_reals(chunk_frames * params.nfft * components, "frames");
      check_cuda(cudaMemsetAsync(frames, 0, chunk_frames * params.nfft * components * real_bytes, compute),
                 "cudaMemsetAsync (frames)", device);
      spectrum = device_alloc_reals(2 * chunk_frames * static_cast<std::size_t>(k.spectrum_stride), "spectra");
      if (path == TransformPath::prism) {
        fft::PlanSpec spec;
        spec.n = params.nfft;
        spec.batch = chunk_frames;
        spec.transform = complex_input ? fft::Transform::c2c_forward : fft::Transform::r2c;
        try {
          prism_backend = fft::make_cuda_backend(wide ? fft::Precision::float64 : fft::Precision::float32);
          prism_plan = prism_backend->plan(spec);
        } catch (const std::exception& e) {
          throw CudaError(std::string("our FFT plan (nfft ") + std::to_string(params.nfft) + ", batch " +
                          std::to_string(chunk_frames) + "): " + e.what() + " (device " + std::to_string(device) + ")");
        }
        device_bytes += prism_plan->device_bytes();
      } else {
        int n = static_cast<int>(params.nfft);
        int out_n = k.spectrum_stride;
        const cufftType type = wide ? (complex_input ? CUFFT_Z2Z : CUFFT_D2Z) : (complex_input ? CUFFT_C2C : CUFFT_R2C);
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
    // The uploads above went through the legacy stream (a copy from pageable memory may return
    // before its DMA lands), which the compute stream does not wait for; waiting for those two
    // streams, not the whole device, leaves other runs' work alone.
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (set-up uploads)", device);
    check_cuda(cudaStreamSynchronize(compute), "cudaStreamSynchronize (set-up)", device);
  }

  // Modes mel and mfcc: the filterbank and the cepstrum's matrix, and the detector's rows.
  void upload_mel_tables() {
    const GpuMelTables tables = make_gpu_mel_tables(stream, params);
    mel_band_first = upload(tables.band_first, "mel bands' first bins");
    mel_band_start = upload(tables.band_start, "mel bands' weight offsets");
    mel_weights = upload(tables.weights, "mel filterbank");
    if (!tables.cepstrum.empty()) mel_cepstrum = upload(tables.cepstrum, "cepstrum matrix");
    mel_args = tables.args;
    mel_args.band_first = mel_band_first;
    mel_args.band_start = mel_band_start;
    mel_args.weights = mel_weights;
    mel_args.cepstrum = mel_cepstrum;
    detector_rows = device_alloc_reals(std::max<std::size_t>(max_rows, 1) * columns, "detector rows (mel)");
    // kGpuMelRowsPerCta rows per CTA where their bands' logarithms take at most 48 KiB of shared
    // memory, one beyond (kGpuMfccMaxBands bands take 64 KiB).
    const std::size_t row_bytes = mel_args.bands * sizeof(double);
    mel_rows_per_cta = kGpuMelRowsPerCta * row_bytes <= (std::size_t{48} << 10) ? kGpuMelRowsPerCta : 1;
    mel_shared_bytes = mel_args.coefficients > 0 ? mel_rows_per_cta * row_bytes : 0;
    // The limit belongs to the function, for every stage of the process: only ever raised (under
    // the device-wide lock that configure() holds), so that a stage never lowers another's.
    const void* mel_function = wide ? reinterpret_cast<const void*>(&device::mel_kernel<double>)
                                    : reinterpret_cast<const void*>(&device::mel_kernel<float>);
    cudaFuncAttributes attributes{};
    check_cuda(cudaFuncGetAttributes(&attributes, mel_function), "cudaFuncGetAttributes (mel kernel)", device);
    if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < mel_shared_bytes)
      check_cuda(cudaFuncSetAttribute(mel_function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(mel_shared_bytes)),
                 "cudaFuncSetAttribute (mel kernel shared memory)", device);
  }

  // The per-chunk work for descriptor slot s, launched on the compute stream.
  void launch_block_work(std::size_t s) {
    const device::BlockDescriptor* d = descriptors_device + s;
    if (path == TransformPath::fused) {
      const unsigned groups = static_cast<unsigned>(max_frames / params.average + 2);
      fused.launch(dim3((groups + fused.teams - 1) / fused.teams), compute, k, d, static_cast<const float*>(history),
                   static_cast<int>(history_values), static_cast<const float*>(window), stage_twiddles, real_twiddles,
                   static_cast<const float*>(column_scale), static_cast<float*>(carry));
      check_cuda(cudaGetLastError(), "fused_kernel launch", device);
    } else if (wide) {
      launch_unfused_work<double>(d);
    } else {
      launch_unfused_work<float>(d);
    }
    if (params.is_mel() && max_rows > 0) {
      const std::size_t groups = (max_rows + mel_rows_per_cta - 1) / mel_rows_per_cta;
      const auto grid = static_cast<unsigned>(std::min<std::size_t>(groups, kMelMaxCtas));
      if (wide)
        device::mel_kernel<double><<<grid, kMelThreads, mel_shared_bytes, compute>>>(mel_args, d, params.average,
                                                                                     mel_rows_per_cta);
      else
        device::mel_kernel<float><<<grid, kMelThreads, mel_shared_bytes, compute>>>(mel_args, d, params.average,
                                                                                    mel_rows_per_cta);
      check_cuda(cudaGetLastError(), "mel_kernel launch", device);
    }
    const unsigned history_tiles = static_cast<unsigned>((params.nperseg + 255) / 256);
    if (wide)
      device::history_kernel<double><<<history_tiles, 256, 0, compute>>>(k, d, static_cast<double*>(history),
                                                                          static_cast<int>(history_values));
    else
      device::history_kernel<float><<<history_tiles, 256, 0, compute>>>(k, d, static_cast<float*>(history),
                                                                        static_cast<int>(history_values));
    check_cuda(cudaGetLastError(), "history_kernel launch", device);
  }

  // Unfused paths, in the precision of Real: per FFT batch, the framing kernel, the FFT (ours or
  // cuFFT) and the detector kernel.
  template <typename Real>
  void launch_unfused_work(const device::BlockDescriptor* d) {
    using Complex = device::ComplexValue<Real>;
    const bool complex_input = k.complex_input != 0;
    const unsigned column_tiles = static_cast<unsigned>((columns + 255) / 256);
    const unsigned groups = static_cast<unsigned>(k.chunk_frames / params.average + 2);
    for (std::size_t c = 0; c < chunks; ++c) {
      device::frame_kernel<Real><<<k.chunk_frames, 256, 0, compute>>>(
          k, d, static_cast<const Real*>(history), static_cast<int>(history_values), static_cast<const Real*>(window),
          static_cast<Real*>(frames), static_cast<unsigned>(c));
      check_cuda(cudaGetLastError(), "frame_kernel launch", device);
      if (prism_plan) {
        try {
          prism_plan->execute(frames, spectrum, k.chunk_frames, compute);
        } catch (const std::exception& e) {
          throw CudaError(std::string("our FFT: ") + e.what() + " (device " + std::to_string(device) + ")");
        }
      } else if constexpr (std::is_same_v<Real, double>) {
        if (complex_input)
          check_cufft(cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(frames),
                                   static_cast<cufftDoubleComplex*>(spectrum), CUFFT_FORWARD),
                      "cufftExecZ2Z", device);
        else
          check_cufft(cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(frames),
                                   static_cast<cufftDoubleComplex*>(spectrum)),
                      "cufftExecD2Z", device);
      } else {
        if (complex_input)
          check_cufft(cufftExecC2C(plan, static_cast<cufftComplex*>(frames), static_cast<cufftComplex*>(spectrum),
                                   CUFFT_FORWARD),
                      "cufftExecC2C", device);
        else
          check_cufft(cufftExecR2C(plan, static_cast<cufftReal*>(frames), static_cast<cufftComplex*>(spectrum)),
                      "cufftExecR2C", device);
      }
      device::detect_kernel<Real><<<dim3(groups, column_tiles), 256, 0, compute>>>(
          k, d, static_cast<const Complex*>(spectrum), static_cast<const Real*>(column_scale),
          static_cast<Real*>(carry), static_cast<unsigned>(c));
      check_cuda(cudaGetLastError(), "detect_kernel launch", device);
    }
  }

  // One graph per descriptor slot; if capture is refused, the kernels are launched directly and
  // describe() says so.
  void capture_graphs() {
    if (!options.use_graph) {
      graph_note = "direct launches";
      return;
    }
    graphs.assign(kDescriptorSlots, nullptr);
    for (std::size_t s = 0; s < kDescriptorSlots; ++s) {
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
    graph_note = "one CUDA graph per chunk";
  }

  void destroy_graphs() {
    for (cudaGraphExec_t& g : graphs)
      if (g != nullptr) cudaGraphExecDestroy(g);
    graphs.clear();
    graph_in_use = false;
  }

  void release() noexcept {
    const auto lock = gpu::lock_device_wide_calls();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamSynchronize(compute);
    destroy_graphs();
    if (plan_made) cufftDestroy(plan);
    plan_made = false;
    prism_plan.reset();
    prism_backend.reset();
    for (cudaEvent_t e : descriptor_copied)
      if (e != nullptr) cudaEventDestroy(e);
    descriptor_copied.clear();
    for (void* p : {static_cast<void*>(descriptors_device), history, carry, window, column_scale,
                    static_cast<void*>(stage_twiddles), static_cast<void*>(real_twiddles), frames, spectrum,
                    fft_work, detector_rows, static_cast<void*>(mel_band_first),
                    static_cast<void*>(mel_band_start), static_cast<void*>(mel_weights),
                    static_cast<void*>(mel_cepstrum)})
      if (p != nullptr) cudaFree(p);
    descriptors_device = nullptr;
    history = carry = window = column_scale = frames = spectrum = nullptr;
    detector_rows = nullptr;
    mel_band_first = mel_band_start = nullptr;
    mel_weights = mel_cepstrum = nullptr;
    stage_twiddles = real_twiddles = nullptr;
    fft_work = nullptr;
    if (descriptors_host != nullptr) cudaFreeHost(descriptors_host);
    descriptors_host = nullptr;
    device_bytes = 0;
    configured = false;
  }

  // ---- 3. Impl: one chunk --------------------------------------------------------------------

  // Back to the first chunk's state: zero history and carry (in stream order), counters at 0.
  void reset_state() {
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    check_cuda(cudaMemsetAsync(history, 0, 2 * history_values * real_bytes, compute), "cudaMemsetAsync (history)",
               device);
    check_cuda(cudaMemsetAsync(carry, 0, 2 * columns * real_bytes, compute), "cudaMemsetAsync (carry)", device);
    samples_in = 0;
    frames_done = 0;
    history_first = 0;
    history_parity = 0;
    carry_parity = 0;
  }

  std::size_t process(const Chunk& input, Chunk& output) {
    if (!configured) throw std::logic_error("CudaSpectrogram::process before configure");
    if (input.items > max_block_samples)
      throw std::invalid_argument("a chunk of " + std::to_string(input.items) +
                                  " samples exceeds the configured maximum of " + std::to_string(max_block_samples));
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);  // the calling thread may be new
    if (fault_block >= 0 && submitted == static_cast<std::uint64_t>(fault_block))
      device_alloc<unsigned char>(std::size_t{1} << 50, "fault injected by PRISM_CUDA_FAULT");

    const std::size_t s = submitted % kDescriptorSlots;
    if (descriptor_in_use[s])
      check_cuda(cudaEventSynchronize(descriptor_copied[s]), "cudaEventSynchronize (descriptor slot)", device);
    const std::uint64_t block_first = samples_in.load(std::memory_order_relaxed);
    const std::uint64_t block_end = block_first + input.items;
    const std::uint64_t nperseg = params.nperseg;
    const std::uint64_t K = params.average;
    const std::uint64_t f0 = frames_done.load(std::memory_order_relaxed);
    const std::uint64_t f1 = block_end >= nperseg ? std::max(f0, (block_end - nperseg) / hop + 1) : f0;

    device::BlockDescriptor& d = descriptors_host[s];
    d.raw = reinterpret_cast<const unsigned char*>(input.data);
    d.rows = params.is_mel() ? detector_rows : static_cast<void*>(output.data);
    d.band_rows = params.is_mel() ? static_cast<void*>(output.data) : nullptr;
    d.block_first = block_first;
    d.block_samples = input.items;
    d.first_frame = f0;
    d.end_frame = f1;
    d.history_first = history_first;
    d.next_history_first = f1 * hop;
    d.history_parity = history_parity;
    d.carry_parity = carry_parity;
    check_cuda(cudaMemcpyAsync(descriptors_device + s, &d, sizeof d, cudaMemcpyHostToDevice, compute),
               "cudaMemcpyAsync (descriptor to device)", device);
    check_cuda(cudaEventRecord(descriptor_copied[s], compute), "cudaEventRecord (descriptor)", device);
    descriptor_in_use[s] = true;
    if (graph_in_use)
      check_cuda(cudaGraphLaunch(graphs[s], compute), "cudaGraphLaunch", device);
    else
      launch_block_work(s);

    // The host's copy of the stream state, as the kernels will leave it.
    const std::size_t chunks_run =
        f1 > f0 ? static_cast<std::size_t>((f1 - f0 + k.chunk_frames - 1) / k.chunk_frames) : 0;
    carry_parity ^= static_cast<int>(chunks_run & 1u);
    history_parity ^= 1;
    history_first = f1 * hop;
    frames_done.store(f1, std::memory_order_relaxed);
    samples_in.store(block_end, std::memory_order_relaxed);
    ++submitted;
    return static_cast<std::size_t>(f1 / K - f0 / K);
  }

  std::string prism_plan_description() const {
    if (!prism_plan) return "not planned";
    if (!wide) return fft::gpu::describe_cuda_plan(prism_plan->spec());
    // The double-precision backend runs cuFFT's double plans where our kernels do not reach.
    const std::string problem = fft::gpu::fp64_plan_problem(prism_plan->spec(), fft::gpu::device_shared_bytes_limit());
    return problem.empty() ? "our double-precision kernels" : "cuFFT's double plan: " + problem;
  }

  std::string describe() const {
    int cufft_version = 0;
    cufftGetVersion(&cufft_version);
    std::string text;
    switch (path) {
      case TransformPath::fused:
        text = "cuda: one fused kernel per chunk (convert, frame, window, our Stockham FFT, detect)";
        break;
      case TransformPath::prism:
        text = "cuda: our FFT (" + prism_plan_description() + ") between the framing and detector kernels";
        if (options.path == TransformPath::fused)
          text += " (" + (path_note.empty() ? "the fused kernel takes power-of-two nfft " + std::to_string(kFusedMinNfft) + ".." +
                  std::to_string(k.complex_input ? kFusedMaxComplexNfft : kFusedMaxRealNfft) : path_note) + ")";
        break;
      case TransformPath::cufft:
        text = "cufft: cuFFT " + std::to_string(cufft_version) + " between the framing and detector kernels";
        break;
    }
    if (wide) text += ", in double precision";
    return text + "; " + device_info.describe() + "; " + graph_note + "; device memory " + bytes_text(device_bytes);
  }
};

// ---- 4. the public class -------------------------------------------------------------------------

CudaSpectrogram::CudaSpectrogram(const SpectrogramParams& params, const CudaEngineOptions& options, KeyNamer name)
    : impl_(std::make_unique<Impl>(params, options, std::move(name))) {}

CudaSpectrogram::~CudaSpectrogram() = default;

MemoryDomain CudaSpectrogram::input_domain() const { return MemoryDomain::cuda(impl_->device); }

PortDescription CudaSpectrogram::configure(const PortDescription& input, std::size_t max_input_items) {
  impl_->configure(input.samples, max_input_items);
  return PortDescription::of_rows(impl_->layout);
}

std::size_t CudaSpectrogram::max_output(std::size_t input_items) const {
  return spectrogram_max_rows_per_block(impl_->params, input_items);
}

std::size_t CudaSpectrogram::process(const Chunk& input, Chunk& output) { return impl_->process(input, output); }

void CudaSpectrogram::reset() {
  if (impl_->configured) impl_->reset_state();
}

StageCounters CudaSpectrogram::counters() const {
  return spectrogram_counters(impl_->params, impl_->samples_in.load(std::memory_order_relaxed),
                              impl_->frames_done.load(std::memory_order_relaxed));
}

gpu::Stream CudaSpectrogram::stream() const { return impl_->compute; }
std::string CudaSpectrogram::describe() const { return impl_->describe(); }
const SpectrumLayout& CudaSpectrogram::layout() const { return impl_->layout; }
std::size_t CudaSpectrogram::device_bytes() const { return impl_->device_bytes; }
TransformPath CudaSpectrogram::path() const { return impl_->path; }
bool CudaSpectrogram::graph_in_use() const { return impl_->graph_in_use; }
const DeviceInfo& CudaSpectrogram::device() const { return impl_->device_info; }

}  // namespace prism::cuda
