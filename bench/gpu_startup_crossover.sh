#!/bin/bash
# Where the GPU's start-up stops mattering (docs/gpu.md, `--backend auto`; outside CI): wall time
# of whole `prism spectrogram` processes on float32 inputs of several lengths (default settings,
# into .npy), on the CPU backend at several thread counts, on the GPU (`--backend cuda`) and
# with `--backend auto` (the CPU below its bound), in the same run; and, from python3, the CUDA
# driver's initialisation (cudaGetDeviceCount) and a whole CUDA context (cudaFree(0)) alone. The best of REPEATS runs of each; inputs and outputs
# live under a temporary folder in /dev/shm where there is one (memory, not the disk), deleted
# after. The inputs are written by PRISM_PYTHON (default python3) with numpy (normal noise).
#
#   bench/gpu_startup_crossover.sh PRISM [MSAMPLES="4 16 64 256"] [THREADS="1 2 4 16"] [REPEATS=3]
#
# MSAMPLES: the inputs' lengths in mebisamples (2^20 samples, 4 MiB each). The table gives, per
# length, the seconds of one run for each backend; where the CPU stops being the faster, per
# thread count, is read off it.
set -euo pipefail
export LC_ALL=C  # decimal points in printf and awk
prism=$(realpath "$1")
lengths=${2:-"4 16 64 256"}
threads=${3:-"1 2 4 16"}
repeats=${4:-3}
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS must be a whole number of 1 or more, not '$repeats'" >&2; exit 2; }
for t in $threads; do
  [[ "$t" =~ ^[1-9][0-9]*$ ]] || { echo "THREADS: '$t' is not a whole number of 1 or more" >&2; exit 2; }
done
# The largest input and its rows (about as many bytes) must fit where they are written.
largest=0
for m in $lengths; do
  [[ "$m" =~ ^[1-9][0-9]*$ ]] || { echo "MSAMPLES: '$m' is not a whole number of mebisamples" >&2; exit 2; }
  ((m > largest)) && largest=$m
done
needed_kib=$((largest * 4 * 1024 * 5 / 2))
base=/tmp
if [[ -d /dev/shm && -w /dev/shm ]] && (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') > needed_kib)); then
  base=/dev/shm
fi
if (($(df -Pk "$base" | awk 'NR == 2 { print $4 }') <= needed_kib)); then
  echo "$base has less than the $((needed_kib / 1024)) MiB free that a $largest Mi input and its rows need" >&2
  exit 1
fi
work=$(mktemp -d "$base/prism-crossover.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=${PRISM_PYTHON:-python3}

source "$(dirname "$(realpath "$0")")/best_of.sh"
best_of_stderr=$work/stderr
best_of_format=%.3f

echo "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
if nvidia-smi -L >/dev/null 2>&1; then
  cuda_call() { "$python" -c "import ctypes, sys; sys.exit(ctypes.CDLL('libcudart.so').$1)"; }
  echo "python3 alone: $(best_of "$python" -c "pass") s;" \
       "with the driver's initialisation (cudaGetDeviceCount): $(best_of cuda_call "cudaGetDeviceCount(ctypes.byref(ctypes.c_int()))") s;" \
       "with a whole CUDA context (cudaFree(0)): $(best_of cuda_call "cudaFree(0)") s"
fi
header="| Mi samples | MiB |"
rule="|---|---|"
for t in $threads; do header+=" cpu $t threads s |"; rule+="---|"; done
echo
echo "$header cuda s | auto s |"
echo "$rule---|---|"
for m in $lengths; do
  input="$work/x$m.f32"
  "$python" -c "import numpy as np, sys; np.random.default_rng(1).standard_normal($m << 20, dtype=np.float32).tofile(sys.argv[1])" "$input"
  row="| $m | $((m * 4)) |"
  for t in $threads; do
    row+=" $(best_of "$prism" spectrogram "$input" --format f32 --rate 1e6 --backend cpu --threads "$t" -o "$work/o.npy") |"
  done
  for backend in cuda auto; do
    row+=" $(best_of "$prism" spectrogram "$input" --format f32 --rate 1e6 --backend $backend -o "$work/o.npy") |"
  done
  echo "$row"
  rm -f "$input" "$work/o.npy"
done
