"""Options and inputs at their limits, as a user meets them.

Every whole-number option of every command: negative, zero where zero is invalid, and absurdly
large values are usage errors (exit 2) that name the option and its range, before anything is
written (the options come from each command's --help, so one added later without a range check
fails here). A segment longer than the input shrinks to it, as scipy does; an input without
samples is refused alike in every format; two outputs to one file are refused before the run.
"""
import json
import os
import re
import subprocess
import wave

import numpy as np

from prism_test_util import TempDirTestCase, load_npy_with_sidecar, main, rel_l2, run_prism, write_sigmf

# Enough of each command for its parsing to reach the option under test; OUT is the output.
COMMANDS = {
    "spectrogram": ["gen:duration=0.01", "-o", "OUT.npy", "-q"],
    "run": ["gen:duration=0.01", "-o", "OUT.npy", "-q"],
    "filter": ["gen:duration=0.01", "-o", "OUT.wav", "--lowpass", "1000", "-q"],
    "info": ["gen:duration=0.01"],
    "generate": ["gen:duration=0.01", "-o", "OUT.wav"],
    "design": ["--lowpass", "100", "--rate", "1000", "-o", "OUT.npy"],
    "view": ["gen:duration=0.01", "--screenshot", "OUT.png"],
    "fft-tune": ["--wisdom", "OUT.json"],
    "devices": [],
    "stages": [],
}

# "  --nperseg N=256   help [1..16777216]": an option that takes a whole number, and its range.
OPTION_LINE = re.compile(r"^\s+(?:-\w, )?(--[a-z-]+)(?:,--[a-z-]+)* (INT|UINT|N)\b(?:=\S+)?(.*)$")
RANGE = re.compile(r"\[(-?\d+)\.\.(\d+)\]")


def integer_options(command):
    """(option, low, high) for each whole-number option of `command` ((None, None) when --help
    gives no range)."""
    proc = run_prism(command, "--help", check=0)
    found = []
    for line in proc.stdout.splitlines():
        match = OPTION_LINE.match(line)
        if not match or match.group(1) in [f[0] for f in found]:  # the footer's examples
            continue
        bounds = RANGE.search(match.group(3))
        low, high = (int(bounds.group(1)), int(bounds.group(2))) if bounds else (None, None)
        found.append((match.group(1), low, high))
    return found


class WholeNumberOptions(TempDirTestCase):
    def args(self, command):
        return [a.replace("OUT", self.path("out")) for a in COMMANDS[command]]

    def test_every_integer_option_states_its_range(self):
        seen = 0
        for command in COMMANDS:
            for option, low, high in integer_options(command):
                seen += 1
                with self.subTest(command=command, option=option):
                    self.assertIsNotNone(low, f"prism {command} --help gives {option} no [LOW..HIGH]")
        self.assertGreater(seen, 20)  # the pattern still reads the help

    def test_out_of_range_values_are_usage_errors(self):
        for command in COMMANDS:
            for option, low, high in integer_options(command):
                if low is None:
                    continue
                bad = {str(low - 1), str(high + 1), "-5" if low > -5 else str(low - 1),
                       "18446744073709551617", "1e300"}
                for value in sorted(bad):
                    with self.subTest(command=command, option=option, value=value):
                        proc = run_prism(command, *self.args(command), option, value)
                        self.assertEqual(proc.returncode, 2, proc.stderr)
                        self.assertIn(option, proc.stderr)
                        self.assertIn(f"{low}..{high}", proc.stderr)
                        self.assertNotIn("max_size", proc.stderr)
                        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith("out")], [])

    def test_the_issue_examples(self):
        for option, value in (("--nperseg", "-5"), ("--noverlap", "-1"), ("--nperseg", "4294967295"),
                              ("--nfft", "0"), ("--channels", "0"), ("--blocks", "1")):
            with self.subTest(option=option, value=value):
                proc = run_prism("spectrogram", "gen:duration=0.01", "-o", self.path("s.npy"), option, value)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(option, proc.stderr)
                self.assertIn("out of range", proc.stderr)


class MessagesNameTheOptions(TempDirTestCase):
    """Library messages reach the command line with its options' names (the library and Python
    name their fields and arguments: tests/pipeline, tests/sources, tests/python)."""

    def test_backend_and_byte_order(self):
        out = self.path("x.npy")
        cases = [
            (["spectrogram", "gen:duration=0.1", "--backend", "cuda", "--mode", "complex"], 2,
             "--backend cuda: the GPU backends do not compute --mode complex; use --backend cpu"),
            (["run", "gen:duration=0.1", "!", "spectrogram:mode=angle", "--backend", "cufft"], 2,
             "--backend cufft: the GPU backends do not compute spectrogram: mode angle; use --backend cpu"),
            (["spectrogram", "audio:", "--format", "f32_be"], 2,
             "--format f32_be contradicts audio:"),
        ]
        for args, code, words in cases:
            with self.subTest(args=args):
                proc = run_prism(*args, "-o", out)
                self.assertEqual(proc.returncode, code, proc.stderr)
                self.assertIn(words, proc.stderr)

    def test_an_unavailable_backend(self):
        proc = run_prism("spectrogram", "gen:duration=0.1", "--backend", "cuda", "-o", self.path("x.npy"))
        if proc.returncode == 0:
            self.skipTest("this machine has a usable GPU")
        self.assertIn("--backend cuda", proc.stderr)


class MistypedOptions(TempDirTestCase):
    def test_a_close_misspelling_is_suggested(self):
        proc = run_prism("spectrogram", "gen:duration=0.01", "--npersge", "512", "-o", self.path("s.npy"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("did you mean --nperseg?", proc.stderr)
        self.assertNotIn("not expected", proc.stderr)  # the suggestion replaces CLI11's message
        proc = run_prism("filter", "gen:duration=0.01", "--lowpas", "100", "-o", self.path("f.wav"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("did you mean --lowpass?", proc.stderr)

    def test_nothing_close_gets_no_suggestion(self):
        proc = run_prism("spectrogram", "gen:duration=0.01", "--zzzzzzzz", "-o", self.path("s.npy"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertNotIn("did you mean", proc.stderr)
        self.assertIn("--zzzzzzzz", proc.stderr)  # CLI11's own message names it


class ShortAndEmptyInputs(TempDirTestCase):
    def test_nperseg_longer_than_the_input_shrinks_to_it_as_scipy(self):
        from scipy import signal
        x = np.random.default_rng(5).standard_normal(480).astype(np.float32)
        x.tofile(self.path("short.f32"))
        out = self.path("s.npy")
        proc = run_prism("spectrogram", self.path("short.f32"), "--format", "f32", "--rate", "8000",
                         "--nperseg", "1024", "-o", out, "-q", check=0)
        self.assertIn("--nperseg 1024 is longer than the input (480 samples); using --nperseg 480",
                      proc.stderr)
        rows, meta = load_npy_with_sidecar(out)
        _, _, ref = signal.spectrogram(x.astype(np.float64), fs=8000, nperseg=1024)  # warns, shrinks
        self.assertEqual(rows.shape, ref.T.shape)
        self.assertLess(rel_l2(rows, ref.T), 1e-5)
        self.assertEqual(meta["parameters"]["nperseg"], 480)

    def test_run_shrinks_a_spectrogram_stage_on_the_input_as_prism_spectrogram_does(self):
        x = np.random.default_rng(6).standard_normal(480).astype(np.float32)
        x.tofile(self.path("short.f32"))
        raw = [self.path("short.f32"), "--format", "f32", "--rate", "8000"]
        run_prism("spectrogram", *raw, "--nperseg", "1024", "-o", self.path("s.npy"), "-q", check=0)
        expected, _ = load_npy_with_sidecar(self.path("s.npy"))
        for args in (["!", "spectrogram:nperseg=1024", "-o", self.path("r.npy")],
                     ["-o", "spectrogram:nperseg=1024 ! " + self.path("r.npy")]):
            with self.subTest(args=args):
                proc = run_prism("run", *raw, *args, "-q", check=0)
                rows, meta = load_npy_with_sidecar(self.path("r.npy"))
                self.assertIn("nperseg 1024 is longer than the input (480 samples); using nperseg 480", proc.stderr)
                self.assertEqual(meta["parameters"]["nperseg"], 480)
                np.testing.assert_array_equal(rows, expected)
        # With --duration the samples taken count.
        proc = run_prism("run", "gen:rate=8000,duration=1", "--duration", "0.01", "!", "spectrogram:nperseg=1024",
                         "-o", self.path("d.npy"), "-q", check=0)
        self.assertIn("(80 samples); using nperseg 80", proc.stderr)

    def test_stdin_that_ends_before_its_first_sample_fails_naming_it(self):
        for command in (["spectrogram"], ["run"], ["filter", "--lowpass", "100", "--numtaps", "31"]):
            with self.subTest(command=command[0]):
                out = self.path("out.npy")
                proc = run_prism(command[0], "-", "--format", "f32", "--rate", "8000", *command[1:], "-o", out,
                                 "-q", stdin=subprocess.DEVNULL)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn("stdin", proc.stderr)
                self.assertIn("no samples", proc.stderr)
                self.assertFalse(os.path.exists(out))

    def test_an_input_without_samples_is_refused_in_every_format(self):
        empty = {}
        empty["raw"] = [self.path("e.cf32"), "--rate", "1000"]
        open(empty["raw"][0], "wb").close()
        write_sigmf(self.path("e"), 1e6, np.zeros(0, np.complex64), "cf32_le")
        empty["sigmf"] = [self.path("e.sigmf-meta")]
        with wave.open(self.path("header_only.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(8000)
            w.writeframes(b"")
        empty["wav"] = [self.path("header_only.wav")]
        open(self.path("zero_bytes.wav"), "wb").close()
        empty["0-byte wav"] = [self.path("zero_bytes.wav")]
        for kind, args in empty.items():
            for command in (["spectrogram"], ["run"], ["filter", "--lowpass", "100", "--numtaps", "31"]):
                with self.subTest(kind=kind, command=command[0]):
                    out = self.path("out.npy")
                    proc = run_prism(command[0], *args, *command[1:], "-o", out, "-q")
                    self.assertEqual(proc.returncode, 1, proc.stderr)
                    self.assertIn(os.path.basename(args[0]), proc.stderr)
                    self.assertTrue("no samples" in proc.stderr or "empty file" in proc.stderr, proc.stderr)
                    self.assertFalse(os.path.exists(out))


class OutputPaths(TempDirTestCase):
    def test_two_outputs_to_one_file_are_refused_before_the_run(self):
        a = self.path("a.npy")
        cases = [["spectrogram", "gen:duration=0.1", "-o", a, "-o", a],
                 ["spectrogram", "gen:duration=0.1", "-o", a, "-o", os.path.join(self.tmp, ".", "a.npy")],
                 ["spectrogram", "gen:duration=0.1", "-o", a, "-o", self.path("a.json")],  # a.npy's sidecar
                 ["run", "gen:duration=0.1", "-o", "spectrogram ! " + a, "-o", "spectrogram:nperseg=64 ! " + a],
                 ["filter", "gen:duration=0.1", "--lowpass", "100", "-o", self.path("b.wav"),
                  "-o", self.path("b.wav")]]
        for args in cases:
            with self.subTest(args=args):
                proc = run_prism(*args, "--summary-json", self.path("summary.json"))
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("both write", proc.stderr)
                self.assertEqual(sorted(os.listdir(self.tmp)), [], "refused before anything was written")


class EightBitSoundFiles(TempDirTestCase):
    """8-bit PCM travels as its stored integers: --integer-scale raw gives the values
    scipy.io.wavfile.read gives (WAV's unsigned bytes, AIFF's signed ones), unit scales them."""

    def check(self, path, stored, unit):
        from scipy import signal
        for scale, values in (("raw", stored), ("unit", unit)):
            with self.subTest(path=os.path.basename(path), scale=scale):
                out = self.path("s.npy")
                run_prism("spectrogram", path, "--integer-scale", scale, "-o", out, "-q", check=0)
                _, _, ref = signal.spectrogram(values, fs=8000)
                self.assertLess(rel_l2(np.load(out), ref.T), 1e-5)

    def test_unsigned_wav(self):
        from scipy.io import wavfile
        x = np.random.default_rng(1).integers(0, 256, 8000).astype(np.uint8)
        wavfile.write(self.path("u8.wav"), 8000, x)
        self.assertEqual(wavfile.read(self.path("u8.wav"))[1].dtype, np.uint8)
        self.check(self.path("u8.wav"), x.astype(np.float64), (x.astype(np.float64) - 128) / 128)

    def test_signed_aiff(self):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import aifc
        x = np.random.default_rng(2).integers(-128, 128, 8000).astype(np.int8)
        with aifc.open(self.path("s8.aiff"), "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(1)
            f.setframerate(8000)
            f.writeframes(x.tobytes())
        self.check(self.path("s8.aiff"), x.astype(np.float64), x.astype(np.float64) / 128)


class WidePcmSoundFiles(TempDirTestCase):
    """24- and 32-bit PCM travel as their stored integers too: --integer-scale raw gives what
    scipy.io.wavfile.read gives (int32, 24-bit values shifted up by 8), unit scales by 2^31."""

    check = EightBitSoundFiles.check

    def test_24_bit_wav(self):
        import wave
        from scipy.io import wavfile
        x = np.random.default_rng(3).integers(-2 ** 23, 2 ** 23, 8000)
        with wave.open(self.path("s24.wav"), "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(3)
            f.setframerate(8000)
            f.writeframes(b"".join(int(v).to_bytes(3, "little", signed=True) for v in x))
        stored = wavfile.read(self.path("s24.wav"))[1]
        np.testing.assert_array_equal(stored, x * 256)
        self.check(self.path("s24.wav"), stored.astype(np.float64), x / 2.0 ** 23)

    def test_32_bit_wav(self):
        from scipy.io import wavfile
        x = np.random.default_rng(4).integers(-2 ** 31, 2 ** 31, 8000).astype(np.int32)
        wavfile.write(self.path("s32.wav"), 8000, x)
        stored = wavfile.read(self.path("s32.wav"))[1]
        self.assertEqual(stored.dtype, np.int32)
        self.check(self.path("s32.wav"), stored.astype(np.float64), stored / 2.0 ** 31)


class TruncatedRecordings(TempDirTestCase):
    """A recording cut short (a killed recorder or SDR tool) is read up to its last whole sample
    with a warning naming the file and what is missing, as sox, scipy and numpy read it; --strict
    refuses it."""

    def read(self, args, strict=False):
        out = self.path("cut.npy")
        if os.path.exists(out):
            os.remove(out)
        proc = run_prism("run", *args, "-o", out, "-q", *(["--strict"] if strict else []),
                         stdin=getattr(self, "stdin", None))
        return proc, (np.load(out) if proc.returncode == 0 else None)

    def check(self, args, name, words, whole):
        proc, samples = self.read(args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("warning", proc.stderr)
        self.assertIn(name, proc.stderr)
        for word in words:
            self.assertIn(word, proc.stderr)
        np.testing.assert_array_equal(samples.ravel(), whole)
        proc, _ = self.read(args, strict=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(name, proc.stderr)
        self.assertFalse(os.path.exists(self.path("cut.npy")))

    def test_raw_file_with_a_partial_sample(self):
        x = (np.arange(100) + 1j * np.arange(100)).astype(np.complex64)
        with open(self.path("cut.cf32"), "wb") as f:
            f.write(x.tobytes() + b"\x01\x02\x03")
        self.check([self.path("cut.cf32"), "--rate", "1000"], "cut.cf32", ["3 stray bytes"], x)

    def test_sigmf_data_with_a_partial_sample(self):
        x = (np.arange(100) - 1j * np.arange(100)).astype(np.complex64)
        write_sigmf(self.path("rec"), 1e6, x, "cf32_le")
        with open(self.path("rec.sigmf-data"), "ab") as f:
            f.write(b"\x01\x02\x03")
        self.check([self.path("rec.sigmf-meta")], "rec.sigmf-data", ["3 stray bytes"], x)

    def test_wav_whose_data_ends_early(self):
        from scipy.io import wavfile
        x = np.arange(-2000, 2000, dtype=np.int16)
        wavfile.write(self.path("full.wav"), 8000, x)
        with open(self.path("full.wav"), "rb") as f:
            data = f.read()
        cut = data[: 44 + 2 * 1000 + 1]  # 1000 whole samples and half of the next
        with open(self.path("cut.wav"), "wb") as f:
            f.write(cut)
        proc, samples = self.read([self.path("cut.wav")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("cut.wav", proc.stderr)
        self.assertIn("truncated", proc.stderr)
        np.testing.assert_array_equal(samples.ravel(), x[:1000])
        proc, _ = self.read([self.path("cut.wav")], strict=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)

    def test_stdin_cut_mid_sample(self):
        x = np.arange(50, dtype=np.float32)
        with open(self.path("cut.f32"), "wb") as f:
            f.write(x.tobytes() + b"\x01\x02")
        for strict in (False, True):
            with self.subTest(strict=strict), open(self.path("cut.f32"), "rb") as f:
                # Through a pipe, as from a recorder: its length is not known in advance.
                import subprocess
                cat = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
                self.stdin = cat.stdout
                proc, samples = self.read(["-", "--format", "f32", "--rate", "1000"], strict=strict)
                cat.wait()
                self.assertIn("stdin", proc.stderr)
                self.assertIn("2 stray bytes", proc.stderr)
                if strict:
                    self.assertEqual(proc.returncode, 1, proc.stderr)
                else:
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    np.testing.assert_array_equal(samples.ravel(), x)


if __name__ == "__main__":
    main()
