// HeadlessGlContext: an OpenGL 3.3 core context without a window or X server (EGL on a device
// display, or EGL's default display), current on the calling thread. For the tests and the
// benchmark of the waterfall texture on machines without a display; on an NVIDIA GPU this is
// the driver's own GL, which shares textures with CUDA.
#pragma once

#include <memory>
#include <string>

namespace prism::view {

class HeadlessGlContext {
 public:
  // A current context with a small pbuffer, or null with the reason in *why_not.
  static std::unique_ptr<HeadlessGlContext> create(std::string* why_not);
  ~HeadlessGlContext();
  HeadlessGlContext(const HeadlessGlContext&) = delete;
  HeadlessGlContext& operator=(const HeadlessGlContext&) = delete;

  std::string renderer() const;  // GL_RENDERER, e.g. "NVIDIA H200/PCIe/SSE2" or "llvmpipe (...)"

 private:
  HeadlessGlContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
};

}  // namespace prism::view
