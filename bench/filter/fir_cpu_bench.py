#!/usr/bin/python3
"""CPU FIR filter throughput: prism's FirFilter beside scipy.signal.oaconvolve, liquid-dsp's
fftfilt and GNU Radio's fft_filter, in one run, printed as a Markdown table.

Each filter takes the same number of input samples (uniform random in [-0.5, 0.5), never
zeros) through a low-pass of M taps, decimating by D where it can:
  prism     build/bench/filter/fir_cpu_bench (C++): FirFilter fed chunks of --chunk items,
            1 thread and all threads; liquid-dsp's fftfilt in the same binary (when the build
            found libliquid-dev), filtering at full rate (it has no decimation; not charged)
  scipy     scipy.signal.oaconvolve(x, h, 'same')[::D] on one core (scipy.fft's default)
  GNU Radio fft_filter_ccc (cf32) / fft_filter_fff (f32) with decimation D and one FFTW
            thread, in a flowgraph vector_source -> filter -> null_sink run headless; the
            flowgraph alone (source -> sink) is measured too, as its floor
Reported: millions of input samples per second, the median of --repeat runs, by wall clock
and per CPU-second of the process (all its threads: on a shared machine the wall clock also
counts waiting for a core, the CPU time mostly not). For each filter, prism and liquid run
just before scipy and GNU Radio, so that neighbouring columns share the machine's state.

Peers are benchmark peers, not prism dependencies (not in scripts/install-deps):
  apt-get install --no-install-recommends gnuradio libliquid-dev   (Debian 12)
then reconfigure and rebuild fir_cpu_bench so that it finds liquid.

Usage: /usr/bin/python3 bench/filter/fir_cpu_bench.py build/bench/filter/fir_cpu_bench
           [--samples 4194304] [--repeat 5] [--taps 63,1023,8191,65535] [--decimation 1,8]
           [--formats cf32,f32] [--chunk 262144] [--skip-scipy] [--skip-gnuradio]
"""
import argparse
import json
import os
import platform
import subprocess
import time

import numpy as np
import scipy
import scipy.signal


def timed(function, repeat):
    """Median wall and CPU seconds of `repeat` calls (after one warm-up call)."""
    function()
    walls, cpus = [], []
    for _ in range(repeat):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall0)
        cpus.append(time.process_time() - cpu0)
    return float(np.median(walls)), float(np.median(cpus))


def signal_for(fmt, n, seed=1):
    rng = np.random.default_rng(seed)
    if fmt == "cf32":
        return (rng.uniform(-0.5, 0.5, n) + 1j * rng.uniform(-0.5, 0.5, n)).astype(np.complex64)
    return rng.uniform(-0.5, 0.5, n).astype(np.float32)


def scipy_rate(x, h, d, repeat):
    h = h.astype(np.float32)
    wall, cpu = timed(lambda: scipy.signal.oaconvolve(x, h, "same")[::d], repeat)
    return len(x) / wall / 1e6, len(x) / cpu / 1e6


def gnuradio_rates(x, h, d, repeat):
    from gnuradio import blocks, gr
    from gnuradio import filter as grfilter

    complex_input = np.iscomplexobj(x)

    def flowgraph(with_filter):
        tb = gr.top_block()
        if complex_input:
            src = blocks.vector_source_c(x, False)
            snk = blocks.null_sink(gr.sizeof_gr_complex)
        else:
            src = blocks.vector_source_f(x, False)
            snk = blocks.null_sink(gr.sizeof_float)
        if with_filter:
            if complex_input:
                f = grfilter.fft_filter_ccc(d, [complex(v) for v in h], 1)
            else:
                f = grfilter.fft_filter_fff(d, [float(v) for v in h], 1)
            tb.connect(src, f, snk)
        else:
            tb.connect(src, snk)
        return tb

    rates = []
    for with_filter in (True, False):
        graphs = [flowgraph(with_filter) for _ in range(repeat + 1)]  # built outside the timing
        it = iter(graphs)
        wall, cpu = timed(lambda: next(it).run(), repeat)
        rates.append((len(x) / wall / 1e6, len(x) / cpu / 1e6))
    return rates  # (filter, floor)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", help="path to the fir_cpu_bench executable")
    parser.add_argument("--samples", type=float, default=2**22)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--taps", default="63,1023,8191,65535")
    parser.add_argument("--decimation", default="1,8")
    parser.add_argument("--formats", default="cf32,f32")
    parser.add_argument("--chunk", type=float, default=2**18)
    parser.add_argument("--skip-scipy", action="store_true")
    parser.add_argument("--skip-gnuradio", action="store_true")
    args = parser.parse_args()
    n = int(args.samples)
    taps = [int(t) for t in args.taps.split(",")]
    decimations = [int(d) for d in args.decimation.split(",")]
    formats = args.formats.split(",")
    cores = os.cpu_count()

    def native_rows(fmt, m):
        """prism (1 and all threads) and liquid for one filter, just before its peers."""
        command = [args.bench, "--samples", str(n), "--repeat", str(args.repeat), "--chunk",
                   str(int(args.chunk)), "--threads", f"1,{cores}", "--taps", str(m),
                   "--decimation", args.decimation, "--formats", fmt]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        return [json.loads(line) for line in output.splitlines()]

    def native_row(rows, impl, d, threads):
        for r in rows:
            same_threads = threads is None or r["threads"] == threads
            if (r["impl"], r["decimation"]) == (impl, d) and same_threads:
                return r
        return None

    gnuradio_ok = not args.skip_gnuradio
    if gnuradio_ok:
        try:
            import gnuradio.gr  # noqa: F401
        except ImportError:
            gnuradio_ok = False

    load = os.getloadavg()[0]
    print(f"{n} samples per run, median of {args.repeat}; {cores} cores, "
          f"{platform.processor() or platform.machine()}; load average {load:.1f} at the start; "
          f"scipy {scipy.__version__}, numpy {np.__version__}")
    print()
    print("| format | taps | D | prism 1 thread: wall / per core | prism "
          f"{cores} threads: wall / per core | scipy oaconvolve: wall / per core | "
          "liquid fftfilt: wall / per core | GNU Radio fft_filter: wall / per core "
          "(flowgraph floor) | prism ÷ scipy, per core | prism geometry |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def cell(wall, cpu):
        return f"{wall:.1f} / {cpu:.1f}"

    for fmt in formats:
        x = signal_for(fmt, n)
        for m in taps:
            h = scipy.signal.firwin(m, 0.1)
            rows = native_rows(fmt, m)
            for d in decimations:
                one = native_row(rows, "prism", d, 1)
                many = native_row(rows, "prism", d, cores)
                liquid = native_row(rows, "liquid", d, None)
                scipy_cell, ratio = "—", "—"
                if not args.skip_scipy:
                    s_wall, s_cpu = scipy_rate(x, h, d, args.repeat)
                    scipy_cell = cell(s_wall, s_cpu)
                    ratio = f"{one['cpu_msps'] / s_cpu:.1f}x"
                gr_cell = "—"
                if gnuradio_ok:
                    (g_wall, g_cpu), (f_wall, _) = gnuradio_rates(x, h, d, args.repeat)
                    gr_cell = f"{cell(g_wall, g_cpu)} ({f_wall:.0f})"
                liquid_cell = cell(liquid["msps"], liquid["cpu_msps"]) if liquid else "—"
                print(f"| {fmt} | {m} | {d} | {cell(one['msps'], one['cpu_msps'])} | "
                      f"{cell(many['msps'], many['cpu_msps'])} | {scipy_cell} | "
                      f"{liquid_cell} | {gr_cell} | {ratio} | {one['detail']} |", flush=True)


if __name__ == "__main__":
    main()
