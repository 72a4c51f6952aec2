"""prism spectrogram's PNG: the automatic colour range on audio with digital silence, the title.

The PNG's tEXt chunks (Title, prism:plot with the colour range used) are read with zlib-free
chunk parsing here, independently of the writer.
"""
import json
import os
import struct
import subprocess

import numpy as np

import prism_test_util
from prism_test_util import TempDirTestCase, main, prism_reads_wav, run_prism


def png_texts(path):
    """The PNG's tEXt chunks as a dict."""
    texts = {}
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + length
    return texts


def speech_like_with_silence(rate, seconds, seed=1):
    """Voiced bursts (harmonics of 120-180 Hz under a few formants, plus hiss) between stretches
    of exact zeros, as text-to-speech writes between words: int16 samples."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    out = np.zeros(n)
    t = np.arange(n) / rate
    pos = 0
    while pos < n:
        burst = int(rate * rng.uniform(0.15, 0.4))
        gap = int(rate * rng.uniform(0.05, 0.25))
        end = min(pos + burst, n)
        f0 = rng.uniform(120, 180)
        seg = np.zeros(end - pos)
        for k in range(1, 30):
            f = k * f0
            if f >= rate / 2:
                break
            gain = sum(np.exp(-((f - fm) / 150.0) ** 2) for fm in (500, 1500, 2500)) / k
            seg += gain * np.sin(2 * np.pi * f * t[pos:end])
        seg += 0.01 * rng.standard_normal(end - pos)
        seg *= np.hanning(end - pos)
        out[pos:end] = seg
        pos = end + gap
    out *= 0.5 / np.max(np.abs(out))
    return np.round(out * 32767).astype(np.int16)


class PngPlot(TempDirTestCase):
    def write_speech(self):
        from scipy.io import wavfile
        path = self.path("speech.wav")
        samples = speech_like_with_silence(16000, 4.0)
        self.assertGreater(np.mean(samples == 0), 0.2, "a fifth or more digital silence")
        wavfile.write(path, 16000, samples)
        return path

    def test_colour_range_ignores_digital_silence(self):
        if not prism_reads_wav():
            self.skipTest("this prism reads no WAV")
        wav = self.write_speech()
        png = self.path("s.png")
        run_prism("spectrogram", wav, "-o", png, "-o", self.path("s.npy"), "--db", "-q", check=0)
        plot = json.loads(png_texts(png)["prism:plot"])
        rows = np.load(self.path("s.npy"))
        self.assertGreater(np.mean(rows <= -299), 0.1, "the silent segments are floored")
        signal = rows[rows > -299]
        # The range spans the signal's cells, not the -300 dB floor of the silent ones.
        self.assertGreater(plot["db_min"], -200)
        self.assertLessEqual(plot["db_max"] - plot["db_min"], 120.0 + 1e-9)
        self.assertGreaterEqual(plot["db_max"], np.percentile(signal, 99))
        self.assertLessEqual(plot["db_min"], np.percentile(signal, 50))

    def test_title_option_and_default_title(self):
        png = self.path("t.png")
        run_prism("spectrogram", "gen:duration=0.5", "-o", png, "--title", "My capture, 0.5 s", "-q", check=0)
        self.assertEqual(png_texts(png)["Title"], "My capture, 0.5 s")
        # The default title names every setting that changes the picture, --average included.
        run_prism("spectrogram", "gen:duration=0.5", "-o", png, "--average", "4", "--nfft", "512",
                  "--window", "hann", "--width", "120", "--height", "80", "-q", check=0)
        title = png_texts(png)["Title"]
        for part in ("gen", "window hann", "nperseg 256", "noverlap 32", "nfft 512", "average 4"):
            self.assertIn(part, title)

    def plot_info(self, png):
        return json.loads(png_texts(png)["prism:plot"])

    def test_default_size_does_not_follow_the_data_shape(self):
        # Few rows of few bins, and many rows of many bins: the same plot area unless asked.
        png = self.path("s.png")
        for args in (("gen:duration=0.05", "--nperseg", "64"), ("gen:duration=5", "--nperseg", "4096")):
            run_prism("spectrogram", *args, "-o", png, "-q", check=0)
            area = self.plot_info(png)["plot_area"]
            self.assertEqual((area["width"], area["height"]), (1200, 700), args)
        run_prism("spectrogram", "gen:duration=0.05", "--width", "300", "--height", "200", "-o", png, "-q", check=0)
        area = self.plot_info(png)["plot_area"]
        self.assertEqual((area["width"], area["height"]), (300, 200))

    def test_reduce_option(self):
        png = self.path("r.png")
        run_prism("spectrogram", "gen:duration=0.5", "-o", png, "-q", check=0)
        self.assertEqual(self.plot_info(png)["reduce"], "max")
        run_prism("spectrogram", "gen:duration=0.5", "-o", png, "--reduce", "mean", "-q", check=0)
        self.assertEqual(self.plot_info(png)["reduce"], "mean")
        run_prism("run", "gen:duration=0.5", "-o", "spectrogram ! " + png, "--reduce", "mean", "-q", check=0)
        self.assertEqual(self.plot_info(png)["reduce"], "mean")
        proc = run_prism("spectrogram", "gen:duration=0.5", "-o", png, "--reduce", "median", check=2)
        self.assertIn("--reduce", proc.stderr)

    def test_title_names_the_frequency_range(self):
        png = self.path("f.png")
        run_prism("spectrogram", "gen:duration=0.5", "--frequency-range", "1000:5000", "-o", png, "-q", check=0)
        self.assertIn("frequency range 1 kHz to 5 kHz", png_texts(png)["Title"])
        run_prism("run", "gen:duration=0.5", "-o", "spectrogram:frequency_range=1000:5000 ! " + png, "-q", check=0)
        self.assertIn("frequency range 1 kHz to 5 kHz", png_texts(png)["Title"])
        run_prism("spectrogram", "gen:duration=0.5", "--frequency-range", "1000:5000", "--title", "Mine", "-o", png,
                  "-q", check=0)
        self.assertEqual(png_texts(png)["Title"], "Mine")

    def test_integer_input_is_plotted_in_dbfs(self):
        # A full-scale i16 tone at a bin centre (48 kHz, nperseg 480: 100 Hz bins) peaks at 0 dBFS
        # in every scaling and mode; half the amplitude at -6.02 dBFS. (32767/32768: the largest
        # i16 sine without clipping.)
        if not prism_reads_wav():
            self.skipTest("this prism reads no WAV")
        png = self.path("fs.png")
        for amplitude, expected in ((32767 / 32768, 20 * np.log10(32767 / 32768)), (0.5, 20 * np.log10(0.5))):
            wav = self.path("tone.wav")
            run_prism("generate", "gen:rate=48000,duration=1,format=i16,tone=1000@%r" % amplitude, "-o", wav, "-q",
                      check=0)
            for extra in ((), ("--scaling", "spectrum"), ("--mode", "magnitude"), ("--db",)):
                npy = self.path("fs.npy")
                run_prism("spectrogram", wav, "--nperseg", "480", "--window", "hann", *extra, "-o", png, "-o", npy,
                          "-q", check=0)
                plot = self.plot_info(png)
                self.assertEqual(plot["unit"], "dBFS", extra)
                self.assertAlmostEqual(plot["db_max"], expected, delta=0.01, msg=extra)
                # The sidecar carries the same reference, so the .npy rows convert to dBFS alike.
                with open(self.path("fs.json")) as f:
                    reference = json.load(f)["full_scale_power"]
                self.assertEqual(reference, plot["full_scale_power"])
                rows = np.load(npy).astype(np.float64)
                if "--db" in extra:
                    peak = rows.max() - 10 * np.log10(reference)
                else:
                    power = rows ** 2 if "magnitude" in extra else rows
                    peak = 10 * np.log10(power.max() / reference)
                self.assertAlmostEqual(peak, expected, delta=0.01, msg=extra)
        # Complex integer input (a full-scale exp(j2πft) is the reference), the same through a fir
        # (passband gain 1 at 1 kHz: the integers' full scale carries into its float output), and
        # float audio (±1.0 is full scale): a half-scale tone at -6.02 dBFS each time.
        meta, wav = self.path("iq.sigmf-meta"), self.path("float.wav")
        run_prism("generate", "gen:rate=48000,duration=1,complex,format=ci16,tone=1000@0.5", "-o", meta, "-q", check=0)
        run_prism("generate", "gen:rate=48000,duration=1,tone=1000@0.5", "-o", wav, "-q", check=0)
        spectrogram = ["--nperseg", "480", "--window", "hann", "-o", png]
        for command, delta in ((["spectrogram", meta, *spectrogram], 0.01),
                               (["run", meta, "-o", "fir:numtaps=101,lowpass=5000 ! "
                                 "spectrogram:nperseg=480,window=hann ! " + png], 0.05),
                               (["spectrogram", wav, *spectrogram], 0.01)):
            run_prism(*command, "-q", check=0)
            plot = self.plot_info(png)
            self.assertEqual(plot["unit"], "dBFS", command)
            self.assertAlmostEqual(plot["db_max"], 20 * np.log10(0.5), delta=delta, msg=command)
        # Other float input has no full scale, and --integer-scale raw gives up the reference.
        run_prism("spectrogram", "gen:duration=0.5", "-o", png, "-q", check=0)
        self.assertEqual(self.plot_info(png)["unit"], "dB re 1 V**2/Hz")
        run_prism("spectrogram", meta, "--integer-scale", "raw", "-o", png, "-q", check=0)
        self.assertEqual(self.plot_info(png)["unit"], "dB re 1 V**2/Hz")

    def test_missing_font_is_a_clear_error_before_the_run(self):
        # A fontconfig that knows no fonts: the PNG output refuses to start, naming the package.
        conf = self.path("fonts.conf")
        with open(conf, "w") as f:
            f.write('<?xml version="1.0"?>\n<fontconfig></fontconfig>\n')
        env = dict(os.environ, FONTCONFIG_FILE=conf)
        png = self.path("f.png")
        proc = subprocess.run([prism_test_util.PRISM, "spectrogram", "gen:duration=0.5", "-o", png, "-q"],
                              env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("DejaVu Sans", proc.stderr)
        self.assertIn("fonts-dejavu-core", proc.stderr)
        self.assertFalse(os.path.exists(png))
        self.assertFalse(os.path.exists(png + ".partial"))


if __name__ == "__main__":
    main()
