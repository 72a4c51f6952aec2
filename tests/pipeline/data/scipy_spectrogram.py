#!/usr/bin/python3
# Runs scipy.signal.spectrogram on a raw little-endian float32 (or complex64) file and writes
# what prism writes: one row per frame, complex input centred with fftshift, as float64.
# Used by tests/pipeline/qa_CpuSpectrogram.cpp to check prism against scipy itself.
#
#   scipy_spectrogram.py INPUT DTYPE FS WINDOW NPERSEG NOVERLAP NFFT DETREND SCALING MODE OUTPUT
#     DTYPE: float32 | complex64;  WINDOW: "hann" or "kaiser:8.6" (prism's form)
# Prints a JSON line: {"rows": R, "columns": C, "frequencies": [...], "times": [...]}.
import json
import sys

import numpy as np
from scipy import signal

(path, dtype, fs, window, nperseg, noverlap, nfft, detrend, scaling, mode, out) = sys.argv[1:12]
x = np.fromfile(path, dtype=np.dtype(dtype))
name, _, parameter = window.partition(":")
win = (name, float(parameter)) if parameter else name
f, t, s = signal.spectrogram(
    x, fs=float(fs), window=win, nperseg=int(nperseg), noverlap=int(noverlap),
    nfft=int(nfft), detrend=False if detrend == "none" else detrend, scaling=scaling,
    mode=mode)
if np.iscomplexobj(x):
    f = np.fft.fftshift(f)
    s = np.fft.fftshift(s, axes=0)
rows = np.ascontiguousarray(s.T, dtype=np.float64)
rows.tofile(out)
print(json.dumps({"rows": rows.shape[0], "columns": rows.shape[1],
                  "frequencies": [float(v) for v in f], "times": [float(v) for v in t]}))
