// WaterfallTexture and WaterfallRenderer (see waterfall_renderer.hpp).
#include "gui/waterfall_renderer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace prism::view {

namespace {

// One triangle that covers the viewport; uv runs 0..1 across it (bottom left = 0, 0).
constexpr const char* kVertexShader = R"(#version 330 core
out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

constexpr const char* kFragmentShader = R"(#version 330 core
in vec2 uv;
out vec4 color;
uniform sampler2D values;    // R32F: dB, one row per line (the ring)
uniform sampler2D colormap;  // 256 x 1 RGB
uniform int mode;            // 0: waterfall, 1: colour bar
uniform vec2 u_range;        // visible texture columns, as fractions of the width
uniform vec2 db_range;       // dB at colormap[0] and colormap[255]
uniform ivec4 ring;          // columns, history rows, head (next row written), rows visible
uniform int filled;          // rows holding data
uniform vec2 pixels;         // viewport size in pixels

vec3 shade(float db) {
  float t = clamp((db - db_range.x) / (db_range.y - db_range.x), 0.0, 1.0);
  return texture(colormap, vec2(t * (255.0 / 256.0) + 0.5 / 256.0, 0.5)).rgb;
}

void main() {
  if (mode == 1) {
    color = vec4(shade(mix(db_range.x, db_range.y, uv.y)), 1.0);
    return;
  }
  int age = int((1.0 - uv.y) * float(ring.w));
  if (age >= filled) {
    color = vec4(0.07, 0.07, 0.09, 1.0);
    return;
  }
  int history = ring.y;
  int row = ((ring.z - 1 - age) % history + history) % history;
  // The columns under this pixel: show their maximum, so a narrow peak is never skipped.
  float span = u_range.y - u_range.x;
  float left = u_range.x + (uv.x - 0.5 / pixels.x) * span;
  float right = left + span / pixels.x;
  int columns = ring.x;
  int c0 = clamp(int(floor(left * float(columns))), 0, columns - 1);
  int c1 = clamp(int(ceil(right * float(columns))), c0 + 1, columns);
  int step = max(1, (c1 - c0) / 64);
  float db = -1e30;
  for (int c = c0; c < c1; c += step) db = max(db, texelFetch(values, ivec2(c, row), 0).r);
  color = vec4(shade(db), 1.0);
}
)";

GLuint compile(GLenum kind, const char* source) {
  const GLuint shader = glCreateShader(kind);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("the waterfall shader does not compile: ") + log);
  }
  return shader;
}

}  // namespace

// ---- WaterfallTexture ----------------------------------------------------------------------------

WaterfallTexture::WaterfallTexture() {
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  // texelFetch reads exact values; filtering would blur dB across a tone's neighbours.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

WaterfallTexture::~WaterfallTexture() { glDeleteTextures(1, &texture_); }

void WaterfallTexture::reset(std::size_t columns, std::size_t history_rows) {
  columns_ = columns;
  history_rows_ = history_rows;
  head_ = filled_ = 0;
  glBindTexture(GL_TEXTURE_2D, texture_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, static_cast<GLsizei>(columns), static_cast<GLsizei>(history_rows), 0,
               GL_RED, GL_FLOAT, nullptr);
}

void WaterfallTexture::upload_rows(const float* rows, std::size_t count) {
  if (count == 0 || columns_ == 0) return;
  if (count > history_rows_) {  // only the newest history_rows can be seen
    rows += (count - history_rows_) * columns_;
    count = history_rows_;
  }
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  std::size_t done = 0;
  while (done < count) {
    const std::size_t n = std::min(count - done, history_rows_ - head_);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(head_), static_cast<GLsizei>(columns_),
                    static_cast<GLsizei>(n), GL_RED, GL_FLOAT, rows + done * columns_);
    head_ = (head_ + n) % history_rows_;
    done += n;
  }
  filled_ = std::min(history_rows_, filled_ + count);
}

void WaterfallTexture::advance(std::size_t count) {
  if (history_rows_ == 0) return;
  head_ = (head_ + count) % history_rows_;
  filled_ = std::min(history_rows_, filled_ + count);
}

// ---- WaterfallRenderer ---------------------------------------------------------------------------

WaterfallRenderer::WaterfallRenderer() {
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kFragmentShader);
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("the waterfall shader does not link: ") + log);
  }
  u_values_ = glGetUniformLocation(program_, "values");
  u_colormap_ = glGetUniformLocation(program_, "colormap");
  u_mode_ = glGetUniformLocation(program_, "mode");
  u_u_range_ = glGetUniformLocation(program_, "u_range");
  u_db_range_ = glGetUniformLocation(program_, "db_range");
  u_ring_ = glGetUniformLocation(program_, "ring");
  u_pixels_ = glGetUniformLocation(program_, "pixels");
  glGenVertexArrays(1, &vertex_array_);  // core profile: a draw needs a bound VAO, even empty
  glGenTextures(1, &colormap_texture_);
  glBindTexture(GL_TEXTURE_2D, colormap_texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

WaterfallRenderer::~WaterfallRenderer() {
  glDeleteTextures(1, &colormap_texture_);
  glDeleteVertexArrays(1, &vertex_array_);
  glDeleteProgram(program_);
}

void WaterfallRenderer::set_colormap(const ColormapTable& table) {
  glBindTexture(GL_TEXTURE_2D, colormap_texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, 256, 1, 0, GL_RGB, GL_UNSIGNED_BYTE, table.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

void WaterfallRenderer::draw_waterfall(const WaterfallTexture& texture, const GlRect& rect, double u_low,
                                       double u_high, std::size_t visible_rows, float db_min, float db_max) {
  if (rect.width <= 0 || rect.height <= 0 || texture.columns() == 0) return;
  glViewport(rect.x, rect.y, rect.width, rect.height);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture.texture());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, colormap_texture_);
  glUniform1i(u_values_, 0);
  glUniform1i(u_colormap_, 1);
  glUniform1i(u_mode_, 0);
  glUniform2f(u_u_range_, static_cast<float>(u_low), static_cast<float>(u_high));
  glUniform2f(u_db_range_, db_min, db_max);
  glUniform4i(u_ring_, static_cast<GLint>(texture.columns()), static_cast<GLint>(texture.history_rows()),
              static_cast<GLint>(texture.head()), static_cast<GLint>(std::max<std::size_t>(visible_rows, 1)));
  glUniform1i(glGetUniformLocation(program_, "filled"), static_cast<GLint>(texture.filled()));
  glUniform2f(u_pixels_, static_cast<float>(rect.width), static_cast<float>(rect.height));
  glBindVertexArray(vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glActiveTexture(GL_TEXTURE0);
}

void WaterfallRenderer::draw_colorbar(const GlRect& rect) {
  if (rect.width <= 0 || rect.height <= 0) return;
  glViewport(rect.x, rect.y, rect.width, rect.height);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, colormap_texture_);
  glUniform1i(u_colormap_, 1);
  glUniform1i(u_mode_, 1);
  glUniform2f(u_db_range_, 0.0f, 1.0f);  // the bar's y runs through the whole colormap
  glBindVertexArray(vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace prism::view
