// The few CUDA runtime calls the graph itself makes — device memory for chunk pools, streams and
// events that order the stages' work, asynchronous copies for the transfer stages — behind plain
// C++ types, so that the core builds without a CUDA compiler. In a build without the CUDA runtime
// every call throws CudaError saying so; gpu::runtime_built() tells beforehand.
//
// Ordering, the one rule of the graph's GPU edges: a producer records its chunk's `ready` event
// on its stream after the work that writes the chunk; a GPU consumer makes its own stream wait
// on that event (never the host), a host consumer waits for it on the host. A GPU consumer that
// is done enqueuing its reads records a `released` event, which the next producer of that chunk
// waits for before writing it again.
#pragma once

#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace prism {

// A failed CUDA runtime (or cuFFT) call: "cudaMalloc (1024 MiB): out of memory (device 0)".
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace gpu {

using Stream = void*;  // cudaStream_t
using Event = void*;   // cudaEvent_t

// Whether this build has the CUDA runtime at all (not whether a device is present).
bool runtime_built();
// Number of CUDA devices usable now; 0 without a driver, a device or the runtime.
int device_count();

// Graph captures and the device-wide calls, one thread at a time. A CUDA graph capture on one
// thread is invalidated when another thread meanwhile synchronises the whole device, or makes a
// call that may do so (allocating or freeing device or pinned memory), and that call fails
// ("operation not permitted when stream is capturing"); a batch on the GPU runs several graphs
// at once. The GPU stages hold this lock while they set up (allocate, upload, capture) and
// release, and device_alloc, device_free and the pinned host buffers take it; it is recursive,
// so a set-up may allocate through them.
std::unique_lock<std::recursive_mutex> lock_device_wide_calls();

void set_device(int device);
int current_device();  // the calling thread's current device
Stream create_stream(int device);  // non-blocking with respect to the legacy default stream
void destroy_stream(Stream stream) noexcept;
Event create_event(int device);    // without timing: the cheapest kind to record and wait on
void destroy_event(Event event) noexcept;
void record(Event event, Stream stream);
void stream_wait(Stream stream, Event event);  // the stream waits; the host does not
void host_wait(Event event);                   // the host waits for the event
void host_wait_stream(Stream stream);          // the host waits for all the stream's work

void* device_alloc(std::size_t bytes, int device, std::string_view what);
void device_free(void* pointer) noexcept;
// Asynchronous copy in either direction (host memory should be pinned for it to overlap).
void copy_async(void* destination, const void* source, std::size_t bytes, Stream stream, int device);
// Fault injection for tests: PRISM_CUDA_FAULT=KIND@N lets N CUDA calls of that kind in the process
// succeed and makes the next fail as a failing GPU would, its error saying so. Kinds: copy (cudaMemcpy*, cudaMemset*),
// launch (kernel and CUDA-graph launches), sync (the host waiting for a stream or an event), event
// (recording an event, a stream waiting for one), fft (cuFFT's calls); and alloc, the GPU stages'
// own: their process() call after N (0-based: the N-th) attempts an impossible allocation. The checks of CUDA calls ask
// here with the call's name as they write it ("cudaMemcpyAsync", "fused_kernel launch") after a
// call that succeeded: the text to add to the error ("fault injected by PRISM_CUDA_FAULT=copy@3")
// when this call is the one to fail, else empty. An unknown KIND or a bad N is a UsageError.
std::string injected_fault(std::string_view call);
// The kind a call of this name counts as ("copy", "launch", "sync", "event", "fft"; empty for
// calls no kind covers: device selection, creating streams and events, allocations).
std::string_view fault_kind_of(std::string_view call);
// alloc@N: N, the GPU stages' process() call (0-based) that attempts an impossible allocation;
// -1 without it. Unlike the call-site kinds (read once per process, their counts process-wide),
// it is read each time a GPU stage is made, which asks here, so one stage can be made to fail.
long long injected_alloc_call();

// The device whose memory `pointer` points into (cudaMalloc, cudaMallocAsync or managed memory),
// or -1 for host memory, pinned or not.
int device_of(const void* pointer);

}  // namespace gpu
}  // namespace prism
