// The cuFFT backend: a thin wrapper of cufftPlanMany / cufftExec* behind the FFT interface
// (1-D and multi-dimensional, single or double precision), for comparison with our kernels and as
// their fallback.
// Out-of-place c2r in cuFFT overwrites its input, which the interface promises to keep, so that
// case runs from a copy made on the same stream into a buffer allocated with the plan.
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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

// One cuFFT plan (cufftPlanMany, contiguous rows or arrays) with its execution, behind both the
// 1-D and the multi-dimensional plans. c2r out of place runs from a copy of the input.
class CufftTransform {
 public:
  // `lengths`: the transform's lengths, outermost first; `input_elements`: complex pairs or reals
  // of one transform's input as it is laid out (padded real rows in place).
  CufftTransform(std::vector<int> lengths, Transform transform, Precision precision, std::size_t batch,
                 std::size_t input_elements, std::size_t output_elements, bool in_place)
      : transform_(transform), double_(precision == Precision::float64) {
    int in_dist = static_cast<int>(input_elements);
    int out_dist = static_cast<int>(output_elements);
    // Rows are embedded in rows of their distance (in-place real rows are padded); the
    // multi-dimensional arrays are contiguous, cuFFT's basic layout (no embeddings).
    const bool embedded = lengths.size() == 1;
    cufftType type = CUFFT_C2C;
    switch (transform) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse: type = double_ ? CUFFT_Z2Z : CUFFT_C2C; break;
      case Transform::r2c: type = double_ ? CUFFT_D2Z : CUFFT_R2C; break;
      case Transform::c2r: type = double_ ? CUFFT_Z2D : CUFFT_C2R; break;
    }
    check_cufft(cufftPlanMany(&plan_, static_cast<int>(lengths.size()), lengths.data(), embedded ? &in_dist : nullptr,
                              1, in_dist, embedded ? &out_dist : nullptr, 1, out_dist, type,
                              static_cast<int>(batch)),
                "cufftPlanMany");
    std::size_t work = 0;
    if (cufftGetSize(plan_, &work) == CUFFT_SUCCESS) device_bytes_ = work;
    if (transform == Transform::c2r && !in_place) {
      input_copy_bytes_ = input_elements * batch * 2 * (double_ ? sizeof(double) : sizeof(float));
      const cudaError_t status = cudaMalloc(&input_copy_, input_copy_bytes_);
      device_bytes_ += input_copy_bytes_;
      if (status != cudaSuccess) {
        cufftDestroy(plan_);
        check_cuda(status, "cudaMalloc");
      }
    }
  }
  ~CufftTransform() {
    cufftDestroy(plan_);
    if (input_copy_) cudaFree(input_copy_);
  }
  CufftTransform(const CufftTransform&) = delete;
  CufftTransform& operator=(const CufftTransform&) = delete;

  std::size_t device_bytes() const { return device_bytes_; }

  void execute(const void* in, void* out, cudaStream_t stream) {
    check_cufft(cufftSetStream(plan_, stream), "cufftSetStream");
    void* source = const_cast<void*>(in);
    if (transform_ == Transform::c2r && input_copy_) {
      check_cuda(cudaMemcpyAsync(input_copy_, in, input_copy_bytes_, cudaMemcpyDeviceToDevice, stream),
                 "cudaMemcpyAsync");
      source = input_copy_;
    }
    if (double_) {
      execute_double(source, out);
      return;
    }
    switch (transform_) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse:
        check_cufft(cufftExecC2C(plan_, static_cast<cufftComplex*>(source), static_cast<cufftComplex*>(out),
                                 transform_ == Transform::c2c_forward ? CUFFT_FORWARD : CUFFT_INVERSE),
                    "cufftExecC2C");
        break;
      case Transform::r2c:
        check_cufft(cufftExecR2C(plan_, static_cast<cufftReal*>(source), static_cast<cufftComplex*>(out)),
                    "cufftExecR2C");
        break;
      case Transform::c2r:
        check_cufft(cufftExecC2R(plan_, static_cast<cufftComplex*>(source), static_cast<cufftReal*>(out)),
                    "cufftExecC2R");
        break;
    }
  }

 private:
  void execute_double(void* source, void* out) {
    switch (transform_) {
      case Transform::c2c_forward:
      case Transform::c2c_inverse:
        check_cufft(cufftExecZ2Z(plan_, static_cast<cufftDoubleComplex*>(source), static_cast<cufftDoubleComplex*>(out),
                                 transform_ == Transform::c2c_forward ? CUFFT_FORWARD : CUFFT_INVERSE),
                    "cufftExecZ2Z");
        break;
      case Transform::r2c:
        check_cufft(cufftExecD2Z(plan_, static_cast<cufftDoubleReal*>(source), static_cast<cufftDoubleComplex*>(out)),
                    "cufftExecD2Z");
        break;
      case Transform::c2r:
        check_cufft(cufftExecZ2D(plan_, static_cast<cufftDoubleComplex*>(source), static_cast<cufftDoubleReal*>(out)),
                    "cufftExecZ2D");
        break;
    }
  }

  Transform transform_;
  bool double_;
  cufftHandle plan_ = 0;
  void* input_copy_ = nullptr;
  std::size_t input_copy_bytes_ = 0;
  std::size_t device_bytes_ = 0;
};

class CufftPlan final : public Plan {
 public:
  CufftPlan(const PlanSpec& spec, Precision precision) : Plan(spec), transform_(make_transform(spec, precision)) {}
  std::size_t device_bytes() const override { return transform_.device_bytes(); }
  void execute(const void* in, void* out, std::size_t, Stream stream) override {
    transform_.execute(in, out, static_cast<cudaStream_t>(stream));
  }

 private:
  static CufftTransform make_transform(const PlanSpec& spec, Precision precision) {
    if (spec.n == 0 || spec.batch == 0) throw std::invalid_argument("cuFFT: empty transform");
    if (spec.n > (1ull << 30)) throw std::invalid_argument("cuFFT: length too large");
    return CufftTransform({static_cast<int>(spec.n)}, spec.transform, precision, spec.batch,
                          static_cast<std::size_t>(gpu::input_row_length(spec)),
                          static_cast<std::size_t>(gpu::output_row_length(spec)), spec.in_place);
  }
  CufftTransform transform_;
};

class CufftNdPlan final : public NdPlan {
 public:
  CufftNdPlan(const NdPlanSpec& spec, Precision precision)
      : NdPlan(spec), transform_(make_transform(spec, precision)) {}
  std::size_t device_bytes() const override { return transform_.device_bytes(); }
  void execute(const void* in, void* out, std::size_t count, Stream stream) override {
    if (count == 0) return;
    if (in == static_cast<const void*>(out))
      throw std::invalid_argument("a multi-dimensional FFT plan runs out of place only");
    transform_.execute(in, out, static_cast<cudaStream_t>(stream));
  }

 private:
  static CufftTransform make_transform(const NdPlanSpec& spec, Precision precision) {
    // cufftPlanMany takes int lengths and distances between arrays.
    check_nd_spec(spec, static_cast<std::size_t>(INT32_MAX / 2));
    if (spec.batch > static_cast<std::size_t>(INT32_MAX))
      throw std::invalid_argument("cuFFT: a batch of " + std::to_string(spec.batch) + " arrays is above its int");
    // The unit lengths dropped, as for our backend: the layout is the same without them.
    const std::vector<std::size_t> shape = nd_effective_shape(spec);
    return CufftTransform(std::vector<int>(shape.begin(), shape.end()), spec.transform, precision, spec.batch,
                          nd_input_elements(spec), nd_output_elements(spec), false);
  }
  CufftTransform transform_;
};

class CufftBackend final : public Backend {
 public:
  explicit CufftBackend(Precision precision) : precision_(precision) {}
  BackendKind kind() const override { return BackendKind::cufft; }
  Precision precision() const override { return precision_; }
  bool device_memory() const override { return true; }
  std::unique_ptr<Plan> plan(const PlanSpec& spec) override { return std::make_unique<CufftPlan>(spec, precision_); }
  std::unique_ptr<NdPlan> plan_nd(const NdPlanSpec& spec) override {
    return std::make_unique<CufftNdPlan>(spec, precision_);
  }
  std::string describe() const override {
    int version = 0;
    cufftGetVersion(&version);
    return "cuFFT " + std::to_string(version) +
           (precision_ == Precision::float64 ? " (double precision)" : " (single precision)");
  }

 private:
  Precision precision_;
};

}  // namespace

std::unique_ptr<Backend> make_cufft_backend(Precision precision) { return std::make_unique<CufftBackend>(precision); }

}  // namespace prism::fft
