// CudaFir (cuda_fir.hpp): the host side of the fir stage on a GPU — the plan's tables on the
// device, the history buffers (and for a partitioned filter the ring of spectra and the sums),
// and per call the schedule's segments launched on the stage's stream. In double precision the
// same schedule runs the five steps of cuda_fir64_kernels.cuh around two FP64 FFT plans.
#include "pipeline/cuda/cuda_fir.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft64_plan.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_team.cuh"
#include "pipeline/cuda/cuda_check.hpp"
#include "pipeline/cuda/cuda_fir64_kernels.cuh"
#include "pipeline/cuda/cuda_fir_kernels.cuh"
#include "pipeline/cuda/cuda_spectrogram.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_fir_plan.hpp"

namespace prism::cuda {
namespace {

// The most bytes of windows (and as many of spectra) the double path transforms at once: a call
// of more segments runs in slices, so that a long transform with a short hop does not ask the
// device for a chunk's worth of windows.
constexpr std::size_t kFir64SliceBytes = std::size_t{256} << 20;

// A call's segments, outputs and input range into a kernel's launch arguments (FirLaunch and
// Fir64Launch name them alike).
template <class Launch>
void set_call_fields(Launch& c, const FirCall& call) {
  c.first_segment = call.first_segment;
  c.end_segment = call.end_segment;
  c.out_first = call.out_first;
  c.out_end = call.out_end;
  c.block_first = call.block_first;
  c.block_end = call.block_first + call.block_items;
  c.valid_end = call.valid_end;
  c.history_first = call.history_first;
  c.keep_first = call.keep_first;
}

// The kernel of one team length (and fold): its function, segments per CTA, shared memory and
// launcher.
using FirLauncher = void (*)(unsigned grid, cudaStream_t stream, const device::FirConstants& k,
                             const device::FirLaunch& c, const float* history, const fft::gpu::Cf* spectrum,
                             const fft::gpu::Cf* twiddles, const fft::gpu::Cf* inverse_twiddles,
                             const float2* phasors);
struct FirKernel {
  const void* function = nullptr;
  int segments_per_cta = 0;
  int shared_bytes = 0;
  FirLauncher launch = nullptr;
};

template <int kN, bool kPacked>
FirKernel fir_kernel_of() {
  FirKernel f;
  f.function = reinterpret_cast<const void*>(&device::fir_kernel<kN, kPacked>);
  f.segments_per_cta = device::fir_teams<kN>() * (kPacked ? 2 : 1);
  f.shared_bytes = device::fir_shared_bytes<kN>();
  f.launch = [](unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                const float* history, const fft::gpu::Cf* spectrum, const fft::gpu::Cf* twiddles,
                const fft::gpu::Cf* inverse_twiddles, const float2* phasors) {
    device::fir_kernel<kN, kPacked>
        <<<grid, device::fir_cta_threads<kN>(), device::fir_shared_bytes<kN>(), stream>>>(
            k, c, history, spectrum, twiddles, inverse_twiddles, phasors);
  };
  return f;
}

template <bool kPacked>
FirKernel fir_unfolded_kernel_for(std::size_t n) {
  switch (n) {
    case 256: return fir_kernel_of<256, kPacked>();
    case 512: return fir_kernel_of<512, kPacked>();
    case 1024: return fir_kernel_of<1024, kPacked>();
    case 2048: return fir_kernel_of<2048, kPacked>();
    case 4096: return fir_kernel_of<4096, kPacked>();
    case 8192: return fir_kernel_of<8192, kPacked>();
    case 16384: return fir_kernel_of<16384, kPacked>();
    default: return FirKernel{};
  }
}

template <int kN, int kD, bool kPacked>
FirKernel fir_fold_kernel_of() {
  FirKernel f;
  f.function = reinterpret_cast<const void*>(&device::fir_fold_kernel<kN, kD, kPacked>);
  f.segments_per_cta = device::fir_teams<kN>() * kD * (kPacked ? 2 : 1);
  f.shared_bytes = device::fir_fold_shared_bytes<kN, kD>();
  f.launch = [](unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                const float* history, const fft::gpu::Cf* spectrum, const fft::gpu::Cf* twiddles,
                const fft::gpu::Cf* inverse_twiddles, const float2* phasors) {
    device::fir_fold_kernel<kN, kD, kPacked>
        <<<grid, device::fir_cta_threads<kN>(), device::fir_fold_shared_bytes<kN, kD>(), stream>>>(
            k, c, history, spectrum, twiddles, inverse_twiddles, phasors);
  };
  return f;
}

template <int kN, bool kPacked>
FirKernel fir_fold_kernel_for(std::size_t fold) {
  switch (fold) {
    case 2: return fir_fold_kernel_of<kN, 2, kPacked>();
    case 4: return fir_fold_kernel_of<kN, 4, kPacked>();
    case 8: return fir_fold_kernel_of<kN, 8, kPacked>();
    default: return FirKernel{};
  }
}
static_assert(prism::kGpuFirFoldDecimationMax == 8 && prism::kGpuFirFoldLengthMin == 1024 &&
                  prism::kGpuFirFoldLengthMax == 4096,
              "fir_kernel_for compiles the fold kernels plan_gpu_fir may choose");
static_assert(prism::kGpuFirMinFftLength >= 256 && prism::kGpuFirMaxFftLength / 2 <= 8192,
              "set_inverse_kernel_for compiles the folded inverse lengths plan_gpu_fir may choose");

template <bool kPacked>
FirKernel fir_folded_kernel_for(std::size_t n, std::size_t fold) {
  switch (n) {
    case 1024: return fir_fold_kernel_for<1024, kPacked>(fold);
    case 2048: return fir_fold_kernel_for<2048, kPacked>(fold);
    case 4096: return fir_fold_kernel_for<4096, kPacked>(fold);
    default: return FirKernel{};
  }
}

FirKernel fir_kernel_for(std::size_t n, std::size_t fold, bool packed) {
  if (fold > 1) return packed ? fir_folded_kernel_for<true>(n, fold) : fir_folded_kernel_for<false>(n, fold);
  return packed ? fir_unfolded_kernel_for<true>(n) : fir_unfolded_kernel_for<false>(n);
}

// A partitioned filter's forward kernel at its length N and inverse kernel at N or, folded, N/D
// (fir_sum_kernel is one for all).
struct FirPartitionedKernels {
  const void* forward = nullptr;
  const void* inverse = nullptr;
  int segments_per_cta = 0;  // the forward kernel's
  int shared_bytes = 0;
  int inverse_segments_per_cta = 0;
  int inverse_shared_bytes = 0;
  void (*launch_forward)(unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                         const float* history, const fft::gpu::Cf* twiddles, const device::FirSpectra& spectra,
                         unsigned long long forward_first, unsigned long long forward_end) = nullptr;
  void (*launch_inverse)(unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                         const device::FirSpectra& spectra, const fft::gpu::Cf* twiddles,
                         const float2* phasors) = nullptr;
};

template <int kN>
void set_forward_kernel(FirPartitionedKernels& f) {
  f.forward = reinterpret_cast<const void*>(&device::fir_forward_kernel<kN>);
  f.segments_per_cta = device::fir_teams<kN>();
  f.shared_bytes = device::fir_shared_bytes<kN>();
  f.launch_forward = [](unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                        const float* history, const fft::gpu::Cf* twiddles, const device::FirSpectra& spectra,
                        unsigned long long forward_first, unsigned long long forward_end) {
    device::fir_forward_kernel<kN><<<grid, device::fir_cta_threads<kN>(), device::fir_shared_bytes<kN>(), stream>>>(
        k, c, history, twiddles, spectra, forward_first, forward_end);
  };
}

template <int kN, bool kFolded>
void set_inverse_kernel(FirPartitionedKernels& f) {
  f.inverse = reinterpret_cast<const void*>(&device::fir_inverse_kernel<kN, kFolded>);
  f.inverse_segments_per_cta = device::fir_teams<kN>();
  f.inverse_shared_bytes = device::fir_shared_bytes<kN>();
  f.launch_inverse = [](unsigned grid, cudaStream_t stream, const device::FirConstants& k, const device::FirLaunch& c,
                        const device::FirSpectra& spectra, const fft::gpu::Cf* twiddles, const float2* phasors) {
    device::fir_inverse_kernel<kN, kFolded>
        <<<grid, device::fir_cta_threads<kN>(), device::fir_shared_bytes<kN>(), stream>>>(k, c, spectra, twiddles,
                                                                                          phasors);
  };
}

template <bool kFolded>
bool set_inverse_kernel_for(FirPartitionedKernels& f, std::size_t length) {
  switch (length) {
    case 256: set_inverse_kernel<256, kFolded>(f); return true;
    case 512: set_inverse_kernel<512, kFolded>(f); return true;
    case 1024: set_inverse_kernel<1024, kFolded>(f); return true;
    case 2048: set_inverse_kernel<2048, kFolded>(f); return true;
    case 4096: set_inverse_kernel<4096, kFolded>(f); return true;
    case 8192: set_inverse_kernel<8192, kFolded>(f); return true;
    case 16384:
      if constexpr (!kFolded) {
        set_inverse_kernel<16384, false>(f);
        return true;
      }
      return false;
    default: return false;
  }
}

// The kernels of a partitioned plan of length n, folded by `fold` (1: not), or none (both
// segments_per_cta 0) where n or n/fold is not compiled.
FirPartitionedKernels fir_partitioned_kernels_for(std::size_t n, std::size_t fold) {
  FirPartitionedKernels f;
  switch (n) {
    case 256: set_forward_kernel<256>(f); break;
    case 512: set_forward_kernel<512>(f); break;
    case 1024: set_forward_kernel<1024>(f); break;
    case 2048: set_forward_kernel<2048>(f); break;
    case 4096: set_forward_kernel<4096>(f); break;
    case 8192: set_forward_kernel<8192>(f); break;
    case 16384: set_forward_kernel<16384>(f); break;
    default: return FirPartitionedKernels{};
  }
  const bool found = fold > 1 ? set_inverse_kernel_for<true>(f, n / fold) : set_inverse_kernel_for<false>(f, n);
  return found ? f : FirPartitionedKernels{};
}

// Where the fold kernels run: as pick_gpu_fir_plan chooses, or pinned by
// PRISM_GPU_FIR_FOLD=always|never (the tests, to run both kernels at any chunk size).
GpuFirFold fold_choice_from_environment() {
  const char* text = std::getenv("PRISM_GPU_FIR_FOLD");
  if (text == nullptr || *text == '\0' || std::strcmp(text, "auto") == 0) return GpuFirFold::automatic;
  if (std::strcmp(text, "always") == 0) return GpuFirFold::always;
  if (std::strcmp(text, "never") == 0) return GpuFirFold::never;
  throw UsageError("PRISM_GPU_FIR_FOLD='" + std::string(text) + "': auto, always or never");
}

}  // namespace

struct CudaFir::Impl {
  unsigned channel;
  Planner planner;
  KeyNamer name;
  DeviceInfo device_info;
  int device = 0;
  long long fault_call = -1;
  GpuFirFold fold_choice = GpuFirFold::automatic;
  cudaStream_t compute = nullptr;

  // Set by configure().
  bool configured = false;
  GpuFirPlan plan;
  std::optional<GpuFirSchedule> schedule;
  device::FirConstants k{};
  FirKernel kernel;                   // unpartitioned
  FirPartitionedKernels partitioned;  // partitioned
  std::size_t max_items = 0;
  unsigned grid = 0;
  float* history = nullptr;  // two buffers of plan.history_items() complex items
  fft::gpu::Cf* spectrum = nullptr;
  fft::gpu::Cf* twiddles = nullptr;
  fft::gpu::Cf* inverse_twiddles = nullptr;  // the fold's inverse transform of N/D
  float2* phasors = nullptr;
  // Double precision: the FP64 plans (forward, and inverse as c2c_inverse), the spectrum, the
  // history pair and a slice's windows (the inverse transforms land there too) and spectra.
  struct Double {
    std::unique_ptr<fft::Backend> backend;
    std::unique_ptr<fft::Plan> forward, inverse;
    std::string transforms;  // which FFT runs them, for describe()
    device::Fir64Constants k{};
    double2* spectrum = nullptr;
    double2* history = nullptr;  // two buffers of plan.history_items() items
    double2* windows = nullptr;
    double2* spectra = nullptr;
    std::size_t rows = 0;  // segments of a slice: the windows and spectra hold this many
  } wide;
  // set_taps: the new spectrum, pinned (from the first switch on), read by its copy on the stage's
  // stream until `staged`.
  void* staging = nullptr;
  cudaEvent_t staged = nullptr;
  bool staging_pending = false;
  fft::gpu::Cf* ring = nullptr;  // partitioned: the segments' spectra
  fft::gpu::Cf* sums = nullptr;  // partitioned: a call's Y_s (folded onto N/D bins)
  std::size_t ring_segments = 0;
  std::size_t sums_segments = 0;       // partitioned: the segments `sums` holds
  unsigned long long spectra_end = 0;  // partitioned: segments [0, spectra_end) are in the ring
  std::size_t device_bytes = 0;
  int history_parity = 0;
  std::uint64_t calls = 0;
  std::atomic<std::uint64_t> items_in{0}, items_out{0}, segments{0};

  Impl(unsigned c, Planner p, int d, KeyNamer n) : channel(c), planner(std::move(p)), name(std::move(n)) {
    const auto lock = gpu::lock_device_wide_calls();
    device_info = probe_device(d);
    if (!device_info.usable) throw CudaError(device_info.reason);
    device = d;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    fault_call = gpu::injected_alloc_call();  // PRISM_CUDA_FAULT=alloc@N
    fold_choice = fold_choice_from_environment();
    check_cuda(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "cudaStreamCreate (fir)", device);
  }

  ~Impl() {
    const auto lock = gpu::lock_device_wide_calls();
    release();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamDestroy(compute);
  }

  // Device memory for `count` items, holding `data`'s when given.
  template <typename T>
  T* upload(const T* data, std::size_t count, const char* what) {
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
    check_cuda(cudaMalloc(&p, bytes), std::string("cudaMalloc (") + what + ")", device);
    device_bytes += bytes;
    if (data != nullptr && count > 0)
      check_cuda(cudaMemcpy(p, data, count * sizeof(T), cudaMemcpyHostToDevice), std::string("cudaMemcpy (") + what + ")",
                 device);
    return static_cast<T*>(p);
  }

  PortDescription configure(const PortDescription& input, std::size_t max_input_items) {
    release();
    const StreamInfo& stream = input.samples;
    if (channel >= stream.channels)
      throw UsageError(name("channel") + " " + std::to_string(channel) + " is out of range: the input has " +
                       std::to_string(stream.channels) + " channel(s)");
    if (max_input_items == 0) throw std::invalid_argument("the chunk size must be at least 1 item");
    StreamInfo floats = stream;
    floats.format = float_format(is_complex(stream.format));
    floats.channels = 1;
    floats.float_full_scale = stream.floats_have_full_scale();  // dBFS downstream, as on the CPU
    const Design design = planner(floats);
    try {
      std::vector<GpuFirPlan> options = gpu_fir_plan_options(design.spec, fold_choice);
      std::vector<int> segments_per_cta;
      for (const GpuFirPlan& option : options)
        segments_per_cta.push_back(option.double_precision ? 1
                                   : option.partitions > 1
                                       ? fir_partitioned_kernels_for(option.map.n, option.fold).segments_per_cta
                                       : fir_kernel_for(option.map.n, option.fold, option.packed).segments_per_cta);
      plan = std::move(options[pick_gpu_fir_plan(options, segments_per_cta, max_input_items, device_info.multiprocessors)]);
    } catch (const UsageError& e) {
      const std::string what = e.what();
      for (const char* field : {"taps", "fft_length", "max_taps"}) {
        const std::string f = field;
        if (what.rfind(f + ": ", 0) == 0 || what.rfind(f + "=", 0) == 0) throw UsageError(name(f) + what.substr(f.size()));
      }
      throw;
    }
    schedule.emplace(plan.map, plan.packed);
    max_items = max_input_items;
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    if (design.output.format != float_format(plan.complex_output && !design.real_part, plan.double_precision))
      throw std::logic_error("fir: the design's output format is not the filter's");
    // The segments of one call: a process() of up to max_items, or a flush() of up to
    // max_output(max_items) outputs, which may start inside a segment and end inside another.
    // Packed, the pairs around them: up to two segments more.
    const std::size_t segments = plan.max_segments(max_input_items) + 2 + (plan.packed ? 2 : 0);
    if (plan.double_precision) {
      configure_double(stream, design, segments);
      configured = true;
      reset_state();
      return PortDescription::of_samples(design.output);
    }

    k = device::FirConstants{};
    static_cast<device::NativeSamples&>(k) = device::native_samples_of(stream, channel, true);
    k.map = plan.map;
    k.complex_output = plan.complex_output ? 1 : 0;
    k.real_part = design.real_part && plan.complex_output ? 1 : 0;
    k.shifted = plan.shifted ? 1 : 0;
    k.step_cycles = plan.step_cycles;
    k.history_items = plan.history_items();
    int segments_per_cta = 0;
    if (plan.partitions > 1) {
      kernel = FirKernel{};
      partitioned = fir_partitioned_kernels_for(plan.map.n, plan.fold);
      segments_per_cta = partitioned.segments_per_cta;
      ring_segments = plan.spectra_ring_segments(max_input_items);
    } else {
      partitioned = FirPartitionedKernels{};
      kernel = fir_kernel_for(plan.map.n, plan.fold, plan.packed);
      segments_per_cta = kernel.segments_per_cta;
      ring_segments = 0;
    }
    if (segments_per_cta == 0)
      throw std::logic_error("no GPU fir kernel for FFT " + std::to_string(plan.map.n) + ", fold " +
                             std::to_string(plan.fold) + ", " + std::to_string(plan.partitions) + " partition(s)");
    grid = static_cast<unsigned>((segments + segments_per_cta - 1) / segments_per_cta);
    const auto lock = gpu::lock_device_wide_calls();  // another run's graph capture would fail meanwhile
    try {
      history = upload<float>(nullptr, 4 * plan.history_items(), "fir history");
      const std::vector<fft::gpu::Cf> table = fft::gpu::stage_twiddle_table(static_cast<int>(plan.map.n));
      twiddles = upload(table.data(), table.size(), "FFT stage twiddles");
      if (plan.fold > 1) {
        const std::vector<fft::gpu::Cf> inverse_table =
            fft::gpu::stage_twiddle_table(static_cast<int>(plan.map.n / plan.fold));
        inverse_twiddles = upload(inverse_table.data(), inverse_table.size(), "FFT stage twiddles (folded inverse)");
      }
      spectrum = upload(reinterpret_cast<const fft::gpu::Cf*>(plan.filter_spectrum.data()), plan.filter_spectrum.size(),
                        "filter spectrum");
      phasors = upload(reinterpret_cast<const float2*>(plan.output_phasors.data()), plan.output_phasors.size(),
                       "shift phasors");
      if (plan.partitions > 1) {
        ring = upload<fft::gpu::Cf>(nullptr, ring_segments * plan.map.n, "fir spectra ring");
        sums = upload<fft::gpu::Cf>(nullptr, segments * (plan.map.n / plan.fold), "fir sums of products");
        sums_segments = segments;
        check_cuda(cudaFuncSetAttribute(partitioned.forward, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        partitioned.shared_bytes),
                   "cudaFuncSetAttribute (fir kernel shared memory)", device);
        check_cuda(cudaFuncSetAttribute(partitioned.inverse, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        partitioned.inverse_shared_bytes),
                   "cudaFuncSetAttribute (fir kernel shared memory)", device);
      } else {
        check_cuda(
            cudaFuncSetAttribute(kernel.function, cudaFuncAttributeMaxDynamicSharedMemorySize, kernel.shared_bytes),
            "cudaFuncSetAttribute (fir kernel shared memory)", device);
      }
      // A copy from pageable memory may return before its DMA lands, on the legacy stream,
      // which the fir's stream does not wait for.
      check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (set-up uploads)", device);
    } catch (...) {
      release();
      throw;
    }
    configured = true;
    reset_state();
    return PortDescription::of_samples(design.output);
  }

  // The double-precision path's plans and buffers (configure's part after the schedule).
  void configure_double(const StreamInfo& stream, const Design& design, std::size_t segments) {
    wide.k = device::Fir64Constants{};
    static_cast<device::NativeSamples&>(wide.k) = device::native_samples_of(stream, channel, true);
    wide.k.map = plan.map;
    wide.k.complex_output = plan.complex_output ? 1 : 0;
    wide.k.real_part = design.real_part && plan.complex_output ? 1 : 0;
    wide.k.shifted = plan.shifted ? 1 : 0;
    if (plan.phase) wide.k.phase = plan.phase->terms();
    wide.k.phase_first = plan.first_index + plan.map.offset;
    const std::size_t n = static_cast<std::size_t>(plan.map.n);
    wide.rows = std::clamp<std::size_t>(kFir64SliceBytes / (n * sizeof(double2)), 1, segments);
    const auto lock = gpu::lock_device_wide_calls();
    try {
      fft::PlanSpec spec;
      spec.n = n;
      spec.batch = wide.rows;
      if (design.cufft_double) {
        wide.transforms = "cuFFT's double FFTs";
      } else {
        const std::string problem = fft::gpu::fp64_plan_problem(spec, fft::gpu::device_shared_bytes_limit());
        wide.transforms = problem.empty() ? "our FP64 FFT" : "cuFFT's double FFTs (" + problem + ")";
      }
      try {
        wide.backend = design.cufft_double ? fft::make_cufft_backend(fft::Precision::float64)
                                           : fft::make_cuda_backend(fft::Precision::float64);
        spec.transform = fft::Transform::c2c_forward;
        wide.forward = wide.backend->plan(spec);
        spec.transform = fft::Transform::c2c_inverse;
        wide.inverse = wide.backend->plan(spec);
      } catch (const std::exception& e) {
        throw CudaError("the fir's FP64 FFT plan (length " + std::to_string(spec.n) + ", batch " +
                        std::to_string(wide.rows) + "): " + e.what() + " (device " + std::to_string(device) + ")");
      }
      device_bytes += wide.forward->device_bytes() + wide.inverse->device_bytes();
      wide.history = upload<double2>(nullptr, 2 * plan.history_items(), "fir history");
      wide.windows = upload<double2>(nullptr, wide.rows * n, "fir windows");
      wide.spectra = upload<double2>(nullptr, wide.rows * n, "fir spectra");
      // cuFFT's plans transform every row of their batch whatever the count: rows past a short
      // slice's hold zeros until a longer one writes them.
      check_cuda(cudaMemset(wide.windows, 0, wide.rows * n * sizeof(double2)), "cudaMemset (fir windows)", device);
      wide.spectrum = upload(reinterpret_cast<const double2*>(plan.filter_spectrum64.data()),
                             plan.filter_spectrum64.size(), "filter spectrum");
      // A copy from pageable memory may return before its DMA lands, on the legacy stream,
      // which the fir's stream does not wait for.
      check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (set-up uploads)", device);
    } catch (...) {
      release();
      throw;
    }
  }

  void release() noexcept {
    const auto lock = gpu::lock_device_wide_calls();
    cudaSetDevice(device);
    if (compute != nullptr) cudaStreamSynchronize(compute);
    wide.forward.reset();
    wide.inverse.reset();
    wide.backend.reset();
    for (void* p : {static_cast<void*>(history), static_cast<void*>(spectrum), static_cast<void*>(twiddles),
                    static_cast<void*>(inverse_twiddles), static_cast<void*>(phasors), static_cast<void*>(ring),
                    static_cast<void*>(sums), static_cast<void*>(wide.spectrum), static_cast<void*>(wide.history),
                    static_cast<void*>(wide.windows), static_cast<void*>(wide.spectra)})
      if (p != nullptr) cudaFree(p);
    wide.spectrum = wide.history = wide.windows = wide.spectra = nullptr;
    wide.rows = 0;
    if (staging != nullptr) cudaFreeHost(staging);
    if (staged != nullptr) cudaEventDestroy(staged);
    staging = nullptr;
    staged = nullptr;
    staging_pending = false;
    history = nullptr;
    spectrum = twiddles = inverse_twiddles = ring = sums = nullptr;
    phasors = nullptr;
    device_bytes = 0;
    configured = false;
  }

  void reset_state() {
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    if (plan.double_precision)
      check_cuda(cudaMemsetAsync(wide.history, 0, 2 * plan.history_items() * sizeof(double2), compute),
                 "cudaMemsetAsync (fir history)", device);
    else
      check_cuda(cudaMemsetAsync(history, 0, 4 * plan.history_items() * sizeof(float), compute),
                 "cudaMemsetAsync (fir history)", device);
    schedule->reset();
    history_parity = 0;
    spectra_end = 0;
    items_in = items_out = segments = 0;
  }

  // Launches the call's kernels; returns the outputs written.
  std::size_t run(const FirCall& call, const std::byte* raw, void* out) {
    if (plan.double_precision) return run_double(call, raw, static_cast<double*>(out));
    device::FirLaunch c;
    c.raw = reinterpret_cast<const unsigned char*>(raw);
    c.out = static_cast<float*>(out);
    set_call_fields(c, call);
    c.anchor_cycles = plan.anchor_cycles(call.first_segment);
    c.history_parity = history_parity;
    if (plan.partitions > 1) {
      run_partitioned(call, c);
    } else if (call.end_segment > call.first_segment && call.written > 0) {
      // Packed: the pairs holding the call's segments, two segments each.
      const unsigned long long segments_needed =
          plan.packed ? 2 * ((call.end_segment + 1) / 2 - call.first_segment / 2) : call.end_segment - call.first_segment;
      const unsigned long long per_cta = static_cast<unsigned long long>(kernel.segments_per_cta);
      if (segments_needed > static_cast<unsigned long long>(grid) * per_cta)
        throw std::logic_error("fir: a call of " + std::to_string(segments_needed) + " segments exceeds the grid");
      kernel.launch(static_cast<unsigned>((segments_needed + per_cta - 1) / per_cta), compute, k, c, history, spectrum,
                    twiddles, inverse_twiddles, phasors);
      check_cuda(cudaGetLastError(), "fir_kernel launch", device);
    }
    if (call.block_items > 0) {
      const unsigned long long keep = c.block_end - c.keep_first;
      if (keep > 0) {
        device::fir_history_kernel<<<static_cast<unsigned>((keep + 255) / 256), 256, 0, compute>>>(k, c, history);
        check_cuda(cudaGetLastError(), "fir_history_kernel launch", device);
      }
      history_parity ^= 1;
    }
    return static_cast<std::size_t>(call.written);
  }

  // The double-precision call: windows, forward FFTs, products, inverse FFTs, stores; then the
  // history.
  std::size_t run_double(const FirCall& call, const std::byte* raw, double* out) {
    device::Fir64Launch c;
    c.raw = reinterpret_cast<const unsigned char*>(raw);
    c.out = out;
    set_call_fields(c, call);
    c.history = wide.history + static_cast<std::size_t>(history_parity) * plan.history_items();
    c.next_history = wide.history + static_cast<std::size_t>(history_parity ^ 1) * plan.history_items();
    const unsigned long long n = plan.map.n;
    // A segment's outputs: at most ceil(B/D) (FirSegmentMap::points).
    const unsigned long long per_segment = (plan.map.hop + plan.map.decimation - 1) / plan.map.decimation;
    const unsigned long long call_end = call.end_segment;
    // The segments in slices of at most wide.rows, each through the five steps (c's segments are
    // the slice's; the outputs' range is the call's).
    for (unsigned long long first = call.first_segment; call.written > 0 && first < call_end; first += wide.rows) {
      const unsigned long long rows = std::min<unsigned long long>(wide.rows, call_end - first);
      c.first_segment = first;
      c.end_segment = first + rows;
      const unsigned grid_rows = static_cast<unsigned>(std::min<unsigned long long>(rows, 65535));
      const dim3 by_bin(static_cast<unsigned>((n + device::kFir64Threads - 1) / device::kFir64Threads), grid_rows);
      device::fir64_window_kernel<<<by_bin, device::kFir64Threads, 0, compute>>>(wide.k, c, wide.windows);
      check_cuda(cudaGetLastError(), "fir64_window_kernel launch", device);
      try {
        wide.forward->execute(wide.windows, wide.spectra, static_cast<std::size_t>(rows), compute);
        device::fir64_product_kernel<<<by_bin, device::kFir64Threads, 0, compute>>>(wide.spectra, wide.spectrum, n,
                                                                                     rows);
        check_cuda(cudaGetLastError(), "fir64_product_kernel launch", device);
        wide.inverse->execute(wide.spectra, wide.windows, static_cast<std::size_t>(rows), compute);
      } catch (const CudaError&) {
        throw;
      } catch (const std::exception& e) {
        throw CudaError("the fir's FP64 FFT: " + std::string(e.what()) + " (device " + std::to_string(device) + ")");
      }
      const dim3 by_output(static_cast<unsigned>((per_segment + device::kFir64Threads - 1) / device::kFir64Threads),
                           grid_rows);
      device::fir64_store_kernel<<<by_output, device::kFir64Threads, 0, compute>>>(wide.k, c, wide.windows);
      check_cuda(cudaGetLastError(), "fir64_store_kernel launch", device);
    }
    if (call.block_items > 0) {
      const unsigned long long keep = c.block_end - c.keep_first;
      if (keep > 0) {
        device::fir64_history_kernel<<<static_cast<unsigned>((keep + device::kFir64Threads - 1) / device::kFir64Threads),
                                       device::kFir64Threads, 0, compute>>>(wide.k, c);
        check_cuda(cudaGetLastError(), "fir64_history_kernel launch", device);
      }
      history_parity ^= 1;
    }
    return static_cast<std::size_t>(call.written);
  }

  // A partitioned filter's call: the forward transforms of the segments not yet in the ring (a
  // flush may pass over segments without outputs, a segment it cuts is summed again), the sums
  // of the call's segments and their inverse transforms. Every segment is transformed once, in
  // order, whether or not it has outputs, since later sums read it.
  void run_partitioned(const FirCall& call, const device::FirLaunch& c) {
    device::FirSpectra spectra;
    spectra.ring = ring;
    spectra.ring_segments = ring_segments;
    spectra.n = plan.map.n;
    spectra.bins = plan.map.n / plan.fold;
    spectra.sums = sums;
    spectra.partitions = static_cast<int>(plan.partitions);
    spectra.fold = static_cast<int>(plan.fold);
    const unsigned long long per_cta = static_cast<unsigned long long>(partitioned.segments_per_cta);
    const unsigned long long inverse_per_cta = static_cast<unsigned long long>(partitioned.inverse_segments_per_cta);
    if (call.end_segment > spectra_end) {
      if (call.end_segment - std::min<unsigned long long>(call.first_segment, spectra_end) + plan.partitions - 1 >
          ring_segments)
        throw std::logic_error("fir: a call's spectra exceed the ring");
      const unsigned long long count = call.end_segment - spectra_end;
      partitioned.launch_forward(static_cast<unsigned>((count + per_cta - 1) / per_cta), compute, k, c, history,
                                 twiddles, spectra, spectra_end, call.end_segment);
      check_cuda(cudaGetLastError(), "fir_forward_kernel launch", device);
      spectra_end = call.end_segment;
    }
    if (call.end_segment <= call.first_segment || call.written == 0) return;
    const unsigned long long segments_needed = call.end_segment - call.first_segment;
    if (segments_needed > sums_segments)
      throw std::logic_error("fir: a call of " + std::to_string(segments_needed) + " segments exceeds the sums buffer");
    // Groups beyond gridDim.y's limit are looped over inside the kernel.
    const unsigned long long groups = (segments_needed + device::kFirSumSegments - 1) / device::kFirSumSegments;
    const dim3 sum_grid(static_cast<unsigned>((spectra.bins + device::kFirSumThreads - 1) / device::kFirSumThreads),
                        static_cast<unsigned>(std::min<unsigned long long>(groups, 65535)));
    device::fir_sum_kernel<<<sum_grid, device::kFirSumThreads, 0, compute>>>(c, spectra, spectrum);
    check_cuda(cudaGetLastError(), "fir_sum_kernel launch", device);
    const unsigned inverse_grid = static_cast<unsigned>((segments_needed + inverse_per_cta - 1) / inverse_per_cta);
    partitioned.launch_inverse(inverse_grid, compute, k, c, spectra, plan.fold > 1 ? inverse_twiddles : twiddles,
                               phasors);
    check_cuda(cudaGetLastError(), "fir_inverse_kernel launch", device);
  }

  std::size_t process(const Chunk& input, Chunk& output) {
    if (!configured) throw std::logic_error("CudaFir::process before configure");
    if (input.items > max_items)
      throw std::invalid_argument("a chunk of " + std::to_string(input.items) + " items exceeds the configured " +
                                  std::to_string(max_items));
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);  // the calling thread may be new
    if (fault_call >= 0 && calls == static_cast<std::uint64_t>(fault_call)) {
      void* p = nullptr;
      check_cuda(cudaMalloc(&p, std::size_t{1} << 50), "cudaMalloc (fault injected by PRISM_CUDA_FAULT)", device);
    }
    ++calls;
    const FirCall call = schedule->process(input.items);
    const std::size_t written = run(call, input.data, output.data);
    items_in.store(schedule->items_in(), std::memory_order_relaxed);
    items_out.store(schedule->items_out(), std::memory_order_relaxed);
    segments.store(schedule->segments(), std::memory_order_relaxed);
    return written;
  }

  void set_taps(const FilterTaps& taps) {
    if (!configured) throw std::logic_error("CudaFir::set_taps before configure");
    GpuFirPlan next = plan;
    next.set_taps(taps);
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    const void* spectrum_bytes = plan.double_precision ? static_cast<const void*>(next.filter_spectrum64.data())
                                                       : static_cast<const void*>(next.filter_spectrum.data());
    const std::size_t bytes = plan.double_precision ? next.filter_spectrum64.size() * sizeof(std::complex<double>)
                                                    : next.filter_spectrum.size() * sizeof(std::complex<float>);
    if (staging == nullptr) {  // at the first switch: a stage that never switches pins nothing
      const auto lock = gpu::lock_device_wide_calls();
      check_cuda(cudaHostAlloc(&staging, bytes, cudaHostAllocDefault), "cudaHostAlloc (filter spectrum staging)",
                 device);
      check_cuda(cudaEventCreateWithFlags(&staged, cudaEventDisableTiming), "cudaEventCreate (fir taps)", device);
    }
    // The staging buffer is rewritten only once the last switch's copy has read it; the copy runs
    // on the stage's stream, after the kernels that read the old spectrum.
    if (staging_pending)
      check_cuda(cudaEventSynchronize(staged), "cudaEventSynchronize (fir taps)", device);
    std::memcpy(staging, spectrum_bytes, bytes);
    void* target = plan.double_precision ? static_cast<void*>(wide.spectrum) : static_cast<void*>(spectrum);
    check_cuda(cudaMemcpyAsync(target, staging, bytes, cudaMemcpyHostToDevice, compute),
               "cudaMemcpyAsync (filter spectrum)", device);
    check_cuda(cudaEventRecord(staged, compute), "cudaEventRecord (fir taps)", device);
    staging_pending = true;
    plan = std::move(next);
  }

  std::size_t flush(Chunk& output) {
    if (!configured) throw std::logic_error("CudaFir::flush before configure");
    check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
    // At most what the grid holds: a larger buffer is filled over several calls.
    const FirCall call = schedule->flush(std::min(output.capacity, plan.max_output(max_items)));
    const std::size_t written = run(call, nullptr, output.data);
    items_out.store(schedule->items_out(), std::memory_order_relaxed);
    segments.store(schedule->segments(), std::memory_order_relaxed);
    return written;
  }
};

CudaFir::CudaFir(unsigned channel, Planner planner, int device, KeyNamer name)
    : impl_(std::make_unique<Impl>(channel, std::move(planner), device, std::move(name))) {}

CudaFir::~CudaFir() = default;

std::string CudaFir::describe() const {
  std::string text = "cuda fir: ";
  text += impl_->configured ? impl_->plan.describe() : std::string("not configured");
  if (impl_->configured && impl_->plan.double_precision)
    text += ", per chunk: gather, " + impl_->wide.transforms + ", product, inverse, store; ";
  else if (impl_->configured && impl_->plan.partitions > 1)
    text += ", three kernels per chunk (forward FFTs into a ring of spectra, sums of products, inverse FFTs); ";
  else
    text += ", one kernel per chunk (convert, our team FFT, product, inverse, store); ";
  text += impl_->device_info.describe();
  return text;
}

MemoryDomain CudaFir::input_domain() const { return MemoryDomain::cuda(impl_->device); }

PortDescription CudaFir::configure(const PortDescription& input, std::size_t max_input_items) {
  return impl_->configure(input, max_input_items);
}

std::size_t CudaFir::max_output(std::size_t input_items) const { return impl_->plan.max_output(input_items); }

std::size_t CudaFir::process(const Chunk& input, Chunk& output) { return impl_->process(input, output); }

std::size_t CudaFir::flush(Chunk& output) { return impl_->flush(output); }

void CudaFir::reset() {
  if (impl_->configured) impl_->reset_state();
}

void CudaFir::set_taps(const FilterTaps& taps) { impl_->set_taps(taps); }

StageCounters CudaFir::counters() const {
  StageCounters c;
  c.items_in = impl_->items_in.load(std::memory_order_relaxed);
  c.items_out = impl_->items_out.load(std::memory_order_relaxed);
  c.extras = {{"segments", impl_->segments.load(std::memory_order_relaxed)}};
  return c;
}

gpu::Stream CudaFir::stream() const { return impl_->compute; }

}  // namespace prism::cuda
