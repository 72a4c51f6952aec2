"""prism spectrogram --precision double against scipy.signal.spectrogram in float64: float64
(complex128) rows, relative L2 error below 1e-12, on float64 and complex128 raw input, over
psd, magnitude, complex, dB and linear detrending; the sidecar
says "precision": "double"; PNG outputs refuse it by name. (qa_CudaSpectrogram holds the GPU
backends' double rows to the CPU's on a device.)
"""
import numpy as np
import scipy.signal

from prism_test_util import TempDirTestCase, load_npy_with_sidecar, main, rel_l2, run_prism

# (nperseg, noverlap, nfft, window, scipy window, detrend, scaling, mode, complex input, extra)
CASES = [
    (256, None, None, "hann", "hann", "constant", "density", "psd", False, []),
    (255, 100, 300, "kaiser:8.6", ("kaiser", 8.6), "linear", "spectrum", "magnitude", False, []),
    (64, 16, None, "tukey:0.25", ("tukey", 0.25), "none", "density", "psd", True, []),
    (100, 50, 128, "hamming", "hamming", "constant", "spectrum", "complex", True, []),
    (128, 64, None, "blackman", "blackman", "none", "density", "psd", False, ["--db"]),
]


class SpectrogramDouble(TempDirTestCase):
    rng = np.random.default_rng(5403)

    def test_rows_match_scipy_in_float64(self):
        fs = 48000.0
        for nperseg, noverlap, nfft, window, scipy_window, detrend, scaling, mode, complex_input, extra in CASES:
            label = f"{window} {nperseg}/{noverlap}/{nfft} {detrend} {scaling} {mode} complex={complex_input} {extra}"
            with self.subTest(label):
                n = 20000
                x = self.rng.standard_normal(n) + (1j * self.rng.standard_normal(n) if complex_input else 0)
                x = x + np.sin(2 * np.pi * 1234.5 * np.arange(n) / fs)
                path = self.path("in.cf64" if complex_input else "in.f64")
                x.astype(np.complex128 if complex_input else np.float64).tofile(path)
                out = self.path("out.npy")
                args = ["spectrogram", path, "--format", "cf64" if complex_input else "f64", "--rate", fs,
                        "-o", out, "--precision", "double", "--window", window, "--nperseg", nperseg,
                        "--detrend", detrend, "--scaling", scaling, "--mode", mode, "-q", *extra]
                if noverlap is not None:
                    args += ["--noverlap", noverlap]
                if nfft is not None:
                    args += ["--nfft", nfft]
                run_prism(*args, check=0)
                rows, meta = load_npy_with_sidecar(out)
                _, _, sxx = scipy.signal.spectrogram(
                    x, fs=fs, window=scipy_window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                    detrend=detrend if detrend != "none" else False, scaling=scaling, mode=mode,
                    return_onesided=not complex_input)
                ref = sxx.T
                if complex_input:
                    ref = np.fft.fftshift(ref, axes=1)
                if "--db" in extra:
                    ref = 10 * np.log10(np.maximum(ref, 1e-30))
                self.assertEqual(rows.dtype, np.complex128 if mode == "complex" else np.float64)
                self.assertEqual(rows.shape, ref.shape)
                self.assertLessEqual(rel_l2(rows, ref), 1e-12)
                self.assertEqual((meta["precision"], meta["parameters"]["precision"]), ("double", "double"))
                self.assertEqual(meta["dtype"], "complex128" if mode == "complex" else "float64")

    def test_single_precision_is_what_it_was(self):
        out = self.path("s.npy")
        run_prism("spectrogram", "gen:duration=0.1", "-o", out, "-q", check=0)
        rows, meta = load_npy_with_sidecar(out)
        self.assertEqual(rows.dtype, np.float32)
        self.assertEqual((meta["precision"], meta["parameters"]["precision"]), ("single", "single"))

    def test_png_refuses_it(self):
        proc = run_prism("spectrogram", "gen:duration=0.1", "--precision", "double", "-o", self.path("a.png"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        for word in (".png", "--precision double", ".npy"):
            self.assertIn(word, proc.stderr)

    def test_mel_rows_are_float64(self):
        out = self.path("m.npy")
        run_prism("spectrogram", "gen:duration=0.1", "--precision", "double", "--mode", "mel", "-o", out, "-q",
                  check=0)
        rows, meta = load_npy_with_sidecar(out)
        self.assertEqual(rows.dtype, np.float64)
        self.assertEqual(meta["precision"], "double")

if __name__ == "__main__":
    main()
