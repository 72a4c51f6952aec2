"""torchaudio's MelSpectrogram and MFCC on the GPU, the peers of stream_bench --only mel: the same
input size (2^26 float32 samples at 16 kHz, on the device), the same frames (center=False,
win_length 400, hop 160, n_fft 512, hann) and bands (htk, no norm, power 2), n_mels 80 and 128,
n_mfcc 40. Device time of one call, median of 20 after 3 warm-ups (CUDA events).

Before timing, each transform's rows are checked against a float64 numpy evaluation of the same
formulas on a short input (relative L2), so that the figures compare like with like; given a prism
binary, prism's rows on --backend cuda too (prism's frame starts at the window, torch.stft's
window sits (n_fft - win_length)/2 samples into its frame: prism reads the input from there, and
the frames' magnitudes are then the same).

  python3 bench/stream/mel_peers.py [PRISM]
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchaudio

FS = 16000
NPERSEG, HOP, NFFT = 400, 160, 512


def reference(x, n_mels, n_mfcc):
    """float64 numpy: |rfft|^2 of hann-windowed frames, torchaudio's htk filterbank, dB, DCT.
    torch.stft (center=False) takes frames of n_fft samples every hop and centres the shorter
    window in each."""
    window = np.zeros(NFFT)
    left = (NFFT - NPERSEG) // 2
    window[left:left + NPERSEG] = 0.5 - 0.5 * np.cos(2 * math.pi * np.arange(NPERSEG) / NPERSEG)
    count = 1 + (len(x) - NFFT) // HOP
    frames = np.stack([x[t * HOP:t * HOP + NFFT] * window for t in range(count)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    freqs = np.linspace(0, FS // 2, NFFT // 2 + 1)
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    pts = 700.0 * (10.0 ** (np.linspace(mel(0.0), mel(FS / 2), n_mels + 2) / 2595.0) - 1.0)
    slopes = pts[np.newaxis, :] - freqs[:, np.newaxis]
    fb = np.maximum(0.0, np.minimum(-slopes[:, :-2] / np.diff(pts)[:-1], slopes[:, 2:] / np.diff(pts)[1:]))
    bands = power @ fb
    logged = 10.0 * np.log10(np.maximum(bands, 1e-10))
    k = np.arange(n_mfcc)[:, np.newaxis]
    dct = np.cos(math.pi / n_mels * (np.arange(n_mels) + 0.5) * k) * math.sqrt(2.0 / n_mels)
    dct[0] /= math.sqrt(2.0)
    return bands, logged @ dct.T


def rel_l2(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def prism_rows(prism, x, mode, n_mels):
    """prism spectrogram --backend cuda of x's samples from (NFFT - NPERSEG)//2 on."""
    with tempfile.TemporaryDirectory() as tmp:
        raw, out = os.path.join(tmp, "x.f32"), os.path.join(tmp, "rows.npy")
        x[(NFFT - NPERSEG) // 2:].astype(np.float32).tofile(raw)
        subprocess.run([prism, "spectrogram", raw, "--format", "f32", "--rate", str(FS), "--backend", "cuda",
                        "--window", "hann", "--detrend", "none", "--nperseg", str(NPERSEG),
                        "--noverlap", str(NPERSEG - HOP), "--nfft", str(NFFT), "--mode", mode,
                        "--n-mels", str(n_mels), *(["--n-mfcc", "40"] if mode == "mfcc" else []), "-q", "-o", out],
                       check=True)
        # torch.stft also needs the (n_fft - win_length)/2 samples after the last window: it may
        # have one frame fewer.
        count = 1 + (len(x) - NFFT) // HOP
        return np.load(out)[:count]


def timed_ms(fn, x):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(23):
        start.record()
        fn(x)
        stop.record()
        stop.synchronize()
        if r >= 3:
            times.append(start.elapsed_time(stop))
    return float(np.median(times))


def main():
    if not torch.cuda.is_available():
        print("mel_peers: no CUDA device", file=sys.stderr)
        return 77
    device = torch.device("cuda")
    print(f"torch {torch.__version__}, torchaudio {torchaudio.__version__}, {torch.cuda.get_device_name(0)}")
    rng = np.random.default_rng(2026)
    short = rng.standard_normal(FS).astype(np.float32)
    x = torch.from_numpy(rng.standard_normal(1 << 26).astype(np.float32)).to(device)
    for n_mels in (80, 128):
        melkwargs = dict(n_fft=NFFT, win_length=NPERSEG, hop_length=HOP, center=False, power=2.0,
                         n_mels=n_mels, mel_scale="htk", norm=None, window_fn=torch.hann_window)
        mel = torchaudio.transforms.MelSpectrogram(sample_rate=FS, **melkwargs).to(device)
        mfcc = torchaudio.transforms.MFCC(sample_rate=FS, n_mfcc=40, melkwargs=melkwargs).to(device)
        mfcc.amplitude_to_DB.top_db = None
        bands, cepstra = reference(short.astype(np.float64), n_mels, 40)
        with torch.no_grad():
            got_bands = mel(torch.from_numpy(short).to(device)).T.cpu().numpy()
            got_cepstra = mfcc(torch.from_numpy(short).to(device)).T.cpu().numpy()
            print(f"n_mels {n_mels}: MelSpectrogram rel L2 {rel_l2(got_bands, bands):.2e}, "
                  f"MFCC rel L2 {rel_l2(got_cepstra, cepstra):.2e} (against float64 numpy)")
            if len(sys.argv) > 1:
                ours_bands = prism_rows(sys.argv[1], short, "mel", n_mels)
                ours_cepstra = prism_rows(sys.argv[1], short, "mfcc", n_mels)
                print(f"n_mels {n_mels}: prism --backend cuda mel rel L2 {rel_l2(ours_bands, bands):.2e}, "
                      f"mfcc rel L2 {rel_l2(ours_cepstra, cepstra):.2e} (against float64 numpy)")
            print(f"  torchaudio MelSpectrogram, n_mels {n_mels}: {timed_ms(mel, x):.3f} ms")
            print(f"  torchaudio MFCC, n_mels {n_mels}, n_mfcc 40: {timed_ms(mfcc, x):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
