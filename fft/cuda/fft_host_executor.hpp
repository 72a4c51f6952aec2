// Runs a PlanLayout on the host, pass by pass and stage by stage, with the same index maps,
// tables, butterflies and load/store rules as the CUDA kernels. It exists so that CI machines
// without a GPU check every plan shape the GPU runs against a double-precision reference.
#pragma once

#include <cstddef>

#include "fft/cuda/fft_plan.hpp"

namespace prism::fft::gpu {

// `in` and `out` are host buffers in the layout of fft.hpp for `rows` transforms (rows of the
// batch).
void execute_on_host(const PlanLayout& layout, const void* in, void* out, std::size_t rows);

// real_butterfly_twiddle_of (fft_pass.hpp) for a radix known at run time; std::invalid_argument
// for a radix without unit roots (has_unit_roots).
Cf real_butterfly_twiddle(int radix, Cf w_even, Cf w_odd, int r);

}  // namespace prism::fft::gpu
