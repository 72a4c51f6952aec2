"""prism spectrogram over many recordings in one run (docs/batch.md): files, directories and
globs expanded, templated outputs equal to single runs' outputs, a failing file that does not
stop the others, resumption (complete outputs skipped, --overwrite redoes), colliding templates
refused before anything runs, the per-file entries of --summary-json, and several --device
shared out among the workers (a list that names one device twice gives the same outputs). prism
run takes several inputs the same way: its batches give what its single runs give.
"""
import json
import os

import numpy as np

from prism_test_util import BACKEND, TempDirTestCase, main, run_prism, write_sigmf, write_wav_float

RATE = 8000
SETTINGS = ("--nperseg", "256", "--rate", str(RATE))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class Batch(TempDirTestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(7)
        os.mkdir(self.path("dir"))
        self.wavs = []
        for name in ("w2", "w1", "w3"):
            p = self.path(f"dir/{name}.wav")
            write_wav_float(p, RATE, rng.uniform(-0.5, 0.5, 6000 + 100 * len(self.wavs)))
            self.wavs.append(p)
        with open(self.path("dir/notes.txt"), "w") as f:
            f.write("not a recording: a directory gives only its recordings\n")
        self.raws = []
        for name in ("g1", "g2"):
            p = self.path(f"{name}.cf32")
            (rng.normal(size=5000) + 1j * rng.normal(size=5000)).astype(np.complex64).tofile(p)
            self.raws.append(p)
        self.sigmf = self.path("s.sigmf-meta")
        write_sigmf(self.path("s"), RATE,
                    (rng.normal(size=4000) + 1j * rng.normal(size=4000)).astype(np.complex64), "cf32_le")

    def batch(self, *inputs, extra=(), check=None):
        return run_prism("spectrogram", *inputs, "-o", self.path("out/{stem}.npy"),
                         "-o", self.path("out/{stem}.png"), *SETTINGS, *extra, check=check)

    def summary(self, path):
        with open(path) as f:
            return json.load(f)

    def test_outputs_equal_single_runs(self):
        summary = self.path("summary.json")
        proc = self.batch(self.sigmf, self.path("dir") + "/", self.path("g*.cf32"),
                          extra=("--summary-json", summary, "--jobs", "2"), check=0)
        inputs = [self.sigmf] + sorted(self.wavs) + self.raws
        entries = self.summary(summary)["files"]
        self.assertEqual([os.path.abspath(e["input"]) for e in entries], [os.path.abspath(p) for p in inputs])
        self.assertEqual(self.summary(summary)["total"]["done"], len(inputs))
        self.assertIn(f"{len(inputs)} files", proc.stdout)
        for entry, path in zip(entries, inputs):
            stem = os.path.basename(path).split(".")[0]
            self.assertEqual(entry["status"], "done")
            self.assertIsNone(entry["error"])
            self.assertEqual(entry["outputs"], [self.path(f"out/{stem}.npy"), self.path(f"out/{stem}.png")])
            self.assertGreater(entry["run"]["samples_read"], 0)
            self.assertIn(os.path.basename(path), proc.stdout)
            run_prism("spectrogram", path, "-o", self.path(f"single-{stem}.npy"),
                      "-o", self.path(f"single-{stem}.png"), *SETTINGS, "-q", check=0)
            self.assertEqual(read_bytes(self.path(f"out/{stem}.npy")), read_bytes(self.path(f"single-{stem}.npy")),
                             stem)
            self.assertEqual(read_bytes(self.path(f"out/{stem}.png")), read_bytes(self.path(f"single-{stem}.png")),
                             stem)
        self.assertFalse(os.path.exists(self.path("out/notes.npy")))

    def test_failing_file_does_not_stop_the_others(self):
        with open(self.path("dir/w15.wav"), "wb") as f:  # sorts between w1 and w2
            f.write(b"RIFF\x00\x00\x00\x00WAVEgarbage" * 4)
        summary = self.path("summary.json")
        proc = self.batch(self.path("dir"), extra=("--summary-json", summary, "--jobs", "1"))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("w15.wav", proc.stderr)
        self.assertIn("1 failed", proc.stdout)
        for stem in ("w1", "w2", "w3"):
            self.assertTrue(os.path.exists(self.path(f"out/{stem}.npy")), stem)
        self.assertFalse(os.path.exists(self.path("out/w15.npy")))
        self.assertFalse(os.path.exists(self.path("out/w15.npy.partial")))
        statuses = {os.path.basename(e["input"]): e["status"] for e in self.summary(summary)["files"]}
        self.assertEqual(statuses, {"w1.wav": "done", "w15.wav": "failed", "w2.wav": "done", "w3.wav": "done"})
        failed = [e for e in self.summary(summary)["files"] if e["status"] == "failed"][0]
        self.assertIn("w15.wav", failed["error"])

    def test_warnings_go_to_their_files_entries(self):
        rng = np.random.default_rng(3)
        rng.normal(size=100).astype(np.complex64).tofile(self.path("short.cf32"))  # 100 samples < nperseg
        with open(self.path("cut.cf32"), "wb") as f:  # 1000 samples and 3 bytes of the next
            f.write(rng.normal(size=1000).astype(np.complex64).tobytes() + b"\x01\x02\x03")
        summary = self.path("summary.json")
        proc = self.batch(self.path("short.cf32"), self.path("cut.cf32"), self.raws[0],
                          extra=("--summary-json", summary, "--jobs", "2"), check=0)
        entries = {os.path.basename(e["input"]): e for e in self.summary(summary)["files"]}
        self.assertEqual({name: e["status"] for name, e in entries.items()},
                         {"short.cf32": "done", "cut.cf32": "done", "g1.cf32": "done"})
        self.assertEqual(len(entries["short.cf32"]["warnings"]), 1)
        self.assertIn("--nperseg 256 is longer than the input (100 samples); using --nperseg 100",
                      entries["short.cf32"]["warnings"][0])
        self.assertEqual(len(entries["cut.cf32"]["warnings"]), 1)
        self.assertIn("cut.cf32", entries["cut.cf32"]["warnings"][0])
        self.assertIn("3 stray bytes", entries["cut.cf32"]["warnings"][0])
        self.assertEqual(entries["g1.cf32"]["warnings"], [])
        for warning in entries["short.cf32"]["warnings"] + entries["cut.cf32"]["warnings"]:
            self.assertIn("prism: warning: " + warning, proc.stderr)

    def test_rerun_skips_complete_outputs_and_overwrite_redoes(self):
        self.batch(self.path("dir"), check=0)
        mtimes = {p: os.stat(self.path(f"out/{p}")).st_mtime_ns for p in os.listdir(self.path("out"))}
        # w2's PNG left unfinished: only its .partial exists, so w2 is redone.
        os.rename(self.path("out/w2.png"), self.path("out/w2.png.partial"))
        summary = self.path("summary.json")
        proc = self.batch(self.path("dir"), extra=("--summary-json", summary), check=0)
        statuses = {os.path.basename(e["input"]): e["status"] for e in self.summary(summary)["files"]}
        self.assertEqual(statuses, {"w1.wav": "skipped", "w2.wav": "done", "w3.wav": "skipped"})
        self.assertIn("skipped", proc.stdout)
        self.assertIn("2 skipped", proc.stdout)
        self.assertEqual(os.stat(self.path("out/w1.npy")).st_mtime_ns, mtimes["w1.npy"])
        self.assertTrue(os.path.exists(self.path("out/w2.png")))
        # A .npy without its sidecar is not complete either.
        os.remove(self.path("out/w3.json"))
        proc = self.batch(self.path("dir"), extra=("--summary-json", summary), check=0)
        statuses = {os.path.basename(e["input"]): e["status"] for e in self.summary(summary)["files"]}
        self.assertEqual(statuses, {"w1.wav": "skipped", "w2.wav": "skipped", "w3.wav": "done"})
        proc = self.batch(self.path("dir"), extra=("--summary-json", summary, "--overwrite"), check=0)
        statuses = {os.path.basename(e["input"]): e["status"] for e in self.summary(summary)["files"]}
        self.assertEqual(statuses, {"w1.wav": "done", "w2.wav": "done", "w3.wav": "done"})
        self.assertNotEqual(os.stat(self.path("out/w1.npy")).st_mtime_ns, mtimes["w1.npy"])

    def test_colliding_templates_are_refused_before_anything_runs(self):
        os.mkdir(self.path("other"))
        write_wav_float(self.path("other/w1.wav"), RATE, np.zeros(4000, dtype=np.float32))
        proc = self.batch(self.path("dir"), self.path("other"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("two outputs map to", proc.stderr)
        self.assertIn("w1.npy", proc.stderr)
        self.assertFalse(os.path.exists(self.path("out")))
        # Several inputs into one fixed name.
        proc = run_prism("spectrogram", *self.wavs, "-o", self.path("one.npy"), *SETTINGS)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("two outputs map to", proc.stderr)
        self.assertFalse(os.path.exists(self.path("one.npy")))
        # Several inputs into one stream: not files, but not to be shared either.
        proc = run_prism("spectrogram", *self.wavs, "-o", "zmq:push:tcp://127.0.0.1:5999", *SETTINGS)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("two outputs map to zmq:push:tcp://127.0.0.1:5999", proc.stderr)
        # An output that would replace its input.
        proc = run_prism("spectrogram", self.path("dir"), "-o", "{dir}/{name}", *SETTINGS)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("is the input", proc.stderr)

    def test_bad_templates_and_patterns(self):
        proc = run_prism("spectrogram", self.path("dir"), "-o", self.path("out/{stam}.npy"), *SETTINGS)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("{stam}", proc.stderr)
        self.assertIn("{stem}", proc.stderr)
        proc = run_prism("spectrogram", self.path("dir"), "-o", self.path("out/{stem.npy"), *SETTINGS)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        proc = run_prism("spectrogram", self.path("nothing*.wav"), "-o", self.path("out/{stem}.npy"), *SETTINGS)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("nothing*.wav", proc.stderr)
        self.assertIn("matches no file", proc.stderr)

    def test_one_templated_input_is_a_batch_of_one(self):
        proc = run_prism("spectrogram", self.wavs[0], "-o", self.path("{stem}-spec.npy"), *SETTINGS, check=0)
        self.assertTrue(os.path.exists(self.path("w2-spec.npy")))
        self.assertIn("1 files", proc.stdout)


    def test_run_chain_over_many_inputs_equals_single_runs(self):
        summary = self.path("summary.json")
        chain = ("!", "fir:lowpass=1000,numtaps=31")
        outputs = ("-o", "spectrogram:nperseg=256 ! " + self.path("out/{stem}.npy"),
                   "-o", self.path("out/{stem}-lp.sigmf-meta"))
        proc = run_prism("run", self.sigmf, self.path("dir"), self.path("g*.cf32"), *chain, *outputs,
                         "--rate", RATE, "--summary-json", summary, "--jobs", 2, check=0)
        inputs = [self.sigmf] + sorted(self.wavs) + self.raws
        document = self.summary(summary)
        entries = document["files"]
        self.assertEqual([os.path.abspath(e["input"]) for e in entries], [os.path.abspath(p) for p in inputs])
        self.assertEqual(document["total"]["done"], len(inputs))
        self.assertIn(f"{len(inputs)} files", proc.stdout)
        for entry, path in zip(entries, inputs):
            stem = os.path.basename(path).split(".")[0]
            self.assertEqual(entry["status"], "done", entry)
            self.assertEqual(entry["outputs"], [self.path(f"out/{stem}.npy"), self.path(f"out/{stem}-lp.sigmf-meta")])
            self.assertGreater(entry["run"]["samples_read"], 0)
            run_prism("run", path, *chain, "-o", "spectrogram:nperseg=256 ! " + self.path(f"single-{stem}.npy"),
                      "-o", self.path(f"single-{stem}.sigmf-meta"), "--rate", RATE, "-q", check=0)
            for batch_file, single_file in ((f"out/{stem}.npy", f"single-{stem}.npy"),
                                            (f"out/{stem}-lp.sigmf-data", f"single-{stem}.sigmf-data")):
                self.assertEqual(read_bytes(self.path(batch_file)), read_bytes(self.path(single_file)), batch_file)

    def test_run_chain_batch_warnings_and_collisions(self):
        np.zeros(100, dtype=np.complex64).tofile(self.path("short.cf32"))  # 100 samples < nperseg 256
        summary = self.path("summary.json")
        run_prism("run", self.path("short.cf32"), self.raws[0], "-o", "spectrogram ! " + self.path("out/{stem}.npy"),
                  "--rate", RATE, "--summary-json", summary, check=0)
        entries = {os.path.basename(e["input"]): e for e in self.summary(summary)["files"]}
        self.assertEqual(len(entries["short.cf32"]["warnings"]), 1)
        self.assertIn("short.cf32: spectrogram: nperseg 256 is longer than the input (100 samples)",
                      entries["short.cf32"]["warnings"][0])
        self.assertEqual(entries["g1.cf32"]["warnings"], [])
        # Two inputs into one fixed name: refused before anything runs.
        proc = run_prism("run", *self.raws, "-o", "spectrogram ! " + self.path("one.npy"), "--rate", RATE)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("two outputs map to", proc.stderr)
        self.assertFalse(os.path.exists(self.path("one.npy")))

    def test_workers_share_the_devices_out_and_outputs_stay_the_same(self):
        # --device 0,0: worker w runs its files on device w mod 2, here the same device twice
        # (what a machine of one GPU can test). On the GPU backends (cli.cuda.test_batch runs
        # this test with --backend cuda) each file's outputs must still equal its single run's
        # byte for byte; on the CPU backend the devices go unused.
        summary = self.path("summary.json")
        inputs = [*self.raws, self.sigmf]
        proc = self.batch(*inputs, extra=("--summary-json", summary, "--jobs", "2", "--device", "0,0"), check=0)
        document = self.summary(summary)
        self.assertEqual(document["total"]["devices"], [0, 0])
        self.assertIn("2 jobs on devices 0,0", proc.stdout)
        for entry, path in zip(document["files"], inputs):
            stem = os.path.basename(path).split(".")[0]
            self.assertEqual((entry["status"], entry["device"]), ("done", 0), entry)
            run_prism("spectrogram", path, "-o", self.path(f"single-{stem}.npy"), *SETTINGS, "-q", check=0)
            self.assertEqual(read_bytes(self.path(f"out/{stem}.npy")), read_bytes(self.path(f"single-{stem}.npy")),
                             stem)
        # Fewer workers than devices: said.
        proc = self.batch(*inputs, extra=("--jobs", "1", "--device", "0,0", "--overwrite"), check=0)
        self.assertIn("--device 0,0: 1 worker(s) take the first 1 of the 2 devices", proc.stderr)
        if BACKEND in ("cuda", "cufft"):
            # Each worker's files run on its device: those of the worker given a device that does
            # not exist fail naming it, the others are done.
            proc = self.batch(*inputs, extra=("--summary-json", summary, "--jobs", "2", "--device", "0,1023",
                                              "--overwrite"))
            self.assertEqual(proc.returncode, 1, proc.stderr)
            entries = self.summary(summary)["files"]
            self.assertIn(1023, [e["device"] for e in entries])  # the second worker took a file
            for entry in entries:
                if entry["device"] == 1023:
                    self.assertEqual(entry["status"], "failed", entry)
                    self.assertIn("1023", entry["error"])
                else:
                    self.assertEqual((entry["status"], entry["device"]), ("done", 0), entry)

    def test_several_devices_need_several_inputs(self):
        proc = run_prism("spectrogram", self.raws[0], "-o", self.path("one.npy"), *SETTINGS, "--device", "0,1")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--device 0,1: 2 devices take a batch of inputs", proc.stderr)
        proc = run_prism("filter", self.raws[0], "--lowpass", "100", "-o", self.path("f.npy"), "--device", "0,1")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("this command takes one input, which runs on one device N", proc.stderr)
        for bad in ("x", "0,", "1024", "0;1", "-1", " 1"):
            with self.subTest(device=bad):
                proc = run_prism("spectrogram", *self.raws, "-o", self.path("out/{stem}.npy"), *SETTINGS,
                                 "--device", bad)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(f"--device: '{bad}' is not a device N (0..1023), a list N,M,... or all", proc.stderr)
        self.assertFalse(os.path.exists(self.path("out")))


if __name__ == "__main__":
    main()
