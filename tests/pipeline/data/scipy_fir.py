#!/usr/bin/python3
# Reference outputs of FIR filters from scipy.signal, for tests/pipeline/qa_FirFilter.cpp.
#
#   scipy_fir.py MANIFEST.json DIR
#
# MANIFEST is a JSON list of cases: {"design", "numtaps", "complex_input", "shift" (Hz or
# null), "fs", "first_index", "decimation", "align" ("causal" | "same"), "items", "seed"}.
# For case i it writes, in DIR: in_i.bin (the input, float32 or complex64), taps_i.bin (the
# taps, float64 or complex128) and ref_i.bin (the expected outputs, float64 or complex128):
#   xs = x·exp(−j2π·frac((first_index + n)·shift/fs))   (the fraction in exact rationals)
#   causal: scipy.signal.lfilter(h, 1, xs)[::D]
#   same:   scipy.signal.oaconvolve(xs, h, 'same')[::D]
# computed in float64 as fftconvolve(xs, h)[c : c + N : D], c = 0 or (numtaps − 1)//2, and
# checked against lfilter / oaconvolve themselves where those are fast enough.
#
# Designs (cutoffs as fractions of fs): lowpass 0.1; highpass 0.3; bandpass 0.1–0.25;
# bandstop 0.1–0.25 (firwin, hamming); complex_bandpass −0.05..0.2 (asymmetric edges: a
# firwin low-pass of half the width, modulated to the centre); random / random_complex
# (normal values).
import json
import sys
from fractions import Fraction

import numpy as np
from scipy import signal


def design(kind, numtaps, fs, rng):
    if kind == "lowpass":
        return signal.firwin(numtaps, 0.1 * fs, fs=fs)
    if kind == "highpass":
        return signal.firwin(numtaps, 0.3 * fs, pass_zero=False, fs=fs)
    if kind == "bandpass":
        return signal.firwin(numtaps, [0.1 * fs, 0.25 * fs], pass_zero=False, fs=fs)
    if kind == "bandstop":
        return signal.firwin(numtaps, [0.1 * fs, 0.25 * fs], pass_zero=True, fs=fs)
    if kind == "complex_bandpass":
        low, high = -0.05, 0.2
        prototype = signal.firwin(numtaps, (high - low) / 2 * fs, fs=fs)
        m = np.arange(numtaps) - (numtaps - 1) / 2
        return prototype * np.exp(2j * np.pi * (low + high) / 2 * m)
    if kind == "random":
        return rng.standard_normal(numtaps)
    if kind == "random_complex":
        return rng.standard_normal(numtaps) + 1j * rng.standard_normal(numtaps)
    raise ValueError(f"unknown design {kind}")


def shift_phasors(shift, fs, first, count):
    """exp(−j2π·frac((first + n)·shift/fs)) with the fraction exact."""
    ratio = Fraction(shift) / Fraction(fs)
    p, q = ratio.numerator, ratio.denominator
    cycles = np.array([((first + n) * p % q) / q for n in range(count)], dtype=np.float64)
    return np.exp(-2j * np.pi * cycles)


def main():
    manifest, out_dir = sys.argv[1], sys.argv[2]
    with open(manifest) as f:
        cases = json.load(f)
    for i, c in enumerate(cases):
        rng = np.random.default_rng(c["seed"])
        n = c["items"]
        if c["complex_input"]:
            x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
        else:
            x = rng.standard_normal(n).astype(np.float32)
        h = design(c["design"], c["numtaps"], c["fs"], rng)
        xs = x.astype(np.complex128) if np.iscomplexobj(x) else x.astype(np.float64)
        if c["shift"] is not None:
            xs = xs * shift_phasors(c["shift"], c["fs"], c["first_index"], n)
        d = c["decimation"]
        offset = (c["numtaps"] - 1) // 2 if c["align"] == "same" else 0
        full = signal.fftconvolve(xs, h)
        y = full[offset:offset + n:d]
        if n * c["numtaps"] <= 2e7:
            if c["align"] == "causal":
                check = signal.lfilter(h, 1, xs)[::d]
            else:
                check = signal.oaconvolve(xs, h, "same")[::d]
            scale = max(np.linalg.norm(y), 1e-300)
            assert np.linalg.norm(check - y) / scale < 1e-9, f"case {i}: definitions disagree"
        x.tofile(f"{out_dir}/in_{i}.bin")
        np.asarray(h, dtype=np.complex128 if np.iscomplexobj(h) else np.float64).tofile(
            f"{out_dir}/taps_{i}.bin")
        np.asarray(y, dtype=np.complex128 if np.iscomplexobj(y) else np.float64).tofile(
            f"{out_dir}/ref_{i}.bin")


if __name__ == "__main__":
    main()
