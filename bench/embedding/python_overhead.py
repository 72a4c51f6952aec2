"""The cost of calling prism from Python: prism.spectrogram and prism.FirFilter (CPU) beside
scipy.signal.spectrogram and scipy.signal.lfilter on 1k, 64k and 4M real samples, and beside the
same work in C++ (streaming_bench, given as the first argument). Prints a Markdown table:
microseconds per call (median), and the Python call's overhead over the C++ time.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/embedding/python_overhead.py build/bench/streaming_bench [SAMPLES...]
(SAMPLES: the input sizes of the table, of 1000, 65536 and 4194304; all three by default).
"""

import subprocess
import sys
import time

import numpy as np
import scipy.signal

import prism


def median_us(f, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e6)
    return sorted(times)[len(times) // 2]


def main():
    cpp = {}
    for line in subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout.splitlines():
        name, n, us = line.split()
        cpp[(name, int(n))] = float(us)
    taps = scipy.signal.firwin(101, 0.1)
    print("| work | samples | C++ µs | prism from Python µs | Python overhead µs | scipy µs |")
    print("|---|---:|---:|---:|---:|---:|")
    sizes = [int(a) for a in sys.argv[2:]] or [1000, 65536, 1 << 22]
    for n in sizes:
        x = ((np.arange(n) * 7919) % 1000 / 1000.0 - 0.5).astype(np.float32)
        repeats = 5 if n > 100000 else 20 if n > 10000 else 200
        py = median_us(lambda: prism.spectrogram(x, 48000.0, backend="cpu"), repeats)
        sp = median_us(lambda: scipy.signal.spectrogram(x, 48000.0), repeats)
        c = cpp[("spectrogram", n)]
        print(f"| spectrogram, one call (scipy defaults) | {n} | {c:.1f} | {py:.1f} | {py - c:.1f} | {sp:.1f} |")

        fir = prism.FirFilter(taps)

        def fir_stream():
            fir.feed(x)
            fir.flush()
            fir.reset()

        py = median_us(fir_stream, repeats)
        sp = median_us(lambda: scipy.signal.lfilter(taps, 1, x), repeats)
        c = cpp[("fir101", n)]
        print(f"| FIR 101 taps, filter made once (feed + flush + reset) | {n} | {c:.1f} | {py:.1f} | {py - c:.1f} | {sp:.1f} |")


if __name__ == "__main__":
    main()
