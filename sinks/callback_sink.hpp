// CallbackSink: rows of spectra handed to the embedding application's own functions, on the
// sink's thread, in order: the way a program that links prism receives results.
//
//   CallbackSink sink({.on_begin = [](const SpectrumLayout& l) { ... },     // optional
//                      .on_rows = [](const float* rows, std::size_t count, std::uint64_t first_row) { ... },
//                      .on_end = [](CallbackSink::End how) { ... }});      // optional
//
// on_rows gets `count` rows of layout.columns floats, valid only during the call (the buffer
// is reused). A function that throws fails the run like any sink's error (the message names
// this sink). Exactly one on_end follows: completed, interrupted or failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "pipeline/row_sink.hpp"
#include "pipeline/spectrum_layout.hpp"

namespace prism {

class CallbackSink final : public RowSink {
 public:
  enum class End { completed, interrupted, failed };

  struct Functions {
    std::function<void(const SpectrumLayout& layout)> on_begin = {};
    std::function<void(const float* rows, std::size_t count, std::uint64_t first_row)> on_rows = {};
    std::function<void(End how)> on_end = {};
  };

  // `name` is how the run summary and errors name this sink.
  explicit CallbackSink(Functions functions, std::string name = "callback")
      : functions_(std::move(functions)), name_(std::move(name)) {}

  void begin(const SpectrumLayout& layout) override {
    if (functions_.on_begin) functions_.on_begin(layout);
  }
  void write(const float* rows, std::size_t count, std::uint64_t first_row) override {
    if (functions_.on_rows) functions_.on_rows(rows, count, first_row);
    rows_written_ += count;
  }
  void finish(bool complete) override {
    if (functions_.on_end) functions_.on_end(complete ? End::completed : End::interrupted);
  }
  void abort() noexcept override {
    try {
      if (functions_.on_end) functions_.on_end(End::failed);
    } catch (...) {  // abort() must not throw; the run already reports its error
    }
  }
  std::uint64_t rows_written() const override { return rows_written_; }
  std::string describe() const override { return name_; }

 private:
  Functions functions_;
  std::string name_;
  std::uint64_t rows_written_ = 0;
};

}  // namespace prism
