// Multi-dimensional transforms on our CUDA backend: the steps of fft_nd_layout.hpp, its row steps
// planned by the backend as any 1-D plan (our kernels, or cuFFT where ours do not reach), its
// columns steps one pass of our kernels each, and its transposes run by a tiled transpose kernel
// of any size.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_complex.hpp"
#include "fft/cuda/fft_nd_layout.hpp"

namespace prism::fft::gpu {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA FFT (multi-dimensional): ") + what + ": " + cudaGetErrorString(status));
}

// A block moves 32 x 32 tiles through shared memory, reading 32 neighbouring elements of a row
// and writing 32 neighbouring elements of a column of the output, with a padded tile row (33) so
// that the column reads do not conflict on banks. Unlike the four-step's transpose, the matrix
// may have any size (edge tiles are checked), and the grid steps over tiles and arrays beyond its
// limits; the loop bounds depend on the block only, so every thread reaches each __syncthreads.
constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads along y; each takes every 8th row of the tile

__global__ void __launch_bounds__(kTile * kTileRows)
    nd_transpose_kernel(const TransposeDesc d, const Cf* src, Cf* dst, long long arrays) {
  __shared__ Cf tile[kTile][kTile + 1];
  const long long rows = d.rows, columns = d.columns;
  const int x = static_cast<int>(threadIdx.x);
  for (long long t = blockIdx.z; t < arrays; t += gridDim.z) {
    for (long long r0 = static_cast<long long>(blockIdx.y) * kTile; r0 < rows; r0 += static_cast<long long>(gridDim.y) * kTile) {
      for (long long k0 = static_cast<long long>(blockIdx.x) * kTile; k0 < columns;
           k0 += static_cast<long long>(gridDim.x) * kTile) {
        for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRows) {
          const long long r = r0 + i, k = k0 + x;
          if (r < rows && k < columns) tile[i][x] = src[transpose_in_offset(d, t, r, k)];
        }
        __syncthreads();
        for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRows) {
          const long long r = r0 + x, k = k0 + i;
          if (r < rows && k < columns) dst[transpose_out_offset(d, t, r, k)] = tile[x][i];
        }
        __syncthreads();
      }
    }
  }
}

unsigned grid_extent(long long tiles, long long limit) { return static_cast<unsigned>(std::min(tiles, limit)); }

class CudaNdPlan final : public NdPlan {
 public:
  CudaNdPlan(const NdPlanSpec& spec, Backend& rows_backend)
      : NdPlan(spec), layout_(make_nd_layout(spec, device_shared_bytes_limit())) {
    // Row steps of the same length, kind and batch (every axis of a cube in the transposes'
    // chain) share one plan: they run one after the other on the stream, so its tables and
    // scratch serve them all.
    for (std::size_t i = 0; i < layout_.steps.size(); ++i) {
      const NdStep& step = layout_.steps[i];
      Plan* plan = nullptr;
      for (std::size_t j = 0; j < i && step.kind == NdStep::Kind::rows; ++j) {
        const NdStep& earlier = layout_.steps[j];
        if (earlier.kind == NdStep::Kind::rows && earlier.rows.n == step.rows.n &&
            earlier.rows.batch == step.rows.batch && earlier.rows.transform == step.rows.transform) {
          plan = rows_plans_[j];
          break;
        }
      }
      if (plan == nullptr && step.kind != NdStep::Kind::transpose) {
        owned_plans_.push_back(step.kind == NdStep::Kind::columns
                                   ? make_cuda_columns_plan(columns_spec(step, static_cast<long long>(spec.batch)))
                                   : rows_backend.plan(step.rows));
        plan = owned_plans_.back().get();
        device_bytes_ += plan->device_bytes();
      }
      rows_plans_.push_back(plan);
    }
    if (layout_.scratch_arrays > 0) {
      const std::size_t bytes = static_cast<std::size_t>(layout_.scratch_elements) * sizeof(Cf);
      check(cudaMalloc(&scratch_, bytes * static_cast<std::size_t>(layout_.scratch_arrays)), "cudaMalloc scratch");
      device_bytes_ += bytes * static_cast<std::size_t>(layout_.scratch_arrays);
    }
  }
  ~CudaNdPlan() override {
    if (scratch_) cudaFree(scratch_);
  }
  CudaNdPlan(const CudaNdPlan&) = delete;
  CudaNdPlan& operator=(const CudaNdPlan&) = delete;

  std::size_t device_bytes() const override { return device_bytes_; }

  void execute(const void* in, void* out, std::size_t count, Stream stream) override {
    count = std::min(count, spec().batch);
    if (count == 0) return;
    if (in == static_cast<const void*>(out))
      throw std::invalid_argument("a multi-dimensional FFT plan runs out of place only");
    const auto s = static_cast<cudaStream_t>(stream);
    const auto arrays = static_cast<long long>(count);
    for (std::size_t i = 0; i < layout_.steps.size(); ++i) {
      const NdStep& step = layout_.steps[i];
      const void* from = buffer(step.from, in, out);
      void* to = const_cast<void*>(buffer(step.to, in, out));
      if (step.kind != NdStep::Kind::transpose) {
        // Rows or groups of columns of the arrays asked for. A row plan falling back to cuFFT
        // transforms its whole batch (arrays past `count` too).
        rows_plans_[i]->execute(from, to, static_cast<std::size_t>(step.rows_per_array * arrays), stream);
        continue;
      }
      const dim3 grid(grid_extent((step.columns + kTile - 1) / kTile, 1ll << 30),
                      grid_extent((step.rows_per_array + kTile - 1) / kTile, 65535),
                      grid_extent(arrays, 65535));
      nd_transpose_kernel<<<grid, dim3(kTile, kTileRows), 0, s>>>(
          nd_transpose_desc(step.rows_per_array, step.columns), static_cast<const Cf*>(from), static_cast<Cf*>(to), arrays);
      check(cudaGetLastError(), "transpose launch");
    }
  }

 private:
  const void* buffer(NdBuffer which, const void* in, void* out) const {
    const std::size_t elements = static_cast<std::size_t>(layout_.scratch_elements);
    switch (which) {
      case NdBuffer::input: return in;
      case NdBuffer::output: return out;
      case NdBuffer::scratch0: return scratch_;
      case NdBuffer::scratch1: return scratch_ + elements;
    }
    return nullptr;
  }

  NdLayout layout_;
  std::vector<std::unique_ptr<Plan>> owned_plans_;  // one per distinct row step, one per columns step
  std::vector<Plan*> rows_plans_;                    // per step; null for transposes
  Cf* scratch_ = nullptr;                          // scratch0, then scratch1
  std::size_t device_bytes_ = 0;
};

}  // namespace

std::unique_ptr<NdPlan> make_cuda_nd_plan(const NdPlanSpec& spec, Backend& rows_backend) {
  return std::make_unique<CudaNdPlan>(spec, rows_backend);
}

std::string describe_cuda_nd_plan(const NdPlanSpec& spec) {
  return make_nd_layout(spec, device_shared_bytes_limit()).algorithm;
}

}  // namespace prism::fft::gpu
