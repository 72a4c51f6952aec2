// RowSink: where rows of spectra go (an NPY file, a PNG image, the viewer, a callback).
// A sink knows nothing of sources or FFTs. Each sink runs on its own thread.
//
// Life cycle: begin() once, write() for each batch of rows in order, then exactly one of
//   finish(complete=true)   the input ended and every row arrived: commit the output;
//   finish(complete=false)  the run was interrupted (Ctrl-C): commit what arrived, marked as
//                           incomplete where the format allows;
//   abort()                 an error ended the run: remove the partial output, so that no
//                           partial file is left pretending to be complete.
// Sinks write to a temporary name and rename it into place on finish().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "pipeline/spectrum_layout.hpp"

namespace prism {

class RowSink {
 public:
  virtual ~RowSink() = default;

  // Opens the output. Throws InputError (path and reason) when it cannot be created.
  virtual void begin(const SpectrumLayout& layout) = 0;

  // `count` rows of layout.columns floats, the first being row number `first_row`.
  virtual void write(const float* rows, std::size_t count, std::uint64_t first_row) = 0;

  virtual void finish(bool complete) = 0;
  virtual void abort() noexcept = 0;

  // Rows this sink has written so far.
  virtual std::uint64_t rows_written() const = 0;

  // What it writes, for the run summary: e.g. "out.npy (+ out.json)".
  virtual std::string describe() const = 0;
};

}  // namespace prism
