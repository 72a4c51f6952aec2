"""prism design against scipy.signal: the taps it writes (.npy, .txt, .json) equal firwin's /
kaiserord's to 1e-12 for every band kind and way of giving the length; the figures it prints
equal a dense scipy.signal.freqz; the scipy lines it prints make the same taps; --plot draws a
PNG; every bad value is a usage error (exit 2) naming the option and its range, and writes
nothing.
"""
import json
import math
import os
import re

import numpy as np
from scipy import signal

from prism_test_util import TempDirTestCase, main, run_prism


def scipy_window(text):
    if ":" in text:
        name, parameter = text.split(":", 1)
        return (name, float(parameter))
    return text


def max_rel(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def printed(stdout, name):
    """The value printed on the line '  NAME   VALUE'."""
    match = re.search(r"^  %s\s+(.+)$" % re.escape(name), stdout, re.MULTILINE)
    if match is None:
        raise AssertionError("no '%s' line in:\n%s" % (name, stdout))
    return match.group(1)


def complex_bandpass(numtaps, f_low, f_high, fs, window):
    prototype = signal.firwin(numtaps, (f_high - f_low) / 2, window=window, fs=fs)
    n = np.arange(numtaps) - (numtaps - 1) / 2
    return prototype * np.exp(2j * np.pi * ((f_low + f_high) / 2 / fs) * n)


# (prism arguments, the band for scipy) -> scipy's taps, computed in the test.
BANDS = {
    "lowpass": lambda v: ("--lowpass", str(v[0]), "lowpass", v[0]),
    "highpass": lambda v: ("--highpass", str(v[0]), "highpass", v[0]),
    "bandpass": lambda v: ("--bandpass", "%r:%r" % tuple(v), "bandpass", list(v)),
    "bandstop": lambda v: ("--bandstop", "%r:%r" % tuple(v), "bandstop", list(v)),
}


class DesignMatchesScipy(TempDirTestCase):

    def design(self, *args, check=0):
        return run_prism("design", *args, check=check)

    def test_numtaps_and_window(self):
        cases = [
            ("lowpass", [3000.0], 48000.0, 101, "hamming"),
            ("lowpass", [0.1], 2.0, 4, "hann"),
            ("lowpass", [12e3], 2.4e6, 1000, "blackman"),
            ("highpass", [100.0], 44100.0, 1001, "kaiser:8.6"),
            ("highpass", [7000.0], 16000.0, 31, "boxcar"),
            ("bandpass", [300.0, 3400.0], 8000.0, 255, "blackmanharris"),
            ("bandpass", [300.0, 3400.0], 8000.0, 256, "flattop"),
            ("bandstop", [49.0, 51.0], 1000.0, 2001, "tukey:0.25"),
            ("bandstop", [1e5, 2e5], 1e6, 63, "tukey"),
            ("lowpass", [2000.0], 48000.0, 65535, "kaiser:12"),
        ]
        for kind, edges, fs, numtaps, window in cases:
            with self.subTest(kind=kind, edges=edges, fs=fs, numtaps=numtaps, window=window):
                option, value, pass_zero, cutoff = BANDS[kind](edges)
                out = self.path("taps.npy")
                proc = self.design(option, value, "--rate", repr(fs), "--numtaps", numtaps, "--window", window,
                                   "-o", out)
                h = np.load(out)
                self.assertEqual(h.dtype, np.float64)
                expected = signal.firwin(numtaps, cutoff, window=scipy_window(window), pass_zero=pass_zero, fs=fs)
                self.assertLessEqual(max_rel(h, expected), 1e-12)
                self.assertEqual(int(printed(proc.stdout, "numtaps")), numtaps)
                self.assertEqual(float(printed(proc.stdout, "group delay").split()[0]), (numtaps - 1) / 2)

    def test_kaiserord(self):
        cases = [
            ("lowpass", [3000.0], 48000.0, 500.0, 80.0),
            ("lowpass", [175.0], 1000.0, 24.0, 65.0),
            ("highpass", [5000.0], 48000.0, 300.0, 60.0),  # kaiserord: 582, raised to 583
            ("highpass", [5000.0], 48000.0, 1000.0, 21.0),
            ("bandpass", [9e3, 15e3], 48000.0, 1000.0, 40.0),
            ("bandstop", [50e3, 60e3], 1e6, 4e3, 45.0),
            ("bandstop", [50e3, 60e3], 1e6, 4001.0, 45.0),  # kaiserord: 646, raised to 647
            ("bandstop", [50e3, 60e3], 1e6, 3e3, 120.0),
        ]
        raised = 0
        for kind, edges, fs, width, attenuation in cases:
            with self.subTest(kind=kind, edges=edges, fs=fs, width=width, attenuation=attenuation):
                option, value, pass_zero, cutoff = BANDS[kind](edges)
                out = self.path("taps.npy")
                proc = self.design(option, value, "--rate", repr(fs), "--transition", repr(width),
                                   "--attenuation", repr(attenuation), "-o", out)
                numtaps, beta = signal.kaiserord(attenuation, width / (0.5 * fs))
                if kind in ("highpass", "bandstop") and numtaps % 2 == 0:
                    numtaps += 1  # firwin needs odd taps to pass fs/2
                    raised += 1
                expected = signal.firwin(numtaps, cutoff, window=("kaiser", beta), pass_zero=pass_zero, fs=fs)
                h = np.load(out)
                self.assertEqual(len(h), numtaps)
                self.assertLessEqual(max_rel(h, expected), 1e-12)
                self.assertEqual(int(printed(proc.stdout, "numtaps")), numtaps)
                self.assertAlmostEqual(float(printed(proc.stdout, "beta")), beta, places=12)
        self.assertEqual(raised, 2)

    def test_numtaps_and_transition_is_firwins_width(self):
        out = self.path("taps.npy")
        self.design("--bandpass", "1000:2000", "--rate", "8000", "--numtaps", "151", "--transition", "150",
                    "-o", out)
        expected = signal.firwin(151, [1000, 2000], width=150, pass_zero="bandpass", fs=8000)
        self.assertLessEqual(max_rel(np.load(out), expected), 1e-12)

    def test_complex_bandpass(self):
        cases = [
            ([-3000.0, -300.0], 8000.0, ["--numtaps", "101"], 101, "hamming"),
            ([300.0, 3000.0], 8000.0, ["--numtaps", "100", "--window", "blackman"], 100, "blackman"),
            ([-12e3, -2e3], 2.4e6, ["--transition", "1e3", "--attenuation", "70"], None, None),
            ([-20e3, 5e3], 250e3, ["--transition", "2e3", "--attenuation", "80"], None, None),
        ]
        # A negative first edge is a value, also without "=".
        proc = self.design("--complex-bandpass", "-3000:-300", "--rate", "8000", "--numtaps", "11")
        self.assertIn("complex-bandpass -3000 Hz to -300 Hz", proc.stdout)
        for edges, fs, length, numtaps, window in cases:
            with self.subTest(edges=edges, fs=fs, length=length):
                out = self.path("taps.npy")
                # "=" keeps a negative first edge from reading as an option.
                proc = self.design("--complex-bandpass=%r:%r" % tuple(edges), "--rate", repr(fs), *length, "-o", out)
                if numtaps is None:
                    numtaps, beta = signal.kaiserord(float(length[3]), float(length[1]) / (0.5 * fs))
                    window = ("kaiser", beta)
                h = np.load(out)
                self.assertEqual(h.dtype, np.complex128)
                expected = complex_bandpass(numtaps, edges[0], edges[1], fs, scipy_window(window)
                                            if isinstance(window, str) else window)
                self.assertLessEqual(max_rel(h, expected), 1e-12)
                # The band passes, its mirror does not.
                centre = (edges[0] + edges[1]) / 2
                _, response = signal.freqz(h, worN=[centre, -centre], fs=fs)
                self.assertAlmostEqual(abs(response[0]), 1.0, places=9)
                self.assertLess(abs(response[1]), 10 ** (-40 / 20))
                self.assertIn("complex", proc.stdout)

    def test_text_and_json_hold_the_same_taps(self):
        for kind, args in (("real", ["--lowpass", "1000"]), ("complex", ["--complex-bandpass=-900:100"])):
            with self.subTest(kind=kind):
                base = [*args, "--rate", "8000", "--numtaps", "63"]
                self.design(*base, "-o", self.path("t.npy"))
                self.design(*base, "-o", self.path("t.txt"))
                self.design(*base, "-o", self.path("t.json"))
                h = np.load(self.path("t.npy"))
                dtype = np.complex128 if kind == "complex" else np.float64
                text = np.loadtxt(self.path("t.txt"), dtype=dtype)
                np.testing.assert_array_equal(text, h)
                with open(self.path("t.json")) as f:
                    data = json.load(f)
                values = np.array([complex(*v) if isinstance(v, list) else v for v in data])
                np.testing.assert_array_equal(values, h)
                with open(self.path("t.txt")) as f:
                    self.assertTrue(f.readline().startswith("# "), "the text file starts with a comment")

    def test_printed_scipy_lines_make_the_same_taps(self):
        for args in (["--lowpass", "3000", "--rate", "48000", "--numtaps", "101", "--window", "kaiser:7.5"],
                     ["--bandstop", "1000:1500", "--rate", "8000", "--transition", "100", "--attenuation", "50"],
                     ["--highpass", "300", "--rate", "8000", "--numtaps", "99", "--transition", "200"],
                     ["--complex-bandpass=-1200:-300", "--rate", "8000", "--transition", "100",
                      "--attenuation", "60"]):
            with self.subTest(args=args):
                out = self.path("taps.npy")
                proc = self.design(*args, "-o", out)
                code = proc.stdout.split("scipy.signal equivalent:\n", 1)[1].split("wrote", 1)[0]
                scope = {"np": np, "firwin": signal.firwin, "kaiserord": signal.kaiserord}
                exec("\n".join(line.strip() for line in code.splitlines()), scope)
                self.assertLessEqual(max_rel(np.load(out), scope["h"]), 1e-12)

    def test_figures_equal_a_dense_freqz(self):
        for args in (["--lowpass", "1000", "--rate", "8000", "--transition", "200", "--attenuation", "60"],
                     ["--bandpass", "3000:6000", "--rate", "44100", "--numtaps", "255", "--window", "hann"],
                     ["--complex-bandpass=-20000:5000", "--rate", "250000", "--transition", "2000",
                      "--attenuation", "80"]):
            with self.subTest(args=args):
                out = self.path("taps.npy")
                proc = self.design(*args, "-o", out)
                h = np.load(out)
                fs = float(args[args.index("--rate") + 1])

                def bands(name):
                    text = printed(proc.stdout, name)
                    return [(float(a), float(b)) for a, b in re.findall(r"(-?[\d.e+]+) to (-?[\d.e+]+) Hz", text)]

                w, response = signal.freqz(h, worN=1 << 20, whole=True, fs=fs)
                w = np.where(w >= fs / 2, w - fs, w)
                magnitude = 20 * np.log10(np.abs(response))
                pass_values = np.concatenate([magnitude[(w >= a) & (w <= b)] for a, b in bands("passband")])
                stop_values = np.concatenate([magnitude[(w >= a) & (w <= b)] for a, b in bands("stopband")])
                ripple = float(printed(proc.stdout, "passband ripple").split()[0])
                attenuation = float(printed(proc.stdout, "stopband atten.").split()[0])
                # Printed to 4 significant digits / 0.01 dB; the bands to 7 digits.
                self.assertAlmostEqual(ripple, pass_values.max() - pass_values.min(),
                                       delta=max(2e-3 * ripple, 1e-4))
                self.assertAlmostEqual(attenuation, -stop_values.max(), delta=0.02)

    def test_plot(self):
        png = self.path("response.png")
        self.design("--bandpass", "300:3400", "--rate", "8000", "--numtaps", "255", "--plot", png)
        from PIL import Image
        image = Image.open(png).convert("RGB")
        self.assertEqual(image.size, (1000, 560))
        pixels = np.asarray(image).reshape(-1, 3).astype(int)
        # The response's blue and the band edges' red are drawn.
        blue = np.sum((pixels[:, 2] > 150) & (pixels[:, 0] < 80))
        red = np.sum((pixels[:, 0] > 170) & (pixels[:, 1] < 80) & (pixels[:, 2] < 80))
        self.assertGreater(blue, 500)
        self.assertGreater(red, 100)


class DesignUsageErrors(TempDirTestCase):
    """Each bad value: exit 2, the option and its range named, nothing written."""

    def expect_usage(self, args, *words):
        proc = run_prism("design", *args, "-o", self.path("t.npy"), "--plot", self.path("t.png"))
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        for word in words:
            self.assertIn(word, proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [], "nothing written")

    def test_bad_values(self):
        lp = ["--lowpass", "1000", "--rate", "8000"]
        cases = [
            (["--lowpass", "5000", "--rate", "8000", "--numtaps", "11"], "--lowpass", "between 0 and 4000 Hz"),
            (["--lowpass", "0", "--rate", "8000", "--numtaps", "11"], "--lowpass", "between 0 and 4000 Hz"),
            (["--lowpass", "abc", "--rate", "8000", "--numtaps", "11"], "--lowpass", "0 < F < rate/2"),
            (["--highpass", "1000", "--rate", "8000", "--numtaps", "10"], "--numtaps", "odd", "try 11"),
            (["--bandpass", "2000:1000", "--rate", "8000", "--numtaps", "11"], "--bandpass", "increase"),
            (["--bandpass", "1000", "--rate", "8000", "--numtaps", "11"], "--bandpass", "F1:F2"),
            (["--bandstop", "1000:5000", "--rate", "8000", "--numtaps", "11"], "--bandstop", "4000 Hz"),
            (["--complex-bandpass=-5000:100", "--rate", "8000", "--numtaps", "11"], "--complex-bandpass",
             "[-4000, 4000]"),
            (["--complex-bandpass=-4000:4000", "--rate", "8000", "--numtaps", "11"], "--complex-bandpass",
             "narrower than the sample rate"),
            (["--lowpass", "1000", "--numtaps", "11"], "--rate"),
            (["--lowpass", "1000", "--rate", "-8000", "--numtaps", "11"], "--rate", "positive"),
            (["--lowpass", "1000", "--rate", "fast", "--numtaps", "11"], "--rate", "positive number"),
            ([*lp, "--numtaps", "0"], "--numtaps", "1..4194304"),
            ([*lp, "--numtaps", "4194305"], "--numtaps", "1..4194304"),
            ([*lp, "--numtaps", "-3"], "--numtaps", "1..4194304"),
            ([*lp, "--numtaps", "1.5"], "--numtaps", "whole number"),
            ([*lp], "--numtaps N", "--transition W"),
            ([*lp, "--transition", "100"], "--transition", "--attenuation"),
            ([*lp, "--attenuation", "60"], "--attenuation", "--transition"),
            ([*lp, "--transition", "0", "--attenuation", "60"], "--transition", "between 0 and 4000 Hz"),
            ([*lp, "--transition", "0.001", "--attenuation", "60"], "--transition", "too narrow", "at least"),
            ([*lp, "--transition", "100", "--attenuation", "5"], "--attenuation", "8 to 300 dB"),
            ([*lp, "--transition", "100", "--attenuation", "400"], "--attenuation", "8 to 300 dB"),
            ([*lp, "--numtaps", "11", "--attenuation", "60"], "--attenuation", "--transition"),
            ([*lp, "--numtaps", "11", "--window", "foo"], "--window", "unknown window", "blackmanharris"),
            ([*lp, "--numtaps", "11", "--window", "kaiser"], "--window", "beta"),
            ([*lp, "--transition", "100", "--attenuation", "60", "--window", "hann"], "--window", "Kaiser"),
            ([*lp, "--highpass", "2000", "--numtaps", "11"], "only one of"),
            (["--rate", "8000", "--numtaps", "11"], "--lowpass F", "--complex-bandpass"),
        ]
        for args, *words in cases:
            with self.subTest(args=args):
                self.expect_usage(args, *words)

    def test_bad_outputs(self):
        base = ["design", "--lowpass", "1000", "--rate", "8000", "--numtaps", "11"]
        proc = run_prism(*base, "-o", self.path("taps.bin"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn(".npy", proc.stderr)
        proc = run_prism(*base, "--plot", self.path("plot.jpg"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--plot", proc.stderr)
        self.assertIn(".png", proc.stderr)
        proc = run_prism(*base, "-o", self.path("no/such/dir/taps.npy"))
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no/such/dir", proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_help_teaches(self):
        proc = run_prism("design", "--help", check=0)
        for word in ("--complex-bandpass", "kaiserord", "Examples:", "prism design --lowpass", "blackmanharris"):
            self.assertIn(word, proc.stdout)


if __name__ == "__main__":
    main()
