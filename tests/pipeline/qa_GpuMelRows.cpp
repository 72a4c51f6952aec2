// qa_GpuMelRows: the GPU's modes mel and mfcc without a GPU — the tables the device uploads
// (the filterbank flattened, the cepstrum's matrix) and the per-row functions its kernel runs
// (gpu_mel_rows.hpp), run here over host memory against the arithmetic of CpuSpectrogram's rows
// (MelFilterbank::apply, the CPU's DCT-II of the log bands); and which mel settings the GPU
// refuses. qa_CudaSpectrogram holds the kernel's rows to CpuSpectrogram's on a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "fft/dct.hpp"
#include "pipeline/gpu_mel_rows.hpp"
#include "pipeline/mel_filterbank.hpp"
#include "pipeline/spectrogram_params.hpp"

namespace prism {
namespace {

StreamInfo mono(double rate) {
  StreamInfo s;
  s.format = SampleFormat::f32;
  s.channels = 1;
  s.sample_rate = rate;
  return s;
}

GpuMelRowArgs pointing_at(const GpuMelTables& t) {
  GpuMelRowArgs a = t.args;
  a.band_first = t.band_first.data();
  a.band_start = t.band_start.data();
  a.weights = t.weights.data();
  a.cepstrum = t.cepstrum.empty() ? nullptr : t.cepstrum.data();
  return a;
}

std::vector<float> random_power(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng) * value(rng);
  v[n / 3] = 0.0f;  // an empty bin: the logarithms' floors
  return v;
}

TEST(GpuMelRows, TheCepstrumMatrixIsTheOrthonormalDctTruncated) {
  for (std::size_t n_mels : {1, 2, 3, 13, 40, 128, 257}) {
    fft::CpuDct<double> dct(fft::DctSpec{n_mels, 1, fft::DctType::type2, fft::DctNorm::ortho});
    std::mt19937 rng(static_cast<unsigned>(n_mels));
    std::normal_distribution<double> normal;
    std::vector<double> x(n_mels), y(n_mels);
    for (double& v : x) v = normal(rng);
    dct.execute(x.data(), y.data());
    for (std::size_t n_mfcc : {std::size_t{1}, std::min<std::size_t>(13, n_mels), n_mels}) {
      const std::vector<double> matrix = mfcc_dct_matrix(n_mfcc, n_mels);
      ASSERT_EQ(matrix.size(), n_mfcc * n_mels);
      for (std::size_t i = 0; i < n_mfcc; ++i) {
        double sum = 0.0;
        for (std::size_t m = 0; m < n_mels; ++m) sum += matrix[m * n_mfcc + i] * x[m];
        EXPECT_NEAR(sum, y[i], 1e-12 * (1 + std::abs(y[i]))) << "n_mels " << n_mels << ", coefficient " << i;
      }
    }
  }
  EXPECT_THROW(mfcc_dct_matrix(5, 4), std::invalid_argument);
  EXPECT_THROW(mfcc_dct_matrix(1, 0), std::invalid_argument);
}

struct MelCase {
  std::size_t nfft, n_mels;
  MelScale scale;
  MelNorm norm;
  double f_min, f_max;  // f_max 0: the default
  double rate;
};

TEST(GpuMelRows, BandsAreTheFilterbanksAndTheirLogarithmsTheCpus) {
  const std::vector<MelCase> cases = {
      {400, 40, MelScale::htk, MelNorm::none, 0, 0, 16000},
      {512, 128, MelScale::slaney, MelNorm::slaney, 20, 7600, 16000},
      {1024, 64, MelScale::htk, MelNorm::slaney, 300, 0, 44100},
      {255, 10, MelScale::slaney, MelNorm::none, 0, 4000, 8000},
      {64, 80, MelScale::htk, MelNorm::none, 0, 0, 22050},  // more bands than bins: some are empty
  };
  for (const MelCase& c : cases) {
    SpectrogramParams p;
    p.nperseg = c.nfft;
    p.nfft = c.nfft;
    p.n_mels = c.n_mels;
    p.mel_scale = c.scale;
    p.mel_norm = c.norm;
    p.f_min = c.f_min;
    if (c.f_max > 0) p.f_max = c.f_max;
    const StreamInfo stream = mono(c.rate);
    const MelFilterbank bank = spectrogram_mel_filterbank(stream, p);
    const std::vector<float> power = random_power(c.nfft / 2 + 1, static_cast<unsigned>(c.nfft));
    std::vector<double> expected(c.n_mels);
    bank.apply(power.data(), expected.data());
    const std::string label = "nfft " + std::to_string(c.nfft) + ", n_mels " + std::to_string(c.n_mels);

    for (bool decibels : {false, true}) {
      p.mode = SpectrumMode::mel;
      p.decibels = decibels;
      p.power = 1.0;  // the dB multiplier 20/power
      const GpuMelTables tables = make_gpu_mel_tables(stream, p);
      ASSERT_EQ(tables.args.bins, static_cast<int>(c.nfft / 2 + 1)) << label;
      ASSERT_EQ(tables.args.row_width(), static_cast<int>(c.n_mels)) << label;
      ASSERT_EQ(tables.band_start.back(), static_cast<int>(tables.weights.size())) << label;
      const GpuMelRowArgs a = pointing_at(tables);
      for (std::size_t m = 0; m < c.n_mels; ++m) {
        const double want = decibels ? 20.0 * std::log10(std::max(expected[m], 1e-10)) : expected[m];
        EXPECT_NEAR(mel_band_value(a, power.data(), static_cast<int>(m)), want, 1e-6 * (1 + std::abs(want)))
            << label << (decibels ? " dB" : "") << ", band " << m;
      }
    }
    for (bool log_mels : {false, true}) {
      p.mode = SpectrumMode::mfcc;
      p.decibels = false;
      p.log_mels = log_mels;
      p.n_mfcc = std::min<std::size_t>(13, c.n_mels);
      const GpuMelTables tables = make_gpu_mel_tables(stream, p);
      ASSERT_EQ(tables.args.row_width(), static_cast<int>(p.n_mfcc)) << label;
      const GpuMelRowArgs a = pointing_at(tables);
      std::vector<double> logs(c.n_mels), want(c.n_mels), got(c.n_mels);
      for (std::size_t m = 0; m < c.n_mels; ++m) {
        logs[m] = log_mels ? std::log(expected[m] + 1e-6) : 10.0 * std::log10(std::max(expected[m], 1e-10));
        got[m] = mel_band_value(a, power.data(), static_cast<int>(m));
        EXPECT_NEAR(got[m], logs[m], 1e-12 * (1 + std::abs(logs[m]))) << label << ", band " << m;
      }
      fft::CpuDct<double>(fft::DctSpec{c.n_mels, 1, fft::DctType::type2, fft::DctNorm::ortho})
          .execute(logs.data(), want.data());
      // The row alone, and as the third of three rows finished together (the others its bands
      // reversed and halved, the rest of the group zeros, as the kernel lays them out band by
      // band): the same value, to the bit.
      constexpr int kRows = kGpuMelRowsPerCta;
      std::vector<double> three(kRows * c.n_mels, 0.0);
      for (std::size_t m = 0; m < c.n_mels; ++m) {
        three[m * kRows] = got[c.n_mels - 1 - m];
        three[m * kRows + 1] = 0.5 * got[m];
        three[m * kRows + 2] = got[m];
      }
      for (std::size_t i = 0; i < p.n_mfcc; ++i) {
        double alone = 0, together[kRows] = {};
        cepstrum_values<1>(a, got.data(), 1, static_cast<int>(i), &alone);
        cepstrum_values<kRows>(a, three.data(), 3, static_cast<int>(i), together);
        EXPECT_NEAR(alone, want[i], 1e-9 * (1 + std::abs(want[i])))
            << label << (log_mels ? " log_mels" : "") << ", coefficient " << i;
        EXPECT_EQ(together[2], alone) << label << ", coefficient " << i;
        EXPECT_NEAR(together[1], 0.5 * alone, 1e-9 * (1 + std::abs(alone))) << label << ", coefficient " << i;
      }
    }
  }
}

TEST(GpuMelRows, OnlyTheMelModesHaveTables) {
  SpectrogramParams p;
  p.nperseg = 256;
  EXPECT_THROW(make_gpu_mel_tables(mono(16000), p), std::invalid_argument);
}

TEST(GpuMelRows, TheGpuTakesMelAndMfccUpToItsBandLimit) {
  SpectrogramParams p;
  p.nperseg = 1024;
  p.mode = SpectrumMode::mel;
  p.n_mels = 20000;
  EXPECT_EQ(spectrogram_cpu_only_setting(p), "");
  p.mode = SpectrumMode::mfcc;
  p.n_mels = kGpuMfccMaxBands;
  EXPECT_EQ(spectrogram_cpu_only_setting(p), "");
  p.n_mels = kGpuMfccMaxBands + 1;
  const std::string setting = spectrogram_cpu_only_setting(p);
  EXPECT_NE(setting.find("mfcc"), std::string::npos) << setting;
  EXPECT_NE(setting.find("n_mels " + std::to_string(kGpuMfccMaxBands + 1)), std::string::npos) << setting;
}

}  // namespace
}  // namespace prism
