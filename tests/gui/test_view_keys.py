"""prism view's keyboard shortcuts, pressed as real X key events (xdotool) under Xvfb + Mesa.

One viewer run on the test signal, started zoomed to 5-10 kHz with a dB range of -200..0 and
playing; with the pointer over the waterfall, the keys space, A, F and R are pressed, then the
viewer is ended with Ctrl-C. Its report must show each key's effect: paused (space), a dB range
taken from the signal (A: the peak below the top, the noise floor above the bottom, no longer
-200..0), the display frozen (F) and the whole band shown again (R: no saved zoom).

Usage: test_view_keys.py PRISM
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import InteractiveView, Xvfb, load_json, require_xdotool  # noqa: E402

SIGNAL = "gen:rate=48000,duration=inf,tone=6000@0.5,noise=0.001"


def main(prism):
    require_xdotool()
    with tempfile.TemporaryDirectory() as tmp, Xvfb() as xvfb:
        env = xvfb.env(tmp)
        report_path = os.path.join(tmp, "keys.json")
        with InteractiveView(prism, env, SIGNAL, "--no-config", "--size", "1280x800", "--fft-size", 4096,
                             "--frequency-range", "5000:10000", "--db-range", "-200:0",
                             "--report", report_path) as view:
            time.sleep(1.0)  # lines arriving: auto range needs one
            view.move(640, 500)
            for key in ("space", "a", "f", "r"):
                view.key(key)
            view.close()
        r = load_json(report_path)
        s, playback, band = r["settings"], r["playback"], r["display_format"]
        print(f"paused {playback['paused']}, dB range {s['db_min']}..{s['db_max']}, frozen {r['frozen']}, "
              f"view {r['frequency_view_hz']} of {band['frequency_low']}..{band['frequency_high']}, "
              f"peak {r['spectrum_peak']}")
        assert playback["paused"], "space did not pause the playback"
        assert (s["db_min"], s["db_max"]) != (-200, 0), "A did not set the dB range"
        assert s["db_min"] > -200 and s["db_max"] - s["db_min"] >= 10, f"A set {s['db_min']}..{s['db_max']}"
        assert s["db_min"] < r["spectrum_peak"]["db"] < s["db_max"], "the tone's peak is outside the auto range"
        assert r["frozen"], "F did not freeze the display"
        assert s["view_low_hz"] is None and s["view_high_hz"] is None, f"R left the zoom: {s}"
        assert abs(r["frequency_view_hz"][0] - band["frequency_low"]) < 1e-6 and \
            abs(r["frequency_view_hz"][1] - band["frequency_high"]) < 1e-6, "R did not show the whole band"
        print("OK: space pauses, A sets the dB range from the signal, F freezes, R shows the whole band")


if __name__ == "__main__":
    main(sys.argv[1])
