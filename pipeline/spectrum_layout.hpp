// SpectrumLayout: what a port of rows carries — one row per (averaged) frame, one
// column per frequency bin — with everything a sink needs to label, store or plot them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stream_info.hpp"

namespace prism {

enum class SpectrumQuantity {
  power_spectral_density,  // V²/Hz   (mode psd, scaling density)
  power_spectrum,          // V²      (mode psd, scaling spectrum)
  magnitude_density,       // V/√Hz   (mode magnitude, scaling density)
  magnitude_spectrum,      // V       (mode magnitude, scaling spectrum)
  complex_density,         // V/√Hz   (mode complex, scaling density): complex values
  complex_spectrum,        // V       (mode complex, scaling spectrum): complex values
  angle,                   // rad     (mode angle): the complex values' argument, in (-π, π]
  phase,                   // rad     (mode phase): the angle unwrapped along each row
  mel,                     // V**power (mode mel): mel bands of |X|^power, X the unscaled DFT
  mfcc_of_decibels,        // dB      (mode mfcc): DCT-II ortho of the mel bands in dB
  mfcc_of_log,             // ln      (mode mfcc, log_mels): DCT-II ortho of ln(mel + 1e-6)
};

// What the columns are: FFT bins (frequencies in Hz), mel bands (frequencies are their centres,
// in Hz) or cepstral coefficients 0, 1, ... (no frequencies).
enum class ColumnAxis { frequency, mel_band, cepstral_coefficient };

struct SpectrumLayout {
  std::size_t columns = 0;            // values per row (frequency bins)
  // Each value is a complex float (re, im interleaved; mode complex) rather than a float.
  bool complex_values = false;
  // Values are double rather than float (precision double).
  bool double_values = false;
  // Hz, baseband, ascending; size == columns (empty for cepstral coefficients).
  std::vector<double> frequencies;
  ColumnAxis column_axis = ColumnAxis::frequency;
  double power = 2.0;                 // quantity mel: the exponent of |X| in each band
  double first_row_time = 0.0;        // s from the stream's start: centre of row 0
  double row_interval = 0.0;          // s between consecutive rows
  SpectrumQuantity quantity = SpectrumQuantity::power_spectral_density;
  bool decibels = false;              // values are 10·log10(power) (20·log10 for magnitude)
  StreamInfo stream;                  // the input the rows come from
  // Every processing parameter, by name, as the text of a JSON object (empty: none), for
  // sidecars: {"window": "hann", "nperseg": 1024, ...}.
  std::string parameters_json;
  // Input with a full scale (integers scaled to [-1, 1), float audio: StreamInfo::
  // float_full_scale): the linear power (magnitude² for the magnitude quantities) that the bin
  // of a full-scale tone shows in these rows, before dB: the 0 dBFS reference. A real input's
  // tone is a sine of amplitude 1 (one-sided rows), a complex input's is exp(j2πft) (|x| = 1).
  // None for other float input and for --integer-scale raw.
  std::optional<double> full_scale_power;

  double row_time(std::uint64_t row) const {
    return first_row_time + static_cast<double>(row) * row_interval;
  }
  // True for the power quantities (dB = 10·log10), false for magnitudes (dB = 20·log10).
  bool is_power() const {
    return quantity == SpectrumQuantity::power_spectral_density ||
           quantity == SpectrumQuantity::power_spectrum;
  }
  // Levels that can be given in dB: not complex values, angles, or cepstra.
  bool has_decibel_form() const {
    return !complex_values && quantity != SpectrumQuantity::angle && quantity != SpectrumQuantity::phase &&
           quantity != SpectrumQuantity::mfcc_of_log && quantity != SpectrumQuantity::mfcc_of_decibels;
  }
  // Bytes of one row.
  std::size_t row_bytes() const {
    return columns * (double_values ? sizeof(double) : sizeof(float)) * (complex_values ? 2 : 1);
  }
  // "V**2/Hz", "V**2", "V/sqrt(Hz)", "V", "rad", "V**P" (mel), or "dB" forms of them; "dB" or
  // "ln(V**P)" for the cepstra; for labels.
  std::string unit() const;
};

}  // namespace prism
