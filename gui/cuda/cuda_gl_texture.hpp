// CudaGlTexture: writes rows of the waterfall's GL texture straight from device memory (CUDA–
// OpenGL interop), so that on a GPU backend display lines go from the CUDA engine to the
// texture without a trip through host memory. The texture is registered with CUDA once per
// allocation (WaterfallTexture::reset gives it new storage: register again after it), mapped
// around each frame's copies, and written by device-to-array copies on a stream of its own.
// The render thread does not wait for the copies: on the H200 a wait for them costs ~160 µs a
// frame (the GL/CUDA synchronisation), queueing them ~10 µs (bench/view, bench/RESULTS.md).
// Everything here runs on the render thread, with its GL context current.
#pragma once

#include <cstddef>
#include <memory>

#include "gui/gl_api.hpp"

namespace prism::view {

class CudaGlTexture {
 public:
  // How the rows reach the texture:
  //   pixel_buffer   device-to-device copies into a GL pixel buffer registered with CUDA, then
  //                  glTexSubImage2D from that buffer (a copy inside the GPU);
  //   texture_array  device-to-array copies straight into the texture, mapped as a CUDA array.
  enum class Path { pixel_buffer, texture_array };

  // Registers `texture` (GL_TEXTURE_2D, R32F, columns × history_rows, with storage) or a pixel
  // buffer for it with CUDA device `device`. Throws std::runtime_error with the reason when
  // CUDA or the GL driver refuse (a GL that does not run on that GPU, such as Mesa's software
  // renderer, cannot share with CUDA).
  CudaGlTexture(GLuint texture, std::size_t columns, std::size_t history_rows, int device,
                Path path = Path::texture_array);
  ~CudaGlTexture();  // unregisters
  CudaGlTexture(const CudaGlTexture&) = delete;
  CudaGlTexture& operator=(const CudaGlTexture&) = delete;

  // Queues the copies of rows[i] (device memory, columns floats each; count <= history_rows)
  // into texture row (first_row + i) % history_rows, and returns without waiting for them: GL
  // work issued afterwards sees the rows (the unmap orders it after the copies). The sources
  // must stay as they are until copies_done(). Throws std::runtime_error naming the call.
  void write_rows(const float* const* rows, std::size_t count, std::size_t first_row);
  // Whether every copy queued so far has read its source (never blocks).
  bool copies_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prism::view
