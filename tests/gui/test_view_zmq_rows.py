"""prism view of rows computed by another prism (`prism view zmq:sub:...`), under Xvfb + Mesa:
a sender computes a spectrogram of tones and publishes its rows over ZeroMQ; the viewer shows
them as they come, without a spectrogram of its own: bright waterfall columns at the tones'
frequencies, the sender's FFT size in the display format, rows counted in the status.

Usage: test_view_zmq_rows.py PRISM
"""
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import Xvfb, bright_columns, load_json, read_png_rgb, run_view, x_of  # noqa: E402

PRISM = None
TONES = [3000.0, 15000.0]
SIGNAL = "gen:rate=48000,duration=inf,live," + ",".join(f"tone={f:g}@0.5" for f in TONES) + ",noise=0.001"


class ViewOfRemoteRows(unittest.TestCase):
    def test_rows_from_a_sender_make_the_waterfall(self):
        with Xvfb() as xvfb, tempfile.TemporaryDirectory() as tmp:
            address = f"ipc://{tmp}/rows"
            sender = subprocess.Popen([PRISM, "spectrogram", SIGNAL, "--nperseg", "2048", "--window", "hann", "-q",
                                       "-o", f"zmq:pub:{address}"], stderr=subprocess.PIPE, text=True)
            try:
                png, report_path = os.path.join(tmp, "v.png"), os.path.join(tmp, "v.json")
                run_view(PRISM, xvfb.env(tmp), f"zmq:sub:{address}", "--no-config", "--frames", 60,
                         "--db-range", "-110:-10", "--size", "1280x800", "--screenshot", png,
                         "--report", report_path, timeout=120)
            finally:
                sender.terminate()
                sender.communicate(timeout=30)
            report, image = load_json(report_path), read_png_rgb(png)
        status = report["status"]
        self.assertTrue(status["rows_in"])
        self.assertEqual(status["error"], "")
        self.assertIn("rows computed by the sender (1025 bins)", status["processor"])
        self.assertIn("(SUB, tagged, rows)", status["source"])
        self.assertGreater(status["samples_received"], 10, "too few rows arrived")
        self.assertEqual(report["display_format"]["fft_size"], 2048)  # the sender's, not the viewer's
        self.assertGreater(report["display_lines"], 10)
        bright = bright_columns(image, report)
        self.assertTrue(bright, "no bright column in the waterfall")
        expected = [x_of(f, report) for f in TONES]
        for f, x in zip(TONES, expected):
            self.assertTrue([b for b in bright if abs(b - x) <= 1.5],
                            f"no bright column at x={x:.1f} for the tone at {f} Hz (bright columns: {bright})")
        for b in bright:
            self.assertTrue(any(abs(b - x) <= 3 for x in expected), f"bright column at x={b} matches no tone")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_view_zmq_rows.py PRISM")
    PRISM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
