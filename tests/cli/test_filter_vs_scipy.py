"""prism filter and the fir stage of prism run against scipy, end to end: the taps designed as
scipy.signal.firwin / kaiserord make, the filtering as scipy.signal.lfilter (causal) or oaconvolve
(same), the shift as x·exp(-j2π·f·n/fs), decimation as [::D], every output's rate and centre
frequency; real and complex input (float and integer formats), real and complex taps (designed or
from a file), SigMF and .npy outputs. Relative L2 error at most 2e-5 in float32, 1e-12 with
--precision double (on the GPU backends too, where an FFT length shorter than the taps is refused:
exit 2, naming it).
"""
import json
import os

import numpy as np
from scipy import signal

import prism_test_util
from prism_test_util import TempDirTestCase, rel_l2, run_prism, write_sigmf

RATE = 48000.0


def firwin_taps(kind, edges, rate, numtaps=None, transition=None, attenuation=None, window="hamming"):
    nyq = rate / 2
    if numtaps is None:
        numtaps, beta = signal.kaiserord(attenuation, transition / nyq)
        if kind in ("highpass", "bandstop") and numtaps % 2 == 0:
            numtaps += 1
        window = ("kaiser", beta)
    pass_zero = {"lowpass": True, "highpass": False, "bandpass": False, "bandstop": True}[kind]
    return signal.firwin(numtaps, edges, window=window, pass_zero=pass_zero, fs=rate)


def reference(x, h, rate, shift=None, decimate=1, align="causal"):
    n = np.arange(x.size)
    if shift is not None:
        # The phase's fraction of a turn exactly, in integers (shift·n/rate in floating point loses
        # about 1e-16 of its value: 3e-12 of a turn after 30000 samples).
        assert float(shift).is_integer() and float(rate).is_integer()
        cycles = np.mod(int(shift) * n, int(rate)) / rate
        x = x * np.exp(-2j * np.pi * cycles)
    if align == "causal":
        y = signal.lfilter(h, 1.0, x)
    else:
        y = signal.oaconvolve(x, h, mode="same")
    return y[::decimate]


class FilterVsScipy(TempDirTestCase):
    def input(self, name, x, datatype="cf32_le", center=0.0):
        base = self.path(name)
        write_sigmf(base, RATE, x, datatype, center=center)
        return base + ".sigmf-meta"

    def read_output(self, path):
        with open(path) as f:
            meta = json.load(f)
        dtype = {"cf32_le": np.complex64, "rf32_le": np.float32, "cf64_le": np.complex128,
                 "rf64_le": np.float64}[meta["global"]["core:datatype"]]
        data = np.fromfile(os.path.splitext(path)[0] + ".sigmf-data", dtype=dtype)
        return data, meta

    def check(self, label, x, h, options, *, shift=None, decimate=1, align="causal", datatype="cf32_le",
              scale=1.0, center=0.0, use_run=False):
        inp = self.input(label, x, datatype, center)
        out = self.path(label + "_out.sigmf-meta")
        if use_run:
            keys = ",".join(f"{k}={v}" for k, v in options.items())
            run_prism("run", inp, "!", f"fir:{keys}", "-o", out, "-q", check=0)
        else:
            flags = [item for k, v in options.items() for item in (f"--{k.replace('_', '-')}", str(v))]
            run_prism("filter", inp, "-o", out, *flags, "-q", check=0)
        y, meta = self.read_output(out)
        want = reference(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64) * scale, h, RATE,
                         shift, decimate, align)
        self.assertEqual(y.size, want.size, label)
        self.assertEqual(np.iscomplexobj(y), np.iscomplexobj(want) or np.iscomplexobj(h) or shift is not None, label)
        self.assertLessEqual(rel_l2(y, want), 2e-5, label)
        self.assertAlmostEqual(meta["global"]["core:sample_rate"], RATE / decimate, msg=label)
        self.assertAlmostEqual(meta["captures"][0].get("core:frequency", 0.0), center + (shift or 0.0), msg=label)

    def test_parameter_sets(self):
        rng = np.random.default_rng(3)
        real = rng.uniform(-0.5, 0.5, 20011).astype(np.float32)
        iq = (rng.uniform(-0.5, 0.5, 20011) + 1j * rng.uniform(-0.5, 0.5, 20011)).astype(np.complex64)
        cases = [
            ("lowpass_real", real, "rf32_le", {"lowpass": 3000, "numtaps": 101}, {}),
            ("lowpass_even", real, "rf32_le", {"lowpass": 5000, "numtaps": 64}, {}),
            ("highpass_same", real, "rf32_le", {"highpass": 8000, "numtaps": 201, "align": "same"}, {"align": "same"}),
            ("bandpass_kaiser", iq, "cf32_le",
             {"bandpass": "2000:6000", "transition": 500, "attenuation": 70}, {}),
            ("bandstop_blackman", real, "rf32_le",
             {"bandstop": "4000:9000", "numtaps": 151, "window": "blackman"}, {}),
            ("lowpass_decimate8", iq, "cf32_le", {"lowpass": 2500, "numtaps": 255, "decimate": 8}, {"decimate": 8}),
            ("shift_decimate", iq, "cf32_le", {"lowpass": 2000, "numtaps": 301, "shift": -7000, "decimate": 6},
             {"shift": -7000, "decimate": 6}),
            ("real_shifted", real, "rf32_le", {"lowpass": 1500, "numtaps": 127, "shift": 5000},
             {"shift": 5000}),
            ("same_decimate64", iq, "cf32_le",
             {"lowpass": 300, "numtaps": 1023, "align": "same", "decimate": 64}, {"align": "same", "decimate": 64}),
            ("long_kaiser", real, "rf32_le",
             {"lowpass": 1000, "transition": 50, "attenuation": 80}, {}),
        ]
        for label, x, datatype, options, extra in cases:
            with self.subTest(label):
                kind = next(k for k in ("lowpass", "highpass", "bandpass", "bandstop") if k in options)
                edges = options[kind]
                edges = [float(e) for e in edges.split(":")] if isinstance(edges, str) else float(edges)
                h = firwin_taps(kind, edges, RATE, options.get("numtaps"), options.get("transition"),
                                options.get("attenuation"), options.get("window", "hamming"))
                self.check(label, x, h, options, datatype=datatype, use_run=label.endswith("same"), **extra)

    def test_integer_input_is_scaled(self):
        rng = np.random.default_rng(4)
        raw = rng.integers(-20000, 20000, size=(9001, 2)).astype(np.int16)
        h = firwin_taps("lowpass", 4000.0, RATE, 77)
        iq = raw[:, 0] + 1j * raw[:, 1]
        base = self.path("ci16")
        write_sigmf(base, RATE, raw, "ci16_le")
        out = self.path("ci16_out.sigmf-meta")
        run_prism("filter", base + ".sigmf-meta", "-o", out, "--lowpass", 4000, "--numtaps", 77, "-q", check=0)
        y, _ = self.read_output(out)
        self.assertLessEqual(rel_l2(y, signal.lfilter(h, 1.0, iq / 32768.0)), 2e-5)

    def test_complex_taps_from_a_file_and_npy_output(self):
        rng = np.random.default_rng(5)
        x = rng.uniform(-0.5, 0.5, 7001).astype(np.float32)
        h = (rng.normal(size=40) + 1j * rng.normal(size=40)) * 0.05
        np.save(self.path("taps.npy"), h)
        inp = self.input("real", x, "rf32_le")
        out = self.path("filtered.npy")
        run_prism("filter", inp, "-o", out, "--taps", self.path("taps.npy"), "--decimate", 3, "-q", check=0)
        y = np.load(out)
        with open(self.path("filtered.json")) as f:
            sidecar = json.load(f)
        self.assertEqual(y.dtype, np.complex64)
        self.assertEqual(sidecar["sample_rate"], RATE / 3)
        self.assertLessEqual(rel_l2(y, signal.lfilter(h, 1.0, x.astype(np.float64))[::3]), 2e-5)

    def test_designed_taps_equal_prism_design(self):
        # The fir stage's design is prism design's (and scipy's): the same taps filter the same.
        rng = np.random.default_rng(6)
        x = rng.uniform(-0.5, 0.5, 5000).astype(np.float32)
        run_prism("design", "--bandpass", "1000:3000", "--rate", RATE, "--transition", 400, "--attenuation", 60,
                  "-o", self.path("bp.npy"), check=0)
        inp = self.input("x", x, "rf32_le")
        run_prism("filter", inp, "-o", self.path("a.sigmf-meta"), "--taps", self.path("bp.npy"), "-q", check=0)
        run_prism("filter", inp, "-o", self.path("b.sigmf-meta"), "--bandpass", "1000:3000", "--transition", 400,
                  "--attenuation", 60, "-q", check=0)
        a, _ = self.read_output(self.path("a.sigmf-meta"))
        b, _ = self.read_output(self.path("b.sigmf-meta"))
        np.testing.assert_array_equal(a, b)

    def test_filter_into_a_spectrogram(self):
        # A chain: the filtered signal's spectrogram shows the tone the filter passes, not the
        # one it stops.
        out = self.path("spec.npy")
        summary = self.path("summary.json")
        run_prism("run", "gen:rate=48000,tone=1000@0.5,tone=9000@0.5,duration=2", "!",
                  "fir:lowpass=3000,transition=500,attenuation=80", "-o", f"spectrogram:nperseg=1024,db ! {out}",
                  "--summary-json", summary, "-q", check=0)
        rows, meta = prism_test_util.load_npy_with_sidecar(out)
        freqs = np.asarray(meta["frequencies"])
        mean = rows[5:-5].mean(axis=0)
        level = lambda f: mean[np.argmin(np.abs(freqs - f))]
        self.assertGreater(level(1000) - level(9000), 70)
        with open(summary) as f:
            self.assertEqual(json.load(f)["accounting"], "balanced")

    def test_double_precision(self):
        # float64 input that float32 cannot hold, and int32 samples beyond float's 24 bits: every path
        # (real packed, complex, shift, folded decimation, same, a partitioned long filter; chains
        # with resample, shift and gain) within 1e-12 of scipy in float64, where float32 arithmetic
        # would be about 1e-7 off.
        rng = np.random.default_rng(7)
        real = rng.uniform(-0.5, 0.5, 30011)
        iq = rng.uniform(-0.5, 0.5, 30011) + 1j * rng.uniform(-0.5, 0.5, 30011)
        cases = [
            ("real", real, "rf64_le", {"lowpass": 3000, "numtaps": 101}, {}),
            ("complex_same", iq, "cf64_le", {"bandpass": "2000:6000", "numtaps": 255, "align": "same"},
             {"align": "same"}),
            ("shift_decimate", iq, "cf64_le", {"lowpass": 2000, "numtaps": 301, "shift": -7000, "decimate": 8},
             {"shift": -7000, "decimate": 8}),
            ("real_shifted", real, "rf64_le", {"lowpass": 1500, "numtaps": 127, "shift": 5000}, {"shift": 5000}),
            ("partitioned", real, "rf64_le", {"lowpass": 1000, "numtaps": 4001, "fft_length": 1024, "decimate": 4},
             {"decimate": 4}),
        ]
        for label, x, datatype, options, extra in cases:
            with self.subTest(label):
                kind = next(k for k in ("lowpass", "bandpass") if k in options)
                edges = options[kind]
                edges = [float(e) for e in edges.split(":")] if isinstance(edges, str) else float(edges)
                h = firwin_taps(kind, edges, RATE, options["numtaps"])
                inp = self.input("d_" + label, x, datatype)
                out = self.path("d_" + label + "_out.sigmf-meta")
                flags = [item for k, v in options.items() for item in (f"--{k.replace('_', '-')}", str(v))]
                proc = run_prism("filter", inp, "-o", out, *flags, "--precision", "double", "-q")
                if prism_test_util.BACKEND in ("cuda", "cufft") and label == "partitioned":
                    # The GPU fir in double computes one spectrum per segment: no partitions.
                    self.assertEqual(proc.returncode, 2, proc.stderr)
                    self.assertIn("--fft-length=1024: the GPU filter in double takes a length from the tap count",
                                  proc.stderr)
                    continue
                self.assertEqual(proc.returncode, 0, proc.stderr)
                y, meta = self.read_output(out)
                self.assertEqual(y.dtype, np.complex128 if datatype == "cf64_le" or "shift" in options else np.float64)
                want = reference(x, h, RATE, extra.get("shift"), extra.get("decimate", 1), extra.get("align", "causal"))
                self.assertEqual(y.size, want.size)
                self.assertLessEqual(rel_l2(y, want), 1e-12)
                self.assertAlmostEqual(meta["global"]["core:sample_rate"], RATE / extra.get("decimate", 1))
        # int32 samples near full scale (beyond float's 24 bits), into .npy float64 through prism run.
        raw = rng.integers(-2**31, 2**31 - 1, size=9001, dtype=np.int64).astype(np.int32)
        base = self.path("i32")
        write_sigmf(base, RATE, raw, "ri32_le")
        out = self.path("i32_out.npy")
        run_prism("run", base + ".sigmf-meta", "!", "fir:lowpass=4000,numtaps=77,precision=double", "-o", out,
                  "-q", check=0)
        y = np.load(out)
        self.assertEqual(y.dtype, np.float64)
        want = signal.lfilter(firwin_taps("lowpass", 4000.0, RATE, 77), 1.0, raw / 2.0**31)
        self.assertLessEqual(rel_l2(y, want), 1e-12)
        # Raw float64 out by its extension: the same samples as the .npy.
        run_prism("run", base + ".sigmf-meta", "!", "fir:lowpass=4000,numtaps=77,precision=double", "-o",
                  self.path("i32_out.f64"), "-q", check=0)
        np.testing.assert_array_equal(np.fromfile(self.path("i32_out.f64"), dtype=np.float64), y)
        if prism_test_util.BACKEND in ("cuda", "cufft"):
            return  # resample, shift and gain compute in single precision on a GPU
        # A chain in double: the shifted, decimated channel resampled to 8 kHz (resample_poly 4/3).
        inp = self.input("d_chain", iq, "cf64_le")
        out = self.path("d_chain_out.npy")
        run_prism("run", inp, "!", "fir:lowpass=2000,numtaps=301,shift=-7000,decimate=8,precision=double", "!",
                  "resample:8000,precision=double", "-o", out, "-q", check=0)
        y = np.load(out)
        self.assertEqual(y.dtype, np.complex128)
        h = firwin_taps("lowpass", 2000.0, RATE, 301)
        want = signal.resample_poly(reference(iq, h, RATE, -7000, 8), 4, 3)
        self.assertEqual(y.size, want.size)
        self.assertLessEqual(rel_l2(y, want), 1e-12)
        # The shift and the gain as stages of their own, in double around a double fir.
        out = self.path("d_stages_out.npy")
        run_prism("run", inp, "!", "shift:-7000,precision=double", "!",
                  "fir:lowpass=2000,numtaps=301,decimate=8,precision=double", "!", "gain:-6,precision=double",
                  "-o", out, "-q", check=0)
        y = np.load(out)
        self.assertEqual(y.dtype, np.complex128)
        want = reference(iq, h, RATE, -7000, 8) * 10 ** (-6 / 20)
        self.assertEqual(y.size, want.size)
        self.assertLessEqual(rel_l2(y, want), 1e-12)

    def test_bad_values_are_usage_errors(self):
        inp = self.input("bad", np.zeros(100, np.complex64))
        out = self.path("bad_out.sigmf-meta")
        for args, message in [
            (["--lowpass", 30000, "--numtaps", 11], "--lowpass: "),
            (["--lowpass", 100], "--numtaps: give numtaps=N"),
            (["--lowpass", 100, "--highpass", 200, "--numtaps", 5], "give one filter, not --lowpass, --highpass"),
            (["--lowpass", 100, "--numtaps", 11, "--decimate", 0], "--decimate: 0 is out of range"),
            (["--lowpass", 100, "--numtaps", -3], "--numtaps: -3 is out of range"),
            (["--bandpass", "300", "--numtaps", 11], "--bandpass: '300' is not F1:F2"),
        ]:
            with self.subTest(args=args):
                proc = run_prism("filter", inp, "-o", out, *args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(message, proc.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    prism_test_util.main()
