"""prism run and prism stages: chains of stages on the command line.

A chain with the spectrogram stage gives the same rows as prism spectrogram with the same
options; outputs branch off the chain's end, each with stages of its own; every edge's accounting
balances; --backend auto keeps the channel stages on the side of the fir before them; a bad chain
is a usage error (exit 2) that names the stage and the key; prism stages lists every stage with
its ports, keys, defaults and ranges.
"""
import json

import numpy as np

import prism_test_util
from prism_test_util import TempDirTestCase, load_npy_with_sidecar, run_prism


class Chains(TempDirTestCase):
    def test_run_with_the_spectrogram_stage_equals_prism_spectrogram(self):
        x = np.random.default_rng(11).uniform(-0.5, 0.5, 40000).astype(np.float32)
        raw = self.path("x.f32")
        x.tofile(raw)
        options = {"nperseg": 1000, "noverlap": 250, "nfft": 1024, "window": "kaiser:7", "average": "3:max"}
        flags = [item for key, value in options.items() for item in (f"--{key}", str(value))]
        keys = ",".join(f"{key}={value}" for key, value in options.items())
        run_prism("spectrogram", raw, "--format", "f32", "--rate", "8000", *flags, "--db", "-o",
                  self.path("preset.npy"), "-q", check=0)
        run_prism("run", raw, "!", f"spectrogram:{keys},db", "-o", self.path("chain.npy"), "--format", "f32",
                  "--rate", "8000", "-q", check=0)
        preset, preset_meta = load_npy_with_sidecar(self.path("preset.npy"))
        chain, chain_meta = load_npy_with_sidecar(self.path("chain.npy"))
        np.testing.assert_array_equal(chain, preset)
        self.assertEqual(chain_meta["parameters"], preset_meta["parameters"])
        self.assertEqual(chain_meta["frequencies"], preset_meta["frequencies"])

    def test_outputs_branch_with_stages_of_their_own(self):
        summary = self.path("summary.json")
        run_prism("run", "gen:rate=8000,duration=2,tone=1000", "-o", f"spectrogram:nperseg=512 ! {self.path('a.npy')}",
                  "-o", self.path("copy.sigmf-meta"), "-o", f"spectrogram:nperseg=128,db ! {self.path('b.png')}",
                  "--summary-json", summary, "-q", check=0)
        with open(summary) as f:
            s = json.load(f)
        self.assertEqual(s["accounting"], "balanced")
        self.assertEqual(s["samples_read"], 16000)
        spectrograms = [stage for stage in s["stages"] if stage["name"] == "spectrogram"]
        self.assertEqual(len(spectrograms), 2)
        for stage in spectrograms:
            self.assertEqual(stage["items_in"], 16000)
        written = {output["name"]: output["items_written"] for output in s["outputs"]}
        a, _ = load_npy_with_sidecar(self.path("a.npy"))
        self.assertEqual(a.shape[1], 257)
        self.assertIn(a.shape[0], written.values())
        self.assertIn(16000, written.values())
        # The copy holds the generator's samples as prism generate writes them.
        run_prism("generate", "gen:rate=8000,duration=2,tone=1000", "-o", self.path("direct.sigmf-meta"), "-q", check=0)
        copy = np.fromfile(self.path("copy.sigmf-data"), dtype="<f4")
        direct = np.fromfile(self.path("direct.sigmf-data"), dtype="<f4")
        self.assertEqual(copy.size, 16000)
        np.testing.assert_array_equal(copy, direct)

    def test_auto_keeps_the_channel_stages_where_the_fir_runs(self):
        # The fir takes the GPU where one can be set up; the stages after it follow it there (one
        # copy in before the fir, one out after the last), and stay on the CPU after a CPU fir.
        summary = self.path("summary.json")
        run_prism("run", "gen:rate=1e6,complex,tone=1e5,duration=0.2", "!",
                  "fir:lowpass=100000,numtaps=255,shift=-100000,decimate=4", "!", "fm:wide", "!", "resample:48000",
                  "-o", self.path("audio.sigmf-meta"), "--summary-json", summary, "-q", check=0)
        with open(summary) as f:
            stages = json.load(f)["stages"]
        described = {stage["name"]: stage["description"] for stage in stages}
        on_gpu = described["fir"].startswith("cuda")
        for name in ("fm", "resample"):
            self.assertEqual(described[name].startswith("cuda"), on_gpu, described)
        copies = [stage["name"] for stage in stages if stage["name"] in ("h2d", "d2h")]
        self.assertEqual(copies, ["h2d", "d2h"] if on_gpu else [], described)

    def test_stages_after_the_input_feed_every_output(self):
        run_prism("run", "gen:duration=1", "!", "spectrogram:nperseg=256", "-o", self.path("a.npy"), "-o",
                  self.path("b.npy"), "-q", check=0)
        a, _ = load_npy_with_sidecar(self.path("a.npy"))
        b, _ = load_npy_with_sidecar(self.path("b.npy"))
        np.testing.assert_array_equal(a, b)

    def test_bad_chains_are_usage_errors_naming_the_stage_and_the_key(self):
        cases = [
            (["gen", "!", "spectrogram:nperseg=-5", "-o", "x.npy"], "spectrogram: nperseg: -5 is out of range"),
            (["gen", "!", "spectrogram:npersge=512", "-o", "x.npy"], "did you mean spectrogram: nperseg"),
            (["gen", "!", "spectrogram:window=hann,window=hamming", "-o", "x.npy"], "'window' is given twice"),
            (["gen", "!", "spectrogram:mode=loud", "-o", "x.npy"], "spectrogram: mode: 'loud' is not one of psd|magnitude"),
            (["gen", "!", "spectrogam", "-o", "x.npy"], "unknown stage 'spectrogam'"),
            (["gen", "!", "!", "spectrogram", "-o", "x.npy"], "an empty step"),
            (["gen", "!", "spectrogram", "-o", "x.sigmf-meta"], "cannot take the rows that 'spectrogram' gives"),
            (["gen", "-o", "x.png"], "cannot take the samples"),
            (["gen", "-o", "x.npy ! spectrogram"], "an output (a file or audio:) must come last"),
            (["gen"], "at least one output"),
            (["gen", "!", "spectrogram:channel=3", "-o", "x.npy"], "spectrogram: channel 3 is out of range"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                proc = run_prism("run", *[a if not a.startswith("x.") else self.path(a) for a in args])
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(message, proc.stderr)
        self.assertEqual([n for n in __import__("os").listdir(self.tmp)], [], "a refused chain wrote something")

    def test_stages_lists_ports_keys_defaults_and_ranges(self):
        proc = run_prism("stages", check=0)
        text = proc.stdout
        self.assertIn("spectrogram  (samples -> rows", text)
        self.assertIn("nperseg=N", text)
        self.assertIn("[1..16777216] (default 256)", text)
        self.assertIn("(default nperseg/8)", text)
        self.assertIn("[psd|magnitude|complex|angle|phase|mel|mfcc] (default psd)", text)

    def test_help_shows_the_chain(self):
        text = run_prism("run", "--help", check=0).stdout
        self.assertIn("prism run INPUT... [! STAGE[:KEY=VALUE,...]]... -o", text)
        self.assertIn("prism stages", text)


if __name__ == "__main__":
    prism_test_util.main()
