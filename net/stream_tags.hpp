// What a stream says about itself in its tags, between prism and GNU Radio: the tags prism sends
// with every message, and what it reads from the tags that arrive.
//
//   rx_rate        double                  sample rate, Hz (samples only)
//   rx_freq        double                  centre frequency, Hz
//   rx_time        tuple(uint64 s, double fractional s)   UTC time of the tagged item (samples
//                                          whose stream's start time is known)
//   prism_format   symbol                  "cf32", "ci16", ... (samples only)
//   prism_channels integer                 interleaved channels (samples only)
//   prism_full_scale bool (true)           float samples whose full scale is ±1 by convention
//                                          (sound files, audio devices); absent otherwise
//   prism_layout   u8 vector: JSON text    rows: what a row holds (below)
//   prism_eos      bool                    alone in the last message, of no items: the sender's
//                                          stream ended, complete (true) or cut short (false);
//                                          the header's offset is the count of items sent
// The first four are the names GNU Radio's hardware sources (UHD, Soapy, osmosdr) use; rx_rate,
// rx_freq and rx_time from GNU Radio are read. A tag of another key is skipped.
//
// Rows travel as vectors of float32, one row per item. Their layout (JSON in prism_layout):
//   {"columns": N, "first_bin": k0, "bin_width": Hz  (frequencies[i] = (k0 + i) * bin_width),
//    or "frequencies": [...] when they are not of that form,
//    "first_row_time": s, "row_interval": s, "quantity": "power_spectral_density"|...,
//    "decibels": bool, "full_scale_power": the 0 dBFS reference (when there is one),
//    "parameters": {...},
//    "stream": {"format", "sample_rate", "center_frequency", "channels", "start_time"}}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/gr_wire.hpp"
#include "pipeline/iso8601.hpp"
#include "pipeline/port.hpp"

namespace prism::net {

inline constexpr const char* kTagRate = "rx_rate";
inline constexpr const char* kTagFrequency = "rx_freq";
inline constexpr const char* kTagTime = "rx_time";
inline constexpr const char* kTagFormat = "prism_format";
inline constexpr const char* kTagChannels = "prism_channels";
inline constexpr const char* kTagFullScale = "prism_full_scale";
inline constexpr const char* kTagLayout = "prism_layout";
inline constexpr const char* kTagEndOfStream = "prism_eos";
inline constexpr const char* kSourceId = "prism";

// The tags that describe `port`, for a message whose first item is item `offset` of the stream.
std::vector<StreamTag> describe_port(const PortDescription& port, std::uint64_t offset);

// The tag that ends a stream of `items` items.
StreamTag end_of_stream_tag(std::uint64_t items, bool complete);

// What the tags of one message said (each set when a tag of it came; a later tag of a key wins).
struct StreamTagValues {
  std::optional<double> rate;
  std::optional<double> frequency;
  std::optional<UnixTime> time;   // rx_time ...
  std::uint64_t time_offset = 0;  // ... of this item
  std::optional<SampleFormat> format;
  std::optional<unsigned> channels;
  bool float_full_scale = false;  // prism_full_scale
  std::optional<SpectrumLayout> layout;
  std::optional<bool> end_of_stream;  // prism_eos: complete or not
};

// Reads the known tags. Throws WireError for a known key whose value has the wrong type or is
// out of range (a format prism does not know, a layout that does not parse).
StreamTagValues read_stream_tags(const std::vector<StreamTag>& tags);

// The layout as prism_layout's JSON, and back (WireError naming what is missing or wrong).
std::string layout_json(const SpectrumLayout& layout);
SpectrumLayout layout_from_json(const std::string& text);

}  // namespace prism::net
