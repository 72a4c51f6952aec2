"""A device driver that hangs while prism lists, opens, starts or closes the device: SoapySDR's
calls run within --open-timeout (sources/driver_call.hpp), so the run ends with a clear error
(exit 1 naming the device, the call and the option, no output left behind) instead of hanging,
and a driver that hangs while the device closes does not hold up a run that is done. The driver
is tests/faults/soapy_hang_module.cpp (driver=prism_hang, hang=find|make|stream|close), loaded
through SOAPY_SDR_PLUGIN_PATH, which ctest sets.

Usage: test_driver_hang.py PRISM
"""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import prism_test_util  # noqa: E402
from prism_test_util import TempDirTestCase, load_npy_with_sidecar, run_prism  # noqa: E402

# Long enough for SoapySDR to load every module installed (its first listing) on a loaded
# machine under the sanitizers; short enough for a test.
DEADLINE = 4


class DriverHang(TempDirTestCase):
    def run_hanging(self, hang, call, code, *args):
        """Runs prism on the device that hangs in `hang`; checks the exit code, the message naming
        `call` and --open-timeout, and that the run waited out the deadline, no more."""
        started = time.monotonic()
        proc = run_prism("spectrogram", f"sdr:driver=prism_hang,hang={hang}", "--open-timeout", DEADLINE, *args,
                         timeout=60)
        took = time.monotonic() - started
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertIn(f"sdr:driver=prism_hang,hang={hang}: the driver did not finish {call} within {DEADLINE} s "
                      "(--open-timeout)", proc.stderr)
        self.assertGreaterEqual(took, DEADLINE, proc.stderr)
        self.assertLess(took, DEADLINE + 20, proc.stderr)
        return proc

    def failing_open(self, hang, call):
        self.run_hanging(hang, call, 1, "--duration", "1", "-o", self.path("rows.npy"))
        self.assertEqual(sorted(os.listdir(self.tmp)), [], "an output was left behind")

    def test_listing_the_devices(self):
        self.failing_open("find", "listing the devices")

    def test_opening_the_device(self):
        self.failing_open("make", "opening the device")

    def test_setting_up_the_stream(self):
        self.failing_open("stream", "setting up its stream")

    def test_starting_the_stream(self):
        # At the run's first read: the run fails as a live input that fails (exit 1), naming the
        # call, before the stall timeout would have.
        self.run_hanging("start", "starting its stream", 1, "--stall-timeout", "60", "-o", self.path("rows.npy"))

    def test_closing_the_device_does_not_hold_the_run(self):
        # The close is waited for up to the deadline, then left, with a warning.
        out = self.path("rows.npy")
        summary = self.path("summary.json")
        proc = self.run_hanging("close", "closing the device", 0, "--duration", "0.5", "--nperseg", "256",
                                "--noverlap", "128", "-o", out, "--summary-json", summary)
        self.assertIn("warning: sdr:driver=prism_hang,hang=close:", proc.stderr)
        rows, meta = load_npy_with_sidecar(out)
        self.assertTrue(meta["complete"], meta)
        # Half a second at 1 MS/s, less what a loaded machine dropped (counted).
        with open(summary) as f:
            counts = json.load(f)
        spectrogram = prism_test_util.stage_entry(counts, "spectrogram")
        self.assertEqual(spectrogram["items_in"] + counts["samples_dropped"], 500000, counts)
        self.assertEqual(rows.shape[0], (spectrogram["items_in"] - 256) // 128 + 1)

    def test_ctrl_c_ends_the_wait(self):
        # The default deadline (30 s) would end it too, and 0 never; Ctrl-C does at once.
        for timeout in ("30", "0"):
            with self.subTest(open_timeout=timeout):
                self.ctrl_c_during_open(timeout)

    def ctrl_c_during_open(self, timeout):
        out = self.path("rows.npy")
        marker = self.path("hanging")
        if os.path.exists(marker):
            os.remove(marker)
        proc = subprocess.Popen([prism_test_util.PRISM, "spectrogram", f"sdr:driver=prism_hang,hang=make,hang_file={marker}",
                                 "--open-timeout", timeout, "-o", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while not os.path.exists(marker) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(marker), "the driver never began to hang")
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("prism still waits for the driver 10 s after Ctrl-C")
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted while opening the device", err)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["hanging"])


if __name__ == "__main__":
    prism_test_util.main()
