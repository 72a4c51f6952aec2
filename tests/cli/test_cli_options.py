"""Every whole-number option of every command, as a user may mistype it: negative, zero where
zero is invalid, and absurdly large values are usage errors (exit 2) that name the option and its
range, before anything is written. The options come from each command's --help, so an integer
option added later without a range check fails here.
"""
import os
import re

from prism_test_util import TempDirTestCase, main, run_prism

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


class MistypedOptions(TempDirTestCase):
    def test_a_close_misspelling_is_suggested(self):
        proc = run_prism("spectrogram", "gen:duration=0.01", "--npersge", "512", "-o", self.path("s.npy"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("did you mean --nperseg?", proc.stderr)
        proc = run_prism("filter", "gen:duration=0.01", "--lowpas", "100", "-o", self.path("f.wav"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("did you mean --lowpass?", proc.stderr)

    def test_nothing_close_gets_no_suggestion(self):
        proc = run_prism("spectrogram", "gen:duration=0.01", "--zzzzzzzz", "-o", self.path("s.npy"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertNotIn("did you mean", proc.stderr)


if __name__ == "__main__":
    main()
