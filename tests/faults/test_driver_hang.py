"""A device driver that hangs while prism opens or closes the device: SoapySDR's calls run
within a deadline (sources/driver_call.hpp), so the run ends with a clear error (exit 1 naming
the device, the call and --stall-timeout, no output left behind) instead of hanging, and a
driver that hangs while the device closes does not hold up a run that is done. The driver is
tests/faults/soapy_hang_module.cpp (driver=prism_hang, hang=find|make|stream|close), loaded
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


class DriverHang(TempDirTestCase):
    def failing_open(self, hang, call):
        out = self.path("rows.npy")
        started = time.monotonic()
        proc = run_prism("spectrogram", f"sdr:driver=prism_hang,hang={hang}", "--stall-timeout", "1",
                         "--duration", "1", "-o", out, timeout=60)
        took = time.monotonic() - started
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("sdr:driver=prism_hang", proc.stderr)
        self.assertIn(f"the driver did not finish {call} within 1 s (--stall-timeout)", proc.stderr)
        self.assertLess(took, 20, proc.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)), [], "an output was left behind")

    def test_listing_the_devices(self):
        self.failing_open("find", "listing the devices")

    def test_opening_the_device(self):
        self.failing_open("make", "opening the device")

    def test_setting_up_the_stream(self):
        self.failing_open("stream", "setting up its stream")

    def test_closing_the_device_does_not_hold_the_run(self):
        out = self.path("rows.npy")
        started = time.monotonic()
        summary = self.path("summary.json")
        proc = run_prism("spectrogram", "sdr:driver=prism_hang,hang=close", "--stall-timeout", "2",
                         "--duration", "0.5", "--nperseg", "256", "--noverlap", "128", "-o", out,
                         "--summary-json", summary, timeout=60)
        took = time.monotonic() - started
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The close was waited for up to the deadline, then left.
        self.assertGreaterEqual(took, 2.0, proc.stderr)
        self.assertLess(took, 20, proc.stderr)
        rows, meta = load_npy_with_sidecar(out)
        self.assertTrue(meta["complete"], meta)
        # Half a second at 1 MS/s, less what a loaded machine dropped (counted).
        with open(summary) as f:
            counts = json.load(f)
        spectrogram = prism_test_util.stage_entry(counts, "spectrogram")
        self.assertEqual(spectrogram["items_in"] + counts["samples_dropped"], 500000, counts)
        self.assertEqual(rows.shape[0], (spectrogram["items_in"] - 256) // 128 + 1)

    def test_ctrl_c_ends_the_wait(self):
        # The default deadline (30 s) would end it too; Ctrl-C does at once.
        out = self.path("rows.npy")
        proc = subprocess.Popen([prism_test_util.PRISM, "spectrogram", "sdr:driver=prism_hang,hang=make", "-o", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("prism still waits for the driver 10 s after Ctrl-C")
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted while opening the device", err)
        self.assertEqual(sorted(os.listdir(self.tmp)), [])


if __name__ == "__main__":
    prism_test_util.main()
