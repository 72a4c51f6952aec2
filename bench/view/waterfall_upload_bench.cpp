// waterfall_upload_bench: what it costs the render thread to put one frame's new display lines
// into the waterfall texture, three ways, in a headless OpenGL context (EGL) on a CUDA device:
//   host     lines already in host memory, glTexSubImage2D (the CPU backend's way);
//   via host lines in device memory copied to the host, then glTexSubImage2D (a GPU backend
//            without interop);
//   interop (pixel buffer)   lines in device memory copied by CUDA into a GL pixel buffer,
//            then glTexSubImage2D from it (CudaGlTexture's default);
//   interop (texture array)  lines in device memory copied by CUDA straight into the texture
//            mapped as a CUDA array.
// Per frame: the render thread's time in the call (median), and the time until GL has done the
// work too (glFinish; median, p95, and per line), for 8192-column lines at 100 and 1000 lines/s at 60 frames/s
// (2 and 17 lines per frame) and a burst of 256.
//
//   waterfall_upload_bench [--frames N] [--columns C]
#include "gui/gl_api.hpp"  // before cuda_gl_interop.h, which needs GL

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gui/cuda/cuda_gl_texture.hpp"
#include "gui/gl_api.hpp"
#include "gui/headless_gl.hpp"
#include "gui/waterfall_renderer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double median_us = 0, p95_us = 0;
};

Stats stats(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[us.size() * 95 / 100]};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace prism::view;
  int frames = 600;
  std::size_t columns = 8192;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--frames" && i + 1 < argc) frames = std::max(20, std::atoi(argv[++i]));
    else if (a == "--columns" && i + 1 < argc) columns = static_cast<std::size_t>(std::max(16, std::atoi(argv[++i])));
    else {
      std::fprintf(stderr, "usage: waterfall_upload_bench [--frames N] [--columns C]\n");
      return 2;
    }
  }
  std::string why;
  auto gl = HeadlessGlContext::create(&why);
  if (!gl) {
    std::fprintf(stderr, "waterfall_upload_bench: no headless OpenGL context: %s\n", why.c_str());
    return 77;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "waterfall_upload_bench: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device %s, OpenGL renderer %s, %zu columns, %d frames per figure\n", prop.name, gl->renderer().c_str(),
              columns, frames);

  constexpr std::size_t kHistory = 1024, kRing = 2048;
  WaterfallTexture texture;
  texture.reset(columns, kHistory);
  CudaGlTexture via_buffer(texture.texture(), columns, kHistory, 0, CudaGlTexture::Path::pixel_buffer);
  CudaGlTexture via_array(texture.texture(), columns, kHistory, 0, CudaGlTexture::Path::texture_array);
  std::vector<float> host(kRing * columns);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 997) * 0.1f - 90.0f;
  float* ring = nullptr;
  float* pinned = nullptr;
  if (cudaMalloc(&ring, host.size() * sizeof(float)) != cudaSuccess ||
      cudaMallocHost(&pinned, host.size() * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "waterfall_upload_bench: cannot allocate the line ring\n");
    return 1;
  }
  cudaMemcpy(ring, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);

  std::printf("%-24s %8s %14s %14s %14s %14s\n", "way", "lines", "call us", "to GL done us", "p95 us", "us/line");
  for (const std::size_t lines : {std::size_t{2}, std::size_t{17}, std::size_t{256}}) {
    for (const char* way : {"host", "via host", "interop (pixel buffer)", "interop (texture array)"}) {
      std::vector<double> us, call_us;
      std::size_t next = 0;
      std::vector<const float*> rows(lines);
      for (int f = 0; f < frames + 10; ++f) {
        if (next + lines > kRing) next = 0;
        const auto start = Clock::now();
        if (std::strncmp(way, "interop", 7) == 0) {
          for (std::size_t i = 0; i < lines; ++i) rows[i] = ring + (next + i) * columns;
          (std::strstr(way, "buffer") != nullptr ? via_buffer : via_array).write_rows(rows.data(), lines, texture.head());
          texture.advance(lines);
        } else if (std::strcmp(way, "via host") == 0) {
          cudaMemcpy(pinned + next * columns, ring + next * columns, lines * columns * sizeof(float),
                     cudaMemcpyDeviceToHost);
          texture.upload_rows(pinned + next * columns, lines);
        } else {
          texture.upload_rows(host.data() + next * columns, lines);
        }
        const auto called = Clock::now();
        glFinish();
        const double t = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        if (f >= 10) {
          us.push_back(t);
          call_us.push_back(std::chrono::duration<double, std::micro>(called - start).count());
        }
        if (std::strncmp(way, "interop", 7) == 0)  // the ring's slots are reused: the copies must be done
          while (!(std::strstr(way, "buffer") != nullptr ? via_buffer : via_array).copies_done()) {}
        next += lines;
      }
      const Stats s = stats(us), c = stats(call_us);
      std::printf("%-24s %8zu %14.1f %14.1f %14.1f %14.2f\n", way, lines, c.median_us, s.median_us, s.p95_us,
                  s.median_us / static_cast<double>(lines));
    }
  }
  // Where interop's time goes: each step of one frame of 17 lines into a registered pixel buffer.
  {
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(17 * columns * sizeof(float)), nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    cudaGraphicsResource_t resource = nullptr;
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (cudaGraphicsGLRegisterBuffer(&resource, buffer, cudaGraphicsRegisterFlagsWriteDiscard) == cudaSuccess) {
      std::vector<double> map_us, copy_us, unmap_us, wait_us;
      for (int f = 0; f < frames + 10; ++f) {
        const auto t0 = Clock::now();
        cudaGraphicsMapResources(1, &resource, stream);
        const auto t1 = Clock::now();
        void* p = nullptr;
        std::size_t size = 0;
        cudaGraphicsResourceGetMappedPointer(&p, &size, resource);
        cudaMemcpyAsync(p, ring, 17 * columns * sizeof(float), cudaMemcpyDeviceToDevice, stream);
        const auto t2 = Clock::now();
        cudaGraphicsUnmapResources(1, &resource, stream);
        const auto t3 = Clock::now();
        cudaStreamSynchronize(stream);
        const auto t4 = Clock::now();
        glFinish();
        if (f < 10) continue;
        auto us = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); };
        map_us.push_back(us(t0, t1));
        copy_us.push_back(us(t1, t2));
        unmap_us.push_back(us(t2, t3));
        wait_us.push_back(us(t3, t4));
      }
      std::printf("interop steps, 17 lines into a pixel buffer (median us): map %.1f, queue copy %.1f, unmap %.1f, wait %.1f\n",
                  stats(map_us).median_us, stats(copy_us).median_us, stats(unmap_us).median_us, stats(wait_us).median_us);
      cudaGraphicsUnregisterResource(resource);
    }
    cudaStreamDestroy(stream);
    glDeleteBuffers(1, &buffer);
  }
  if (glGetError() != GL_NO_ERROR) {
    std::fprintf(stderr, "waterfall_upload_bench: a GL call failed\n");
    return 1;
  }
  cudaFree(ring);
  cudaFreeHost(pinned);
  return 0;
}
