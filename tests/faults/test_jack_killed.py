"""A live input whose server dies: `prism spectrogram audio:` through PortAudio's JACK host API
on a JACK server with the dummy driver (as tests/audio), which the test kills with SIGKILL
mid-run. The stream then stops calling back, without an error: the default stall timeout of a
live input (10 s) ends the run with exit 1 naming the device, keeps the rows captured before,
marked incomplete, and prism exits (PortAudio's stop of a stream whose server died would wait
for ever). Exits 77 (ctest SKIP) with the reason where jackd cannot start or PortAudio does not
see it.

Usage: test_jack_killed.py PRISM
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "audio"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from jack_test_support import JackServer, skip  # noqa: E402
from prism_test_util import load_npy_with_sidecar  # noqa: E402


def main():
    prism = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="prism-jack-killed-") as tmp, JackServer() as jack:
        out = os.path.join(tmp, "capture.npy")
        proc = subprocess.Popen([prism, "spectrogram", "audio:", "-o", out, "--duration", "120"],
                                env=jack.client_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        # Running once its output has begun and rows have come.
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None and not (
                os.path.exists(out + ".partial") and os.path.getsize(out + ".partial") > 4096):
            time.sleep(0.1)
        if proc.poll() is not None:
            output = proc.communicate()[0]
            if "no audio" in output or "audio device" in output:
                skip("PortAudio finds no JACK input: " + output.strip().splitlines()[-1])
            raise AssertionError(f"prism exited {proc.returncode} before the server was killed: {output}")
        jack.proc.kill()
        jack.proc.wait()
        killed_at = time.time()
        try:
            output = proc.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("prism still runs 60 s after its JACK server died")
        took = time.time() - killed_at
        print(output)
        print(f"prism ended {took:.1f} s after the server was killed")
        assert proc.returncode == 1, proc.returncode
        assert "delivered nothing for 10 s" in output and "audio:" in output, output
        assert took < 30, took
        rows, meta = load_npy_with_sidecar(out)
        assert not meta["complete"], meta
        assert rows.shape[0] > 0
        assert not os.path.exists(out + ".partial")
    print("passed")


if __name__ == "__main__":
    main()
