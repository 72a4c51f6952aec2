// The C++ side of the Python-overhead benchmark (bench/embedding/python_overhead.py): the time of
// one spectrogram as prism.spectrogram computes it (a prism::Spectrogram made, fed, flushed) and
// of one pass of a FIR filter made once (prism::FirFilter: process, flush, reset) on the CPU, for
// inputs of 1k, 64k and 4M real samples, without the interpreter. Prints one line per case: name, samples, microseconds
// (median of repeats).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <prism/prism.hpp>

namespace {

template <typename F>
double median_us(F&& f, int repeats) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main() {
  for (const std::size_t n : {std::size_t{1000}, std::size_t{65536}, std::size_t{1} << 22}) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
    const int repeats = n > 100000 ? 5 : n > 10000 ? 20 : 200;

    prism::SpectrogramParams params;  // scipy's defaults: tukey 0.25, nperseg 256, noverlap 32
    prism::StreamInfo info;
    info.sample_rate = 48000;
    std::vector<float> rows;
    prism::StageEnvironment cpu;
    cpu.backend = prism::fft::BackendKind::cpu;
    const double spectrogram_us = median_us(
        [&] {
          prism::Spectrogram spectrogram(params, info, cpu);
          rows.clear();
          spectrogram.feed(x.data(), n, rows);
          spectrogram.flush(rows);
        },
        repeats);
    std::printf("spectrogram %zu %.1f\n", n, spectrogram_us);

    prism::FirSpec spec;
    spec.taps = prism::FilterTaps::from_real(prism::firwin(101, {0.1}));
    prism::FirFilter fir(spec);
    std::vector<float> out(fir.max_output(n) + 4096);
    const double fir_us = median_us(
        [&] {
          std::size_t made = fir.process(x.data(), n, out.data());
          while (const std::size_t more = fir.flush(out.data() + made, 4096)) made += more;
          fir.reset();
        },
        repeats);
    std::printf("fir101 %zu %.1f\n", n, fir_us);
  }
  return 0;
}
