// Literal table of the forward roots of unity used inside the fixed-size butterflies:
// unit_root(R, m) = exp(-2*pi*i*m/R) rounded to float, for the radices with hard-coded DFTs.
// Kept as literals so that the compiler folds them into the unrolled butterflies on host and device.
// Keyed by radix * 32 + m, so radices up to 32.
#pragma once

#include "fft/cuda/fft_complex.hpp"

namespace prism::fft::gpu {

// Radices whose roots unit_root holds, or that need none beyond quarter turns (2, 4); not the
// prime-factor butterflies 15 and 21, whose stages need none. 10's serve the real twiddles of a
// decimal team's radix-10 stage (real_butterfly_twiddle_of), not its butterfly.
PRISM_HD constexpr bool has_unit_roots(int radix) {
  return radix == 2 || radix == 4 || radix == 8 || radix == 10 || radix == 16 || radix == 3 || radix == 5 || radix == 7 ||
         radix == 9 || radix == 11 || radix == 13 || radix == 17 || radix == 19 || radix == 23 ||
         radix == 29 || radix == 31;
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
    case 288: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 289: return Cf{7.660444431e-01f, -6.427876097e-01f};
    case 290: return Cf{1.736481777e-01f, -9.848077530e-01f};
    case 291: return Cf{-5.000000000e-01f, -8.660254038e-01f};
    case 292: return Cf{-9.396926208e-01f, -3.420201433e-01f};
    case 293: return Cf{-9.396926208e-01f, 3.420201433e-01f};
    case 294: return Cf{-5.000000000e-01f, 8.660254038e-01f};
    case 295: return Cf{1.736481777e-01f, 9.848077530e-01f};
    case 296: return Cf{7.660444431e-01f, 6.427876097e-01f};
    case 320: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 321: return Cf{8.090169944e-01f, -5.877852523e-01f};
    case 322: return Cf{3.090169944e-01f, -9.510565163e-01f};
    case 323: return Cf{-3.090169944e-01f, -9.510565163e-01f};
    case 324: return Cf{-8.090169944e-01f, -5.877852523e-01f};
    case 325: return Cf{-1.000000000e+00f, 0.000000000e+00f};
    case 326: return Cf{-8.090169944e-01f, 5.877852523e-01f};
    case 327: return Cf{-3.090169944e-01f, 9.510565163e-01f};
    case 328: return Cf{3.090169944e-01f, 9.510565163e-01f};
    case 329: return Cf{8.090169944e-01f, 5.877852523e-01f};
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
    case 544: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 545: return Cf{9.324722294e-01f, -3.612416662e-01f};
    case 546: return Cf{7.390089172e-01f, -6.736956436e-01f};
    case 547: return Cf{4.457383558e-01f, -8.951632914e-01f};
    case 548: return Cf{9.226835946e-02f, -9.957341763e-01f};
    case 549: return Cf{-2.736629901e-01f, -9.618256432e-01f};
    case 550: return Cf{-6.026346364e-01f, -7.980172273e-01f};
    case 551: return Cf{-8.502171357e-01f, -5.264321629e-01f};
    case 552: return Cf{-9.829730997e-01f, -1.837495178e-01f};
    case 553: return Cf{-9.829730997e-01f, 1.837495178e-01f};
    case 554: return Cf{-8.502171357e-01f, 5.264321629e-01f};
    case 555: return Cf{-6.026346364e-01f, 7.980172273e-01f};
    case 556: return Cf{-2.736629901e-01f, 9.618256432e-01f};
    case 557: return Cf{9.226835946e-02f, 9.957341763e-01f};
    case 558: return Cf{4.457383558e-01f, 8.951632914e-01f};
    case 559: return Cf{7.390089172e-01f, 6.736956436e-01f};
    case 560: return Cf{9.324722294e-01f, 3.612416662e-01f};
    case 608: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 609: return Cf{9.458172417e-01f, -3.246994692e-01f};
    case 610: return Cf{7.891405094e-01f, -6.142127127e-01f};
    case 611: return Cf{5.469481581e-01f, -8.371664783e-01f};
    case 612: return Cf{2.454854871e-01f, -9.694002659e-01f};
    case 613: return Cf{-8.257934547e-02f, -9.965844930e-01f};
    case 614: return Cf{-4.016954247e-01f, -9.157733267e-01f};
    case 615: return Cf{-6.772815716e-01f, -7.357239107e-01f};
    case 616: return Cf{-8.794737512e-01f, -4.759473930e-01f};
    case 617: return Cf{-9.863613034e-01f, -1.645945903e-01f};
    case 618: return Cf{-9.863613034e-01f, 1.645945903e-01f};
    case 619: return Cf{-8.794737512e-01f, 4.759473930e-01f};
    case 620: return Cf{-6.772815716e-01f, 7.357239107e-01f};
    case 621: return Cf{-4.016954247e-01f, 9.157733267e-01f};
    case 622: return Cf{-8.257934547e-02f, 9.965844930e-01f};
    case 623: return Cf{2.454854871e-01f, 9.694002659e-01f};
    case 624: return Cf{5.469481581e-01f, 8.371664783e-01f};
    case 625: return Cf{7.891405094e-01f, 6.142127127e-01f};
    case 626: return Cf{9.458172417e-01f, 3.246994692e-01f};
    case 736: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 737: return Cf{9.629172873e-01f, -2.697967712e-01f};
    case 738: return Cf{8.544194045e-01f, -5.195839500e-01f};
    case 739: return Cf{6.825531432e-01f, -7.308359643e-01f};
    case 740: return Cf{4.600650377e-01f, -8.878852184e-01f};
    case 741: return Cf{2.034560131e-01f, -9.790840877e-01f};
    case 742: return Cf{-6.824241336e-02f, -9.976687692e-01f};
    case 743: return Cf{-3.348796122e-01f, -9.422609221e-01f};
    case 744: return Cf{-5.766803221e-01f, -8.169698930e-01f};
    case 745: return Cf{-7.757112907e-01f, -6.310879443e-01f};
    case 746: return Cf{-9.172113015e-01f, -3.984010898e-01f};
    case 747: return Cf{-9.906859460e-01f, -1.361666491e-01f};
    case 748: return Cf{-9.906859460e-01f, 1.361666491e-01f};
    case 749: return Cf{-9.172113015e-01f, 3.984010898e-01f};
    case 750: return Cf{-7.757112907e-01f, 6.310879443e-01f};
    case 751: return Cf{-5.766803221e-01f, 8.169698930e-01f};
    case 752: return Cf{-3.348796122e-01f, 9.422609221e-01f};
    case 753: return Cf{-6.824241336e-02f, 9.976687692e-01f};
    case 754: return Cf{2.034560131e-01f, 9.790840877e-01f};
    case 755: return Cf{4.600650377e-01f, 8.878852184e-01f};
    case 756: return Cf{6.825531432e-01f, 7.308359643e-01f};
    case 757: return Cf{8.544194045e-01f, 5.195839500e-01f};
    case 758: return Cf{9.629172873e-01f, 2.697967712e-01f};
    case 928: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 929: return Cf{9.766205557e-01f, -2.149704402e-01f};
    case 930: return Cf{9.075754197e-01f, -4.198891016e-01f};
    case 931: return Cf{7.960930657e-01f, -6.051742152e-01f};
    case 932: return Cf{6.473862848e-01f, -7.621620551e-01f};
    case 933: return Cf{4.684084407e-01f, -8.835120444e-01f};
    case 934: return Cf{2.675283385e-01f, -9.635499925e-01f};
    case 935: return Cf{5.413890859e-02f, -9.985334139e-01f};
    case 936: return Cf{-1.617819966e-01f, -9.868265225e-01f};
    case 937: return Cf{-3.701381553e-01f, -9.289767198e-01f};
    case 938: return Cf{-5.611870654e-01f, -8.276889982e-01f};
    case 939: return Cf{-7.259954919e-01f, -6.876994589e-01f};
    case 940: return Cf{-8.568571762e-01f, -5.155538572e-01f};
    case 941: return Cf{-9.476531712e-01f, -3.193015301e-01f};
    case 942: return Cf{-9.941379572e-01f, -1.081190184e-01f};
    case 943: return Cf{-9.941379572e-01f, 1.081190184e-01f};
    case 944: return Cf{-9.476531712e-01f, 3.193015301e-01f};
    case 945: return Cf{-8.568571762e-01f, 5.155538572e-01f};
    case 946: return Cf{-7.259954919e-01f, 6.876994589e-01f};
    case 947: return Cf{-5.611870654e-01f, 8.276889982e-01f};
    case 948: return Cf{-3.701381553e-01f, 9.289767198e-01f};
    case 949: return Cf{-1.617819966e-01f, 9.868265225e-01f};
    case 950: return Cf{5.413890859e-02f, 9.985334139e-01f};
    case 951: return Cf{2.675283385e-01f, 9.635499925e-01f};
    case 952: return Cf{4.684084407e-01f, 8.835120444e-01f};
    case 953: return Cf{6.473862848e-01f, 7.621620551e-01f};
    case 954: return Cf{7.960930657e-01f, 6.051742152e-01f};
    case 955: return Cf{9.075754197e-01f, 4.198891016e-01f};
    case 956: return Cf{9.766205557e-01f, 2.149704402e-01f};
    case 992: return Cf{1.000000000e+00f, 0.000000000e+00f};
    case 993: return Cf{9.795299413e-01f, -2.012985201e-01f};
    case 994: return Cf{9.189578116e-01f, -3.943558551e-01f};
    case 995: return Cf{8.207634412e-01f, -5.712682151e-01f};
    case 996: return Cf{6.889669191e-01f, -7.247927872e-01f};
    case 997: return Cf{5.289640103e-01f, -8.486442575e-01f};
    case 998: return Cf{3.473052528e-01f, -9.377521321e-01f};
    case 999: return Cf{1.514277775e-01f, -9.884683243e-01f};
    case 1000: return Cf{-5.064916884e-02f, -9.987165072e-01f};
    case 1001: return Cf{-2.506525323e-01f, -9.680771189e-01f};
    case 1002: return Cf{-4.403941516e-01f, -8.978045396e-01f};
    case 1003: return Cf{-6.121059825e-01f, -7.907757369e-01f};
    case 1004: return Cf{-7.587581227e-01f, -6.513724827e-01f};
    case 1005: return Cf{-8.743466161e-01f, -4.853019625e-01f};
    case 1006: return Cf{-9.541392564e-01f, -2.993631230e-01f};
    case 1007: return Cf{-9.948693234e-01f, -1.011683220e-01f};
    case 1008: return Cf{-9.948693234e-01f, 1.011683220e-01f};
    case 1009: return Cf{-9.541392564e-01f, 2.993631230e-01f};
    case 1010: return Cf{-8.743466161e-01f, 4.853019625e-01f};
    case 1011: return Cf{-7.587581227e-01f, 6.513724827e-01f};
    case 1012: return Cf{-6.121059825e-01f, 7.907757369e-01f};
    case 1013: return Cf{-4.403941516e-01f, 8.978045396e-01f};
    case 1014: return Cf{-2.506525323e-01f, 9.680771189e-01f};
    case 1015: return Cf{-5.064916884e-02f, 9.987165072e-01f};
    case 1016: return Cf{1.514277775e-01f, 9.884683243e-01f};
    case 1017: return Cf{3.473052528e-01f, 9.377521321e-01f};
    case 1018: return Cf{5.289640103e-01f, 8.486442575e-01f};
    case 1019: return Cf{6.889669191e-01f, 7.247927872e-01f};
    case 1020: return Cf{8.207634412e-01f, 5.712682151e-01f};
    case 1021: return Cf{9.189578116e-01f, 3.943558551e-01f};
    case 1022: return Cf{9.795299413e-01f, 2.012985201e-01f};
    default: return Cf{1.0f, 0.0f};
  }
}

}  // namespace prism::fft::gpu
