// The mel filterbank and the Hz <-> mel conversions of torchaudio (torchaudio.functional
// melscale_fbanks, _hz_to_mel, _mel_to_hz), which the spectrogram's modes mel and mfcc apply to
// the one-sided |X|^power of each frame:
//
//   htk:     mel = 2595·log10(1 + f/700)
//   slaney:  mel = 3f/200 below 1 kHz, 15 + 27·ln(f/1000)/ln(6.4) above (Slaney's Auditory Toolbox)
//
// n_mels + 2 points equally spaced in mel from f_min to f_max give the bands' edges and centres;
// band m is the triangle rising from point m to point m+1 and falling to point m+2, evaluated at
// the FFT bins' frequencies, which torchaudio takes as linspace(0, floor(fs/2), n_fft/2 + 1)
// (for an odd n_fft or an odd sample rate that is not quite rfftfreq; prism follows torchaudio).
// norm slaney divides each triangle by half its width in Hz (2 / (f[m+2] - f[m])), so that each
// band has unit area.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace prism {

enum class MelScale { htk, slaney };
enum class MelNorm { none, slaney };

double hz_to_mel(double hz, MelScale scale);
double mel_to_hz(double mel, MelScale scale);

struct MelFilterbank {
  std::size_t bins = 0;   // n_fft/2 + 1
  std::size_t bands = 0;  // n_mels
  // The bands' centre frequencies in Hz (points 1..n_mels of the n_mels + 2).
  std::vector<double> centres;
  // Band m's weights are nonzero only for bins [first[m], first[m] + weights[m].size()).
  std::vector<std::size_t> first;
  std::vector<std::vector<double>> weights;

  // Σ_k weight(k, m)·power[k] for every band m, into `bands` values.
  void apply(const float* power, double* out) const;
  void apply(const double* power, double* out) const;
  // The full bins × bands matrix's entry (k, m), zero outside the band.
  double weight(std::size_t bin, std::size_t band) const;
};

// torchaudio.functional.melscale_fbanks(n_fft/2 + 1, f_min, f_max, n_mels, sample_rate, norm,
// mel_scale), computed in double.
MelFilterbank make_mel_filterbank(std::size_t n_fft, double sample_rate, std::size_t n_mels, double f_min,
                                  double f_max, MelScale scale, MelNorm norm);

std::string to_string(MelScale);
std::string to_string(MelNorm);

// Mode mfcc's logarithm of a band, torchaudio's: ln(band + 1e-6) with log_mels, else
// AmplitudeToDB("power") without top_db, 10·log10(max(band, 1e-10)). For the CPU and the GPU.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline double mfcc_log_band(double band, bool log_mels) {
  return log_mels ? std::log(band + 1e-6) : 10.0 * std::log10(band < 1e-10 ? 1e-10 : band);
}

}  // namespace prism
