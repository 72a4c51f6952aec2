// HeadlessGlContext (headless_gl.hpp).
#include "gui/headless_gl.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdio>

#include "gui/gl_api.hpp"

namespace prism::view {

namespace {

// A device display first (no window system at all), then the default display.
EGLDisplay open_display() {
  const auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  const auto platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (query_devices != nullptr && platform_display != nullptr) {
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (query_devices(8, devices, &count)) {
      for (EGLint i = 0; i < count; ++i) {
        EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) return d;
      }
    }
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) return d;
  return EGL_NO_DISPLAY;
}

}  // namespace

std::unique_ptr<HeadlessGlContext> HeadlessGlContext::create(std::string* why_not) {
  auto fail = [why_not](const std::string& reason) -> std::unique_ptr<HeadlessGlContext> {
    if (why_not != nullptr) *why_not = reason + " (EGL error 0x" + [] {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(eglGetError()));
      return std::string(hex);
    }() + ")";
    return nullptr;
  };
  EGLDisplay display = open_display();
  if (display == EGL_NO_DISPLAY) return fail("no EGL display can be opened");
  std::unique_ptr<HeadlessGlContext> gl(new HeadlessGlContext);
  gl->display_ = display;
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (!eglChooseConfig(display, config_attributes, &config, 1, &configs) || configs < 1)
    return fail("no EGL configuration with an OpenGL pbuffer");
  if (!eglBindAPI(EGL_OPENGL_API)) return fail("EGL does not offer desktop OpenGL");
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  gl->context_ = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
  if (gl->context_ == EGL_NO_CONTEXT) return fail("no OpenGL 3.3 core context");
  const EGLint surface_attributes[] = {EGL_WIDTH, 256, EGL_HEIGHT, 256, EGL_NONE};
  gl->surface_ = eglCreatePbufferSurface(display, config, surface_attributes);
  if (gl->surface_ == EGL_NO_SURFACE) return fail("no pbuffer surface");
  if (!eglMakeCurrent(display, gl->surface_, gl->surface_, gl->context_)) return fail("the context cannot be made current");
  return gl;
}

HeadlessGlContext::~HeadlessGlContext() {
  if (display_ == nullptr) return;
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_ != nullptr) eglDestroySurface(display_, surface_);
  if (context_ != nullptr) eglDestroyContext(display_, context_);
  eglTerminate(display_);
}

std::string HeadlessGlContext::renderer() const {
  const auto* text = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return text != nullptr ? text : "";
}

}  // namespace prism::view
