"""The CPU DCT (fft/dct.hpp) against scipy.fft.dct: types 2, 3, 4, every norm, float32 and
float64, lengths that include 1, odd, prime and large smooth ones, several rows per call.
Tolerances are the largest error over a row relative to the row's largest reference value:
1e-6 for float32 (input rounded to float32 first, reference in float64), 1e-13 for float64.

Usage: test_dct_vs_scipy.py PATH_TO_dct_rows"""
import subprocess
import sys

import numpy as np
import scipy.fft

LENGTHS = [1, 2, 3, 5, 8, 13, 40, 64, 97, 128, 255, 1009, 4096, 4099]
TOLERANCE = {"f32": 1e-6, "f64": 1e-13}
DTYPE = {"f32": np.float32, "f64": np.float64}


def main():
    driver = sys.argv[1]
    rng = np.random.default_rng(54)
    failures = []
    checked = 0
    for precision in ("f32", "f64"):
        for dct_type in (2, 3, 4):
            for norm in ("backward", "ortho", "forward"):
                batch = 3
                inputs = [rng.standard_normal((batch, n)).astype(DTYPE[precision]) for n in LENGTHS]
                run = subprocess.run(
                    [driver, precision, str(dct_type), norm, str(batch)] + [str(n) for n in LENGTHS],
                    input=b"".join(x.tobytes() for x in inputs), capture_output=True, check=True)
                outputs = np.frombuffer(run.stdout, dtype=DTYPE[precision])
                offset = 0
                for n, x in zip(LENGTHS, inputs):
                    got = outputs[offset:offset + batch * n].reshape(batch, n)
                    offset += batch * n
                    want = scipy.fft.dct(x.astype(np.float64), type=dct_type, norm=norm, axis=-1)
                    error = np.max(np.abs(got - want), axis=-1) / np.max(np.abs(want), axis=-1)
                    checked += 1
                    if np.max(error) > TOLERANCE[precision]:
                        failures.append(f"{precision} type {dct_type} norm {norm} n {n}: "
                                        f"relative error {np.max(error):.3g}")
    for failure in failures:
        print("FAIL", failure)
    print(f"{checked - len(failures)} of {checked} DCT cases within tolerance")
    # The driver's usage errors: an unknown norm is named.
    bad = subprocess.run([driver, "f32", "2", "orthonormal", "1", "8"], capture_output=True, text=True)
    if bad.returncode == 0 or "orthonormal" not in bad.stderr:
        failures.append(f"unknown norm not refused by name: rc {bad.returncode} {bad.stderr!r}")
        print("FAIL", failures[-1])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
