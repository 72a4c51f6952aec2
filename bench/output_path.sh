#!/bin/bash
# The output path's ceiling (docs/formats.md, --output-dtype; outside CI): how fast `prism spectrogram` writes
# rows to a folder beside how fast the machine writes the same number of bytes there, in the same
# run. The input is float32 noise in /dev/shm (memory: reading it costs nothing); the outputs go
# to DIR (default: a temporary folder under /tmp, the machine's disk). Cases, best of REPEATS:
#   - dd of the output's byte count from /dev/zero in 4 MiB writes: into the page cache, and with
#     conv=fdatasync (the disk's own rate: the page cache written back);
#   - cat of the input into DIR (a copy of the input's bytes, one thread reading and writing);
#   - prism spectrogram INPUT -o DIR/o.npy on each backend of BACKENDS, 50 % overlap (nperseg 256,
#     noverlap 128: as many bytes of rows out as of samples in): float32 rows, float16 rows
#     (`--output-dtype float16`, half the bytes), dB levels as uint8 (`--db --output-dtype uint8`,
#     a quarter), and float32 rows into /dev/shm (no disk behind the page cache).
# Rates are the output's bytes per second of wall time (whole processes, start-up included).
#
#   bench/output_path.sh PRISM [GIB=4] [BACKENDS="cpu cuda"] [REPEATS=2] [DIR]
set -euo pipefail
export LC_ALL=C  # decimal points in printf and awk
prism=$(realpath "$1")
gib=${2:-4}
backends=${3:-"cpu cuda"}
repeats=${4:-2}
[[ "$gib" =~ ^[1-9][0-9]*$ ]] || { echo "GIB must be a whole number of 1 or more, not '$gib'" >&2; exit 2; }
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS must be a whole number of 1 or more, not '$repeats'" >&2; exit 2; }
python=${PRISM_PYTHON:-python3}
if [[ $# -ge 5 ]]; then
  [[ -d "$5" && -w "$5" ]] || { echo "DIR '$5' is not a writable folder" >&2; exit 2; }
  out=$(mktemp -d "$5/prism-output-path.XXXXXX")
else
  out=$(mktemp -d /tmp/prism-output-path.XXXXXX)
fi
input=$(mktemp /dev/shm/prism-output-path-input.XXXXXX)
shm_rows="$input.npy"  # the case of rows written to /dev/shm (and its sidecar)
trap 'rm -rf "$out" "$input" "$shm_rows" "$input.json"' EXIT
needed_kib=$((gib * 1024 * 1024 * 21 / 10))  # the rows (1.01x) and one copy beside them
if (($(df -Pk "$out" | awk 'NR == 2 { print $4 }') <= needed_kib)); then
  echo "$out has less than the $((needed_kib / 1024)) MiB free that $gib GiB of rows need" >&2
  exit 1
fi
if (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') <= gib * 1024 * 1024 * 21 / 10)); then
  echo "/dev/shm has less than the $((gib * 21 / 10)) GiB free that the input and its rows need" >&2
  exit 1
fi

# Each timed run starts with the page cache written back and ends with its outputs removed.
source "$(dirname "$(realpath "$0")")/best_of.sh"
best_of_stderr=$out/stderr
best_of_before() { sync; }
best_of_after() { rm -f "$out"/o.* "$out"/copy "$out"/zeros; }

"$python" -c "import numpy as np, sys; np.random.default_rng(1).standard_normal($gib << 28, dtype=np.float32).tofile(sys.argv[1])" "$input"
spectrogram=("$prism" spectrogram "$input" --format f32 --rate 1e6 --nperseg 256 --noverlap 128)
# The rows' bytes, from a run that keeps its output.
if ! "${spectrogram[@]}" --backend cpu -o "$out/o.npy" >/dev/null 2>"$out/stderr"; then
  echo "prism failed on the input:" >&2
  cat "$out/stderr" >&2
  exit 1
fi
row_bytes=$(stat -c %s "$out/o.npy")
rm -f "$out"/o.*
half_bytes=$((row_bytes / 2))
blocks=$(((row_bytes + 4194303) / 4194304))

echo "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "output folder: $out on $(df -P "$out" | awk 'NR == 2 { print $1 }') ($(findmnt -no FSTYPE -T "$out" 2>/dev/null || echo '?'))"
echo "input: $gib GiB float32 in /dev/shm; rows: $row_bytes bytes (float32), about $half_bytes (float16), a quarter (uint8)"
echo
echo "| case | bytes written | best s | GB/s |"
echo "|---|---|---|---|"
row() {  # label bytes seconds
  if [[ "$3" == failed ]]; then echo "| $1 | $2 | failed | |"; return; fi
  printf "| %s | %s | %.3f | %.2f |\n" "$1" "$2" "$3" "$(awk -v b="$2" -v s="$3" 'BEGIN { print b / s / 1e9 }')"
}
row "dd from /dev/zero, 4 MiB writes, page cache" $((blocks * 4194304)) \
  "$(best_of dd if=/dev/zero of="$out/zeros" bs=4M count=$blocks status=none)"
row "dd from /dev/zero, 4 MiB writes, conv=fdatasync" $((blocks * 4194304)) \
  "$(best_of dd if=/dev/zero of="$out/zeros" bs=4M count=$blocks status=none conv=fdatasync)"
row "cat of the input" $((gib << 30)) "$(best_of sh -c 'cat "$1" > "$2"' _ "$input" "$out/copy")"
for backend in $backends; do
  row "prism spectrogram --backend $backend, float32 rows" "$row_bytes" \
    "$(best_of "${spectrogram[@]}" --backend "$backend" -o "$out/o.npy")"
  row "prism spectrogram --backend $backend, --output-dtype float16" "$half_bytes" \
    "$(best_of "${spectrogram[@]}" --backend "$backend" --output-dtype float16 -o "$out/o.npy")"
  row "prism spectrogram --backend $backend, --db --output-dtype uint8" "$((row_bytes / 4))" \
    "$(best_of "${spectrogram[@]}" --backend "$backend" --db --output-dtype uint8 --db-range=-150:-30 -o "$out/o.npy")"
  row "prism spectrogram --backend $backend, float32 rows to /dev/shm" "$row_bytes" \
    "$(best_of "${spectrogram[@]}" --backend "$backend" -o "$shm_rows")"
  rm -f "$shm_rows" "$input.json"
done
