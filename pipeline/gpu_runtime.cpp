// The CUDA runtime calls of the graph's core (see gpu_runtime.hpp); without the runtime, each
// call throws CudaError saying so.
#include "pipeline/gpu_runtime.hpp"

#include <atomic>
#include <cstdlib>

#include "pipeline/errors.hpp"

#if PRISM_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

namespace prism::gpu {

namespace {

// A PRISM_CUDA_FAULT setting: KIND@N, or nothing.
struct FaultSetting {
  std::string kind;  // empty: no fault
  unsigned long long call = 0;
  std::string text;
};

FaultSetting parse_fault_setting(const char* value) {
  FaultSetting parsed;
  if (value == nullptr || *value == '\0') return parsed;
  const std::string setting = value;
  const std::size_t at = setting.find('@');
  const std::string name = setting.substr(0, std::min(at, setting.size()));
  const std::string count = at == std::string::npos ? "" : setting.substr(at + 1);
  const bool known = name == "alloc" || name == "copy" || name == "launch" || name == "sync" ||
                     name == "event" || name == "fft";
  if (!known || count.empty() || count.size() > 18 || count.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("PRISM_CUDA_FAULT='" + setting +
                     "': KIND@N, KIND one of alloc, copy, launch, sync, event, fft and N a call's number");
  parsed.kind = name;
  parsed.call = std::stoull(count);
  parsed.text = "fault injected by PRISM_CUDA_FAULT=" + setting;
  return parsed;
}

// The call-site kinds count calls across the whole process, so their setting is read once; alloc
// is the GPU stages' own and is read when each stage is made.
struct FaultPlan {
  FaultSetting setting;
  std::atomic<unsigned long long> seen{0};

  FaultPlan() : setting(parse_fault_setting(std::getenv("PRISM_CUDA_FAULT"))) {
    if (setting.kind == "alloc") setting = {};
  }
};

FaultPlan& fault_plan() {
  static FaultPlan plan;
  return plan;
}

}  // namespace

std::unique_lock<std::recursive_mutex> lock_device_wide_calls() {
  static std::recursive_mutex mutex;
  return std::unique_lock(mutex);
}

std::string_view fault_kind_of(std::string_view call) {
  const auto starts = [&](std::string_view prefix) { return call.substr(0, prefix.size()) == prefix; };
  if (starts("cudaMemcpy") || starts("cudaMemset")) return "copy";
  if (starts("cudaGraphLaunch") || call.ends_with(" launch")) return "launch";
  if (starts("cudaStreamSynchronize") || starts("cudaEventSynchronize") || starts("cudaDeviceSynchronize"))
    return "sync";
  if (starts("cudaEventRecord") || starts("cudaStreamWaitEvent")) return "event";
  if (starts("cufft")) return "fft";
  return {};
}

long long injected_alloc_call() {
  const FaultSetting setting = parse_fault_setting(std::getenv("PRISM_CUDA_FAULT"));
  return setting.kind == "alloc" ? static_cast<long long>(setting.call) : -1;
}

std::string injected_fault(std::string_view call) {
  FaultPlan& plan = fault_plan();
  if (plan.setting.kind.empty() || fault_kind_of(call) != plan.setting.kind) return {};
  // N calls of the kind succeed; the next fails, once.
  return plan.seen.fetch_add(1, std::memory_order_relaxed) == plan.setting.call ? plan.setting.text : std::string{};
}

#if PRISM_HAVE_CUDART

namespace {

void check(cudaError_t status, std::string_view call, int device) {
  std::string fault;
  if (status == cudaSuccess) {
    fault = injected_fault(call);
    if (fault.empty()) return;
    status = cudaErrorLaunchFailure;
  }
  cudaGetLastError();  // clear a non-sticky error so that clean-up calls still run
  throw CudaError(std::string(call) + ": " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) +
                  ", device " + std::to_string(device) + ")" + (fault.empty() ? "" : " (" + fault + ")"));
}

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

bool runtime_built() { return true; }

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void set_device(int device) { check(cudaSetDevice(device), "cudaSetDevice", device); }

int current_device() {
  int device = 0;
  cudaGetDevice(&device);
  return device;
}

Stream create_stream(int device) {
  set_device(device);
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate", device);
  return stream;
}

void destroy_stream(Stream stream) noexcept {
  if (stream != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

Event create_event(int device) {
  set_device(device);
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate", device);
  return event;
}

void destroy_event(Event event) noexcept {
  if (event != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void record(Event event, Stream stream) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)), "cudaEventRecord",
        current_device());
}

void stream_wait(Stream stream, Event event) {
  check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0),
        "cudaStreamWaitEvent", current_device());
}

void host_wait(Event event) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize", current_device());
}

void host_wait_stream(Stream stream) {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize", current_device());
}

void* device_alloc(std::size_t bytes, int device, std::string_view what) {
  const auto lock = lock_device_wide_calls();
  set_device(device);
  void* pointer = nullptr;
  check(cudaMalloc(&pointer, bytes), "cudaMalloc (" + std::string(what) + ", " + mib(bytes) + ")", device);
  return pointer;
}

void device_free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  const auto lock = lock_device_wide_calls();
  cudaFree(pointer);
}

void copy_async(void* destination, const void* source, std::size_t bytes, Stream stream, int device) {
  check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)),
        "cudaMemcpyAsync", device);
}

int device_of(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();  // a pointer the runtime does not know is host memory
    return -1;
  }
  const bool device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return device ? attributes.device : -1;
}

#else  // no CUDA runtime in this build

namespace {
[[noreturn]] void unavailable(std::string_view call) {
  throw CudaError(std::string(call) + ": this prism was built without the CUDA runtime");
}
}  // namespace

bool runtime_built() { return false; }
int device_count() { return 0; }
void set_device(int) { unavailable("cudaSetDevice"); }
int current_device() { unavailable("cudaGetDevice"); }
Stream create_stream(int) { unavailable("cudaStreamCreate"); }
void destroy_stream(Stream) noexcept {}
Event create_event(int) { unavailable("cudaEventCreate"); }
void destroy_event(Event) noexcept {}
void record(Event, Stream) { unavailable("cudaEventRecord"); }
void stream_wait(Stream, Event) { unavailable("cudaStreamWaitEvent"); }
void host_wait(Event) { unavailable("cudaEventSynchronize"); }
void host_wait_stream(Stream) { unavailable("cudaStreamSynchronize"); }
void* device_alloc(std::size_t, int, std::string_view) { unavailable("cudaMalloc"); }
void device_free(void*) noexcept {}
void copy_async(void*, const void*, std::size_t, Stream, int) { unavailable("cudaMemcpyAsync"); }
int device_of(const void*) { unavailable("cudaPointerGetAttributes"); }

#endif

}  // namespace prism::gpu
