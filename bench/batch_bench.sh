#!/bin/bash
# Batch benchmark (docs/batch.md; outside CI): files/s of `prism spectrogram` over many ~10 MB
# recordings (half float32 WAV, half cf32 raw) in one batch, beside a shell loop of single prism
# runs and a /usr/bin/python3 loop over scipy.signal.spectrogram + numpy.save, in the same run,
# into .npy and into .png. The inputs are generated under a temporary folder and deleted after.
#
#   bench/batch_bench.sh PRISM [FILES=1000] [LOOP_FILES=100] [JOBS=cores]
#
# The loops run over the first LOOP_FILES files (half of each kind) when that is fewer: they are
# the slow peers. The machine's load average is printed before and after each step. The scipy
# loop and the inputs' generation run on PRISM_PYTHON (default /usr/bin/python3, Debian's, which
# has scipy).
set -euo pipefail
prism=$(realpath "$1")
files=${2:-1000}
loop_files=${3:-100}
jobs=${4:-$(nproc)}
work=$(mktemp -d /tmp/prism-batch-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
rate=48000
python=${PRISM_PYTHON:-/usr/bin/python3}

"$python" - "$work/in" "$files" "$rate" "$loop_files" <<'EOF'
# ~10 MB each: 2.5 Mi float32 samples per WAV, 1.25 Mi cf32 samples per raw file.
import os, sys
import numpy as np
from scipy.io import wavfile
out, n, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out)
rng = np.random.default_rng(1)
base = rng.uniform(-0.5, 0.5, 2_621_440).astype(np.float32)
for i in range(n):
    x = np.roll(base, i * 977)
    if i % 2 == 0:
        wavfile.write(f"{out}/w{i:04d}.wav", rate, x)
    else:
        x.tofile(f"{out}/r{i:04d}.cf32")  # the same bytes read as 1.25 Mi complex samples
# The loops' subset: the first LOOP_FILES files in generation order, half of each kind.
with open(os.path.join(os.path.dirname(out), "subset.txt"), "w") as f:
    for i in range(min(n, int(sys.argv[4]))):
        f.write(f"w{i:04d}.wav\n" if i % 2 == 0 else f"r{i:04d}.cf32\n")
EOF
echo "inputs: $(find "$work/in" -type f | wc -l) files, $(du -sh "$work/in" | cut -f1); loops over $(wc -l < "$work/subset.txt")"
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

step() {  # step NAME FILES COMMAND...: runs it, prints seconds and files/s with the load around it
  local name=$1 count=$2; shift 2
  local load_before; load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  local t0 t1; t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  awk -v n="$name" -v c="$count" -v a="$t0" -v b="$t1" -v l0="$load_before" -v l1="$(cut -d' ' -f1-3 /proc/loadavg)" \
    'BEGIN { printf "%-28s %5d files %8.2f s %8.2f files/s   load %s -> %s\n", n, c, b - a, c / (b - a), l0, l1 }'
}

prism_batch() {  # prism_batch EXT
  "$prism" spectrogram "$work/in" --rate "$rate" -o "$work/batch-$1/{stem}.$1" -q --jobs "$jobs" \
    --summary-json "$work/batch-$1.json"
}
prism_loop() {  # prism_loop EXT
  mkdir -p "$work/loop-$1"
  while read -r f; do
    "$prism" spectrogram "$work/in/$f" --rate "$rate" -o "$work/loop-$1/${f%.*}.$1" -q
  done < "$work/subset.txt"
}
python_loop() {
  "$python" - "$work/in" "$work/subset.txt" "$work/python-npy" <<'EOF'
import os, sys
import numpy as np
from scipy import signal
from scipy.io import wavfile
import warnings
warnings.simplefilter("ignore")  # scipy's note that complex input gives two-sided spectra
src, listing, out = sys.argv[1:]
os.makedirs(out)
for name in open(listing).read().split():
    if name.endswith(".wav"):
        rate, x = wavfile.read(os.path.join(src, name))
    else:
        rate, x = 48000, np.fromfile(os.path.join(src, name), dtype=np.complex64)
    _, _, sxx = signal.spectrogram(x, rate, nperseg=256)
    if np.iscomplexobj(x):
        sxx = np.fft.fftshift(sxx, axes=0)  # centred, as prism writes two-sided rows
    np.save(os.path.join(out, name.rsplit(".", 1)[0] + ".npy"), sxx.T)
EOF
}

loop_count=$(wc -l < "$work/subset.txt")
step "prism batch -> npy" "$files" prism_batch npy
step "shell loop of prism -> npy" "$loop_count" prism_loop npy
step "python3 scipy loop -> npy" "$loop_count" python_loop
step "prism batch -> png" "$files" prism_batch png
step "shell loop of prism -> png" "$loop_count" prism_loop png
grep -c '"status": "done"' "$work/batch-npy.json" "$work/batch-png.json" | sed 's/^/done entries: /'
du -sh "$work/batch-npy" "$work/batch-png" | sed 's/^/outputs: /'
