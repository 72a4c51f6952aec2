"""prism view's playback controls for files, clicked with real X input events (xdotool) under
Xvfb + Mesa: pause, speed, seek and loop.

The file is a 60 s WAV of a chirp from 1 to 13 kHz (200 Hz per second, written by prism
generate), so the spectrum's peak says where in the file the viewer is, independently of the
position it reports. The controls are found where the report of a first short run says they
are drawn (report["controls"]). Each run ends with Ctrl-C; the report gives the settings,
playback state (paused, position, ended) and the spectrum's peak; wall-clock times taken around
the clicks bound the position.
  1. pause: clicked 0.5 s in, then 2 s wait: paused, the position no later than the click.
  2. speed: 10x clicked at once, pause 2 s later: the position is past 12 s (1x: about 3 s).
  3. seek: a click on the slider at 40 s, pause 0.6 s later: the position near 40 s; the
     waterfall keeps the lines from before, under a line marking the seek.
  4. no loop (--loop false): seek to 58 s, 4 s later the playback has ended at 60 s.
  5. loop by default: seek to 58 s, pause 3.5 s later: it played again from the start, no further
     in than the wall-clock time from the seek click to the report, less the 2 s to the end; the
     waterfall marks the loop (newest) and the seek.
  6. loop switched on after the end: seek to 58.5 s, wait for the end, click loop, pause 1 s
     later: it played again from the start, no further in than the time since the loop click.
Upper bounds on positions come from wall-clock times taken before a click and after the report,
so a loaded machine that delivers clicks or Ctrl-C late cannot push a correct viewer past them.
In each, the spectrum's peak sits at the chirp's frequency at the reported position.

Usage: test_view_playback.py PRISM
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import InteractiveView, Xvfb, load_json, require_xdotool, run_view  # noqa: E402

DURATION_S = 60.0
F0, F1 = 1000.0, 13000.0
SIZE = "1280x800"


def chirp_hz(position_s):
    return F0 + (F1 - F0) * position_s / DURATION_S


def centre(rect):
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


def seek_x(rect, seconds):
    """Where a click on ImGui's slider (1.86) sets `seconds`: the grab's centre travels from
    2 px padding + half the minimum grab (10 px) from one end of the frame to the same from the
    other."""
    inset = 2 + 10 / 2
    return rect["x"] + inset + seconds / DURATION_S * (rect["width"] - 2 * inset)


class Playback:
    def __init__(self, prism, env, wav, tmp):
        self.prism, self.env, self.wav, self.tmp = prism, env, wav, tmp
        self.runs = 0

    def start(self, *args):
        self.runs += 1
        self.report = os.path.join(self.tmp, f"run{self.runs}.json")
        return InteractiveView(self.prism, self.env, self.wav, "--no-config", "--size", SIZE, "--fft-size", 4096,
                               "--lines-per-second", 60, "--report", self.report, *args)

    def finish(self, view, name):
        view.close()
        r = load_json(self.report)
        p, peak = r["playback"], r["spectrum_peak"]
        print(f"{name}: position {p['position_s']:.2f} s, paused {p['paused']}, ended {p['ended']}, "
              f"speed {r['settings']['speed']}, loop {r['settings']['loop']}, peak {peak['hz']:.0f} Hz "
              f"(chirp there: {chirp_hz(p['position_s']):.0f} Hz), {time.time() - view.started:.1f} s")
        assert r["status"]["error"] == "", r["status"]["error"]
        # The newest line is from the last frames processed before the position: within 0.4 s
        # of chirp (80 Hz) plus the FFT's own length and two bins.
        assert abs(peak["hz"] - chirp_hz(p["position_s"])) <= 80 + 2 * peak["bin_hz"] + 20, \
            f"{name}: the spectrum's peak {peak['hz']:.0f} Hz is not the chirp at {p['position_s']:.2f} s"
        return r, p


def main(prism):
    require_xdotool()
    with tempfile.TemporaryDirectory() as tmp, Xvfb() as xvfb:
        env = xvfb.env(tmp)
        wav = os.path.join(tmp, "chirp.wav")
        subprocess.run([prism, "generate", f"gen:rate=48000,chirp={F0:g}-{F1:g}@0.5,duration={DURATION_S:g}",
                        "-o", wav, "-q"], check=True, timeout=60)
        first = os.path.join(tmp, "layout.json")
        run_view(prism, env, wav, "--no-config", "--size", SIZE, "--frames", 5, "--report", first)
        controls = load_json(first)["controls"]
        for name in ("pause", "loop", "speed_1x", "speed_10x", "seek"):
            assert name in controls, f"the report does not say where '{name}' is: {sorted(controls)}"
        play = Playback(prism, env, wav, tmp)

        # 1. Pause.
        with play.start("--loop", "false") as view:
            time.sleep(0.5)
            view.click_at(*centre(controls["pause"]))
            clicked_after = time.time() - view.started
            time.sleep(2.0)
            r, p = play.finish(view, "1. pause")
        assert p["paused"], "the Pause button did not pause"
        assert 0.1 < p["position_s"] <= clicked_after + 0.1, \
            f"position {p['position_s']:.2f} s: playback went on after the pause clicked by {clicked_after:.2f} s"

        # 2. Speed 10x.
        with play.start("--loop", "false") as view:
            view.click_at(*centre(controls["speed_10x"]))
            time.sleep(2.0)
            view.click_at(*centre(controls["pause"]))
            paused_after = time.time() - view.started
            time.sleep(1.0)
            r, p = play.finish(view, "2. speed 10x")
        assert r["settings"]["speed"] == 10, f"speed {r['settings']['speed']} after clicking 10x"
        assert p["paused"]
        assert 12 <= p["position_s"] <= 10 * paused_after + 1, \
            f"position {p['position_s']:.2f} s after {paused_after:.2f} s, 2 s of it at 10x"

        # 3. Seek.
        with play.start("--loop", "false") as view:
            time.sleep(0.3)
            view.click_at(seek_x(controls["seek"], 40.0), centre(controls["seek"])[1])
            time.sleep(0.6)
            view.click_at(*centre(controls["pause"]))
            r, p = play.finish(view, "3. seek to 40 s")
        # Slack above: under load the clicks reach the viewer a few frames late.
        assert 39.5 <= p["position_s"] <= 43.5, f"position {p['position_s']:.2f} s after seeking to 40 s"
        # The lines from before the seek stay, under a line marking the seek.
        reasons = [b["reason"] for b in r["waterfall_history"]["breaks"]]
        assert reasons == ["seek"], f"the waterfall's history after one seek is marked {reasons}"

        # 4. The end, without loop.
        with play.start("--loop", "false") as view:
            time.sleep(0.3)
            view.click_at(seek_x(controls["seek"], 58.0), centre(controls["seek"])[1])
            time.sleep(4.0)
            r, p = play.finish(view, "4. no loop")
        assert not r["settings"]["loop"]
        assert p["ended"] and abs(p["position_s"] - DURATION_S) < 0.01, \
            f"without loop the playback should stop at {DURATION_S} s: {p}"

        # 5. The end, with loop (the default).
        with play.start() as view:
            time.sleep(0.3)
            before_seek = time.time()
            view.click_at(seek_x(controls["seek"], 58.0), centre(controls["seek"])[1])
            time.sleep(3.5)
            view.click_at(*centre(controls["pause"]))
            time.sleep(0.5)
            r, p = play.finish(view, "5. loop")
            since_seek = time.time() - before_seek
        assert r["settings"]["loop"] and not p["ended"] and p["paused"]
        assert 0.1 <= p["position_s"] <= since_seek - 2.0 + 0.1, \
            f"position {p['position_s']:.2f} s, {since_seek:.2f} s after the seek to 58 s: did it loop to the start?"
        reasons = [b["reason"] for b in r["waterfall_history"]["breaks"]]
        assert reasons == ["loop", "seek"], f"the waterfall's history after a seek and a loop is marked {reasons}"

        # 6. Loop switched on after the end.
        with play.start("--loop", "false") as view:
            time.sleep(0.3)
            view.click_at(seek_x(controls["seek"], 58.5), centre(controls["seek"])[1])
            time.sleep(3.0)  # ended by now
            before_loop = time.time()
            view.click_at(*centre(controls["loop"]))
            time.sleep(1.0)
            view.click_at(*centre(controls["pause"]))
            r, p = play.finish(view, "6. loop switched on at the end")
            since_loop = time.time() - before_loop
        assert r["settings"]["loop"] and not p["ended"] and p["paused"]
        assert 0.2 <= p["position_s"] <= since_loop + 0.1, \
            f"position {p['position_s']:.2f} s, {since_loop:.2f} s after the loop click: did loop restart the file?"
        print("OK: pause, speed, seek, end without loop, loop, loop switched on at the end")


if __name__ == "__main__":
    main(sys.argv[1])
