#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/): small valid inputs
of every form each parser reads, and a few broken ones, so that fuzzing starts from the
interesting paths. Run it again after changing it; the files are committed.

    /usr/bin/python3 tests/fuzz/make_corpus.py

Needs libsndfile (libsndfile1, through ctypes) for the sound files."""
import ctypes
import ctypes.util
import io
import json
import math
import os
import shutil
import struct
import tarfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def target_folder(name):
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


def write(folder, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def meta(datatype="cf32_le", rate=48000, **global_fields):
    document = {"global": {"core:datatype": datatype, "core:sample_rate": rate, "core:version": "1.0.0"},
                "captures": [{"core:sample_start": 0}], "annotations": []}
    document["global"].update(global_fields)
    return document


# ---- sigmf_metadata: 8 bytes of data length (little-endian), then the metadata text -----------
def sigmf_metadata():
    folder = target_folder("sigmf_metadata")
    cases = {
        "minimal": (800, meta()),
        "ci16-stereo": (4000, meta("ci16_le", 2.4e6, **{"core:num_channels": 2})),
        "big-endian": (64, meta("rf32_be", 8000)),
        "cu8-capture": (1024, dict(meta("cu8", 2.048e6), captures=[
            {"core:sample_start": 0, "core:frequency": 100e6, "core:datetime": "2026-01-01T00:00:00Z",
             "core:header_bytes": 16}])),
        "dataset": (96, meta("ri8", 1000, **{"core:dataset": "other.bin", "core:description": "a test",
                                              "core:author": "prism"})),
        "two-captures": (400, dict(meta("ri16_le"), captures=[{"core:sample_start": 0},
                                                              {"core:sample_start": 100, "core:header_bytes": 0}])),
        "metadata-only": (0, meta(**{"core:metadata_only": True})),
        "not-whole": (801, meta()),
        "unsupported-type": (64, meta("cf16_le")),
        "cf64-be": (160, meta("cf64_be", 1e6)),
        "ci32-le": (64, meta("ci32_le", 1e6)),
        "cu16-be-stereo": (64, meta("cu16_be", 8000, **{"core:num_channels": 2})),
        "ru32-le": (64, meta("ru32_le", 8000)),
        "rf64-le": (64, meta("rf64_le", 8000)),
        "retunes": (4000, dict(meta("ci16_le", 1e6), captures=[
            {"core:sample_start": 0, "core:frequency": 100e6, "core:datetime": "2024-05-01T12:00:00.25+02:00"},
            {"core:sample_start": 300, "core:frequency": 101e6},
            {"core:sample_start": 600, "core:frequency": 101e6},
            {"core:sample_start": 800, "core:frequency": 99.5e6}])),
        "captures-out-of-order": (400, dict(meta("ri16_le"), captures=[{"core:sample_start": 100},
                                                                        {"core:sample_start": 50}])),
        "annotations": (800, dict(meta("cf32_le", 1e6), annotations=[
            {"core:sample_start": 10, "core:sample_count": 40, "core:freq_lower_edge": -1e5,
             "core:freq_upper_edge": 2e5, "core:label": "burst", "core:comment": "a test"},
            {"core:sample_start": 70, "core:label": "to the end"},
            {"core:sample_start": 0, "core:sample_count": 0}])),
        "annotation-bad-edges": (800, dict(meta(), annotations=[
            {"core:sample_start": 1, "core:freq_lower_edge": 5, "core:freq_upper_edge": 1}])),
        "no-rate": (64, {"global": {"core:datatype": "cf32_le"}}),
    }
    for name, (length, document) in cases.items():
        write(folder, name, struct.pack("<Q", length) + json.dumps(document, indent=1).encode())
    write(folder, "not-json", struct.pack("<Q", 8) + b'{"global": {"core:datatype": "cf32_le",')


# ---- sigmf_archive: a .sigmf tar archive ------------------------------------------------------
def tar_of(members, fmt=tarfile.USTAR_FORMAT):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def sigmf_archive():
    folder = target_folder("sigmf_archive")
    samples = struct.pack("<16h", *range(-8, 8))
    ci16 = json.dumps(meta("ci16_le", 1e6)).encode()
    write(folder, "ustar", tar_of([("rec/rec.sigmf-meta", ci16), ("rec/rec.sigmf-data", samples)]))
    long_name = "a-very-long-recording-name-" + "x" * 90
    write(folder, "pax-long-name", tar_of([(f"{long_name}/{long_name}.sigmf-meta", ci16),
                                           (f"{long_name}/{long_name}.sigmf-data", samples)], tarfile.PAX_FORMAT))
    write(folder, "gnu-long-name", tar_of([(f"{long_name}.sigmf-meta", ci16), (f"{long_name}.sigmf-data", samples)],
                                          tarfile.GNU_FORMAT))
    dataset = json.dumps(meta("ri8", 100, **{"core:dataset": "samples.bin"})).encode()
    write(folder, "dataset", tar_of([("r/r.sigmf-meta", dataset), ("r/samples.bin", bytes(range(32)))]))
    big = json.dumps(meta("cf32_be", 100)).encode()
    write(folder, "big-endian", tar_of([("b.sigmf-meta", big), ("b.sigmf-data", struct.pack(">4f", 1, -1, 0.5, 2))]))
    write(folder, "no-data", tar_of([("n.sigmf-meta", ci16)]))
    write(folder, "truncated", tar_of([("t.sigmf-meta", ci16), ("t.sigmf-data", samples)])[:1100])


# ---- sound_file: WAV, FLAC, OGG, AIFF, ... made by libsndfile -----------------------------------
class SfInfo(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


SF_WRITE = 0x20
FORMATS = {  # name: (major, subtype)
    "wav-pcm16": (0x010000, 0x0002), "wav-pcm24": (0x010000, 0x0003), "wav-float": (0x010000, 0x0006),
    "wav-ulaw": (0x010000, 0x0010), "wav-ima-adpcm": (0x010000, 0x0012), "wavex-pcm16": (0x130000, 0x0002),
    "aiff-pcm16": (0x020000, 0x0002), "aiff-float": (0x020000, 0x0006), "au-pcm16": (0x030000, 0x0002),
    "caf-pcm16": (0x180000, 0x0002), "w64-pcm16": (0x0B0000, 0x0002), "rf64-pcm16": (0x220000, 0x0002),
    "flac-pcm16": (0x170000, 0x0002), "ogg-vorbis": (0x200000, 0x0060), "ogg-opus": (0x200000, 0x0064),
}


def ogg_crc(page):
    """The CRC-32 of an Ogg page (polynomial 0x04C11DB7, not reflected, CRC field zeroed)."""
    crc = 0
    for byte in page:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc


def reproducible_sound_file(data):
    """libsndfile stamps float files' PEAK chunk with the time and gives each Ogg stream a random
    serial number: fix both so that the seeds are the same on every run."""
    data = bytearray(data)
    peak = data.find(b"PEAK")
    if peak >= 0:
        data[peak + 12:peak + 16] = bytes(4)  # "PEAK", size, version, then the timestamp
    at = data.find(b"OggS")
    while at >= 0:
        data[at + 14:at + 18] = (0x5052534D).to_bytes(4, "little")  # the stream serial number
        segments = data[at + 26]
        length = 27 + segments + sum(data[at + 27:at + 27 + segments])
        data[at + 22:at + 26] = bytes(4)
        data[at + 22:at + 26] = ogg_crc(data[at:at + length]).to_bytes(4, "little")
        at = data.find(b"OggS", at + length)
    return bytes(data)


def sound_file():
    folder = target_folder("sound_file")
    library = ctypes.CDLL(ctypes.util.find_library("sndfile"))
    library.sf_open.restype = ctypes.c_void_p
    library.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SfInfo)]
    library.sf_writef_short.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_short), ctypes.c_int64]
    library.sf_set_string.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
    library.sf_close.argtypes = [ctypes.c_void_p]
    frames = 200
    for name, (major, subtype) in FORMATS.items():
        channels = 2 if "pcm16" in name else 1
        rate = 48000 if "opus" in name else 8000
        info = SfInfo(0, rate, channels, major | subtype, 0, 0)
        path = os.path.join(folder, name)
        handle = library.sf_open(path.encode(), SF_WRITE, ctypes.byref(info))
        if not handle:
            raise SystemExit(f"libsndfile cannot write {name}")
        if major in (0x010000, 0x020000):
            library.sf_set_string(handle, 0x01, b"a title")  # SF_STR_TITLE
        values = (ctypes.c_short * (frames * channels))(
            *[int(8000 * math.sin(i * 0.3)) for i in range(frames * channels)])
        library.sf_writef_short(handle, values, frames)
        library.sf_close(handle)
        with open(path, "rb") as f:
            data = f.read()
        write(folder, name, reproducible_sound_file(data))
    with open(os.path.join(folder, "wav-pcm16"), "rb") as f:
        wav = f.read()
    write(folder, "wav-truncated", wav[: len(wav) // 2])
    write(folder, "wav-zero-channels", wav[:22] + b"\x00\x00" + wav[24:])


# ---- raw_input: FuzzedDataProvider fields (fuzz_raw_input.cpp) ---------------------------------
def provider_input(format_name, path, data, *, give_format=True, rate=48000.0, channels=1, center=0.0,
                   stream=False, read_samples=64, start=0):
    """The bytes FuzzedDataProvider turns into these fields: strings from the front (ended by a
    backslash and another byte), integers from the back (the last byte the most significant)."""
    def string(text):
        return text.replace("\\", "\\\\").encode() + b"\\ "

    def integer(value, size):
        return value.to_bytes(size, "big")

    tail = integer(1 if give_format else 0, 1) + integer(1, 1) + struct.pack(">d", rate)
    tail += integer(channels, 4) + integer(0, 1) + struct.pack(">d", center) + integer(0, 1)
    tail += integer(1 if stream else 0, 1) + integer(read_samples - 1, 2) + integer(start, 1)
    return string(format_name) + string(path) + data + tail[::-1]


def raw_input():
    folder = target_folder("raw_input")
    samples = struct.pack("<32h", *range(-16, 16))
    write(folder, "ci16-file", provider_input("ci16", "iq.bin", samples))
    write(folder, "cu8-extension", provider_input("", "capture.cu8", bytes(range(64)), give_format=False))
    write(folder, "cf32-stream", provider_input("cf32_le", "-", struct.pack("<8f", *range(8)), stream=True,
                                                read_samples=3))
    write(folder, "stray-bytes-stream", provider_input("i16", "-", samples + b"\x01", stream=True))
    write(folder, "stereo-offset", provider_input("s16", "x.raw", samples, channels=2, start=4))
    write(folder, "not-whole-file", provider_input("cs8", "x.cs8", bytes(range(33))))
    write(folder, "no-rate", provider_input("u8", "x.u8", bytes(8), rate=float("nan")))


# ---- generator_spec: the text after gen: -------------------------------------------------------
def generator_spec():
    folder = target_folder("generator_spec")
    specs = ["", "rate=48000,duration=10,tone=1000@0.5,tone=6000@0.25,chirp=200-20000@0.3,noise=0.01",
             "rate=2.4M,complex,tone=-100k@0.7,chirp=-1e6-1e6,format=ci16,duration=0.001",
             "duration=inf,seed=42,noise=0.5", "rate=1k,format=i16,tone=400@2", "complex=false,format=f32,tone=0",
             "chirp=1e-3-2e3@0.1,duration=1e-2", "tone=1000,tone=1000,tone=1000", "rate=1e12,duration=1e-9",
             "noise=0", "tonee=3", "rate=0", "rate=8M,live,duration=inf", "live,stall=0.5",
             "stall=1", "live=false,stall=2", "live,stall=-1"]
    for i, spec in enumerate(specs):
        write(folder, f"spec-{i:02d}", spec)


# ---- fft_wisdom: the wisdom file ----------------------------------------------------------------
def fft_wisdom():
    folder = target_folder("fft_wisdom")
    options = {"single_elements_per_block": 4096, "column_elements_per_block": 8192,
               "row_elements_per_block": 8192, "cluster_block_length": 0, "bluestein_length": 0,
               "rows_elements_per_thread": 0}

    def entry(transform, n, batch_class, best=None, **extra):
        e = {"device": "NVIDIA H200", "compute_capability": "9.0", "transform": transform, "n": n,
             "batch_class": batch_class, "batch": 4 ** batch_class // n or 1, "best": best or options,
             "best_ms": 0.05, "default_ms": 0.06,
             "candidates": [{"options": options, "median_ms": 0.06},
                            {"options": dict(options, cluster_block_length=8192), "rejected": "output differs"}],
             "tuned_at": "2026-01-01T00:00:00Z", "prism_version": "0.1.0"}
        e.update(extra)
        return e

    def document(entries):
        return json.dumps({"format": "prism-fft-wisdom", "version": 1, "entries": entries}, indent=2)

    write(folder, "one-entry", document([entry("r2c", 4096, 12)]))
    write(folder, "kinds", document([entry("c2c_forward", 1000, 10), entry("c2c_inverse", 256, 8),
                                     entry("c2r", 1024, 9, dict(options, rows_elements_per_thread=16))]))
    write(folder, "bluestein", document([entry("c2c_forward", 4097, 12, dict(options, bluestein_length=8192))]))
    write(folder, "rule-options", document([entry("c2c_forward", 127, 6, dict(options, direct_dft=1, prime_stages=0,
                                                                             full_length_c2r=-1, rader=1))]))
    write(folder, "four-step-split", document([entry("r2c", 65536, 14, dict(options, four_step_columns=64),
                                                    tune_seconds=1.9)]))
    write(folder, "empty", document([]))
    write(folder, "newer-version", document([]).replace('"version": 1', '"version": 2'))
    write(folder, "bad-capability", document([entry("r2c", 64, 3, compute_capability="nine")]))


# ---- view_settings: view.json -------------------------------------------------------------------
def view_settings():
    folder = target_folder("view_settings")
    full = {"fft_size": 4096, "window": "hann", "overlap": 0.5, "channel": 0, "averaging_s": 0.0,
            "peak_hold": False, "min_hold": False, "hold_decay_db_per_s": 10.0, "db_min": -120.0, "db_max": -20.0,
            "colormap": "viridis", "lines_per_second": 50.0, "speed": 1.0, "loop": True,
            "view_low_hz": None, "view_high_hz": None}
    write(folder, "defaults", json.dumps(full, indent=2))
    write(folder, "changed", json.dumps({"fft_size": 65536, "window": "kaiser:8.6", "colormap": "turbo",
                                         "view_low_hz": 100, "view_high_hz": 2000, "peak_hold": True}))
    write(folder, "unknown-key", json.dumps({"future_setting": [1, 2], "speed": 0}))
    write(folder, "out-of-range", json.dumps({"overlap": 0.99, "db_min": 0, "db_max": -10}))
    write(folder, "wrong-type", json.dumps({"window": 3, "fft_size": 1024.5}))
    write(folder, "broken", '{ "fft_size": 10')


# ---- view_script: --script files ----------------------------------------------------------------
def view_script():
    folder = target_folder("view_script")
    write(folder, "steps", json.dumps([{"frame": 3, "set": {"colormap": "magma"}},
                                       {"time_s": 1.5, "set": {"fft_size": 1024, "window": "tukey:0.5"}},
                                       {"frame": 10, "set": {"view_low_hz": None, "speed": 2}}]))
    write(folder, "bad-step", json.dumps([{"set": {}}]))
    write(folder, "bad-value", json.dumps([{"frame": 1, "set": {"lines_per_second": 0}}]))
    write(folder, "float-frame", json.dumps([{"frame": 1e300, "set": {}}]))
    write(folder, "not-array", json.dumps({"frame": 1, "set": {}}))


# ---- gr_tag_header: a gr-zeromq message (tag header, PMT tags, items) -------------------------
def pmt_symbol(text):
    return b"\x02" + struct.pack(">H", len(text)) + text.encode()


def gr_message(offset, tags, items=b""):
    head = struct.pack("<HBQQ", 0x5FF0, 1, offset, len(tags))
    for tag_offset, key, value in tags:
        head += struct.pack("<Q", tag_offset) + pmt_symbol(key) + value + pmt_symbol("src")
    return head + items


def gr_tag_header():
    folder = target_folder("gr_tag_header")
    double = lambda v: b"\x04" + struct.pack(">d", v)
    rx_time = b"\x0c" + struct.pack(">I", 2) + b"\x0b" + struct.pack(">Q", 1700000000) + double(0.25)
    layout = json.dumps({"columns": 4, "first_bin": -2, "bin_width": 250.0, "first_row_time": 0.0,
                         "row_interval": 0.004, "quantity": "power_spectral_density", "decibels": True,
                         "parameters": {"nfft": 4}, "stream": {"format": "cf32", "sample_rate": 1000.0,
                                                               "center_frequency": 0.0, "channels": 1}}).encode()
    write(folder, "no-tags", gr_message(0, [], b"\0" * 16))
    write(folder, "gnuradio-hardware-tags", gr_message(4096, [(4096, "rx_rate", double(48000.0)),
                                                            (4096, "rx_freq", double(100e6)),
                                                            (4096, "rx_time", rx_time)], b"\1" * 32))
    write(folder, "prism-tags", gr_message(0, [(0, "prism_format", pmt_symbol("ci16")),
                                               (0, "prism_channels", b"\x03" + struct.pack(">i", 2))]))
    write(folder, "rows-layout", gr_message(0, [(0, "prism_layout", b"\x0a\x00" + struct.pack(">I", len(layout)) +
                                                 b"\x01\x00" + layout)]))
    write(folder, "end-of-stream", gr_message(3500, [(3500, "prism_eos", b"\x00")]))
    write(folder, "other-types", gr_message(0, [(0, "int64", b"\x0d" + struct.pack(">q", -5)),
                                                (1, "complex", b"\x05" + struct.pack(">dd", 1.0, -1.0)),
                                                (2, "list", b"\x07" + pmt_symbol("a") + b"\x07\x03" +
                                                 struct.pack(">i", 1) + b"\x06"),
                                                (3, "dict", b"\x09\x07" + pmt_symbol("k") + double(1.0) + b"\x06"),
                                                (4, "vector", b"\x08" + struct.pack(">I", 2) + b"\x00\x01"),
                                                (5, "null", b"\x06")]))
    write(folder, "truncated", gr_message(0, [(0, "rx_rate", double(1.0))])[:-5])
    write(folder, "bad-magic", b"\xf0\x5e\x01" + b"\0" * 16)
    write(folder, "huge-count", struct.pack("<HBQQ", 0x5FF0, 1, 0, 1 << 60))


# ---- stage_spec: a stage of a `prism run` chain --------------------------------------------------
def stage_spec():
    folder = target_folder("stage_spec")
    specs = ["spectrogram", "spectrogram:nperseg=1024,window=hann,db", "spectrogram:nperseg=-5",
             "fir:lowpass=3000,numtaps=255", "fir:bandpass=1000:2000,numtaps=101,decimate=4,shift=500",
             "fir:taps_file=taps.txt", "resample:48000", "resample:rate=8000", "mix:freq=-1e3",
             "spectrogram:window=kaiser:8.6,average=4:max", "nosuch", "spectrogram:", ":x=1",
             "spectrogram:nperseg", "fir:lowpass=3000,lowpass=4000", "spectrogram:nperseg=1024,,db"]
    for i, spec in enumerate(specs):
        write(folder, f"spec-{i:02d}", spec)


# ---- window_spec: a window as --window takes it (NAME[:P...]) ---------------------------------
def window_spec():
    folder = target_folder("window_spec")
    specs = ["hann", "tukey", "tukey:0.25", "kaiser:8.6", "kaiser", "taylor:4:30:true", "taylor:5:40:0",
             "exponential:none:2", "exponential:3", "general_cosine:0.5:0.4:0.1", "general_gaussian:1.5:7",
             "general_hamming:0.54", "dpss:3", "chebwin:80", "kaiser_bessel_derived:4", "gaussian:40",
             "boxcar", "rect", "kbd:2", "hanning", "blackmanharris", "nosuch", "kaiser:", "tukey:1:2",
             "kaiser:nan", "gaussian:-1", "dpss:1e9", "general_cosine", ":", ""]
    for i, spec in enumerate(specs):
        write(folder, f"spec-{i:02d}", spec)


# ---- taps_file: filter taps (.npy, text, JSON); the first byte picks the format --------------
def taps_file():
    folder = target_folder("taps_file")
    automatic, npy, text, json_format = b"\x00", b"\x01", b"\x02", b"\x03"

    def npy_bytes(dtype, values, version=(1, 0), fortran=False, shape=None):
        shape = shape or (len(values),)
        header = f"{{'descr': '{dtype}', 'fortran_order': {fortran}, 'shape': {shape}, }}"
        length_bytes = 2 if version == (1, 0) else 4
        pad = 64 - (10 + (length_bytes - 2) + len(header) + 1) % 64
        header = (header + " " * pad + "\n").encode()
        length = struct.pack("<H" if length_bytes == 2 else "<I", len(header))
        order, kind, size = dtype[0], dtype[1], int(dtype[2:])
        parts = [p for v in values for p in ((v.real, v.imag) if kind == "c" else (v,))]
        code = {4: "f", 8: "d"}[size // 2 if kind == "c" else size]
        return b"\x93NUMPY" + bytes(version) + length + header + struct.pack(f"{order}{len(parts)}{code}", *parts)

    write(folder, "npy-f8", npy + npy_bytes("<f8", [0.25, 0.5, 0.25]))
    write(folder, "npy-f4-be", npy + npy_bytes(">f4", [1.0, -1.0]))
    write(folder, "npy-c16-v2", npy + npy_bytes("<c16", [1 + 2j, 3 - 4j], version=(2, 0)))
    write(folder, "npy-2d", automatic + npy_bytes("<f8", [0.1, 0.2], shape=(1, 2)))
    write(folder, "npy-truncated", npy + npy_bytes("<f8", [0.25, 0.5, 0.25])[:-5])
    write(folder, "npy-nan", npy + npy_bytes("<f8", [float("nan")]))
    write(folder, "text", text + b"# taps\n0.25\n0.5\n\n0.25\n")
    write(folder, "text-complex", text + b"(1+2j)\n1-2j\n2.5j\n (1.0e+00+-2.0e+00j)\n")
    write(folder, "text-bad", text + b"0.25\nabc\n")
    write(folder, "text-empty", text + b"# nothing\n")
    write(folder, "json-real", json_format + b"[0.25, 0.5, 0.25]")
    write(folder, "json-complex", automatic + b"[[1, 2], 0.5, [3, -4]]")
    write(folder, "json-bad", json_format + b"[[1, 2, 3]]")
    write(folder, "json-inf", json_format + b"[1e999]")


# ---- output_template: a batch's output template, a NUL, the input's path -------------------------
def output_template():
    folder = target_folder("output_template")
    cases = [("out/{stem}.npy", "data/day1/rec_07.sigmf-meta"), ("{dir}/{name}.png", "a.wav"),
             ("out/{stem}-{name}-{dir}.npy", "/abs/x.tar.gz"), ("{stem}", ".hidden"), ("{stem}", "dir/"),
             ("{dir}", "../up/a.cf32"), ("plain.npy", "a.wav"), ("out/{stem", "a.wav"), ("{nosuch}.npy", "a.wav"),
             ("{}", "a.wav"), ("{{stem}}", "a.wav"), ("}{stem}{", "a.sigmf-data"), ("{stem}", ".sigmf-meta")]
    for i, (pattern, path) in enumerate(cases):
        write(folder, f"case-{i:02d}", pattern.encode() + b"\0" + path.encode())
    write(folder, "no-input", b"out/{stem}.npy")


if __name__ == "__main__":
    for make in (sigmf_metadata, sigmf_archive, sound_file, raw_input, generator_spec, fft_wisdom, view_settings,
                 view_script, gr_tag_header, stage_spec, taps_file, output_template,
                 window_spec):
        make()
