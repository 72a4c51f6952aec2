// SigmfWriter: a SigMF recording (.sigmf-data + .sigmf-meta), see sigmf_writer.hpp.
#include "sinks/sigmf_writer.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/iso8601.hpp"

namespace prism {

std::string SigmfWriter::base_path(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".sigmf-meta" || extension == ".sigmf-data" || extension == ".sigmf")
    return path.substr(0, path.size() - extension.size());
  return path;
}

SigmfWriter::SigmfWriter(std::string path, SinkOptions options)
    : base_(base_path(path)),
      options_(std::move(options)),
      data_file_(base_ + ".sigmf-data"),
      meta_file_(base_ + ".sigmf-meta") {}

SigmfWriter::~SigmfWriter() = default;  // the PartialFiles remove what was not committed

std::string SigmfWriter::describe() const {
  return meta_file_.path() + " (+ .sigmf-data)";
}

void SigmfWriter::begin(const PortDescription& input) {
  const StreamInfo& info = input.samples;
  if (begun_) throw std::logic_error("SigmfWriter::begin called twice");
  if (info.channels == 0) throw InputError(meta_file_.path(), "stream has no channels");
  info_ = info;
  data_file_.open();
  try {
    meta_file_.open();  // both names checked before any processing
  } catch (...) {
    data_file_.discard();
    throw;
  }
  begun_ = true;
}

void SigmfWriter::write(const Chunk& chunk) {
  const std::byte* data = chunk.data;
  const std::size_t samples = chunk.items;
  if (!begun_ || finished_) throw std::logic_error("SigmfWriter::write outside begin()/finish()");
  if (samples == 0) return;
  if (data == nullptr) throw std::invalid_argument("SigmfWriter::write: null data");
  data_file_.write(data, samples * info_.frame_bytes());
  samples_written_ += samples;
}

void SigmfWriter::finish(bool complete) {
  if (!begun_ || finished_) return;
  try {
    nlohmann::ordered_json global;
    global["core:datatype"] = std::string(sigmf_datatype(info_.format));
    global["core:sample_rate"] = info_.sample_rate;
    global["core:version"] = "1.0.0";
    global["core:recorder"] = "prism";
    if (info_.channels > 1) global["core:num_channels"] = info_.channels;
    std::string description = options_.description;
    if (!complete) {
      description += (description.empty() ? "" : " ");
      description += "(interrupted: the recording ended before its input did)";
    }
    if (!description.empty()) global["core:description"] = description;

    // The recording starts at the stream's start time; this file at start_offset_s after it.
    const double offset = info_.start_offset_s;
    nlohmann::ordered_json capture;
    capture["core:sample_start"] = 0;
    capture["core:frequency"] = info_.center_frequency;
    if (offset == 0.0) {
      if (!info_.start_time.empty()) capture["core:datetime"] = info_.start_time;
    } else if (const std::optional<UnixTime> start = iso8601_unix_time(info_.start_time)) {
      capture["core:datetime"] = iso8601_text(*start, offset);
    }

    // Retunes and annotations carry times from the recording's start (rate-changing stages keep
    // them): back to samples of this file at this stream's rate.
    auto sample_at = [this, offset](double seconds) {
      return static_cast<std::uint64_t>(std::llround(std::max(seconds - offset, 0.0) * info_.sample_rate));
    };
    nlohmann::ordered_json captures = nlohmann::ordered_json::array({capture});
    for (const Retune& r : info_.retunes) {
      nlohmann::ordered_json retune;
      retune["core:sample_start"] = sample_at(r.time);
      retune["core:frequency"] = r.center_frequency;
      captures.push_back(std::move(retune));
    }
    nlohmann::ordered_json annotations = nlohmann::ordered_json::array();
    for (const Annotation& a : info_.annotations) {
      nlohmann::ordered_json entry;
      entry["core:sample_start"] = sample_at(a.start);
      // An annotation that began before this file keeps the part inside it.
      if (a.duration) entry["core:sample_count"] = sample_at(a.start + *a.duration) - sample_at(a.start);
      if (a.frequency_low) entry["core:freq_lower_edge"] = *a.frequency_low;
      if (a.frequency_high) entry["core:freq_upper_edge"] = *a.frequency_high;
      if (!a.label.empty()) entry["core:label"] = a.label;
      if (!a.comment.empty()) entry["core:comment"] = a.comment;
      annotations.push_back(std::move(entry));
    }

    nlohmann::ordered_json meta;
    meta["global"] = global;
    meta["captures"] = captures;
    meta["annotations"] = annotations;
    const std::string text =
        meta.dump(4, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";

    data_file_.close();
    meta_file_.write(text.data(), text.size());
    meta_file_.close();
    data_file_.publish();
    meta_file_.publish();
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void SigmfWriter::abort() noexcept {
  if (finished_) return;
  data_file_.discard();
  meta_file_.discard();
  finished_ = true;
}

}  // namespace prism
