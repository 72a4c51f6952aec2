"""prism's command line as a user meets it: bad inputs and bad options give a clear message
and the documented exit code (1 bad input, 2 usage), nothing crashes on garbage, output does
not depend on the block size, a batch run's accounting balances, Ctrl-C leaves honest files.
"""
import json
import os
import re
import signal
import struct
import subprocess
import time

import numpy as np

from prism_test_util import TempDirTestCase, float_input, load_npy_with_sidecar, main, run_prism, \
    write_sigmf, write_wav_float
import prism_test_util


class BadInput(TempDirTestCase):
    """Each unusable input: exit 1, a message naming the file and what is wrong."""

    def expect_input_error(self, path, *words, extra=()):
        proc = run_prism("spectrogram", path, "-o", self.path("out.npy"), "-q", *extra)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        stem = os.path.splitext(os.path.basename(path.rstrip("/")))[0]
        self.assertIn(stem, proc.stderr)
        for word in words:
            self.assertIn(word.lower(), proc.stderr.lower())
        self.assertFalse(os.path.exists(self.path("out.npy")), "no output for a failed run")
        self.assertFalse(os.path.exists(self.path("out.json")))

    def valid_wav_bytes(self, n=4000):
        p = self.path("valid.wav")
        write_wav_float(p, 8000, np.random.default_rng(1).uniform(-0.5, 0.5, n))
        with open(p, "rb") as f:
            return f.read()

    def test_empty_wav(self):
        p = self.path("empty.wav")
        open(p, "wb").close()
        self.expect_input_error(p)

    def test_truncated_wav(self):
        data = self.valid_wav_bytes()
        p = self.path("truncated.wav")
        with open(p, "wb") as f:
            f.write(data[: len(data) // 2])
        self.expect_input_error(p, "truncated", extra=["--strict"])

    def test_garbage_wav(self):
        p = self.path("garbage.wav")
        with open(p, "wb") as f:
            f.write(np.random.default_rng(2).integers(0, 256, 5000, dtype=np.uint8).tobytes())
        self.expect_input_error(p)

    def test_sigmf_missing_data_file(self):
        base = self.path("rec")
        write_sigmf(base, 1e6, np.zeros(100, np.complex64), "cf32_le")
        os.remove(base + ".sigmf-data")
        self.expect_input_error(base + ".sigmf-meta", "rec.sigmf-data")

    def test_sigmf_unknown_datatype(self):
        base = self.path("rec")
        write_sigmf(base, 1e6, np.zeros(100, np.complex64), "cq7_le")
        self.expect_input_error(base + ".sigmf-meta", "cq7_le")

    def test_sigmf_wrong_json(self):
        base = self.path("rec")
        write_sigmf(base, 1e6, np.zeros(100, np.complex64), "cf32_le")
        with open(base + ".sigmf-meta", "w") as f:
            f.write('{"global": {"core:datatype": "cf32_le", ')
        self.expect_input_error(base + ".sigmf-meta", "json")

    def test_sigmf_missing_rate(self):
        base = self.path("rec")
        write_sigmf(base, 1e6, np.zeros(100, np.complex64), "cf32_le")
        with open(base + ".sigmf-meta") as f:
            meta = json.load(f)
        del meta["global"]["core:sample_rate"]
        with open(base + ".sigmf-meta", "w") as f:
            json.dump(meta, f)
        self.expect_input_error(base + ".sigmf-meta", "sample_rate")

    def test_sigmf_data_not_whole_samples(self):
        base = self.path("rec")
        write_sigmf(base, 1e6, np.zeros(100, np.complex64), "cf32_le")
        with open(base + ".sigmf-data", "ab") as f:
            f.write(b"\x01\x02\x03")
        self.expect_input_error(base + ".sigmf-meta", "rec.sigmf-data", "whole", extra=["--strict"])

    def test_raw_not_whole_samples(self):
        p = self.path("odd.cf32")
        with open(p, "wb") as f:
            f.write(b"\0" * 8 * 100 + b"\0" * 5)
        self.expect_input_error(p, "whole", extra=["--rate", "1000", "--strict"])

    def test_directory(self):
        self.expect_input_error(self.tmp + "/", "directory")

    def test_missing_file(self):
        self.expect_input_error(self.path("nope.wav"), "no such file")

    def test_unreadable_file(self):
        # Tests may run as root, where permission bits do not stop reads; /proc/self/mem
        # opens but every read at offset 0 fails (EIO), which is what an unreadable disk does.
        proc = run_prism("spectrogram", "/proc/self/mem", "--format", "f32", "--rate", "1000",
                         "-o", self.path("out.npy"), "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("/proc/self/mem", proc.stderr)
        self.assertFalse(os.path.exists(self.path("out.npy")))

    def test_unwritable_output(self):
        p = self.path("in.wav")
        write_wav_float(p, 8000, np.zeros(1000))
        proc = run_prism("spectrogram", p, "-o", self.path("no/such/dir/out.npy"), "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("no/such/dir", proc.stderr)

    def test_nothing_crashes_on_garbage(self):
        rng = np.random.default_rng(3)
        names = ["g.wav", "g.flac", "g.ogg", "g.sigmf-meta", "g.cf32", "g.bin"]
        for size in (0, 1, 3, 44, 100, 4096):
            for name in names:
                p = self.path(name)
                with open(p, "wb") as f:
                    f.write(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
                if name.endswith(".sigmf-meta"):
                    with open(self.path("g.sigmf-data"), "wb") as f:
                        f.write(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
                proc = run_prism("spectrogram", p, "--rate", "1000", "--format", "ci16", "-o",
                                 self.path("o.npy"), "-q")
                with self.subTest(name=name, size=size):
                    self.assertIn(proc.returncode, (0, 1), proc.stderr)
                    if proc.returncode == 1:
                        self.assertTrue(proc.stderr.startswith("prism: "), proc.stderr)


class UsageErrors(TempDirTestCase):
    """Bad options: exit 2, and the message names the option."""

    def expect_usage_error(self, option, *args):
        proc = run_prism(*args)
        self.assertEqual(proc.returncode, 2, f"{args}: {proc.stderr}")
        self.assertIn(option, proc.stderr)

    def test_bad_options(self):
        self.expect_usage_error("--nperseg", "spectrogram", "--nperseg", "abc")
        self.expect_usage_error("--nperseg", "spectrogram", "--nperseg", "0")
        self.expect_usage_error("--noverlap", "spectrogram", "--nperseg", "256", "--noverlap", "256")
        self.expect_usage_error("--nfft", "spectrogram", "--nperseg", "256", "--nfft", "100")
        self.expect_usage_error("--window", "spectrogram", "--window", "hanning-ish")
        self.expect_usage_error("kaiser", "spectrogram", "--window", "kaiser")
        self.expect_usage_error("--detrend", "spectrogram", "--detrend", "quadratic")
        self.expect_usage_error("--scaling", "spectrogram", "--scaling", "power")
        self.expect_usage_error("--backend", "spectrogram", "--backend", "opencl")
        self.expect_usage_error("--average", "spectrogram", "--average", "0")
        self.expect_usage_error("--average", "spectrogram", "--average", "4:median")
        self.expect_usage_error("--format", "spectrogram", "x.raw", "--format", "cf128", "--rate", "1")
        self.expect_usage_error("--db-range", "spectrogram", "--db-range", "-20:-80")
        self.expect_usage_error("--colour", "spectrogram", "--colour", "red")
        self.expect_usage_error("--channel", "spectrogram", "--channel", "3")
        self.expect_usage_error("--duration", "spectrogram", "--duration", "0")
        self.expect_usage_error("--duration", "spectrogram", "--duration", "-1")
        # "--name=" with nothing after the '=' is refused, not read as "--name" taking the next
        # argument (which would make "-o" the FFT length and the output a second input).
        out = self.path("nothing.png")
        proc = run_prism("spectrogram", "gen", "--nperseg=", "-o", out)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--nperseg= has no value after the '=': write --nperseg=VALUE", proc.stderr)
        self.assertFalse(os.path.exists(out))
        proc = run_prism("spectrogram", "gen", "--npersge=", "-o", out)  # not an option: the usual hint
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("did you mean --nperseg?", proc.stderr)
        # SDR settings on an input that is no SDR would do nothing: refused, naming the input,
        # also when given at their defaults' values.
        for option, value in (("--gain", "20"), ("--antenna", "RX2"), ("--sdr-channel", "1"),
                              ("--sdr-stream-args", "bufflen=1024"), ("--open-timeout", "5"),
                              ("--sdr-channel", "0"), ("--antenna", ""), ("--sdr-stream-args", ""),
                              ("--open-timeout", "30")):
            proc = run_prism("spectrogram", "gen", option, value, "-o", self.path("g.npy"))
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("--gain", proc.stderr)
            self.assertIn("gen (generator)", proc.stderr)
        self.expect_usage_error("spectrogramm", "spectrogramm")

    def test_view_options_named_as_options(self):
        # The viewer's checks name the option given, not the settings file's key; refused before
        # a window opens (no display needed).
        if "not in this build" in run_prism("view", "--frames", "1", "--size", "1x1").stderr:
            self.skipTest("no viewer in this build")
        for option, key, args in (("--overlap", "overlap", ("--overlap", "0.99")),
                                  ("--frequency-range", "view_low_hz", ("--frequency-range", "3000:1000")),
                                  ("--db-range", "db_min", ("--db-range", "-10:-50")),
                                  ("--averaging", "averaging_s", ("--averaging", "-1")),
                                  ("--lines-per-second", "lines_per_second", ("--lines-per-second", "0")),
                                  ("--hold-decay", "hold_decay_db_per_s", ("--hold-decay", "-1")),
                                  ("--colormap", "colormap '", ("--colormap", "jet"))):
            proc = run_prism("view", "--no-config", "--frames", "1", *args)
            self.assertEqual(proc.returncode, 2, f"{args}: {proc.stderr}")
            self.assertIn(option, proc.stderr)
            self.assertNotIn(key, proc.stderr.replace(option, ""))

    def test_view_checks_an_audio_devices_options(self):
        # The viewer opens audio: with its own settings but the checks of every input: SDR
        # settings, a format other than f32 and a centre frequency that is not a number are
        # refused before any device or window opens.
        if "not in this build" in run_prism("view", "--frames", "1", "--size", "1x1").stderr:
            self.skipTest("no viewer in this build")
        for option, value in (("--gain", "10"), ("--open-timeout", "30")):
            proc = run_prism("view", "audio:", "--no-config", "--frames", "1", option, value)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("are for SDR input (sdr:...), not for audio: (audio device)", proc.stderr)
        proc = run_prism("view", "audio:", "--no-config", "--frames", "1", "--format", "ci16")
        if "built without PortAudio" not in proc.stderr:
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("--format ci16 contradicts audio: (an audio device delivers f32", proc.stderr)
        for command in (("view", "audio:", "--no-config", "--frames", "1"),
                        ("spectrogram", "audio:", "-o", self.path("a.npy"))):
            proc = run_prism(*command, "--center-frequency", "nan")
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("--center-frequency must be a finite number of Hz", proc.stderr)

    def test_view_opens_inputs_as_the_processing_commands(self):
        # An empty input is refused, and --strict refuses a recording cut short, before a window
        # opens; without --strict the cut recording is read with the same warning.
        if "not in this build" in run_prism("view", "--frames", "1", "--size", "1x1").stderr:
            self.skipTest("no viewer in this build")
        empty = self.path("empty.cf32")
        open(empty, "wb").close()
        proc = run_prism("view", empty, "--rate", "1000", "--no-config", "--frames", "1")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("empty.cf32: no samples (empty input)", proc.stderr)
        odd = self.path("odd.cf32")
        with open(odd, "wb") as f:
            f.write(b"\0" * 805)
        proc = run_prism("view", odd, "--rate", "1000", "--no-config", "--frames", "1", "--strict")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("odd.cf32: 805 bytes is not a whole number of samples", proc.stderr)
        self.assertNotIn("warning", proc.stderr)
        # (Without a display the window then fails to open: the input was opened before.)
        proc = run_prism("view", odd, "--rate", "1000", "--no-config", "--frames", "1")
        self.assertIn("warning: " + odd + ": 805 bytes is not a whole number of samples", proc.stderr)
        self.expect_usage_error("--stall-timeout", "view", "--stall-timeout", "-1")

    def test_sdr_that_is_not_there(self):
        # SoapySDR has no module of that name: exit 1, the spec named, what SoapySDR found said.
        proc = run_prism("spectrogram", "sdr:driver=prism_no_such_driver", "-o", self.path("s.npy"), "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("sdr:driver=prism_no_such_driver", proc.stderr)
        self.assertIn("no SDR matches", proc.stderr)
        self.assertIn("SoapySDR found", proc.stderr)
        self.assertFalse(os.path.exists(self.path("s.npy")))
        proc = run_prism("info", "sdr:driver=prism_no_such_driver")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("no SDR matches", proc.stderr)

    def test_raw_without_rate(self):
        p = self.path("x.cf32")
        np.zeros(100, np.complex64).tofile(p)
        self.expect_usage_error("--rate", "spectrogram", p, "-o", self.path("o.npy"))

    def test_unknown_output_extension(self):
        self.expect_usage_error("out.txt", "spectrogram", "-o", self.path("out.txt"))

    def test_help_teaches(self):
        proc = run_prism("spectrogram", "--help")
        self.assertEqual(proc.returncode, 0)
        for word in ("--nperseg", "--noverlap", "--window", "kaiser", "gen", "--format", "Exit codes",
                     "audio:", "sdr:driver=rtlsdr", "--gain", "--duration"):
            self.assertIn(word, proc.stdout)


class Streaming(TempDirTestCase):
    def test_output_does_not_depend_on_block_size(self):
        rng = np.random.default_rng(4)
        x = (rng.uniform(-0.5, 0.5, 5000) + 1j * rng.uniform(-0.5, 0.5, 5000)).astype(np.complex64)
        p = self.path("x.cf32")
        x.tofile(p)
        reference = None
        for block in (1, 2, 7, 100, 333, 4096, 100000):
            out = self.path(f"b{block}.npy")
            run_prism("spectrogram", p, "--format", "cf32", "--rate", "1e6", "--nperseg", 100,
                      "--noverlap", 37, "--nfft", 128, "--window", "kaiser:6", "--block-size",
                      block, "-o", out, "-q", check=0)
            with open(out, "rb") as f:
                data = f.read()
            if reference is None:
                reference = data
            self.assertEqual(data, reference, f"block size {block} changed the output")

    def test_batch_accounting_balances(self):
        n = 123457
        inp = float_input(self.path("x.wav"), 48000, np.random.default_rng(5).uniform(-0.5, 0.5, n))
        summary = self.path("summary.json")
        run_prism("spectrogram", *inp, "-o", self.path("a.npy"), "-o", self.path("a.png"),
                  "--nperseg", 500, "--noverlap", 100, "--average", "3", "--block-size", 1000,
                  "--summary-json", summary, "-q", check=0)
        with open(summary) as f:
            s = json.load(f)
        frames = (n - 500) // 400 + 1
        self.assertEqual(s["outcome"], "completed")
        self.assertEqual(s["samples_read"], n)
        self.assertEqual(s["samples_dropped"], 0)
        spectrogram = prism_test_util.stage_entry(s, "spectrogram")
        self.assertEqual(spectrogram["items_in"], n)
        self.assertEqual(spectrogram["frames"], frames)
        self.assertEqual(spectrogram["tail_samples"], n - ((frames - 1) * 400 + 500))
        self.assertEqual(spectrogram["items_out"], frames // 3)
        self.assertEqual(spectrogram["frames_unaveraged"], frames % 3)
        self.assertEqual(len(s["outputs"]), 2)
        for output in s["outputs"]:
            self.assertEqual(output["items_delivered"], frames // 3)
            self.assertEqual(output["items_written"], frames // 3)
        self.assertEqual(s["accounting"], "balanced")
        rows, _ = load_npy_with_sidecar(self.path("a.npy"))
        self.assertEqual(rows.shape[0], frames // 3)

    def test_memory_stays_bounded_for_an_input_100_times_the_pool(self):
        if os.environ.get("PRISM_TEST_SANITIZED"):
            self.skipTest("AddressSanitizer's shadow memory and quarantine count in the resident memory; "
                          "the bound is checked in the uninstrumented build")
        # A 1 MiB pool (4 blocks of 65536 f32 samples) and a 100 MiB recording.
        p = self.path("big.f32")
        chunk = np.random.default_rng(7).uniform(-0.5, 0.5, 1 << 20).astype(np.float32)
        with open(p, "wb") as f:
            for _ in range(25):
                chunk.tofile(f)
        summary = self.path("big.json")
        run_prism("spectrogram", p, "--format", "f32", "--rate", "48000", "--block-size", 65536,
                  "--blocks", 4, "--nperseg", 1024, "--noverlap", 0, "-o", self.path("big.npy"),
                  "--summary-json", summary, "-q", check=0)
        with open(summary) as f:
            s = json.load(f)
        self.assertEqual(prism_test_util.stage_entry(s, "spectrogram")["items_in"], 25 << 20)
        # The source's 4 chunks of 256 KiB and the rows' 4 chunks (64 rows of 513 floats each).
        page = 4096
        self.assertEqual(s["host_pool_bytes"], (1 << 20) + 4 * -(-64 * 513 * 4 // page) * page)
        self.assertGreater(s["samples_read"] * 4, 60 * s["host_pool_bytes"])
        self.assertLess(s["peak_rss_bytes"], 48 << 20,
                        "peak resident memory must not grow with the input")

    def test_stdin_input(self):
        x = np.random.default_rng(6).integers(-2000, 2000, 20000, dtype=np.int16)
        out = self.path("stdin.npy")
        proc = subprocess.run([prism_test_util.PRISM, "spectrogram", "-", "--format", "i16",
                               "--rate", "8000", "-o", out, "-q"], input=x.tobytes(),
                              capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows, meta = load_npy_with_sidecar(out)
        self.assertEqual(rows.shape[1], 129)

    def test_duration_takes_the_start_of_the_input(self):
        # 0.25 s of the 10 s generator at 48 kHz: exactly 12000 samples, the run complete; the
        # rows equal the first rows of the whole signal's.
        short, whole = self.path("short.npy"), self.path("whole.npy")
        summary = self.path("summary.json")
        run_prism("spectrogram", "gen", "--duration", "0.25", "--nperseg", 512, "--block-size", 5000,
                  "-o", short, "--summary-json", summary, "-q", check=0)
        run_prism("spectrogram", "gen", "--nperseg", 512, "-o", whole, "-q", check=0)
        with open(summary) as f:
            s = json.load(f)
        self.assertEqual(s["outcome"], "completed")
        self.assertEqual(s["samples_read"], 12000)
        self.assertEqual(prism_test_util.stage_entry(s, "spectrogram")["items_in"], 12000)
        self.assertEqual(s["accounting"], "balanced")
        rows, meta = load_npy_with_sidecar(short)
        whole_rows, _ = load_npy_with_sidecar(whole)
        self.assertTrue(meta["complete"])
        self.assertEqual(rows.shape[0], (12000 - 512) // 448 + 1)
        np.testing.assert_array_equal(rows, whole_rows[: rows.shape[0]])

    def test_ctrl_c_leaves_an_honest_partial_output(self):
        out = self.path("endless.npy")
        proc = subprocess.Popen([prism_test_util.PRISM, "spectrogram", "gen:duration=inf,rate=1e6,noise=0.1",
                                 "-o", out, "--nperseg", "1024"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, stderr)
        self.assertIn("interrupted", stdout + stderr)
        rows, meta = load_npy_with_sidecar(out)
        self.assertFalse(meta["complete"])
        self.assertGreater(rows.shape[0], 0)
        self.assertEqual(meta["rows"], rows.shape[0])
        self.assertFalse(os.path.exists(out + ".partial"))


class GpuFaults(TempDirTestCase):
    """PRISM_CUDA_FAULT on the GPU backends: a CUDA call of each kind failing mid-run ends the run
    with exit 1, its error naming the call and the fault, and no output left behind; one that
    prism works round leaves the rows unchanged."""

    def setUp(self):
        super().setUp()
        if prism_test_util.BACKEND not in ("cuda", "cufft"):
            self.skipTest("a GPU backend's run (PRISM_TEST_BACKEND cuda or cufft)")

    def test_each_kind_of_failing_cuda_call_ends_the_run_cleanly(self):
        # 4 s of samples in 47 chunks. A fault may land where prism has a way round it (a launch
        # during the set-up's CUDA-graph capture falls back to direct launches): that run must
        # then give the clean run's rows. Later calls land mid-run, where the run must fail.
        args = ("spectrogram", "gen:duration=4", "--block-size", "4096", "-o")
        clean = self.path("clean.npy")
        run_prism(*args, clean, check=0, timeout=120)
        expected = np.load(clean)
        kinds = ["alloc", "copy", "launch", "sync", "event"] + (["fft"] if prism_test_util.BACKEND == "cufft" else [])
        for kind in kinds:
            failed = False
            for call in (3, 20, 40):
                folder = self.path(f"{kind}{call}")
                os.mkdir(folder)
                out = os.path.join(folder, "s.npy")
                proc = run_prism(*args, out, env={"PRISM_CUDA_FAULT": f"{kind}@{call}"}, timeout=120)
                label = f"{kind}@{call}: {proc.stderr}"
                if proc.returncode == 0:
                    np.testing.assert_array_equal(np.load(out), expected, err_msg=label)
                    continue
                failed = True
                self.assertEqual(proc.returncode, 1, label)
                self.assertIn("fault injected by PRISM_CUDA_FAULT", proc.stderr, label)
                if kind != "alloc":
                    self.assertIn(f"PRISM_CUDA_FAULT={kind}@{call}", proc.stderr, label)
                self.assertEqual(os.listdir(folder), [], f"{label}: outputs left behind")
            self.assertTrue(failed, f"{kind}: no run failed at calls 3, 20 or 40")

    def test_an_unknown_kind_is_a_usage_error_naming_the_variable(self):
        proc = run_prism("spectrogram", "gen:duration=1", "-o", self.path("s.npy"),
                         env={"PRISM_CUDA_FAULT": "melt@1"}, timeout=120)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("PRISM_CUDA_FAULT='melt@1'", proc.stderr)


class OtherCommands(TempDirTestCase):
    def test_generate_then_info_then_spectrogram(self):
        meta = self.path("iq.sigmf-meta")
        run_prism("generate", "gen:rate=1e6,complex,tone=100e3@0.5,duration=0.5", "-o", meta, "-q",
                  check=0)
        info = run_prism("info", meta, "--json", check=0)
        d = json.loads(info.stdout)
        self.assertEqual(d["format"], "cf32")
        self.assertEqual(d["sample_rate"], 1e6)
        self.assertEqual(d["length_samples"], 500000)
        out = self.path("iq.npy")
        run_prism("spectrogram", meta, "-o", out, "--nperseg", 1000, "--window", "hann", "-q",
                  check=0)
        rows, m = load_npy_with_sidecar(out)
        peak = np.array(m["frequencies"])[np.argmax(rows.mean(axis=0))]
        self.assertAlmostEqual(peak, 100e3, delta=1e3)

    def test_generate_wav(self):
        wav = self.path("t.wav")
        run_prism("generate", "gen:tone=440,duration=0.25", "-o", wav, "-q", check=0)
        from scipy.io import wavfile
        rate, data = wavfile.read(wav)
        self.assertEqual(rate, 48000)
        self.assertEqual(len(data), 12000)

    def test_generate_help_lists_what_it_writes(self):
        help_text = run_prism("generate", "--help", check=0).stdout
        for extension in (".sigmf-meta", ".sigmf-data", ".sigmf", ".wav", ".flac", ".ogg"):
            with self.subTest(extension=extension):
                self.assertIn(extension, help_text)
                base = "t" + extension.replace(".", "_")
                run_prism("generate", "gen:tone=440,duration=0.05", "-o", self.path(base + extension), "-q",
                          check=0)
                written = [f for f in os.listdir(self.tmp) if f.startswith(base + ".")]
                self.assertTrue(written)
                self.assertTrue(all(os.path.getsize(self.path(f)) > 0 for f in written), written)

    def test_view_help_gives_every_setting_a_default(self):
        help_text = run_prism("view", "--help", check=0).stdout
        lines = {line.split()[0]: line for line in help_text.splitlines() if line.strip().startswith("--")}
        for option in ("--fft-size", "--window", "--overlap", "--channel", "--averaging", "--peak-hold",
                       "--min-hold", "--hold-decay", "--db-range", "--colormap", "--lines-per-second",
                       "--speed", "--loop", "--backend"):
            with self.subTest(option=option):
                self.assertRegex(lines[option], r"\[default: [^]]+\]|=\S+\s")

    def test_view_listen_options_refuse_bad_values(self):
        help_text = run_prism("view", "--help", check=0).stdout
        if "--listen-bandwidth" not in help_text:
            self.skipTest("this prism was built without the viewer")
        for args, named in ((["--demodulator", "fm"], "--demodulator 'fm' is unknown"),
                            (["--listen-bandwidth", "100"], "--listen-bandwidth 100 is out of range for am"),
                            (["--demodulator", "usb", "--listen-bandwidth", "20000"],
                             "--listen-bandwidth 20000 is out of range for usb"),
                            (["--volume", "41"], "--volume must be in [-60, 40] dB"),
                            (["--listen", "nan"], "--listen must be a finite frequency")):
            with self.subTest(args=args):
                proc = run_prism("view", "--no-config", *args, check=2)
                self.assertIn(named, proc.stderr)

    def test_spectrogram_help_says_which_tukey(self):
        help_text = run_prism("spectrogram", "--help", check=0).stdout
        self.assertIn("tukey alone is tukey:0.5", help_text)
        self.assertIn("--window NAME[:P]=tukey:0.25", help_text)

    def test_default_run_writes_png(self):
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            proc = run_prism("spectrogram", check=0)
        finally:
            os.chdir(cwd)
        self.assertRegex(proc.stdout, r"accounting +balanced")
        with open(self.path("spectrogram.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_devices(self):
        proc = run_prism("devices", check=0)
        self.assertIn("cpu", proc.stdout)
        self.assertIn("GPUs:", proc.stdout)
        self.assertIn("Audio devices:", proc.stdout)
        self.assertIn("SDRs (use as sdr:ARGS):", proc.stdout)
        # With no SDR attached, the list and the SDR input's error say the same of SoapySDR's
        # driver modules; every device is listed once.
        sdrs = proc.stdout.split("SDRs (use as sdr:ARGS):\n", 1)[1].splitlines()
        self.assertEqual(len(sdrs), len(set(sdrs)), proc.stdout)
        none = re.match(r"  none found \((.*)\)$", sdrs[0]) if sdrs else None
        if none:
            error = run_prism("info", "sdr:").stderr
            self.assertIn(f"SoapySDR found no device ({none.group(1)})", error)

class StartAndDuration(TempDirTestCase):
    """--start T (seconds) or Ns (samples) with --duration: the rows of that part of the input,
    with the input's own time axis, whichever way the input is read."""

    def test_a_part_equals_those_rows_of_the_whole(self):
        rate, hop = 8000, 224  # nperseg 256, noverlap 32: a start at a whole hop keeps the frames
        x = np.random.default_rng(5).uniform(-0.5, 0.5, 40000).astype(np.float32)
        x.tofile(self.path("x.f32"))
        write_sigmf(self.path("x"), rate, x.astype(np.complex64), "cf32_le")
        raw = ["--format", "f32", "--rate", str(rate)]
        inputs = {"raw": [self.path("x.f32"), *raw], "wav": float_input(self.path("x.wav"), rate, x),
                  "sigmf": [self.path("x.sigmf-meta")]}
        for name, inp in inputs.items():
            with self.subTest(input=name):
                run_prism("spectrogram", *inp, "-o", self.path("whole.npy"), "-q", check=0)
                whole, whole_meta = load_npy_with_sidecar(self.path("whole.npy"))
                for start in (f"{40 * hop}s", repr(40 * hop / rate)):
                    run_prism("spectrogram", *inp, "--start", start, "--duration", "1", "-o",
                              self.path("part.npy"), "-q", check=0)
                    part, meta = load_npy_with_sidecar(self.path("part.npy"))
                    frames = (rate - 256) // hop + 1
                    self.assertEqual(part.shape[0], frames, start)
                    np.testing.assert_array_equal(part, whole[40:40 + frames])
                    np.testing.assert_allclose(meta["times"], whole_meta["times"][40:40 + frames], rtol=1e-12)
                    self.assertEqual(meta["input"]["length"], 40000 - 40 * hop)
        # stdin cannot seek: the samples before the start are read and dropped, same rows.
        with open(self.path("x.f32"), "rb") as stdin:
            run_prism("spectrogram", "-", *raw, "--start", f"{40 * hop}s", "-o", self.path("pipe.npy"),
                      "-q", stdin=stdin, check=0)
        run_prism("spectrogram", self.path("x.f32"), *raw, "-o", self.path("whole.npy"), "-q", check=0)
        pipe, _ = load_npy_with_sidecar(self.path("pipe.npy"))
        whole, _ = load_npy_with_sidecar(self.path("whole.npy"))
        np.testing.assert_array_equal(pipe, whole[40:])
        # prism run and prism filter take it too.
        run_prism("run", self.path("x.f32"), *raw, "--start", "1", "-o", self.path("run.npy"), "-q", check=0)
        samples, _ = load_npy_with_sidecar(self.path("run.npy"))
        np.testing.assert_array_equal(samples.reshape(-1), x[rate:])

    def test_a_start_keeps_times_and_labels_through_a_decimating_stage(self):
        # 4 s at 8 kHz, started at 2 s, decimated by 4: the rows' times, the samples' labels and a
        # SigMF output all count from the recording's start (the start is seconds, not samples).
        rate = 8000
        x = np.random.default_rng(6).uniform(-0.5, 0.5, 4 * rate).astype(np.complex64)
        write_sigmf(self.path("rec"), rate, x, "cf32_le", center=100e6)
        with open(self.path("rec.sigmf-meta")) as f:
            meta = json.load(f)
        meta["captures"][0]["core:datetime"] = "2024-05-01T12:00:00Z"
        meta["captures"].append({"core:sample_start": 1 * rate, "core:frequency": 101e6})
        meta["captures"].append({"core:sample_start": 3 * rate, "core:frequency": 102e6})
        meta["annotations"] = [{"core:sample_start": rate, "core:sample_count": 2 * rate, "core:label": "across"},
                               {"core:sample_start": 0, "core:sample_count": rate, "core:label": "before"}]
        with open(self.path("rec.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        fir = "fir:numtaps=31,lowpass=800,decimate=4"
        run_prism("run", self.path("rec.sigmf-meta"), "--start", "2", "-o",
                  f"{fir} ! spectrogram:nperseg=256,noverlap=0 ! {self.path('rows.npy')}",
                  "-o", f"{fir} ! {self.path('out.sigmf-meta')}", "-q", check=0)
        _, rows = load_npy_with_sidecar(self.path("rows.npy"))
        self.assertAlmostEqual(rows["times"][0], 2 + 128 / 2000, places=9)
        with open(self.path("out.sigmf-meta")) as f:
            out = json.load(f)
        self.assertEqual(out["global"]["core:sample_rate"], 2000)
        self.assertEqual(out["captures"][0]["core:datetime"], "2024-05-01T12:00:02Z")
        self.assertEqual([(c["core:sample_start"], c["core:frequency"]) for c in out["captures"]],
                         [(0, 101e6), (2000, 102e6)])
        self.assertEqual([(a["core:sample_start"], a["core:sample_count"], a["core:label"])
                          for a in out["annotations"]], [(0, 2000, "across")])

    def test_a_file_is_not_read_up_to_the_start(self):
        # A sparse raw file of 1 TiB (no disk used): reading up to its end would take many
        # minutes; seeking takes none.
        path = self.path("huge.cf32")
        with open(path, "wb") as f:
            f.truncate(1 << 40)
        run_prism("spectrogram", path, "--rate", "1e6", "--start", f"{(1 << 37) - 100000}s", "-o",
                  self.path("end.npy"), "-q", timeout=60, check=0)
        rows, meta = load_npy_with_sidecar(self.path("end.npy"))
        self.assertEqual(meta["input"]["length"], 100000)
        self.assertAlmostEqual(meta["times"][0], ((1 << 37) - 100000 + 128) / 1e6)

    def test_bad_starts_are_usage_errors(self):
        cases = [("-1", "expected seconds"), ("abc", "expected seconds"), ("11", "past the end"),
                 ("80000s", "past the end")]
        for start, words in cases:
            with self.subTest(start=start):
                proc = run_prism("spectrogram", "gen:rate=8000,duration=10", f"--start={start}", "-o",
                                 self.path("x.npy"), "-q")
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("--start", proc.stderr)
                self.assertIn(words, proc.stderr)
        proc = run_prism("spectrogram", "-", "--format", "f32", "--rate", "8000", "--start", "1", "-o",
                         self.path("x.npy"), "-q", stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("before --start", proc.stderr)


if __name__ == "__main__":
    main()
