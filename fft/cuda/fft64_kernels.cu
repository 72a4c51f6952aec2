// Our double-precision FFT on the GPU: the pass kernel (one block holds `per_block` transforms,
// one or two planes of double pairs each (fp64_plane_stride), in shared memory; every stage a
// Stockham butterfly per thread, fft64_pass.hpp) and the plan that uploads an Fp64Layout and
// launches its passes.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/device_upload.hpp"
#include "fft/cuda/fft64_plan.hpp"

namespace prism::fft::gpu {
namespace {

// A stage of radix R in one plane, a thread per butterfly (lane < stage.stride): every thread of
// the block reads its butterfly's inputs and takes its DFT before any writes.
template <int R>
__device__ __forceinline__ void fp64_stage_in_one_plane(Cd* plane, const Fp64Stage& stage, int lane, const Cd* roots) {
  Cd y[R];
  const bool active = lane < stage.stride;
  if (active) fp64_butterfly_values<R>(plane, stage, lane, roots, y);
  __syncthreads();
  if (active) fp64_butterfly_write<R>(plane, stage, lane, y);
  __syncthreads();
}

// One pass. kLean: a pass of fp64_lean_radix's radices only, in at most 64 registers, so that
// two blocks of 512 threads can share a multiprocessor where their shared memory allows (one
// block's loads overlap the other's stages); else any pass (the radix-7 to -13 butterflies spill
// at 64). kOnePlane: a one_plane pass (radices 8, 4 and 2), compiled apart. Source and
// destination are one buffer in place: each block reads its transforms whole before it writes.
template <bool kLean, bool kOnePlane>
__global__ void __launch_bounds__(kFp64BlockThreads, kLean ? 2 : 1)
    fp64_pass_kernel(Fp64PassDesc p, const void* source, void* destination,
                     const Cd* __restrict__ roots, const Cd* __restrict__ coarse, const Cd* __restrict__ fine,
                     const Cd* __restrict__ half_roots, long long rows) {
  extern __shared__ Cd planes[];
  if (kLean && !fp64_lean_pass(p)) __trap();  // its butterflies would skip the other radices
  const int length = p.length;
  const int stride = fp64_plane_stride(p);
  const int per_block = p.per_block;
  const int threads = p.threads_per_transform;
  const long long first = static_cast<long long>(blockIdx.x) * per_block;
  const long long transforms = fp64_transforms(p, rows);
  // Each thread loads and stores elements of one transform: side by side, neighbouring threads
  // on neighbouring transforms (groups); else on neighbouring elements of one.
  {
    const int local = p.interleave_load ? threadIdx.x % per_block : threadIdx.x / threads;
    const int i0 = p.interleave_load ? threadIdx.x / per_block : threadIdx.x - local * threads;
    if (first + local < transforms) {
      const Fp64Transform at = fp64_transform(p, first + local, rows);
      for (int i = i0; i < length; i += threads) planes[local * stride + i] = fp64_load(p, source, at, i, half_roots);
    }
  }
  __syncthreads();
  const int local = threadIdx.x / threads;
  const int lane = threadIdx.x - local * threads;
  Cd* a = planes + local * stride;
  int span = 1;
  if constexpr (kOnePlane) {
    for (int s = 0; s < p.stages; ++s) {
      const Fp64Stage stage = fp64_stage(p, s, span);
      switch (stage.radix) {
        case 2: fp64_stage_in_one_plane<2>(a, stage, lane, roots); break;
        case 4: fp64_stage_in_one_plane<4>(a, stage, lane, roots); break;
        default: fp64_stage_in_one_plane<8>(a, stage, lane, roots); break;
      }
      span *= stage.radix;
    }
  } else {
    Cd* b = a + length;
    for (int s = 0; s < p.stages; ++s) {
      const Fp64Stage stage = fp64_stage(p, s, span);
      for (int j = lane; j < stage.stride; j += threads) fp64_stage_butterfly<kLean>(stage, a, b, j, roots);
      __syncthreads();
      Cd* swap = a;
      a = b;
      b = swap;
      span *= stage.radix;
    }
  }
  // The plane the last stage wrote.
  const int result = !kOnePlane && p.stages % 2 == 1 ? length : 0;
  {
    const int t = p.interleave_store ? threadIdx.x % per_block : local;
    const int k0 = p.interleave_store ? threadIdx.x / per_block : lane;
    if (first + t < transforms) {
      const Fp64Transform at = fp64_transform(p, first + t, rows);
      for (int k = k0; k < length; k += threads) fp64_store_from(p, destination, at, k, planes + t * stride + result, coarse, fine);
    }
  }
}

using Fp64PassKernel = void (*)(Fp64PassDesc, const void*, void*, const Cd*, const Cd*, const Cd*, const Cd*, long long);

// The kernel for a pass: the lean one where it can.
Fp64PassKernel kernel_for(const Fp64PassDesc& p) {
  if (p.one_plane) return fp64_pass_kernel<true, true>;
  return fp64_lean_pass(p) ? fp64_pass_kernel<true, false> : fp64_pass_kernel<false, false>;
}

// Thread blocks of a pass over `rows` rows of the batch.
long long blocks_of(const Fp64PassDesc& p, long long rows) { return (fp64_transforms(p, rows) + p.per_block - 1) / p.per_block; }

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA FFT (double precision): ") + what + ": " + cudaGetErrorString(status));
}

class CudaFp64Plan final : public Plan {
 public:
  CudaFp64Plan(const PlanSpec& spec, Fp64Layout layout, long long shared_limit)
      : Plan(spec), layout_(std::move(layout)) {
    long long shared = 0;
    for (const Fp64Step& step : layout_.steps) shared = std::max(shared, fp64_shared_bytes(step.pass));
    if (shared > shared_limit)
      throw std::runtime_error("CUDA FFT (double precision): " + layout_.algorithm + " needs " +
                               std::to_string(shared) + " bytes of shared memory per block; this device allows " +
                               std::to_string(shared_limit));
    // Raised per plan where it takes more than the kernel may yet (on the current device): never
    // lowered, as plans made before may need more; under a lock, as plans may be made from several
    // threads at once.
    static std::mutex attribute_lock;
    const std::lock_guard<std::mutex> locked(attribute_lock);
    for (const Fp64Step& step : layout_.steps) {
      const Fp64PassKernel kernel = kernel_for(step.pass);
      const long long needed = fp64_shared_bytes(step.pass);
      cudaFuncAttributes attributes{};
      check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
      if (attributes.maxDynamicSharedSizeBytes < needed)
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(needed)),
              "cudaFuncSetAttribute");
    }
    for (const Fp64Step& step : layout_.steps) {
      const long long blocks = blocks_of(step.pass, static_cast<long long>(spec.batch));
      if (blocks > INT_MAX)
        throw std::invalid_argument("CUDA FFT (double precision): " + layout_.algorithm + " of a batch of " +
                                    std::to_string(spec.batch) + " needs " + std::to_string(blocks) +
                                    " thread blocks in a pass, above the grid's 2^31 - 1");
    }
    const std::size_t table_bytes = layout_.table.size() * sizeof(Cd);
    const std::size_t scratch_bytes = static_cast<std::size_t>(layout_.scratch_elements) * spec.batch * sizeof(Cd);
    check(cudaMalloc(&table_, table_bytes), "cudaMalloc (tables)");
    if (scratch_bytes > 0) {
      const cudaError_t status = cudaMalloc(&scratch_, scratch_bytes);
      if (status != cudaSuccess) {
        cudaFree(table_);
        check(status, "cudaMalloc (scratch)");
      }
    }
    const cudaError_t uploaded = upload_to_device(table_, layout_.table.data(), table_bytes);
    if (uploaded != cudaSuccess) {
      release();
      check(uploaded, "table upload");
    }
    device_bytes_ = table_bytes + scratch_bytes;
  }
  ~CudaFp64Plan() override { release(); }
  CudaFp64Plan(const CudaFp64Plan&) = delete;
  CudaFp64Plan& operator=(const CudaFp64Plan&) = delete;
  std::size_t device_bytes() const override { return device_bytes_; }

  void execute(const void* in, void* out, std::size_t count, Stream stream) override {
    const long long rows = static_cast<long long>(std::min(count, spec().batch));
    if (rows == 0) return;
    for (const Fp64Step& step : layout_.steps) {
      const Fp64PassDesc& p = step.pass;
      const int threads = p.per_block * p.threads_per_transform;
      kernel_for(p)<<<static_cast<unsigned>(blocks_of(p, rows)), threads, static_cast<std::size_t>(fp64_shared_bytes(p)),
                         static_cast<cudaStream_t>(stream)>>>(
          p, resolve(step.src, in, out), resolve(step.dst, in, out), table_ + step.roots,
          step.coarse < 0 ? nullptr : table_ + step.coarse, step.fine < 0 ? nullptr : table_ + step.fine,
          step.half_roots < 0 ? nullptr : table_ + step.half_roots, rows);
      const cudaError_t launched = cudaGetLastError();
      if (launched != cudaSuccess) check(launched, ("kernel launch of " + layout_.algorithm).c_str());
    }
  }

 private:
  void* resolve(BufferRef ref, const void* in, void* out) const {
    switch (ref) {
      case BufferRef::input: return const_cast<void*>(in);
      case BufferRef::output: return out;
      default: return scratch_;
    }
  }
  void release() {
    if (table_) cudaFree(table_);
    if (scratch_) cudaFree(scratch_);
    table_ = nullptr;
    scratch_ = nullptr;
  }

  Fp64Layout layout_;
  Cd* table_ = nullptr;
  Cd* scratch_ = nullptr;
  std::size_t device_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Plan> make_cuda_fp64_plan(const PlanSpec& spec, long long shared_limit) {
  return std::make_unique<CudaFp64Plan>(spec, make_fp64_layout(spec, shared_limit), shared_limit);
}

}  // namespace prism::fft::gpu
