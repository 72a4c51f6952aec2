// Raw sample files (see raw_file_writer.hpp).
#include "sinks/raw_file_writer.hpp"

#include <stdexcept>

#include "pipeline/errors.hpp"

namespace prism {

RawFileWriter::RawFileWriter(std::string path, SampleFormat format)
    : path_(std::move(path)), format_(format), file_(path_) {}

std::string RawFileWriter::describe() const { return path_ + " (raw " + std::string(format_name(format_)) + ")"; }

void RawFileWriter::begin(const PortDescription& input) {
  const StreamInfo& info = input.samples;
  if (begun_) throw std::logic_error("RawFileWriter::begin called twice");
  if (info.format != format_)
    throw UsageError(path_ + ": the extension names " + std::string(format_name(format_)) +
                     " samples, but the stream is " + std::string(format_name(info.format)) +
                     " (name the file after the stream's format, or write SigMF)");
  if (info.channels == 0) throw InputError(path_, "stream has no channels");
  frame_bytes_ = info.frame_bytes();
  file_.open();
  begun_ = true;
}

void RawFileWriter::write(const Chunk& chunk) {
  if (!begun_ || finished_) throw std::logic_error("RawFileWriter::write outside begin()/finish()");
  if (chunk.items == 0) return;
  if (chunk.data == nullptr) throw std::invalid_argument("RawFileWriter::write: null data");
  file_.write(chunk.data, chunk.items * frame_bytes_);
  samples_written_ += chunk.items;
}

void RawFileWriter::finish(bool /*complete*/) {
  // An interrupted run's samples are whole samples too: the file is what was written.
  if (!begun_ || finished_) return;
  try {
    file_.commit();
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void RawFileWriter::abort() noexcept {
  if (finished_) return;
  file_.discard();
  finished_ = true;
}

}  // namespace prism
