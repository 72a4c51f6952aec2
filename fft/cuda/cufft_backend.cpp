// The cuFFT backend: a thin wrapper of cufftPlanMany / cufftExec* behind the FFT interface,
// for comparison with our kernels and as their fallback. Out-of-place c2r in cuFFT overwrites
// its input, which the interface promises to keep, so that case runs from a copy made on the
// same stream into a buffer allocated with the plan.
#include <cuda_runtime.h>
#include <cufft.h>

#include <stdexcept>
#include <string>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_plan.hpp"

namespace prism::fft {
namespace {

void check_cufft(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS) {
    throw std::runtime_error(std::string("cuFFT: ") + what + " failed (cufftResult " +
                             std::to_string(static_cast<int>(status)) + ")");
  }
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("cuFFT backend: ") + what + ": " + cudaGetErrorString(status));
  }
}

class CufftPlan final : public Plan {
 public:
  explicit CufftPlan(const PlanSpec& spec) : Plan(spec) {
    if (spec.n == 0 || spec.batch == 0) throw std::invalid_argument("cuFFT: empty transform");
    if (spec.n > (1ull << 30)) throw std::invalid_argument("cuFFT: length too large");
    int n = static_cast<int>(spec.n);
    int in_row = static_cast<int>(gpu::input_row_length(spec));
    int out_row = static_cast<int>(gpu::output_row_length(spec));
    cufftType type = CUFFT_C2C;
    switch (spec.transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse: type = CUFFT_C2C; break;
      case Transform::r2c: type = CUFFT_R2C; break;
      case Transform::c2r: type = CUFFT_C2R; break;
    }
    check_cufft(cufftPlanMany(&plan_, 1, &n, &in_row, 1, in_row, &out_row, 1, out_row, type,
                              static_cast<int>(spec.batch)),
                "cufftPlanMany");
    std::size_t work = 0;
    if (cufftGetSize(plan_, &work) == CUFFT_SUCCESS) device_bytes_ = work;
    if (spec.transform == Transform::c2r && !spec.in_place) {
      const std::size_t bytes = gpu::input_row_length(spec) * spec.batch * 2 * sizeof(float);
      const cudaError_t status = cudaMalloc(&input_copy_, bytes);
      device_bytes_ += bytes;
      if (status != cudaSuccess) {
        cufftDestroy(plan_);
        check_cuda(status, "cudaMalloc");
      }
    }
  }
  std::size_t device_bytes() const override { return device_bytes_; }
  ~CufftPlan() override {
    cufftDestroy(plan_);
    if (input_copy_) cudaFree(input_copy_);
  }

  void execute(const void* in, void* out, std::size_t, Stream stream) override {
    auto s = static_cast<cudaStream_t>(stream);
    check_cufft(cufftSetStream(plan_, s), "cufftSetStream");
    void* source = const_cast<void*>(in);
    switch (spec().transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse:
        check_cufft(cufftExecC2C(plan_, static_cast<cufftComplex*>(source), static_cast<cufftComplex*>(out),
                                 spec().transform == Transform::c2c_forward ? CUFFT_FORWARD : CUFFT_INVERSE),
                    "cufftExecC2C");
        break;
      case Transform::r2c:
        check_cufft(cufftExecR2C(plan_, static_cast<cufftReal*>(source), static_cast<cufftComplex*>(out)),
                    "cufftExecR2C");
        break;
      case Transform::c2r:
        if (input_copy_) {
          const std::size_t bytes = gpu::input_row_length(spec()) * spec().batch * 2 * sizeof(float);
          check_cuda(cudaMemcpyAsync(input_copy_, in, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
          source = input_copy_;
        }
        check_cufft(cufftExecC2R(plan_, static_cast<cufftComplex*>(source), static_cast<cufftReal*>(out)),
                    "cufftExecC2R");
        break;
    }
  }

 private:
  cufftHandle plan_ = 0;
  void* input_copy_ = nullptr;
  std::size_t device_bytes_ = 0;
};

class CufftBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::cufft; }
  bool device_memory() const override { return true; }
  std::unique_ptr<Plan> plan(const PlanSpec& spec) override { return std::make_unique<CufftPlan>(spec); }
  std::string describe() const override {
    int version = 0;
    cufftGetVersion(&version);
    return "cuFFT " + std::to_string(version) + " (single precision)";
  }
};

}  // namespace

std::unique_ptr<Backend> make_cufft_backend() { return std::make_unique<CufftBackend>(); }

}  // namespace prism::fft
