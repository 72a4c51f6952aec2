"""The faults a long run meets in the field, each provoked for real on the `prism` binary:

  DiskFull      the output's file system fills mid-run (a small tmpfs mounted by the test)
  KillNine      the process is killed with SIGKILL mid-run
  StdoutClosed  the reader of stdout has gone before prism writes to it
  ReadErrors    the input fails with EIO mid-file (a FUSE file system with a bad range), or
                shrinks while it is read
  Stall         a live input stops delivering without an error (the generator's stall key, and
                a pipe whose writer stops)
  CorruptWisdom the FFT wisdom file is garbage

Usage: test_faults.py PRISM CLASS. Exits 77 (ctest SKIP) when every test of CLASS skipped
because its mechanism is not available here (mounting needs root; FUSE needs /dev/fuse and
python3-fusepy), saying why.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import prism_test_util  # noqa: E402
from prism_test_util import TempDirTestCase, load_npy_with_sidecar, run_prism  # noqa: E402

SKIP = 77


def names_in(directory):
    return sorted(os.listdir(directory))


class MountedTestCase(TempDirTestCase):
    """A test case that mounts file systems under its temporary folder and unmounts them."""

    def setUp(self):
        super().setUp()
        self.mounts = []

    def tearDown(self):
        for point, proc in reversed(self.mounts):
            subprocess.run(["umount", "-l", point], capture_output=True)
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)
        super().tearDown()

    def mount_tmpfs(self, name, size):
        point = self.path(name)
        os.mkdir(point)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", point],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
        self.mounts.append((point, None))
        return point


class DiskFull(MountedTestCase):
    """The disk of one output fills: exit 1 naming it; every output removed, the full one's
    .partial included (docs/cli.md: a failed run leaves nothing behind)."""

    def expect_disk_full(self, args, full_output, all_dirs):
        proc = run_prism(*args, "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(full_output, proc.stderr)
        self.assertIn("No space left on device", proc.stderr)
        for directory in all_dirs:
            self.assertEqual(names_in(directory), [], f"{directory}: nothing may be left")

    def test_spectrogram_array_and_image(self):
        full = self.mount_tmpfs("full", "1m")
        other = self.path("other")
        os.mkdir(other)
        self.expect_disk_full(["spectrogram", "gen:rate=1e6,duration=5", "-o", f"{full}/s.npy",
                               "-o", f"{other}/s.png"], f"{full}/s.npy", [full, other])

    def test_recording_beside_a_sound_file(self):
        full = self.mount_tmpfs("full", "1m")
        other = self.path("other")
        os.mkdir(other)
        self.expect_disk_full(["run", "gen:rate=1e6,duration=5", "-o", f"{full}/r.sigmf-meta",
                               "-o", f"{other}/r.wav"], f"{full}/r.sigmf-data", [full, other])

    def test_flac(self):
        full = self.mount_tmpfs("full", "256k")
        self.expect_disk_full(["generate", "gen:rate=48000,duration=30,noise=0.3", "-o", f"{full}/g.flac"],
                              f"{full}/g.flac", [full])

    def test_tmpdir_of_an_npy_on_a_pipe(self):
        # -o - into a pipe spools the .npy in $TMPDIR until the end: a full TMPDIR is named, and
        # nothing reaches the pipe.
        full = self.mount_tmpfs("full", "1m")
        proc = subprocess.run([prism_test_util.PRISM, "spectrogram", "gen:rate=1e6,duration=5", "-o", "-", "-q"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                              env=dict(os.environ, TMPDIR=full), timeout=120)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("No space left on device", proc.stderr)
        self.assertIn(full, proc.stderr)
        self.assertIn("TMPDIR", proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertEqual(names_in(full), [])

    def test_live_input(self):
        # A live run loses what it captured when its output fails: the error names the output.
        full = self.mount_tmpfs("full", "1m")
        self.expect_disk_full(["run", "gen:rate=1e6,duration=inf,live", "-o", f"{full}/l.sigmf-meta"],
                              f"{full}/l.sigmf-data", [full])


class KillNine(TempDirTestCase):
    """SIGKILL mid-run: every file left carries its .partial name; none claims to be complete."""

    def test_only_partial_names_are_left(self):
        out = self.path("out")
        os.mkdir(out)
        proc = subprocess.Popen(
            [prism_test_util.PRISM, "run", "gen:rate=1e6,duration=inf", "-o", f"{out}/a.sigmf-meta",
             "-o", f"{out}/b.wav", "-o", f"spectrogram ! {out}/c.npy", "-o", f"spectrogram ! {out}/d.png",
             "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while time.time() < deadline and not any(
                os.path.getsize(p) > 0 for p in glob.glob(f"{out}/*")):
            time.sleep(0.05)
        time.sleep(0.5)
        proc.kill()
        proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        left = names_in(out)
        self.assertTrue(left, "the run had begun its outputs")
        for name in left:
            self.assertTrue(name.endswith(".partial"), f"{name} claims to be finished")
        self.assertTrue(any(os.path.getsize(f"{out}/{n}") > 0 for n in left), left)


class StdoutClosed(TempDirTestCase):
    """A reader of stdout that has gone (`prism ... | head -c 100` after head exited): every
    command ends cleanly, with its own exit code, never killed by SIGPIPE."""

    def run_with_closed_stdout(self, *args):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader has gone before prism writes anything
        try:
            return subprocess.run([prism_test_util.PRISM, *args], stdout=write_end, stderr=subprocess.PIPE,
                                  text=True, timeout=120)
        finally:
            os.close(write_end)

    def test_commands_that_write_to_stdout(self):
        cases = [
            (["stages"], 0),
            (["info", "gen", "--json"], 0),
            (["design", "--rate", "48000", "--lowpass", "3000", "--numtaps", "101"], 0),
            (["spectrogram", "gen:duration=0.5", "-o", self.path("s.npy")], 0),
            (["run", "gen:duration=0.5", "-o", "bogus:stage ! " + self.path("s.npy")], 2),
            # .npy to stdout: spooled until the end, then the copy meets the closed pipe.
            (["spectrogram", "gen:duration=0.5", "-o", "-", "-q"], 0),
            (["run", "gen:duration=0.5", "-o", "spectrogram ! -", "-q"], 0),
            (["run", "gen:duration=0.5", "-o", "-", "-q"], 0),
            (["filter", "gen:duration=0.5", "-o", "-", "--lowpass", "3000", "--numtaps", "31", "-q"], 0),
        ]
        for args, code in cases:
            with self.subTest(args=args):
                proc = self.run_with_closed_stdout(*args)
                self.assertEqual(proc.returncode, code, proc.stderr)
                self.assertNotIn("stdout", proc.stderr)

    def test_head_reading_the_start_of_a_long_output(self):
        # `prism stages` writes more than `head -c 100` reads; head exits and prism finishes.
        proc = subprocess.run(f"set -o pipefail; '{prism_test_util.PRISM}' stages | head -c 100",
                              shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(proc.stdout.encode()), 100)

    def test_head_reading_the_start_of_an_npy_on_stdout(self):
        proc = subprocess.run(f"set -o pipefail; '{prism_test_util.PRISM}' spectrogram gen:duration=2 -o - "
                              "| head -c 100", shell=True, executable="/bin/bash", capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout[:6], b"\x93NUMPY")
        self.assertEqual(len(proc.stdout), 100)

    def test_a_full_stdout_is_an_error(self):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([prism_test_util.PRISM, "stages"], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("stdout: write failed", proc.stderr)

    def test_a_full_stdout_fails_an_npy_output(self):
        # /dev/full is a character device: the .npy is spooled and its copy fails at the end.
        with open("/dev/full", "w") as full:
            proc = subprocess.run([prism_test_util.PRISM, "spectrogram", "gen:duration=0.5", "-o", "-"],
                                  stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("stdout: write failed", proc.stderr)


class ReadErrors(MountedTestCase):
    """An input that fails mid-file: exit 1 naming the file, no output left behind."""

    EIO_FS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eio_fs.py")

    def mount_bad_sectors(self, backing, bad_from):
        if not os.path.exists("/dev/fuse"):
            self.skipTest("no /dev/fuse here")
        probe = subprocess.run([sys.executable, "-c", "import fusepy"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest("python3-fusepy is not installed (scripts/install-deps)")
        point = self.path("bad")
        os.mkdir(point)
        proc = subprocess.Popen([sys.executable, self.EIO_FS, backing, point,
                                 *(f"{n}={b}" for n, b in bad_from.items())],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.mounts.append((point, proc))
        deadline = time.time() + 20
        while time.time() < deadline and proc.poll() is None and not os.listdir(point):
            time.sleep(0.05)
        if not os.listdir(point):
            self.skipTest("the FUSE file system did not mount: " +
                          (proc.stdout.read() if proc.poll() is not None else "no files after 20 s"))
        return point

    def expect_input_error(self, args, path, *words):
        out = self.path("out")
        os.makedirs(out, exist_ok=True)
        proc = run_prism(*args, "-o", f"{out}/o.npy", "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(path, proc.stderr)
        for word in words:
            self.assertIn(word, proc.stderr)
        self.assertEqual(names_in(out), [])

    def test_eio_mid_file(self):
        backing = self.path("backing")
        os.mkdir(backing)
        run_prism("generate", "gen:rate=48000,duration=20", "-o", f"{backing}/x.wav", "-q", check=0)
        run_prism("generate", "gen:rate=1e6,complex,duration=2", "-o", f"{backing}/x.sigmf-meta", "-q", check=0)
        with open(f"{backing}/x.f32", "wb") as f:
            f.write(os.urandom(4_000_000))
        bad = self.mount_bad_sectors(backing, {"x.wav": 2_000_000, "x.sigmf-data": 8_000_000,
                                               "x.f32": 1_000_000})
        # The bytes before the bad range read as they are: the failure is mid-file.
        self.expect_input_error(["spectrogram", f"{bad}/x.wav"], f"{bad}/x.wav", "Input/output error")
        self.expect_input_error(["spectrogram", f"{bad}/x.sigmf-meta"], f"{bad}/x.sigmf-data",
                                "Input/output error")
        self.expect_input_error(["spectrogram", f"{bad}/x.f32", "--format", "f32", "--rate", "1000"],
                                f"{bad}/x.f32", "Input/output error")

    def test_file_shrinks_while_read(self):
        # The file is cut to 3 MB while prism reads it: the reader finds its end before the
        # length it was promised.
        cases = [
            ("x.f32", ["--format", "f32", "--rate", "1e6"], "x.f32"),
            ("x.wav", [], "x.wav"),
            ("x.sigmf-meta", [], "x.sigmf-data"),
        ]
        for name, options, data_name in cases:
            with self.subTest(name=name):
                data = self.path(data_name)
                if name == "x.f32":
                    with open(data, "wb") as f:
                        f.write(os.urandom(80_000_000))
                else:
                    run_prism("generate", "gen:rate=1e6,duration=20" if name == "x.sigmf-meta"
                              else "gen:rate=48000,duration=400", "-o", self.path(name), "-q", check=0)
                out = self.path("out")
                os.makedirs(out, exist_ok=True)
                proc = subprocess.Popen(
                    [prism_test_util.PRISM, "run", self.path(name), *options, "!",
                     "fir:lowpass=1000,numtaps=4001", "-o", f"spectrogram ! {out}/o.npy", "-q"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                deadline = time.time() + 30
                while time.time() < deadline and proc.poll() is None and not os.path.exists(f"{out}/o.npy.partial"):
                    time.sleep(0.01)
                # Stopped while it reads (the whole run takes a fraction of a second on an idle
                # machine), so that the file shrinks between the length prism opened it with and
                # the end of its reading, whatever the machine's speed.
                proc.send_signal(signal.SIGSTOP)
                os.truncate(data, 3_000_000)
                proc.send_signal(signal.SIGCONT)
                _, stderr = proc.communicate(timeout=120)
                self.assertEqual(proc.returncode, 1, stderr)
                self.assertIn(data, stderr)
                self.assertRegex(stderr, "shrink|truncated")
                self.assertEqual(names_in(out), [])
                for p in glob.glob(self.path("x.*")):
                    os.remove(p)


class Stall(TempDirTestCase):
    """An input that stops delivering without an error or an end: after --stall-timeout the run
    fails naming the input, keeping what it captured, marked incomplete."""

    def expect_stall(self, proc, out):
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("delivered nothing for 1 s", proc.stderr)
        self.assertIn("--stall-timeout", proc.stderr)
        rows, meta = load_npy_with_sidecar(out)
        self.assertFalse(meta["complete"])
        self.assertGreater(rows.shape[0], 0)
        self.assertFalse(os.path.exists(out + ".partial"))

    def test_live_generator_that_hangs(self):
        out = self.path("s.npy")
        start = time.time()
        proc = run_prism("spectrogram", "gen:rate=48000,duration=inf,live,stall=0.5", "-o", out,
                         "--stall-timeout", "1", "--block-size", "4096", timeout=60)
        self.expect_stall(proc, out)
        self.assertIn("input gen:", proc.stderr)
        self.assertLess(time.time() - start, 30)
        summary = json.loads(run_prism("info", "gen:live,stall=0.5", "--json", check=0).stdout)
        self.assertTrue(summary["live"])

    def test_pipe_whose_writer_stops(self):
        out = self.path("p.npy")
        # 0.5 s of samples, then the writer sleeps with the pipe open.
        writer = subprocess.Popen([sys.executable, "-c",
                                   "import os, sys, time; os.write(1, bytes(4 * 24000)); time.sleep(60)"],
                                  stdout=subprocess.PIPE)
        try:
            proc = run_prism("spectrogram", "-", "--format", "f32", "--rate", "48000", "-o", out,
                             "--stall-timeout", "1", "--block-size", "4096", stdin=writer.stdout, timeout=60)
        finally:
            writer.kill()
            writer.wait()
        self.expect_stall(proc, out)
        self.assertIn("input stdin", proc.stderr)

    def test_bad_values_are_usage_errors(self):
        for value in ("-1", "nan", "inf", "x", "1e10", "1e300"):
            with self.subTest(value=value):
                proc = run_prism("spectrogram", "gen:duration=0.1", "-o", self.path("s.npy"),
                                 "--stall-timeout", value)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("--stall-timeout", proc.stderr)


class CorruptWisdom(TempDirTestCase):
    """A corrupt FFT wisdom file: `prism fft-tune` refuses it naming the file (exit 1) and leaves
    it as it is; runs that do not plan CUDA FFTs do not read it and complete."""

    CORRUPTIONS = {
        "truncated": b'{"version": 1, "entries": [{"gpu": "x", ',
        "binary": bytes(range(256)) * 4,
        "empty": b"",
        "wrong_types": b'{"version": "one", "entries": {"a": 1}}',
    }

    def test_corrupt_wisdom(self):
        for name, content in self.CORRUPTIONS.items():
            with self.subTest(name=name):
                wisdom = self.path(f"{name}.json")
                with open(wisdom, "wb") as f:
                    f.write(content)
                proc = run_prism("fft-tune", "--wisdom", wisdom, "--sizes", "256")
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn(wisdom, proc.stderr)
                with open(wisdom, "rb") as f:
                    self.assertEqual(f.read(), content, "the file is left for the user to look at")
                env = dict(os.environ, PRISM_FFT_WISDOM=wisdom)
                run = subprocess.run([prism_test_util.PRISM, "spectrogram", "gen:duration=0.2", "-o",
                                      self.path("s.npy"), "--backend", "cpu", "-q"],
                                     capture_output=True, text=True, env=env, timeout=60)
                self.assertEqual(run.returncode, 0, run.stderr)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: test_faults.py PRISM CLASS")
    prism_test_util.PRISM = os.path.abspath(sys.argv[1])
    suite = unittest.defaultTestLoader.loadTestsFromName(sys.argv[2], sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    if result.skipped and len(result.skipped) == result.testsRun:
        print("SKIP: " + "; ".join(reason for _, reason in result.skipped))
        sys.exit(SKIP)


if __name__ == "__main__":
    main()
