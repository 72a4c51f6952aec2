// Literal table of the forward roots of unity used inside the fixed-size butterflies:
// unit_root(R, m) = exp(-2*pi*i*m/R) rounded to float, for the radices with hard-coded DFTs.
// Kept as literals so that the compiler folds them into the unrolled butterflies on host and device.
#pragma once

#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// Radices whose roots unit_root holds, or that need none beyond quarter turns (2, 4); not the
// prime-factor butterflies 10, 15, 21.
PRISM_HD constexpr bool has_unit_roots(int radix) {
  return radix == 2 || radix == 4 || radix == 8 || radix == 16 || radix == 3 || radix == 5 || radix == 7 ||
         radix == 11 || radix == 13;
}

PRISM_HD constexpr Cf unit_root(int radix, int m) {
  switch (radix * 32 + m) {
    case 96: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 97: return Cf{-5.000000000e-01f, -8.660254038e-01f};
    case 98: return Cf{-5.000000000e-01f, 8.660254038e-01f};
    case 160: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 161: return Cf{3.090169944e-01f, -9.510565163e-01f};
    case 162: return Cf{-8.090169944e-01f, -5.877852523e-01f};
    case 163: return Cf{-8.090169944e-01f, 5.877852523e-01f};
    case 164: return Cf{3.090169944e-01f, 9.510565163e-01f};
    case 224: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 225: return Cf{6.234898019e-01f, -7.818314825e-01f};
    case 226: return Cf{-2.225209340e-01f, -9.749279122e-01f};
    case 227: return Cf{-9.009688679e-01f, -4.338837391e-01f};
    case 228: return Cf{-9.009688679e-01f, 4.338837391e-01f};
    case 229: return Cf{-2.225209340e-01f, 9.749279122e-01f};
    case 230: return Cf{6.234898019e-01f, 7.818314825e-01f};
    case 256: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 257: return Cf{7.071067812e-01f, -7.071067812e-01f};
    case 258: return Cf{0.000000000e+00f, -1.000000000e+00f};
    case 259: return Cf{-7.071067812e-01f, -7.071067812e-01f};
    case 260: return Cf{-1.000000000e+00f, 0.000000000e+00f};
    case 261: return Cf{-7.071067812e-01f, 7.071067812e-01f};
    case 262: return Cf{0.000000000e+00f, 1.000000000e+00f};
    case 263: return Cf{7.071067812e-01f, 7.071067812e-01f};
    case 352: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 353: return Cf{8.412535328e-01f, -5.406408175e-01f};
    case 354: return Cf{4.154150130e-01f, -9.096319954e-01f};
    case 355: return Cf{-1.423148383e-01f, -9.898214419e-01f};
    case 356: return Cf{-6.548607339e-01f, -7.557495744e-01f};
    case 357: return Cf{-9.594929736e-01f, -2.817325568e-01f};
    case 358: return Cf{-9.594929736e-01f, 2.817325568e-01f};
    case 359: return Cf{-6.548607339e-01f, 7.557495744e-01f};
    case 360: return Cf{-1.423148383e-01f, 9.898214419e-01f};
    case 361: return Cf{4.154150130e-01f, 9.096319954e-01f};
    case 362: return Cf{8.412535328e-01f, 5.406408175e-01f};
    case 416: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 417: return Cf{8.854560257e-01f, -4.647231720e-01f};
    case 418: return Cf{5.680647467e-01f, -8.229838659e-01f};
    case 419: return Cf{1.205366803e-01f, -9.927088741e-01f};
    case 420: return Cf{-3.546048870e-01f, -9.350162427e-01f};
    case 421: return Cf{-7.485107482e-01f, -6.631226582e-01f};
    case 422: return Cf{-9.709418174e-01f, -2.393156643e-01f};
    case 423: return Cf{-9.709418174e-01f, 2.393156643e-01f};
    case 424: return Cf{-7.485107482e-01f, 6.631226582e-01f};
    case 425: return Cf{-3.546048870e-01f, 9.350162427e-01f};
    case 426: return Cf{1.205366803e-01f, 9.927088741e-01f};
    case 427: return Cf{5.680647467e-01f, 8.229838659e-01f};
    case 428: return Cf{8.854560257e-01f, 4.647231720e-01f};
    case 512: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 513: return Cf{9.238795325e-01f, -3.826834324e-01f};
    case 514: return Cf{7.071067812e-01f, -7.071067812e-01f};
    case 515: return Cf{3.826834324e-01f, -9.238795325e-01f};
    case 516: return Cf{0.000000000e+00f, -1.000000000e+00f};
    case 517: return Cf{-3.826834324e-01f, -9.238795325e-01f};
    case 518: return Cf{-7.071067812e-01f, -7.071067812e-01f};
    case 519: return Cf{-9.238795325e-01f, -3.826834324e-01f};
    case 520: return Cf{-1.000000000e+00f, 0.000000000e+00f};
    case 521: return Cf{-9.238795325e-01f, 3.826834324e-01f};
    case 522: return Cf{-7.071067812e-01f, 7.071067812e-01f};
    case 523: return Cf{-3.826834324e-01f, 9.238795325e-01f};
    case 524: return Cf{0.000000000e+00f, 1.000000000e+00f};
    case 525: return Cf{3.826834324e-01f, 9.238795325e-01f};
    case 526: return Cf{7.071067812e-01f, 7.071067812e-01f};
    case 527: return Cf{9.238795325e-01f, 3.826834324e-01f};
    default: return Cf{1.0f, 0.0f};
  }
}

}  // namespace prism::fft::gpu
