// The stage registry (see stage_registry.hpp): one entry per stage, and the spectrogram's choice
// of backend.
#include "pipeline/stage_registry.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "pipeline/cpu_spectrogram.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "pipeline/sample_stages.hpp"
#if PRISM_HAVE_CUDA
#include "pipeline/cuda/cuda_spectrogram.hpp"
#endif

namespace prism {

bool made_on_gpu(MadeStage& made, fft::BackendKind requested, const StageEnvironment& environment,
                 const std::function<std::unique_ptr<Stage>()>& make) {
  try {
    made.stage = make();
    return true;
  } catch (const CudaError& e) {
    if (requested != fft::BackendKind::automatic)
      throw std::runtime_error(environment.backend_named(requested) + ": " + e.what());
    made.note = environment.backend_named(fft::BackendKind::automatic) + ": the GPU is not available (" + e.what() +
                "); using the CPU backend";
    return false;
  }
}

void require_backend(const StageEnvironment& environment) {
  try {
    fft::resolve_backend(environment.backend);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(environment.name("backend") + " " + e.what());
  }
}

bool cpu_finishes_first(std::uint64_t samples, unsigned threads) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t workers = std::min(threads != 0 ? threads : cores, kSpectrogramCpuWorkersThatCount);
  return samples < kSpectrogramSamplesPerThreadBeforeGpu * workers;
}

bool gpu_seen_without_cuda() {
#if !PRISM_HAVE_CUDA
  return false;  // nothing here could use one
#else
  // CUDA_VISIBLE_DEVICES empty or starting with a negative index hides every device.
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) {
    const std::string_view list(visible);
    if (list.find_first_not_of(" ") == std::string_view::npos || list[list.find_first_not_of(" ")] == '-')
      return false;
  }
  // What the NVIDIA kernel driver shows of its GPUs: a folder per GPU under /proc, a device node
  // per GPU (/dev/nvidiaN, what a container is given), or WSL2's GPU node (/dev/dxg).
  std::error_code error;
  const std::filesystem::directory_iterator listed("/proc/driver/nvidia/gpus", error);
  if (!error && listed != std::filesystem::directory_iterator()) return true;
  if (std::filesystem::exists("/dev/dxg", error)) return true;
  for (std::filesystem::directory_iterator node("/dev", error), end; !error && node != end; node.increment(error)) {
    const std::string name = node->path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[6])))
      return true;
  }
  return false;
#endif
}

MadeStage make_spectrogram_stage(const SpectrogramParams& given, const StageEnvironment& environment,
                                 const KeyNamer& name) {
  const SpectrogramParams params = given.resolved();
  MadeStage made;
  fft::BackendKind requested = environment.backend;
  // Settings the GPU kernels do not compute: refused when a GPU backend was asked for by name,
  // computed on the CPU when the backend is automatic.
  const std::string cpu_only_setting = spectrogram_cpu_only_setting(params, name);
  if (!cpu_only_setting.empty() && requested != fft::BackendKind::cpu && requested != fft::BackendKind::automatic)
    throw UsageError(environment.backend_named(requested) + ": the GPU backends do not compute " + cpu_only_setting +
                     "; use " + environment.backend_named(fft::BackendKind::cpu));
  if (requested == fft::BackendKind::automatic) {
    // Where automatic takes the CPU whatever the device, it does not ask CUDA about one; the note
    // says why only where a GPU was there to pass over (on a machine without one, nothing was
    // asked of a GPU).
    std::string reason;
    if (!cpu_only_setting.empty())
      reason = cpu_only_setting + " is computed on the CPU backend only";
    else if (environment.expected_samples &&
             cpu_finishes_first(*environment.expected_samples, environment.cpu_threads))
      reason = "a run of " + std::to_string(*environment.expected_samples) +
               " samples is expected to finish sooner on the CPU than on the GPU with its start-up; using the CPU "
               "backend (" + environment.backend_named(fft::BackendKind::cuda) + " takes the GPU)";
    if (!reason.empty()) {
      if (gpu_seen_without_cuda()) made.note = environment.backend_named(fft::BackendKind::automatic) + ": " + reason;
      requested = fft::BackendKind::cpu;
    } else if (!fft::backend_availability(fft::BackendKind::cufft).available) {
      requested = fft::BackendKind::cpu;
    }
  }
  if (requested != fft::BackendKind::cpu) {
#if PRISM_HAVE_CUDA
    cuda::CudaEngineOptions engine;
    engine.device = environment.device;
    // cuda and automatic run our kernels: the fused kernel where it reaches, else our FFT
    // library between the framing and detector kernels; cufft keeps cuFFT there, for comparison.
    // But in double precision automatic takes cuFFT's double plans: our FP64 kernels are as
    // accurate and about 4x slower (bench/RESULTS.md, "Double-precision spectrogram on the GPU").
    const bool cufft_path = requested == fft::BackendKind::cufft ||
                            (requested == fft::BackendKind::automatic && params.double_precision);
    engine.path = cufft_path ? cuda::TransformPath::cufft : cuda::TransformPath::fused;
    if (made_on_gpu(made, requested, environment,
                    [&] { return std::make_unique<cuda::CudaSpectrogram>(params, engine, name); }))
      return made;
#else
    require_backend(environment);  // automatic gives the CPU; cuda/cufft throw the reason
#endif
  }
  made.stage = std::make_unique<CpuSpectrogram>(params, environment.cpu_threads, name);
  return made;
}

const std::vector<StageKind>& stage_kinds() {
  static const std::vector<StageKind> kinds = [] {
    std::vector<StageKind> k;
    StageKind spectrogram;
    spectrogram.name = "spectrogram";
    spectrogram.summary =
        "short-time Fourier transform with scipy.signal.spectrogram's parameters and defaults, plus dB and frame "
        "averaging (the rows of prism spectrogram)";
    spectrogram.input = PortKind::samples;
    spectrogram.output = PortKind::rows;
    spectrogram.gpu_kernel = true;
    spectrogram.settings = spectrogram_settings();
    spectrogram.make = [](const SettingValues& v, const StageEnvironment& e) {
      return make_spectrogram_stage(spectrogram_params_from(v), e, v.namer());
    };
    k.push_back(spectrogram);
    for (StageKind& kind : sample_stage_kinds()) k.push_back(std::move(kind));
    return k;
  }();
  return kinds;
}

const StageKind* find_stage_kind(std::string_view name) {
  for (const StageKind& kind : stage_kinds())
    if (kind.name == name) return &kind;
  return nullptr;
}

namespace {

// The name of a spec: the text before the first ':', without the spaces around it.
std::string spec_name(std::string_view text) {
  std::string name(text.substr(0, text.find(':')));
  while (!name.empty() && name.back() == ' ') name.pop_back();
  while (!name.empty() && name.front() == ' ') name.erase(name.begin());
  return name;
}

}  // namespace

StageSpec parse_stage_spec(std::string_view text) {
  StageSpec spec;
  const std::size_t colon = text.find(':');
  const std::string name = spec_name(text);
  if (name.empty()) throw UsageError("'" + printable(text) + "': a stage needs a name (prism stages lists them)");
  spec.name = name;
  if (colon != std::string_view::npos) spec.settings = split_key_values(text.substr(colon + 1), name);
  return spec;
}

bool names_a_stage(std::string_view text) { return find_stage_kind(spec_name(text)) != nullptr; }

MadeStage make_stage(const StageSpec& spec, const StageEnvironment& environment) {
  const StageKind* kind = find_stage_kind(spec.name);
  if (kind == nullptr) {
    std::string names;
    for (const StageKind& k : stage_kinds()) names += (names.empty() ? "" : ", ") + k.name;
    throw UsageError("unknown stage '" + printable(spec.name) + "' (stages: " + names + "; prism stages describes them)");
  }
  // A bare word that is no flag of the stage is the value of its positional setting.
  std::map<std::string, std::string> settings = spec.settings;
  for (const auto& [bare_key, value] : spec.settings) {
    if (!value.empty() || kind->positional.empty() || settings.count(kind->positional) != 0) continue;
    const std::string& key = bare_key;  // clang 14's lambdas cannot capture a structured binding
    const bool declared = std::any_of(kind->settings.begin(), kind->settings.end(),
                                      [&](const Setting& s) { return s.key == key; });
    if (declared) continue;
    settings.erase(key);
    settings[kind->positional] = key;
    break;
  }
  const SettingValues values(kind->settings, settings, name_in_stage(kind->name));
  if (kind->gpu_after_gpu_only && environment.backend == fft::BackendKind::automatic && !environment.input_on_gpu) {
    StageEnvironment on_cpu = environment;  // alone, the stage does not repay the copies to a GPU
    on_cpu.backend = fft::BackendKind::cpu;
    return kind->make(values, on_cpu);
  }
  return kind->make(values, environment);
}

std::string stages_help() {
  std::ostringstream out;
  for (const StageKind& kind : stage_kinds()) {
    out << kind.name << "  (" << port_kind_name(kind.input) << " -> " << port_kind_name(kind.output)
        << (!kind.gpu_kernel            ? "; CPU"
            : kind.gpu_after_gpu_only ? "; CPU or GPU by --backend, auto: the GPU after a GPU stage"
                                      : "; CPU or GPU by --backend")
        << ")\n";
    out << "  " << kind.summary << "\n";
    out << settings_help(kind.settings, false);
    out << "\n";
  }
  return out.str();
}

}  // namespace prism
