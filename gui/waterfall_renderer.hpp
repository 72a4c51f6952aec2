// The waterfall on the GPU: a ring texture of dB values (one texture row per display line,
// written a row at a time, never shifted) and the shader that colours it. The fragment shader
// maps dB to colour through a 256-entry colormap texture, so a new dB range or colormap
// recolours the whole history in the next frame, at no cost. Each screen pixel shows the
// maximum of the texture columns it covers, so a one-bin tone never falls between pixels.
//
// Contents: WaterfallTexture (the ring, written from host memory or, on a GPU backend, from device
// memory through CUDA–OpenGL interop) ·
// WaterfallRenderer (program, colormap texture, draw calls for the waterfall and colour bar).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gui/gl_api.hpp"
#include "sinks/colormap.hpp"

namespace prism::view {

// A rectangle in framebuffer pixels, origin at the bottom left (OpenGL's convention).
struct GlRect {
  int x = 0, y = 0, width = 0, height = 0;
};

class WaterfallTexture {
 public:
  WaterfallTexture();
  ~WaterfallTexture();
  WaterfallTexture(const WaterfallTexture&) = delete;
  WaterfallTexture& operator=(const WaterfallTexture&) = delete;

  // (Re)allocates columns × history_rows of R32F and forgets the history. The same texture
  // object is reused, so resizing allocates no new GL names.
  void reset(std::size_t columns, std::size_t history_rows);

  // `count` rows of columns() dB values from host memory, into the ring after the newest row
  // (glTexSubImage2D, at most two calls when the ring wraps). On a GPU backend the rows are
  // written from device memory instead (CudaGlTexture, gui/cuda) and advance() records them.
  void upload_rows(const float* rows, std::size_t count);
  // `count` rows were written after the newest row by other means: move the ring on.
  void advance(std::size_t count);

  GLuint texture() const { return texture_; }
  std::size_t columns() const { return columns_; }
  std::size_t history_rows() const { return history_rows_; }
  std::size_t head() const { return head_; }      // the ring row the next line goes to
  std::size_t filled() const { return filled_; }  // rows holding data, <= history_rows

 private:
  GLuint texture_ = 0;
  std::size_t columns_ = 0, history_rows_ = 0, head_ = 0, filled_ = 0;
};

class WaterfallRenderer {
 public:
  WaterfallRenderer();  // compiles the program; throws std::runtime_error with the GL log
  ~WaterfallRenderer();
  WaterfallRenderer(const WaterfallRenderer&) = delete;
  WaterfallRenderer& operator=(const WaterfallRenderer&) = delete;

  void set_colormap(const ColormapTable& table);

  // Draws the newest `visible_rows` lines of `texture` into `rect`, newest at the top, columns
  // [u_low, u_high) (fractions of the texture width) across the rect's width.
  void draw_waterfall(const WaterfallTexture& texture, const GlRect& rect, double u_low, double u_high,
                      std::size_t visible_rows, float db_min, float db_max);
  // A vertical colour bar: db_min at the bottom, db_max at the top.
  void draw_colorbar(const GlRect& rect);

 private:
  GLuint program_ = 0, vertex_array_ = 0, colormap_texture_ = 0;
  GLint u_values_ = -1, u_colormap_ = -1, u_mode_ = -1, u_u_range_ = -1, u_db_range_ = -1,
        u_ring_ = -1, u_pixels_ = -1;
};

}  // namespace prism::view
