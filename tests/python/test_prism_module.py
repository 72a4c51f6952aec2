"""The Python module `prism` against scipy.signal: spectrogram on every parameter combination the
CLI tests use, firwin, the streaming FIR filter against lfilter/oaconvolve, oaconvolve itself, resample_poly; the
streaming objects against the one-shot calls; the same numbers as the command line; errors that
name the parameter; the GIL released and Ctrl-C honoured in long calls.
Run by ctest under pytest with Debian's python3 and PYTHONPATH=<build>/python
(tests/python/CMakeLists.txt);
PRISM_BINARY names the command line for the comparison with it."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
import scipy.signal

import prism

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from test_spectrogram_vs_scipy import CASES  # noqa: E402  (the CLI tests' combinations)


def skip_without_sdr_test_module(test):
    # tests/faults' SoapySDR module (driver=prism_hang), where the build made it.
    folder = os.environ.get("SOAPY_SDR_PLUGIN_PATH", "")
    if not folder or not os.path.isdir(folder) or not any("prism_hang" in f for f in os.listdir(folder)):
        test.skipTest("no SoapySDR test module in this build")


def rel_l2(a, b):
    a = np.asarray(a, dtype=np.complex128)
    b = np.asarray(b, dtype=np.complex128)
    norm = np.linalg.norm(b)
    return np.linalg.norm(a - b) / (norm if norm > 0 else 1.0)


class Spectrogram(unittest.TestCase):
    rng = np.random.default_rng(51)

    def test_every_cli_case_matches_scipy(self):
        for nperseg, noverlap, nfft, detrend, scaling, mode, complex_input in CASES:
            n = 20000
            x = self.rng.standard_normal(n) + 0.3
            if complex_input:
                x = x + 1j * self.rng.standard_normal(n)
            for window in ["hann", ("tukey", 0.25), ("kaiser", 8.0), "blackmanharris"]:
                label = f"{nperseg} {noverlap} {nfft} {detrend} {scaling} {mode} {complex_input} {window}"
                kwargs = dict(fs=48000.0, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                              detrend=detrend if detrend != "none" else False, scaling=scaling, mode=mode)
                f, t, sxx = prism.spectrogram(x, backend="cpu", **kwargs)
                rf, rt, rsxx = scipy.signal.spectrogram(x, **kwargs)
                self.assertEqual(sxx.dtype, np.float32, label)
                self.assertEqual(sxx.shape, rsxx.shape, label)
                np.testing.assert_allclose(f, rf, rtol=1e-12, atol=1e-9, err_msg=label)
                np.testing.assert_allclose(t, rt, rtol=1e-12, err_msg=label)
                self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5, label)

    def test_every_scipy_window_form_and_linear_detrend(self):
        # Windows with several parameters, None and booleans, as scipy.signal.get_window takes
        # them; detrend 'linear' (CPU), real and complex.
        x = self.rng.standard_normal(6000) + np.linspace(0, 3, 6000)
        windows = [("chebwin", 80), ("dpss", 3), "taylor", ("taylor", 5, 35, False),
                   ("general_cosine", [0.5, 0.3, 0.2]), ("exponential", None, 3.0), "parzen",
                   ("gaussian", 40), ("general_gaussian", 1.5, 30)]
        for window in windows:
            for detrend in ("constant", "linear"):
                for data in (x, x + 1j * self.rng.standard_normal(x.size)):
                    kwargs = dict(fs=8000.0, window=window, nperseg=256, noverlap=64, detrend=detrend)
                    f, t, sxx = prism.spectrogram(data, backend="cpu", **kwargs)
                    rf, rt, rsxx = scipy.signal.spectrogram(data, **kwargs)
                    self.assertEqual(sxx.shape, rsxx.shape, f"{window} {detrend}")
                    self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5, f"{window} {detrend}")
        with self.assertRaises(ValueError):
            prism.spectrogram(x, window="nosuch")
        with self.assertRaises(ValueError):
            prism.spectrogram(x, detrend="quadratic")

    def test_phase_modes_match_scipy(self):
        real = self.rng.standard_normal(6000)
        cplx = real + 1j * self.rng.standard_normal(real.size)
        for mode in ("complex", "angle", "phase"):
            for data in (real, cplx):
                label = f"{mode} complex input: {np.iscomplexobj(data)}"
                if mode == "phase" and np.iscomplexobj(data):
                    continue  # prism unwraps in centred order, scipy in FFT order: compared below
                kwargs = dict(fs=8000.0, window="hann", nperseg=256, noverlap=64, mode=mode)
                f, t, sxx = prism.spectrogram(data, backend="cpu", **kwargs)
                rf, rt, rsxx = scipy.signal.spectrogram(data, **kwargs)
                self.assertEqual(sxx.dtype, np.complex64 if mode == "complex" else np.float32, label)
                self.assertEqual(sxx.shape, rsxx.shape, label)
                np.testing.assert_allclose(f, rf, err_msg=label)
                np.testing.assert_allclose(t, rt, err_msg=label)
                if mode == "complex":
                    self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5, label)
                else:  # angles: compared as points on the circle, where the magnitude is not tiny
                    _, _, magnitude = scipy.signal.spectrogram(data, mode="magnitude", **{
                        k: v for k, v in kwargs.items() if k != "mode"})
                    strong = magnitude > 1e-3 * magnitude.max()
                    difference = np.angle(np.exp(1j * (sxx.astype(np.float64) - rsxx)))
                    self.assertLess(np.max(np.abs(difference[strong])), 1e-3, label)
                    if mode == "phase":  # unwrapped: the same values, not only the same angles
                        self.assertLess(np.max(np.abs(sxx - rsxx)[strong]), 1e-2, label)
        # Complex input, phase: scipy's unwrap of the centred spectrum.
        f, t, sxx = prism.spectrogram(cplx, 8000.0, "hann", 256, 64, mode="phase", backend="cpu")
        _, _, angles = scipy.signal.spectrogram(cplx, 8000.0, "hann", 256, 64, mode="angle")
        reference = np.fft.ifftshift(np.unwrap(np.fft.fftshift(angles, axes=0), axis=0), axes=0)
        self.assertLess(np.max(np.abs(sxx - reference)), 1e-2)

    def test_frequency_range_and_start_match_scipy(self):
        x = self.rng.standard_normal(9000)
        z = x + 1j * self.rng.standard_normal(x.size)
        for data, (low, high) in ((x, (500.0, 1500.0)), (z, (-1200.0, 700.0))):
            f, t, sxx = prism.spectrogram(data, 8000.0, "hann", 256, 64, frequency_range=(low, high),
                                          backend="cpu")
            rf, rt, rsxx = scipy.signal.spectrogram(data, 8000.0, "hann", 256, 64)
            if np.iscomplexobj(data):  # prism keeps ascending frequencies under a range
                rf, rsxx = np.fft.fftshift(rf), np.fft.fftshift(rsxx, axes=0)
            keep = (rf >= low) & (rf <= high)
            self.assertGreater(keep.sum(), 10)
            np.testing.assert_allclose(f, rf[keep])
            np.testing.assert_allclose(t, rt)
            self.assertLessEqual(rel_l2(sxx, rsxx[keep]), 1e-5)
        # start: the spectrogram of x[round(start * fs):], its times counted from x's start.
        start = 0.1234
        first = round(start * 8000.0)
        f, t, sxx = prism.spectrogram(x, 8000.0, "hann", 256, 64, start=start, backend="cpu")
        rf, rt, rsxx = scipy.signal.spectrogram(x[first:], 8000.0, "hann", 256, 64)
        self.assertEqual(sxx.shape, rsxx.shape)
        np.testing.assert_allclose(t, rt + first / 8000.0, rtol=1e-12)
        self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5)
        # The streaming object takes the range too.
        s = prism.Spectrogram(fs=8000.0, window="hann", nperseg=256, noverlap=64, frequency_range=(500, 1500))
        np.testing.assert_allclose(s.frequencies, rf[(rf >= 500) & (rf <= 1500)])

    def test_defaults_axis_and_two_sided_real(self):
        x = self.rng.standard_normal((3, 5000, 2))
        for axis in (1, -2):
            f, t, sxx = prism.spectrogram(x, 1000.0, axis=axis)
            rf, rt, rsxx = scipy.signal.spectrogram(x, 1000.0, axis=axis)
            self.assertEqual(sxx.shape, rsxx.shape)
            self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5)
        f, t, sxx = prism.spectrogram(x[0, :, 0], 1000.0, return_onesided=False, nperseg=128)
        rf, rt, rsxx = scipy.signal.spectrogram(x[0, :, 0], 1000.0, return_onesided=False, nperseg=128)
        np.testing.assert_allclose(f, rf)
        self.assertLessEqual(rel_l2(sxx, rsxx), 1e-5)

    def test_same_numbers_as_the_command_line(self):
        binary = os.environ.get("PRISM_BINARY")
        if not binary:
            self.skipTest("PRISM_BINARY is not set")
        x = self.rng.standard_normal(30000).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "x.f32")
            x.tofile(raw)
            out = os.path.join(tmp, "s.npy")
            subprocess.run([binary, "spectrogram", raw, "--format", "f32", "--rate", "8000", "-o", out,
                            "--nperseg", "512", "--noverlap", "384", "--window", "hann", "--backend", "cpu",
                            "-q"], check=True)
            cli_rows = np.load(out)
        _, _, sxx = prism.spectrogram(x, 8000.0, "hann", 512, 384, backend="cpu")
        np.testing.assert_array_equal(sxx.T, cli_rows)

    def test_streaming_object_gives_the_one_shot_rows(self):
        x = (self.rng.standard_normal(10000) + 1j * self.rng.standard_normal(10000)).astype(np.complex64)
        _, _, sxx = prism.spectrogram(x, 1e6, "hann", 256, 128)
        s = prism.Spectrogram(fs=1e6, window="hann", nperseg=256, noverlap=128, complex_input=True)
        rows = np.concatenate([s.feed(x[:1]), s.feed(x[1:4097]), s.feed(x[4097:]), s.flush()])
        # The streaming rows are prism's: time first, frequencies centred.
        np.testing.assert_array_equal(rows, np.fft.fftshift(sxx, axes=0).T)
        self.assertAlmostEqual(s.frequencies[0], -0.5e6)
        s.reset()
        np.testing.assert_array_equal(s.feed(x), rows)
        # mode 'complex': complex64 rows, as the one-shot call's Sxx.
        _, _, cxx = prism.spectrogram(x, 1e6, "hann", 256, 128, mode="complex")
        s = prism.Spectrogram(fs=1e6, window="hann", nperseg=256, noverlap=128, complex_input=True, mode="complex")
        rows = np.concatenate([s.feed(x[:4097]), s.feed(x[4097:]), s.flush()])
        self.assertEqual(rows.dtype, np.complex64)
        np.testing.assert_array_equal(rows, np.fft.fftshift(cxx, axes=0).T)

    def test_errors_name_the_parameter(self):
        with self.assertRaisesRegex(ValueError, "noverlap"):
            prism.spectrogram(np.zeros(1000), nperseg=64, noverlap=64)
        with self.assertRaisesRegex(ValueError, "mode"):
            prism.spectrogram(np.zeros(1000), mode="stft")
        # The backend as this module names it, never as an option.
        with self.assertRaisesRegex(ValueError, "^backend cuda: the GPU backends do not compute mode complex; "
                                                "use backend cpu$"):
            prism.spectrogram(np.zeros(1000), mode="complex", backend="cuda")
        try:
            prism.spectrogram(np.zeros(1000), backend="cuda")
        except RuntimeError as error:  # no usable GPU here
            self.assertRegex(str(error), "^backend cuda[ :] ?")  # not "--backend"
        with self.assertRaisesRegex(ValueError, "^format cf32_be: zmq:pull:tcp://127.0.0.1:9 \\(ZeroMQ\\) carries"):
            prism.open("zmq:pull:tcp://127.0.0.1:9", format="cf32_be", rate=1000)
        with self.assertRaisesRegex(ValueError, "frequency_range"):
            prism.spectrogram(np.zeros(1000), 1000.0, frequency_range=(100, 900))  # past Nyquist
        with self.assertRaisesRegex(ValueError, "frequency_range"):
            prism.spectrogram(np.zeros(1000), 1000.0, frequency_range=100)
        with self.assertRaisesRegex(ValueError, "start"):
            prism.spectrogram(np.zeros(1000), 1000.0, start=2.0)
        with self.assertRaisesRegex(ValueError, "start"):
            prism.spectrogram(np.zeros(1000), 1000.0, start=-1)
        with self.assertRaisesRegex(ValueError, "window"):
            prism.spectrogram(np.zeros(1000), window="nosuch")


class Filters(unittest.TestCase):
    rng = np.random.default_rng(52)

    def test_firwin_matches_scipy(self):
        cases = [
            (101, 0.2, {}),
            (101, [0.2, 0.4], {"pass_zero": False}),
            (61, 3000.0, {"fs": 48000.0, "window": ("kaiser", 6.0)}),
            (81, 3000.0, {"fs": 48000.0, "width": 800.0}),
            (51, 0.3, {"pass_zero": "highpass", "window": "hann"}),
            (75, [0.1, 0.5, 0.7], {"pass_zero": "bandstop", "scale": False}),
        ]
        for numtaps, cutoff, kwargs in cases:
            np.testing.assert_allclose(prism.firwin(numtaps, cutoff, **kwargs),
                                       scipy.signal.firwin(numtaps, cutoff, **kwargs), rtol=1e-10,
                                       atol=1e-14, err_msg=f"{numtaps} {cutoff} {kwargs}")
        with self.assertRaisesRegex(ValueError, "cutoff"):
            prism.firwin(11, 1.5)

    def test_streaming_fir_is_lfilter_of_the_whole_input(self):
        taps = scipy.signal.firwin(127, 0.1)
        x = self.rng.standard_normal(50000)
        fir = prism.FirFilter(taps)
        y = np.concatenate([fir.feed(x[:1]), fir.feed(x[1:999]), fir.feed(x[999:]), fir.flush()])
        ref = scipy.signal.lfilter(taps, 1, x)
        self.assertEqual(y.dtype, np.float32)
        self.assertEqual(y.shape, ref.shape)
        self.assertLessEqual(rel_l2(y, ref), 1e-5)
        fir.reset()
        np.testing.assert_array_equal(np.concatenate([fir.feed(x), fir.flush()]), y)

    def test_streaming_fir_in_double_precision(self):
        taps = scipy.signal.firwin(255, 0.1)
        x = self.rng.standard_normal(40000) + 1j * self.rng.standard_normal(40000)
        fir = prism.FirFilter(taps, complex_input=True, decimate=4, align="same", precision="double")
        y = np.concatenate([fir.feed(x[:777]), fir.feed(x[777:]), fir.flush()])
        ref = scipy.signal.oaconvolve(x, taps, "same")[::4]
        self.assertEqual(y.dtype, np.complex128)
        self.assertEqual(y.shape, ref.shape)
        self.assertLessEqual(rel_l2(y, ref), 1e-12)
        real = prism.FirFilter(taps, precision="double")
        out = np.concatenate([real.feed(x.real), real.flush()])
        self.assertEqual(out.dtype, np.float64)
        self.assertLessEqual(rel_l2(out, scipy.signal.lfilter(taps, 1, x.real)), 1e-12)
        with self.assertRaisesRegex(ValueError, "precision"):
            prism.FirFilter(taps, precision="half")

    def test_decimating_complex_same_is_oaconvolve(self):
        taps = scipy.signal.firwin(64, 0.2)
        x = self.rng.standard_normal(30001) + 1j * self.rng.standard_normal(30001)
        fir = prism.FirFilter(taps, complex_input=True, decimate=3, align="same")
        y = np.concatenate([fir.feed(x[:12345]), fir.feed(x[12345:]), fir.flush()])
        ref = scipy.signal.oaconvolve(x, taps, "same")[::3]
        self.assertEqual(y.dtype, np.complex64)
        self.assertEqual(y.shape, ref.shape)
        self.assertLessEqual(rel_l2(y, ref), 1e-5)

    def test_oaconvolve_matches_scipy(self):
        for n1, n2 in [(10000, 63), (63, 10000), (5000, 5000), (1, 7), (4097, 1024)]:
            for complex1, complex2 in [(False, False), (True, False), (False, True)]:
                a = self.rng.standard_normal(n1) + (1j * self.rng.standard_normal(n1) if complex1 else 0)
                b = self.rng.standard_normal(n2) + (1j * self.rng.standard_normal(n2) if complex2 else 0)
                for mode in ("full", "same", "valid"):
                    got = prism.oaconvolve(a, b, mode)
                    ref = scipy.signal.oaconvolve(a, b, mode)
                    where = f"{n1} x {n2}, complex {complex1}/{complex2}, {mode}"
                    self.assertEqual(got.shape, ref.shape, where)
                    self.assertEqual(got.dtype, np.complex64 if complex1 or complex2 else np.float32, where)
                    self.assertLessEqual(rel_l2(got, ref), 2e-5, where)
        with self.assertRaisesRegex(ValueError, "mode"):
            prism.oaconvolve(np.ones(10), np.ones(3), "bogus")
        with self.assertRaisesRegex(ValueError, "1-D"):
            prism.oaconvolve(np.ones((2, 10)), np.ones(3))

    def test_resample_poly_matches_scipy(self):
        x = self.rng.standard_normal(10007)
        for up, down in [(3, 2), (1, 50), (147, 160), (4, 4)]:
            y = prism.resample_poly(x, up, down)
            ref = scipy.signal.resample_poly(x, up, down)
            self.assertEqual(y.shape, ref.shape, (up, down))
            self.assertLessEqual(rel_l2(y, ref), 2e-6, (up, down))
        xc = np.stack([x, -x]) * (1 + 0.5j)
        window = scipy.signal.firwin(31, 0.3)
        y = prism.resample_poly(xc, 5, 3, axis=1, window=window)
        ref = scipy.signal.resample_poly(xc, 5, 3, axis=1, window=window)
        self.assertEqual(y.shape, ref.shape)
        self.assertLessEqual(rel_l2(y, ref), 2e-6)

    def test_any_stage_streams(self):
        x = (self.rng.standard_normal(20000) + 1j * self.rng.standard_normal(20000)).astype(np.complex64)
        whole = prism.Stage("fm", fs=48000, complex_input=True)
        ref = np.concatenate([whole.feed(x), whole.flush()])
        pieces = prism.Stage("fm", fs=48000, complex_input=True)
        y = np.concatenate([pieces.feed(x[:777]), pieces.feed(x[777:]), pieces.flush()])
        np.testing.assert_array_equal(y, ref)
        self.assertEqual(y.dtype, np.float32)
        with self.assertRaisesRegex(ValueError, "lowpas"):
            prism.Stage("fir:lowpas=3000", fs=48000)


class Graphs(unittest.TestCase):
    def test_run_collects_what_the_command_line_writes(self):
        chain = ["fir:lowpass=1000,numtaps=101,decimate=2", "spectrogram:nperseg=128"]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "a.npy")
            summary, rows = prism.run("gen:rate=8000,duration=1,tone=700", chain, [out], collect=True,
                                      backend="cpu")
            self.assertEqual(summary["outcome"], "completed")
            self.assertEqual(summary["samples_read"], 8000)
            self.assertEqual(rows.shape[1], 65)
            np.testing.assert_array_equal(np.load(out), rows)
            binary = os.environ.get("PRISM_BINARY")
            if binary:
                cli = os.path.join(tmp, "cli.npy")
                subprocess.run([binary, "run", "gen:rate=8000,duration=1,tone=700", "!", chain[0], "!",
                                chain[1], "-o", cli, "--backend", "cpu", "-q"], check=True)
                np.testing.assert_array_equal(np.load(cli), rows)
        with self.assertRaisesRegex(ValueError, "lowpas"):
            prism.run("gen:duration=1", ["fir:lowpas=3"])

    def test_run_collects_complex_and_double_rows_as_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            for spec, dtype in (("spectrogram:nperseg=64,mode=complex", np.complex64),
                                ("spectrogram:nperseg=64,precision=double", np.float64)):
                out = os.path.join(tmp, "a.npy")
                _, rows = prism.run("gen:rate=8000,duration=0.2,tone=700", [spec], [out], collect=True,
                                    backend="cpu")
                self.assertEqual(rows.dtype, dtype)
                np.testing.assert_array_equal(np.load(out), rows)
        # The streaming objects give float32: double rows are refused by name.
        with self.assertRaisesRegex(ValueError, "precision=double"):
            prism.Stage("spectrogram:precision=double", fs=8000)

    def test_run_collects_a_double_precision_filter_as_float64(self):
        source = "gen:rate=8000,duration=0.5,tone=700,tone=2500"
        _, x = prism.open(source)
        x = np.asarray(x, dtype=np.float64).ravel()
        want = scipy.signal.lfilter(prism.firwin(63, [1000.0], fs=8000), 1.0, x)
        for spec, dtype in (("fir:lowpass=1000,numtaps=63,precision=double", np.float64),
                            ("fir:lowpass=1000,numtaps=63,precision=double,shift=0", np.complex128)):
            _, y = prism.run(source, [spec], collect=True, backend="cpu")
            self.assertEqual(y.dtype, dtype)
            self.assertLess(rel_l2(y.ravel(), want), 1e-12)
        with self.assertRaisesRegex(ValueError, "precision=double"):
            prism.Stage("fir:lowpass=1000,numtaps=63,precision=double", fs=8000)

    def test_run_refuses_two_outputs_to_one_file_before_running(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "a.npy")
            sidecar = os.path.join(tmp, "a.json")
            meta = os.path.join(tmp, "b.sigmf-meta")
            # The same path twice, a .npy and its sidecar, and a SigMF pair named two ways.
            for outputs, file in (([out, out], out), ([out, sidecar], sidecar),
                                  ([meta, os.path.join(tmp, "b")], os.path.join(tmp, "b.sigmf-data"))):
                with self.assertRaises(ValueError) as raised:
                    prism.run("gen:duration=0.1", [], outputs)
                message = str(raised.exception)
                self.assertIn(f"'{outputs[0]}' and '{outputs[1]}' both write {file}", message)
                self.assertEqual(os.listdir(tmp), [])

    def test_open_reads_any_input(self):
        x = (np.arange(3000) % 17 - 8 + 1j).astype(np.complex64)
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "x.cf32")
            x.tofile(raw)
            info, samples = prism.open(raw, rate=1e6)
            self.assertEqual(info["format"], "cf32")
            self.assertEqual(info["sample_rate"], 1e6)
            np.testing.assert_array_equal(samples, x)
            with self.assertRaises(RuntimeError):
                prism.open(os.path.join(tmp, "missing.cf32"), rate=1e6)
            # Errors name this function's arguments, not the command line's options.
            for call, argument in ((lambda: prism.open(raw), "rate is required"),
                                   (lambda: prism.open(raw, rate=-1), "rate must be"),
                                   (lambda: prism.open(raw, rate=1, channels=0), "channels must be"),
                                   (lambda: prism.open("gen:rate=1000", rate=8000), "rate 8000 contradicts")):
                with self.assertRaises(ValueError) as caught:
                    call()
                self.assertIn(argument, str(caught.exception))
                self.assertNotIn("--", str(caught.exception))
        info, samples = prism.open("gen:rate=1000,duration=2")
        self.assertEqual(len(samples), 2000)
        self.assertEqual(info["length"], 2000)

    def test_input_settings_as_the_command_line(self):
        # The centre frequency labels any input; the SDR settings are refused for other inputs,
        # even at a default's value, and bad values name the argument.
        info, _ = prism.open("gen:duration=0.001", center_frequency=100e6)
        self.assertEqual(info["center_frequency"], 100e6)
        with tempfile.TemporaryDirectory() as tmp:
            meta = os.path.join(tmp, "g.sigmf-meta")
            prism.run("gen:duration=0.01", [], [meta], center_frequency=-2.5e3)
            with open(meta) as f:
                self.assertEqual(json.load(f)["captures"][0]["core:frequency"], -2.5e3)
        for kwargs, text in (({"gain": 0}, "are for SDR input (sdr:...), not for gen (generator)"),
                             ({"antenna": ""}, "are for SDR input"),
                             ({"sdr_open_timeout": 10}, "sdr_open_timeout"),
                             ({"center_frequency": float("nan")}, "center_frequency must be a finite number"),
                             ({"sdr_open_timeout": -1}, "sdr_open_timeout must be a finite number of 0 or more"),
                             ({"sdr_channel": -1}, "sdr_channel must be 0 or more")):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaises(ValueError) as caught:
                    prism.open("gen", max_samples=10, **kwargs)
                self.assertIn(text, str(caught.exception))
                self.assertNotIn("--", str(caught.exception))
        # A value of the wrong type, a bool included (False would be a timeout of 0: for ever).
        for kwargs, text in (({"gain": "loud"}, "gain must be a number, not 'loud'"),
                             ({"sdr_open_timeout": False}, "sdr_open_timeout must be a number, not False"),
                             ({"sdr_channel": 1.5}, "sdr_channel must be a whole number, not 1.5"),
                             ({"antenna": 3}, "antenna must be a string, not 3")):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaises(TypeError) as caught:
                    prism.open("gen", max_samples=10, **kwargs)
                self.assertIn(text, str(caught.exception))

    def test_sdr_settings_reach_the_device(self):
        # tests/faults' SoapySDR module: one RX channel, tunes 1 MHz to 1 GHz, no antennas and
        # no gain listed, streams zeros at 1 MS/s.
        skip_without_sdr_test_module(self)
        sdr = "sdr:driver=prism_hang"
        info, samples = prism.open(sdr, max_samples=1000, center_frequency=433.92e6, sdr_open_timeout=30)
        self.assertEqual(info["center_frequency"], 433.92e6)
        self.assertEqual(len(samples), 1000)
        for kwargs, text in (({"sdr_channel": 1}, "sdr_channel 1: "),
                             ({"antenna": "RX2"}, "antenna 'RX2' is not one of"),
                             ({"gain": 20}, "gain 20 is outside"),
                             ({"center_frequency": 2e9}, "center_frequency 2000000000 is outside")):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaises(ValueError) as caught:
                    prism.open(sdr, max_samples=10, **kwargs)
                self.assertIn(text, str(caught.exception))

    def test_ctrl_c_ends_a_device_that_hangs_while_it_opens(self):
        # The module's device hangs in make (hang=make) and the deadline is off: the open runs
        # away from the interpreter, so Ctrl-C still reaches it. In a child process, which ends
        # with os._exit: the hung call stays behind, and the module's static state would wait
        # for it at exit.
        skip_without_sdr_test_module(self)
        with tempfile.TemporaryDirectory() as tmp:
            hanging = os.path.join(tmp, "hanging")
            script = ("import os, prism\n"
                      "try:\n"
                      f"    prism.open('sdr:driver=prism_hang,hang=make,hang_file={hanging}', max_samples=10,\n"
                      "               sdr_open_timeout=0)\n"
                      "    print('opened', flush=True)\n"
                      "except KeyboardInterrupt:\n"
                      "    print('interrupted', flush=True)\n"
                      "os._exit(0)\n")
            child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
            try:
                deadline = time.monotonic() + 30
                while not os.path.exists(hanging) and child.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertTrue(os.path.exists(hanging), "the driver's make was never called")
                child.send_signal(signal.SIGINT)
                out, err = child.communicate(timeout=20)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
            self.assertEqual(out.strip(), "interrupted", err)


class Interpreter(unittest.TestCase):
    def long_filter(self):
        # Seconds of work on one thread, 128 blocks of 2^18 samples: a long filter over 2^25
        # samples, so that an interrupt after 50 ms leaves most of the call undone even when
        # the machine is loaded.
        fir = prism.FirFilter(scipy.signal.firwin(4001, 0.1), threads=1)
        x = np.ones(1 << 25, dtype=np.float32)
        return fir, x

    def test_gil_is_released_during_a_long_call(self):
        fir, x = self.long_filter()
        ticks = 0
        worker = threading.Thread(target=fir.feed, args=(x,))
        worker.start()
        while worker.is_alive():
            ticks += 1
            time.sleep(0.001)
        worker.join()
        self.assertGreater(ticks, 20, "the main thread did not run while prism worked")

    def test_ctrl_c_interrupts_a_long_call(self):
        fir, x = self.long_filter()
        start = time.monotonic()
        fir.feed(x)
        whole_call = time.monotonic() - start  # the same call, not interrupted
        fir.reset()
        timer = threading.Timer(0.05, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            fir.feed(x)
        elapsed = time.monotonic() - start
        timer.join()
        self.assertLess(elapsed, whole_call / 2, "the call ran on after Ctrl-C")

    def test_ctrl_c_stops_an_endless_run(self):
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            prism.run("gen:rate=1e6,duration=inf", ["spectrogram:nperseg=1024,noverlap=0,average=64"],
                      backend="cpu")
        timer.join()
        self.assertLess(time.monotonic() - start, 10.0)


if __name__ == "__main__":
    unittest.main()
