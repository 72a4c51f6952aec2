// CudaGlTexture (cuda_gl_texture.hpp).
#include "gui/cuda/cuda_gl_texture.hpp"

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "pipeline/cuda/cuda_check.hpp"

namespace prism::view {

using cuda::check_cuda;

struct CudaGlTexture::Impl {
  Path path = Path::pixel_buffer;
  int device = 0;
  GLuint texture = 0, pixel_buffer = 0;
  std::size_t columns = 0, history_rows = 0;
  cudaGraphicsResource_t resource = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t copied = nullptr;

  ~Impl() {
    cudaSetDevice(device);
    if (stream != nullptr) cudaStreamSynchronize(stream);
    if (resource != nullptr) cudaGraphicsUnregisterResource(resource);
    if (stream != nullptr) cudaStreamDestroy(stream);
    if (copied != nullptr) cudaEventDestroy(copied);
    if (pixel_buffer != 0) glDeleteBuffers(1, &pixel_buffer);
  }
};

CudaGlTexture::CudaGlTexture(GLuint texture, std::size_t columns, std::size_t history_rows, int device, Path path)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.device = device;
  m.texture = texture;
  m.columns = columns;
  m.history_rows = history_rows;
  check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
  if (path == Path::pixel_buffer) {
    glGenBuffers(1, &m.pixel_buffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m.pixel_buffer);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(columns * history_rows * sizeof(float)), nullptr,
                 GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (glGetError() != GL_NO_ERROR) throw std::runtime_error("CUDA-OpenGL interop: no GL pixel buffer for the waterfall");
    check_cuda(cudaGraphicsGLRegisterBuffer(&m.resource, m.pixel_buffer, cudaGraphicsRegisterFlagsWriteDiscard),
          "CUDA-OpenGL interop: cudaGraphicsGLRegisterBuffer (the waterfall's pixel buffer)", device);
  } else {
    check_cuda(cudaGraphicsGLRegisterImage(&m.resource, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsNone),
          "CUDA-OpenGL interop: cudaGraphicsGLRegisterImage (the waterfall texture)", device);
  }
  check_cuda(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "cudaStreamCreate", device);
  check_cuda(cudaEventCreateWithFlags(&m.copied, cudaEventDisableTiming), "cudaEventCreate", device);
}

CudaGlTexture::~CudaGlTexture() = default;

void CudaGlTexture::write_rows(const float* const* rows, std::size_t count, std::size_t first_row) {
  Impl& m = *impl_;
  if (count == 0) return;
  if (count > m.history_rows) throw std::invalid_argument("CUDA-OpenGL interop: more rows than the texture holds");
  const int device = m.device;
  const std::size_t row_bytes = m.columns * sizeof(float);
  check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
  check_cuda(cudaGraphicsMapResources(1, &m.resource, m.stream), "cudaGraphicsMapResources", device);
  cudaError_t status = cudaSuccess;
  if (m.path == Path::pixel_buffer) {
    // The rows, in order, at the start of the pixel buffer; runs that follow each other in
    // device memory go in one copy.
    void* buffer = nullptr;
    std::size_t size = 0;
    status = cudaGraphicsResourceGetMappedPointer(&buffer, &size, m.resource);
    for (std::size_t i = 0; i < count && status == cudaSuccess;) {
      std::size_t n = 1;
      while (i + n < count && rows[i + n] == rows[i] + n * m.columns) ++n;
      status = cudaMemcpyAsync(static_cast<char*>(buffer) + i * row_bytes, rows[i], n * row_bytes,
                               cudaMemcpyDeviceToDevice, m.stream);
      i += n;
    }
  } else {
    // Straight into the texture's array; runs that follow each other in device memory and do
    // not cross the ring's end go in one two-dimensional copy.
    cudaArray_t array = nullptr;
    status = cudaGraphicsSubResourceGetMappedArray(&array, m.resource, 0, 0);
    for (std::size_t i = 0; i < count && status == cudaSuccess;) {
      const std::size_t y = (first_row + i) % m.history_rows;
      std::size_t n = 1;
      while (i + n < count && y + n < m.history_rows && rows[i + n] == rows[i] + n * m.columns) ++n;
      status = cudaMemcpy2DToArrayAsync(array, 0, y, rows[i], row_bytes, row_bytes, n, cudaMemcpyDeviceToDevice,
                                        m.stream);
      i += n;
    }
  }
  const cudaError_t unmapped = cudaGraphicsUnmapResources(1, &m.resource, m.stream);
  check_cuda(status, "copying display lines for the texture", device);
  check_cuda(unmapped, "cudaGraphicsUnmapResources", device);
  check_cuda(cudaEventRecord(m.copied, m.stream), "cudaEventRecord (texture rows)", device);
  if (m.path == Path::pixel_buffer) {
    // From the pixel buffer into the ring rows: at most two calls when the ring wraps.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m.pixel_buffer);
    glBindTexture(GL_TEXTURE_2D, m.texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    std::size_t done = 0;
    while (done < count) {
      const std::size_t y = (first_row + done) % m.history_rows;
      const std::size_t n = std::min(count - done, m.history_rows - y);
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(y), static_cast<GLsizei>(m.columns),
                      static_cast<GLsizei>(n), GL_RED, GL_FLOAT, reinterpret_cast<const void*>(done * row_bytes));
      done += n;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  }
}

bool CudaGlTexture::copies_done() const {
  cudaSetDevice(impl_->device);
  const cudaError_t status = cudaEventQuery(impl_->copied);
  if (status == cudaErrorNotReady) return false;
  cudaGetLastError();
  return true;  // done, or failed (then nothing is reading the sources any more)
}

}  // namespace prism::view
