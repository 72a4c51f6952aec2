// How our CUDA backend runs a multi-dimensional transform (fft.hpp's NdPlanSpec): as batched 1-D
// transforms along each axis. Host-only C++, so that the steps the GPU runs are the ones the host
// executor checks in CI (transform by transform: the blocks' work split is the device's to check).
//
// The last (contiguous) axis takes a row step: a 1-D plan of the planner over every row. Every
// other axis takes, where it can, a columns step (fft_plan.hpp's ColumnsSpec): one pass over the
// transforms along that axis, side by side, each block reading and writing runs of neighbouring
// columns, so that the array moves through memory once per axis. For r2c the row step is the
// r2c (the last axis becomes L/2+1) and the columns steps follow; c2r runs the columns steps
// first and the c2r rows last.
//
// Where any axis does not take a columns pass (a length beyond one block, with a prime factor
// from 17 up, or too long for a block to hold a sector's worth of columns: columns_pass_fits), the
// whole transform turns the array's axes round instead: a row step transforms every row along
// the last axis, and a transpose moves that axis to the front, viewing each array as an M × L matrix (L the last
// length, M the rest) and writing it L × M. After one row step and one transpose per axis, every
// axis has been the contiguous one once and the axes are back in their order. For c2r the
// transposes come first: inverse c2c rows along the outer axes, and the c2r rows last, along the
// original last axis. A transpose with M = 1 or L = 1 moves nothing and is left out. Unit lengths
// are dropped first (nd_effective_shape).
//
// Buffers: the input is only read; each step writes to a buffer other than the one it reads.
// c2c and r2c alternate between one scratch array and the output, ending in the output; c2r
// needs two scratch arrays where it has three steps or more, as its complex intermediates do
// not fit its real output.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fft/cuda/fft_complex.hpp"
#include "fft/cuda/fft_pass.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/fft.hpp"

namespace prism::fft::gpu {

enum class NdBuffer { input, output, scratch0, scratch1 };

struct NdStep {
  enum class Kind { rows, columns, transpose };
  Kind kind = Kind::rows;
  NdBuffer from = NdBuffer::input;
  NdBuffer to = NdBuffer::output;
  // rows: 1-D transforms of this spec's length and kind; the plan's batch is rows_per_array
  // times the arrays of the batch (spec.batch is that for the whole batch). columns: the
  // transforms' length and direction, batch the groups of the whole batch.
  PlanSpec rows;
  // rows: transforms per array; columns: groups of `columns` side-by-side transforms per array
  // (columns_spec); transpose: each array is a rows_per_array × columns complex matrix,
  // row-major, written columns × rows_per_array.
  long long rows_per_array = 0;
  long long columns = 0;
};

// The ColumnsSpec of a columns step over `arrays` arrays.
inline ColumnsSpec columns_spec(const NdStep& step, long long arrays) {
  return ColumnsSpec{static_cast<long long>(step.rows.n), step.columns,
                     static_cast<std::size_t>(step.rows_per_array * arrays), step.rows.transform == Transform::c2c_inverse};
}

struct NdLayout {
  NdPlanSpec spec;
  std::vector<NdStep> steps;
  int scratch_arrays = 0;          // 0, 1 (scratch0) or 2 (scratch0 and scratch1)
  long long scratch_elements = 0;  // complex elements of each scratch array, whole batch
  std::string algorithm;           // e.g. "rows 256 r2c, columns 256 c2c_forward x 129"
};

// Largest array (elements) our backend plans: the 1-D steps' batches and the transposes' offsets
// stay far inside long long, and the grid's strides inside what the kernels step over.
inline constexpr std::size_t kMaxNdElements = std::size_t{1} << 31;

// Throws std::invalid_argument as check_nd_spec, with kMaxNdElements, and for a length above
// 2^30 (beyond what any 1-D plan, ours or cuFFT's, takes), naming the shape. Columns steps only
// within max_shared_bytes of shared memory per block (the device's limit).
NdLayout make_nd_layout(const NdPlanSpec& spec, long long max_shared_bytes = kMaxSharedBytesPerBlock);

// The element map of a transpose of contiguous rows × columns complex matrices into columns × rows
// ones (transpose_in_offset and transpose_out_offset of the four-step's transpose), shared by
// the device's kernel and the host.
inline TransposeDesc nd_transpose_desc(long long rows, long long columns) {
  TransposeDesc d;
  d.rows = rows;
  d.columns = columns;
  d.in_dist = d.out_dist = rows * columns;
  return d;
}

// Transposes `arrays` row-major rows × columns complex matrices (array t at t·rows·columns) into
// columns × rows matrices. The host side of the device's transpose kernel.
void transpose_on_host(const Cf* in, Cf* out, long long arrays, long long rows, long long columns);

// Runs the layout's steps for the first `count` arrays on the host: the row and columns steps
// through the host executor of our planner's layouts, the transposes through transpose_on_host.
void execute_nd_on_host(const NdLayout& layout, const void* in, void* out, std::size_t count);

}  // namespace prism::fft::gpu
