// SpectrogramParams: the parameters of the short-time Fourier transform, with the names and
// the meaning of scipy.signal.spectrogram, plus prism's decibel output and frame averaging.
//
//   window     every window of scipy.signal.get_window with its parameters (window.hpp),
//              periodic; default tukey:0.25 as scipy
//   nperseg    samples per segment (frame), >= 1; default 256
//   noverlap   samples shared by consecutive segments, 0 <= noverlap < nperseg;
//              default nperseg / 8 (scipy's spectrogram)
//   nfft       FFT length >= nperseg (the segment is zero-padded); default nperseg
//   detrend    none, constant (subtract each segment's mean) or linear (its least-squares
//              line; the CPU backend only); default constant
//   scaling    density (V²/Hz) or spectrum (V²); default density
//   mode       psd (|X|²), magnitude (|X|), complex (X, scaled as magnitude), angle (arg X),
//              phase (arg X unwrapped along each row, in the rows' ascending-frequency order),
//              mel (torchaudio's MelSpectrogram) or mfcc (torchaudio's MFCC); default psd.
//              complex, angle and phase: no dB, no averaging, the CPU backend only; mfcc of
//              more than kGpuMfccMaxBands bands: the CPU backend only
//   mel, mfcc  (real input) the mel filterbank (mel_filterbank.hpp: n_mels bands from f_min to
//              f_max Hz, mel_scale htk or slaney, mel_norm none or slaney) applied to
//              |X|^power of the unscaled DFT, as torchaudio's Spectrogram(normalized=False):
//              scaling does not apply. mel with decibels: (20/power)·log10(max(v, 1e-10)),
//              torchaudio's AmplitudeToDB without top_db. mfcc: each frame's mel energies to
//              10·log10(max(v, 1e-10)) (or ln(v + 1e-6) with log_mels), then the first n_mfcc
//              coefficients of their DCT-II, norm ortho
//   decibels   output 10·log10 of power (20·log10 of magnitude), floored at kDecibelFloor
//   average    K >= 1 consecutive frames per output row, by mean or max (peak hold);
//              trailing frames that do not fill K are not output and are counted
//   frequency_range  LO:HI, Hz (baseband, as the rows' frequencies): only the bins from LO to
//              HI are output; within the input's band; the CPU backend only
//   channel    which channel of a multi-channel stream to analyse, 0-based
//   integer_scale  unit (integers scaled to [-1, 1)) or raw (stored values), see format.hpp
//   precision  single (float: the samples, the FFT and the rows) or double (double throughout,
//              rows of double; FFTW's double-precision library, or on a GPU our FP64 FFT or
//              cuFFT's double plans)
//
// Real input gives one-sided spectra (nfft/2 + 1 bins, as scipy's return_onesided=True);
// complex input gives two-sided spectra, centred (fftshift: the most negative frequency first).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format.hpp"
#include "mel_filterbank.hpp"
#include "settings.hpp"
#include "spectrum_layout.hpp"
#include "stage.hpp"
#include "stream_info.hpp"
#include "window.hpp"

namespace prism {

enum class Detrend { none, constant, linear };
enum class Scaling { density, spectrum };
enum class SpectrumMode { psd, magnitude, complex, angle, phase, mel, mfcc };
enum class AverageKind { mean, max };

// Power below this (1e-30, i.e. -300 dB) is shown as this, so that dB output stays finite.
inline constexpr double kDecibelFloorPower = 1e-30;

struct SpectrogramParams {
  // noverlap and nfft left unset: their defaults, which follow nperseg (resolved()).
  static constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();

  WindowSpec window = WindowSpec{WindowKind::tukey, 0.25};
  std::size_t nperseg = 256;
  std::size_t noverlap = kUnset;  // unset: nperseg / 8
  std::size_t nfft = kUnset;      // unset: nperseg
  Detrend detrend = Detrend::constant;
  Scaling scaling = Scaling::density;
  SpectrumMode mode = SpectrumMode::psd;
  bool decibels = false;
  std::size_t average = 1;
  AverageKind average_kind = AverageKind::mean;
  std::optional<std::pair<double, double>> frequency_range;  // Hz, low < high; none: every bin
  unsigned channel = 0;
  IntegerScale integer_scale = IntegerScale::unit;
  bool double_precision = false;
  // Modes mel and mfcc, with torchaudio's defaults.
  std::size_t n_mels = 128;
  double f_min = 0.0;
  std::optional<double> f_max;  // none: floor(sample_rate / 2), as torchaudio
  MelScale mel_scale = MelScale::htk;
  MelNorm mel_norm = MelNorm::none;
  double power = 2.0;
  std::size_t n_mfcc = 40;
  bool log_mels = false;

  // These parameters with unset fields at their defaults. The stages (make_spectrogram_stage,
  // CpuSpectrogram) and spectrogram_layout resolve what they are given.
  SpectrogramParams resolved() const;
  std::size_t hop() const { return nperseg - (noverlap == kUnset ? nperseg / 8 : noverlap); }
  // Modes whose rows hold the complex values or their argument rather than a detected level.
  bool keeps_phase() const {
    return mode == SpectrumMode::complex || mode == SpectrumMode::angle || mode == SpectrumMode::phase;
  }
  bool is_mel() const { return mode == SpectrumMode::mel || mode == SpectrumMode::mfcc; }
  // Modes whose rows the db setting can put in dB (the cepstra are taken from dB already).
  bool has_decibel_form() const { return !keeps_phase() && mode != SpectrumMode::mfcc; }
  // f_max, or its default for a stream at `sample_rate`.
  double mel_f_max(double sample_rate) const { return f_max ? *f_max : std::floor(sample_rate / 2.0); }
  // Throws UsageError when a value is out of its range, naming the setting through `name`
  // (the field's name by default; "--nperseg" on the command line). Unset fields are checked
  // at their defaults.
  void validate(const KeyNamer& name = plain_key_names()) const;
};

// The spectrogram's settings, as `prism spectrogram` takes them as options and `prism run` as
// stage keys (spectrogram:nperseg=1024,window=hann), with scipy's names and defaults.
const std::vector<Setting>& spectrogram_settings();
// The parameters those settings give (unset ones take their defaults: noverlap nperseg/8, nfft
// nperseg); throws UsageError naming the setting as `values` was written.
SpectrogramParams spectrogram_params_from(const SettingValues& values);

// Mode mfcc on a GPU keeps a row's band logarithms in shared memory, 8 bytes each: up to this
// many bands (64 KiB, which every GPU since Volta gives a block), CPU beyond.
inline constexpr std::size_t kGpuMfccMaxBands = 8192;

// The first setting of `params` that only the CPU backend computes ("detrend linear", "mode
// complex", "frequency_range", named through `name`), or ""; the GPU backends refuse such
// parameters and automatic falls back to the CPU.
std::string spectrogram_cpu_only_setting(const SpectrogramParams& params, const KeyNamer& name = plain_key_names());

// Throws UsageError (named through `name`) when modes mel and mfcc cannot run on `stream`:
// complex input, or f_min and f_max outside 0 .. sample_rate/2.
void check_mel_stream(const StreamInfo& stream, const SpectrogramParams& params, const KeyNamer& name = plain_key_names());
// The mel filterbank of modes mel and mfcc for `stream` (after check_mel_stream).
MelFilterbank spectrogram_mel_filterbank(const StreamInfo& stream, const SpectrogramParams& params);

// The columns of the spectrum that the rows keep: all of them, or those of --frequency-range.
struct ColumnRange {
  std::size_t first = 0;
  std::size_t count = 0;
};
// Throws UsageError naming frequency_range through `name` when the range leaves the band of
// `stream` (real input: 0 to fs/2, complex: -fs/2 to fs/2) or holds no bin. Modes mel and mfcc
// keep every bin (their filterbank reads them all).
ColumnRange spectrogram_column_range(const StreamInfo& stream, const SpectrogramParams& params,
                                     const KeyNamer& name = plain_key_names());

// What every spectrogram stage (CPU or GPU) reports: samples in, rows out, and the frames, the
// trailing frames that fill no complete average and the tail, which follow from the samples taken
// in and the frames computed.
StageCounters spectrogram_counters(const SpectrogramParams& params, std::uint64_t samples_in, std::uint64_t frames);
// The most rows a block of `block_samples` samples can complete: at most (b-1)/hop + 1 frames,
// and with an average already begun, one more row than frames/K rounded down.
std::size_t spectrogram_max_rows_per_block(const SpectrogramParams& params, std::size_t block_samples);

// What every spectrogram stage's rows mean for `stream`: scipy's frequencies (fftfreq,
// centred for complex input) and frame-centre times, the quantity, the parameters.
SpectrumLayout spectrogram_layout(const StreamInfo& stream, const SpectrogramParams& params);
// Per column, the factor applied to the combined |X|² (or |X|) of a row: scipy's scaling
// (density 1/(fs·Σw²), spectrum 1/(Σw)², square-rooted for magnitude), one-sided psd bins
// doubled, and 1/K for a mean over K frames. `window`: the nperseg window values.
std::vector<float> spectrogram_column_scales(const StreamInfo& stream, const SpectrogramParams& params,
                                             const std::vector<double>& window);
// The same factors before their rounding to float (the double-precision spectrogram's).
std::vector<double> spectrogram_column_scales_double(const StreamInfo& stream, const SpectrogramParams& params,
                                                     const std::vector<double>& window);
// dB = multiplier·log10(max(value, floor)): 10 and the power floor for psd, 20 and its square
// root for magnitude; 20/power and 1e-10 for mel (torchaudio's AmplitudeToDB).
struct DecibelScale {
  float multiplier = 10.0f;
  float floor = static_cast<float>(kDecibelFloorPower);
};
DecibelScale spectrogram_decibels(const SpectrogramParams& params);

std::string to_string(Detrend);
std::string to_string(Scaling);
std::string to_string(SpectrumMode);
std::string to_string(AverageKind);

}  // namespace prism
