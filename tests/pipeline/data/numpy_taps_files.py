#!/usr/bin/python3
# The numpy side of tests/pipeline/qa_TapsFile.cpp (Debian's python3-numpy).
#   write DIR      writes taps files as numpy, numpy.savetxt and json write them into DIR and
#                  prints a JSON manifest: [{"file", "complex", "re", "im"}], the values each
#                  file holds as numpy reads them back (float64).
#   check MANIFEST reads the files prism wrote, listed in MANIFEST ([{"file", "format", "re",
#                  "im"}]) with numpy.load / numpy.loadtxt / json.load and checks that they hold
#                  exactly those values; prints one line per mismatch, exits 1 if any.
import json
import os
import sys

import numpy as np


def manifest_entry(path, values):
    values = np.asarray(values)
    complex_ = np.iscomplexobj(values)
    flat = values.reshape(-1).astype(np.complex128 if complex_ else np.float64)
    return {"file": path, "complex": bool(complex_),
            "re": [float(v) for v in flat.real],
            "im": [float(v) for v in flat.imag] if complex_ else None}


def write(directory):
    rng = np.random.default_rng(49)
    real = rng.standard_normal(37) * np.logspace(-8, 2, 37)
    cplx = real + 1j * rng.standard_normal(37)[::-1]
    cplx[3] = 1.5 - 0.0j
    cplx[4] = -2.0 - 3.0j
    manifest = []

    for dtype in ("<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16"):
        source = cplx if dtype[1] == "c" else real
        array = source.astype(dtype)
        for shape_name, shaped in (("vector", array), ("column", array.reshape(-1, 1)),
                                   ("row", array.reshape(1, -1))):
            path = os.path.join(directory, "taps_%s_%s.npy" % (dtype.replace("<", "le").replace(">", "be"),
                                                               shape_name))
            np.save(path, shaped)
            manifest.append(manifest_entry(path, np.load(path)))
    for version in ((1, 0), (2, 0), (3, 0)):
        path = os.path.join(directory, "taps_v%d.npy" % version[0])
        with open(path, "wb") as f:
            np.lib.format.write_array(f, cplx, version=version)
        manifest.append(manifest_entry(path, np.load(path)))
    path = os.path.join(directory, "taps_fortran.npy")
    np.save(path, np.asfortranarray(real.reshape(-1, 1)))
    manifest.append(manifest_entry(path, np.load(path)))
    path = os.path.join(directory, "single.npy")
    np.save(path, np.array(0.75))  # shape (): one tap
    manifest.append(manifest_entry(path, np.load(path)))

    # numpy.savetxt, real and complex, its default format and others, with a header.
    for name, values, kwargs in (
            ("real_default.txt", real, {}),
            ("real_short.txt", real, {"fmt": "%.6g"}),
            ("real_header.txt", real, {"header": "designed by hand\nsecond line", "fmt": "%.17g"}),
            ("complex_default.txt", cplx, {}),
            ("complex_short.txt", cplx, {"fmt": "%.5e"}),
            ("complex_header.csv", cplx, {"header": "complex taps"}),
    ):
        path = os.path.join(directory, name)
        np.savetxt(path, values, **kwargs)
        loaded = np.loadtxt(path, dtype=np.complex128 if np.iscomplexobj(values) else np.float64)
        manifest.append(manifest_entry(path, loaded))

    # JSON: numbers, and [re, im] pairs.
    path = os.path.join(directory, "real.json")
    with open(path, "w") as f:
        json.dump([float(v) for v in real], f)
    manifest.append(manifest_entry(path, real))
    path = os.path.join(directory, "complex.json")
    with open(path, "w") as f:
        json.dump([[float(v.real), float(v.imag)] for v in cplx], f, indent=2)
    manifest.append(manifest_entry(path, cplx))
    # Without an extension: found by content.
    for name, writer in (("noext_npy", lambda p: np.save(open(p, "wb"), cplx)),
                         ("noext_json", lambda p: json.dump([float(v) for v in real], open(p, "w"))),
                         ("noext_text", lambda p: np.savetxt(p, real))):
        path = os.path.join(directory, name)
        writer(path)
        manifest.append(manifest_entry(path, cplx if name == "noext_npy" else real))
    json.dump(manifest, sys.stdout)


def check(manifest_path):
    with open(manifest_path) as f:
        manifest = json.load(f)
    failures = 0
    for entry in manifest:
        expected = np.asarray(entry["re"], dtype=np.float64)
        if entry["im"] is not None:
            expected = expected + 1j * np.asarray(entry["im"], dtype=np.float64)
        path, kind = entry["file"], entry["format"]
        if kind == "npy":
            got = np.load(path)
            want_dtype = np.dtype("<c16" if entry["im"] is not None else "<f8")
            if got.dtype != want_dtype or got.shape != expected.shape:
                print("%s: dtype %s shape %s, expected %s %s" % (path, got.dtype, got.shape, want_dtype,
                                                                 expected.shape))
                failures += 1
                continue
        elif kind == "text":
            got = np.loadtxt(path, dtype=np.complex128 if entry["im"] is not None else np.float64, ndmin=1)
            if entry["im"] is not None:
                # Python's own complex() reads each line too.
                with open(path) as f:
                    lines = [line for line in f.read().splitlines() if not line.startswith("#")]
                python = np.array([complex(line) for line in lines])
                if not np.array_equal(python, expected):
                    print("%s: complex() reads other values" % path)
                    failures += 1
        else:
            with open(path) as f:
                data = json.load(f)
            got = np.array([complex(*v) if isinstance(v, list) else v for v in data])
        if not np.array_equal(got, expected):
            print("%s: values differ (max %g)" % (path, np.max(np.abs(got - expected))))
            failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit("usage: numpy_taps_files.py write DIR | check MANIFEST")
