"""Listening to a channel in `prism view`, driven by real X input events (xdotool) under Xvfb,
heard through a JACK server with its dummy driver.

The input is a complex recording made here (SigMF cf32, 96 kHz, centre 100 MHz, 4 s, looped)
carrying two channels: AM at +15 kHz (a 1000 Hz tone, modulation index 0.5) and narrow FM at
-20 kHz (a 600 Hz tone, 3 kHz deviation). For each channel a viewer run:
  - a Shift-drag across a band 1 kHz off the channel's, then (once the audio device is open)
    one across the channel's band on the waterfall select it (the demodulator is the default am,
    or nfm set by a script step at frame 0); the second replaces the running receiver's taps;
  - once the viewer's JACK output exists, jack_rec records system:monitor_1 (what PortAudio plays
    to the default output) for 5 s, while the Record button is clicked, and clicked again 3 s
    later.
Checks: the report's band is the dragged one, one receiver was built and its taps replaced once; the JACK recording's sound, in 0.25 s blocks, is
the channel's tone wherever it is a clean tone, and the longest clean stretch (at least 1 s) has
its strongest component at the tone (within 1 Hz: the peak of a median of spectra, interpolated)
and the other channel's tone at least 30 dB below it (noise where the server reported xruns is
excused: see check_heard); the WAV the viewer recorded holds the same tone, at the
audio rate, about 3 s of it, the other channel's tone at least 60 dB down (the channel filter
attenuates 70 dB), and the SigMF of the channel's I/Q recorded beside it is centred on the
channel, as long, and demodulated here gives the tone with the other's 40 dB down; the drops and underflows the viewer counted are reported
(and, when the JACK server reported no xruns, under 5 % of the audio).
Exits 77 (ctest SKIP) with the reason when jackd, jack_rec, Xvfb or xdotool cannot run here.

Usage: test_view_listen_jack.py PRISM
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from scipy import signal
from scipy.io import wavfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from jack_test_support import RATE, JackServer, require_tools, stop  # noqa: E402
from view_test_support import InteractiveView, Xvfb, load_json, require_xdotool, run_view, x_of  # noqa: E402

FS = 96000
CENTRE = 100e6
AM = {"carrier": 15e3, "tone": 1000.0, "band": 10e3, "demodulator": "am"}
FM = {"carrier": -20e3, "tone": 600.0, "band": 12e3, "demodulator": "nfm"}
SIZE = "1280x800"
RECORD_S = 3.0
HEARD_S = 5  # jack_rec's recording, started once the sound plays


def write_input(tmp):
    """4 s of the two channels (whole periods of every tone, so that the loop is seamless)."""
    n = np.arange(4 * FS)
    t = n / FS
    am = 0.3 * (1 + 0.5 * np.cos(2 * np.pi * AM["tone"] * t)) * np.exp(2j * np.pi * AM["carrier"] * t)
    deviation = 3000.0
    phase = 2 * np.pi * FM["carrier"] * t + deviation / FM["tone"] * np.sin(2 * np.pi * FM["tone"] * t)
    fm = 0.3 * np.exp(1j * phase)
    x = (am + fm).astype(np.complex64)
    base = os.path.join(tmp, "two_channels")
    x.tofile(base + ".sigmf-data")
    meta = {"global": {"core:datatype": "cf32_le", "core:sample_rate": FS, "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": CENTRE}], "annotations": []}
    with open(base + ".sigmf-meta", "w") as f:
        json.dump(meta, f)
    return base + ".sigmf-meta"


def check_tone(x, rate, channel, other, what, margin_db):
    """The strongest component of x at the channel's tone (within 1 Hz) and the other channel's
    tone at least margin_db below it. Welch's median of 1 s spectra: a glitch of the audio server
    (an xrun splatters one segment) does not move it."""
    f, p = signal.welch(x - x.mean(), rate, nperseg=rate, average="median")
    db = 10 * np.log10(p + 1e-30)
    k = int(np.argmax(db[1:-1])) + 1
    a, b, c = db[k - 1], db[k], db[k + 1]
    hz = f[k] + 0.5 * (a - c) / (a - 2 * b + c) * (f[1] - f[0])
    assert abs(hz - channel["tone"]) < 1.0, f"{what}: the strongest tone is at {hz:.2f} Hz, not {channel['tone']}"

    def level(tone):
        i = int(round(tone / (f[1] - f[0])))
        return db[i - 2:i + 3].max()

    margin = level(channel["tone"]) - level(other["tone"])
    assert margin > margin_db, f"{what}: the other channel's {other['tone']} Hz tone only {margin:.1f} dB down"
    print(f"{what}: tone at {hz:.3f} Hz, the other channel's tone {margin:.1f} dB down")


def check_heard(x, channel, other, xruns, what):
    """What JACK recorded, in 0.25 s blocks. A block is clean when its strongest component
    stands 30 dB above the block's median level. Every clean block's peak is the channel's tone;
    the longest run of clean blocks (at least 1 s) measures it (check_tone). Blocks that are not
    clean are excused only when the server reported xruns: a JACK client that misses its cycle
    (on this shared machine, often) leaves its port's buffer unwritten for that cycle, and the
    recording then holds full-scale noise."""
    block = RATE // 4
    clean = []
    for i in range(len(x) // block):
        seg = x[i * block:(i + 1) * block]
        s = np.abs(np.fft.rfft((seg - seg.mean()) * np.hanning(block)))
        k = int(np.argmax(s[1:])) + 1
        is_clean = 20 * np.log10(s[k] / np.median(s)) > 30
        if is_clean:
            assert abs(k * RATE / block - channel["tone"]) <= RATE / block, \
                f"{what}: block {i} is a clean tone at {k * RATE / block} Hz, not {channel['tone']}"
        clean.append(is_clean)
    if xruns == 0:
        assert all(clean), f"{what}: blocks {[i for i, c in enumerate(clean) if not c]} are not a clean tone"
    best, start, run = (0, 0), 0, 0
    for i, c in enumerate(clean + [False]):
        if c:
            run += 1
        else:
            if run > best[0]:
                best = (run, i - run)
            run = 0
    length, first = best
    print(f"{what}: {sum(clean)} of {len(clean)} blocks a clean tone (the server reported {xruns} xruns)")
    assert length >= 4, f"{what}: no clean second of the tone: {clean}"
    check_tone(x[first * block:(first + length) * block], RATE, channel, other, what, 30)


def listen(prism, tmp, meta, layout, channel, other):
    # A long period (85 ms) and a long client timeout give the clients slack on a busy machine:
    # the viewer (rendering with Mesa's software OpenGL) is not dropped from the JACK graph.
    with JackServer(period=4096, monitor=True, client_timeout_ms=5000) as jack, Xvfb() as xvfb:
        env = jack.client_env(xvfb.env(tmp))
        report = os.path.join(tmp, f"{channel['demodulator']}.json")
        script = os.path.join(tmp, f"{channel['demodulator']}-script.json")
        with open(script, "w") as f:
            json.dump([{"frame": 0, "set": {"demodulator": channel["demodulator"]}}], f)
        heard = os.path.join(tmp, f"{channel['demodulator']}-heard.wav")
        rec = None
        with InteractiveView(prism, env, meta, "--no-config", "--size", SIZE, "--report", report,
                             "--script", script, "--fps", 10) as view:
            try:
                wf = layout["waterfall"]
                y = wf["y"] + wf["height"] / 2
                low = CENTRE + channel["carrier"] - channel["band"] / 2
                high = CENTRE + channel["carrier"] + channel["band"] / 2

                def select(low_hz, high_hz):
                    view.move(x_of(low_hz, layout), y)
                    view.xdotool("keydown", "shift")
                    view.xdotool("mousedown", 1)
                    view.move(x_of(high_hz, layout), y)
                    view.xdotool("mouseup", 1)
                    view.xdotool("keyup", "shift")

                # First a band 1 kHz off, then, once the device is open (it opens on a thread of
                # its own: seconds on a busy machine) and the receiver runs, the channel's: the
                # running receiver's taps are replaced.
                select(low + 1000, high + 1000)
                outputs = jack.wait_for_ports(lambda p: p.startswith("PortAudio") and ":out" in p, 30)
                assert outputs, f"the viewer made no JACK output port: {jack.ports()}"
                time.sleep(1.0)
                select(low, high)
                time.sleep(0.5)
                # A large ring (-B): with the default, jack_rec's disk thread fell behind on this
                # machine and the file got noise.
                rec = subprocess.Popen(["jack_rec", "-f", heard, "-d", str(HEARD_S), "-b", "16", "-B", str(1 << 19),
                                        "system:monitor_1"],
                                       env=jack.client_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True)
                assert jack.wait_for_ports(lambda p: p.startswith("jackrec:"), 10, rec), "jack_rec made no port"
                record = layout["controls"]["record"]
                view.click_at(record["x"] + record["width"] / 2, record["y"] + record["height"] / 2)
                time.sleep(RECORD_S)
                view.click_at(record["x"] + record["width"] / 2, record["y"] + record["height"] / 2)
                rec_output = rec.communicate(timeout=HEARD_S + 30)[0]
                assert rec.returncode == 0, f"jack_rec exited {rec.returncode}: {rec_output}"
                view.close()
            finally:
                stop(rec)
        r = load_json(report)
        l = r["listen"]
        print(f"{channel['demodulator']}: {l['description']} | band {l['band_hz']} | audio {l['audio_samples']} "
              f"samples, dropped {l['dropped']}, underflows {l['underflows']}, host xruns {l['host_xruns']} | "
              f"recordings {l['recordings']}")
        assert l["error"] == "", f"the listener reports: {l['error']}"
        assert l["on"], "the viewer is not listening after the drag"
        assert l["receivers_built"] == 1 and l["taps_replaced"] == 1, \
            f"the second band did not replace the running receiver's taps: {l}"
        band_px = (high - low) / (layout["frequency_view_hz"][1] - layout["frequency_view_hz"][0]) * wf["width"]
        pixel_hz = (high - low) / band_px
        assert abs(l["band_hz"][0] - low) < 2 * pixel_hz and abs(l["band_hz"][1] - high) < 2 * pixel_hz, \
            f"the band listened to is {l['band_hz']}, the drag went over {low}..{high}"
        # A server that missed cycles (xruns, a busy machine) took less audio than the input made:
        # that excess is dropped, as it should be. Without xruns the drops are the start's only.
        if l["host_xruns"] == 0:
            assert l["dropped"] < 0.05 * l["audio_samples"], "more than 5 % of the audio was dropped"
        assert l["dropped"] < l["audio_samples"], "the drop count exceeds the audio made"

        # What JACK heard: the second after the selection settled (its filter's delay, the ring).
        rate, x = wavfile.read(heard)
        assert rate == RATE, f"jack_rec recorded at {rate} Hz"
        x = x.astype(float) / 32768.0
        loud = np.flatnonzero(np.abs(x) > 0.01)
        assert len(loud) > 0, f"nothing reached the default output: {rec_output}"
        sound = x[loud[0]:loud[-1]]
        assert len(sound) > (HEARD_S - 1) * RATE, f"only {len(sound) / RATE:.2f} s of sound in {HEARD_S} s recorded"
        check_heard(sound, channel, other, l["host_xruns"], f"{channel['demodulator']} heard through JACK")

        # What the viewer recorded: the audio (WAV) and the channel's I/Q (SigMF) side by side.
        assert len(l["recordings"]) == 2, f"one recording (WAV + SigMF) expected: {l['recordings']}"
        path = os.path.join(tmp, l["recordings"][0])
        assert path.endswith(".wav") and l["recordings"][1] == l["recordings"][0][:-4] + ".sigmf-meta", \
            l["recordings"]
        with warnings.catch_warnings():  # libsndfile's PEAK chunk, which scipy skips
            warnings.simplefilter("ignore")
            rate, y = wavfile.read(path)
        assert rate == l["audio_rate"], f"recorded at {rate} Hz, the audio rate is {l['audio_rate']}"
        seconds = len(y) / rate
        # The clicks reach the viewer at its next frames, which come late on a busy machine.
        assert RECORD_S - 0.5 < seconds < RECORD_S + 2.0, f"{seconds:.2f} s recorded between clicks {RECORD_S} s apart"
        check_tone(y[rate // 4:].astype(float), rate, channel, other, f"{channel['demodulator']} recorded", 60)
        meta_path = os.path.join(tmp, l["recordings"][1])
        meta = load_json(meta_path)
        iq_rate = meta["global"]["core:sample_rate"]
        assert meta["global"]["core:datatype"] == "cf32_le", meta["global"]
        carrier = (l["band_hz"][0] + l["band_hz"][1]) / 2
        assert abs(meta["captures"][0]["core:frequency"] - carrier) < 1e-3, (meta["captures"], l["band_hz"])
        iq = np.fromfile(meta_path[:-len("meta")] + "data", dtype=np.complex64).astype(complex)
        assert abs(len(iq) / iq_rate - seconds) < 0.1, f"{len(iq) / iq_rate:.2f} s of I/Q beside {seconds:.2f} s of audio"
        # Demodulated here: the channel's tone, the other channel's far down.
        demodulated = np.abs(iq) if channel["demodulator"] == "am" else np.angle(iq[1:] * np.conj(iq[:-1]))
        check_tone(demodulated[int(iq_rate) // 4:], int(iq_rate), channel, other,
                   f"{channel['demodulator']} I/Q recorded ({iq_rate:g} Hz)", 40)
        return f"{channel['demodulator']}: {channel['tone']:g} Hz heard and recorded ({seconds:.2f} s)"


def main(prism):
    require_xdotool()
    require_tools("jack_rec", "Xvfb")
    with tempfile.TemporaryDirectory() as tmp, Xvfb() as xvfb:
        os.chdir(tmp)  # the recordings go to the working folder
        meta = write_input(tmp)
        first = os.path.join(tmp, "layout.json")
        run_view(prism, xvfb.env(tmp), meta, "--no-config", "--size", SIZE, "--frames", 5, "--report", first)
        layout = load_json(first)
        assert "record" in layout["controls"], f"no Record button in the report: {sorted(layout['controls'])}"
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        meta = write_input(tmp)
        results = [listen(prism, tmp, meta, layout, AM, FM), listen(prism, tmp, meta, layout, FM, AM)]
    print("OK: " + "; ".join(results))


if __name__ == "__main__":
    main(sys.argv[1])
