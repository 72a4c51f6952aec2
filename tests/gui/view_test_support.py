"""Helpers for the viewer tests: a private Xvfb server, running `prism view`, reading PNGs.

The tests start the real components themselves: Xvfb (with Mesa's llvmpipe for OpenGL) on a
free display number, then the real `prism` binary on that display.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import time
import zlib

import numpy as np

SKIP = 77  # ctest SKIP_RETURN_CODE


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
            for _ in range(100):
                if os.path.exists(f"/tmp/.X11-unix/X{n}") or proc.poll() is not None:
                    break
                time.sleep(0.05)
            if proc.poll() is None:
                self.proc, self.display = proc, f":{n}"
                return self
            # lost a race for this number with another test: try the next one
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
    """Decodes an 8-bit RGB (colour type 2), non-interlaced PNG into an array [height, width, 3]."""
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
