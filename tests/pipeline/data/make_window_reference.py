#!/usr/bin/python3
# Makes window_reference.json: periodic and symmetric windows from
# scipy.signal.get_window(window, n, fftbins=True / False) for every window get_window knows,
# the reference of tests/pipeline/qa_Window.cpp. Where scipy refuses (dpss with NW >= n/2,
# kaiser_bessel_derived at an odd length, exponential's center for a symmetric window) the
# entry says "error" instead of giving values. kaiser_bessel_derived has no periodic form in
# scipy: its periodic entries hold the symmetric window, which prism uses for spectrograms.
# Run with Debian's python3-scipy (1.10):  /usr/bin/python3 make_window_reference.py
import json
import os
import warnings

import scipy
from scipy.signal import get_window

# prism's window text -> scipy's get_window argument
SPECS = {
    "boxcar": "boxcar",
    "triang": "triang",
    "blackman": "blackman",
    "hamming": "hamming",
    "hann": "hann",
    "bartlett": "bartlett",
    "flattop": "flattop",
    "parzen": "parzen",
    "bohman": "bohman",
    "blackmanharris": "blackmanharris",
    "nuttall": "nuttall",
    "barthann": "barthann",
    "cosine": "cosine",
    "lanczos": "lanczos",
    "exponential": "exponential",
    "exponential:none:3": ("exponential", None, 3.0),
    "exponential:2:0.5": ("exponential", 2.0, 0.5),
    "kaiser:0": ("kaiser", 0.0),
    "kaiser:8.6": ("kaiser", 8.6),
    "kaiser:14": ("kaiser", 14.0),
    "tukey:0": ("tukey", 0.0),
    "tukey:0.25": ("tukey", 0.25),
    "tukey:0.5": ("tukey", 0.5),
    "tukey:0.99": ("tukey", 0.99),
    "tukey:1": ("tukey", 1.0),
    "taylor": "taylor",
    "taylor:6:50": ("taylor", 6, 50),
    "taylor:3:25:false": ("taylor", 3, 25, False),
    "taylor:1": ("taylor", 1),
    "kaiser_bessel_derived:4": ("kbd", 4.0),
    "kaiser_bessel_derived:0.5": ("kbd", 0.5),
    "gaussian:2.5": ("gaussian", 2.5),
    "gaussian:7": ("gaussian", 7.0),
    "general_gaussian:1.5:7": ("general_gaussian", 1.5, 7.0),
    "general_gaussian:0.5:3": ("general_gaussian", 0.5, 3.0),
    "general_cosine:0.5:0.5": ("general_cosine", [0.5, 0.5]),
    "general_cosine:1:1.942604:1.340318:0.440811:0.043097":
        ("general_cosine", [1, 1.942604, 1.340318, 0.440811, 0.043097]),
    "general_cosine:1": ("general_cosine", [1.0]),
    "general_hamming:0.6": ("general_hamming", 0.6),
    "general_hamming:0.54": ("general_hamming", 0.54),
    "dpss:0.5": ("dpss", 0.5),
    "dpss:2": ("dpss", 2.0),
    "dpss:3.5": ("dpss", 3.5),
    "chebwin:100": ("chebwin", 100.0),
    "chebwin:60": ("chebwin", 60.0),
    "chebwin:30": ("chebwin", 30.0),
}
LENGTHS = [1, 2, 3, 4, 7, 16, 31, 64, 101]


def entry(spec, arg, n, symmetric):
    fftbins = not symmetric
    if isinstance(arg, tuple) and arg[0] == "kbd":
        fftbins = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # chebwin's note on attenuations below 45 dB
            values = get_window(arg, n, fftbins=fftbins)
    except ValueError as e:
        return {"spec": spec, "n": n, "symmetric": symmetric, "error": str(e)}
    return {"spec": spec, "n": n, "symmetric": symmetric, "values": [float(v) for v in values]}


reference = {
    "scipy_version": scipy.__version__,
    "windows": [entry(spec, arg, n, symmetric)
                for symmetric in (False, True)
                for spec, arg in SPECS.items()
                for n in LENGTHS],
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "window_reference.json")
# One window per line keeps the file small and its diffs readable.
with open(path, "w") as f:
    f.write('{"scipy_version": %s,\n "windows": [\n' % json.dumps(reference["scipy_version"]))
    f.write(",\n".join("  " + json.dumps(w) for w in reference["windows"]))
    f.write("\n]}\n")
