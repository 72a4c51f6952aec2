#!/usr/bin/env python3
"""CPU spectrogram throughput: `prism spectrogram` against scipy.signal.spectrogram on the same
10^8-sample signal, in one run, as a ratio.

prism is timed end to end (reads the raw float32 file, writes the .npy rows); scipy is timed on
the array already in memory (its load and any save are not counted), so the ratio is
conservative for prism. Each is run --repeat times; the best time of each is reported.

Usage: /usr/bin/python3 bench/spectrogram_vs_scipy.py build/apps/prism [--samples 1e8]
"""
import argparse
import os
import platform
import subprocess
import tempfile
import time

import numpy as np
import scipy
import scipy.signal

CONFIGS = [
    # name, prism args, scipy kwargs
    ("scipy defaults (tukey 0.25, nperseg 256, noverlap 32, detrend constant)",
     [], dict()),
    ("hann, nperseg 1024, noverlap 512, no detrend",
     ["--window", "hann", "--nperseg", "1024", "--noverlap", "512", "--detrend", "none"],
     dict(window="hann", nperseg=1024, noverlap=512, detrend=False)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prism")
    parser.add_argument("--samples", type=float, default=1e8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rate", type=float, default=48000.0)
    args = parser.parse_args()
    n = int(args.samples)

    with tempfile.TemporaryDirectory(prefix="prism-bench-", dir=os.environ.get("TMPDIR", "/tmp")) as tmp:
        path = os.path.join(tmp, "signal.f32")
        rng = np.random.default_rng(1)
        x = rng.uniform(-0.5, 0.5, n).astype(np.float32)
        x.tofile(path)
        print(f"signal: {n} float32 samples ({n * 4 / 2**20:.0f} MiB), {os.cpu_count()} cores, "
              f"{platform.processor() or platform.machine()}, scipy {scipy.__version__}, "
              f"numpy {np.__version__}")
        print()
        print("| configuration | prism s | prism Msamples/s | scipy s | scipy Msamples/s | ratio |")
        print("|---|---|---|---|---|---|")
        for name, prism_args, scipy_kwargs in CONFIGS:
            out = os.path.join(tmp, "out.npy")
            prism_times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                subprocess.run([args.prism, "spectrogram", path, "--format", "f32", "--rate",
                                str(args.rate), "-o", out, "-q", *prism_args], check=True)
                prism_times.append(time.perf_counter() - start)
                os.remove(out)
            scipy_times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                f, t, sxx = scipy.signal.spectrogram(x, fs=args.rate, **scipy_kwargs)
                scipy_times.append(time.perf_counter() - start)
                del f, t, sxx
            p, s = min(prism_times), min(scipy_times)
            print(f"| {name} | {p:.2f} | {n / p / 1e6:.1f} | {s:.2f} | {n / s / 1e6:.1f} | "
                  f"{s / p:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
