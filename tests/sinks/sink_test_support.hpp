// Helpers shared by the sink tests: a scratch directory removed afterwards, file reading, a
// ready-made SpectrumLayout, and a sink driven as the graph drives it (its input described, chunks
// over the test's own buffers).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/chunk.hpp"
#include "pipeline/spectrum_layout.hpp"
#include "pipeline/stage.hpp"

namespace prism::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "prism-sinks-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // The names in the directory, sorted: to check that nothing else was left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(path_))
      out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline bool exists(const std::string& path) { return std::filesystem::exists(path); }

// A real-input spectrogram layout: `columns` bins from 0 Hz in steps of `bin_hz`.
inline SpectrumLayout make_layout(std::size_t columns, double bin_hz, bool decibels = true) {
  SpectrumLayout layout;
  layout.columns = columns;
  for (std::size_t i = 0; i < columns; ++i) layout.frequencies.push_back(bin_hz * i);
  layout.row_interval = 0.005;
  layout.first_row_time = 0.0025;
  layout.quantity = SpectrumQuantity::power_spectral_density;
  layout.decibels = decibels;
  layout.stream.format = SampleFormat::f32;
  layout.stream.sample_rate = bin_hz * 2 * (columns > 1 ? columns - 1 : 1);
  layout.stream.channels = 1;
  layout.parameters_json = nlohmann::json{{"window", "hann"}, {"nperseg", 2 * (columns - 1)}, {"noverlap", 0},
                                          {"nfft", 2 * (columns - 1)}, {"average", 1}, {"scaling", "density"}}
                               .dump();
  return layout;
}

inline void begin_rows(Sink& sink, const SpectrumLayout& layout) { sink.begin(PortDescription::of_rows(layout)); }
inline void write_rows(Sink& sink, const float* rows, std::size_t count, std::uint64_t first_row, std::size_t columns) {
  sink.write(chunk_view(rows, count, columns * sizeof(float), first_row));
}
inline void begin_samples(Sink& sink, const StreamInfo& info) { sink.begin(PortDescription::of_samples(info)); }
inline void write_samples(Sink& sink, const void* data, std::size_t samples, const StreamInfo& info,
                          std::uint64_t first_sample = 0) {
  sink.write(chunk_view(data, samples, info.frame_bytes(), first_sample));
}

}  // namespace prism::test
