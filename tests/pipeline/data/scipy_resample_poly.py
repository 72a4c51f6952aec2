"""scipy.signal.resample_poly references for qa_Resampler.

Usage: scipy_resample_poly.py DIR
DIR/cases.json lists the cases: {"name", "up", "down", "complex", "taps" (optional list)}.
For each, DIR/NAME.in holds the input (float32, or complex64 as interleaved pairs); this writes
  DIR/NAME.ref64  resample_poly of the input in double precision (float64 / complex128)
  DIR/NAME.ref32  resample_poly of the float32 / complex64 input itself (scipy casts its
                  default filter to the input's type)
and, for cases without taps, DIR/NAME.taps: the default filter times up
(firwin(2*half_len+1, 1/max_rate, window=('kaiser', 5.0)) * up, float64), as scipy designs it.
"""
import json
import math
import sys

import numpy as np
from scipy import signal


def main():
    directory = sys.argv[1]
    with open(f"{directory}/cases.json") as f:
        cases = json.load(f)
    for case in cases:
        name = case["name"]
        dtype = np.complex64 if case["complex"] else np.float32
        x = np.fromfile(f"{directory}/{name}.in", dtype=dtype)
        wide = x.astype(np.complex128 if case["complex"] else np.float64)
        up, down = case["up"], case["down"]
        if "taps" in case:
            taps = np.array(case["taps"], dtype=np.float64)
            ref64 = signal.resample_poly(wide, up, down, window=taps)
            ref32 = signal.resample_poly(x, up, down, window=taps)
        else:
            ref64 = signal.resample_poly(wide, up, down)
            ref32 = signal.resample_poly(x, up, down)
            g = math.gcd(up, down)
            u, d = up // g, down // g
            if u != d:
                max_rate = max(u, d)
                half_len = 10 * max_rate
                h = signal.firwin(2 * half_len + 1, 1.0 / max_rate, window=("kaiser", 5.0)) * u
                h.astype(np.float64).tofile(f"{directory}/{name}.taps")
        ref64.astype(np.complex128 if case["complex"] else np.float64).tofile(f"{directory}/{name}.ref64")
        ref32.astype(np.complex128 if case["complex"] else np.float64).tofile(f"{directory}/{name}.ref32")


if __name__ == "__main__":
    main()
