// The stage registry: every stage a chain can name (`prism run ... ! NAME:KEY=VALUE,... ! ...`),
// with its ports, its settings (settings.hpp) and how to make it on the backend asked for. A new
// stage is one file and one line in stage_registry.cpp's list. `prism stages` prints this list;
// `prism spectrogram` and the viewer make their stages through it too.
//
// Backends: a stage with a GPU kernel runs on the CPU or the GPU as StageEnvironment::backend
// says — cpu, cuda (prism's kernels), cufft (cuFFT where the stage has an FFT), or automatic: the
// GPU when one can be set up (for the light stages: when their input is already there), the CPU
// otherwise, with a note saying why when a GPU was there but refused (on a machine without one,
// automatic is the CPU without a note).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../fft/fft.hpp"
#include "settings.hpp"
#include "spectrogram_params.hpp"
#include "stage.hpp"

namespace prism {

struct StageEnvironment {
  fft::BackendKind backend = fft::BackendKind::automatic;
  int device = 0;            // CUDA device for the GPU backends
  unsigned cpu_threads = 0;  // CPU stages: worker threads (0: all cores)
  // The samples the stage will take, where the command knows them before it starts and the
  // process has no CUDA context yet (one file): automatic then weighs the GPU's start-up against
  // them (cpu_finishes_first).
  std::optional<std::uint64_t> expected_samples;
  // The stage before this one leaves its output in GPU memory. automatic puts the light stages
  // (shift, resample, gain, the demodulators) on the GPU only then: alone they do not repay a copy to the
  // device and back.
  bool input_on_gpu = false;
  // How messages name these fields: by the field's name ("backend") when null; the command line
  // names its options (--backend), the Python module its arguments. A plain function, as
  // SourceOptions::field_namer.
  std::string (*field_namer)(std::string_view field) = nullptr;
  std::string name(std::string_view field) const {
    return field_namer ? field_namer(field) : std::string(field);
  }
  // "--backend cuda", "backend cuda": the backend as the caller set it.
  std::string backend_named(fft::BackendKind kind) const {
    return name("backend") + " " + std::string(fft::backend_name(kind));
  }
};

// What automatic weighs for the spectrogram of a known length: a GPU run first creates a CUDA
// context, about 0.30-0.32 s on the H200's machine before any of prism's work (a python3 process
// that only creates one took 0.35-0.37 s, 0.05 of them python's own; bench/RESULTS.md "GPU
// start-up"), a cost prism cannot cut but can avoid. In whole runs there (default settings, float32
// into .npy) one CPU thread finished 64 Mi samples first (0.24 s against 0.47), two were ahead to
// 512 Mi, four still at 1 Gi (bench/RESULTS.md "GPU start-up: where the CPU finishes first"), so
// automatic takes the CPU below 2^27 samples per worker thread: near one thread's crossover, below
// those of two and four.
inline constexpr std::uint64_t kSpectrogramSamplesPerThreadBeforeGpu = std::uint64_t{1} << 27;
// The CPU's speed stopped growing at about four threads there (writing the rows bounds it), so
// threads beyond these do not raise the bound.
inline constexpr unsigned kSpectrogramCpuWorkersThatCount = 4;
// Whether the CPU backend on `threads` workers (0: all cores) is expected to finish a spectrogram
// of `samples` before a GPU run of it would.
bool cpu_finishes_first(std::uint64_t samples, unsigned threads);
// Whether this build could use a GPU the NVIDIA driver shows on this machine (and
// CUDA_VISIBLE_DEVICES does not hide), found without initialising CUDA, the start-up that taking
// the CPU saves: where automatic takes the CPU anyway, whether a note should say so. A GPU that
// CUDA would still refuse (a driver too old for the runtime) gets the note too.
bool gpu_seen_without_cuda();

struct MadeStage {
  std::unique_ptr<Stage> stage;
  std::string note;  // automatic that fell back to the CPU: why (empty otherwise)
};

// Makes a GPU stage with `make` for the backend `requested` (cuda, cufft, or automatic on a
// machine with a GPU): true when it was made. When the device cannot be used (CudaError), an
// explicit backend throws std::runtime_error naming it (as `environment` names its fields);
// automatic returns false with made.note saying why, and the caller makes the CPU stage.
bool made_on_gpu(MadeStage& made, fft::BackendKind requested, const StageEnvironment& environment,
                 const std::function<std::unique_ptr<Stage>()>& make);
// fft::resolve_backend for a stage that has no GPU form here: cpu and automatic give the CPU;
// cuda and cufft throw std::runtime_error with the reason, naming the backend through
// `environment`.
void require_backend(const StageEnvironment& environment);

struct StageKind {
  std::string name;
  std::string summary;  // one line for `prism stages`
  PortKind input = PortKind::samples;
  PortKind output = PortKind::samples;
  bool gpu_kernel = false;  // runs on the GPU under --backend cuda (or cufft)
  // automatic puts it on the GPU only after a stage there (StageEnvironment::input_on_gpu):
  // make_stage hands it the cpu backend otherwise.
  bool gpu_after_gpu_only = false;
  std::vector<Setting> settings;
  // The key a bare value names (resample:48000 is resample:rate=48000); empty: none.
  std::string positional;
  // Makes the stage from checked values; throws UsageError naming a setting through the values,
  // std::runtime_error naming the backend when an explicitly requested GPU backend cannot run.
  std::function<MadeStage(const SettingValues& values, const StageEnvironment& environment)> make;
};

const std::vector<StageKind>& stage_kinds();
// The kind of this name, or null.
const StageKind* find_stage_kind(std::string_view name);

// A stage spec as a chain writes it: "NAME" or "NAME:KEY=VALUE,KEY=VALUE,FLAG".
struct StageSpec {
  std::string name;
  std::map<std::string, std::string> settings;
};
// Throws UsageError for an empty name or malformed settings (naming the spec).
StageSpec parse_stage_spec(std::string_view text);
// Makes the stage a spec names: UsageError for an unknown name (listing the stages, suggesting
// the nearest) or a bad setting ("spectrogram: nperseg: -5 is out of range (1..16777216)").
MadeStage make_stage(const StageSpec& spec, const StageEnvironment& environment);
// Whether `text` names a stage (its part before ':' is a registered name).
bool names_a_stage(std::string_view text);

// The spectrogram on the backend asked for (as make_stage does for "spectrogram"): `name` says
// how messages name the settings.
MadeStage make_spectrogram_stage(const SpectrogramParams& params, const StageEnvironment& environment,
                                 const KeyNamer& name = plain_key_names());

// The registry as help text: each stage with its ports, summary and settings.
std::string stages_help();

}  // namespace prism
