#!/usr/bin/env bash
# Viewer benchmark (CPU backend, software OpenGL under Xvfb + Mesa llvmpipe):
#  1. frame time and process CPU use for an 8192-bin waterfall (FFT size 16384) at 100 and
#     1000 lines/s, the generator at 2.048 MS/s with 95% overlap (2500 spectra/s);
#  2. live 48 kHz stereo through PortAudio/JACK (jackd dummy driver) at N = 65536, 90% overlap:
#     the overruns after 30 s.
# Usage: bench/view_bench.sh [PRISM]   (default build-gui/apps/prism). Prints JSON lines.
set -euo pipefail
prism="$(realpath "${1:-build-gui/apps/prism}")"
work="$(mktemp -d)"
export XDG_CONFIG_HOME="$work"
for lines in 100 1000; do
  xvfb-run -a -s "-screen 0 1400x900x24" "$prism" view "gen:rate=2.048e6,duration=inf,tone=300e3@0.5,noise=0.01" \
    --no-config --size 1280x800 --fft-size 16384 --overlap 0.95 --lines-per-second "$lines" \
    --frames 600 --fps 60 --report "$work/frames_$lines.json"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({'lines_per_second': $lines, 'columns': r['display_format']['columns'], 'frame_ms': r['frame_ms'], 'fps': r['frames']/r['wall_seconds'], 'cpu_percent': r['cpu_percent'], 'fft_rate': r['status']['fft_rate'], 'display_rows_skipped': r['status']['display_rows_skipped']}))" "$work/frames_$lines.json"
done

export JACK_NO_AUDIO_RESERVATION=1 JACK_DEFAULT_SERVER="prism_bench_$$"
jackd --no-realtime -d dummy -r 48000 -p 1024 > "$work/jackd.log" 2>&1 &
jackd_pid=$!
sleep 2
xvfb-run -a -s "-screen 0 1400x900x24" "$prism" view audio: --channels 2 --no-config --fft-size 65536 --overlap 0.9 \
  --frames 1800 --fps 60 --report "$work/live.json" || true
kill "$jackd_pid"; wait "$jackd_pid" 2>/dev/null || true
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); s=r['status']; print(json.dumps({'live': s['source'], 'seconds': r['wall_seconds'], 'samples_received': s['samples_received'], 'overrun_samples': s['overrun_samples'], 'display_rows_skipped': s['display_rows_skipped'], 'fft_rate': s['fft_rate'], 'cpu_percent': r['cpu_percent'], 'frame_ms': r['frame_ms']}))" "$work/live.json"
rm -rf "$work"
