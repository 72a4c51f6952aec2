"""prism fft-tune where no GPU can be used: exit 1 with a message saying a CUDA device is needed
and nothing written; a wisdom file it cannot merge into is refused before any measuring, naming
the path (exit 1, the file left as it was), whether given by --wisdom or PRISM_FFT_WISDOM; bad
options exit 2 naming the option; --help teaches. CUDA_VISIBLE_DEVICES=-1 hides every GPU, so
the same checks hold on the device machine.
"""
import os

from prism_test_util import TempDirTestCase, main, run_prism

# An invalid index hides it and every device after it (CUDA's documented rule).
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
os.environ.pop("PRISM_FFT_WISDOM", None)


class FftTuneWithoutGpu(TempDirTestCase):
    def setUp(self):
        super().setUp()
        # Nothing may reach the user's cache, whatever the command does.
        os.environ["XDG_CACHE_HOME"] = self.path("cache")

    def tearDown(self):
        os.environ.pop("PRISM_FFT_WISDOM", None)
        super().tearDown()

    def test_without_a_gpu_exits_1_with_the_reason(self):
        wisdom = self.path("w.json")
        proc = run_prism("fft-tune", "--sizes", "256,1024", "--wisdom", wisdom)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("needs a CUDA device", proc.stderr)
        self.assertFalse(os.path.exists(wisdom), "no wisdom without measurements")
        self.assertFalse(os.path.exists(self.path("cache")))

    def test_corrupt_wisdom_is_refused_naming_the_path(self):
        wisdom = self.path("corrupt.json")
        with open(wisdom, "w") as f:
            f.write('{"format": "prism-fft-wisdom", "version": 1, "entries": [')
        proc = run_prism("fft-tune", "--sizes", "256", "--wisdom", wisdom)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(wisdom, proc.stderr)
        self.assertIn("corrupt wisdom file", proc.stderr)
        with open(wisdom) as f:
            self.assertTrue(f.read().endswith('"entries": ['), "the file is left as it was")

    def test_wisdom_from_the_environment(self):
        wisdom = self.path("from-env.json")
        with open(wisdom, "w") as f:
            f.write('{"format": "something else"}')
        os.environ["PRISM_FFT_WISDOM"] = wisdom
        proc = run_prism("fft-tune", "--sizes", "256")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(wisdom, proc.stderr)
        self.assertIn("not a prism FFT wisdom file", proc.stderr)

    def test_unreadable_wisdom_names_the_path(self):
        wisdom = self.path("a-directory.json")
        os.mkdir(wisdom)
        proc = run_prism("fft-tune", "--wisdom", wisdom)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(wisdom, proc.stderr)
        self.assertIn("not a regular file", proc.stderr)

    def test_bad_options_exit_2_naming_the_option(self):
        for option, args in [("--transform", ["--transform", "dct"]),
                             ("--sizes", ["--sizes", "0"]),
                             ("--sizes", ["--sizes", "abc"]),
                             ("--batch-bytes", ["--batch-bytes", "12Q"]),
                             ("--runs", ["--runs", "5"])]:
            with self.subTest(args=args):
                proc = run_prism("fft-tune", *args, "--wisdom", self.path("w.json"))
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(option, proc.stderr)

    def test_help_teaches(self):
        proc = run_prism("fft-tune", "--help")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for word in ("--sizes", "--transform", "--batch-bytes", "--wisdom", "PRISM_FFT_WISDOM",
                     "fft-wisdom.json", "median", "Examples", "Exit codes",
                     "prime factor above 127", "500, 1000, 2000 and 4000", "Rader",
                     "radix order across the passes", "tune_seconds"):
            self.assertIn(word, proc.stdout)
        self.assertIn("fft-tune", run_prism("--help").stdout)


if __name__ == "__main__":
    main()
