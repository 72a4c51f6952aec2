// PngSink: renders the rows as a spectrogram image (PNG, via libpng): time along x (left to
// right), frequency along y (low at the bottom), colour from dB values, with labelled axes, a
// colour bar and a title.
//
// Memory stays bounded however long the recording: the sink keeps at most 2 × the plot width
// time columns; when they are full, neighbouring columns are merged pairwise and each column then
// spans twice as many rows. Rows beyond the width (merging, and the final resampling to the
// image width) and frequency bins beyond the height are combined as options.reduce says, in
// linear power: by their maximum (the default: a one-bin tone or a one-row click keeps its level)
// or by their mean (average power over each pixel, as a longer averaging would show).
//
// Values: dB rows are used as they are; linear rows become 10·log10 (power quantities) or
// 20·log10 (magnitudes), floored at -300 dB. Rows of an input with a full scale (integers
// scaled to unit, float audio: SpectrumLayout::full_scale_power) are shown in dBFS instead: 0 dB is the level of a
// full-scale tone's bin in the same rows (a sine of amplitude 1, or exp(j2πft) for complex
// input), whatever the scaling and window. The colour range is options.db_min..db_max, each
// automatic when not set: signal_decibel_range() of the plotted values (decibel_range.hpp: the
// cells that carry signal, floored silence left out).
//
// Size: the plot area is options.width × options.height pixels, by default kDefaultWidth ×
// kDefaultHeight whatever the data's shape: more rows or bins are reduced, fewer are stretched
// (each shown as a band of equal pixels). The axes, labels and colour bar add margins around it.
//
// Output: "<path>.partial" renamed to <path> at finish(). finish(false) still renders what
// arrived and adds the tEXt chunk Comment = "prism:complete=false" (true on a complete run);
// tEXt chunks Title, Software, prism:parameters (JSON), prism:input (JSON) and prism:plot
// (JSON: quantity, unit, rows, colour range, ...) describe the image.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/stage.hpp"
#include "pipeline/spectrum_layout.hpp"
#include "sinks/colormap.hpp"
#include "sinks/output_file.hpp"
#include "sinks/sink_options.hpp"
#include "sinks/spectrogram_plot.hpp"

namespace prism {

class PngSink final : public Sink {
 public:
  static constexpr unsigned kDefaultWidth = 1200;
  static constexpr unsigned kDefaultHeight = 700;
  static constexpr unsigned kMaxSize = 10000;  // largest width or height accepted

  // Throws UsageError for an unknown colormap (listing the names), a width or height outside
  // 1..kMaxSize, a non-finite dB limit or db_min >= db_max.
  PngSink(std::string path, SinkOptions options);
  ~PngSink() override;

  bool accepts(PortKind kind) const override { return kind == PortKind::rows; }
  void begin(const PortDescription& input) override;
  void write(const Chunk& chunk) override;
  void finish(bool complete) override;
  void abort() noexcept override;
  std::uint64_t items_written() const override { return rows_received_; }
  std::string describe() const override;

  // Time columns held now (complete ones plus the one being filled); never more than
  // kept_column_limit().
  std::size_t kept_columns() const { return complete_columns_ + (partial_rows_ > 0 ? 1 : 0); }
  std::size_t kept_column_limit() const { return column_capacity_; }
  // Rows each complete column holds now (a power of two).
  std::uint64_t rows_per_column() const { return rows_per_column_; }
  // Frequency rows held per column: min(bins, plot height).
  std::size_t kept_rows_per_column() const { return stored_height_; }

  // Where the last finish() drew things (image size, plot area, ticks); empty before.
  const PlotGeometry& geometry() const { return geometry_; }
  // The colour range the last finish() used.
  double used_db_min() const { return used_db_min_; }
  double used_db_max() const { return used_db_max_; }

 private:
  float to_linear_power(float value) const;
  void add_row(const float* row);
  double partial_column_power(std::size_t row) const;
  void close_partial_column();
  void merge_columns_pairwise();
  std::vector<float> plot_decibels(int width, int height) const;
  std::string default_title() const;
  void render_and_write(bool complete);

  std::string path_;
  SinkOptions options_;
  const ColormapTable* colormap_ = nullptr;
  PartialFile file_;
  SpectrumLayout layout_;
  bool begun_ = false;
  bool finished_ = false;

  // Frequency reduction: bin i goes to stored row bin_row_[i] (0 = lowest frequency).
  std::vector<std::uint32_t> bin_row_;
  std::vector<std::uint32_t> bins_in_row_;  // how many bins each stored row takes (mean)
  std::size_t stored_height_ = 0;

  // Time columns of linear power (the maximum or mean of their rows), column by column
  // (stored_height_ values each).
  std::vector<float> columns_;
  std::size_t column_capacity_ = 0;
  std::size_t complete_columns_ = 0;
  std::uint64_t rows_per_column_ = 1;
  std::vector<double> partial_sum_;  // the column being filled: sum (mean) or maximum of power
  std::uint64_t partial_rows_ = 0;
  std::vector<double> row_reduced_;  // scratch: one row reduced to pixel rows, linear power

  std::optional<std::uint64_t> first_row_;
  std::uint64_t rows_received_ = 0;

  PlotGeometry geometry_;
  double used_db_min_ = 0.0, used_db_max_ = 0.0;
};

}  // namespace prism
