"""prism spectrogram --mode mel|mfcc against a numpy reference that follows torchaudio's
formulas (torchaudio.functional melscale_fbanks, _hz_to_mel, _mel_to_hz, create_dct,
amplitude_to_DB; transforms MelSpectrogram and MFCC) on prism's framing: frames of nperseg
samples every nperseg - noverlap samples from sample 0, as torchaudio with center=False.
Rows agree to 1e-5 relative L2 error; the sidecar names the axis and the parameters; the settings
that do not apply, the outputs that cannot take mel rows and an mfcc beyond the GPU's bands are
refused by name. With PRISM_TEST_BACKEND=cuda (the GPU machine) the rows are the GPU's.
"""
import math

import numpy as np
import scipy.signal

from prism_test_util import BACKEND, TempDirTestCase, float_input, load_npy_with_sidecar, main, rel_l2, run_prism


def hz_to_mel(freq, mel_scale):
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    f_sp = 200.0 / 3
    mels = freq / f_sp
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = math.log(6.4) / 27.0
    if freq >= min_log_hz:
        mels = min_log_mel + math.log(freq / min_log_hz) / logstep
    return mels


def mel_to_hz(mels, mel_scale):
    if mel_scale == "htk":
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    freqs = f_sp * mels
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = math.log(6.4) / 27.0
    log_t = mels >= min_log_mel
    freqs[log_t] = min_log_hz * np.exp(logstep * (mels[log_t] - min_log_mel))
    return freqs


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_scale):
    """(n_freqs, n_mels), and the n_mels + 2 points in Hz."""
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(hz_to_mel(f_min, mel_scale), hz_to_mel(f_max, mel_scale), n_mels + 2)
    f_pts = mel_to_hz(m_pts, mel_scale)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[np.newaxis, :] - all_freqs[:, np.newaxis]
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    fb = np.maximum(0.0, np.minimum(down_slopes, up_slopes))
    if norm == "slaney":
        fb *= (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[np.newaxis, :]
    return fb, f_pts


def create_dct(n_mfcc, n_mels):
    """torchaudio's create_dct(n_mfcc, n_mels, 'ortho'): (n_mels, n_mfcc)."""
    n = np.arange(float(n_mels))
    k = np.arange(float(n_mfcc))[:, np.newaxis]
    dct = np.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    dct[0] *= 1.0 / math.sqrt(2.0)
    dct *= math.sqrt(2.0 / float(n_mels))
    return dct.T


def frames_power(x, nperseg, hop, nfft, power):
    """|rfft|**power of torch.stft(center=False, window=hann periodic, win_length=nperseg,
    n_fft=nfft) on x padded so that its frames are prism's: torch.stft centres a window shorter
    than n_fft in the n_fft frame, (nfft - nperseg)//2 zeros on its left."""
    left = (nfft - nperseg) // 2
    padded = np.concatenate([np.zeros(left), x, np.zeros(nfft - nperseg - left)])
    window = np.zeros(nfft)
    window[left:left + nperseg] = scipy.signal.get_window("hann", nperseg)
    count = 1 + (len(padded) - nfft) // hop
    frames = np.stack([padded[t * hop:t * hop + nfft] * window for t in range(count)])
    return np.abs(np.fft.rfft(frames, axis=1)) ** power


class MelMfccVsReference(TempDirTestCase):
    rng = np.random.default_rng(54)

    def signal(self, fs, seconds):
        t = np.arange(int(fs * seconds)) / fs
        x = 0.5 * np.sin(2 * np.pi * 440.0 * t) + 0.2 * np.sin(2 * np.pi * 3100.0 * t)
        return (x + 0.05 * self.rng.standard_normal(t.size)).astype(np.float32)

    def run_mode(self, x, fs, nperseg, noverlap, nfft, extra, name="out.npy"):
        inp = float_input(self.path("in.wav"), fs, x)
        out = self.path(name)
        run_prism("spectrogram", *inp, "-o", out, "--window", "hann", "--detrend", "none",
                  "--nperseg", nperseg, "--noverlap", noverlap, "--nfft", nfft, "-q", *extra, check=0)
        return load_npy_with_sidecar(out)

    def test_mel_spectrogram(self):
        # (fs, nperseg, noverlap, nfft, n_mels, f_min, f_max or None, mel_scale, norm, power, db, average)
        cases = [
            (16000, 400, 240, 400, 40, 0.0, None, "htk", None, 2.0, False, 1),
            (22050, 512, 384, 512, 64, 50.0, 7000.0, "slaney", "slaney", 1.0, True, 1),
            (16000, 300, 150, 512, 48, 20.0, None, "htk", "slaney", 1.5, False, 1),  # window in a longer FFT
            (11025, 256, 128, 256, 32, 0.0, 4000.0, "slaney", None, 2.0, True, 3),   # odd fs//2, averaged
        ]
        for fs, nperseg, noverlap, nfft, n_mels, f_min, f_max, scale, norm, power, db, average in cases:
            label = f"fs={fs} nperseg={nperseg} nfft={nfft} n_mels={n_mels} {scale} {norm} power={power} db={db}"
            with self.subTest(label):
                x = self.signal(fs, 1.0)
                extra = ["--mode", "mel", "--n-mels", n_mels, "--f-min", f_min, "--mel-scale", scale,
                         "--mel-norm", norm or "none", "--power", power, "--average", average]
                if f_max is not None:
                    extra += ["--f-max", f_max]
                if db:
                    extra += ["--db"]
                rows, meta = self.run_mode(x, fs, nperseg, noverlap, nfft, extra)
                top = f_max if f_max is not None else float(fs // 2)
                fb, f_pts = melscale_fbanks(nfft // 2 + 1, f_min, top, n_mels, fs, norm, scale)
                spec = frames_power(x.astype(np.float64), nperseg, nperseg - noverlap, nfft, power)
                whole = spec.shape[0] // average
                spec = spec[:whole * average].reshape(whole, average, -1).mean(axis=1)
                ref = spec @ fb
                if db:  # amplitude_to_DB(multiplier 20/power, amin 1e-10, db_multiplier 0, top_db None)
                    ref = 20.0 / power * np.log10(np.maximum(ref, 1e-10))
                self.assertEqual(rows.shape, ref.shape)
                self.assertLessEqual(rel_l2(rows, ref), 1e-5)
                self.assertEqual(meta["column_axis"], "mel_band")
                np.testing.assert_allclose(meta["frequencies"], f_pts[1:-1], rtol=1e-12)
                self.assertEqual(meta["quantity"], "mel_spectrogram")
                self.assertEqual(meta["decibels"], db)
                p = meta["parameters"]
                self.assertEqual((p["mode"], p["n_mels"], p["mel_scale"], p["mel_norm"]),
                                 ("mel", n_mels, scale, norm or "none"))
                self.assertEqual((p["f_min"], p["f_max"], p["power"], p["scaling"]), (f_min, top, power, None))

    def test_mfcc(self):
        # (fs, nperseg, noverlap, nfft, n_mels, n_mfcc, log_mels): torchaudio's MFCC defaults, and
        # its documented example (n_fft 400, hop 160, n_mels 23, n_mfcc 13, center False).
        cases = [(16000, 400, 200, 400, 128, 40, False),
                 (16000, 400, 240, 400, 23, 13, False),
                 (22050, 1024, 768, 1024, 40, 20, True)]
        for fs, nperseg, noverlap, nfft, n_mels, n_mfcc, log_mels in cases:
            label = f"fs={fs} nperseg={nperseg} n_mels={n_mels} n_mfcc={n_mfcc} log_mels={log_mels}"
            with self.subTest(label):
                x = self.signal(fs, 1.0)
                extra = ["--mode", "mfcc", "--n-mels", n_mels, "--n-mfcc", n_mfcc]
                if log_mels:
                    extra += ["--log-mels"]
                rows, meta = self.run_mode(x, fs, nperseg, noverlap, nfft, extra)
                fb, _ = melscale_fbanks(nfft // 2 + 1, 0.0, float(fs // 2), n_mels, fs, None, "htk")
                mel = frames_power(x.astype(np.float64), nperseg, nperseg - noverlap, nfft, 2.0) @ fb
                logged = np.log(mel + 1e-6) if log_mels else 10.0 * np.log10(np.maximum(mel, 1e-10))
                ref = logged @ create_dct(n_mfcc, n_mels)
                self.assertEqual(rows.shape, ref.shape)
                self.assertLessEqual(rel_l2(rows, ref), 1e-5)
                self.assertEqual(meta["column_axis"], "cepstral_coefficient")
                self.assertEqual(meta["coefficients"], list(range(n_mfcc)))
                self.assertEqual(meta["frequencies"], [])
                self.assertEqual(meta["quantity"], "mfcc_of_log_mels" if log_mels else "mfcc")
                self.assertEqual((meta["parameters"]["n_mfcc"], meta["parameters"]["log_mels"]), (n_mfcc, log_mels))

    def test_run_stage_keys_give_the_same_rows(self):
        x = self.signal(16000, 0.5)
        rows, _ = self.run_mode(x, 16000, 400, 240, 400, ["--mode", "mfcc", "--n-mels", 30, "--n-mfcc", 12])
        inp = float_input(self.path("in.wav"), 16000, x)
        run_prism("run", *inp, "!",
                  "spectrogram:mode=mfcc,n_mels=30,n_mfcc=12,window=hann,detrend=none,nperseg=400,noverlap=240",
                  "-o", self.path("chain.npy"), "-q", check=0)
        chain, meta = load_npy_with_sidecar(self.path("chain.npy"))
        np.testing.assert_array_equal(chain, rows)
        self.assertEqual(meta["parameters"]["mode"], "mfcc")

    def test_settings_that_do_not_apply_are_refused(self):
        cases = [(["--n-mels", "20"], ["--n-mels", "mel and mfcc only"]),
                 (["--mode", "mel", "--log-mels"], ["--log-mels", "mfcc only"]),
                 (["--mode", "mel", "--scaling", "spectrum"], ["--scaling", "unscaled"]),
                 (["--mode", "mfcc", "--db"], ["--db"]),
                 (["--mode", "mfcc", "--n-mels", "20", "--n-mfcc", "21"], ["--n-mfcc (21)", "--n-mels (20)"]),
                 (["--mode", "mel", "--f-max", "30000"], ["--f-max", "half the sample rate"]),
                 (["--mode", "mel", "--f-min", "5000", "--f-max", "4000"], ["--f-min", "--f-max"]),
                 (["--mode", "mel", "--power", "0"], ["--power", "positive"]),
                 (["--mode", "mel", "--frequency-range", "0:100"], ["--frequency-range", "--f-min"]),
                 (["--mode", "mfcc", "--n-mels", "8193", "--backend", "cufft"],
                  ["--backend cufft", "--mode mfcc of more than 8192 bands", "--n-mels 8193", "--backend cpu"]),
                 (["--mode", "mel", "-o", "PNG"], [".png", "--mode mel", ".npy"])]
        for args, words in cases:
            if BACKEND and "--backend" in args:
                if BACKEND == "cpu":
                    continue  # the CPU computes it
                at = args.index("--backend")  # run_prism adds PRISM_TEST_BACKEND's
                args = args[:at] + args[at + 2:]
                words = [w.replace("cufft", BACKEND) for w in words]
            with self.subTest(args=args):
                out = ["-o", self.path("a.npy")] if "-o" not in args else []
                args = [self.path("a.png") if a == "PNG" else a for a in args]
                proc = run_prism("spectrogram", "gen:duration=0.1", *args, *out)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                for word in words:
                    self.assertIn(word, proc.stderr)
        # A ZeroMQ output's layout tag describes FFT bins only (where this build has ZeroMQ).
        proc = run_prism("spectrogram", "gen:duration=0.1", "--mode", "mel", "-o", "zmq:pub:tcp://127.0.0.1:0")
        if "without libzmq" not in proc.stderr:
            self.assertNotEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("mode mel and mfcc rows go to .npy outputs", proc.stderr)
        # Complex input has no mel scale.
        np.zeros(4096, dtype=np.complex64).tofile(self.path("c.cf32"))
        proc = run_prism("spectrogram", self.path("c.cf32"), "--format", "cf32", "--rate", "8000",
                         "--mode", "mel", "-o", self.path("c.npy"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("needs real input", proc.stderr)


if __name__ == "__main__":
    main()
