// prism devices: the compute backends (CPU, CUDA GPUs) and the audio devices this build sees.
#include <cstdio>
#include <memory>
#include <string>

#include "apps/commands.hpp"
#include "fft/fft.hpp"

#if PRISM_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif
#if PRISM_HAVE_PORTAUDIO
#include <portaudio.h>
#include <unistd.h>
#include <fcntl.h>
#endif

namespace prism::app {

namespace {

void list_backends() {
  std::printf("Backends:\n");
  for (fft::BackendKind kind : {fft::BackendKind::cpu, fft::BackendKind::cuda, fft::BackendKind::cufft}) {
    const fft::Availability a = fft::backend_availability(kind);
    std::printf("  %-6s %s%s%s\n", std::string(fft::backend_name(kind)).c_str(),
                a.available ? "available" : "not available", a.reason.empty() ? "" : ": ",
                a.reason.c_str());
  }
  if (auto cpu = fft::make_cpu_backend()) std::printf("  cpu FFT: %s\n", cpu->describe().c_str());
}

void list_gpus() {
  std::printf("GPUs:\n");
#if PRISM_HAVE_CUDART
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("  none (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device");
    return;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    std::printf("  [%d] %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", i, p.name,
                p.major, p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024 * 1024));
  }
#else
  std::printf("  none (this build has no CUDA runtime)\n");
#endif
}

void list_audio_devices() {
  std::printf("Audio devices:\n");
#if PRISM_HAVE_PORTAUDIO
  // PortAudio's host APIs print probing noise on stderr; keep it out of the listing.
  const int saved = dup(STDERR_FILENO);
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
  const PaError init = Pa_Initialize();
  if (saved >= 0) { dup2(saved, STDERR_FILENO); close(saved); }
  if (null_fd >= 0) close(null_fd);
  if (init != paNoError) {
    std::printf("  none (PortAudio: %s)\n", Pa_GetErrorText(init));
    return;
  }
  const int count = Pa_GetDeviceCount();
  if (count <= 0) std::printf("  none found\n");
  for (int i = 0; i < count; ++i) {
    const PaDeviceInfo* d = Pa_GetDeviceInfo(i);
    if (d == nullptr) continue;
    const PaHostApiInfo* api = Pa_GetHostApiInfo(d->hostApi);
    std::printf("  [%d] %s (%s): %d in, %d out, %g Hz\n", i, d->name, api ? api->name : "?",
                d->maxInputChannels, d->maxOutputChannels, d->defaultSampleRate);
  }
  Pa_Terminate();
#else
  std::printf("  none (this build has no PortAudio)\n");
#endif
}

}  // namespace

Runner add_devices_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("devices", "List the compute backends, GPUs and audio devices.");
  (void)cmd;
  return [] {
    list_backends();
    list_gpus();
    list_audio_devices();
    return kExitOk;
  };
}

}  // namespace prism::app
