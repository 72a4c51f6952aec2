// The steps of a multi-dimensional transform on our CUDA backend (row, columns and transpose
// steps), and their host execution (fft_nd_layout.hpp).
#include "fft/cuda/fft_nd_layout.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "fft/cuda/fft_host_executor.hpp"
#include "fft/cuda/fft_plan.hpp"
#include "fft/cuda/fft_wisdom.hpp"

namespace prism::fft::gpu {
namespace {

long long product(const std::vector<long long>& lengths) {
  return std::accumulate(lengths.begin(), lengths.end(), 1LL, std::multiplies<>());
}
// The product of lengths[from] .. lengths[to - 1].
long long product(const std::vector<long long>& lengths, std::size_t from, std::size_t to) {
  return std::accumulate(lengths.begin() + static_cast<std::ptrdiff_t>(from),
                         lengths.begin() + static_cast<std::ptrdiff_t>(to), 1LL, std::multiplies<>());
}

// The last axis to the front: after a transpose of (rest) × L to L × (rest).
void rotate_last_to_front(std::vector<long long>& lengths) {
  std::rotate(lengths.begin(), lengths.end() - 1, lengths.end());
}

NdStep rows_step(long long n, Transform transform, long long rows_per_array, std::size_t batch) {
  NdStep step;
  step.kind = NdStep::Kind::rows;
  step.rows.n = static_cast<std::size_t>(n);
  step.rows.batch = static_cast<std::size_t>(rows_per_array) * batch;
  step.rows.transform = transform;
  step.rows_per_array = rows_per_array;
  return step;
}

// The transpose that takes the last axis of `lengths` to the front, if it moves anything.
void add_rotation(std::vector<NdStep>& steps, std::vector<long long>& lengths) {
  const long long columns = lengths.back();
  const long long rows = product(lengths) / columns;
  if (rows > 1 && columns > 1) {
    NdStep step;
    step.kind = NdStep::Kind::transpose;
    step.rows_per_array = rows;
    step.columns = columns;
    steps.push_back(step);
  }
  rotate_last_to_front(lengths);
}

// A columns step along axis `axis` of `lengths` (the last as stored: L/2+1 for r2c and c2r).
NdStep columns_step(const std::vector<long long>& lengths, std::size_t axis, Transform direction, std::size_t batch) {
  NdStep step;
  step.kind = NdStep::Kind::columns;
  step.rows.n = static_cast<std::size_t>(lengths[axis]);
  step.rows.transform = direction;
  step.rows_per_array = product(lengths, 0, axis);
  step.columns = product(lengths, axis + 1, lengths.size());
  step.rows.batch = static_cast<std::size_t>(step.rows_per_array) * batch;
  return step;
}

// Whether every axis but the last takes a columns pass.
bool columns_fit(const std::vector<long long>& lengths, long long max_shared_bytes) {
  for (std::size_t axis = 0; axis + 1 < lengths.size(); ++axis) {
    if (!columns_pass_fits(lengths[axis], product(lengths, axis + 1, lengths.size()), max_shared_bytes)) return false;
  }
  return true;
}

std::string describe_step(const NdStep& step) {
  if (step.kind == NdStep::Kind::transpose)
    return "transpose " + std::to_string(step.rows_per_array) + "x" + std::to_string(step.columns);
  std::string text = step.kind == NdStep::Kind::columns ? "columns " : "rows ";
  text += std::to_string(step.rows.n);
  text += ' ';
  text += transform_name(step.rows.transform);
  if (step.kind == NdStep::Kind::columns) text += " x " + std::to_string(step.columns);
  return text;
}

}  // namespace

NdLayout make_nd_layout(const NdPlanSpec& spec, long long max_shared_bytes) {
  check_nd_spec(spec, kMaxNdElements);
  for (std::size_t length : spec.shape)
    if (length > (std::size_t{1} << 30))
      throw std::invalid_argument("FFT shape " + shape_text(spec.shape) + " has a length above 2^30");
  NdLayout layout;
  layout.spec = spec;
  const std::vector<std::size_t> shape = nd_effective_shape(spec);
  std::vector<long long> lengths(shape.begin(), shape.end());
  const long long last = lengths.back();
  const long long half = last / 2 + 1;
  const Transform direction =
      spec.transform == Transform::c2c_inverse || spec.transform == Transform::c2r ? Transform::c2c_inverse
                                                                                   : Transform::c2c_forward;
  std::vector<NdStep>& steps = layout.steps;
  const bool real = spec.transform == Transform::r2c || spec.transform == Transform::c2r;
  std::vector<long long> stored = lengths;  // the last axis as the complex arrays hold it
  if (real) stored.back() = half;
  const long long outer_rows = product(lengths) / last;
  if (columns_fit(stored, max_shared_bytes)) {
    // Rows along the last axis, then (c2r: first) a columns step along each other axis.
    if (spec.transform != Transform::c2r)
      steps.push_back(rows_step(last, real ? Transform::r2c : direction, outer_rows, spec.batch));
    for (std::size_t axis = 0; axis + 1 < stored.size(); ++axis)
      steps.push_back(columns_step(stored, spec.transform == Transform::c2r ? axis : stored.size() - 2 - axis,
                                   direction, spec.batch));
    if (spec.transform == Transform::c2r) steps.push_back(rows_step(last, Transform::c2r, outer_rows, spec.batch));
  } else if (spec.transform == Transform::c2r) {
    lengths.back() = half;
    for (std::size_t axis = 0; axis + 1 < shape.size(); ++axis) {
      add_rotation(steps, lengths);
      steps.push_back(rows_step(lengths.back(), direction, product(lengths) / lengths.back(), spec.batch));
    }
    add_rotation(steps, lengths);
    steps.push_back(rows_step(last, Transform::c2r, product(lengths) / half, spec.batch));
  } else {
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      const bool real_rows = axis == 0 && spec.transform == Transform::r2c;
      const long long n = lengths.back();
      steps.push_back(rows_step(n, real_rows ? Transform::r2c : direction, product(lengths) / n, spec.batch));
      if (real_rows) lengths.back() = half;
      add_rotation(steps, lengths);
    }
  }

  // Buffers: step j reads what step j-1 wrote (the input for the first) and writes elsewhere;
  // the last writes the output. c2c and r2c: the output and scratch0 alternate, counted back from
  // the end. c2r: scratch0 and scratch1 alternate, and only the last step writes the (real) output.
  const std::size_t count = steps.size();
  NdBuffer previous = NdBuffer::input;
  for (std::size_t j = 0; j < count; ++j) {
    NdBuffer to = NdBuffer::output;
    if (j + 1 < count) {
      if (spec.transform == Transform::c2r) {
        to = j % 2 == 0 ? NdBuffer::scratch0 : NdBuffer::scratch1;
      } else {
        to = (count - 1 - j) % 2 == 0 ? NdBuffer::output : NdBuffer::scratch0;
      }
    }
    steps[j].from = previous;
    steps[j].to = to;
    previous = to;
    if (to == NdBuffer::scratch0) layout.scratch_arrays = std::max(layout.scratch_arrays, 1);
    if (to == NdBuffer::scratch1) layout.scratch_arrays = 2;
  }
  // Every intermediate is complex: the full array for c2c, the half-spectrum array for r2c and c2r.
  const long long complex_elements = static_cast<long long>(
      spec.transform == Transform::c2r ? nd_input_elements(spec) : nd_output_elements(spec));
  if (layout.scratch_arrays > 0)
    layout.scratch_elements = complex_elements * static_cast<long long>(spec.batch);

  for (const NdStep& step : steps) layout.algorithm += (layout.algorithm.empty() ? "" : ", ") + describe_step(step);
  return layout;
}

void transpose_on_host(const Cf* in, Cf* out, long long arrays, long long rows, long long columns) {
  const TransposeDesc d = nd_transpose_desc(rows, columns);
  for (long long t = 0; t < arrays; ++t)
    for (long long r = 0; r < rows; ++r)
      for (long long k = 0; k < columns; ++k) out[transpose_out_offset(d, t, r, k)] = in[transpose_in_offset(d, t, r, k)];
}

void execute_nd_on_host(const NdLayout& layout, const void* in, void* out, std::size_t count) {
  count = std::min(count, layout.spec.batch);
  if (count == 0) return;
  std::vector<Cf> scratch0(static_cast<std::size_t>(layout.scratch_arrays >= 1 ? layout.scratch_elements : 0));
  std::vector<Cf> scratch1(static_cast<std::size_t>(layout.scratch_arrays >= 2 ? layout.scratch_elements : 0));
  auto buffer = [&](NdBuffer which) -> void* {
    switch (which) {
      case NdBuffer::input: return const_cast<void*>(in);
      case NdBuffer::output: return out;
      case NdBuffer::scratch0: return scratch0.data();
      case NdBuffer::scratch1: return scratch1.data();
    }
    return nullptr;
  };
  const long long arrays = static_cast<long long>(count);
  for (const NdStep& step : layout.steps) {
    if (step.kind == NdStep::Kind::transpose) {
      transpose_on_host(static_cast<const Cf*>(buffer(step.from)), static_cast<Cf*>(buffer(step.to)), arrays,
                        step.rows_per_array, step.columns);
    } else if (step.kind == NdStep::Kind::columns) {
      const ColumnsSpec columns = columns_spec(step, arrays);
      execute_on_host(make_columns_layout(columns), buffer(step.from), buffer(step.to), columns.batch);
    } else {
      const PlanLayout rows = make_plan_layout(step.rows);
      execute_on_host(rows, buffer(step.from), buffer(step.to), static_cast<std::size_t>(step.rows_per_array * arrays));
    }
  }
}

}  // namespace prism::fft::gpu
