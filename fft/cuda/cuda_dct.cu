// CudaDct (cuda_dct.hpp): the recipe's fused kernel where dct_fused.hpp has one, else its two
// element-wise steps as kernels around our FFT plan, one thread per item of a row (dct_steps.hpp's
// pre_items / post_items) and row.
#include "fft/cuda/cuda_dct.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/device_upload.hpp"
#include "fft/cuda/dct_fused.hpp"
#include "fft/cuda/dct_steps.hpp"
#include "fft/cuda/fft_plan.hpp"

namespace prism::fft {
namespace {

using gpu::Cf;
using gpu::DctStepArgs;

constexpr int kThreads = 256;

// Rows in the grid's y dimension (looping where a batch has more than it holds), items in x: no
// division per thread, which cost as much as the memory traffic with rows flattened into x.
__global__ void dct_pre_kernel(DctStepArgs args, const float* in, char* fft_in, long long items, long long rows,
                               long long fft_row_bytes) {
  const long long item = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (item >= items) return;
  for (long long row = blockIdx.y; row < rows; row += gridDim.y)
    gpu::dct_pre_step(args, in + row * args.n, fft_in + row * fft_row_bytes, item);
}

__global__ void dct_post_kernel(DctStepArgs args, const char* fft_out, float* out, long long items, long long rows,
                                long long fft_row_bytes) {
  const long long item = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (item >= items) return;
  for (long long row = blockIdx.y; row < rows; row += gridDim.y)
    gpu::dct_post_step(args, fft_out + row * fft_row_bytes, out + row * args.n, item);
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA DCT: ") + what + ": " + cudaGetErrorString(status));
}

// Blocks of kThreads over a row's items, times the rows (at most CUDA's 65535 in y).
dim3 grid_for(long long items, long long rows) {
  return dim3(static_cast<unsigned>((items + kThreads - 1) / kThreads),
              static_cast<unsigned>(std::min<long long>(rows, 65535)));
}

const char* type_name(DctType type) {
  switch (type) {
    case DctType::type2: return "DCT-II";
    case DctType::type3: return "DCT-III";
    case DctType::type4: return "DCT-IV";
  }
  return "DCT";
}

}  // namespace

struct CudaDct::State {
  gpu::DctRecipe recipe;
  bool fused = false;      // one kernel (dct_fused.hpp); else the steps around `fft`
  std::unique_ptr<Plan> fft;
  Cf* twiddles = nullptr;  // pre, post, then the fused kernel's stage and real twiddles
  Cf* stage_twiddles = nullptr;
  Cf* real_twiddles = nullptr;
  char* fft_in = nullptr;
  char* fft_out = nullptr;
  std::size_t buffer_bytes = 0;
  DctStepArgs args;

  ~State() {
    cudaFree(twiddles);
    cudaFree(fft_in);
    cudaFree(fft_out);
  }
};

CudaDct::CudaDct(const DctSpec& spec) : spec_(spec), state_(std::make_unique<State>()) {
  State& s = *state_;
  s.recipe = gpu::make_dct_recipe(spec);
  const gpu::DctRecipe& r = s.recipe;
  const long long n = static_cast<long long>(spec.n);
  s.fused = gpu::dct_fused_takes(r.algorithm, n);

  // Every table in one allocation: the steps' twiddles, then the fused kernel's.
  std::vector<Cf> tables = r.pre_twiddles;
  tables.insert(tables.end(), r.post_twiddles.begin(), r.post_twiddles.end());
  const std::size_t pre = r.pre_twiddles.size();
  const std::size_t post = r.post_twiddles.size();
  std::size_t real_offset = 0;
  if (s.fused) {
    const std::vector<Cf> stage = gpu::dct_fused_stage_twiddles(r.algorithm, n);
    tables.insert(tables.end(), stage.begin(), stage.end());
    real_offset = tables.size();
    if (r.algorithm != gpu::DctAlgorithm::type4_half) {
      const std::vector<Cf> real = gpu::unit_roots(n, n / 2 + 1);
      tables.insert(tables.end(), real.begin(), real.end());
    }
  }
  check(cudaMalloc(&s.twiddles, std::max<std::size_t>(1, tables.size()) * sizeof(Cf)), "cudaMalloc twiddles");
  check(gpu::upload_to_device(s.twiddles, tables.data(), tables.size() * sizeof(Cf)), "upload");
  s.buffer_bytes = tables.size() * sizeof(Cf);
  if (s.fused) {
    s.stage_twiddles = s.twiddles + pre + post;
    s.real_twiddles = s.twiddles + real_offset;
  } else {
    s.fft = make_cuda_backend()->plan(r.fft);
    const std::size_t in_bytes = static_cast<std::size_t>(r.fft_input_row_bytes) * spec.batch;
    const std::size_t out_bytes = static_cast<std::size_t>(r.fft_output_row_bytes) * spec.batch;
    check(cudaMalloc(&s.fft_in, in_bytes), "cudaMalloc FFT input rows");
    check(cudaMalloc(&s.fft_out, out_bytes), "cudaMalloc FFT output rows");
    s.buffer_bytes += in_bytes + out_bytes;
  }

  s.args = gpu::dct_step_args(r, s.twiddles, s.twiddles + pre);
}

CudaDct::~CudaDct() = default;

void CudaDct::execute(const float* in, float* out, std::size_t count, Stream stream) {
  if (count > spec_.batch) count = spec_.batch;
  if (count == 0) return;
  State& s = *state_;
  const gpu::DctRecipe& r = s.recipe;
  auto* cuda_stream = static_cast<cudaStream_t>(stream);
  const long long rows = static_cast<long long>(count);
  if (s.fused) {
    int status = 0;
    switch (r.algorithm) {
      case gpu::DctAlgorithm::type2_real:
        status = gpu::launch_dct_type2_fused(s.args, s.stage_twiddles, s.real_twiddles, in, out, rows, stream);
        break;
      case gpu::DctAlgorithm::type3_real:
        status = gpu::launch_dct_type3_fused(s.args, s.stage_twiddles, s.real_twiddles, in, out, rows, stream);
        break;
      default: status = gpu::launch_dct_type4_fused(s.args, s.stage_twiddles, in, out, rows, stream); break;
    }
    check(static_cast<cudaError_t>(status), "launch of the fused kernel");
    return;
  }
  dct_pre_kernel<<<grid_for(r.pre_items, rows), kThreads, 0, cuda_stream>>>(s.args, in, s.fft_in, r.pre_items,
                                                                               rows, r.fft_input_row_bytes);
  check(cudaGetLastError(), "launch of the step before the FFT");
  s.fft->execute(s.fft_in, s.fft_out, count, stream);
  dct_post_kernel<<<grid_for(r.post_items, rows), kThreads, 0, cuda_stream>>>(s.args, s.fft_out, out,
                                                                                 r.post_items, rows,
                                                                                 r.fft_output_row_bytes);
  check(cudaGetLastError(), "launch of the step after the FFT");
}

std::size_t CudaDct::device_bytes() const {
  return state_->buffer_bytes + (state_->fft ? state_->fft->device_bytes() : 0);
}

std::string CudaDct::describe() const {
  return std::string(type_name(spec_.type)) + " n=" + std::to_string(spec_.n) + " norm=" +
         std::string(dct_norm_name(spec_.norm)) + " (" + (state_->fused ? "one kernel: " : "") +
         state_->recipe.description + ")";
}

}  // namespace prism::fft
