"""prism view's mouse controls, driven by real X input events (xdotool) under Xvfb + Mesa.

Three viewer runs on tones at 3, 9 and 15 kHz share one settings directory
($XDG_CONFIG_HOME/prism/view.json), each ended with Ctrl-C, which saves the screenshot, the
report and the settings:
  1. three wheel notches up over 9 kHz zoom around the cursor (the view becomes
     [f - (f - low) 0.8^3, f + (high - f) 0.8^3]); right-clicks set marker A on the 9 kHz tone and
     B on the noise at 12 kHz. The report's readout gives both levels and B-A, and its text, the
     cursor's and the letters A and B do not overlap; the zoom is saved;
     the screenshot shows the tones at their zoomed x (3 kHz gone) and the two marker lines.
  2. The next run starts from the saved zoom; a drag 200 px to the left pans the view up by
     200 px worth of Hz; the tones move 200 px left in the screenshot; the cursor readout names
     the frequency under the pointer.
  3. Right-click twice, middle-click: no marker left. A double-click shows the whole band again:
     the saved zoom is gone and all three tones are back where the full band puts them.

Usage: test_view_mouse.py PRISM
"""
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import (InteractiveView, Xvfb, bright_columns, load_json, read_png_rgb,  # noqa: E402
                               require_xdotool, run_view, x_of)

TONES = [3000.0, 9000.0, 15000.0]
SIGNAL = "gen:rate=48000,duration=inf," + ",".join(f"tone={f:g}@0.5" for f in TONES) + ",noise=0.001"
SIZE = "1280x800"
MARKER_A_RGB, MARKER_B_RGB = (255, 90, 90), (90, 255, 140)


def hz_at(x, view, plot):
    """The frequency the viewer maps window x to, for a view [low, high] across `plot`."""
    low, high = view
    return low + (x - plot["x"]) / plot["width"] * (high - low)


def assert_close(actual, expected, tolerance, what):
    assert abs(actual - expected) <= tolerance, f"{what}: {actual} where {expected} (+-{tolerance}) was expected"


def check_tone_columns(image, report, expected_tones, extra_x=()):
    """Bright waterfall columns at each tone inside the view, and nowhere else (but `extra_x`,
    marker lines)."""
    bright = bright_columns(image, report)
    low, high = report["frequency_view_hz"]
    expected = [x_of(f, report) for f in expected_tones]
    assert all(low < f < high for f in expected_tones), f"a tone outside the view {low}..{high}"
    # A tone lights its bin and, through the Hann window's main lobe, one bin either side: when
    # zoomed in, a bin is most of a pixel wide.
    fft_bin_hz = 48000 / report["display_format"]["fft_size"]
    near = 1.5 + 1.5 * fft_bin_hz / ((high - low) / report["waterfall"]["width"])
    for f, x in zip(expected_tones, expected):
        assert any(abs(b - x) <= near for b in bright), f"no bright column at x={x:.1f} for {f} Hz ({bright})"
    for b in bright:
        assert any(abs(b - x) <= near for x in list(expected) + list(extra_x)), \
            f"bright column at x={b}: no tone is there (tones at {expected}, +-{near:.1f} px)"


def marker_line_rows(image, report, x, rgb):
    """How many waterfall rows show the marker's colour at x (or the column next to it: the
    line is drawn at a fractional x)."""
    wf = report["waterfall"]
    y0, y1 = int(wf["y"]) + 1, int(wf["y"] + wf["height"]) - 1
    best = 0
    for column in (int(np.floor(x)) - 1, int(np.floor(x)), int(np.floor(x)) + 1):
        strip = image[y0:y1, column].astype(int)
        close = (np.abs(strip - np.array(rgb)) <= 40).all(axis=1)
        best = max(best, int(close.sum()))
    return best, y1 - y0


def main(prism):
    require_xdotool()
    with tempfile.TemporaryDirectory() as tmp, Xvfb() as xvfb:
        env = xvfb.env(tmp)  # XDG_CONFIG_HOME=tmp: the settings file is tmp/prism/view.json
        config = os.path.join(tmp, "prism", "view.json")
        common = [SIGNAL, "--size", SIZE, "--fft-size", 4096, "--db-range", "-110:-10", "--lines-per-second", 60]

        # The layout and the whole band, from a short run that leaves the settings alone.
        first = os.path.join(tmp, "layout.json")
        run_view(prism, env, *common, "--no-config", "--frames", 60, "--report", first)
        layout = load_json(first)
        assert "display_format" in layout, "no spectrum line arrived in 60 frames"
        s, wf = layout["spectrum"], layout["waterfall"]
        band = (layout["display_format"]["frequency_low"], layout["display_format"]["frequency_high"])
        spectrum_y, waterfall_y = s["y"] + s["height"] / 2, wf["y"] + 20  # near the newest lines
        print(f"plots x {s['x']}..{s['x'] + s['width']}, band {band[0]:.2f}..{band[1]:.2f} Hz")

        # 1. Wheel zoom around the cursor, markers A and B.
        report_path, png = os.path.join(tmp, "zoom.json"), os.path.join(tmp, "zoom.png")
        with InteractiveView(prism, env, *common, "--report", report_path, "--screenshot", png) as view:
            time.sleep(1.0)  # lines arriving
            zoom_x = round(s["x"] + (9000 - band[0]) / (band[1] - band[0]) * s["width"])
            view.move(zoom_x, spectrum_y)
            view.click(4, repeat=3)
            at = hz_at(zoom_x, band, s)
            factor = 0.8 ** 3
            zoomed = (at - (at - band[0]) * factor, at + (band[1] - at) * factor)
            a_x = round(s["x"] + (9000 - zoomed[0]) / (zoomed[1] - zoomed[0]) * s["width"])
            b_x = round(s["x"] + (12000 - zoomed[0]) / (zoomed[1] - zoomed[0]) * s["width"])
            view.click_at(a_x, spectrum_y, 3)
            view.click_at(b_x, spectrum_y, 3)
            view.close()
        r, image = load_json(report_path), read_png_rgb(png)
        saved = load_json(config)
        print(f"1. zoom: view {r['frequency_view_hz']} (expected {zoomed}); markers: {r['markers']['text']}")
        for got, want, name in zip(r["frequency_view_hz"], zoomed, ("low", "high")):
            assert_close(got, want, 0.5, f"zoomed view's {name} edge")
        assert_close(saved["view_low_hz"], zoomed[0], 0.5, "saved view_low_hz")
        assert_close(saved["view_high_hz"], zoomed[1], 0.5, "saved view_high_hz")
        m = r["markers"]
        assert m["A"] and m["B"] and m["B-A"], f"markers not set by the right-clicks: {m}"
        pixel_hz = (zoomed[1] - zoomed[0]) / s["width"]
        assert_close(m["A"]["hz"], hz_at(a_x, zoomed, s), 0.01, "marker A's frequency")
        assert_close(m["B"]["hz"], hz_at(b_x, zoomed, s), 0.01, "marker B's frequency")
        assert_close(m["A"]["hz"], 9000, pixel_hz, "marker A on the 9 kHz tone")
        assert_close(m["B-A"]["hz"], m["B"]["hz"] - m["A"]["hz"], 1e-6, "B-A frequency")
        assert_close(m["B-A"]["db"], m["B"]["db"] - m["A"]["db"], 1e-4, "B-A level")
        assert m["A"]["db"] > -40 and m["B"]["db"] < m["A"]["db"] - 40, f"A on the tone, B on the noise: {m}"
        assert "B-A" in m["text"] and f"{m['B-A']['db']:+.1f} dB" in m["text"], m["text"]
        # The texts over the spectrum (the readout, the cursor's, the letters A and B) are all
        # drawn, none over another.
        labels = r["spectrum_labels"]
        assert {"markers", "cursor", "A", "B"} <= {t["what"] for t in labels}, labels
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] or
                         a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
                assert apart, f"'{a['text']}' and '{b['text']}' overlap over the spectrum: {a} {b}"
        check_tone_columns(image, r, [9000.0, 15000.0], extra_x=[x_of(m["B"]["hz"], r)])
        for name, hz, rgb in (("A", m["A"]["hz"], MARKER_A_RGB), ("B", m["B"]["hz"], MARKER_B_RGB)):
            rows, height = marker_line_rows(image, r, x_of(hz, r), rgb)
            assert rows >= 0.9 * height, f"marker {name}'s line shows in {rows} of {height} waterfall rows"

        # 2. The saved zoom comes back; drag pans.
        report_path, png = os.path.join(tmp, "pan.json"), os.path.join(tmp, "pan.png")
        with InteractiveView(prism, env, *common, "--report", report_path, "--screenshot", png) as view:
            time.sleep(1.0)
            view.drag(700, waterfall_y, 500, waterfall_y)
            view.close()
        r, image = load_json(report_path), read_png_rgb(png)
        saved = load_json(config)
        shift = 200 / s["width"] * (zoomed[1] - zoomed[0])
        panned = (zoomed[0] + shift, zoomed[1] + shift)
        print(f"2. pan: view {r['frequency_view_hz']} (expected {panned}); cursor: {r['cursor']!r}")
        for got, want, name in zip(r["frequency_view_hz"], panned, ("low", "high")):
            assert_close(got, want, 0.5, f"panned view's {name} edge")
        assert_close(saved["view_low_hz"], panned[0], 0.5, "saved view_low_hz after the pan")
        assert not any(r["markers"][k] for k in ("A", "B")), "markers outlived the run that set them"
        check_tone_columns(image, r, [9000.0, 15000.0])
        cursor_hz = hz_at(500, panned, s)
        assert r["cursor"].startswith("cursor") and f"{cursor_hz / 1000:.4g} kHz" in r["cursor"] \
            and " s " in r["cursor"], f"cursor readout {r['cursor']!r}: not {cursor_hz:.0f} Hz at a time"

        # 3. Markers set and cleared with the middle button; double-click: the whole band.
        report_path, png = os.path.join(tmp, "whole.json"), os.path.join(tmp, "whole.png")
        with InteractiveView(prism, env, *common, "--report", report_path, "--screenshot", png) as view:
            time.sleep(1.0)
            view.click_at(600, spectrum_y, 3)
            view.click_at(800, spectrum_y, 3)
            view.click(2)
            view.move(700, waterfall_y)
            view.click(1, repeat=2)
            view.close()
        r, image = load_json(report_path), read_png_rgb(png)
        saved = load_json(config)
        print(f"3. whole band: view {r['frequency_view_hz']}; markers {r['markers']}")
        assert r["markers"]["A"] is None and r["markers"]["B"] is None and r["markers"]["text"] == "", \
            f"the middle click left markers: {r['markers']}"
        for got, want, name in zip(r["frequency_view_hz"], band, ("low", "high")):
            assert_close(got, want, 1e-6, f"whole band's {name} edge")
        assert saved["view_low_hz"] is None and saved["view_high_hz"] is None, f"zoom still saved: {saved}"
        check_tone_columns(image, r, TONES)
        for rgb in (MARKER_A_RGB, MARKER_B_RGB):
            for x in range(int(wf["x"]), int(wf["x"] + wf["width"])):
                rows, height = marker_line_rows(image, r, x, rgb)
                assert rows < 0.5 * height, f"a marker line is still drawn at x={x}"
        print("OK: wheel zoom, persisted zoom, drag pan, markers with B-A, middle-click clear, double-click")


if __name__ == "__main__":
    main(sys.argv[1])
