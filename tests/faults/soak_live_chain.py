"""Soak of a live-paced chain: the generator at a high rate, paced in real time, through an FIR
filter that decimates, into a spectrogram (.npy) and a recording of the filtered signal
(SigMF), for SECONDS. Checks that resident memory stays flat once the run is under way, that
drops are counted (every sample of the capture is read or counted as dropped), that the
accounting balances and that each output holds what the summary says it wrote. Prints the
figures (docs/reliability.md, bench/RESULTS.md).

Usage: soak_live_chain.py PRISM SECONDS [RATE_HZ]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

RSS_INTERVAL_S = 0.25
# Growth allowed between the first and the second half of the run after the warm-up: the
# allocator's arenas and page-cache effects move by some hundreds of KiB; a leak of one chunk
# per second at these rates grows by megabytes within seconds.
RSS_SLACK_BYTES = 2 << 20


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return None


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: soak_live_chain.py PRISM SECONDS [RATE_HZ]")
    prism, seconds = os.path.abspath(sys.argv[1]), float(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) == 4 else 8e6
    decimate = 80
    with tempfile.TemporaryDirectory(prefix="prism-soak-") as tmp:
        summary_path = os.path.join(tmp, "summary.json")
        command = [prism, "run", f"gen:rate={rate:g},duration=inf,live,noise=0.1", "!",
                   f"fir:lowpass={rate / decimate / 4:g},numtaps=255,decimate={decimate}",
                   "-o", f"spectrogram:nperseg=256 ! {tmp}/s.npy", "-o", f"{tmp}/f.sigmf-meta",
                   "--duration", f"{seconds:g}", "--summary-json", summary_path, "-q"]
        print(" ".join(command))
        start = time.time()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        samples = []  # (seconds since start, resident bytes)
        while proc.poll() is None:
            rss = rss_bytes(proc.pid)
            if rss is not None:
                samples.append((time.time() - start, rss))
            time.sleep(RSS_INTERVAL_S)
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            sys.exit(f"prism exited {proc.returncode}: {stderr}")
        with open(summary_path) as f:
            summary = json.load(f)

        failures = []
        warm = [rss for t, rss in samples if t >= min(5.0, seconds * 0.2)]
        half = len(warm) // 2
        if os.environ.get("PRISM_TEST_SANITIZED"):
            # ASan's quarantine keeps freed blocks resident: memory is judged by unsanitized runs.
            print("resident memory not judged (PRISM_TEST_SANITIZED)")
        elif half < 4:
            failures.append(f"too few memory samples ({len(samples)})")
        else:
            first, second = max(warm[:half]), max(warm[half:])
            print(f"resident memory after the warm-up: first half peak {first / 2**20:.1f} MiB, "
                  f"second half peak {second / 2**20:.1f} MiB, peak {summary['peak_rss_bytes'] / 2**20:.1f} MiB")
            if second > first + RSS_SLACK_BYTES:
                failures.append(f"resident memory grew from {first} to {second} bytes")

        expected = round(seconds * rate)
        read, dropped = summary["samples_read"], summary["samples_dropped"]
        print(f"samples: {read} read, {dropped} dropped ({dropped / max(read + dropped, 1):.2e}), "
              f"{expected} in {seconds:g} s at {rate:g} Hz; elapsed {summary['elapsed_seconds']:.1f} s")
        # The graph stops after `expected` samples read or dropped by it; the generator's own
        # drops (a late reader) come on top, so the sum covers at least the capture.
        if read + dropped < expected:
            failures.append(f"{read} read + {dropped} dropped < {expected}: samples unaccounted for")
        if summary["accounting"] != "balanced":
            failures.append(f"accounting: {summary['accounting']}")
        if summary["outcome"] != "completed":
            failures.append(f"outcome {summary['outcome']}")

        outputs = {o["name"]: o for o in summary["outputs"]}
        rows = np.load(f"{tmp}/s.npy", mmap_mode="r").shape[0]
        recorded = os.path.getsize(f"{tmp}/f.sigmf-data") // 4
        written = {os.path.basename(name.split(" ")[0]): o["items_written"] for name, o in outputs.items()}
        print(f"outputs: {rows} spectrogram rows, {recorded} filtered samples; summary {written}")
        if written.get("s.npy") != rows or written.get("f.sigmf-meta") != recorded:
            failures.append(f"the files hold {rows} rows and {recorded} samples, the summary says {written}")
        fir = next(s for s in summary["stages"] if s["name"].startswith("fir"))
        if fir["items_in"] != read:
            failures.append(f"fir took {fir['items_in']} of the {read} samples read")

        if failures:
            print("FAILED: " + "; ".join(failures))
            sys.exit(1)
        print("soak passed")


if __name__ == "__main__":
    main()
