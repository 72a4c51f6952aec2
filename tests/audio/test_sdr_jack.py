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
Exits 77 (ctest SKIP) with the reason where jackd, jack_metro, Xvfb or the audio module cannot
run here; never passes without having seen the tone.

Usage: test_sdr_jack.py PRISM spectrogram|view
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from jack_test_support import RATE, JackServer, require_tools, skip, stop  # noqa: E402

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
        output, _ = proc.communicate(timeout=120)
    finally:
        stop(proc)
    print(output)
    assert proc.returncode == 0, f"{' '.join(command[1:3])} exited {proc.returncode}: {output}"
    assert feeds, f"the SDR stream's JACK port never appeared: {output}"
    assert CHANNEL_PORT in feeds, f"{STREAM_PORT} is fed from {feeds}: the stream arguments did not reach the driver"
    return output


def check_sdr_visible(prism, jack):
    proc = subprocess.run([prism, "info", SPEC, "--json"], env=jack.client_env(), capture_output=True,
                          text=True, timeout=60)
    if proc.returncode == 1 and "no SDR matches" in proc.stderr:
        skip("SoapySDR's audio module sees no device on the JACK server: " + proc.stderr.strip())
    assert proc.returncode == 0, f"prism info {SPEC} exited {proc.returncode}: {proc.stderr}"
    d = json.loads(proc.stdout)
    print("info:", d)
    assert d["container"] == "SDR" and d["live"] is True, d
    assert d["sample_rate"] == RATE, d
    assert d["format"] == "cf32", d  # its native CS16 is at a full scale prism does not convert with
    assert d["device"].startswith("sdr:") and "driver=audio" in d["device"], d


def run_spectrogram(prism, jack, tone_port, tmp):
    out = os.path.join(tmp, "sdr.npy")
    summary = os.path.join(tmp, "summary.json")
    seconds = 4
    run_hearing_the_tone(jack, tone_port, [prism, "spectrogram", SPEC, "--rate", str(RATE), *STREAM_ARGS,
                                           "--duration", str(seconds), "--nperseg", "4800", "--noverlap", "0",
                                           "--window", "hann", "-o", out, "--summary-json", summary],
                         jack.client_env())
    with open(summary) as f:
        s = json.load(f)
    print("summary:", s)
    assert s["outcome"] == "completed", s
    assert SPEC in s["input"]["description"], s
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


def main(prism, mode):
    require_tools("jack_metro")
    tmp = tempfile.TemporaryDirectory()
    metro = None
    with JackServer() as jack:
        try:
            metro, tone_port = play_tone(jack)
            check_sdr_visible(prism, jack)
            (run_spectrogram if mode == "spectrogram" else run_view)(prism, jack, tone_port, tmp.name)
            print(f"OK: {mode} on {SPEC} heard the tone at +-{TONE_HZ} Hz")
        finally:
            stop(metro)
            tmp.cleanup()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
