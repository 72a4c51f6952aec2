#!/usr/bin/python3
# The scipy side of tests/pipeline/qa_FilterDesign.cpp: reads a JSON list of cases (argv[1]),
# computes each with scipy.signal (Debian's python3-scipy, 1.10), writes a JSON list of
# results (argv[2]) in the same order. Floats travel as JSON numbers (repr: exact doubles).
#
# Case kinds and their results:
#   firwin            numtaps, cutoff, width, window, pass_zero, scale, fs -> taps | error
#   kaiserord         ripple, width -> numtaps, beta | error
#   kaiser_beta       a -> value;  kaiser_atten  numtaps, width -> value
#   complex_bandpass  numtaps, f_low, f_high, fs, window -> re, im: the prototype
#                     firwin(numtaps, (f_high - f_low)/2, window, fs) times
#                     exp(j2π·frac(ν·k)), ν = ((f_low + f_high)/2)/fs, k = n − (numtaps−1)/2,
#                     the fraction taken in exact rational arithmetic
#   freqz             re, im (or null), points, whole, fs -> w, re, im
#   group_delay       re, im, frequency, fs -> value
#   figures           re, im, fs, passbands, stopbands -> the extremes of |H| over each kind
#                     of band from a dense freqz (2^20 points per fs) plus the band edges
# An "error" result carries the ValueError's message (or says that scipy's taps are NaN).
import json
import math
import sys
from fractions import Fraction

import numpy as np
from scipy import signal


def scipy_window(text):
    """prism's window text ("hann", "kaiser:8.6") -> get_window's argument."""
    if ":" in text:
        name, parameter = text.split(":", 1)
        return (name, float(parameter))
    return text


def scipy_pass_zero(value):
    return value  # true, false or one of the strings, as scipy takes them


def taps_of(case):
    re = np.asarray(case["re"], dtype=np.float64)
    if case.get("im") is None:
        return re
    return re + 1j * np.asarray(case["im"], dtype=np.float64)


def exact_phasor(nu, k2, sign):
    """exp(sign·j2π·frac(ν·k)) with k = k2/2, ν·k reduced modulo 1 exactly."""
    product = Fraction(nu) * Fraction(k2, 2)
    fraction = product - round(product)
    angle = sign * 2 * math.pi * float(fraction)
    return complex(math.cos(angle), math.sin(angle))


def run(case):
    kind = case["kind"]
    try:
        if kind == "firwin":
            with np.errstate(invalid="ignore", divide="ignore"):
                taps = signal.firwin(case["numtaps"], case["cutoff"], width=case.get("width"),
                                     window=scipy_window(case["window"]),
                                     pass_zero=scipy_pass_zero(case["pass_zero"]),
                                     scale=case["scale"], fs=case["fs"])
            if not np.all(np.isfinite(taps)):
                # a response of 0 at the scaling frequency (a window of zeros): scipy divides
                # by it and returns NaN, prism raises
                return {"error": "the taps are not finite"}
            return {"taps": [float(v) for v in taps]}
        if kind == "kaiserord":
            numtaps, beta = signal.kaiserord(case["ripple"], case["width"])
            return {"numtaps": int(numtaps), "beta": float(beta)}
        if kind == "kaiser_beta":
            return {"value": float(signal.kaiser_beta(case["a"]))}
        if kind == "kaiser_atten":
            return {"value": float(signal.kaiser_atten(case["numtaps"], case["width"]))}
        if kind == "complex_bandpass":
            numtaps, f_low, f_high, fs = case["numtaps"], case["f_low"], case["f_high"], case["fs"]
            prototype = signal.firwin(numtaps, (f_high - f_low) / 2,
                                      window=scipy_window(case["window"]), fs=fs)
            nu = ((f_low + f_high) / 2) / fs
            h = [prototype[n] * exact_phasor(nu, 2 * n - (numtaps - 1), +1) for n in range(numtaps)]
            return {"re": [v.real for v in h], "im": [v.imag for v in h]}
        if kind == "freqz":
            w, h = signal.freqz(taps_of(case), worN=case["points"], whole=case["whole"], fs=case["fs"])
            return {"w": [float(v) for v in w], "re": [float(v) for v in h.real],
                    "im": [float(v) for v in h.imag]}
        if kind == "group_delay":
            _, gd = signal.group_delay((taps_of(case), [1.0]), w=[case["frequency"]], fs=case["fs"])
            return {"value": float(gd[0])}
        if kind == "figures":
            b = taps_of(case)
            fs = case["fs"]
            points = 1 << 20
            w, h = signal.freqz(b, worN=points, whole=True, fs=fs)
            magnitude = np.abs(h)

            def over(band):
                low, high = band
                # the grid's points in [low, high] modulo fs, and the edges themselves
                offsets = np.mod(w - low, fs)
                inside = magnitude[offsets <= high - low]
                edges = np.abs(signal.freqz(b, worN=[low, high], fs=fs)[1])
                return np.concatenate([inside, edges])

            result = {}
            if case["passbands"]:
                values = np.concatenate([over(band) for band in case["passbands"]])
                result["passband_min"] = float(values.min())
                result["passband_max"] = float(values.max())
            if case["stopbands"]:
                values = np.concatenate([over(band) for band in case["stopbands"]])
                result["stopband_max"] = float(values.max())
            return result
        raise SystemExit("unknown case kind " + kind)
    except ValueError as e:
        return {"error": str(e)}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    results = [run(case) for case in cases]
    with open(sys.argv[2], "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
