// The backend-independent half of the FFT interface (fft.hpp): row sizes of the contiguous
// layout, backend names, and which backends this build and this machine can run.
//
// Contents:
//   1. row sizes        input_row_elements, output_row_elements
//   2. backend names    backend_name, parse_backend
//   3. availability     backend_availability (the one place the CUDA backends report in),
//                       resolve_backend
#include <stdexcept>
#include <string>

#include "fft/fft.hpp"
#include "pipeline/errors.hpp"

#if PRISM_HAVE_CUDA
#include "fft/cuda/cuda_backends.hpp"
#endif

namespace prism::fft {

// ---- 1. row sizes ------------------------------------------------------------------------

// A real row used in place holds the n/2+1 complex outputs, hence 2·(n/2+1) floats (FFTW's
// padded layout); out of place it holds exactly n floats.
std::size_t input_row_elements(const PlanSpec& spec) {
  switch (spec.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse: return spec.n;
    case Transform::r2c: return spec.in_place ? 2 * (spec.n / 2 + 1) : spec.n;
    case Transform::c2r: return spec.n / 2 + 1;
  }
  return 0;
}

std::size_t output_row_elements(const PlanSpec& spec) {
  switch (spec.transform) {
    case Transform::c2c_forward:
    case Transform::c2c_inverse: return spec.n;
    case Transform::r2c: return spec.n / 2 + 1;
    case Transform::c2r: return spec.in_place ? 2 * (spec.n / 2 + 1) : spec.n;
  }
  return 0;
}

// ---- 2. backend names --------------------------------------------------------------------

std::string_view backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu: return "cpu";
    case BackendKind::cuda: return "cuda";
    case BackendKind::cufft: return "cufft";
    case BackendKind::automatic: return "auto";
  }
  return "?";
}

BackendKind parse_backend(std::string_view name) {
  for (BackendKind kind :
       {BackendKind::cpu, BackendKind::cuda, BackendKind::cufft, BackendKind::automatic})
    if (backend_name(kind) == name) return kind;
  throw UsageError("unknown --backend '" + std::string(name) +
                   "' (choose cpu, cuda, cufft, auto)");
}

// ---- 3. availability ---------------------------------------------------------------------

// Both GPU backends need the same thing, a usable device; fft/cuda says whether there is one.

Availability backend_availability(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu: return {true, {}};
    case BackendKind::cuda:
    case BackendKind::cufft:
#if PRISM_HAVE_CUDA
      return cuda_device_availability();
#else
      return {false, "this build has no CUDA support (no CUDA compiler was found when it was configured)"};
#endif
    case BackendKind::automatic: return {true, {}};
  }
  return {false, "unknown backend"};
}

BackendKind resolve_backend(BackendKind kind) {
  if (kind == BackendKind::automatic) {
    for (BackendKind gpu : {BackendKind::cuda, BackendKind::cufft})
      if (backend_availability(gpu).available) return gpu;
    return BackendKind::cpu;
  }
  const Availability availability = backend_availability(kind);
  if (!availability.available)
    throw std::runtime_error(std::string(backend_name(kind)) + " is not available: " + availability.reason);
  return kind;
}

}  // namespace prism::fft
