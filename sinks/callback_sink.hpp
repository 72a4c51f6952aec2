// CallbackSink: items handed to the embedding application's own functions, on the sink's
// thread, in order: the way a program that links prism receives results.
//
//   CallbackSink sink(PortKind::rows,
//                     {.on_begin = [](const PortDescription& d) { ... },   // optional
//                      .on_chunk = [](const Chunk& c) { ... c.as<float>(), c.items, c.first_item },
//                      .on_end = [](CallbackSink::End how) { ... }});     // optional
//
// on_chunk gets `chunk.items` items (rows of d.rows.columns floats, or samples of every channel in
// d.samples.format), valid only during the call (the chunk goes back to its pool). A function that
// throws fails the run like any sink's error (the message names this sink). Exactly one on_end
// follows: completed, interrupted or failed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "../pipeline/stage.hpp"

namespace prism {

class CallbackSink final : public Sink {
 public:
  enum class End { completed, interrupted, failed };

  struct Functions {
    std::function<void(const PortDescription& input)> on_begin = {};
    std::function<void(const Chunk& chunk)> on_chunk = {};
    std::function<void(End how)> on_end = {};
  };

  // `kind`: what it takes; `name` is how the run summary and errors name this sink.
  CallbackSink(PortKind kind, Functions functions, std::string name = "callback")
      : kind_(kind), functions_(std::move(functions)), name_(std::move(name)) {}

  bool accepts(PortKind kind) const override { return kind == kind_; }
  void begin(const PortDescription& input) override {
    if (functions_.on_begin) functions_.on_begin(input);
  }
  void write(const Chunk& chunk) override {
    if (functions_.on_chunk) functions_.on_chunk(chunk);
    items_written_ += chunk.items;
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
  std::uint64_t items_written() const override { return items_written_; }
  std::string describe() const override { return name_; }

 private:
  PortKind kind_;
  Functions functions_;
  std::string name_;
  std::uint64_t items_written_ = 0;
};

}  // namespace prism
