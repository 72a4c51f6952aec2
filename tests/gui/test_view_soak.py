"""Stability and leak run of prism view: the generator at a high rate (2 MS/s, as fast as the
processing goes) under Xvfb, the FFT size changing every 3 seconds through 256 ... 1M, for
DURATION seconds. Passes when the viewer keeps rendering, ends cleanly on SIGINT, reports no
error, and its resident memory does not grow: no RSS sample taken after the second cycle through
the sizes exceeds the highest RSS of the second cycle by 40 MiB. The per-size RSS is no measure of a
leak: the allocator keeps freed pages of the largest FFT size for reuse and returns them at its own
pace, so a small size seen after the 1M size reads higher than before it. A leak instead raises the
high-water mark cycle after cycle. The first cycle is the warm-up (every size seen once). Needs at
least three cycles (DURATION >= 54 s).

Usage: test_view_soak.py PRISM DURATION_SECONDS
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import Xvfb, load_json  # noqa: E402

SIZES = [4096, 65536, 256, 1048576, 16384, 1024]
STEP_S = 3.0


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def main(prism, duration):
    with tempfile.TemporaryDirectory() as tmp, Xvfb() as xvfb:
        steps = int(duration / STEP_S)
        script = [{"time_s": i * STEP_S, "set": {"fft_size": SIZES[i % len(SIZES)]}} for i in range(steps + 1)]
        script_path, report = os.path.join(tmp, "script.json"), os.path.join(tmp, "report.json")
        with open(script_path, "w") as f:
            json.dump(script, f)
        view = subprocess.Popen([prism, "view", "gen:rate=2e6,duration=inf,tone=250e3@0.5,noise=0.01", "--no-config",
                                 "--speed", "max", "--lines-per-second", "200", "--script", script_path,
                                 "--report", report], env=xvfb.env(tmp), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        start = time.time()
        samples = {}  # (cycle, size) -> RSS late in that step
        while time.time() - start < duration:
            time.sleep(0.5)
            assert view.poll() is None, f"prism view ended early: {view.communicate()[0]}"
            t = time.time() - start
            step = int(t / STEP_S)
            if t - step * STEP_S > STEP_S * 0.8:  # late in the step: the new size has settled
                samples[(step // len(SIZES), SIZES[step % len(SIZES)])] = rss_bytes(view.pid)
        view.send_signal(signal.SIGINT)
        output, _ = view.communicate(timeout=60)
        assert view.returncode == 130, f"prism view exited {view.returncode} on SIGINT: {output}"
        r = load_json(report)
        print(f"{r['frames']} frames in {r['wall_seconds']:.0f} s; status {r['status']}")
        assert r["status"]["error"] == "", r["status"]["error"]
        assert r["frames"] > duration * 2, "the viewer stopped rendering"
        cycles = sorted({c for c, _ in samples})
        print("RSS MiB by cycle and FFT size:")
        for c in cycles:
            print(f"  cycle {c}: " + ", ".join(f"{s}: {samples[(c, s)] / 2**20:.0f}" for s in SIZES if (c, s) in samples))
        assert len(cycles) >= 3, f"only {len(cycles)} cycles through the FFT sizes: give a longer DURATION"
        reference = max(rss for (c, _), rss in samples.items() if c == cycles[1])
        for (c, s), rss in sorted(samples.items()):
            if c > cycles[1]:
                growth = rss - reference
                assert growth < 40 * 2**20, (f"RSS at FFT size {s} in cycle {c} is {growth / 2**20:.0f} MiB "
                                             f"above cycle {cycles[1]}'s highest")
        print("OK: memory stable")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
