// PngSink: bounded-memory accumulation of rows, then the figure and its PNG encoding (see
// png_sink.hpp).
//
// Contents: option checks · accumulation (frequency reduction, time columns, pairwise merge) ·
// resampling to the image grid · colour range · default title · PNG encoding · life cycle.
#include "sinks/png_sink.hpp"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <png.h>

#include <nlohmann/json.hpp>

#include "pipeline/errors.hpp"
#include "pipeline/iso8601.hpp"
#include "prism/version.hpp"
#include "sinks/decibel_range.hpp"
#include "sinks/plot_font.hpp"

namespace prism {
namespace {

constexpr float kFloorPower = 1e-30f;  // -300 dB, as the spectrogram stages' decibel floor
constexpr double kFloorDecibels = -300.0;

// dB of `power` relative to `reference`; floored cells stay at the floor, so that the automatic
// colour range still recognises them whatever the reference.
double to_decibels(double power, double reference = 1.0) {
  return power > static_cast<double>(kFloorPower) ? 10.0 * std::log10(power / reference) : kFloorDecibels;
}

std::string json_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

// "48 kHz", "2.4 MHz", "100.1 MHz".
std::string format_hz(double hz) {
  const AxisUnit unit = frequency_unit(std::abs(hz));
  char text[64];
  std::snprintf(text, sizeof text, "%.10g %s", hz * unit.factor, unit.name.c_str());
  return text;
}

std::string quantity_title(const SpectrumLayout& layout) {
  switch (layout.quantity) {
    case SpectrumQuantity::power_spectral_density: return "power spectral density";
    case SpectrumQuantity::power_spectrum: return "power spectrum";
    case SpectrumQuantity::magnitude_density: return "magnitude density";
    case SpectrumQuantity::magnitude_spectrum: return "magnitude spectrum";
    case SpectrumQuantity::complex_density:
    case SpectrumQuantity::complex_spectrum:
    case SpectrumQuantity::angle:
    case SpectrumQuantity::phase:
    case SpectrumQuantity::mel:
    case SpectrumQuantity::mfcc_of_decibels:
    case SpectrumQuantity::mfcc_of_log: break;  // refused by begin()
  }
  return "spectrum";
}

// tEXt chunks hold Latin-1; everything non-ASCII is replaced so that readers see valid text.
std::string ascii_only(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      if ((byte & 0xC0) != 0x80) out += '?';  // one '?' per UTF-8 character
    } else if (byte >= 0x20 || byte == '\n') {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

// -------------------------------------------------------------------------------------------
// PNG encoding. libpng reports errors by longjmp; the function that calls setjmp keeps only
// trivially destructible locals, so that jumping out of libpng skips no destructor.

struct PngText {
  std::string key;
  std::string value;
};

struct PngWriteContext {
  std::vector<unsigned char>* out = nullptr;
  char error[256] = {};
};

void png_on_error(png_structp png, png_const_charp message) {
  auto* ctx = static_cast<PngWriteContext*>(png_get_error_ptr(png));
  std::snprintf(ctx->error, sizeof ctx->error, "%s", message ? message : "libpng error");
  png_longjmp(png, 1);
}

void png_on_warning(png_structp, png_const_charp) {}

void png_on_write(png_structp png, png_bytep data, png_size_t length) {
  auto* ctx = static_cast<PngWriteContext*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    ctx->out->insert(ctx->out->end(), data, data + length);
  } catch (...) {
    ok = false;  // no exception may cross libpng's C frames
  }
  if (!ok) png_error(png, "out of memory while encoding");
}

void png_on_flush(png_structp) {}

bool encode_png_unchecked(const RgbImage* image, png_bytep* row_pointers, png_text* texts,
                          int text_count, PngWriteContext* ctx) {
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, png_on_error, png_on_warning);
  if (!png) {
    std::snprintf(ctx->error, sizeof ctx->error, "cannot create the PNG encoder");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(ctx->error, sizeof ctx->error, "cannot create the PNG encoder");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, ctx, png_on_write, png_on_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image->width),
               static_cast<png_uint_32>(image->height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (text_count > 0) png_set_text(png, info, texts, text_count);
  png_write_info(png, info);
  png_write_image(png, row_pointers);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

std::vector<unsigned char> encode_png(const RgbImage& image, const std::vector<PngText>& texts,
                                      const std::string& path) {
  std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
  for (int y = 0; y < image.height; ++y) {
    rows[y] = const_cast<png_bytep>(&image.pixels[static_cast<std::size_t>(y) * image.width * 3]);
  }
  std::vector<png_text> chunks(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::memset(&chunks[i], 0, sizeof(png_text));
    chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
    chunks[i].key = const_cast<png_charp>(texts[i].key.c_str());
    chunks[i].text = const_cast<png_charp>(texts[i].value.c_str());
    chunks[i].text_length = texts[i].value.size();
  }
  std::vector<unsigned char> out;
  out.reserve(static_cast<std::size_t>(image.width) * image.height);
  PngWriteContext ctx;
  ctx.out = &out;
  if (!encode_png_unchecked(&image, rows.data(), chunks.data(), static_cast<int>(chunks.size()),
                            &ctx)) {
    throw InputError(path, std::string("cannot encode PNG: ") + ctx.error);
  }
  return out;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// Construction and options.

PngSink::PngSink(std::string path, SinkOptions options)
    : path_(std::move(path)), options_(std::move(options)), file_(path_) {
  colormap_ = find_colormap(options_.colormap);
  if (!colormap_) {
    throw UsageError("unknown --colormap '" + options_.colormap + "'; choose one of " +
                     colormap_names_help());
  }
  auto check_size = [](const std::optional<unsigned>& size, const char* name) {
    if (size && (*size < 1 || *size > kMaxSize)) {
      throw UsageError(std::string("--") + name + " " + std::to_string(*size) +
                       " is out of range: 1.." + std::to_string(kMaxSize) + " pixels");
    }
  };
  check_size(options_.width, "width");
  check_size(options_.height, "height");
  auto check_db = [](const std::optional<double>& value, const char* name) {
    if (value && !std::isfinite(*value))
      throw UsageError(std::string("--db-range: the ") + name + " must be a finite number of dB");
  };
  check_db(options_.db_min, "minimum");
  check_db(options_.db_max, "maximum");
  plot_font_face();  // a missing font fails here, before the run, not after all the work
  if (options_.db_min && options_.db_max && !(*options_.db_min < *options_.db_max)) {
    throw UsageError("--db-range: the minimum (" + format_tick(*options_.db_min, 0.01) +
                     " dB) must be below the maximum (" + format_tick(*options_.db_max, 0.01) +
                     " dB)");
  }
}

PngSink::~PngSink() = default;  // the PartialFile removes an uncommitted image

std::string PngSink::describe() const { return path_; }

// -------------------------------------------------------------------------------------------
// Accumulation.

void PngSink::begin(const PortDescription& input) {
  const SpectrumLayout& layout = input.rows;
  if (begun_) throw std::logic_error("PngSink::begin called twice");
  // The plot shows power on a colour scale; complex values have none, and angles wrap around
  // where a colour scale would need to (their maps are cyclic): both are .npy outputs.
  if (layout.complex_values || layout.quantity == SpectrumQuantity::angle || layout.quantity == SpectrumQuantity::phase)
    throw UsageError("a PNG shows power or magnitude; mode " +
                     std::string(layout.complex_values ? "complex" : layout.quantity == SpectrumQuantity::angle ? "angle" : "phase") +
                     " rows go to .npy outputs");
  if (layout.double_values)
    throw UsageError("a PNG plots float rows; precision double rows go to .npy outputs");
  // The plot's frequency axis is linear in Hz, with one column per FFT bin; mel bands (spaced
  // in mel) and cepstral coefficients have no place on it.
  if (layout.column_axis != ColumnAxis::frequency)
    throw UsageError(std::string("a PNG plots FFT bins on a linear frequency axis; ") +
                     (layout.column_axis == ColumnAxis::mel_band ? "mode mel rows (mel bands)"
                                                                 : "mode mfcc rows (cepstral coefficients)") +
                     " go to .npy outputs");
  if (!layout.frequencies.empty() && layout.frequencies.size() != layout.columns) {
    throw std::invalid_argument("SpectrumLayout: " + std::to_string(layout.frequencies.size()) +
                                " frequencies for " + std::to_string(layout.columns) +
                                " columns");
  }
  if (options_.absolute_time && !iso8601_epoch_seconds(layout.stream.start_time))
    throw UsageError("--time-axis absolute: " + path_ + " needs the input's start time (SigMF core:datetime), " +
                     (layout.stream.start_time.empty() ? std::string("and the input has none")
                                                       : "and '" + printable(layout.stream.start_time) +
                                                             "' is not an ISO 8601 date-time"));
  layout_ = layout;
  const std::size_t bins = layout_.columns;
  stored_height_ = std::min<std::size_t>(bins, options_.height.value_or(kDefaultHeight));
  bin_row_.assign(bins, 0);
  bins_in_row_.assign(stored_height_, 0);
  for (std::size_t i = 0; i < bins; ++i) {
    // Bin i goes to the pixel row its centre falls in (every row gets at least one bin while
    // stored_height_ <= bins).
    const double centre = (static_cast<double>(i) + 0.5) * static_cast<double>(stored_height_) /
                          static_cast<double>(bins);
    bin_row_[i] = static_cast<std::uint32_t>(
        std::min<double>(std::floor(centre), static_cast<double>(stored_height_ - 1)));
    ++bins_in_row_[bin_row_[i]];
  }
  column_capacity_ = 2 * static_cast<std::size_t>(options_.width.value_or(kDefaultWidth));
  columns_.clear();
  columns_.reserve(std::min<std::size_t>(column_capacity_ * stored_height_, 1u << 20));
  complete_columns_ = 0;
  rows_per_column_ = 1;
  partial_sum_.assign(stored_height_, 0.0);
  partial_rows_ = 0;
  row_reduced_.assign(stored_height_, 0.0);
  file_.open();  // errors in the output path show before any processing
  begun_ = true;
}

float PngSink::to_linear_power(float value) const {
  double power;
  if (layout_.decibels) {
    // 10·log10(power) and 20·log10(magnitude) both invert to power (magnitude²) as 10^(v/10).
    constexpr double kLn10Over10 = 0.23025850929940458;
    power = std::exp(static_cast<double>(value) * kLn10Over10);
  } else if (layout_.is_power()) {
    power = value;
  } else {
    power = static_cast<double>(value) * value;
  }
  if (!(power >= static_cast<double>(kFloorPower))) return kFloorPower;  // also NaN, negative
  if (power > std::numeric_limits<float>::max()) return std::numeric_limits<float>::max();
  return static_cast<float>(power);
}

void PngSink::add_row(const float* row) {
  // Bins to pixel rows, in linear power (floored, so a NaN or a negative value counts as the
  // floor and never wins).
  std::fill(row_reduced_.begin(), row_reduced_.end(), 0.0);
  const bool mean = options_.reduce == PlotReduction::mean;
  for (std::size_t i = 0; i < layout_.columns; ++i) {
    const double power = to_linear_power(row[i]);
    double& target = row_reduced_[bin_row_[i]];
    target = mean ? target + power : std::max(target, power);
  }
  for (std::size_t p = 0; p < stored_height_; ++p) {
    const double power = mean ? row_reduced_[p] / bins_in_row_[p] : row_reduced_[p];
    partial_sum_[p] = mean ? partial_sum_[p] + power : std::max(partial_sum_[p], power);
  }
  ++partial_rows_;
  if (partial_rows_ == rows_per_column_) close_partial_column();
}

double PngSink::partial_column_power(std::size_t p) const {
  return options_.reduce == PlotReduction::mean ? partial_sum_[p] / static_cast<double>(partial_rows_)
                                                : partial_sum_[p];
}

void PngSink::close_partial_column() {
  if (partial_rows_ == 0) return;
  for (std::size_t p = 0; p < stored_height_; ++p) {
    columns_.push_back(static_cast<float>(partial_column_power(p)));
    partial_sum_[p] = 0.0;
  }
  partial_rows_ = 0;
  ++complete_columns_;
  if (complete_columns_ >= column_capacity_) merge_columns_pairwise();
}

void PngSink::merge_columns_pairwise() {
  const std::size_t h = stored_height_;
  const std::size_t pairs = complete_columns_ / 2;
  for (std::size_t j = 0; j < pairs; ++j) {
    const float* a = &columns_[(2 * j) * h];
    const float* b = &columns_[(2 * j + 1) * h];
    float* merged = &columns_[j * h];  // j <= 2j: never overwrites what is still to be read
    if (options_.reduce == PlotReduction::mean) {
      for (std::size_t p = 0; p < h; ++p) merged[p] = 0.5f * (a[p] + b[p]);
    } else {
      for (std::size_t p = 0; p < h; ++p) merged[p] = std::max(a[p], b[p]);
    }
  }
  // The capacity is even, so no column is left without a partner.
  complete_columns_ = pairs;
  columns_.resize(pairs * h);
  rows_per_column_ *= 2;
}

void PngSink::write(const Chunk& chunk) {
  const float* rows = chunk.as<float>();
  const std::size_t count = chunk.items;
  const std::uint64_t first_row = chunk.first_item;
  if (!begun_ || finished_) throw std::logic_error("PngSink::write outside begin()/finish()");
  if (count == 0) return;
  if (rows == nullptr) throw std::invalid_argument("PngSink::write: null rows");
  if (!first_row_) first_row_ = first_row;
  if (first_row != *first_row_ + rows_received_) {
    throw std::logic_error("PngSink::write: row " + std::to_string(first_row) +
                           " arrived where row " + std::to_string(*first_row_ + rows_received_) +
                           " was due");
  }
  for (std::size_t r = 0; r < count; ++r) add_row(rows + r * layout_.columns);
  rows_received_ += count;
}

// -------------------------------------------------------------------------------------------
// Resampling to the image grid: each pixel column takes the overlap-weighted mean power (or the
// maximum) of the kept columns over its share of the rows; each pixel row its frequency row
// (nearest).

std::vector<float> PngSink::plot_decibels(int width, int height) const {
  std::vector<float> out(static_cast<std::size_t>(width) * height);
  const std::size_t h = stored_height_;
  const double total_rows = static_cast<double>(rows_received_);
  const double span = static_cast<double>(rows_per_column_);
  const std::size_t kept = complete_columns_ + (partial_rows_ > 0 ? 1 : 0);
  const bool by_mean = options_.reduce == PlotReduction::mean;
  const double reference = layout_.full_scale_power.value_or(1.0);
  std::vector<double> mean(h);
  for (int x = 0; x < width; ++x) {
    const double a = total_rows * x / width;
    const double b = total_rows * (x + 1) / width;
    std::fill(mean.begin(), mean.end(), 0.0);
    double weight = 0.0;
    const auto first = static_cast<std::size_t>(std::floor(a / span));
    for (std::size_t k = first; k < kept; ++k) {
      const double start = k * span;
      if (start >= b) break;
      const double end = k < complete_columns_ ? start + span : total_rows;
      const double overlap = std::min(b, end) - std::max(a, start);
      if (overlap <= 0.0) continue;
      const float* column = k < complete_columns_ ? &columns_[k * h] : nullptr;
      for (std::size_t p = 0; p < h; ++p) {
        const double power = column ? column[p] : partial_column_power(p);
        mean[p] = by_mean ? mean[p] + overlap * power : std::max(mean[p], power);
      }
      weight += overlap;
    }
    if (!by_mean && weight > 0.0) weight = 1.0;  // the maxima stand as they are
    float* column_out = &out[static_cast<std::size_t>(x) * height];
    for (int p = 0; p < height; ++p) {
      // Nearest frequency row; equal to p when no upsampling is needed.
      const auto g = std::min<std::size_t>(
          static_cast<std::size_t>((p + 0.5) * static_cast<double>(h) / height), h - 1);
      column_out[p] =
          static_cast<float>(weight > 0.0 ? to_decibels(mean[g] / weight, reference) : kFloorDecibels);
    }
  }
  return out;
}

std::string PngSink::default_title() const {
  const nlohmann::json params =
      layout_.parameters_json.empty() ? nlohmann::json() : nlohmann::json::parse(layout_.parameters_json);
  auto param = [&params](const char* key) -> const nlohmann::json* {
    if (!params.is_object()) return nullptr;
    auto it = params.find(key);
    return it == params.end() || it->is_null() ? nullptr : &*it;
  };
  std::string title = options_.input_label.empty() ? std::string() : options_.input_label + " | ";
  for (const char* key : {"input", "source"}) {
    if (!title.empty()) break;
    if (const auto* v = param(key)) {
      title = json_text(*v) + " | ";
      break;
    }
  }
  const StreamInfo& in = layout_.stream;
  title += std::string(format_name(in.format)) + ", " + format_hz(in.sample_rate);
  if (in.center_frequency != 0.0) title += ", centre " + format_hz(in.center_frequency);
  if (in.channels > 1) {
    const auto* channel = param("channel");
    title += ", " + (channel ? "channel " + json_text(*channel) + " of " : std::string()) +
             std::to_string(in.channels) + " channels";
  }
  std::string stft;
  auto add = [&stft](const std::string& text) { stft += (stft.empty() ? "" : ", ") + text; };
  if (const auto* v = param("window")) add("window " + json_text(*v));
  if (const auto* v = param("nperseg")) add("nperseg " + json_text(*v));
  if (const auto* v = param("noverlap")) add("noverlap " + json_text(*v));
  const auto* nfft = param("nfft");
  const auto* nperseg = param("nperseg");
  if (nfft && (!nperseg || *nfft != *nperseg)) add("nfft " + json_text(*nfft));
  if (const auto* v = param("average"); v && json_text(*v) != "1") {
    const auto* kind = param("average_kind");
    add("average " + json_text(*v) + (kind ? " (" + json_text(*kind) + ")" : ""));
  }
  if (const auto* range = param("frequency_range"); range && range->is_array() && range->size() == 2 &&
                                                     (*range)[0].is_number() && (*range)[1].is_number())
    add("frequency range " + format_hz((*range)[0].get<double>()) + " to " + format_hz((*range)[1].get<double>()));
  if (!stft.empty()) title += " | " + stft;
  title += " | " + quantity_title(layout_);
  return title;
}

// -------------------------------------------------------------------------------------------
// Finishing: the figure, its text chunks, the file.

void PngSink::render_and_write(bool complete) {
  const bool has_data = rows_received_ > 0 && stored_height_ > 0;
  // Sizes are at most kMaxSize (checked at construction) or the defaults: they fit an int.
  const int width = static_cast<int>(options_.width.value_or(kDefaultWidth));
  const int height = static_cast<int>(options_.height.value_or(kDefaultHeight));

  SpectrogramPlotInput plot;
  plot.width = width;
  plot.height = height;
  plot.colormap = colormap_;
  if (has_data) plot.decibels = plot_decibels(width, height);

  // Colour range: given limits win; the others from the cells that carry signal.
  double lo = options_.db_min.value_or(kFloorDecibels);
  double hi = options_.db_max.value_or(0.0);
  const std::optional<DecibelRange> signal =
      has_data ? signal_decibel_range(plot.decibels) : std::nullopt;
  if (signal) {
    if (!options_.db_min) lo = signal->low;
    if (!options_.db_max) hi = signal->high;
  } else {  // no rows, or only silent ones: a 100 dB range at the given limit or below 0 dB
    if (!options_.db_min) lo = hi - 100.0;
    if (!options_.db_max) hi = lo + 100.0;
  }
  if (!(hi > lo)) {  // a flat image, or one given limit beyond the data
    if (!options_.db_max) {
      hi = lo + 1.0;
    } else {
      lo = hi - 1.0;
    }
  }
  plot.db_min = used_db_min_ = lo;
  plot.db_max = used_db_max_ = hi;

  // Axes: frequency edges half a bin beyond the first and last bin centres.
  const std::size_t bins = layout_.columns;
  const double centre = layout_.stream.center_frequency;
  double f_first = 0.0, f_last = 0.0, bin_width = 1.0;
  if (!layout_.frequencies.empty()) {
    f_first = layout_.frequencies.front();
    f_last = layout_.frequencies.back();
    if (bins > 1) {
      bin_width = (f_last - f_first) / static_cast<double>(bins - 1);
    } else if (layout_.stream.sample_rate > 0) {
      bin_width = layout_.stream.sample_rate;
    }
  } else {
    f_last = bins > 0 ? static_cast<double>(bins - 1) : 0.0;
  }
  plot.frequency_low = f_first - bin_width / 2 + centre;
  plot.frequency_high = f_last + bin_width / 2 + centre;
  const double interval = layout_.row_interval;
  plot.time_start = layout_.row_time(first_row_.value_or(0)) - interval / 2;
  double duration = interval * static_cast<double>(rows_received_);
  if (!(duration > 0.0) || !std::isfinite(duration)) duration = 1.0;
  plot.time_end = plot.time_start + duration;
  plot.title = options_.title.empty() ? default_title() : options_.title;
  // Integer input: dB relative to a full-scale tone's bin (dBFS); otherwise in the rows' unit.
  plot.colorbar_label = layout_.full_scale_power ? "dBFS"
                        : layout_.decibels       ? layout_.unit()
                                                 : "dB re 1 " + layout_.unit();
  if (options_.absolute_time) plot.time_origin_epoch = iso8601_epoch_seconds(layout_.stream.start_time);
  // Retunes as marked moments, annotations as boxes; the frequency axis is the first capture's.
  nlohmann::json retunes = nlohmann::json::array(), annotations = nlohmann::json::array();
  for (const Retune& r : layout_.stream.retunes) {
    plot.time_markers.push_back({r.time, "centre " + format_hz(r.center_frequency)});
    retunes.push_back({{"time_s", r.time}, {"center_frequency", r.center_frequency}});
  }
  for (const Annotation& a : layout_.stream.annotations) {
    PlotBox box;
    box.time_start = a.start;
    box.time_end = a.duration ? a.start + *a.duration : plot.time_end;
    box.frequency_low = a.frequency_low.value_or(plot.frequency_low);
    box.frequency_high = a.frequency_high.value_or(plot.frequency_high);
    box.label = ascii_only(a.label);
    plot.boxes.push_back(box);
    annotations.push_back({{"time_start_s", box.time_start}, {"time_end_s", box.time_end},
                           {"frequency_low_hz", box.frequency_low}, {"frequency_high_hz", box.frequency_high},
                           {"label", box.label}});
  }

  const RgbImage image = render_spectrogram_plot(plot, &geometry_);

  const nlohmann::json plot_info = {
      {"complete", complete},
      {"rows", rows_received_},
      {"rows_per_pixel", static_cast<double>(rows_received_) / width},
      {"reduce", options_.reduce == PlotReduction::mean ? "mean" : "max"},
      {"quantity", quantity_title(layout_)},
      {"unit", plot.colorbar_label},
      {"full_scale_power", layout_.full_scale_power ? nlohmann::json(*layout_.full_scale_power) : nlohmann::json(nullptr)},
      {"colormap", options_.colormap},
      {"db_min", lo},
      {"db_max", hi},
      {"frequency_low_hz", plot.frequency_low},
      {"frequency_high_hz", plot.frequency_high},
      {"time_start_s", plot.time_start},
      {"time_end_s", plot.time_end},
      {"time_axis", options_.absolute_time ? "absolute" : "relative"},
      {"time_origin_epoch_s", plot.time_origin_epoch ? nlohmann::json(*plot.time_origin_epoch) : nlohmann::json(nullptr)},
      {"retunes", retunes},
      {"annotations", annotations},
      {"plot_area", {{"left", geometry_.plot_left}, {"top", geometry_.plot_top},
                     {"width", geometry_.plot_width}, {"height", geometry_.plot_height}}},
  };
  const StreamInfo& in = layout_.stream;
  const nlohmann::json input = {
      {"format", std::string(format_name(in.format))},
      {"sample_rate", in.sample_rate},
      {"channels", in.channels},
      {"center_frequency", in.center_frequency},
      {"start_time", in.start_time.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.start_time)},
  };
  const std::vector<PngText> texts = {
      {"Title", ascii_only(plot.title)},
      {"Software", std::string("prism ") + PRISM_VERSION},
      {"Comment", complete ? "prism:complete=true" : "prism:complete=false"},
      {"prism:parameters", json_text(layout_.parameters_json.empty()
                                         ? nlohmann::json::object()
                                         : nlohmann::json::parse(layout_.parameters_json))},
      {"prism:input", json_text(input)},
      {"prism:plot", json_text(plot_info)},
  };
  const std::vector<unsigned char> png = encode_png(image, texts, path_);
  file_.write(png.data(), png.size());
  file_.commit();
}

void PngSink::finish(bool complete) {
  if (!begun_ || finished_) return;
  try {
    render_and_write(complete);
  } catch (...) {
    abort();
    throw;
  }
  finished_ = true;
}

void PngSink::abort() noexcept {
  if (finished_) return;
  file_.discard();
  finished_ = true;
}

}  // namespace prism
