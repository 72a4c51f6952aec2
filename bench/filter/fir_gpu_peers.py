#!/usr/bin/env python3
"""The GPU filter's peers on the device machine: cupyx.scipy.signal.oaconvolve(x, h, 'same')[::D]
and fftconvolve(x, h, 'same')[::D] on 2^26 items already on the device, cf32 and f32, a low-pass of
the taps fir_gpu_bench uses (scipy.signal.firwin(M, 0.2), float32), D = 1 and 8. Each first checked
against numpy in double precision on 2^16 items; then the median of 10 calls timed with CUDA events
(after 2 warm-ups). Prints input items per second (GS/s); bench/RESULTS.md records them beside
fir_gpu_bench's figures from the same run. --precision double: cf64 and f64 items and float64 taps
(beside fir_gpu_bench --precision double), checked to 1e-10.

    python3 bench/filter/fir_gpu_peers.py [--items-log2 26] [--precision single|double] [--taps 63,1023]
"""
import argparse
import sys

import numpy as np
import scipy.signal

try:
    import cupy as cp
    import cupyx.scipy.signal as cps
except ImportError as e:  # the device machine has CuPy; elsewhere there is nothing to measure
    print(f"SKIP: {e}")
    sys.exit(77)


def timed(f, runs=10):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(runs + 2):
        start.record()
        f()
        end.record()
        end.synchronize()
        if r >= 2:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items-log2", type=int, default=26)
    parser.add_argument("--precision", choices=("single", "double"), default="single")
    parser.add_argument("--taps", default="63,255,1023,2047,4095,8191,16385,65535",
                        help="comma-separated tap counts")
    args = parser.parse_args()
    wide = args.precision == "double"
    real_type, complex_type = (np.float64, np.complex128) if wide else (np.float32, np.complex64)
    tolerance = 1e-10 if wide else 1e-4
    n = 1 << args.items_log2
    rng = np.random.default_rng(1)
    print(f"cupy {cp.__version__}, scipy {scipy.__version__}, device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    for kind in ("cf64", "f64") if wide else ("cf32", "f32"):
        complex_kind = kind.startswith("c")
        if complex_kind:
            host = (rng.uniform(-0.5, 0.5, n) + 1j * rng.uniform(-0.5, 0.5, n)).astype(complex_type)
        else:
            host = rng.uniform(-0.5, 0.5, n).astype(real_type)
        x = cp.asarray(host)
        for taps in (int(t) for t in args.taps.split(",")):
            h_host = scipy.signal.firwin(taps, 0.2).astype(real_type)
            h = cp.asarray(h_host)
            small = host[: 1 << 16]
            ref = np.convolve(small.astype(np.complex128 if complex_kind else np.float64), h_host.astype(np.float64), "same")
            for name, f in (("oaconvolve", cps.oaconvolve), ("fftconvolve", cps.fftconvolve)):
                got = cp.asnumpy(f(cp.asarray(small), h, "same"))
                err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
                if err > tolerance:
                    print(f"CHECK FAILED {name} {kind} taps {taps}: relative L2 {err:.2e}")
                    sys.exit(1)
                for d in (1, 8):
                    ms = timed(lambda: f(x, h, "same")[::d].copy() if d > 1 else f(x, h, "same"))
                    print(f"  {name:11s} {kind} taps {taps:5d} D {d}: {n / (ms * 1e-3) / 1e9:7.2f} GS/s ({ms:.3f} ms; check {err:.1e})")
            del h
        del x


if __name__ == "__main__":
    main()
