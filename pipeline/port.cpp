// Port descriptions and memory domains (see port.hpp).
#include "pipeline/port.hpp"

#include <sstream>

namespace prism {

const char* port_kind_name(PortKind kind) { return kind == PortKind::samples ? "samples" : "rows"; }

PortDescription PortDescription::of_samples(const StreamInfo& info) {
  PortDescription d;
  d.kind = PortKind::samples;
  d.samples = info;
  return d;
}

PortDescription PortDescription::of_rows(const SpectrumLayout& layout) {
  PortDescription d;
  d.kind = PortKind::rows;
  d.rows = layout;
  d.samples = layout.stream;
  return d;
}

std::size_t PortDescription::item_bytes() const {
  return kind == PortKind::samples ? samples.frame_bytes() : rows.row_bytes();
}

double PortDescription::item_rate() const {
  if (kind == PortKind::samples) return samples.sample_rate;
  return rows.row_interval > 0 ? 1.0 / rows.row_interval : 0.0;
}

std::string PortDescription::describe() const {
  std::ostringstream out;
  if (kind == PortKind::samples) {
    out << format_name(samples.format) << ", " << samples.channels << (samples.channels == 1 ? " channel, " : " channels, ")
        << samples.sample_rate << " Hz";
    if (samples.center_frequency != 0.0) out << ", centre " << samples.center_frequency << " Hz";
  } else {
    out << "rows of " << rows.columns << " columns (" << rows.unit() << ")";
  }
  return out.str();
}

std::string MemoryDomain::name() const {
  switch (kind) {
    case MemoryKind::host: return "host";
    case MemoryKind::pinned_host: return "pinned host";
    case MemoryKind::cuda_device: return "cuda:" + std::to_string(device);
  }
  return "?";
}

}  // namespace prism
