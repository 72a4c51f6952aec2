"""prism view under Xvfb + Mesa: the picture shows what the signal holds.

1. Tones at known frequencies: after N frames the screenshot's waterfall has bright columns at
   exactly those frequencies' x positions (and nowhere else), and the frequency axis labels sit
   under their ticks, at the x the frequency maps to.
2. A scripted settings file changes colormap, dB range and FFT size mid-run: the viewer keeps
   rendering, and the final picture uses the new colormap (grayscale: R = G = B).
3. A 1 s file looping at 2x in a 1000x700 window: the waterfall keeps the lines of every pass,
   with a white line across it between passes (named "loop" in the report); the time labels of
   each pass never overlap; the status line wraps to the window's width, and its position is
   the report's (both describe the last frame, the screenshot's).
4. A short history (the first frames): the time labels do not overlap.
5. A zoom saved on one input's band comes back for that band and not for another: a zoom to
   1-3 kHz of a 48 kHz signal is kept for it and gone (the whole band) for a 96 kHz one.
6. SigMF annotations and retunes (a 1 s recording looping at half speed, zoomed): each annotation is a
   magenta box over the lines whose stream times it covers, once per pass the history holds,
   at the x of its frequency edges in the zoomed view, labelled; each retune is a cyan line
   between the lines before and after it, named with the new centre frequency. The screenshot
   has the colours at the reported edges.
7. A live input that stops delivering (a ZeroMQ publisher that goes quiet) ends, after
   --stall-timeout, with an error shown over the spectrum, in the report, and exit 1.

Usage: test_view_xvfb.py PRISM
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
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

    def assert_time_labels_apart(self, report):
        ticks, wf = report["time_ticks"], report["waterfall"]
        for t in ticks:
            self.assertTrue(wf["y"] <= t["y"] <= wf["y"] + wf["height"], f"time label outside the waterfall: {t}")
        for a, b in zip(ticks, ticks[1:]):
            self.assertGreaterEqual(b["y"] - a["y"], a["height"], f"time labels overlap: {a} and {b}")

    def test_loop_keeps_the_history_and_marks_it(self):
        wav = os.path.join(self.tmp.name, "one_second.wav")
        subprocess.run([PRISM, "generate", "gen:rate=48000,tone=3000@0.5,chirp=1000-13000@0.3,duration=1",
                        "-o", wav, "-q"], check=True, timeout=60)
        png, report_path = os.path.join(self.tmp.name, "loop.png"), os.path.join(self.tmp.name, "loop.json")
        run_view(PRISM, self.env, wav, "--no-config", "--size", "1000x700", "--speed", 2, "--frames", 100,
                 "--fps", 40, "--lines-per-second", 50, "--screenshot", png, "--report", report_path)
        report, image = load_json(report_path), read_png_rgb(png)
        history = report["waterfall_history"]
        breaks = history["breaks"]
        self.assertGreaterEqual(len(breaks), 2, f"fewer than two loops marked: {history}")
        for b in breaks:
            self.assertEqual(b["reason"], "loop")
            self.assertGreater(b["time_before_s"], 0.7, b)  # the end of a pass above ...
            self.assertLess(b["time_after_s"], 0.2, b)      # ... the start of the next
        # More than one pass kept: rows beyond the oldest break.
        self.assertGreater(history["rows"], breaks[-1]["age_rows"] + 5, history)
        # Each break is a white line across the waterfall (viridis has no white).
        wf = report["waterfall"]
        x0, x1 = int(wf["x"]) + 1, int(wf["x"] + wf["width"]) - 1
        for b in breaks:
            row = image[int(b["y"]), x0:x1]
            white = (row >= 240).all(axis=1).mean()
            self.assertGreater(white, 0.95, f"no white line at y={b['y']} ({white:.2f} of the row)")
        self.assert_time_labels_apart(report)
        self.assertGreater(len(report["time_ticks"]), 1)
        # The status line: every line within the window; every field there; its position is the
        # report's.
        width = report["framebuffer"]["width"]
        lines = report["status_line"]
        self.assertGreater(len(lines), 2, "a 1000 px window needs the status line wrapped")
        for line in lines:
            self.assertLessEqual(line["x"] + line["width"], width - 4, f"status line cut off: {line}")
        text = "  |  ".join(line["text"] for line in lines)
        for field in ("one_second.wav", "Hz/bin", "input ", "FFT ", "fps", "received", "overruns", "display rows skipped"):
            self.assertIn(field, text)
        playback = report["playback"]
        self.assertIn(f"{playback['position_s']:.1f} / 1.0 s", text)
        # The display never runs ahead of the input: the newest line is at or before the playback
        # position, or, just after the input has looped, a line of the pass before.
        newest, position = history["newest_line_time_s"], playback["position_s"]
        if newest > position:
            self.assertLessEqual(newest, playback["duration_s"], history)
            self.assertLess(position, 0.5 * playback["duration_s"], f"display ahead of the input: {history}")

    def test_short_history_time_labels_apart(self):
        report_path = os.path.join(self.tmp.name, "short.json")
        run_view(PRISM, self.env, SIGNAL, "--no-config", "--frames", 12, "--fps", 40, "--lines-per-second", 60,
                 "--report", report_path)
        report = load_json(report_path)
        self.assertLess(report["waterfall_history"]["rows"], 0.5 * report["waterfall"]["height"])
        self.assert_time_labels_apart(report)

    def test_saved_zoom_belongs_to_its_band(self):
        config = os.path.join(self.tmp.name, "zoom_band", "view.json")
        common = ["--config", config, "--frames", 5]
        run_view(PRISM, self.env, SIGNAL, *common, "--frequency-range", "1000:3000")
        self.assertEqual((load_json(config)["view_low_hz"], load_json(config)["view_high_hz"]), (1000, 3000))
        same, other = os.path.join(self.tmp.name, "same.json"), os.path.join(self.tmp.name, "other.json")
        run_view(PRISM, self.env, SIGNAL, *common, "--report", same)
        self.assertEqual(load_json(same)["frequency_view_hz"], [1000, 3000])
        run_view(PRISM, self.env, SIGNAL.replace("rate=48000", "rate=96000"), *common, "--report", other)
        report = load_json(other)
        band = report["display_format"]
        self.assertEqual(report["frequency_view_hz"], [band["frequency_low"], band["frequency_high"]])
        self.assertGreater(band["frequency_high"], 47000)
        saved = load_json(config)
        self.assertEqual((saved["view_low_hz"], saved["view_band_low_hz"], saved["view_band_high_hz"]),
                         (None, 0, 48000))

    def test_annotations_and_retunes_over_the_waterfall(self):
        rate, centre = 48000, 100e6
        base = os.path.join(self.tmp.name, "annotated")
        n = np.arange(rate)
        rng = np.random.default_rng(5)
        x = 0.5 * np.exp(2j * np.pi * 8000 / rate * n) + 0.01 * (rng.normal(size=rate) + 1j * rng.normal(size=rate))
        x.astype(np.complex64).tofile(base + ".sigmf-data")
        with open(base + ".sigmf-meta", "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:sample_rate": rate, "core:version": "1.0.0"},
                       "captures": [{"core:sample_start": 0, "core:frequency": centre},
                                    {"core:sample_start": rate // 2, "core:frequency": centre + 2000}],
                       "annotations": [{"core:sample_start": int(0.3 * rate), "core:sample_count": int(0.3 * rate),
                                        "core:freq_lower_edge": centre + 5000,
                                        "core:freq_upper_edge": centre + 12000, "core:label": "burst"}]}, f)
        png, report_path = base + ".png", base + ".json"
        run_view(PRISM, self.env, base + ".sigmf-meta", "--no-config", "--size", "1000x700", "--speed", 0.5,
                 "--frames", 160, "--fps", 40, "--lines-per-second", 50, "--db-range", "-120:0",
                 "--frequency-range", f"{centre - 4000:.0f}:{centre + 16000:.0f}",
                 "--screenshot", png, "--report", report_path)
        report, image = load_json(report_path), read_png_rgb(png)
        self.assertEqual(report["frequency_view_hz"], [centre - 4000, centre + 16000])
        history = report["waterfall_history"]
        boxes, retunes = history["annotations"], history["retunes"]
        # One box and one retune line per pass held (the history keeps more than one pass).
        self.assertGreaterEqual(len(history["breaks"]), 1, history)
        self.assertGreaterEqual(len(boxes), 2, history)
        self.assertGreaterEqual(len(retunes), 2, history)
        # The newest of each is labelled (older ones only where their labels do not overlap).
        self.assertTrue(boxes[0]["label_drawn"], boxes[0])
        self.assertTrue(retunes[0]["label_drawn"], retunes[0])

        def magenta(p):
            return p[..., 0] > 200 and p[..., 1] < 90 and p[..., 2] > 200

        def near(y, x, colour, reach=2):
            patch = image[y - reach:y + reach + 1, x - reach:x + reach + 1]
            return any(colour(p) for row in patch for p in row)

        # A pass whose playback is inside the annotation when the run ends has drawn only part of
        # its box (the newest box); every pass before it holds the whole annotation, to within
        # three lines (50 lines/s, on spectra 21.3 ms apart) at each end.
        def is_whole(box):
            return box["oldest_line_time_s"] <= 0.3 + 0.065 and box["newest_line_time_s"] >= 0.6 - 0.065

        for box in boxes[1:]:
            self.assertTrue(is_whole(box), f"an older pass's box is not whole: {box}")
        whole = [box for box in boxes if is_whole(box)]
        for box in boxes:
            self.assertEqual(box["label"], "burst")
            self.assertAlmostEqual(box["x0"], round(x_of(centre + 5000, report)), delta=1)
            self.assertAlmostEqual(box["x1"], round(x_of(centre + 12000, report)), delta=1)
            # The lines it spans are those of the annotation's time (0.3 to 0.6 s).
            self.assertGreaterEqual(box["oldest_line_time_s"], 0.3)
            self.assertLess(box["newest_line_time_s"], 0.6)
            self.assertGreaterEqual(box["y1"] - box["y0"], 1, box)
        for box in whole:
            self.assertGreater(box["y1"] - box["y0"], 3, box)
            x0, x1, y0, y1 = int(box["x0"]), int(box["x1"]), int(box["y0"]), int(box["y1"])
            for y in range(y0 + 1, y1):  # left and right edges, every line
                self.assertTrue(near(y, x0, magenta), f"no left edge at y={y}: {box}")
                self.assertTrue(near(y, x1, magenta), f"no right edge at y={y}: {box}")
            for x in range((x0 + x1) // 2, x1):  # top (right of the label) and bottom edges
                self.assertTrue(near(y0, x, magenta), f"no top edge at x={x}: {box}")
                self.assertTrue(near(y1, x, magenta), f"no bottom edge at x={x}: {box}")
            # Inside the box, away from its edges and label, the waterfall shows through.
            inside = image[y0 + 4:y1 - 3, (x0 + x1) // 2:x1 - 3]
            self.assertFalse(any(magenta(p) for row in inside for p in row), box)
        wf = report["waterfall"]
        x0, x1 = int(wf["x"]) + 1, int(wf["x"] + wf["width"]) - 1
        for line in retunes:
            self.assertEqual(line["label"], "centre 100.002 MHz")
            self.assertEqual(line["time_s"], 0.5)
            row = image[int(line["y"]), x0:x1]
            cyan = ((row[:, 0] < 90) & (row[:, 1] > 200) & (row[:, 2] > 200)).mean()
            self.assertGreater(cyan, 0.4, f"no dashed cyan line at y={line['y']} ({cyan:.2f} of the row)")

    def test_live_input_that_stalls_is_an_error(self):
        try:
            import zmq
        except ImportError:
            self.skipTest("python3-zmq is not installed")
        context = zmq.Context()
        publisher = context.socket(zmq.PUB)
        port = publisher.bind_to_random_port("tcp://127.0.0.1")
        tone = np.exp(2j * np.pi * 100 * np.arange(256) / 1000).astype(np.complex64).tobytes()
        stop = threading.Event()

        def publish():  # 1.5 s of a tone, then nothing (the socket stays open)
            end = time.time() + 1.5
            while time.time() < end and not stop.is_set():
                publisher.send(tone)
                time.sleep(0.05)

        feeder = threading.Thread(target=publish)
        feeder.start()
        report_path = os.path.join(self.tmp.name, "stall.json")
        try:
            args = [f"zmq:sub:tcp://127.0.0.1:{port}", "--format", "cf32", "--rate", 1000, "--fft-size", 256,
                    "--stall-timeout", 0.5, "--no-config", "--frames", 160, "--fps", 40, "--report", report_path]
            proc = subprocess.run([PRISM, "view", *map(str, args)], env=self.env, capture_output=True, text=True,
                                  timeout=120)
        finally:
            stop.set()
            feeder.join()
            publisher.close(linger=0)
            context.term()
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("stall timeout, --stall-timeout", proc.stderr)
        report = load_json(report_path)
        self.assertGreater(report["status"]["samples_received"], 0, "the tone never arrived")
        self.assertIn("delivered nothing for 0.5 s", report["status"]["error"])
        labels = [t for t in report["spectrum_labels"] if t["what"] == "error"]
        self.assertEqual(len(labels), 1, report["spectrum_labels"])
        spectrum = report["spectrum"]
        self.assertLessEqual(labels[0]["x"] + labels[0]["width"], spectrum["x"] + spectrum["width"])

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
        # The reason: no device (a CUDA build), or no CUDA in this build (no compiler was found).
        self.assertRegex(proc.stderr, r"--backend cuda: (no usable CUDA device|this build "
                                      r"has no CUDA support)")


if __name__ == "__main__":
    PRISM = sys.argv.pop(1)
    unittest.main()
