"""prism's SDR input (SoapySDR) on a real SoapySDR device without radio hardware: SoapySDR's
audio module (soapysdr-module-audio) on a JACK server with its dummy driver.

jack_metro plays a 1500 Hz tone (beeps of 90 ms every 100 ms) into the port the audio module's
stream opens. The driver is asked for the right channel (--sdr-stream-args chan=mono_r): its
port must then be fed from system:capture_2, not capture_1, which shows that the stream
arguments reached the driver. Modes:
  spectrogram  `prism info sdr:driver=audio` describes the device; `prism spectrogram
               sdr:driver=audio --duration 4` captures exactly 4 s (every sample read or counted
               as dropped), completes, and its rows peak at +-1500 Hz (the audio module's I is
               the channel, Q is 0: a real tone shows on both sides)
  view         `prism view sdr:driver=audio` under Xvfb: the spectrum's peak sits at +-1500 Hz,
               samples arrive without overruns, the status line names the SDR
  remote       the same device served by SoapyRemote (SoapySDRServer, soapyremote-server, on
               127.0.0.1), read through SoapySDR's remote module (soapysdr-module-remote) as
               sdr:driver=remote,remote=tcp://127.0.0.1:PORT,remote:driver=audio,remote:prot=tcp:
               info and the spectrogram checks above. The server exits at start unless it can
               reach an Avahi daemon, so the test runs it in a mount namespace of its own (a
               private /run) beside a D-Bus system bus and an Avahi daemon of its own, kept to the
               loopback interface, publishing nothing on the network.
Exits 77 (ctest SKIP) with the reason where jackd, jack_metro, Xvfb, the audio module or (remote)
SoapySDRServer, avahi-daemon or a mount namespace cannot run here; never passes without having
seen the tone.

Usage: test_sdr_jack.py PRISM spectrogram|view|remote
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from jack_test_support import RATE, JackServer, require_tools, skip, stop, threads_of  # noqa: E402

TONE_HZ = 1500.0
SPEC = "sdr:driver=audio"
# The audio module's JACK client (RtAudio): one input port for a mono channel, which RtAudio
# connects to the device's port of that channel.
STREAM_PORT = "RtApiJack:inport 0"
STREAM_ARGS = ["--sdr-stream-args", "chan=mono_r"]
CHANNEL_PORT = "system:capture_2"


def play_tone(jack):
    metro = subprocess.Popen(["jack_metro", "-n", "tone", "-f", str(int(TONE_HZ)), "-b", "600", "-D", "90",
                              "-A", "0.5"], env=jack.client_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    tone_ports = jack.wait_for_ports(lambda p: p.startswith("tone:"), 5, metro)
    if not tone_ports:
        stop(metro)
        skip("jack_metro started but made no port")
    return metro, tone_ports[0]


def run_hearing_the_tone(jack, tone_port, command, env):
    """Runs `command` (a prism run on SPEC) to its end, connecting the tone to its stream's port
    once the port appears; checks that it succeeded and that the port was fed from the channel
    the stream arguments asked for. Returns its output."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    feeds = []
    try:
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None:
            links = jack.connections()
            if STREAM_PORT in links and tone_port in links[STREAM_PORT]:
                feeds = links[STREAM_PORT]
                break
            if STREAM_PORT in links:
                jack.connect(tone_port, STREAM_PORT)
            else:
                time.sleep(0.05)
        try:
            output, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            stacks = threads_of(proc)
            stop(proc)
            output, _ = proc.communicate()
            raise AssertionError(f"{' '.join(command[1:3])} did not end within 120 s; the stream's port was "
                                 f"{'connected from ' + str(feeds) if feeds else 'never connected'}.\n"
                                 f"its output:\n{output}\nits threads:\n{stacks}\n"
                                 f"the JACK server's last messages:\n{jack.log_text(40)}")
    finally:
        stop(proc)
    print(output)
    assert proc.returncode == 0, f"{' '.join(command[1:3])} exited {proc.returncode}: {output}"
    assert feeds, f"the SDR stream's JACK port never appeared: {output}"
    assert CHANNEL_PORT in feeds, f"{STREAM_PORT} is fed from {feeds}: the stream arguments did not reach the driver"
    return output


def check_sdr_visible(prism, jack, spec=SPEC):
    proc = subprocess.run([prism, "info", spec, "--json"], env=jack.client_env(), capture_output=True,
                          text=True, timeout=60)
    if proc.returncode == 1 and "no SDR matches" in proc.stderr:
        skip("SoapySDR's audio module sees no device on the JACK server: " + proc.stderr.strip())
    assert proc.returncode == 0, f"prism info {spec} exited {proc.returncode}: {proc.stderr}"
    d = json.loads(proc.stdout)
    print("info:", d)
    assert d["container"] == "SDR" and d["live"] is True, d
    assert d["sample_rate"] == RATE, d
    assert d["format"] == "cf32", d  # its native CS16 is at a full scale prism does not convert with
    assert d["device"].startswith("sdr:") and "driver=audio" in d["device"], d


def run_spectrogram(prism, jack, tone_port, tmp, spec=SPEC):
    out = os.path.join(tmp, "sdr.npy")
    summary = os.path.join(tmp, "summary.json")
    seconds = 4
    run_hearing_the_tone(jack, tone_port, [prism, "spectrogram", spec, "--rate", str(RATE), *STREAM_ARGS,
                                           "--duration", str(seconds), "--nperseg", "4800", "--noverlap", "0",
                                           "--window", "hann", "-o", out, "--summary-json", summary],
                         jack.client_env())
    with open(summary) as f:
        s = json.load(f)
    print("summary:", s)
    assert s["outcome"] == "completed", s
    assert spec in s["input"]["description"], s
    assert s["samples_read"] + s["samples_dropped"] == seconds * RATE, "--duration took another length"
    assert s["samples_dropped"] == 0, "the SDR input overran"
    spectrogram = next(stage for stage in s["stages"] if stage["name"] == "spectrogram")
    assert spectrogram["items_in"] == s["samples_read"] and s["accounting"] == "balanced", s
    with open(os.path.splitext(out)[0] + ".json") as f:
        meta = json.load(f)
    rows = np.load(out)
    assert meta["complete"] is True and rows.shape[0] == seconds * RATE // 4800, (meta, rows.shape)
    freqs = np.array(meta["frequencies"])
    # The last second: the tone was connected well before it.
    spectrum = rows[-10:].mean(axis=0)
    peak = freqs[int(np.argmax(spectrum))]
    print("peak:", peak, "Hz")
    assert abs(abs(peak) - TONE_HZ) <= 10, f"peak at {peak} Hz, not +-{TONE_HZ}"
    floor = np.median(spectrum)
    assert spectrum.max() > 1e4 * floor, "the tone is not far above the floor: did it arrive?"


def run_view(prism, jack, tone_port, tmp):
    from view_test_support import Xvfb, load_json
    require_tools("Xvfb")
    with Xvfb() as xvfb:
        report = os.path.join(tmp, "report.json")
        run_hearing_the_tone(jack, tone_port, [prism, "view", SPEC, *STREAM_ARGS, "--no-config", "--frames", "200",
                                               "--averaging", "0.3", "--report", report],
                             jack.client_env(xvfb.env(tmp)))
        r = load_json(report)
        print("status:", r["status"])
        print("spectrum peak:", r.get("spectrum_peak"))
        assert r["status"]["source"].startswith("sdr:"), r["status"]["source"]
        assert r["status"]["samples_received"] > RATE, "less than a second of samples arrived"
        assert r["status"]["overrun_samples"] == 0, "the input overran"
        assert r["status"]["device_overflows"] == 0, "the driver reported lost samples"
        peak = r["spectrum_peak"]
        assert abs(abs(peak["hz"]) - TONE_HZ) <= 2 * peak["bin_hz"], f"peak at {peak['hz']} Hz, not +-{TONE_HZ}"
        assert peak["db"] > -60, f"the tone is too weak ({peak['db']} dB): did it arrive?"


# Run by `unshare -m` as root: a private /run, a D-Bus system bus and an Avahi daemon there (only
# on lo, publishing nothing), then the SoapyRemote server. SIGTERM ends all three and waits for
# them (no process is left unreaped).
REMOTE_SERVER_SCRIPT = """
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/dbus /run/avahi-daemon
dbus-daemon --system --nofork --nopidfile & bus=$!
for i in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.05; done
avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$1" & avahi=$!
for i in $(seq 100); do [ -e /run/avahi-daemon/socket ] && break; sleep 0.05; done
SoapySDRServer --bind="127.0.0.1:$2" & server=$!
trap 'kill $server $avahi $bus 2>/dev/null; wait; exit 0' TERM INT
wait $server
"""
AVAHI_CONFIG = """[server]
allow-interfaces=lo
use-ipv6=no
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-addresses=no
publish-hinfo=no
publish-workstation=no
publish-domain=no
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_remote_server(jack, tmp):
    """SoapySDRServer on 127.0.0.1 serving the JACK server's audio device; returns the process
    (its own process group: the bus and Avahi go with it) and its port."""
    require_tools("SoapySDRServer", "avahi-daemon", "dbus-daemon", "unshare")
    if os.geteuid() != 0:
        skip("the SoapyRemote server's private /run (unshare -m, mount) needs root")
    config = os.path.join(tmp, "avahi-daemon.conf")
    with open(config, "w") as f:
        f.write(AVAHI_CONFIG)
    port = free_port()
    log = open(os.path.join(tmp, "server.log"), "w+")
    server = subprocess.Popen(["unshare", "-m", "sh", "-c", REMOTE_SERVER_SCRIPT, "sh", config, str(port)],
                              env=jack.client_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 20
    while time.time() < deadline and server.poll() is None:
        log.seek(0)
        if "Press Ctrl+C to stop the server" in log.read():
            return server, port
        time.sleep(0.1)
    log.seek(0)
    text = log.read()
    stop_remote_server(server)
    skip("SoapySDRServer did not start: " + (text.strip().splitlines() or ["no output"])[-1])


def stop_remote_server(server):
    if server is None or server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def main(prism, mode):
    require_tools("jack_metro")
    tmp = tempfile.TemporaryDirectory()
    metro = server = None
    with JackServer() as jack:
        try:
            metro, tone_port = play_tone(jack)
            spec = SPEC
            if mode == "remote":
                server, port = start_remote_server(jack, tmp.name)
                # remote:prot=tcp: the samples travel over TCP (lossless), not SoapyRemote's UDP.
                spec = f"sdr:driver=remote,remote=tcp://127.0.0.1:{port},remote:driver=audio,remote:prot=tcp"
            check_sdr_visible(prism, jack, spec)
            if mode == "view":
                run_view(prism, jack, tone_port, tmp.name)
            else:
                run_spectrogram(prism, jack, tone_port, tmp.name, spec)
            print(f"OK: {mode} on {spec} heard the tone at +-{TONE_HZ} Hz")
        finally:
            stop(metro)
            stop_remote_server(server)
            tmp.cleanup()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
