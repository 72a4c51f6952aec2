// prism fft-tune: measures the planner candidates of our CUDA FFT (fft/cuda/fft_tune.hpp) for
// the lengths and transforms asked for, prints what won, and records it in the wisdom file that
// planning reads (fft/cuda/fft_wisdom.hpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/option_checks.hpp"
#include "apps/progress_bar.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_wisdom.hpp"
#include "fft/fft.hpp"
#include "pipeline/errors.hpp"

#if PRISM_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "fft/cuda/cuda_backends.hpp"
#include "fft/cuda/fft_tune.hpp"
#endif

namespace prism::app {

namespace {

using fft::Transform;
namespace gpu = fft::gpu;

struct FftTuneOptions {
  std::vector<std::size_t> sizes;
  std::string transform = "all";
  std::string batch_bytes = "64M";
  std::string wisdom;
  int runs = 25;
  int device = 0;
};

// The spectrogram's usual nfft.
std::vector<std::size_t> default_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 256; n <= 65536; n *= 2) sizes.push_back(n);
  return sizes;
}

// "64M", "1G", "512K", "1048576" (binary multiples; an optional trailing "iB" or "B").
std::size_t parse_bytes(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  const int shift = unit.empty() || unit == "B" ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
  if (digits == 0 || digits > 12 || shift < 0) {
    throw UsageError("--batch-bytes '" + text + "': give bytes, e.g. 64M, 1G or 1048576");
  }
  // At most 1 TiB: more is a typo, and a larger shift would wrap around.
  constexpr std::size_t kMaxBytes = std::size_t{1} << 40;
  const std::size_t count = std::stoull(text.substr(0, digits));
  if (count == 0) throw UsageError("--batch-bytes must be more than 0");
  if (count > (kMaxBytes >> shift)) throw UsageError("--batch-bytes '" + text + "' is more than 1 TiB");
  return count << shift;
}

#if PRISM_HAVE_CUDA
std::vector<Transform> transforms_for(const std::string& choice) {
  if (choice == "c2c") return {Transform::c2c_forward, Transform::c2c_inverse};
  if (choice == "r2c") return {Transform::r2c, Transform::c2r};
  return {Transform::c2c_forward, Transform::c2c_inverse, Transform::r2c, Transform::c2r};
}

// As many transforms as have their input rows in `batch_bytes` (at least one).
std::size_t batch_for(const fft::PlanSpec& spec, std::size_t batch_bytes) {
  const std::size_t row_floats = fft::input_row_elements(spec) * (spec.transform == Transform::r2c ? 1 : 2);
  return std::max<std::size_t>(1, batch_bytes / (row_floats * sizeof(float)));
}
#endif

int run_fft_tune(const FftTuneOptions& o) {
  const std::vector<std::size_t> sizes = o.sizes.empty() ? default_sizes() : o.sizes;
  const std::size_t batch_bytes = parse_bytes(o.batch_bytes);
  const std::string path = o.wisdom.empty() ? gpu::default_wisdom_path() : o.wisdom;
  if (path.empty()) {
    throw UsageError("--wisdom: no default place for the wisdom file (HOME, XDG_CACHE_HOME and "
                     "PRISM_FFT_WISDOM are unset); give --wisdom PATH");
  }
  // A file we could not merge into fails now, not after minutes of measuring.
  try {
    (void)gpu::Wisdom::load(path);
  } catch (const gpu::WisdomError& e) {
    throw gpu::WisdomError(e.path(), e.reason() + " (fix or delete it; prism fft-tune writes a new one)");
  }

#if PRISM_HAVE_CUDA
  const fft::Availability availability = fft::cuda_device_availability();
  if (!availability.available) {
    std::fprintf(stderr,
                 "prism: fft-tune needs a CUDA device to measure on: %s\n"
                 "The wisdom is per device: run prism fft-tune on the machine whose GPU will run "
                 "the FFTs.\n",
                 printable(availability.reason).c_str());
    return kExitFailure;
  }
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || o.device < 0 || o.device >= device_count) {
    throw UsageError("--device " + std::to_string(o.device) + ": this machine has " +
                     std::to_string(device_count) + " CUDA device(s), numbered from 0");
  }
  const gpu::DeviceId device = gpu::cuda_device_id(o.device);
  std::printf("tuning on %s, wisdom %s\n", gpu::describe(device).c_str(), path.c_str());
  std::printf("%9s  %-11s %8s  %10s  %10s  %8s  %10s  %8s  %s\n", "length", "transform", "batch",
              "default ms", "best ms", "speed-up", "candidates", "tuning s", "winner");
  std::fflush(stdout);

  const std::vector<Transform> transforms = transforms_for(o.transform);
  const bool show_progress = ProgressBar::stderr_is_terminal();
  const std::size_t total = transforms.size() * sizes.size();
  std::size_t done = 0;
  std::size_t improved = 0;
  std::vector<std::string> rejections;
  for (Transform transform : transforms) {
    for (std::size_t n : sizes) {
      fft::PlanSpec spec;
      spec.n = n;
      spec.transform = transform;
      spec.batch = batch_for(spec, batch_bytes);
      const std::string name(gpu::transform_name(transform));

      gpu::TuneSettings settings;
      settings.runs = o.runs;
      if (show_progress) {
        settings.progress = [&](std::size_t candidate, std::size_t candidates) {
          std::fprintf(stderr, "\r\033[Kfft-tune %zu/%zu: %s n=%zu, candidate %zu/%zu", done + 1, total,
                       name.c_str(), n, candidate + 1, candidates);
          std::fflush(stderr);
        };
      }
      gpu::WisdomEntry entry;
      try {
        entry = gpu::tune(spec, o.device, settings);
      } catch (...) {
        if (show_progress) std::fputs("\r\033[K", stderr);  // the error gets a line of its own
        throw;
      }
      if (show_progress) std::fputs("\r\033[K", stderr);
      ++done;

      const bool is_default = gpu::same_options(entry.best, gpu::PlannerOptions{});
      improved += is_default ? 0 : 1;
      std::printf("%9zu  %-11s %8zu  %10.4f  %10.4f  %7.2fx  %10zu  %8.1f  %s\n", n, name.c_str(),
                  spec.batch, entry.default_ms, entry.best_ms, entry.default_ms / entry.best_ms,
                  entry.candidates.size(), entry.tune_seconds,
                  is_default ? "default" : gpu::describe(entry.best).c_str());
      std::fflush(stdout);
      for (const gpu::CandidateTime& c : entry.candidates) {
        if (!c.rejected.empty()) {
          rejections.push_back(name + " n=" + std::to_string(n) + ", " + gpu::describe(c.options) +
                               ": " + c.rejected);
        }
      }
      // Recorded length by length: an interrupted run keeps what it measured.
      gpu::Wisdom measured;
      measured.record(entry);
      gpu::update_wisdom_file(path, measured);
    }
  }
  for (const std::string& rejection : rejections) {
    std::fprintf(stderr, "prism: warning: candidate rejected (a kernel bug): %s\n", rejection.c_str());
  }
  std::printf("%zu of %zu tuned transforms plan with other than the default options; wisdom written "
              "to %s\n", improved, total, path.c_str());
  return kExitOk;
#else
  (void)batch_bytes;
  std::fprintf(stderr,
               "prism: fft-tune needs a CUDA device to measure on: this build has no CUDA support "
               "(no CUDA compiler was found when it was configured)\n");
  return kExitFailure;
#endif
}

}  // namespace

Runner add_fft_tune_command(CLI::App& app) {
  auto o = std::make_shared<FftTuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fft-tune",
      "Tune prism's CUDA FFT on this GPU: for each length and transform, time every planner "
      "candidate and record the fastest in the wisdom file, which planning with --backend cuda "
      "then follows. The candidates: transforms per thread block of each kind of pass; for "
      "complex lengths 2^15..2^17 (real ones of twice that), one pass on a thread-block cluster "
      "of 2, 4 or 8 blocks instead of the four-step's two (GPUs with clusters); 16 or 32 "
      "elements per thread for rows of 8192; decimal teams (10 elements per thread) or the plain "
      "rows kernel for rows of 500, 1000, 2000 and 4000; for lengths that take Bluestein's "
      "algorithm (a prime factor above 127, or no split into two passes), the six convolution "
      "lengths the planner estimates cheapest, and Rader's algorithm for the primes that can "
      "take it; and for lengths in two passes (four-step), the radix order across the passes: "
      "every split n1 x n2 of the complex length (the half length of a real one) whose sides "
      "both have compiled kernels. Not tuned, because the planner "
      "takes them for accuracy: the direct DFT of short lengths, the prime stages (radices 37 to "
      "127) and c2r of the full length.");
  cmd->footer(
      "Each candidate's output is first compared with the default plan's (a wrong one cannot "
      "win); then it is timed with CUDA events, median of --runs executions on fresh random "
      "data, plan creation excluded. A candidate must beat the default by 1% to replace it. "
      "Each line gives the number of candidates (rejected ones included) and the seconds the "
      "length took (plans included), recorded in the entry as \"tune_seconds\".\n"
      "The wisdom is keyed by GPU (name and compute capability), transform, length and batch "
      "class (the points per execute, in powers of 4; planning takes the nearest class tuned). "
      "It is written after each length (merged with what the file holds, atomically), so an "
      "interrupted run keeps what it measured.\n"
      "Wisdom file: --wisdom, else $PRISM_FFT_WISDOM, else $XDG_CACHE_HOME/prism/fft-wisdom.json, "
      "else ~/.cache/prism/fft-wisdom.json. Delete it to plan with the defaults again. In an "
      "entry's \"best\" options, \"direct_dft\", \"rader\" and \"full_length_c2r\" (-1 never, 1 "
      "wherever it can) and \"prime_stages\" (0: Bluestein instead) override the planner's rules "
      "by hand.\n"
      "Examples:\n"
      "  prism fft-tune                                  powers of two 256..65536, all transforms\n"
      "  prism fft-tune --sizes 1000,1920,4096 --transform r2c\n"
      "  prism fft-tune --sizes 4097,65537 --transform c2c  (Bluestein lengths)\n"
      "  prism fft-tune --sizes 48000,1048576 --transform c2c  (four-step splits)\n"
      "  prism fft-tune --sizes 1048576 --batch-bytes 512M --wisdom ./wisdom.json\n"
      "Exit codes: 0 done, 1 no CUDA device, a CUDA failure or a wisdom file that cannot be read "
      "or written, 2 usage error.");
  whole_number_in(cmd->add_option("--sizes", o->sizes, "Transform lengths, comma-separated; longer ones go to cuFFT [default: 256,512,...,65536]"),
                  2, gpu::kMaxPlannedLength)
      ->delimiter(',');
  cmd->add_option("--transform", o->transform,
                  "c2c (forward and inverse), r2c (r2c and c2r) or all")
      ->check(CLI::IsMember({"c2c", "r2c", "all"}))
      ->capture_default_str();
  cmd->add_option("--batch-bytes", o->batch_bytes,
                  "Input bytes per execute: the batch is as many transforms as fit (K, M, G "
                  "suffixes, binary)")
      ->capture_default_str();
  cmd->add_option("--wisdom", o->wisdom, "Wisdom file to merge the results into [default: see below]");
  // Fewer than 20 runs make the median noise.
  whole_number_in(cmd->add_option("--runs", o->runs, "Timed executions per candidate (the median counts)"), 20,
                  1000000)
      ->capture_default_str();
  whole_number_in(cmd->add_option("--device", o->device, "CUDA device to tune (0-based)"), 0, kMaxDeviceIndex)
      ->capture_default_str();
  return [o] { return run_fft_tune(*o); };
}

}  // namespace prism::app
