"""prism from Python on the GPU, beside the peers a Python user has there: the streaming
Spectrogram and the fir stage fed CuPy arrays already on the device (prism reads and writes the
device memory in place, on CuPy's current stream), against cupyx.scipy.signal.spectrogram and
torch.stft (|X|^2 scaled as scipy's density) for the spectrogram, and cupyx.scipy.signal
oaconvolve and lfilter-equivalent fftconvolve for the filter, on the same data in the same run.

Each configuration is first checked: 2^20 fresh random samples, prism's output into an array
filled with NaN beforehand, every value compared with scipy in float64 on the host (relative L2);
then the median of 20 calls timed with CUDA events (after 3 warm-ups) on 2^26 samples. Prints a
Markdown table of input samples per second.

    PYTHONPATH=build/python python3 bench/embedding/python_gpu_bench.py [--items-log2 26]

Exits 77 (skip) where CuPy, torch or a CUDA device is missing.
"""
import argparse
import sys

import numpy as np
import scipy.signal

try:
    import cupy as cp
    import cupyx.scipy.signal as cps
    import torch
    if cp.cuda.runtime.getDeviceCount() == 0:
        raise ImportError("no CUDA device")
except (ImportError, RuntimeError) as e:  # the device machine has them; elsewhere nothing to measure
    print(f"SKIP: {e}")
    sys.exit(77)

import prism

FS = 1e6
NPERSEG, NOVERLAP = 4096, 2048


def timed_ms(f, runs=20, warm=3):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(runs + warm):
        start.record()
        f()
        end.record()
        end.synchronize()
        if r >= warm:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def relative_l2(got, expected):
    got = np.asarray(got, dtype=np.complex128 if np.iscomplexobj(got) else np.float64)
    if not np.all(np.isfinite(got)):
        return float("inf")  # a value left unwritten (NaN) or overflowed
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))


def random_samples(rng, n, complex_input):
    x = rng.uniform(-0.5, 0.5, n)
    if complex_input:
        x = x + 1j * rng.uniform(-0.5, 0.5, n)
    return x.astype(np.complex64 if complex_input else np.float32)


# ---- spectrogram ------------------------------------------------------------------------------

def prism_spectrogram(complex_input):
    s = prism.Spectrogram(fs=FS, window="hann", nperseg=NPERSEG, noverlap=NOVERLAP, detrend=False,
                          scaling="density", mode="psd", complex_input=complex_input, backend="cuda")

    def run(x, out=None):
        rows = s.feed(x, out=out)
        s.flush()
        s.reset()
        return rows
    return s, run


def cupyx_spectrogram(x):
    return cps.spectrogram(x, FS, window="hann", nperseg=NPERSEG, noverlap=NOVERLAP, detrend=False,
                           return_onesided=not cp.iscomplexobj(x), scaling="density", mode="psd")[2]


def torch_spectrogram(x, window, scale):
    X = torch.stft(x, NPERSEG, NPERSEG - NOVERLAP, window=window, center=False, return_complex=True,
                   onesided=not x.is_complex())
    power = X.real.square() + X.imag.square()
    if not x.is_complex():  # scipy doubles the one-sided bins other than DC and Nyquist
        power[1:-1] *= 2
    return power * scale


def spectrogram_rows(rng, complex_input, n):
    host = random_samples(rng, 1 << 20, complex_input)
    _, _, expected = scipy.signal.spectrogram(host.astype(np.complex128 if complex_input else np.float64), FS,
                                              window="hann", nperseg=NPERSEG, noverlap=NOVERLAP, detrend=False,
                                              return_onesided=not complex_input, scaling="density", mode="psd")
    window = scipy.signal.get_window("hann", NPERSEG)
    scale = 1.0 / (FS * (window ** 2).sum())
    torch_window = torch.tensor(window, dtype=torch.float32, device="cuda")
    s, run = prism_spectrogram(complex_input)
    x_small = cp.asarray(host)
    out = cp.full((s.max_output(x_small.size), s.columns), cp.nan, dtype=cp.float32)
    rows = run(x_small, out=out)
    # prism centres a two-sided spectrum; scipy keeps the FFT's order.
    got = cp.asnumpy(rows).T
    if complex_input:
        got = np.fft.ifftshift(got, axes=0)
    checks = {"prism": relative_l2(got, expected),
              "cupyx": relative_l2(cp.asnumpy(cupyx_spectrogram(x_small)), expected),
              "torch": relative_l2(torch_spectrogram(torch.as_tensor(x_small, device="cuda"), torch_window,
                                                     scale).cpu().numpy(), expected)}
    x = cp.asarray(random_samples(rng, n, complex_input))
    xt = torch.as_tensor(x, device="cuda")
    out = cp.empty((s.max_output(n), s.columns), dtype=cp.float32)
    times = {"prism": timed_ms(lambda: run(x, out=out)),
             "cupyx": timed_ms(lambda: cupyx_spectrogram(x)),
             "torch": timed_ms(lambda: torch_spectrogram(xt, torch_window, scale))}
    return checks, times


# ---- fir ------------------------------------------------------------------------------------------

def fir_rows(rng, complex_input, taps, n):
    cutoff = 0.1 * FS
    h = prism.firwin(taps, cutoff, fs=FS)
    stage = prism.Stage(f"fir:lowpass={cutoff!r},numtaps={taps}", fs=FS, complex_input=complex_input, backend="cuda")

    def run(x, out=None):
        y = stage.feed(x, out=out)
        stage.flush()
        stage.reset()
        return y
    host = random_samples(rng, 1 << 20, complex_input)
    expected = scipy.signal.lfilter(h, 1.0, host.astype(np.complex128 if complex_input else np.float64))
    x_small = cp.asarray(host)
    out = cp.full(stage.max_output(x_small.size), cp.nan, dtype=cp.complex64 if complex_input else cp.float32)
    got = cp.asnumpy(run(x_small, out=out))
    hd = cp.asarray(h.astype(np.float32))
    checks = {"prism": relative_l2(got, expected[: got.size]),
              "cupyx oaconvolve": relative_l2(cp.asnumpy(cps.oaconvolve(x_small, hd)[: host.size]), expected),
              "cupyx fftconvolve": relative_l2(cp.asnumpy(cps.fftconvolve(x_small, hd)[: host.size]), expected)}
    x = cp.asarray(random_samples(rng, n, complex_input))
    out = cp.empty(stage.max_output(n), dtype=cp.complex64 if complex_input else cp.float32)
    times = {"prism": timed_ms(lambda: run(x, out=out)),
             "cupyx oaconvolve": timed_ms(lambda: cps.oaconvolve(x, hd)[:n]),
             "cupyx fftconvolve": timed_ms(lambda: cps.fftconvolve(x, hd)[:n])}
    return checks, times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items-log2", type=int, default=26)
    args = parser.parse_args()
    n = 1 << args.items_log2
    rng = np.random.default_rng(7)
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device {device}; prism {prism.__version__}, cupy {cp.__version__}, torch {torch.__version__}, "
          f"scipy {scipy.__version__}, numpy {np.__version__}; {n} samples per call, median of 20")
    print()
    print("| work | input | prism GS/s | peers GS/s | prism / best peer | check: relative L2 against scipy (f64) |")
    print("|---|---|---:|---|---:|---|")
    failed = False
    jobs = [(f"spectrogram nperseg {NPERSEG}, noverlap {NOVERLAP}, hann, psd",
             lambda c: spectrogram_rows(rng, c, n))]
    jobs += [(f"fir {taps} taps (firwin), causal", lambda c, taps=taps: fir_rows(rng, c, taps, n)) for taps in (63, 1023)]
    for name, job in jobs:
        for complex_input in (False, True):
            checks, times = job(complex_input)
            ok = all(error < 1e-4 for error in checks.values())
            failed |= not ok
            rate = {who: n / (ms * 1e-3) / 1e9 for who, ms in times.items()}
            peers = {who: r for who, r in rate.items() if who != "prism"}
            best = max(peers.values())
            print(f"| {name} | {'cf32' if complex_input else 'f32'} | **{rate['prism']:.2f}** | "
                  + ", ".join(f"{who} {r:.2f}" for who, r in peers.items())
                  + f" | {rate['prism'] / best:.2f}× | "
                  + ", ".join(f"{who} {e:.1e}" for who, e in checks.items())
                  + ("" if ok else " **CHECK FAILED**") + " |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
