"""SigMF captures and annotations: a retune mid-recording (a later capture with another
core:frequency) and every annotation reach `prism info`, the .npy sidecar (the retune's first row)
and the PNG (a marked moment, labelled boxes, listed in its prism:plot text); core:datetime gives
an absolute time axis with --time-axis absolute.
"""
import json
import os

import numpy as np

import prism_test_util
from prism_test_util import TempDirTestCase, run_prism
from test_png_plot import png_texts

RATE = 1e6


class Captures(TempDirTestCase):
    def recording(self, datetime="2024-05-01T12:00:00.5Z"):
        x = (np.random.default_rng(1).normal(size=(200000, 2)) * 0.01).astype(np.float32)
        x.tofile(self.path("rec.sigmf-data"))
        first = {"core:sample_start": 0, "core:frequency": 100e6}
        if datetime:
            first["core:datetime"] = datetime
        meta = {"global": {"core:datatype": "cf32_le", "core:sample_rate": RATE, "core:version": "1.0.0"},
                "captures": [first, {"core:sample_start": 100000, "core:frequency": 101e6}],
                "annotations": [{"core:sample_start": 20000, "core:sample_count": 50000,
                                 "core:freq_lower_edge": 100.05e6, "core:freq_upper_edge": 100.15e6,
                                 "core:label": "tone A"},
                                {"core:sample_start": 120000, "core:label": "to the end"}]}
        with open(self.path("rec.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        return self.path("rec.sigmf-meta")

    def test_info_lists_retunes_and_annotations(self):
        info = json.loads(run_prism("info", self.recording(), "--json", check=0).stdout)
        self.assertEqual(info["retunes"], [{"sample_start": 100000, "time_s": 0.1, "center_frequency": 101e6}])
        self.assertEqual(len(info["annotations"]), 2)
        self.assertEqual(info["annotations"][0]["label"], "tone A")
        self.assertEqual(info["annotations"][0]["sample_count"], 50000)
        self.assertEqual(info["annotations"][0]["freq_lower_edge"], 100.05e6)
        text = run_prism("info", self.recording(), check=0).stdout
        self.assertIn('"label":"to the end"', text)

    def test_sidecar_says_where_the_centre_frequency_changed(self):
        out = self.path("s.npy")
        run_prism("spectrogram", self.recording(), "--nperseg", 1000, "--noverlap", 0, "-o", out, "-q", check=0)
        with open(self.path("s.json")) as f:
            side = json.load(f)
        self.assertEqual(side["center_frequency"], 100e6)
        # Rows of 1000 samples centred at 0.5 ms, 1.5 ms ...: the first after 0.1 s is row 100.
        self.assertEqual(side["retunes"], [{"time_s": 0.1, "center_frequency": 101e6, "first_row": 100}])
        self.assertEqual(side["annotations"][0]["label"], "tone A")
        self.assertAlmostEqual(side["annotations"][0]["duration_s"], 0.05)
        self.assertIsNone(side["annotations"][1]["duration_s"])
        self.assertEqual(side["start_epoch_s"], 1714564800.5)

    def test_png_marks_the_retune_and_boxes_the_annotations(self):
        png = self.path("s.png")
        run_prism("spectrogram", self.recording(), "-o", png, "--width", 400, "--height", 400, "-q", check=0)
        plot = json.loads(png_texts(png)["prism:plot"])
        self.assertEqual(plot["retunes"], [{"time_s": 0.1, "center_frequency": 101e6}])
        self.assertEqual([a["label"] for a in plot["annotations"]], ["tone A", "to the end"])
        self.assertEqual(plot["annotations"][0]["frequency_low_hz"], 100.05e6)
        self.assertEqual(plot["time_axis"], "relative")
        # The drawing: the same recording without captures and annotations differs in the plot.
        with open(self.path("rec.sigmf-meta")) as f:
            meta = json.load(f)
        meta["captures"] = meta["captures"][:1]
        meta["annotations"] = []
        with open(self.path("plain.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        import shutil
        shutil.copy(self.path("rec.sigmf-data"), self.path("plain.sigmf-data"))
        plain = self.path("plain.png")
        run_prism("spectrogram", self.path("plain.sigmf-meta"), "-o", plain, "--width", 400, "--height", 400,
                  "--title", "t", "-q", check=0)
        marked = self.path("marked.png")
        run_prism("spectrogram", self.recording(), "-o", marked, "--width", 400, "--height", 400,
                  "--title", "t", "-q", check=0)
        with open(plain, "rb") as a, open(marked, "rb") as b:
            self.assertNotEqual(a.read(), b.read())

    def test_a_copy_keeps_the_retunes_and_annotations(self):
        copy = self.path("copy.sigmf-meta")
        run_prism("run", self.recording(), "-o", copy, "-q", check=0)
        with open(copy) as f:
            meta = json.load(f)
        self.assertEqual(meta["captures"][1], {"core:sample_start": 100000, "core:frequency": 101e6})
        self.assertEqual(meta["annotations"][0]["core:label"], "tone A")
        self.assertEqual(meta["annotations"][0]["core:sample_count"], 50000)
        self.assertNotIn("core:sample_count", meta["annotations"][1])
        # a stage that halves the rate keeps the moments: sample indices halve
        run_prism("run", self.recording(), "!", "fir:lowpass=100e3,numtaps=63,decimate=2", "-o", copy, "-q", check=0)
        with open(copy) as f:
            meta = json.load(f)
        self.assertEqual(meta["captures"][1]["core:sample_start"], 50000)
        self.assertEqual(meta["annotations"][0]["core:sample_start"], 10000)

    def test_absolute_time_axis(self):
        png = self.path("a.png")
        run_prism("spectrogram", self.recording(), "-o", png, "--time-axis", "absolute", "-q", check=0)
        plot = json.loads(png_texts(png)["prism:plot"])
        self.assertEqual(plot["time_axis"], "absolute")
        self.assertEqual(plot["time_origin_epoch_s"], 1714564800.5)

    def test_absolute_time_axis_needs_a_start_time(self):
        proc = run_prism("spectrogram", self.recording(datetime=None), "-o", self.path("a.png"),
                         "--time-axis", "absolute", check=2)
        self.assertIn("--time-axis absolute", proc.stderr)
        self.assertIn("core:datetime", proc.stderr)
        self.assertFalse(os.path.exists(self.path("a.png")))

    def test_bad_captures_and_annotations_name_the_field(self):
        path = self.recording()
        for change, words in ((lambda m: m["captures"][1].update({"core:sample_start": 5}) or
                               m["captures"].reverse(), "captures must be in order"),
                              (lambda m: m["annotations"][0].pop("core:sample_start"),
                               "annotations[0] core:sample_start is missing"),
                              (lambda m: m["annotations"][0].update({"core:label": 7}),
                               "annotations[0] core:label must be a string")):
            with open(path) as f:
                meta = json.load(f)
            change(meta)
            with open(self.path("bad.sigmf-meta"), "w") as f:
                json.dump(meta, f)
            import shutil
            shutil.copy(self.path("rec.sigmf-data"), self.path("bad.sigmf-data"))
            with self.subTest(words=words):
                proc = run_prism("info", self.path("bad.sigmf-meta"), check=1)
                self.assertIn(words, proc.stderr)


if __name__ == "__main__":
    prism_test_util.main()
