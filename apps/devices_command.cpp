// prism devices: the compute backends (CPU, CUDA GPUs), the audio devices and the SDRs this build
// sees.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "fft/cuda_status_text.hpp"
#include "fft/fft.hpp"

#if PRISM_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif
#include "pipeline/errors.hpp"
#if PRISM_HAVE_PORTAUDIO
#include "sources/portaudio_source.hpp"
#endif
#if PRISM_HAVE_SOAPYSDR
#include "sources/soapysdr_source.hpp"
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
    int driver_version = 0, runtime_version = 0;
    cudaDriverGetVersion(&driver_version);
    cudaRuntimeGetVersion(&runtime_version);
    const std::string reason =
        err != cudaSuccess ? fft::cuda_unavailable_text(err, driver_version, runtime_version, cudaGetErrorString(err))
                           : std::string("no CUDA device");
    std::printf("  none (%s)\n", reason.c_str());
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

void print_audio_devices() {
  std::printf("Audio devices:\n");
#if PRISM_HAVE_PORTAUDIO
  try {
    const PortAudioSession session;
    const std::vector<AudioDeviceEntry> devices = list_audio_devices();
    if (devices.empty()) std::printf("  none found\n");
    for (const AudioDeviceEntry& d : devices)
      std::printf("  [%d] %s (%s): %d in, %d out, %g Hz\n", d.index, d.name.c_str(), d.host_api.c_str(),
                  d.max_input_channels, d.max_output_channels, d.default_sample_rate);
  } catch (const InputError& e) {
    std::printf("  none (%s)\n", e.reason().c_str());
  }
#else
  std::printf("  none (this build has no PortAudio)\n");
#endif
}

void print_sdr_devices() {
  std::printf("SDRs (use as sdr:ARGS):\n");
#if PRISM_HAVE_SOAPYSDR
  std::vector<SdrDeviceEntry> devices;
  try {
    devices = list_sdr_devices();
  } catch (const InputError& e) {  // a driver that hung while listing (sources/driver_call.hpp)
    std::printf("  none (%s)\n", e.reason().c_str());
    return;
  }
  if (devices.empty())
    std::printf("  none found (%s)\n", sdr_modules_text(sdr_modules()).c_str());
  for (const SdrDeviceEntry& d : devices) std::printf("  sdr:%s\n", d.args.c_str());
#else
  std::printf("  none (this build has no SoapySDR)\n");
#endif
}

}  // namespace

Runner add_devices_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("devices", "List the compute backends, GPUs, audio devices and SDRs.");
  (void)cmd;
  return [] {
    list_backends();
    list_gpus();
    print_audio_devices();
    print_sdr_devices();
    return kExitOk;
  };
}

}  // namespace prism::app
