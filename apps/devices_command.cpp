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

#if PRISM_HAVE_CUDART
// Which GPUs can reach each other's memory directly (a copy between them then goes peer to peer
// rather than through host memory), with the driver's rank of the link (0 the fastest) and
// whether atomics work across it. Whether a link is NVLink or PCIe the runtime does not say;
// `nvidia-smi topo -m` does.
void list_peer_links(int count) {
  if (count < 2) {
    std::printf("  peer links: none (one GPU)\n");
    return;
  }
  std::printf("  peer links (from -> to: direct access, the driver's performance rank, atomics):\n");
  for (int from = 0; from < count; ++from)
    for (int to = 0; to < count; ++to) {
      if (from == to) continue;
      int access = 0, rank = 0, atomics = 0;
      if (cudaDeviceCanAccessPeer(&access, from, to) != cudaSuccess) {
        cudaGetLastError();
        std::printf("    [%d] -> [%d]: unknown (cudaDeviceCanAccessPeer failed)\n", from, to);
        continue;
      }
      if (!access) {
        std::printf("    [%d] -> [%d]: no direct access (copies go through host memory)\n", from, to);
        continue;
      }
      cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, from, to);
      cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, from, to);
      cudaGetLastError();
      std::printf("    [%d] -> [%d]: direct, rank %d, %s\n", from, to, rank, atomics ? "native atomics" : "no atomics");
    }
}
#endif

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
    std::printf("  [%d] %s, compute capability %d.%d, %d multiprocessors, %.1f GiB, PCI %04x:%02x:%02x\n", i, p.name,
                p.major, p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024 * 1024), p.pciDomainID, p.pciBusID,
                p.pciDeviceID);
  }
  list_peer_links(count);
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
