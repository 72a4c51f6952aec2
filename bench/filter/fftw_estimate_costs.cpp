// fftw_estimate_costs: the per-point cost of prism's CPU FFT plans (FFTW, FFTW_ESTIMATE,
// through fft/fft.hpp) for the lengths FirGeometry's cost model considers, printed as the
// table that pipeline/fir_geometry.cpp holds (kMeasuredCosts). Run on an otherwise quiet
// machine; the CPU time of the process is measured (best of --rounds), so sharing the cores
// with other work disturbs it less than wall time would.
//
//   fftw_estimate_costs [--rounds 5]
//
// Lengths: 2^a·m for m in {1, 3, 5, 7, 9, 15}, 8 <= n <= 2^18. Cost: nanoseconds per
// n·log2(n) of one complex forward transform, out of place, on 64-byte-aligned buffers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "fft/fft.hpp"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: fftw_estimate_costs [--rounds R]\n");
      return 2;
    }
  }
  std::vector<std::size_t> lengths;
  for (std::size_t m : {1u, 3u, 5u, 7u, 9u, 15u})
    for (std::size_t n = m; n <= (std::size_t{1} << 18); n *= 2)
      if (n >= 8) lengths.push_back(n);
  std::sort(lengths.begin(), lengths.end());
  auto backend = prism::fft::make_cpu_backend();
  std::printf("// %s, CPU time, best of %d\n", backend->describe().c_str(), rounds);
  for (std::size_t n : lengths) {
    prism::fft::PlanSpec spec;
    spec.n = n;
    spec.transform = prism::fft::Transform::c2c_forward;
    auto plan = backend->plan(spec);
    float* in = static_cast<float*>(std::aligned_alloc(64, (2 * n * sizeof(float) + 63) / 64 * 64));
    float* out =
        static_cast<float*>(std::aligned_alloc(64, (2 * n * sizeof(float) + 63) / 64 * 64));
    for (std::size_t i = 0; i < 2 * n; ++i) in[i] = std::sin(0.1 * static_cast<double>(i));
    const double work = static_cast<double>(n) * std::log2(static_cast<double>(n));
    const long reps = std::max(4L, static_cast<long>(4e7 / work));
    double best = 1e300;
    for (int r = 0; r < rounds; ++r) {
      const double t0 = cpu_seconds();
      for (long k = 0; k < reps; ++k) plan->execute(in, out, 1);
      best = std::min(best, (cpu_seconds() - t0) / static_cast<double>(reps));
    }
    std::printf("    {%zu, %.4f},\n", n, best * 1e9 / work);
    std::free(in);
    std::free(out);
  }
  return 0;
}
