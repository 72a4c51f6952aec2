#!/usr/bin/env python3
"""The GPU channel stages' peers on the device machine: the same operations written with CuPy on
2^24 complex64 items already on the device, at the rates and settings channel_gpu_bench gives
prism's stages: gain (x*g), shift (x times exp(-j2*pi*f*n/fs) from a float64 index), fm's
discriminator (angle(x[n]*conj(x[n-1]))*scale), fm wide with de-emphasis (the discriminator, then
cupyx.scipy.signal.lfilter([b, b], [1, -a])), am (|x|, then lfilter([g, -g], [1, -a])), resample
2.4 MHz -> 48 kHz (cupyx.scipy.signal.resample_poly(x, 1, 50)), usb (oaconvolve with an 873-tap
Kaiser complex band-pass of the same design, real part) and cw (the real part of x times the
oscillator). Each is first checked against numpy/scipy in double precision on 2^16 items; then the
median of 20 calls timed with CUDA events (after 2 warm-ups). Prints input items per second
(GS/s); bench/RESULTS.md records them beside channel_gpu_bench's figures from the same run.

    python3 bench/filter/channel_gpu_peers.py [--items-log2 24]
"""
import argparse
import math
import sys

import numpy as np
import scipy.signal

try:
    import cupy as cp
    import cupyx.scipy.signal as cps
except ImportError as e:  # the device machine has CuPy; elsewhere there is nothing to measure
    print(f"SKIP: {e}")
    sys.exit(77)

from fir_gpu_peers import timed  # the median of CUDA-event timings, beside this file


def one_pole(fc_or_tau, fs, kind):
    if kind == "am":  # the high-pass of prism's am: corner fc
        w = math.tan(math.pi * fc_or_tau / fs)
        g = 1 / (1 + w)
        return [g, -g], [1, -(1 - w) / (1 + w)]
    w = math.tan(1 / (2 * fs * fc_or_tau))  # de-emphasis, time constant tau
    b = w / (1 + w)
    return [b, b], [1, -(1 - w) / (1 + w)]


def sideband_taps(fs):
    # prism's usb defaults: 300..3000 Hz, transition 200 Hz, 60 dB (kaiserord; made odd)
    numtaps, beta = scipy.signal.kaiserord(60, 200 / (fs / 2))
    numtaps |= 1
    low, high = 300.0, 3000.0
    centre, half = (low + high) / 2, (high - low) / 2
    lowpass = scipy.signal.firwin(numtaps, half, window=("kaiser", beta), fs=fs)
    m = np.arange(numtaps) - (numtaps - 1) / 2
    return lowpass * np.exp(2j * np.pi * centre * m / fs)


def subjects(fs_radio, fs_audio):
    twopi = 2 * math.pi
    g = 10 ** (6 / 20)
    am_b, am_a = one_pole(20.0, fs_radio, "am")
    de_b, de_a = one_pole(50e-6, fs_radio, "deemphasis")
    narrow, wide = fs_radio / (twopi * 5000), fs_radio / (twopi * 75000)
    h = sideband_taps(fs_audio)

    def disc(x, xp, scale):
        previous = xp.concatenate([xp.zeros(1, x.dtype), x[:-1]])
        return xp.angle(x * xp.conj(previous)) * scale

    def shift(x, xp, f, fs):
        n = xp.arange(x.size, dtype=xp.float64)
        return x * xp.exp(-1j * twopi * (f / fs) * n).astype(x.dtype)

    def lfilter(xp, b, a, v):
        return (cps.lfilter if xp is cp else scipy.signal.lfilter)(xp.asarray(b), xp.asarray(a), v)

    def resample(xp, x):
        return (cps.resample_poly if xp is cp else scipy.signal.resample_poly)(x, 1, 50)

    def usb(xp, x):
        conv = cps.oaconvolve if xp is cp else scipy.signal.oaconvolve
        return conv(x, xp.asarray(h.astype(np.complex64 if xp is cp else np.complex128)))[: x.size].real

    return [
        ("gain:6", fs_radio, lambda xp, x: x * g),
        ("shift:250000", fs_radio, lambda xp, x: shift(x, xp, 250000.0, fs_radio)),
        ("am", fs_radio, lambda xp, x: lfilter(xp, am_b, am_a, xp.abs(x))),
        ("fm", fs_radio, lambda xp, x: disc(x, xp, narrow)),
        ("fm:wide", fs_radio, lambda xp, x: lfilter(xp, de_b, de_a, disc(x, xp, wide))),
        ("resample:48000", fs_radio, lambda xp, x: resample(xp, x)),
        ("usb", fs_audio, lambda xp, x: usb(xp, x)),
        ("cw", fs_audio, lambda xp, x: shift(x, xp, -700.0, fs_audio).real),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items-log2", type=int, default=24)
    args = parser.parse_args()
    n = 1 << args.items_log2
    print(f"CuPy {cp.__version__}, scipy {scipy.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    rng = np.random.default_rng(7)
    small = (rng.uniform(-0.5, 0.5, 1 << 16) + 1j * rng.uniform(-0.5, 0.5, 1 << 16)).astype(np.complex64)
    big = cp.asarray((rng.uniform(-0.5, 0.5, n) + 1j * rng.uniform(-0.5, 0.5, n)).astype(np.complex64))
    ok = True
    for name, _, f in subjects(2.4e6, 48000.0):
        got = cp.asnumpy(f(cp, cp.asarray(small)))
        want = f(np, small.astype(np.complex128))
        error = np.linalg.norm(got - want) / np.linalg.norm(want)
        print(f"  check {name}: relative L2 {error:.2e} against numpy/scipy in double")
        ok = ok and error < 1e-4
    if not ok:
        print("CHECK FAILED")
        return 1
    print(f"CuPy on {n} complex64 items on the device, median of 20, GS/s of input:")
    for name, _, f in subjects(2.4e6, 48000.0):
        ms = timed(lambda: f(cp, big), runs=20)
        print(f"  {name:16s} {n / ms / 1e6:8.2f} GS/s ({ms:.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
