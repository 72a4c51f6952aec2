// The modes mel and mfcc on a GPU (pipeline/cuda/cuda_spectrogram.hpp), in plain C++ so that the
// CPU tests hold them to CpuSpectrogram's arithmetic without a device (tests/pipeline/
// qa_GpuMelRows.cpp runs the same per-row functions over host memory):
//   GpuMelTables     the filterbank flattened (each band's nonzero weights, one after another)
//                    and the cepstrum's matrix, made on the host and uploaded once;
//   mel_band_value   one band of one row: its weighted sum of the detector's |X|^power, then
//                    its dB (mode mel with db), or its logarithm (mode mfcc);
//   cepstrum_values  one cepstral coefficient of a few rows from their logarithmic bands (each
//                    weight read once for all of them; each row summed as if alone).
//
// As CpuSpectrogram does, the bands, their logarithm and the cepstrum are computed in double.
// The cepstrum is a product with the first n_mfcc rows of the orthonormal DCT-II matrix: a row
// keeps only n_mfcc of the n_mels coefficients, and the product lets a CTA finish its rows from
// their bands in shared memory, without another launch.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "mel_filterbank.hpp"
#include "spectrogram_params.hpp"
#include "stream_info.hpp"

#if defined(__CUDACC__)
#define PRISM_MEL_HD __host__ __device__ __forceinline__
#else
#define PRISM_MEL_HD inline
#endif

namespace prism {

// Rows a CTA of the mel kernel finishes together, at most.
inline constexpr int kGpuMelRowsPerCta = 8;

// What the per-row functions read, as pointers (device memory on the GPU, host memory on the host).
struct GpuMelRowArgs {
  int bins = 0;          // columns of the detector's rows: nfft/2 + 1
  int bands = 0;         // n_mels
  int coefficients = 0;  // n_mfcc; 0 in mode mel
  int decibels = 0;      // mode mel: multiplier·log10(max(band, floor))
  int log_mels = 0;      // mode mfcc: ln(band + 1e-6) instead of 10·log10(max(band, 1e-10))
  double decibel_multiplier = 10.0;
  double decibel_floor = 1e-10;
  const int* band_first = nullptr;  // [bands]: the bin of band m's first weight
  const int* band_start = nullptr;  // [bands + 1]: band m's weights are weights[start[m] .. start[m+1])
  const double* weights = nullptr;
  // [bands × coefficients]: entry [m·coefficients + i] is band m's weight in coefficient i
  // (torchaudio's create_dct layout), so that threads computing neighbouring coefficients read
  // neighbouring entries.
  const double* cepstrum = nullptr;
  // The width of a finished row: coefficients in mode mfcc, bands in mode mel.
  PRISM_MEL_HD int row_width() const { return coefficients > 0 ? coefficients : bands; }
};

// The tables behind GpuMelRowArgs' pointers, on the host.
struct GpuMelTables {
  GpuMelRowArgs args;  // its pointers are left null: each user points them at its own copies
  std::vector<int> band_first;
  std::vector<int> band_start;
  std::vector<double> weights;
  std::vector<double> cepstrum;
};

// For the resolved `params` in mode mel or mfcc (std::invalid_argument otherwise) on `stream`.
GpuMelTables make_gpu_mel_tables(const StreamInfo& stream, const SpectrogramParams& params);

// torchaudio.functional.create_dct(n_mfcc, n_mels, "ortho"), laid out as GpuMelRowArgs::cepstrum:
// entry [m·n_mfcc + i] is band m's weight in coefficient i (the first n_mfcc rows of the
// orthonormal DCT-II of n_mels, transposed).
std::vector<double> mfcc_dct_matrix(std::size_t n_mfcc, std::size_t n_mels);

// Band `band` of the row whose detector values (|X|^power per bin, averaged; float, or double in
// double precision) start at `power`: mode mel: the row's value (in dB with db); mode mfcc: its
// logarithm, for cepstrum_values.
template <typename Power>
PRISM_MEL_HD double mel_band_value(const GpuMelRowArgs& a, const Power* power, int band) {
  const int start = a.band_start[band];
  const int count = a.band_start[band + 1] - start;
  const Power* p = power + a.band_first[band];
  const double* w = a.weights + start;
  double sum = 0.0;
  for (int i = 0; i < count; ++i) sum += w[i] * static_cast<double>(p[i]);
  if (a.coefficients > 0) return mfcc_log_band(sum, a.log_mels != 0);
  if (a.decibels && std::isfinite(sum))
    sum = a.decibel_multiplier * std::log10(sum < a.decibel_floor ? a.decibel_floor : sum);
  return sum;
}

// Coefficient `i` of `rows` rows (1..kRows) whose logarithmic bands are log_bands[m·kRows + r]
// (band-major, so that a thread reads band m of all its rows at once), into out[r]. A row's sum
// runs in band order whatever `rows` is, so its value does not depend on the rows beside it.
// kRows is a constant so that `sum` stays in registers: the kernel takes kGpuMelRowsPerCta where
// a band's rows fit in shared memory, and 1 beyond.
template <int kRows>
PRISM_MEL_HD void cepstrum_values(const GpuMelRowArgs& a, const double* log_bands, int rows, int i, double* out) {
  double sum[kRows] = {};
  const double* column = a.cepstrum + i;
  for (int m = 0; m < a.bands; ++m) {
    const double w = column[static_cast<long long>(m) * a.coefficients];
    const double* band = log_bands + m * kRows;
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int r = 0; r < kRows; ++r) sum[r] += w * band[r];  // rows past `rows`: zeros, unread
  }
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int r = 0; r < kRows; ++r)
    if (r < rows) out[r] = sum[r];
}

}  // namespace prism
