// fir_cpu_bench: input samples per second of prism's CPU FIR filter (FirFilter) and, when the
// build found it, liquid-dsp's fftfilt, on the same buffers in one run. Driven by
// bench/filter/fir_cpu_bench.py, which adds scipy.signal.oaconvolve and GNU Radio's
// fft_filter and prints the table; results go to bench/RESULTS.md.
//
//   fir_cpu_bench [--samples N] [--chunk N] [--repeat R] [--threads T,...] [--taps M,...]
//                 [--decimation D,...] [--formats cf32,f32,cf64,f64] [--fft N] [--no-liquid]
//
// cf64 and f64 time the filter in double precision (FirSpec::double_precision; no liquid peer).
//
// Prints one JSON object per line: {"impl", "format", "taps", "decimation", "threads",
// "msps" (median wall), "best_msps" (best wall), "cpu_msps" (median, per CPU-second of the
// process: per core), "detail"}. Input: uniform random in [−0.5, 0.5), never zeros;
// taps: a Hamming-windowed sinc low-pass (the values do not change the work). prism is timed
// from reset() through process() of the whole input in chunks of --chunk items and flush();
// liquid's fftfilt (no decimation of its own) is timed filtering every sample, its block size
// the best of nextpow2(M) · {1, 2, 4, 8} (measured first), the decimation not charged to it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "pipeline/fir_filter.hpp"

#if PRISM_BENCH_HAVE_LIQUID
#include <complex.h>  // liquid's C API names `float complex`
#include <liquid/liquid.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Wall time and the process's CPU time (all its threads): on a shared machine the wall time
// includes waiting for the cores, the CPU time mostly does not.
struct Times {
  double wall = 0, cpu = 0;
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Stopwatch {
  Clock::time_point wall0 = Clock::now();
  double cpu0 = cpu_seconds();
  Times elapsed() const {
    return {std::chrono::duration<double>(Clock::now() - wall0).count(), cpu_seconds() - cpu0};
  }
};

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(static_cast<std::size_t>(std::stod(item)));
  return v;
}

std::vector<double> lowpass(std::size_t m) {
  std::vector<double> h(m);
  const double cutoff = 0.1;  // of the sample rate
  for (std::size_t i = 0; i < m; ++i) {
    const double t = static_cast<double>(i) - (static_cast<double>(m) - 1) / 2;
    const double sinc = t == 0 ? 1.0
                               : std::sin(2 * std::numbers::pi * cutoff * t) /
                                     (std::numbers::pi * t) / (2 * cutoff);
    const double w = m == 1 ? 1.0
                            : 0.54 - 0.46 * std::cos(2 * std::numbers::pi * static_cast<double>(i) /
                                                     static_cast<double>(m - 1));
    h[i] = 2 * cutoff * sinc * w;
  }
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void print(const char* impl, const char* format, std::size_t taps, std::size_t d, unsigned threads,
           const std::vector<Times>& times, std::size_t samples, const std::string& detail) {
  std::vector<double> wall, cpu;
  for (const Times& t : times) {
    wall.push_back(t.wall);
    cpu.push_back(t.cpu);
  }
  const double items = static_cast<double>(samples) / 1e6;
  std::printf(
      "{\"impl\": \"%s\", \"format\": \"%s\", \"taps\": %zu, \"decimation\": %zu, \"threads\": %u, "
      "\"msps\": %.2f, \"best_msps\": %.2f, \"cpu_msps\": %.2f, \"detail\": \"%s\"}\n",
      impl, format, taps, d, threads, items / median(wall),
      items / *std::min_element(wall.begin(), wall.end()), items / median(cpu), detail.c_str());
  std::fflush(stdout);
}

struct Options {
  std::size_t samples = std::size_t{1} << 22;
  std::size_t chunk = std::size_t{1} << 18;
  int repeat = 5;
  std::vector<std::size_t> threads = {1, 2};
  std::vector<std::size_t> taps = {63, 1023, 8191, 65535};
  std::vector<std::size_t> decimations = {1, 8};
  std::vector<std::string> formats = {"cf32", "f32"};
  std::size_t fft = 0;
  bool liquid = true;
};

template <typename Real>
void bench_prism(const Options& o, bool complex_input, std::size_t m, std::size_t d,
                 unsigned threads, const std::vector<Real>& input) {
  constexpr bool wide = std::is_same_v<Real, double>;
  prism::FirSpec spec;
  spec.double_precision = wide;
  spec.taps = prism::FilterTaps::from_real(lowpass(m));
  spec.complex_input = complex_input;
  spec.decimation = d;
  spec.fft_length = o.fft;
  spec.threads = threads;
  prism::FirFilter f(spec);
  const std::size_t out_c = f.complex_output() ? 2 : 1;
  const std::size_t in_c = complex_input ? 2 : 1;
  std::vector<Real> out((o.samples / d + f.max_output(o.chunk) + 16) * out_c);
  std::vector<Times> times;
  for (int r = 0; r < o.repeat + 1; ++r) {
    f.reset();
    const Stopwatch watch;
    std::size_t written = 0;
    for (std::size_t done = 0; done < o.samples; done += o.chunk) {
      const std::size_t n = std::min(o.chunk, o.samples - done);
      written += f.process(input.data() + done * in_c, n, out.data() + written * out_c);
    }
    while (std::size_t got = f.flush(out.data() + written * out_c, 4096)) written += got;
    const Times t = watch.elapsed();
    if (r > 0) times.push_back(t);  // the first run warms caches and pages
    if (written != (o.samples + d - 1) / d) {
      std::fprintf(stderr, "fir_cpu_bench: %zu outputs, expected %zu\n", written,
                   (o.samples + d - 1) / d);
      std::exit(1);
    }
  }
  char model[64];
  std::snprintf(model, sizeof model, "; model %.2f ns per item", f.geometry().cost_per_item);
  const char* format = wide ? (complex_input ? "cf64" : "f64") : (complex_input ? "cf32" : "f32");
  print("prism", format, m, d, threads, times, o.samples,
        f.geometry().describe() + model);
}

#if PRISM_BENCH_HAVE_LIQUID
// One timed pass of liquid's fftfilt over the whole input with block size n.
template <typename Create, typename Execute, typename Destroy, typename Sample>
Times liquid_pass(Create create, Execute execute, Destroy destroy, std::vector<float>& taps,
                  std::size_t block, const Sample* in, Sample* out, std::size_t samples) {
  auto q = create(taps.data(), static_cast<unsigned>(taps.size()), static_cast<unsigned>(block));
  const Stopwatch watch;
  for (std::size_t done = 0; done + block <= samples; done += block)
    execute(q, const_cast<Sample*>(in + done), out + done);
  const Times t = watch.elapsed();
  destroy(q);
  return t;
}

// Measured once per filter and reported for every decimation (liquid filters at full rate).
void bench_liquid(const Options& o, bool complex_input, std::size_t m,
                  const std::vector<std::size_t>& decimations, const std::vector<float>& input) {
  std::vector<double> h = lowpass(m);
  std::vector<float> taps(h.begin(), h.end());
  std::size_t p = 1;
  while (p < m) p *= 2;
  const std::size_t samples = o.samples;  // a multiple of every block size tried
  std::vector<float> out(input.size());
  auto run = [&](std::size_t block) {
    if (complex_input) {
      return liquid_pass(fftfilt_crcf_create, fftfilt_crcf_execute, fftfilt_crcf_destroy, taps,
                         block, reinterpret_cast<const liquid_float_complex*>(input.data()),
                         reinterpret_cast<liquid_float_complex*>(out.data()), samples);
    }
    return liquid_pass(fftfilt_rrrf_create, fftfilt_rrrf_execute, fftfilt_rrrf_destroy, taps, block,
                       input.data(), out.data(), samples);
  };
  std::size_t best_block = p;
  double best_time = 1e300;
  for (std::size_t k : {1u, 2u, 4u, 8u}) {
    const std::size_t block = p * k;
    if (block > samples) continue;
    const double s = run(block).cpu;
    if (s < best_time) {
      best_time = s;
      best_block = block;
    }
  }
  std::vector<Times> times;
  for (int r = 0; r < o.repeat; ++r) times.push_back(run(best_block));
  for (std::size_t d : decimations)
    print("liquid", complex_input ? "cf32" : "f32", m, d, 1, times, samples,
          "fftfilt block " + std::to_string(best_block) + ", FFT " +
              std::to_string(2 * best_block) +
              (d > 1 ? ", full rate (decimation not charged)" : ""));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fir_cpu_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--samples")
      o.samples = static_cast<std::size_t>(std::stod(value()));
    else if (a == "--chunk")
      o.chunk = static_cast<std::size_t>(std::stod(value()));
    else if (a == "--repeat")
      o.repeat = std::stoi(value());
    else if (a == "--threads")
      o.threads = parse_list(value());
    else if (a == "--taps")
      o.taps = parse_list(value());
    else if (a == "--decimation")
      o.decimations = parse_list(value());
    else if (a == "--fft")
      o.fft = static_cast<std::size_t>(std::stod(value()));
    else if (a == "--no-liquid")
      o.liquid = false;
    else if (a == "--formats") {
      o.formats.clear();
      std::stringstream ss(value());
      std::string f;
      while (std::getline(ss, f, ',')) {
        if (f != "cf32" && f != "f32" && f != "cf64" && f != "f64") {
          std::fprintf(stderr, "fir_cpu_bench: --formats takes cf32, f32, cf64 or f64, not %s\n",
                       f.c_str());
          return 2;
        }
        o.formats.push_back(f);
      }
    } else {
      std::fprintf(stderr, "fir_cpu_bench: unknown option %s (see the file's header)\n", a.c_str());
      return 2;
    }
  }
  if (o.samples == 0 || o.chunk == 0 || o.repeat < 1) {
    std::fprintf(stderr, "fir_cpu_bench: --samples, --chunk and --repeat must be positive\n");
    return 2;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  for (const std::string& format : o.formats) {
    const bool complex_input = format[0] == 'c';
    const bool wide = format.find("64") != std::string::npos;
    std::vector<double> values(o.samples * (complex_input ? 2 : 1));
    for (double& v : values) v = uniform(rng);
    const std::vector<float> input(values.begin(), values.end());
    for (std::size_t m : o.taps) {
      for (std::size_t d : o.decimations)
        for (std::size_t t : o.threads) {
          if (wide) bench_prism(o, complex_input, m, d, static_cast<unsigned>(t), values);
          else bench_prism(o, complex_input, m, d, static_cast<unsigned>(t), input);
        }
#if PRISM_BENCH_HAVE_LIQUID
      if (o.liquid && !wide) bench_liquid(o, complex_input, m, o.decimations, input);
#endif
    }
  }
  return 0;
}
