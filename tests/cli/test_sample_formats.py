"""Every sample format prism reads, against numpy's reading of the same bytes.

SigMF recordings of every core datatype (cf64, cf32, ci32, ci16, ci8, cu32, cu16, cu8, rf64, rf32,
ri32, ri16, ri8, ru32, ru16, ru8; _le and _be) and raw files named by --format (ci16_be ...) are
written with numpy; prism's spectrogram of them (no detrending, so the zero point of unsigned
integers shows) must equal scipy's of numpy's values: the stored values under --integer-scale raw,
and the integers scaled to [-1, 1) as format.hpp defines under the default unit scale.
"""
import json

import numpy as np
import scipy.signal

import prism_test_util
from prism_test_util import TempDirTestCase, load_npy_with_sidecar, rel_l2, run_prism

def unit_scaled(values, kind, bits):
    values = values.astype(np.float64)
    if kind == "f":
        return values
    if kind == "i":
        return values / 2.0 ** (bits - 1)
    return (values - 2.0 ** (bits - 1)) / 2.0 ** (bits - 1)


def random_components(rng, kind, bits, n):
    if kind == "f":
        return rng.uniform(-1.0, 1.0, n)
    info = np.iinfo(np.dtype(f"{kind}{bits // 8}"))
    return rng.integers(info.min, info.max, n, endpoint=True)


def reference(values, is_complex, kind, bits, scale, nperseg):
    values = values if scale == "raw" else unit_scaled(values, kind, bits)
    values = values.astype(np.float64)
    if is_complex:
        values = values[0::2] + 1j * values[1::2]
    _, _, sxx = scipy.signal.spectrogram(values, fs=1000.0, nperseg=nperseg, detrend=False,
                                         return_onesided=not is_complex)
    return np.fft.fftshift(sxx.T, axes=1) if is_complex else sxx.T


def datatypes():
    for complex_prefix in ("c", "r"):
        for kind, widths in (("f", (32, 64)), ("i", (8, 16, 32)), ("u", (8, 16, 32))):
            for bits in widths:
                orders = ("",) if bits == 8 else ("_le", "_be")
                for order in orders:
                    yield f"{complex_prefix}{kind}{bits}{order}", complex_prefix == "c", kind, bits, order


class SigmfDatatypes(TempDirTestCase):
    def test_every_core_datatype_reads_as_numpy_reads_it(self):
        rng = np.random.default_rng(5)
        nperseg = 64
        for name, is_complex, kind, bits, order in datatypes():
            byte_order = ">" if order == "_be" else "<"
            dtype = np.dtype(f"{byte_order}{kind}{bits // 8}")
            components = random_components(rng, kind, bits, 2048).astype(dtype)
            base = self.path(name)
            components.tofile(base + ".sigmf-data")
            with open(base + ".sigmf-meta", "w") as f:
                json.dump({"global": {"core:datatype": name, "core:sample_rate": 1000.0,
                                      "core:version": "1.0.0"},
                           "captures": [{"core:sample_start": 0}], "annotations": []}, f)
            stored = np.fromfile(base + ".sigmf-data", dtype=dtype)  # numpy's view of the bytes
            for scale in ("raw", "unit"):
                with self.subTest(datatype=name, scale=scale):
                    out = self.path(f"{name}-{scale}.npy")
                    run_prism("spectrogram", base + ".sigmf-meta", "-o", out, "--integer-scale", scale,
                              "--nperseg", nperseg, "--detrend", "none", "-q", check=0)
                    rows, meta = load_npy_with_sidecar(out)
                    ref = reference(stored, is_complex, kind, bits, scale, nperseg)
                    self.assertEqual(rows.shape, ref.shape)
                    # float32 arithmetic; 32-bit integers are rounded to float once
                    self.assertLessEqual(rel_l2(rows, ref), 1e-5)

    def test_info_names_the_datatype_and_format(self):
        np.zeros(64, dtype=">u2").tofile(self.path("a.sigmf-data"))
        with open(self.path("a.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "cu16_be", "core:sample_rate": 8.0}}, f)
        proc = run_prism("info", self.path("a.sigmf-meta"), "--json", check=0)
        info = json.loads(proc.stdout)
        self.assertEqual(info["datatype"], "cu16_be")
        self.assertEqual(info["format"], "cu16")
        self.assertEqual(info["length_samples"], 32)

    def test_an_unknown_datatype_lists_the_supported_ones(self):
        np.zeros(16, dtype="<f2").tofile(self.path("h.sigmf-data"))
        with open(self.path("h.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "rf16_le", "core:sample_rate": 8.0}}, f)
        proc = run_prism("info", self.path("h.sigmf-meta"), check=1)
        self.assertIn("unsupported core:datatype 'rf16_le'", proc.stderr)
        self.assertIn("cu32_be", proc.stderr)


class RawFormats(TempDirTestCase):
    def test_big_endian_raw_through_format(self):
        rng = np.random.default_rng(9)
        for name, kind, bits, is_complex in (("ci16_be", "i", 16, True), ("rf64_be", "f", 64, False),
                                             ("cu32_be", "u", 32, True), ("i32", "i", 32, False),
                                             ("cs16_le", "i", 16, True), ("u16_be", "u", 16, False)):
            byte_order = ">" if name.endswith("_be") else "<"
            dtype = np.dtype(f"{byte_order}{kind}{bits // 8}")
            raw = self.path(f"x-{name}.bin")
            random_components(rng, kind, bits, 4096).astype(dtype).tofile(raw)
            stored = np.fromfile(raw, dtype=dtype)
            with self.subTest(format=name):
                out = self.path(f"{name}.npy")
                run_prism("spectrogram", raw, "--format", name, "--rate", 1000, "--integer-scale", "raw",
                          "--nperseg", 128, "--detrend", "none", "-o", out, "-q", check=0)
                rows = np.load(out)
                self.assertLessEqual(rel_l2(rows, reference(stored, is_complex, kind, bits, "raw", 128)), 1e-5)

    def test_big_endian_is_refused_where_the_input_states_its_own_order(self):
        proc = run_prism("spectrogram", "gen:duration=0.1", "--format", "cf32_be", "-o", self.path("g.npy"),
                         check=2)
        self.assertIn("byte order is for raw input", proc.stderr)

    def test_an_unknown_format_is_a_usage_error_listing_the_names(self):
        raw = self.path("x.bin")
        np.zeros(8, dtype=np.int16).tofile(raw)
        for bad in ("ci16_le_be", "cf16", "ci16_xe"):
            with self.subTest(format=bad):
                proc = run_prism("spectrogram", raw, "--format", bad, "--rate", 1000, "-o", self.path("o.npy"),
                                 check=2)
                self.assertIn(f"--format '{bad}' is unknown", proc.stderr)
                self.assertIn("_be suffix", proc.stderr)


if __name__ == "__main__":
    prism_test_util.main()
