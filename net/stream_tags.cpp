// Stream tags between prism and GNU Radio (see stream_tags.hpp).
#include "net/stream_tags.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"

namespace prism::net {
namespace {

using json = nlohmann::json;

constexpr std::pair<SpectrumQuantity, const char*> kQuantities[] = {
    {SpectrumQuantity::power_spectral_density, "power_spectral_density"},
    {SpectrumQuantity::power_spectrum, "power_spectrum"},
    {SpectrumQuantity::magnitude_density, "magnitude_density"},
    {SpectrumQuantity::magnitude_spectrum, "magnitude_spectrum"},
    {SpectrumQuantity::complex_density, "complex_density"},
    {SpectrumQuantity::complex_spectrum, "complex_spectrum"},
    {SpectrumQuantity::angle, "angle"},
    {SpectrumQuantity::phase, "phase"},
};

StreamTag tag(std::uint64_t offset, const char* key, Pmt value) {
  return {offset, Pmt::make_symbol(key), std::move(value), Pmt::make_symbol(kSourceId)};
}

double number_of(const StreamTag& t, const char* key) {
  double value = 0;
  if (!t.value.to_number(value) || !std::isfinite(value))
    throw WireError(std::string("tag ") + key + " holds " + t.value.describe() + ", not a finite number");
  return value;
}

// The first bin's index and the bin width that give `frequencies` exactly as (k0 + i) * width,
// when they are of that form (a spectrogram's are).
std::optional<std::pair<std::int64_t, double>> bin_form(const SpectrumLayout& layout) {
  const std::vector<double>& f = layout.frequencies;
  if (f.size() < 2) return std::nullopt;
  std::vector<double> widths = {f[1] - f[0]};
  const json p = layout.parameters_json.empty() ? json::object()
                                                : json::parse(layout.parameters_json, nullptr, false);
  if (p.is_object() && p.contains("nfft") && p.contains("sample_rate") && p["nfft"].is_number() &&
      p["sample_rate"].is_number())
    widths.insert(widths.begin(),
                  1.0 / (p["nfft"].get<double>() * (1.0 / p["sample_rate"].get<double>())));
  for (const double width : widths) {
    if (!(width > 0) || !std::isfinite(width)) continue;
    const double first = std::round(f[0] / width);
    if (!(std::abs(first) < 9e15)) continue;
    const auto k0 = static_cast<std::int64_t>(first);
    bool exact = true;
    for (std::size_t i = 0; exact && i < f.size(); ++i)
      exact = static_cast<double>(k0 + static_cast<std::int64_t>(i)) * width == f[i];
    if (exact) return std::make_pair(k0, width);
  }
  return std::nullopt;
}

template <typename T>
T field(const json& j, const char* key, const char* what) {
  if (!j.is_object() || !j.contains(key)) throw WireError(std::string(what) + " has no \"" + key + "\"");
  const json& value = j.at(key);
  const auto wrong_type = [&] { return WireError(std::string(what) + "'s \"" + key + "\" is of the wrong type"); };
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // json's own conversion casts a float (5e27) or an integer out of T's range without a check.
    if (!value.is_number_integer()) throw wrong_type();
    const bool in_range = value.is_number_unsigned()
                              ? std::in_range<T>(value.get<std::uint64_t>())
                              : std::in_range<T>(value.get<std::int64_t>());
    if (!in_range) throw WireError(std::string(what) + "'s \"" + key + "\" is out of range");
    return value.is_number_unsigned() ? static_cast<T>(value.get<std::uint64_t>())
                                      : static_cast<T>(value.get<std::int64_t>());
  } else {
    try {
      return value.get<T>();
    } catch (const json::exception&) {
      throw wrong_type();
    }
  }
}

}  // namespace

std::vector<StreamTag> describe_port(const PortDescription& port, std::uint64_t offset) {
  std::vector<StreamTag> tags;
  if (port.kind == PortKind::rows) {
    tags.push_back(tag(offset, kTagFrequency, Pmt::make_real(port.rows.stream.center_frequency)));
    tags.push_back(tag(offset, kTagLayout, Pmt::make_u8vector(layout_json(port.rows))));
    return tags;
  }
  const StreamInfo& s = port.samples;
  tags.push_back(tag(offset, kTagRate, Pmt::make_real(s.sample_rate)));
  tags.push_back(tag(offset, kTagFrequency, Pmt::make_real(s.center_frequency)));
  if (const auto start = iso8601_unix_time(s.start_time); start && s.sample_rate > 0) {
    // The time of item `offset`: whole seconds kept apart, so that years of seconds do not eat
    // the fraction's precision.
    const double later = s.start_offset_s + static_cast<double>(offset) / s.sample_rate + start->fraction;
    const double whole = std::floor(later);
    tags.push_back(tag(offset, kTagTime,
                       Pmt::make_tuple({Pmt::make_uint64(start->seconds + static_cast<std::uint64_t>(whole)),
                                        Pmt::make_real(later - whole)})));
  }
  tags.push_back(tag(offset, kTagFormat, Pmt::make_symbol(std::string(format_name(s.format)))));
  tags.push_back(tag(offset, kTagChannels, Pmt::make_integer(s.channels)));
  if (s.float_full_scale) tags.push_back(tag(offset, kTagFullScale, Pmt::boolean(true)));
  return tags;
}

StreamTag end_of_stream_tag(std::uint64_t items, bool complete) {
  return tag(items, kTagEndOfStream, Pmt::boolean(complete));
}

StreamTagValues read_stream_tags(const std::vector<StreamTag>& tags) {
  StreamTagValues v;
  for (const StreamTag& t : tags) {
    if (t.key.type != Pmt::Type::symbol) continue;
    const std::string& key = t.key.text;
    if (key == kTagRate) {
      v.rate = number_of(t, kTagRate);
    } else if (key == kTagFrequency) {
      v.frequency = number_of(t, kTagFrequency);
    } else if (key == kTagTime) {
      // GNU Radio's form: (uint64 whole seconds, double fraction); a plain number is taken too.
      double whole = 0, fraction = 0;
      const Pmt& value = t.value;
      const bool pair_form = value.type == Pmt::Type::tuple && value.items.size() == 2 &&
                             value.items[0].to_number(whole) && value.items[1].to_number(fraction);
      const bool number_form = !pair_form && value.to_number(whole);
      if ((!pair_form && !number_form) || !std::isfinite(whole) || !std::isfinite(fraction) || whole < 0 ||
          whole > 1e15)
        throw WireError("tag rx_time holds " + value.describe() + ", not (seconds, fractional seconds)");
      const double carry = std::floor(fraction + (whole - std::floor(whole)));
      const double seconds = std::floor(whole) + carry;
      // The fraction is GNU Radio's [0, 1); one that moves the time out of range is malformed.
      if (!(seconds >= 0 && seconds <= 1e15))
        throw WireError("tag rx_time holds " + value.describe() + ", a time out of range");
      UnixTime time;
      time.seconds = static_cast<std::uint64_t>(seconds);
      time.fraction = fraction + (whole - std::floor(whole)) - carry;
      v.time = time;
      v.time_offset = t.offset;
    } else if (key == kTagFormat) {
      const auto format = t.value.type == Pmt::Type::symbol ? parse_format(t.value.text) : std::nullopt;
      if (!format) throw WireError("tag prism_format holds " + t.value.describe() + ", not a sample format");
      v.format = format;
    } else if (key == kTagChannels) {
      double channels = 0;
      if (!t.value.to_number(channels) || channels < 1 || channels > 65536 || channels != std::floor(channels))
        throw WireError("tag prism_channels holds " + t.value.describe() + ", not a channel count");
      v.channels = static_cast<unsigned>(channels);
    } else if (key == kTagFullScale) {
      if (t.value.type != Pmt::Type::true_ && t.value.type != Pmt::Type::false_)
        throw WireError("tag prism_full_scale holds " + t.value.describe() + ", not true or false");
      v.float_full_scale = t.value.type == Pmt::Type::true_;
    } else if (key == kTagLayout) {
      if (t.value.type != Pmt::Type::uniform_vector || t.value.element_type != 0)
        throw WireError("tag prism_layout holds " + t.value.describe() + ", not JSON text in a u8 vector");
      v.layout = layout_from_json(t.value.text);
    } else if (key == kTagEndOfStream) {
      if (t.value.type != Pmt::Type::true_ && t.value.type != Pmt::Type::false_)
        throw WireError("tag prism_eos holds " + t.value.describe() + ", not true or false");
      v.end_of_stream = t.value.type == Pmt::Type::true_;
    }
  }
  return v;
}

std::string layout_json(const SpectrumLayout& layout) {
  json j;
  j["columns"] = layout.columns;
  if (const auto form = bin_form(layout)) {
    j["first_bin"] = form->first;
    j["bin_width"] = form->second;
  } else {
    j["frequencies"] = layout.frequencies;
  }
  j["first_row_time"] = layout.first_row_time;
  j["row_interval"] = layout.row_interval;
  for (const auto& [quantity, name] : kQuantities)
    if (quantity == layout.quantity) j["quantity"] = name;
  j["decibels"] = layout.decibels;
  if (layout.full_scale_power) j["full_scale_power"] = *layout.full_scale_power;
  j["parameters"] = layout.parameters_json.empty() ? json::object() : json::parse(layout.parameters_json);
  const StreamInfo& s = layout.stream;
  j["stream"] = {{"format", std::string(format_name(s.format))},
                 {"sample_rate", s.sample_rate},
                 {"center_frequency", s.center_frequency},
                 {"channels", s.channels},
                 {"start_time", s.start_time.empty() ? json(nullptr) : json(s.start_time)}};
  return j.dump(-1, ' ', true, json::error_handler_t::replace);
}

SpectrumLayout layout_from_json(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw WireError("tag prism_layout is not a JSON object");
  const char* what = "prism_layout";
  SpectrumLayout layout;
  layout.columns = field<std::size_t>(j, "columns", what);
  if (layout.columns == 0 || layout.columns > (std::size_t{1} << 24))
    throw WireError("prism_layout's \"columns\" is " + std::to_string(layout.columns) + " (1 to 2^24)");
  if (j.contains("frequencies")) {
    layout.frequencies = field<std::vector<double>>(j, "frequencies", what);
    if (layout.frequencies.size() != layout.columns)
      throw WireError("prism_layout has " + std::to_string(layout.frequencies.size()) + " frequencies for " +
                      std::to_string(layout.columns) + " columns");
  } else {
    const auto k0 = field<std::int64_t>(j, "first_bin", what);
    const auto width = field<double>(j, "bin_width", what);
    if (!(width > 0) || !std::isfinite(width) || k0 < -(std::int64_t{1} << 40) || k0 > (std::int64_t{1} << 40))
      throw WireError("prism_layout's \"bin_width\" or \"first_bin\" is out of range");
    layout.frequencies.resize(layout.columns);
    for (std::size_t i = 0; i < layout.columns; ++i)
      layout.frequencies[i] = static_cast<double>(k0 + static_cast<std::int64_t>(i)) * width;
  }
  layout.first_row_time = field<double>(j, "first_row_time", what);
  layout.row_interval = field<double>(j, "row_interval", what);
  if (!std::isfinite(layout.first_row_time) || !std::isfinite(layout.row_interval) || layout.row_interval < 0)
    throw WireError("prism_layout's row times are not finite, or the interval is negative");
  const auto quantity = field<std::string>(j, "quantity", what);
  bool known = false;
  for (const auto& [q, name] : kQuantities)
    if (quantity == name) {
      layout.quantity = q;
      known = true;
    }
  if (!known) throw WireError("prism_layout's quantity '" + printable(quantity) + "' is unknown");
  layout.decibels = field<bool>(j, "decibels", what);
  if (j.contains("full_scale_power")) {
    const auto power = field<double>(j, "full_scale_power", what);
    if (!(power > 0) || !std::isfinite(power))
      throw WireError("prism_layout's \"full_scale_power\" is not a positive finite number");
    layout.full_scale_power = power;
  }
  layout.parameters_json = j.contains("parameters") ? j["parameters"].dump() : "{}";
  const json stream = field<json>(j, "stream", what);
  const char* stream_what = "prism_layout's \"stream\"";
  const auto format = parse_format(field<std::string>(stream, "format", stream_what));
  if (!format) throw WireError("prism_layout's stream format is unknown");
  layout.stream.format = *format;
  layout.stream.sample_rate = field<double>(stream, "sample_rate", stream_what);
  layout.stream.center_frequency = field<double>(stream, "center_frequency", stream_what);
  layout.stream.channels = field<unsigned>(stream, "channels", stream_what);
  if (layout.stream.channels > 65536) throw WireError("prism_layout's stream has more than 65536 channels");
  if (!(layout.stream.sample_rate > 0) || !std::isfinite(layout.stream.sample_rate) ||
      !std::isfinite(layout.stream.center_frequency) || layout.stream.channels == 0)
    throw WireError("prism_layout's stream has no valid rate, centre frequency or channel count");
  if (stream.contains("start_time") && stream["start_time"].is_string())
    layout.stream.start_time = stream["start_time"].get<std::string>();
  return layout;
}

}  // namespace prism::net
