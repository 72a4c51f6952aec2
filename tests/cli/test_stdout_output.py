"""`-o -` (.npy to stdout) and --output-dtype (smaller .npy rows).

stdout takes the same .npy as a file output, whether it is a pipe (spooled in $TMPDIR, written at
the end) or a redirect to a file (written in place), for spectrogram rows, the rows and samples of
prism run and the samples of prism filter; the summary then goes to stderr. float16 rows equal the
float32 rows rounded by numpy; uint8 rows decoded with the sidecar's scale are within half a step
of the dB values.
"""
import io
import json
import os
import pty
import subprocess

import numpy as np

import prism_test_util
from prism_test_util import TempDirTestCase, load_npy_with_sidecar, run_prism

GEN = "gen:rate=8000,duration=1,tone=1000,noise=0.01"


def prism_to_pipe(*args, env=None):
    """Runs prism with stdout a pipe; returns (exit code, stdout bytes, stderr text)."""
    proc = subprocess.run([prism_test_util.PRISM, *map(str, args)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, env=env)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def prism_to_file(path, *args, mode="wb", prefix=b""):
    """Runs prism with stdout redirected to `path` (opened with `mode`, after `prefix`)."""
    with open(path, mode) as out:
        out.write(prefix)
        out.flush()
        proc = subprocess.run([prism_test_util.PRISM, *map(str, args)], stdout=out,
                              stderr=subprocess.PIPE, timeout=120)
    return proc.returncode, proc.stderr.decode(errors="replace")


class Stdout(TempDirTestCase):
    def expect_same_as_file(self, command, *args):
        file_out = self.path("file.npy")
        run_prism(command, *args, "-o", file_out, "-q", check=0)
        expected = np.load(file_out)
        self.assertGreater(expected.shape[0], 0)

        code, piped, err = prism_to_pipe(command, *args, "-o", "-", "-q")
        self.assertEqual(code, 0, err)
        from_pipe = np.load(io.BytesIO(piped))
        self.assertEqual(from_pipe.dtype, expected.dtype)
        np.testing.assert_array_equal(from_pipe, expected)
        self.assertEqual(len(piped), os.path.getsize(file_out))  # nothing else on stdout

        redirected = self.path("redirected.npy")
        code, err = prism_to_file(redirected, command, *args, "-o", "-", "-q")
        self.assertEqual(code, 0, err)
        np.testing.assert_array_equal(np.load(redirected), expected)
        return expected

    def test_spectrogram_rows(self):
        self.expect_same_as_file("spectrogram", GEN, "--nperseg", "256", "--db")

    def test_run_rows_and_samples(self):
        self.expect_same_as_file("run", GEN, "!", "spectrogram:nperseg=128")
        samples = self.expect_same_as_file("run", "gen:rate=8000,duration=0.5,complex,tone=300")
        self.assertEqual(samples.dtype, np.complex64)

    def test_filter_samples(self):
        self.expect_same_as_file("filter", GEN, "--lowpass", "1500", "--numtaps", "63")

    def test_generate_samples_and_its_line_on_stderr(self):
        self.expect_same_as_file("generate", "gen:rate=8000,duration=0.5,tone=300")
        # Without -q the line that says what was written goes to stderr, not after the array.
        run_prism("generate", "gen:rate=8000,duration=0.5,tone=300", "-o", self.path("g.npy"), "-q", check=0)
        code, piped, err = prism_to_pipe("generate", "gen:rate=8000,duration=0.5,tone=300", "-o", "-")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(piped), os.path.getsize(self.path("g.npy")))
        self.assertIn("wrote", err)

    def test_a_shell_pipe_into_numpy(self):
        # numpy.load seeks back after the magic, which a pipe cannot: read it into memory first.
        reader = "import io,numpy,sys; print(numpy.load(io.BytesIO(sys.stdin.buffer.read())).shape)"
        proc = subprocess.run(f"set -o pipefail; '{prism_test_util.PRISM}' spectrogram '{GEN}' --nperseg 256 -o - "
                              f"| /usr/bin/python3 -c '{reader}'", shell=True, executable="/bin/bash",
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        run_prism("spectrogram", GEN, "--nperseg", "256", "-o", self.path("f.npy"), "-q", check=0)
        self.assertEqual(proc.stdout.strip(), str(np.load(self.path("f.npy")).shape))
        self.assertIn("stdout", proc.stderr)  # the summary, on stderr

    def test_redirect_after_earlier_output_and_append(self):
        run_prism("spectrogram", GEN, "-o", self.path("f.npy"), "-q", check=0)
        expected = np.load(self.path("f.npy"))
        for mode in ("wb", "ab"):
            with self.subTest(mode=mode):
                out = self.path(f"out-{mode}")
                code, err = prism_to_file(out, "spectrogram", GEN, "-o", "-", "-q", mode=mode, prefix=b"HEAD")
                self.assertEqual(code, 0, err)
                with open(out, "rb") as f:
                    data = f.read()
                self.assertEqual(data[:4], b"HEAD")
                np.testing.assert_array_equal(np.load(io.BytesIO(data[4:])), expected)

    def test_summary_goes_to_stderr(self):
        code, piped, err = prism_to_pipe("spectrogram", GEN, "-o", "-")
        self.assertEqual(code, 0, err)
        self.assertIn("rows", err)
        self.assertIn("stdout (.npy)", err)
        self.assertEqual(piped[:6], b"\x93NUMPY")

    def test_sidecar_goes_where_named(self):
        sidecar = self.path("side.json")
        code, piped, err = prism_to_pipe("spectrogram", GEN, "--nperseg", "256", "-o", "-", "--sidecar", sidecar, "-q")
        self.assertEqual(code, 0, err)
        run_prism("spectrogram", GEN, "--nperseg", "256", "-o", self.path("f.npy"), "-q", check=0)
        rows, meta = load_npy_with_sidecar(self.path("f.npy"))
        with open(sidecar) as f:
            side = json.load(f)
        self.assertIsNone(side["data"])
        self.assertEqual(side["rows"], rows.shape[0])
        self.assertEqual(side["frequencies"], meta["frequencies"])
        self.assertEqual(side["times"], meta["times"])
        self.assertEqual(sorted(os.listdir(self.tmp)), ["f.json", "f.npy", "side.json"])

    def test_usage_errors(self):
        cases = [
            (["spectrogram", GEN, "-o", "-", "-o", "-"], "only one output can go to stdout"),
            (["spectrogram", GEN, "-o", self.path("a.npy"), "--sidecar", self.path("s.json")], "--sidecar"),
            (["spectrogram", GEN, "-o", "-", "--sidecar", self.path("s.txt")], ".json"),
            (["spectrogram", GEN, GEN, "-o", "-"], "a batch writes files"),
            (["spectrogram", GEN, "-o", "-", "-o", self.path("a.npy"), "--sidecar", self.path("a.json")],
             f"-o {self.path('a.npy')} and --sidecar {self.path('a.json')} both write"),
            (["run", GEN, "-o", "-", "-o", "spectrogram ! -"], "only one output can go to stdout"),
        ]
        for args, words in cases:
            with self.subTest(args=args):
                code, piped, err = prism_to_pipe(*args)
                self.assertEqual(code, 2, err)
                self.assertIn(words, err)
                self.assertEqual(piped, b"")

    def test_a_terminal_is_refused(self):
        leader, follower = pty.openpty()
        try:
            proc = subprocess.run([prism_test_util.PRISM, "spectrogram", GEN, "-o", "-"], stdout=follower,
                                  stderr=subprocess.PIPE, timeout=60)
        finally:
            os.close(follower)
            os.close(leader)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(b"stdout is a terminal", proc.stderr)

    def test_tmpdir_that_cannot_hold_the_spool_is_named(self):
        env = dict(os.environ, TMPDIR=self.path("missing"))
        code, piped, err = prism_to_pipe("spectrogram", GEN, "-o", "-", env=env)
        self.assertEqual(code, 1, err)
        self.assertIn(self.path("missing"), err)
        self.assertIn("TMPDIR", err)
        self.assertEqual(piped, b"")
        # A redirect to a file needs no spool.
        with open(self.path("out.npy"), "wb") as out:
            proc = subprocess.run([prism_test_util.PRISM, "spectrogram", GEN, "-o", "-", "-q"], stdout=out,
                                  stderr=subprocess.PIPE, env=env, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertGreater(np.load(self.path("out.npy")).shape[0], 0)
        # Nor does /dev/null.
        with open(os.devnull, "wb") as out:
            proc = subprocess.run([prism_test_util.PRISM, "spectrogram", GEN, "-o", "-", "-q"], stdout=out,
                                  stderr=subprocess.PIPE, env=env, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)


class OutputDtype(TempDirTestCase):
    def spectrogram(self, name, *args):
        run_prism("spectrogram", GEN, "--nperseg", "256", *args, "-o", self.path(name), "-q", check=0)
        return load_npy_with_sidecar(self.path(name))

    def test_float16_is_float32_rounded(self):
        # Any real rows: levels, dB, and the angles of mode angle (as prism run takes them).
        for db in ([], ["--db"], ["--mode", "angle"]):
            with self.subTest(db=db):
                full, _ = self.spectrogram("f32.npy", *db)
                half, meta = self.spectrogram("f16.npy", *db, "--output-dtype", "float16")
                self.assertEqual(half.dtype, np.float16)
                self.assertEqual(meta["dtype"], "float16")
                np.testing.assert_array_equal(half, full.astype(np.float16))

    def test_uint8_decodes_within_half_a_step(self):
        full, _ = self.spectrogram("f32.npy", "--db")
        lo, hi = -90.0, -10.0
        quantised, meta = self.spectrogram("u8.npy", "--db", "--output-dtype", "uint8", "--db-range", f"{lo}:{hi}")
        self.assertEqual(quantised.dtype, np.uint8)
        self.assertEqual(meta["dtype"], "uint8")
        scale = meta["scale"]
        self.assertEqual(scale["offset"], lo)
        self.assertAlmostEqual(scale["step"], (hi - lo) / 255)
        decoded = scale["offset"] + scale["step"] * quantised.astype(np.float64)
        expected = np.clip(full.astype(np.float64), lo, hi)
        self.assertLessEqual(np.max(np.abs(decoded - expected)), scale["step"] / 2 + 1e-9)
        # The test signal spans the range: both ends and the middle occur.
        self.assertEqual(quantised.min(), 0)
        self.assertGreater(len(np.unique(quantised)), 100)

    def test_uint8_of_integer_input_is_in_dbfs_as_the_png(self):
        # A full-scale i16 tone: its bin is 0 dBFS, so a range of -60:0 dBFS puts it at 255; the
        # sidecar's scale says dBFS and decodes to within a step of 0.
        wav = self.path("fs.wav")
        run_prism("generate", "gen:rate=8000,duration=0.5,tone=1000@0.99997,format=i16", "-o", wav, "-q", check=0)
        run_prism("spectrogram", wav, "--nperseg", "256", "--window", "hann", "--db", "--output-dtype", "uint8",
                  "--db-range=-60:0", "-o", self.path("u8.npy"), "-q", check=0)
        quantised, meta = load_npy_with_sidecar(self.path("u8.npy"))
        self.assertEqual(meta["scale"]["unit"], "dBFS")
        peak = meta["scale"]["offset"] + meta["scale"]["step"] * float(quantised.max())
        self.assertLess(abs(peak), meta["scale"]["step"] + 0.01)

    def test_uint8_rows_through_a_chain_and_stdout(self):
        code, piped, err = prism_to_pipe("run", GEN, "!", "spectrogram:nperseg=256,db", "-o", "-", "--output-dtype",
                                         "uint8", "--db-range=-100:0", "-q")
        self.assertEqual(code, 0, err)
        self.assertEqual(np.load(io.BytesIO(piped)).dtype, np.uint8)

    def test_refusals(self):
        out = self.path("x.npy")
        cases = [
            (["spectrogram", GEN, "--output-dtype", "uint8", "--db-range=-100:0"], "--db"),
            (["spectrogram", GEN, "--db", "--output-dtype", "uint8"], "--db-range"),
            (["spectrogram", GEN, "--mode", "complex", "--output-dtype", "float16"], "--mode complex"),
            (["spectrogram", GEN, "--mode", "mfcc", "--output-dtype", "uint8", "--db-range=-100:0"],
             "--mode mfcc rows are not levels"),
            (["spectrogram", GEN, "--mode", "angle", "--output-dtype", "uint8", "--db-range=-3:3"],
             "--mode angle rows are not levels"),
            (["run", GEN, "!", "spectrogram:mode=phase", "--output-dtype", "uint8", "--db-range=-3:3"],
             "these rows are angles in rad, not levels"),
            (["run", GEN, "!", "spectrogram:mode=mfcc", "--output-dtype", "uint8", "--db-range=-3:3"],
             "these rows are cepstral coefficients, not levels"),
            (["spectrogram", GEN, "--precision", "double", "--output-dtype", "uint8", "--db-range=-3:3"],
             "--precision double: ask for one or the other"),
            (["run", GEN, "!", "spectrogram", "--output-dtype", "uint8", "--db-range=-100:0"], "db setting"),
            (["run", GEN, "!", "spectrogram:mode=complex", "--output-dtype", "float16"], "complex rows"),
            (["spectrogram", GEN, "--output-dtype", "int8"], "--output-dtype"),
        ]
        for args, words in cases:
            with self.subTest(args=args):
                proc = run_prism(*args, "-o", out)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(words, proc.stderr)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    prism_test_util.main()
