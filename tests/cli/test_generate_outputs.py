"""prism generate's outputs: raw files in the format their extension names (read back with numpy),
several channels, AIFF, and a --help that lists exactly the extensions it accepts.
"""
import json
import re

import numpy as np

import prism_test_util
from prism_test_util import TempDirTestCase, prism_reads_wav, run_prism

RATE = 8000
N = 800
# extension -> (numpy dtype of a component, complex, scale, zero) as format.hpp reads them back
RAW = {
    ".cf32": ("<f4", True, 1.0, 0.0), ".f32": ("<f4", False, 1.0, 0.0),
    ".cs16": ("<i2", True, 32768.0, 0.0), ".s16": ("<i2", False, 32768.0, 0.0),
    ".cs8": ("i1", True, 128.0, 0.0), ".s8": ("i1", False, 128.0, 0.0),
    ".cu8": ("u1", True, 128.0, 128.0), ".u8": ("u1", False, 128.0, 128.0),
}


def tone(is_complex):
    n = np.arange(N)
    phase = 2 * np.pi * 1000.0 * n / RATE
    return 0.5 * (np.exp(1j * phase) if is_complex else np.cos(phase))


class RawOutputs(TempDirTestCase):
    def test_each_raw_extension_writes_its_format(self):
        for ext, (dtype, is_complex, scale, zero) in RAW.items():
            with self.subTest(ext=ext):
                out = self.path("x" + ext)
                run_prism("generate", f"gen:rate={RATE},duration=0.1,tone=1000@0.5", "-o", out, "-q", check=0)
                stored = np.fromfile(out, dtype=dtype).astype(np.float64)
                values = (stored - zero) / scale
                if is_complex:
                    values = values[0::2] + 1j * values[1::2]
                self.assertEqual(values.size, N)
                # float32 rounding, or one step of the integer format
                np.testing.assert_allclose(values, tone(is_complex), atol=max(1.0 / scale, 1e-6) * 0.51)
                # and the raw reader takes the file back by its extension
                info = json.loads(run_prism("info", out, "--rate", RATE, "--json", check=0).stdout)
                self.assertEqual(info["length_samples"], N)

    def test_a_format_key_that_contradicts_the_extension_is_a_usage_error(self):
        proc = run_prism("generate", "gen:duration=0.1,format=i16", "-o", self.path("x.cf32"), check=2)
        self.assertIn("x.cf32: the extension names cf32 samples", proc.stderr)
        self.assertIn("format=i16", proc.stderr)


class Channels(TempDirTestCase):
    def test_channels_key_interleaves_copies_of_the_signal(self):
        base = self.path("st")
        run_prism("generate", f"gen:rate={RATE},duration=0.1,tone=1000@0.5,complex,channels=3",
                  "-o", base + ".sigmf-meta", "-q", check=0)
        with open(base + ".sigmf-meta") as f:
            meta = json.load(f)
        self.assertEqual(meta["global"]["core:num_channels"], 3)
        x = np.fromfile(base + ".sigmf-data", dtype=np.complex64).reshape(-1, 3)
        self.assertEqual(x.shape, (N, 3))
        np.testing.assert_array_equal(x[:, 0], x[:, 1])
        np.testing.assert_array_equal(x[:, 0], x[:, 2])
        np.testing.assert_allclose(x[:, 0], tone(True), atol=1e-6)

    def test_bad_channel_counts_are_usage_errors(self):
        for bad in ("0", "-1", "1025", "two"):
            with self.subTest(channels=bad):
                proc = run_prism("generate", f"gen:duration=0.1,channels={bad}", "-o", self.path("x.f32"), check=2)
                self.assertIn("channels", proc.stderr)


class Aiff(TempDirTestCase):
    def test_aiff_holds_the_signal(self):
        if not prism_reads_wav():
            self.skipTest("this prism was built without libsndfile")
        out = self.path("t.aiff")
        run_prism("generate", f"gen:rate={RATE},duration=0.1,tone=1000@0.5,channels=2", "-o", out, "-q", check=0)
        info = json.loads(run_prism("info", out, "--json", check=0).stdout)
        self.assertEqual(info["channels"], 2)
        self.assertEqual(info["length_samples"], N)
        self.assertIn("AIFF", info["container"])
        run_prism("run", out, "-o", self.path("back.npy"), "-q", check=0)
        back = np.load(self.path("back.npy"))
        self.assertEqual(back.shape, (N, 2))
        np.testing.assert_allclose(back[:, 1], tone(False), atol=1e-6)


class Help(TempDirTestCase):
    def test_help_lists_exactly_the_extensions_generate_accepts(self):
        text = run_prism("generate", "--help", check=0).stdout
        listed = set(re.findall(r"(?<![\w-])\.[a-z][a-z0-9-]*[a-z0-9]", text.split("-o,--output", 1)[1]))
        for ext in (".wav", ".flac", ".ogg", ".aif", ".aiff", ".npy", ".sigmf-meta", *RAW):
            self.assertIn(ext, listed)
        for ext in sorted(listed):
            with self.subTest(ext=ext):
                spec = "gen:duration=0.01" + (",complex" if ext in (".cf32", ".cs16", ".cs8", ".cu8", ".cfile", ".fc32",
                                                                    ".ci16", ".sc16", ".ci8", ".sc8") else "")
                run_prism("generate", spec, "-o", self.path("x" + ext), "-q", check=0)
        for ext in (".oga", ".opus", ".au", ".caf", ".w64", ".rf64", ".bin", ".iq", ".png"):
            with self.subTest(refused=ext):
                self.assertNotIn(ext, listed)
                run_prism("generate", "gen:duration=0.01", "-o", self.path("y" + ext), check=2)


if __name__ == "__main__":
    prism_test_util.main()
