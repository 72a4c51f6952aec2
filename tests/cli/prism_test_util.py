"""Shared helpers for the command-line tests: running prism, writing inputs, loading outputs.

The tests run the real `prism` binary (its path comes as the first argument) and compare what
it writes with numpy/scipy from Debian's python3.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

PRISM = None  # set by main()


# PRISM_TEST_BACKEND=cuda|cufft|cpu: every `prism spectrogram`, `filter` and `run` gets --backend
# with it, so the same tests hold the GPU backends to scipy (main() skips, exit 77, when it is not
# available).
BACKEND = os.environ.get("PRISM_TEST_BACKEND", "")


def run_prism(*args, timeout=300, stdin=None, check=None, env=None):
    """Runs prism with args (and `env`'s variables beside the environment's); returns
    CompletedProcess (text output)."""
    if BACKEND and args and args[0] in ("spectrogram", "filter", "run"):
        args = (*args, "--backend", BACKEND)
    proc = subprocess.run([PRISM, *map(str, args)], capture_output=True, text=True,
                          errors="replace", timeout=timeout, stdin=stdin,
                          env=None if env is None else {**os.environ, **env})
    if check is not None and proc.returncode != check:
        raise AssertionError(
            f"prism {' '.join(map(str, args))} exited {proc.returncode}, expected {check}\n"
            f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def stage_entry(summary, name):
    """The entry of the first stage called `name` in a --summary-json file's "stages"."""
    for stage in summary["stages"]:
        if stage["name"] == name:
            return stage
    raise AssertionError(f"no stage {name!r} in the summary: {[s['name'] for s in summary['stages']]}")


def write_wav_float(path, rate, samples):
    """Writes a float32 WAV (mono or [n, channels])."""
    from scipy.io import wavfile
    wavfile.write(path, int(rate), np.asarray(samples, dtype=np.float32))


_READS_WAV = None


def prism_reads_wav():
    """Whether this prism was built with libsndfile (the GPU machine's build may lack it)."""
    global _READS_WAV
    if _READS_WAV is None:
        with tempfile.TemporaryDirectory(prefix="prism-probe-") as d:
            probe = os.path.join(d, "probe.wav")
            write_wav_float(probe, 8000, np.zeros(16))
            proc = subprocess.run([PRISM, "info", probe], capture_output=True, text=True,
                                  errors="replace", timeout=60)
            _READS_WAV = "without libsndfile" not in proc.stderr
    return _READS_WAV


def float_input(path, rate, samples):
    """Writes float samples ([n] or [n, channels]) as a WAV file, or as raw f32 where prism was
    built without libsndfile; returns the command-line arguments that name the input."""
    if prism_reads_wav():
        write_wav_float(path, rate, samples)
        return [path]
    x = np.asarray(samples, dtype=np.float32)
    raw = os.path.splitext(path)[0] + ".f32"
    x.tofile(raw)
    channels = 1 if x.ndim == 1 else x.shape[1]
    return [raw, "--format", "f32", "--rate", repr(float(rate)), "--channels", str(channels)]


def write_sigmf(base, rate, samples, datatype, center=0.0, extra_global=None):
    """Writes base.sigmf-data and base.sigmf-meta; samples already in the datatype's layout."""
    with open(base + ".sigmf-data", "wb") as f:
        f.write(np.ascontiguousarray(samples).tobytes())
    meta = {"global": {"core:datatype": datatype, "core:sample_rate": rate,
                       "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": center}],
            "annotations": []}
    if extra_global:
        meta["global"].update(extra_global)
    with open(base + ".sigmf-meta", "w") as f:
        json.dump(meta, f)


def load_npy_with_sidecar(path):
    data = np.load(path)
    sidecar = os.path.splitext(path)[0] + ".json"
    with open(sidecar) as f:
        meta = json.load(f)
    return data, meta


def rel_l2(out, ref):
    """||out - ref|| / ||ref||, complex values compared as complex."""
    dtype = np.complex128 if np.iscomplexobj(out) or np.iscomplexobj(ref) else np.float64
    ref = np.asarray(ref, dtype=dtype)
    out = np.asarray(out, dtype=dtype)
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-300))


class TempDirTestCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="prism-test-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)


def main():
    """unittest main that takes the prism path first and ends with 'N passed, N failed'."""
    global PRISM
    if len(sys.argv) < 2:
        sys.exit("usage: test.py PATH_TO_PRISM [unittest args]")
    PRISM = os.path.abspath(sys.argv[1])
    if BACKEND:
        with tempfile.TemporaryDirectory(prefix="prism-backend-") as tmp:
            probe = run_prism("spectrogram", "gen:duration=0.1", "-o", os.path.join(tmp, "p.npy"), "-q")
        if probe.returncode != 0:
            if any(s in probe.stderr for s in ("not available", "no CUDA device", "cannot run this build")):
                print(f"SKIP: --backend {BACKEND}: {probe.stderr.strip()}")
                sys.exit(77)
            sys.exit(f"--backend {BACKEND} fails: {probe.stderr.strip()}")
        print(f"backend: {BACKEND}")
    argv = [sys.argv[0]] + sys.argv[2:]
    program = unittest.main(argv=argv, exit=False, verbosity=2)
    result = program.result
    # A failing subTest is reported once per subtest: count each test method once.
    def method_id(test):
        return getattr(test, "test_case", test).id()
    failed = len({method_id(t) for t, _ in result.failures + result.errors})
    skipped = len({method_id(t) for t, _ in result.skipped})
    passed = result.testsRun - failed - skipped
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(0 if failed == 0 else 1)
