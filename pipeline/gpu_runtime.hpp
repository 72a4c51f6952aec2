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

void set_device(int device);
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
// The device whose memory `pointer` points into (cudaMalloc, cudaMallocAsync or managed memory),
// or -1 for host memory, pinned or not.
int device_of(const void* pointer);

}  // namespace gpu
}  // namespace prism
