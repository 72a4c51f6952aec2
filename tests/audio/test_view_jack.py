"""prism view audio: through PortAudio's JACK host API receives a tone.

Starts a JACK server with its dummy driver (jackd2), jack_metro playing a 1500 Hz tone (beeps of
90 ms every 100 ms), and `prism view audio:` under Xvfb; connects the tone's port to prism's
input ports once they appear, and checks that the spectrum's peak sits at 1500 Hz above the
centre frequency the input is labelled with (--center-frequency, as for an SDR's IQ through a
sound card) and that samples arrived without overruns. Exits 77 (ctest SKIP) with the reason
when jackd, jack_metro or Xvfb cannot run here; never passes without having seen the tone.

Usage: test_view_jack.py PRISM
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from jack_test_support import JackServer, require_tools, skip, stop  # noqa: E402
from view_test_support import Xvfb, load_json  # noqa: E402

TONE_HZ = 1500.0
CENTRE_HZ = 100000.0


def main(prism):
    require_tools("jack_metro", "Xvfb")
    tmp = tempfile.TemporaryDirectory()
    metro = view = None
    with JackServer() as jack:
        try:
            metro = subprocess.Popen(["jack_metro", "-n", "tone", "-f", str(int(TONE_HZ)), "-b", "600", "-D", "90",
                                      "-A", "0.5"], env=jack.client_env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            tone_ports = jack.wait_for_ports(lambda p: p.startswith("tone:"), 5, metro)
            if not tone_ports:
                skip("jack_metro started but made no port")

            with Xvfb() as xvfb:
                view_env = jack.client_env(xvfb.env(tmp.name))
                report = os.path.join(tmp.name, "report.json")
                view = subprocess.Popen([prism, "view", "audio:", "--no-config", "--frames", "200", "--averaging", "0.3",
                                         "--center-frequency", str(int(CENTRE_HZ)), "--report", report],
                                        env=view_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                # prism opens the default device's two input channels, whose ports appear one
                # after the other; the tone goes to both (stopping at the first left the other
                # channel silent when the machine was busy). What counts is the server's own
                # list of connections, not which connect calls succeeded.
                connected = []
                deadline = time.time() + 30
                while len(connected) < 2 and time.time() < deadline and view.poll() is None:
                    links = jack.connections()
                    inputs = [p for p in links if p.startswith("PortAudio") and ":in" in p]
                    connected = [p for p in inputs if tone_ports[0] in links[p]]
                    for p in inputs:
                        if p not in connected:
                            jack.connect(tone_ports[0], p)
                    time.sleep(0.1)
                output, _ = view.communicate(timeout=120)
                if view.returncode != 0:
                    raise AssertionError(f"prism view audio: exited {view.returncode}: {output}")
                if not connected:
                    raise AssertionError(f"prism's PortAudio input ports never appeared in JACK: {output}")
                r = load_json(report)
                print("source:", r["status"]["source"])
                print("status:", r["status"])
                print("spectrum peak:", r.get("spectrum_peak"))
                assert "JACK" in r["status"]["source"], "the input did not go through PortAudio's JACK host API"
                assert r["status"]["samples_received"] > 48000, "less than a second of audio arrived"
                assert r["status"]["overrun_samples"] == 0, "the input overran"
                peak = r["spectrum_peak"]
                expected = CENTRE_HZ + TONE_HZ
                assert abs(peak["hz"] - expected) <= 2 * peak["bin_hz"], f"peak at {peak['hz']} Hz, not {expected}"
                assert peak["db"] > -60, f"the tone is too weak ({peak['db']} dB): did it arrive?"
                print("OK: the spectrum's peak is at the tone's frequency above the centre frequency")
        finally:
            stop(view)
            stop(metro)
            tmp.cleanup()


if __name__ == "__main__":
    main(sys.argv[1])
