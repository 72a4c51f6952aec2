#!/usr/bin/python3
# Makes window_reference.json: periodic and symmetric windows from
# scipy.signal.get_window(spec, n, fftbins=True / False), the reference of
# tests/pipeline/qa_Window.cpp.
# Run with Debian's python3-scipy (1.10):  /usr/bin/python3 make_window_reference.py
import json
import os

import scipy
from scipy.signal import get_window

# prism's window text -> scipy's get_window argument
SPECS = {
    "boxcar": "boxcar",
    "hann": "hann",
    "hamming": "hamming",
    "blackman": "blackman",
    "blackmanharris": "blackmanharris",
    "flattop": "flattop",
    "kaiser:0": ("kaiser", 0.0),
    "kaiser:8.6": ("kaiser", 8.6),
    "kaiser:14": ("kaiser", 14.0),
    "tukey:0": ("tukey", 0.0),
    "tukey:0.25": ("tukey", 0.25),
    "tukey:0.5": ("tukey", 0.5),
    "tukey:0.99": ("tukey", 0.99),
    "tukey:1": ("tukey", 1.0),
}
LENGTHS = [1, 2, 3, 4, 7, 16, 31, 64, 101]

reference = {
    "scipy_version": scipy.__version__,
    "windows": [
        {"spec": spec, "n": n, "symmetric": symmetric,
         "values": [float(v) for v in get_window(arg, n, fftbins=not symmetric)]}
        for symmetric in (False, True)
        for spec, arg in SPECS.items()
        for n in LENGTHS
    ],
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "window_reference.json")
# One window per line keeps the file small and its diffs readable.
with open(path, "w") as f:
    f.write('{"scipy_version": %s,\n "windows": [\n' % json.dumps(reference["scipy_version"]))
    f.write(",\n".join("  " + json.dumps(w) for w in reference["windows"]))
    f.write("\n]}\n")
