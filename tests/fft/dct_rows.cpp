// A test driver of the CPU DCT (fft/dct.hpp) for test_dct_vs_scipy.py: for each length N in turn,
// reads BATCH rows of N native-endian floats or doubles from stdin and writes their DCT to stdout.
//   dct_rows f32|f64 TYPE NORM BATCH N...
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "fft/dct.hpp"

namespace {

template <typename Real>
int run_one(prism::fft::DctSpec spec) {
  std::vector<Real> in(spec.n * spec.batch), out(spec.n * spec.batch);
  if (std::fread(in.data(), sizeof(Real), in.size(), stdin) != in.size()) {
    std::fprintf(stderr, "dct_rows: expected %zu values on stdin\n", in.size());
    return 1;
  }
  prism::fft::CpuDct<Real> dct(spec);
  dct.execute(in.data(), out.data());
  if (std::fwrite(out.data(), sizeof(Real), out.size(), stdout) != out.size()) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: dct_rows f32|f64 TYPE NORM BATCH N...\n");
    return 2;
  }
  try {
    const std::string precision = argv[1];
    if (precision != "f32" && precision != "f64") {
      std::fprintf(stderr, "dct_rows: precision must be f32 or f64\n");
      return 2;
    }
    prism::fft::DctSpec spec;
    spec.type = static_cast<prism::fft::DctType>(std::stoi(argv[2]));
    spec.norm = prism::fft::parse_dct_norm(argv[3]);
    spec.batch = std::stoul(argv[4]);
    for (int arg = 5; arg < argc; ++arg) {
      spec.n = std::stoul(argv[arg]);
      const int rc = precision == "f32" ? run_one<float>(spec) : run_one<double>(spec);
      if (rc != 0) return rc;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dct_rows: %s\n", e.what());
    return 1;
  }
}
