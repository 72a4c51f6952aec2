"""prism view audio: through PortAudio's JACK host API receives a tone.

Starts a JACK server with its dummy driver (jackd2), jack_metro playing a 1500 Hz tone (beeps of
90 ms every 100 ms), and `prism view audio:` under Xvfb; connects the tone's port to prism's
input ports once they appear, and checks that the spectrum's peak sits at 1500 Hz and that
samples arrived without overruns. Exits 77 (ctest SKIP) with the reason when jackd, jack_metro
or Xvfb cannot run here; never passes without having seen the tone.

Usage: test_view_jack.py PRISM
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from view_test_support import SKIP, Xvfb, load_json  # noqa: E402

TONE_HZ = 1500.0


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def stop(proc):
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def jack_ports(env):
    out = subprocess.run(["jack_lsp"], env=env, capture_output=True, text=True, timeout=10)
    return out.stdout.split() if out.returncode == 0 else None


def main(prism):
    for tool in ("jackd", "jack_metro", "jack_lsp", "jack_connect", "Xvfb"):
        if shutil.which(tool) is None:
            skip(f"{tool} is not installed (scripts/install-deps installs jackd2 and xvfb)")
    tmp = tempfile.TemporaryDirectory()
    env = dict(os.environ)
    env["JACK_NO_AUDIO_RESERVATION"] = "1"  # no D-Bus device reservation in a container
    # A private server name, so that a JACK server of the machine's user is left alone.
    env["JACK_DEFAULT_SERVER"] = f"prism_test_{os.getpid()}"
    jackd = metro = view = None
    try:
        jackd = subprocess.Popen(["jackd", "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "1024"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(100):
            if jackd.poll() is not None or jack_ports(env):
                break
            time.sleep(0.1)
        if jackd.poll() is not None or not jack_ports(env):
            log = jackd.stdout.read() if jackd.poll() is not None else ""
            skip("jackd -d dummy did not start: " + (log.strip().splitlines() or ["no output"])[-1])
        metro = subprocess.Popen(["jack_metro", "-n", "tone", "-f", str(int(TONE_HZ)), "-b", "600", "-D", "90",
                                  "-A", "0.5"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            ports = jack_ports(env) or []
            tone_ports = [p for p in ports if p.startswith("tone:")]
            if tone_ports:
                break
            time.sleep(0.1)
        else:
            skip("jack_metro started but made no port")

        with Xvfb() as xvfb:
            view_env = xvfb.env(tmp.name)
            view_env.update({k: env[k] for k in ("JACK_NO_AUDIO_RESERVATION", "JACK_DEFAULT_SERVER")})
            report = os.path.join(tmp.name, "report.json")
            view = subprocess.Popen([prism, "view", "audio:", "--no-config", "--frames", "200", "--averaging", "0.3",
                                     "--report", report], env=view_env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            connected = []
            deadline = time.time() + 30
            while not connected and time.time() < deadline and view.poll() is None:
                ports = jack_ports(env) or []
                inputs = [p for p in ports if p.startswith("PortAudio") and ":in" in p]
                for p in inputs:
                    if subprocess.run(["jack_connect", tone_ports[0], p], env=env).returncode == 0:
                        connected.append(p)
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
            assert abs(peak["hz"] - TONE_HZ) <= 2 * peak["bin_hz"], f"peak at {peak['hz']} Hz, not {TONE_HZ}"
            assert peak["db"] > -60, f"the tone is too weak ({peak['db']} dB): did it arrive?"
            print("OK: the spectrum's peak is at the tone's frequency")
    finally:
        stop(view)
        stop(metro)
        stop(jackd)
        tmp.cleanup()


if __name__ == "__main__":
    main(sys.argv[1])
