"""Helpers for the viewer tests: a private Xvfb server, running `prism view`, driving it with
real X input events (xdotool), reading PNGs and finding the waterfall's bright columns.

The tests start the real components themselves: Xvfb (with Mesa's llvmpipe for OpenGL) on a
free display number, then the real `prism` binary on that display.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib

import numpy as np

SKIP = 77  # ctest SKIP_RETURN_CODE


def lock_owner(n):
    """The process id in display n's X lock file, None while there is none (or half written)."""
    try:
        with open(f"/tmp/.X{n}-lock") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


class Xvfb:
    """Starts `Xvfb :N` on the first free display number >= 90; stops it on exit."""

    def __init__(self, width=1400, height=900):
        self.size = f"{width}x{height}x24"
        self.proc = None
        self.display = None

    def __enter__(self):
        for n in range(90, 190):
            if os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(f"/tmp/.X11-unix/X{n}"):
                continue
            proc = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", self.size, "-nolisten", "tcp"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # Ours once its socket is there and the lock file names our process: another test
            # starting at the same moment may own the number, and its socket appears while our
            # server is still on its way to failing (a test that took that for its own lost its
            # display when the other test ended).
            for _ in range(200):
                if proc.poll() is not None:
                    break
                if os.path.exists(f"/tmp/.X11-unix/X{n}") and lock_owner(n) == proc.pid:
                    self.proc, self.display = proc, f":{n}"
                    return self
                time.sleep(0.05)
            # lost a race for this number with another test: try the next one
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        raise RuntimeError("cannot start Xvfb on any display :90 ... :189")

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def env(self, config_dir):
        env = dict(os.environ)
        env["DISPLAY"] = self.display
        env["XDG_CONFIG_HOME"] = config_dir  # never touch the user's saved settings
        env["LIBGL_ALWAYS_SOFTWARE"] = "1"
        return env


class InteractiveView:
    """`prism view ARGS` running on an Xvfb display, driven by real X input events through
    xdotool (XTEST: the pointer moves, buttons and the wheel are pressed as by a person).
    Coordinates are window pixels, as the report's layout gives them. close() ends the viewer
    with SIGINT (Ctrl-C), which still draws a last frame, saves the screenshot and the report
    and writes the settings file."""

    SETTLE_S = 0.25  # after each action: several frames at the viewer's 60 fps cap
    FIRST_FRAMES_S = 1.0

    def __init__(self, prism, env, *args):
        self.env = env
        self.started = time.time()
        self.proc = subprocess.Popen([prism, "view", *map(str, args)], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, errors="replace")
        # The window, once mapped (GLFW sets _NET_WM_PID).
        found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(self.proc.pid)],
                               env=env, capture_output=True, text=True, timeout=60)
        if found.returncode != 0 or not found.stdout.split():
            self.proc.kill()
            raise AssertionError(f"no window of prism view appeared: {self.proc.communicate()[0]}")
        self.window = found.stdout.split()[0]
        # The window is mapped before the viewer has drawn its first frame (fonts, the source,
        # the FFT plan); Dear ImGui ignores a click in a frame that has no hovered item from the
        # frame before, so the first action waits for the first frames (a seek clicked 0.3 s
        # after the map was lost under load in CI).
        time.sleep(self.FIRST_FRAMES_S)

    def xdotool(self, *args):
        subprocess.run(["xdotool", *map(str, args)], env=self.env, check=True, timeout=20)
        time.sleep(self.SETTLE_S)

    def move(self, x, y):
        self.xdotool("mousemove", "--window", self.window, int(round(x)), int(round(y)))

    def click(self, button, repeat=1):
        """button: 1 left, 2 middle, 3 right, 4 wheel up, 5 wheel down. Repeated clicks come
        150 ms apart: in different frames even under load, and a double click for ImGui (which
        takes two presses within 0.3 s)."""
        self.xdotool("click", "--repeat", repeat, "--delay", 150, button)

    def key(self, name):
        """A key pressed and released (xdotool key names: space, a, ...). Without a window
        manager the keyboard focus follows the pointer: move() into the window first."""
        self.xdotool("key", name)

    def click_at(self, x, y, button=1):
        self.move(x, y)
        self.click(button)

    def drag(self, x0, y0, x1, y1):
        self.move(x0, y0)
        self.xdotool("mousedown", 1)
        self.move(x1, y1)
        self.xdotool("mouseup", 1)

    def close(self):
        """Ctrl-C; returns the viewer's output. Fails unless it ended as Ctrl-C should (130)."""
        self.proc.send_signal(signal.SIGINT)
        output, _ = self.proc.communicate(timeout=30)
        if self.proc.returncode != 130:
            raise AssertionError(f"prism view ended with {self.proc.returncode} on Ctrl-C: {output}")
        return output

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        """A viewer still running here was left by a failing step: it goes without a report."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def require_xdotool():
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} is not installed (scripts/install-deps installs xvfb and xdotool)")
            sys.exit(SKIP)


def waterfall_columns(image, report, rows=20):
    """Mean luminance of each x column over the newest `rows` lines of the waterfall."""
    wf = report["waterfall"]
    x0, y0, w = int(round(wf["x"])), int(round(wf["y"])), int(round(wf["width"]))
    top = image[y0 + 1:y0 + 1 + rows, x0:x0 + w].astype(float)
    return x0, (0.299 * top[..., 0] + 0.587 * top[..., 1] + 0.114 * top[..., 2]).mean(axis=0)


def bright_columns(image, report, margin=80):
    """The x of every waterfall column brighter than the median by `margin`."""
    x0, lum = waterfall_columns(image, report)
    return (np.flatnonzero(lum > np.median(lum) + margin) + x0).tolist()


def x_of(hz, report):
    """Where the report's frequency view puts `hz` (axis Hz) across the waterfall."""
    wf = report["waterfall"]
    low, high = report["frequency_view_hz"]
    return wf["x"] + (hz - low) / (high - low) * wf["width"]


def run_view(prism, env, *args, timeout=300):
    proc = subprocess.run([prism, "view", *map(str, args)], env=env, capture_output=True, text=True,
                          errors="replace", timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"prism view {' '.join(map(str, args))} exited {proc.returncode}\n"
                             f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def load_json(path):
    with open(path) as f:
        return json.load(f)


def read_png_rgb(path):
    """Decodes an 8-bit RGB (colour type 2), non-interlaced PNG into an array [height, width, 3].
    With Pillow (python3-pil) in a few milliseconds; without it in pure Python, several seconds
    per window-sized screenshot (libpng's Paeth and Average filters go byte by byte)."""
    try:
        from PIL import Image
    except ImportError:
        return read_png_rgb_python(path)
    with Image.open(path) as image:
        assert image.mode == "RGB", f"{path}: unsupported PNG layout ({image.mode})"
        return np.asarray(image, dtype=np.int32)


def read_png_rgb_python(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour == 2 and interlace == 0, f"{path}: unsupported PNG layout"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * 3)
    out = np.zeros((height, width * 3), dtype=np.int32)
    prev = np.zeros(width * 3, dtype=np.int32)
    bpp = 3
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        cur = np.zeros_like(line)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 255
        else:  # Sub, Average, Paeth depend on the pixel to the left: go byte by byte
            for i in range(width * 3):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if kind == 1:
                    pred = a
                elif kind == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + pred) & 255
        out[y] = cur
        prev = cur
    return out.reshape(height, width, 3)
