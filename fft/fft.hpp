// The FFT interface every backend implements: FFTW on the CPU, cuFFT and our own CUDA kernels
// on the GPU. Plan once (planning may allocate, measure and build tables), execute many times
// (execute never allocates and never synchronises the device).
//
// Layout: `batch` transforms of length n, contiguous (transform k starts at element k·n of
// the input; for r2c, output transform k starts at element k·(n/2+1); the reverse for c2r).
// Real data is float (double for a float64 backend, Backend::precision()); complex data is
// interleaved pairs (re, im) of the same type. Transforms are unnormalised, as FFTW and
// cuFFT: forward then inverse multiplies by n.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace prism::fft {

enum class Transform {
  c2c_forward,  // complex -> complex, e^{-2πi jk/n}
  c2c_inverse,  // complex -> complex, e^{+2πi jk/n}
  r2c,          // real n -> complex n/2+1 (forward)
  c2r,          // complex n/2+1 -> real n (inverse)
};

struct PlanSpec {
  std::size_t n = 0;      // transform length, >= 1
  std::size_t batch = 1;  // transforms per execute, >= 1
  Transform transform = Transform::c2c_forward;
  bool in_place = false;  // in == out at execute (r2c/c2r in place need padded real rows)
};

// Elements (reals for real data, complex pairs for complex data) of one transform's input and
// output rows in the contiguous layout.
std::size_t input_row_elements(const PlanSpec& spec);
std::size_t output_row_elements(const PlanSpec& spec);

// Where execute() runs: a CUDA stream for GPU backends (cudaStream_t, cast), ignored on the CPU.
using Stream = void*;

class Plan {
 public:
  virtual ~Plan() = default;
  const PlanSpec& spec() const { return spec_; }

  // Transforms the first `count` transforms of the batch (count <= spec().batch; buffers are
  // always sized for the whole batch, and a backend may compute all of them). `in` and `out`
  // are host pointers for CPU backends, device pointers for GPU backends. CPU plans may be
  // executed from several threads at once on disjoint buffers. Never allocates. A row's result
  // may differ at float rounding with its neighbours in the batch: our GPU backend computes the
  // r2c / c2r of lengths without a half-length split two real rows per complex transform.
  virtual void execute(const void* in, void* out, std::size_t count, Stream stream = nullptr) = 0;
  void execute(const void* in, void* out, Stream stream = nullptr) {
    execute(in, out, spec_.batch, stream);
  }

  // Device memory the plan holds (tables, scratch, work areas); 0 for CPU plans.
  virtual std::size_t device_bytes() const { return 0; }

 protected:
  explicit Plan(PlanSpec spec) : spec_(spec) {}

 private:
  PlanSpec spec_;
};

// Multi-dimensional transforms: `batch` arrays of shape[0] × … × shape[k-1] elements (k = 1, 2
// or 3), row-major (the last dimension contiguous), each transformed along every dimension; array
// b starts at element b·(elements of one array). r2c takes real arrays of the shape to complex
// arrays of shape[0] × … × (shape[k-1]/2+1) (FFTW's, cuFFT's and numpy.fft.rfftn's layout); c2r
// the reverse. Unnormalised as the 1-D transforms. Out of place only, and the input is kept.
struct NdPlanSpec {
  std::vector<std::size_t> shape;  // lengths, outermost first; each >= 1
  std::size_t batch = 1;           // arrays per execute, >= 1
  Transform transform = Transform::c2c_forward;
};

// Inline, as the planner of fft/cuda (a library below this interface's) uses them too.
// Elements (reals or complex pairs, as for the 1-D rows) of one array's input and output.
inline std::size_t nd_array_elements(const NdPlanSpec& spec, bool half_last) {
  std::size_t count = 1;
  for (std::size_t i = 0; i < spec.shape.size(); ++i)
    count *= half_last && i + 1 == spec.shape.size() ? spec.shape[i] / 2 + 1 : spec.shape[i];
  return count;
}
inline std::size_t nd_input_elements(const NdPlanSpec& spec) {
  return nd_array_elements(spec, spec.transform == Transform::c2r);
}
inline std::size_t nd_output_elements(const NdPlanSpec& spec) {
  return nd_array_elements(spec, spec.transform == Transform::r2c);
}
// "256x256x64".
inline std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string text;
  for (std::size_t length : shape) {
    if (!text.empty()) text += 'x';
    text += std::to_string(length);
  }
  return text;
}
// The lengths a GPU plan transforms along: unit lengths change nothing but the count of axes,
// so c2c drops them (keeping one where every length is 1) and r2c and c2r drop all but the last,
// their real axis.
inline std::vector<std::size_t> nd_effective_shape(const NdPlanSpec& spec) {
  const bool real = spec.transform == Transform::r2c || spec.transform == Transform::c2r;
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < spec.shape.size(); ++i)
    if (spec.shape[i] != 1 || (real && i + 1 == spec.shape.size())) lengths.push_back(spec.shape[i]);
  if (lengths.empty()) lengths.push_back(1);
  return lengths;
}
// Throws std::invalid_argument naming what is wrong: a rank other than 1 to 3, a length or batch
// of 0, or an array of more than `max_elements` elements.
inline void check_nd_spec(const NdPlanSpec& spec, std::size_t max_elements) {
  if (spec.shape.empty() || spec.shape.size() > 3)
    throw std::invalid_argument("a multi-dimensional FFT takes 1 to 3 dimensions, not " +
                                std::to_string(spec.shape.size()));
  if (spec.batch < 1) throw std::invalid_argument("FFT batch must be at least 1");
  std::size_t elements = 1;
  for (std::size_t length : spec.shape) {
    if (length < 1) throw std::invalid_argument("FFT shape " + shape_text(spec.shape) + " has a length of 0");
    if (length > max_elements / elements)
      throw std::invalid_argument("FFT shape " + shape_text(spec.shape) + " has more than " +
                                  std::to_string(max_elements) + " elements per array");
    elements *= length;
  }
}

// A plan holds work areas of its own (the GPU's scratch arrays, the CPU c2r's copy of its input),
// so one plan runs one execute at a time: on the GPU, executes on one stream or otherwise
// ordered; on the CPU, not from two threads at once.
class NdPlan {
 public:
  virtual ~NdPlan() = default;
  const NdPlanSpec& spec() const { return spec_; }
  // Transforms the first `count` arrays of the batch (count <= spec().batch). Buffers are sized
  // for the whole batch, and the output arrays past `count` may be written too (a backend may
  // compute all of them, from whatever the input holds there). Never allocates.
  virtual void execute(const void* in, void* out, std::size_t count, Stream stream = nullptr) = 0;
  void execute(const void* in, void* out, Stream stream = nullptr) { execute(in, out, spec_.batch, stream); }
  virtual std::size_t device_bytes() const { return 0; }

 protected:
  explicit NdPlan(NdPlanSpec spec) : spec_(std::move(spec)) {}

 private:
  NdPlanSpec spec_;
};

enum class BackendKind { cpu, cuda, cufft, automatic };

// The real type of a backend's data: float (every backend) or double (make_cpu_backend's FFTW
// double, and make_cuda_backend and make_cufft_backend of fft/cuda/cuda_backends.hpp).
enum class Precision { float32, float64 };

// "cpu", "cuda", "cufft", "auto".
std::string_view backend_name(BackendKind kind);
// Throws UsageError listing the choices when the name is unknown.
BackendKind parse_backend(std::string_view name);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual Precision precision() const { return Precision::float32; }
  // Where its buffers live: false for host memory (CPU), true for device memory (GPU).
  virtual bool device_memory() const = 0;
  // Makes a plan; throws std::invalid_argument for a spec the backend cannot do.
  virtual std::unique_ptr<Plan> plan(const PlanSpec& spec) = 0;
  // A multi-dimensional plan; throws std::invalid_argument for a spec the backend cannot do.
  virtual std::unique_ptr<NdPlan> plan_nd(const NdPlanSpec& spec) = 0;
  // e.g. "FFTW 3.3.10 (single precision)".
  virtual std::string describe() const = 0;
};

// The CPU backend: FFTW in single precision (fftwf), or in double precision (fftw).
std::unique_ptr<Backend> make_cpu_backend(Precision precision = Precision::float32);

// Whether a backend kind exists in this build and on this machine (a GPU backend needs a CUDA
// build and a device), with the reason when it does not.
struct Availability {
  bool available = false;
  std::string reason;
};
Availability backend_availability(BackendKind kind);

// The backend `kind` resolves to: automatic picks a GPU backend when one is available and the
// CPU otherwise. Throws std::runtime_error with the reason when the requested kind is not
// available ("cuda is not available: ..."; the caller says which setting asked for it).
BackendKind resolve_backend(BackendKind kind);

}  // namespace prism::fft
