// qa_WaterfallGl: the waterfall texture in a real OpenGL context without a window (EGL): rows
// written from host memory, and on a CUDA device rows written from device memory through
// CUDA–OpenGL interop, land in the ring rows they belong to (also across the ring's end, and
// from ring slots that are not consecutive), bit for bit; the shader colours what interop
// wrote. Exit 77 (ctest SKIP) where no EGL context can be had; the interop cases skip where
// no CUDA device is (Mesa's software GL runs the rest).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gui/gl_api.hpp"
#include "gui/headless_gl.hpp"
#include "gui/waterfall_renderer.hpp"
#include "sinks/colormap.hpp"
#if PRISM_HAVE_CUDA
#include <cuda_runtime.h>

#include "gui/cuda/cuda_gl_texture.hpp"
#include "gui/cuda/gpu_display_lines.hpp"
#endif

namespace prism::view {
namespace {

std::unique_ptr<HeadlessGlContext> g_gl;

constexpr std::size_t kColumns = 300, kHistory = 8;

// A row whose values say which line it is: line * 1000 + column.
std::vector<float> line_values(int line) {
  std::vector<float> row(kColumns);
  for (std::size_t c = 0; c < kColumns; ++c) row[c] = static_cast<float>(line * 1000 + static_cast<int>(c));
  return row;
}

std::vector<float> read_texture(const WaterfallTexture& texture) {
  std::vector<float> all(texture.columns() * texture.history_rows(), -1.0f);
  glBindTexture(GL_TEXTURE_2D, texture.texture());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, all.data());
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  return all;
}

// Ring row `row` holds line `line`.
void expect_row(const std::vector<float>& all, std::size_t row, int line) {
  const std::vector<float> want = line_values(line);
  for (std::size_t c = 0; c < kColumns; ++c)
    ASSERT_EQ(all[row * kColumns + c], want[c]) << "ring row " << row << " column " << c << " (line " << line << ")";
}

TEST(WaterfallGl, HostRowsLandInTheRingAndWrapAtItsEnd) {
  WaterfallTexture texture;
  texture.reset(kColumns, kHistory);
  std::vector<float> rows;
  for (int line = 0; line < 5; ++line) {
    const std::vector<float> r = line_values(line);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  texture.upload_rows(rows.data(), 5);
  rows.clear();
  for (int line = 5; line < 11; ++line) {
    const std::vector<float> r = line_values(line);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  texture.upload_rows(rows.data(), 6);  // rows 5, 6, 7, then 0, 1, 2
  EXPECT_EQ(texture.head(), 3u);
  EXPECT_EQ(texture.filled(), kHistory);
  const std::vector<float> all = read_texture(texture);
  for (std::size_t row = 0; row < kHistory; ++row) expect_row(all, row, row < 3 ? static_cast<int>(row) + 8 : static_cast<int>(row));
}

// Four lines of uniform levels 10, 30, 50, 70 dB, drawn on the grayscale map over 0..80 dB:
// newest at the top, so the framebuffer's bottom quarter shows the oldest line.
constexpr std::size_t kBands = 4, kWide = 64;

std::vector<float> band_level(std::size_t band) { return std::vector<float>(kWide, 10.0f + 20.0f * static_cast<float>(band)); }

void expect_bands_drawn(const WaterfallTexture& texture) {
  WaterfallRenderer renderer;
  renderer.set_colormap(*find_colormap("grayscale"));
  glClearColor(1, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  renderer.draw_waterfall(texture, GlRect{0, 0, 64, 64}, 0.0, 1.0, kBands, 0.0f, 80.0f);
  glFinish();
  std::vector<unsigned char> pixels(64 * 64 * 4);
  glReadPixels(0, 0, 64, 64, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  for (std::size_t band = 0; band < kBands; ++band) {
    const std::size_t y = band * 16 + 8;
    const double want = (10.0 + 20.0 * static_cast<double>(band)) / 80.0 * 255.0;
    const unsigned char* p = pixels.data() + (y * 64 + 32) * 4;
    EXPECT_NEAR(p[0], want, 2.0) << "band " << band;
    EXPECT_EQ(p[0], p[1]);
    EXPECT_EQ(p[1], p[2]);
  }
}

TEST(WaterfallGl, TheShaderColoursHostRows) {
  WaterfallTexture texture;
  texture.reset(kWide, kBands);
  for (std::size_t band = 0; band < kBands; ++band) texture.upload_rows(band_level(band).data(), 1);
  expect_bands_drawn(texture);
}

#if PRISM_HAVE_CUDA
bool cuda_device_present(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    *why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    cudaGetLastError();
    return false;
  }
  return true;
}

// A device ring of 16 lines whose slot s holds line 100 + s.
std::shared_ptr<DeviceLineRing> filled_ring() {
  auto ring = std::make_shared<DeviceLineRing>(0, kColumns, 16);
  for (std::size_t s = 0; s < 16; ++s) {
    const std::vector<float> r = line_values(100 + static_cast<int>(s));
    EXPECT_EQ(cudaMemcpy(ring->data() + s * kColumns, r.data(), kColumns * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  return ring;
}

class WaterfallInterop : public ::testing::TestWithParam<CudaGlTexture::Path> {};

TEST_P(WaterfallInterop, DeviceRowsLandAcrossTheRingsEndAndFromScatteredSlots) {
  std::string why;
  if (!cuda_device_present(&why)) GTEST_SKIP() << "CUDA-OpenGL interop needs a CUDA device: " << why;
  const std::shared_ptr<DeviceLineRing> ring = filled_ring();
  WaterfallTexture texture;
  texture.reset(kColumns, kHistory);
  CudaGlTexture interop(texture.texture(), kColumns, kHistory, 0, GetParam());

  // Slots 0..4 into rows 0..4 (one copy), then slots 10..15 into rows 5, 6, 7, 0, 1, 2 (split at
  // the ring's end).
  std::vector<const float*> rows;
  for (std::size_t s = 0; s < 5; ++s) rows.push_back(ring->slot(s));
  interop.write_rows(rows.data(), rows.size(), texture.head());
  texture.advance(rows.size());
  rows.clear();
  for (std::size_t s = 10; s < 16; ++s) rows.push_back(ring->slot(s));
  interop.write_rows(rows.data(), rows.size(), texture.head());
  texture.advance(rows.size());
  EXPECT_EQ(texture.head(), 3u);
  std::vector<float> all = read_texture(texture);
  const int expected_first[kHistory] = {113, 114, 115, 103, 104, 110, 111, 112};
  for (std::size_t row = 0; row < kHistory; ++row) expect_row(all, row, expected_first[row]);

  // The device ring's own wrap: slots 15, 0, 1 (not consecutive in memory) into rows 3, 4, 5.
  rows = {ring->slot(15), ring->slot(0), ring->slot(1)};
  interop.write_rows(rows.data(), rows.size(), texture.head());
  texture.advance(rows.size());
  all = read_texture(texture);
  expect_row(all, 3, 115);
  expect_row(all, 4, 100);
  expect_row(all, 5, 101);
  expect_row(all, 6, 111);  // untouched
}

TEST_P(WaterfallInterop, TheShaderColoursWhatInteropWrote) {
  std::string why;
  if (!cuda_device_present(&why)) GTEST_SKIP() << "CUDA-OpenGL interop needs a CUDA device: " << why;
  DeviceLineRing ring(0, kWide, kBands);
  for (std::size_t band = 0; band < kBands; ++band)
    ASSERT_EQ(cudaMemcpy(ring.data() + band * kWide, band_level(band).data(), kWide * sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  WaterfallTexture texture;
  texture.reset(kWide, kBands);
  CudaGlTexture interop(texture.texture(), kWide, kBands, 0, GetParam());
  std::vector<const float*> rows;
  for (std::size_t band = 0; band < kBands; ++band) rows.push_back(ring.slot(band));
  interop.write_rows(rows.data(), rows.size(), texture.head());
  texture.advance(kBands);
  expect_bands_drawn(texture);
}

INSTANTIATE_TEST_SUITE_P(Paths, WaterfallInterop,
                         ::testing::Values(CudaGlTexture::Path::pixel_buffer, CudaGlTexture::Path::texture_array),
                         [](const ::testing::TestParamInfo<CudaGlTexture::Path>& info) {
                           return info.param == CudaGlTexture::Path::pixel_buffer ? std::string("PixelBuffer")
                                                                                 : std::string("TextureArray");
                         });
#endif

}  // namespace
}  // namespace prism::view

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string why;
  prism::view::g_gl = prism::view::HeadlessGlContext::create(&why);
  if (!prism::view::g_gl) {
    std::printf("qa_WaterfallGl: skipped: no headless OpenGL context: %s\n", why.c_str());
    return 77;
  }
  std::printf("qa_WaterfallGl: OpenGL renderer %s\n", prism::view::g_gl->renderer().c_str());
  const int result = RUN_ALL_TESTS();
  prism::view::g_gl.reset();
  return result;
}
