"""prism spectrogram against scipy.signal.spectrogram on WAV and raw cf32 files.

Each case writes a fresh random signal, runs `prism spectrogram ... -o out.npy`, and compares
the rows, the frequencies and the times with scipy.signal.spectrogram on the same samples
(fftshift-ed for complex input, as prism centres two-sided spectra). Relative L2 error <= 1e-5.
"""
import itertools
import os

import numpy as np
import scipy.signal

from prism_test_util import TempDirTestCase, float_input, load_npy_with_sidecar, main, \
    prism_reads_wav, rel_l2, run_prism

# (window for prism, window for scipy)
WINDOWS = [("hann", "hann"), ("hamming", "hamming"), ("blackman", "blackman"),
           ("blackmanharris", "blackmanharris"), ("flattop", "flattop"),
           ("kaiser:8.6", ("kaiser", 8.6)), ("tukey:0.25", ("tukey", 0.25)),
           ("boxcar", "boxcar"), ("kaiser:0.5", ("kaiser", 0.5)), ("tukey:0.9", ("tukey", 0.9)),
           ("chebwin:80", ("chebwin", 80)), ("dpss:3", ("dpss", 3)), ("taylor", "taylor"),
           ("general_cosine:0.5:0.4:0.1", ("general_cosine", [0.5, 0.4, 0.1])),
           ("parzen", "parzen"), ("gaussian:40", ("gaussian", 40))]

# (nperseg, noverlap or None, nfft or None, detrend, scaling, mode, complex input)
CASES = [
    (256, None, None, "constant", "density", "psd", False),
    (255, 100, None, "none", "density", "psd", False),       # odd nperseg
    (100, 50, 256, "constant", "spectrum", "psd", False),     # nfft > nperseg
    (101, 0, 129, "none", "spectrum", "magnitude", False),    # odd nfft
    (512, 511, None, "constant", "density", "magnitude", False),
    (64, 16, None, "none", "density", "psd", True),
    (63, 31, 100, "constant", "spectrum", "psd", True),       # complex, odd, padded
    (1000, 250, 1024, "none", "density", "magnitude", True),
    (32, None, 33, "constant", "density", "psd", False),
    (7, 3, None, "none", "spectrum", "psd", False),            # tiny segments
    (1024, 512, 4096, "constant", "density", "psd", True),
]


class SpectrogramVsScipy(TempDirTestCase):
    rng = np.random.default_rng(20261121)

    def compare(self, x, fs, window, scipy_window, nperseg, noverlap, nfft, detrend, scaling,
                mode, complex_input, extra=()):
        if complex_input:
            inp = [self.path("in.cf32"), "--format", "cf32", "--rate", repr(fs)]
            x.astype(np.complex64).tofile(inp[0])
        else:
            inp = float_input(self.path("in.wav"), fs, x)
            x = x.astype(np.float32)
        out = self.path("out.npy")
        args = ["spectrogram", *inp, "-o", out, "--window", window, "--nperseg", nperseg,
                "--detrend", detrend, "--scaling", scaling, "--mode", mode, "-q", *extra]
        if noverlap is not None:
            args += ["--noverlap", noverlap]
        if nfft is not None:
            args += ["--nfft", nfft]
        run_prism(*args, check=0)
        rows, meta = load_npy_with_sidecar(out)
        xs = x.astype(np.complex128) if complex_input else x.astype(np.float64)
        f, t, sxx = scipy.signal.spectrogram(
            xs, fs=fs, window=scipy_window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
            detrend=detrend if detrend != "none" else False, scaling=scaling, mode=mode,
            return_onesided=not complex_input)
        ref = sxx.T  # scipy: bins x frames; prism: rows (frames) x bins
        if complex_input:
            ref = np.fft.fftshift(ref, axes=1)
            f = np.fft.fftshift(f)
        label = f"{window} nperseg={nperseg} noverlap={noverlap} nfft={nfft} {detrend} " \
                f"{scaling} {mode} complex={complex_input}"
        self.assertEqual(rows.dtype, np.float32, label)
        self.assertEqual(rows.shape, ref.shape, label)
        self.assertLessEqual(rel_l2(rows, ref), 1e-5, label)
        np.testing.assert_allclose(meta["frequencies"], f, rtol=1e-9, atol=1e-9 * fs, err_msg=label)
        np.testing.assert_allclose(meta["times"], t, rtol=1e-9, atol=1e-9, err_msg=label)
        return rows, ref

    def test_parameter_sets(self):
        # Every case with a window from the list, cycling so that each window is used.
        count = 0
        for (case, (window, scipy_window)) in zip(CASES * 2, itertools.cycle(WINDOWS)):
            nperseg, noverlap, nfft, detrend, scaling, mode, complex_input = case
            n = int(self.rng.integers(3 * nperseg, 3 * nperseg + 5000))
            fs = float(self.rng.choice([8000.0, 44100.0, 48000.0, 1e6]))
            if complex_input:
                x = self.rng.uniform(-0.5, 0.5, n) + 1j * self.rng.uniform(-0.5, 0.5, n)
            else:
                x = self.rng.uniform(-0.5, 0.5, n) + 0.3  # a DC offset, so detrend matters
            with self.subTest(case=case, window=window):
                self.compare(x, fs, window, scipy_window, nperseg, noverlap, nfft, detrend,
                             scaling, mode, complex_input)
            count += 1
        self.assertGreaterEqual(count, 20)

    def test_detrend_linear(self):
        # A ramp under the signal: linear detrending removes it from every segment.
        from prism_test_util import BACKEND
        n = 20000
        ramp = np.linspace(-0.8, 0.9, n)
        cases = [(False, 256, None, None), (True, 255, 100, 300), (False, 7, 3, None)]
        for complex_input, nperseg, noverlap, nfft in cases:
            if complex_input:
                x = ramp + 0.1 * self.rng.standard_normal(n) + 1j * (0.5 * ramp[::-1] + 0.1 * self.rng.standard_normal(n))
            else:
                x = ramp + 0.1 * self.rng.standard_normal(n)
            with self.subTest(complex_input=complex_input, nperseg=nperseg):
                if BACKEND in ("cuda", "cufft"):
                    # The GPU kernels do not detrend linearly: a clear refusal, exit 2.
                    proc = run_prism("spectrogram", "gen:duration=0.1", "-o", self.path("x.npy"),
                                     "--detrend", "linear", "-q")
                    self.assertEqual(proc.returncode, 2, proc.stderr)
                    self.assertIn("detrend linear", proc.stderr)
                    continue
                self.compare(x, 44100.0, "hann", "hann", nperseg, noverlap, nfft, "linear",
                             "density", "psd", complex_input)

    def test_every_window_on_a_tone(self):
        fs = 48000.0
        n = 20000
        tt = np.arange(n) / fs
        x = 0.5 * np.sin(2 * np.pi * 3000.0 * tt) + 0.01 * self.rng.standard_normal(n)
        for window, scipy_window in WINDOWS:
            with self.subTest(window=window):
                self.compare(x, fs, window, scipy_window, 512, 256, None, "constant", "density",
                             "psd", False)

    def test_decibels_are_ten_log10_of_power(self):
        fs = 8000.0
        x = self.rng.uniform(-0.5, 0.5, 9000)
        inp = float_input(self.path("db.wav"), fs, x)
        run_prism("spectrogram", *inp, "-o", self.path("lin.npy"), "--window", "hann",
                  "--nperseg", 200, "-q", check=0)
        run_prism("spectrogram", *inp, "-o", self.path("db.npy"), "--window", "hann",
                  "--nperseg", 200, "--db", "-q", check=0)
        lin, _ = load_npy_with_sidecar(self.path("lin.npy"))
        db, meta = load_npy_with_sidecar(self.path("db.npy"))
        self.assertTrue(meta["decibels"])
        np.testing.assert_allclose(db, 10 * np.log10(lin.astype(np.float64)), atol=1e-3)

    def test_multichannel_wav_channel_selection(self):
        fs = 16000.0
        n = 12000
        x = self.rng.uniform(-0.5, 0.5, (n, 2)).astype(np.float32)
        inp = float_input(self.path("stereo.wav"), fs, x)
        for channel in (0, 1):
            out = self.path(f"ch{channel}.npy")
            run_prism("spectrogram", *inp, "-o", out, "--channel", channel, "--nperseg", 256,
                      "--window", "hann", "-q", check=0)
            rows, _ = load_npy_with_sidecar(out)
            _, _, sxx = scipy.signal.spectrogram(x[:, channel].astype(np.float64), fs=fs,
                                                 window="hann", nperseg=256)
            self.assertLessEqual(rel_l2(rows, sxx.T), 1e-5)

    def test_pcm16_wav_unit_and_raw_integer_scale(self):
        from scipy.io import wavfile
        if not prism_reads_wav():
            self.skipTest("this prism was built without libsndfile")
        fs = 22050
        x = self.rng.integers(-20000, 20000, 40000, dtype=np.int16)
        inp = self.path("pcm16.wav")
        wavfile.write(inp, fs, x)
        _, data = wavfile.read(inp)  # int16, as a scipy user loads it
        for scale, reference_input in (("raw", data.astype(np.float64)),
                                       ("unit", data.astype(np.float64) / 32768.0)):
            out = self.path(f"pcm16_{scale}.npy")
            run_prism("spectrogram", inp, "-o", out, "--integer-scale", scale, "--nperseg", 512,
                      "-q", check=0)
            rows, meta = load_npy_with_sidecar(out)
            _, _, sxx = scipy.signal.spectrogram(reference_input, fs=fs, nperseg=512)
            self.assertLessEqual(rel_l2(rows, sxx.T), 1e-5, scale)
            self.assertEqual(meta["parameters"]["integer_scale"], scale)

    def test_ci16_sigmf_raw_scale_matches_numpy_view(self):
        from prism_test_util import write_sigmf
        iq = self.rng.integers(-3000, 3000, (30000, 2), dtype=np.int16)
        base = self.path("ci16")
        write_sigmf(base, 1e6, iq, "ci16_le", center=915e6)
        out = self.path("ci16.npy")
        run_prism("spectrogram", base + ".sigmf-meta", "-o", out, "--integer-scale", "raw",
                  "--nperseg", 256, "--window", "hann", "-q", check=0)
        rows, meta = load_npy_with_sidecar(out)
        x = iq[:, 0].astype(np.float64) + 1j * iq[:, 1].astype(np.float64)
        _, _, sxx = scipy.signal.spectrogram(x, fs=1e6, window="hann", nperseg=256,
                                             return_onesided=False)
        self.assertLessEqual(rel_l2(rows, np.fft.fftshift(sxx.T, axes=1)), 1e-5)
        self.assertEqual(meta["center_frequency"], 915e6)

    def test_complex_angle_and_phase_modes(self):
        # scipy's modes that keep the phase: complex is X scaled as magnitude (.npy complex64),
        # angle is np.angle of it, phase is that unwrapped along frequency. prism unwraps in its
        # rows' ascending-frequency order (scipy's two-sided rows are in FFT order).
        from prism_test_util import BACKEND
        n = 20000
        for complex_input in (False, True):
            x = self.rng.standard_normal(n)
            if complex_input:
                x = x + 1j * self.rng.standard_normal(n)
            for mode in ("complex", "angle", "phase"):
                with self.subTest(complex_input=complex_input, mode=mode):
                    if BACKEND in ("cuda", "cufft"):
                        proc = run_prism("spectrogram", "gen:duration=0.1", "-o", self.path("x.npy"),
                                         "--mode", mode, "-q")
                        self.assertEqual(proc.returncode, 2, proc.stderr)
                        self.assertIn(f"mode {mode}", proc.stderr)
                        continue
                    if complex_input:
                        inp = [self.path("m.cf32"), "--format", "cf32", "--rate", "1000"]
                        x.astype(np.complex64).tofile(inp[0])
                        xs = x.astype(np.complex64).astype(np.complex128)
                    else:
                        inp = [self.path("m.f32"), "--format", "f32", "--rate", "1000"]
                        x.astype(np.float32).tofile(inp[0])
                        xs = x.astype(np.float32).astype(np.float64)
                    out = self.path(f"{mode}.npy")
                    run_prism("spectrogram", *inp, "-o", out, "--mode", mode, "--window", "hann",
                              "--nperseg", 200, "--nfft", 256, "-q", check=0)
                    rows, meta = load_npy_with_sidecar(out)
                    _, _, sxx = scipy.signal.spectrogram(
                        xs, fs=1000, window="hann", nperseg=200, nfft=256,
                        mode="complex" if mode == "complex" else "angle",
                        return_onesided=not complex_input)
                    ref = np.fft.fftshift(sxx.T, axes=1) if complex_input else sxx.T
                    if mode == "phase":
                        ref = np.unwrap(ref, axis=1)
                    self.assertEqual(rows.dtype, np.complex64 if mode == "complex" else np.float32)
                    self.assertEqual(meta["dtype"], "complex64" if mode == "complex" else "float32")
                    self.assertEqual(rows.shape, ref.shape)
                    self.assertLessEqual(rel_l2(rows, ref), 1e-5)
                    if mode == "angle":  # compared around the circle: -pi and pi are one angle
                        self.assertLess(np.max(np.abs(np.angle(np.exp(1j * (rows - ref))))), 1e-3)
                    if mode == "phase":
                        np.testing.assert_allclose(rows, ref, atol=1e-3)
                    if mode != "complex":
                        self.assertEqual(meta["unit"], "rad")

    def test_phase_modes_refuse_png_db_and_averaging(self):
        from prism_test_util import BACKEND
        if BACKEND in ("cuda", "cufft"):
            self.skipTest("the GPU backends refuse these modes before the options are weighed "
                          "(test_complex_angle_and_phase_modes checks that refusal)")
        cases = [(["--mode", "angle", "-o", self.path("a.png")], ["--mode angle", ".npy"]),
                 (["--mode", "complex", "--db", "-o", self.path("a.npy")], ["--mode complex", "--db"]),
                 (["--mode", "phase", "--average", "4", "-o", self.path("a.npy")],
                  ["--mode phase", "--average 4"])]
        for args, words in cases:
            with self.subTest(args=args):
                proc = run_prism("spectrogram", "gen:duration=0.1", *args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                for word in words:
                    self.assertIn(word, proc.stderr)
        # In prism run the PNG learns the rows' kind as the run starts: the same refusal, exit 2,
        # and no file left.
        proc = run_prism("run", "gen:duration=0.1", "-o", "spectrogram:mode=angle ! " + self.path("r.png"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("mode angle rows go to .npy", proc.stderr)
        self.assertFalse(os.path.exists(self.path("r.png")))
        # The same as a stage of prism run.
        proc = run_prism("run", "gen:duration=0.1", "!", "spectrogram:mode=complex,nperseg=64", "-o",
                         self.path("run.npy"), "-q")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows, meta = load_npy_with_sidecar(self.path("run.npy"))
        self.assertEqual(rows.dtype, np.complex64)
        self.assertEqual(meta["quantity"], "complex_density")

    def test_frequency_range_keeps_the_bins_inside_it(self):
        from prism_test_util import BACKEND
        if BACKEND in ("cuda", "cufft"):
            proc = run_prism("spectrogram", "gen:duration=0.1", "-o", self.path("x.npy"),
                             "--frequency-range", "0:1000", "-q")
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("--frequency-range", proc.stderr)
            return
        n = 20000
        for complex_input, lo, hi in ((False, 1000.0, 3000.0), (True, -2500.0, 100.0),
                                      (False, 0.0, 4000.0)):
            with self.subTest(complex_input=complex_input, lo=lo, hi=hi):
                x = self.rng.standard_normal(n) + (1j * self.rng.standard_normal(n) if complex_input else 0)
                f, _, sxx = scipy.signal.spectrogram(
                    x.astype(np.complex64 if complex_input else np.float32), fs=8000.0,
                    window="hann", nperseg=256, return_onesided=not complex_input)
                ref = np.fft.fftshift(sxx.T, axes=1) if complex_input else sxx.T
                f = np.fft.fftshift(f) if complex_input else f
                keep = (f >= lo) & (f <= hi)
                if complex_input:
                    inp = [self.path("r.cf32"), "--format", "cf32", "--rate", "8000"]
                    x.astype(np.complex64).tofile(inp[0])
                else:
                    inp = [self.path("r.f32"), "--format", "f32", "--rate", "8000"]
                    x.astype(np.float32).tofile(inp[0])
                out = self.path("range.npy")
                run_prism("spectrogram", *inp, "-o", out, "-o", self.path("range.png"), "--window", "hann",
                          "--nperseg", 256, f"--frequency-range={lo:g}:{hi:g}", "-q", check=0)
                rows, meta = load_npy_with_sidecar(out)
                self.assertEqual(rows.shape, ref[:, keep].shape)
                self.assertLessEqual(rel_l2(rows, ref[:, keep]), 1e-5)
                np.testing.assert_allclose(meta["frequencies"], f[keep], rtol=1e-9)
                self.assertEqual(meta["parameters"]["frequency_range"], [lo, hi])
        bad = [("3000:1000", "LO must be less than HI"), ("0:4001", "leaves the input's band"),
               ("-1:100", "leaves the input's band"), ("100.1:100.2", "holds no frequency bin"),
               ("1k", "expected LO:HI")]
        for text, reason in bad:
            with self.subTest(range=text):
                proc = run_prism("spectrogram", "gen:rate=8000,duration=0.5", "-o", self.path("bad.npy"),
                                 f"--frequency-range={text}", "-q")
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("--frequency-range", proc.stderr)
                self.assertIn(reason, proc.stderr)

    def test_averaging_mean_and_max(self):
        fs = 8000.0
        x = self.rng.uniform(-0.5, 0.5, 30000)
        inp = float_input(self.path("avg.wav"), fs, x)
        _, t, sxx = scipy.signal.spectrogram(x.astype(np.float32).astype(np.float64), fs=fs,
                                             window="hann", nperseg=128)
        frames = sxx.T
        k = 5
        whole = frames.shape[0] // k
        for kind, reduce in (("mean", np.mean), ("max", np.max)):
            out = self.path(f"avg_{kind}.npy")
            proc = run_prism("spectrogram", *inp, "-o", out, "--nperseg", 128, "--window", "hann",
                             "--average", f"{k}:{kind}", check=0)
            rows, meta = load_npy_with_sidecar(out)
            ref = reduce(frames[:whole * k].reshape(whole, k, -1), axis=1)
            self.assertEqual(rows.shape, ref.shape)
            self.assertLessEqual(rel_l2(rows, ref), 1e-5, kind)
            np.testing.assert_allclose(meta["times"], t[:whole * k].reshape(whole, k).mean(axis=1),
                                       rtol=1e-9)
            if frames.shape[0] % k:
                self.assertIn(f"frames unaveraged {frames.shape[0] % k}", proc.stdout)


if __name__ == "__main__":
    main()
