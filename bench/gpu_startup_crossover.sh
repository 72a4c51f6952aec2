#!/bin/bash
# Where the GPU's start-up stops mattering (docs/gpu.md, `--backend auto`; outside CI): wall time
# of whole `prism spectrogram` processes on float32 inputs of several lengths (default settings,
# into .npy), on the CPU backend at several thread counts and on the GPU (`--backend cuda`), in
# the same run, and a CUDA context alone. The best of REPEATS runs of each; inputs and outputs
# live under a temporary folder in /dev/shm where there is one (memory, not the disk), deleted
# after. The inputs are written by PRISM_PYTHON (default python3) with numpy (normal noise).
#
#   bench/gpu_startup_crossover.sh PRISM [MSAMPLES="4 16 64 256"] [THREADS="1 2 4 16"] [REPEATS=3]
#
# MSAMPLES: the inputs' lengths in mebisamples (2^20 samples, 4 MiB each). The table gives, per
# length, seconds per run for each backend; the last column, per thread count, the length below
# which the CPU was the faster is read off it.
set -euo pipefail
prism=$(realpath "$1")
lengths=${2:-"4 16 64 256"}
threads=${3:-"1 2 4 16"}
repeats=${4:-3}
base=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
work=$(mktemp -d "$base/prism-crossover.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=${PRISM_PYTHON:-python3}

# Best wall time (s) of `repeats` runs of a command.
best_of() {
  local best="" t0 t1 t
  for ((r = 0; r < repeats; ++r)); do
    t0=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$work/stderr"; then
      echo "failed"
      sed 's/^/  /' "$work/stderr" >&2
      return 0
    fi
    t1=$(date +%s.%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    if [[ -z "$best" ]] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  printf "%.3f" "$best"
}

echo "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
if nvidia-smi -L >/dev/null 2>&1; then
  echo "a CUDA context alone (python3 + cudaFree(0)): $(best_of python3 -c "import ctypes; ctypes.CDLL('libcudart.so').cudaFree(0)") s;" \
       "python3 alone: $(best_of python3 -c "pass") s"
fi
header="| Mi samples | MiB |"
rule="|---|---|"
for t in $threads; do header+=" cpu $t threads s |"; rule+="---|"; done
echo
echo "$header cuda s |"
echo "$rule---|"
for m in $lengths; do
  input="$work/x$m.f32"
  "$python" -c "import numpy as np, sys; np.random.default_rng(1).standard_normal($m << 20, dtype=np.float32).tofile(sys.argv[1])" "$input"
  row="| $m | $((m * 4)) |"
  for t in $threads; do
    row+=" $(best_of "$prism" spectrogram "$input" --format f32 --rate 1e6 --backend cpu --threads "$t" -o "$work/o.npy") |"
  done
  row+=" $(best_of "$prism" spectrogram "$input" --format f32 --rate 1e6 --backend cuda -o "$work/o.npy") |"
  echo "$row"
  rm -f "$input" "$work/o.npy"
done
