"""prism view under Xvfb + Mesa: the picture shows what the signal holds.

1. Tones at known frequencies: after N frames the screenshot's waterfall has bright columns at
   exactly those frequencies' x positions (and nowhere else), and the frequency axis labels sit
   under their ticks, at the x the frequency maps to.
2. A scripted settings file changes colormap, dB range and FFT size mid-run: the viewer keeps
   rendering, and the final picture uses the new colormap (grayscale: R = G = B).

Usage: test_view_xvfb.py PRISM
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import Xvfb, load_json, read_png_rgb, run_view, waterfall_columns, x_of  # noqa: E402

PRISM = None
NO_DATA_RGB = (18, 18, 23)  # the waterfall's colour where no line has arrived yet
TONES = [3000.0, 9000.0, 15000.0]
SIGNAL = "gen:rate=48000,duration=inf," + ",".join(f"tone={f:g}@0.5" for f in TONES) + ",noise=0.001"


class ViewUnderXvfb(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.xvfb = Xvfb().__enter__()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.env = cls.xvfb.env(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.xvfb.__exit__(None, None, None)
        cls.tmp.cleanup()

    def test_tone_columns_and_axis_labels(self):
        png, report_path = os.path.join(self.tmp.name, "tones.png"), os.path.join(self.tmp.name, "tones.json")
        run_view(PRISM, self.env, SIGNAL, "--no-config", "--frames", 90, "--fft-size", 4096,
                 "--db-range", "-110:-10", "--lines-per-second", 60, "--size", "1280x800",
                 "--screenshot", png, "--report", report_path)
        report, image = load_json(report_path), read_png_rgb(png)
        self.assertEqual(image.shape[:2], (report["framebuffer"]["height"], report["framebuffer"]["width"]))
        self.assertGreater(report["display_lines"], 25, "too few waterfall lines arrived")
        self.assertEqual(report["status"]["overrun_samples"], 0)

        x0, lum = waterfall_columns(image, report)
        background = np.median(lum)
        bright = np.flatnonzero(lum > background + 80) + x0
        self.assertGreater(len(bright), 0, "no bright column in the waterfall")
        expected = [x_of(f, report) for f in TONES]
        for f, x in zip(TONES, expected):
            near = [b for b in bright if abs(b - x) <= 1.5]
            self.assertTrue(near, f"no bright column at x={x:.1f} for the tone at {f} Hz "
                                  f"(bright columns: {bright.tolist()})")
        for b in bright:  # and nothing bright anywhere else
            self.assertTrue(any(abs(b - x) <= 1.5 for x in expected),
                            f"bright column at x={b} matches no tone ({expected})")

        # Axis: kHz labels 0, 5, ..., 20 at the x their frequency maps to, with text under them.
        ticks = report["frequency_ticks"]
        self.assertEqual([t["label"] for t in ticks], ["0", "5", "10", "15", "20"])
        axis = report["frequency_axis"]
        strip = image[int(axis["y"]) + 6:int(axis["y"] + axis["height"]), :].astype(int).sum(axis=2)
        for t in ticks:
            self.assertAlmostEqual(t["x"], x_of(t["hz"], report), delta=1.0)
            x = int(round(t["x"]))
            self.assertTrue((strip[:, max(x - 12, 0):x + 12] > 450).any(),
                            f"no label text under the tick {t['label']} at x={x}")
        # Between two labels the strip is empty: the labels are where the ticks are, not anywhere.
        gap = int(round((ticks[1]["x"] + ticks[2]["x"]) / 2))
        self.assertFalse((strip[:, gap - 3:gap + 3] > 450).any(), "text between the axis labels")

    def test_scripted_settings_change_mid_run(self):
        script = os.path.join(self.tmp.name, "script.json")
        with open(script, "w") as f:
            json.dump([{"frame": 20, "set": {"colormap": "inferno", "db_min": -100, "db_max": -30}},
                       {"frame": 40, "set": {"fft_size": 8192, "overlap": 0.75}},
                       {"frame": 55, "set": {"colormap": "grayscale", "db_min": -90, "db_max": -20}}], f)
        png, report_path = os.path.join(self.tmp.name, "script.png"), os.path.join(self.tmp.name, "script.json.out")
        run_view(PRISM, self.env, SIGNAL, "--no-config", "--frames", 100, "--size", "1280x800",
                 "--script", script, "--screenshot", png, "--report", report_path)
        report, image = load_json(report_path), read_png_rgb(png)
        s = report["settings"]
        self.assertEqual((s["colormap"], s["db_min"], s["db_max"], s["fft_size"]), ("grayscale", -90, -20, 8192))
        self.assertEqual(report["display_format"]["fft_size"], 8192)
        self.assertEqual(report["status"]["error"], "")
        # The whole visible history is recoloured at once: every waterfall pixel is grey.
        wf = report["waterfall"]
        region = image[int(wf["y"]) + 1:int(wf["y"] + wf["height"]) - 1, int(wf["x"]) + 1:int(wf["x"] + wf["width"]) - 1]
        no_data = (region == np.array(NO_DATA_RGB)).all(axis=2)  # lines not yet arrived
        self.assertGreaterEqual(int((~no_data).all(axis=1).sum()), 10, "fewer than 10 lines after the switch")
        spread = (region.max(axis=2) - region.min(axis=2))[~no_data]
        self.assertLessEqual(int(spread.max()), 2, "a waterfall pixel is not grey after the grayscale switch")
        x0, lum = waterfall_columns(image, report)
        for f in TONES:
            x = int(round(x_of(f, report))) - x0
            self.assertGreater(lum[max(x - 1, 0):x + 2].max(), np.median(lum) + 80, f"tone {f} Hz not bright")

    def test_a_backend_that_cannot_run_is_refused_before_a_window_opens(self):
        proc = subprocess.run([PRISM, "view", "--backend", "nope", "--frames", "1"], env=self.env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("unknown --backend 'nope'", proc.stderr)
        devices = subprocess.run([PRISM, "devices"], capture_output=True, text=True, timeout=60)
        if re.search(r"^\s*cuda\s+available", devices.stdout, re.M):
            self.skipTest("a CUDA device is usable here")
        proc = subprocess.run([PRISM, "view", "--backend", "cuda", "--frames", "1"], env=self.env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        # A CUDA build without a device, or a build without CUDA (the sanitizer build).
        self.assertRegex(proc.stderr, r"--backend cuda: (no usable CUDA device|not available: this build has no CUDA support)")


if __name__ == "__main__":
    PRISM = sys.argv.pop(1)
    unittest.main()
