// The streaming objects on the caller's device memory and stream (StreamingStage::feed_device and
// flush_device, pipeline/streaming.hpp): the same outputs, bit for bit, as feed() and flush() from
// host memory with the same cutting, for GPU stages (read and written in place) and host stages
// (copied through host memory); ordered on the caller's stream only (the input is copied on that
// stream just before each call, the outputs read back on it, nothing else synchronised); input and
// outputs at any alignment (the cutting feeds and writes at 4-byte offsets); nothing written past
// the outputs counted; device memory checked (host memory refused, naming the argument).
//
// Exits 77 (ctest SKIP) when no usable CUDA device is present (device_test_main.cpp).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/streaming.hpp"
#include "random_samples.hpp"

namespace prism {
namespace {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

// Random samples as floats: (re, im) pairs or real samples.
std::vector<float> random_floats(std::size_t items, bool complex) {
  const std::vector<std::byte> bytes =
      test::random_samples(complex ? SampleFormat::cf32 : SampleFormat::f32, 1, items, 777);
  std::vector<float> x(bytes.size() / sizeof(float));
  std::memcpy(x.data(), bytes.data(), bytes.size());
  return x;
}

struct Case {
  std::string spec;
  fft::BackendKind backend;
  bool complex;
};

class StreamingOnTheDevice : public ::testing::TestWithParam<Case> {};

const std::vector<std::size_t> kPieces = {1, 7, 4096, 333, 20000};

TEST_P(StreamingOnTheDevice, GivesTheHostPathsOutputsOnTheCallersStream) {
  const Case c = GetParam();
  StreamInfo info;
  info.format = c.complex ? SampleFormat::cf32 : SampleFormat::f32;
  info.sample_rate = 48000;
  const std::size_t width = c.complex ? 2 : 1, items = 60000;
  const std::vector<float> x = random_floats(items, c.complex);
  // Small blocks inside the object, so that one feed is cut into several stage calls.
  const StageEnvironment environment{.backend = c.backend};
  StreamingStage host(c.spec, info, environment, 5000), device(c.spec, info, environment, 5000);
  const std::size_t floats = host.floats_per_item();

  std::vector<float> expected;
  for (std::size_t next = 0, k = 0; next < items; ++k) {
    const std::size_t n = std::min(kPieces[k % kPieces.size()], items - next);
    host.feed(x.data() + next * width, n, expected);
    next += n;
  }
  host.flush(expected);
  ASSERT_FALSE(expected.empty()) << c.spec;

  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *pinned = nullptr, *d_in = nullptr, *d_out = nullptr;
  const std::size_t room = device.max_output(items) + 4096;  // and the flush's tail
  CUDA_OK(cudaMallocHost(&pinned, x.size() * sizeof(float)));
  std::memcpy(pinned, x.data(), x.size() * sizeof(float));
  CUDA_OK(cudaMalloc(&d_in, x.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_out, room * floats * sizeof(float)));
  CUDA_OK(cudaMemsetAsync(d_in, 0xFF, x.size() * sizeof(float), stream));      // NaN until copied
  CUDA_OK(cudaMemsetAsync(d_out, 0xFF, room * floats * sizeof(float), stream));  // NaN unless written
  std::size_t written = 0;
  for (std::size_t next = 0, k = 0; next < items; ++k) {
    const std::size_t n = std::min(kPieces[k % kPieces.size()], items - next);
    // The input arrives on the caller's stream just before the call: only the call's ordering
    // makes the stage read it.
    CUDA_OK(cudaMemcpyAsync(d_in + next * width, pinned + next * width, n * width * sizeof(float),
                            cudaMemcpyHostToDevice, stream));
    const std::size_t made = device.feed_device(d_in + next * width, n, d_out + written * floats, stream);
    EXPECT_LE(made, device.max_output(n));
    written += made;
    next += n;
  }
  // The flush in small pieces: at most 5 items a call, until it returns 0.
  for (std::size_t made; (made = device.flush_device(d_out + written * floats, 5, stream)) > 0;) {
    EXPECT_LE(made, 5u);
    written += made;
  }
  EXPECT_EQ(device.flush_device(d_out + written * floats, 5, stream), 0u);
  ASSERT_LE(written, room);
  std::vector<float> got(room * floats);
  CUDA_OK(cudaMemcpyAsync(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  // Nothing written past the outputs counted.
  for (std::size_t i = written * floats; i < got.size(); ++i)
    ASSERT_TRUE(std::isnan(got[i])) << c.spec << ": float " << i << " written past the " << written << " outputs";
  got.resize(written * floats);
  ASSERT_EQ(got.size(), expected.size()) << c.spec;
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0) << c.spec;
  EXPECT_EQ(device.counters().items_in, items);

  // reset() and a second input on the legacy default stream (nullptr) give the same again.
  device.reset();
  CUDA_OK(cudaMemcpy(d_in, pinned, x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, 0xFF, room * floats * sizeof(float)));
  written = device.feed_device(d_in, items, d_out, nullptr);
  for (std::size_t made; (made = device.flush_device(d_out + written * floats, room - written, nullptr)) > 0;)
    written += made;
  std::vector<float> again(written * floats);
  CUDA_OK(cudaMemcpy(again.data(), d_out, again.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // One feed of every item cuts the blocks differently: the same values within float rounding.
  ASSERT_EQ(again.size(), expected.size()) << c.spec;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < again.size(); ++i) {
    ASSERT_FALSE(std::isnan(again[i])) << c.spec << ": float " << i << " not written";
    num += (again[i] - expected[i]) * static_cast<double>(again[i] - expected[i]);
    den += expected[i] * static_cast<double>(expected[i]);
  }
  EXPECT_LE(std::sqrt(num / den), 1e-5) << c.spec;

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(pinned);
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(
    Stages, StreamingOnTheDevice,
    ::testing::Values(Case{"spectrogram:nperseg=1024,noverlap=512,window=hann", fft::BackendKind::cuda, true},
                      Case{"spectrogram:nperseg=1000,noverlap=100", fft::BackendKind::cuda, false},
                      // The fused kernel on real input (pairs of samples read at once), fed at
                      // every alignment by the cutting.
                      Case{"spectrogram:nperseg=1024,noverlap=256", fft::BackendKind::cuda, false},
                      Case{"spectrogram:nperseg=512,noverlap=256,mode=magnitude", fft::BackendKind::cufft, true},
                      Case{"fir:lowpass=3000,numtaps=255", fft::BackendKind::cuda, true},
                      Case{"fir:lowpass=3000,numtaps=64,decimate=4,align=same", fft::BackendKind::cuda, false},
                      Case{"resample:up=3,down=2", fft::BackendKind::cpu, true},
                      Case{"fm", fft::BackendKind::cpu, true}));

TEST(StreamingOnTheDevice, HostMemoryIsRefusedNamingTheArgument) {
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 48000;
  StreamingStage stage("fir:lowpass=3000,numtaps=31", info, {.backend = fft::BackendKind::cuda});
  std::vector<float> host(1000, 0.0f), out(stage.max_output(1000));
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4000 * sizeof(float)), cudaSuccess);
  try {
    stage.feed_device(host.data(), host.size(), d, nullptr);
    FAIL() << "host items accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("items is host memory"), std::string::npos) << e.what();
  }
  try {
    stage.feed_device(d, 1000, out.data(), nullptr);
    FAIL() << "host out accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("out is host memory"), std::string::npos) << e.what();
  }
  cudaFree(d);
}

}  // namespace
}  // namespace prism
