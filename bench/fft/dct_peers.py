#!/usr/bin/env python3
"""The GPU DCT's peer on the device machine: cupyx.scipy.fft.dct (a DCT on cuFFT) on the lengths
fft_bench --kinds dct2,dct3,dct4 times, with its working set: rows of n float32 filling 512 MiB,
already on the device, norm 'backward', along the last axis. Each first checked against
scipy.fft.dct in double precision on the first rows; then the median of 25 calls timed with CUDA
events (after 3 warm-ups). Prints GB/s counting one read and one write of the rows, as fft_bench;
bench/RESULTS.md records them beside fft_bench's figures from the same run. A type CuPy does not
offer is reported as such.

    python3 bench/fft/dct_peers.py [--sizes 256,4096,...] [--types 2,3,4]
"""
import argparse
import sys

import numpy as np
import scipy.fft

try:
    import cupy as cp
    import cupyx.scipy.fft as cpfft
except ImportError as e:  # the device machine has CuPy; elsewhere there is nothing to measure
    print(f"SKIP: {e}")
    sys.exit(77)

HALF_WORKING_SET = 512 << 20


def timed(f, runs=25):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(runs + 3):
        start.record()
        f()
        end.record()
        end.synchronize()
        if r >= 3:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,1024,4096,16384,65536,1048576,1000,4095,4097,10007,48000")
    parser.add_argument("--types", default="2,3,4")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    types = [int(t) for t in args.types.split(",")]
    print(f"cupy {cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{'kind':5} {'n':>9} {'batch':>7} | {'cupyx ms':>9} {'GB/s':>8} | {'error':>9}")
    for dct_type in types:
        for n in sizes:
            batch = max(1, HALF_WORKING_SET // (4 * n))
            x = cp.random.uniform(-0.5, 0.5, (batch, n), dtype=cp.float32)
            try:
                y = cpfft.dct(x, type=dct_type, axis=-1)
            except (NotImplementedError, ValueError) as e:
                print(f"dct{dct_type} {n:>9} {batch:>7} | not offered: {e}")
                continue
            rows = min(batch, max(1, 65536 // n))
            ref = scipy.fft.dct(cp.asnumpy(x[:rows]).astype(np.float64), type=dct_type, axis=-1)
            got = cp.asnumpy(y[:rows]).astype(np.float64)
            error = np.linalg.norm(got - ref) / np.linalg.norm(ref)
            del y
            ms = timed(lambda: cpfft.dct(x, type=dct_type, axis=-1))
            gbs = 2 * 4 * n * batch / (ms * 1e6)
            print(f"dct{dct_type} {n:>9} {batch:>7} | {ms:9.3f} {gbs:8.0f} | {error:9.2e}", flush=True)
            del x
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
