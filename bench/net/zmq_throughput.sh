#!/usr/bin/env bash
# ZeroMQ throughput: prism push -> prism pull (and pub -> sub, tagged) over tcp loopback and ipc,
# cf32 samples from a raw file in the page cache into a SigMF file in /dev/shm (and, for push ->
# pull and pub -> sub over tcp and push -> pull over ipc, into /dev/null, as ZeroMQ alone keeps
# nothing), beside the same
# copy without the network (prism run file -> file) and GNU Radio 3.10's own push_sink ->
# pull_source and pub_sink -> sub_source (null source into null sink) from the same run.
# ZeroMQ's own throughput for the same message size (bench/net/zmq_thr, libzmq's local_thr/
# remote_thr measurement with prism's socket arrangement) and GNU Radio's file_source ->
# push_sink into prism's pull input come from the same run; ZeroMQ alone also with the heap
# settings prism's command line makes (glibc's malloc thresholds, apps/main.cpp), and with those
# and its sender reading the input file as prism's does.
# Prints one line per case: MB/s of samples, samples received, samples dropped.
#   bench/net/zmq_throughput.sh PATH_TO_PRISM [MiB of input, default 256] [block size, default 65536]
# (zmq_thr is taken from the same build: PATH_TO_PRISM/../../bench/zmq_thr.)
set -euo pipefail
prism=$(readlink -f "$1")
zmq_thr=$(readlink -f "$(dirname "$prism")/../bench/zmq_thr")
mib=${2:-256}
block=${3:-65536}
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d /dev/shm/prism-zmq-bench.XXXXXX)
# A receiver still waiting when the script stops (a sender that failed) goes too.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
samples=$((mib * 1024 * 1024 / 8))
head -c $((samples * 8)) /dev/urandom > "$work/in.cf32"
cat "$work/in.cf32" > /dev/null
port=$((20000 + RANDOM % 20000))

# Prints a case's line ($1: name, $2 and $3: start and end times) from the receiver's summary.
report_line() {
  /usr/bin/python3 - "$1" "$work/s.json" "$2" "$3" "$samples" <<'PY'
import json, os, sys
name, path, start, end, samples = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
if not os.path.exists(path):  # a receiver that got no message writes nothing
    print(f"{name:40s} {'-':>8s}       received          0  (the receiver got no message)")
    sys.exit(0)
s = json.load(open(path))
print(f"{name:40s} {samples * 8 / (end - start) / 1e6:8.1f} MB/s  received {s['samples_read']:>10d}"
      f"  dropped {s['samples_dropped']:>8d}")
PY
}

# Runs the receiver ($2: input spec, with the options after $3) and the sender ($3: output spec);
# prints the line. The receiver writes a SigMF file in /dev/shm, or with discard=1 its samples as
# .npy to stdout into /dev/null (as ZeroMQ alone's receiver, which keeps nothing).
case_line() {
  local name=$1 input=$2 output=$3
  shift 3
  rm -f "$work"/out.* "$work/s.json"
  case $input in *\?*) input="$input,timeout=30" ;; *) input="$input?timeout=30" ;; esac
  if [ "${discard:-0}" = 1 ]; then
    "$prism" run "$input" "$@" -o - --block-size "$block" -q --summary-json "$work/s.json" > /dev/null &
  else
    "$prism" run "$input" "$@" -o "$work/out.sigmf-meta" --block-size "$block" -q \
      --summary-json "$work/s.json" &
  fi
  local receiver=$!
  sleep 0.5
  local start end
  start=$(date +%s.%N)
  "$prism" run "$work/in.cf32" --format cf32 --rate 1e6 --block-size "$block" -o "$output" -q
  wait "$receiver" || true
  end=$(date +%s.%N)
  report_line "$name" "$start" "$end"
}

echo "input: $mib MiB of cf32 ($samples samples), block size $block, $(nproc) cores"
start=$(date +%s.%N)
"$prism" run "$work/in.cf32" --format cf32 --rate 1e6 --block-size "$block" -o "$work/copy.sigmf-meta" -q
end=$(date +%s.%N)
/usr/bin/python3 -c "import sys; print(f\"{'file -> file (no network)':40s} {$samples * 8 / ($end - $start) / 1e6:8.1f} MB/s\")"
rm -f "$work"/copy.*
case_line "push -> pull, tcp loopback, tagged" "zmq:pull:tcp://127.0.0.1:$port" "zmq:push:tcp://127.0.0.1:$port"
case_line "push -> pull, ipc, tagged" "zmq:pull:ipc://$work/sock" "zmq:push:ipc://$work/sock"
case_line "push -> pull, tcp loopback, raw" "zmq:pull:tcp://127.0.0.1:$port?tags=off" \
  "zmq:push:tcp://127.0.0.1:$port?tags=off" --format cf32 --rate 1e6
discard=1 case_line "push -> pull, tcp, tagged, to /dev/null" "zmq:pull:tcp://127.0.0.1:$port" \
  "zmq:push:tcp://127.0.0.1:$port"
discard=1 case_line "push -> pull, ipc, tagged, to /dev/null" "zmq:pull:ipc://$work/sock" "zmq:push:ipc://$work/sock"
# The PUB waits for its subscriber (subscribers=1): else it sends the file before the subscription
# arrives and the subscriber gets nothing (ZeroMQ's slow joiner).
case_line "pub -> sub, tcp loopback, tagged" "zmq:sub:tcp://127.0.0.1:$port" \
  "zmq:pub:tcp://127.0.0.1:$port?subscribers=1,timeout=30"
discard=1 case_line "pub -> sub, tcp, tagged, to /dev/null" "zmq:sub:tcp://127.0.0.1:$port" \
  "zmq:pub:tcp://127.0.0.1:$port?subscribers=1,timeout=30"
# ZeroMQ alone: the same number of messages of the same size (prism's tag header aside), timed
# as the prism cases are (sender's start to receiver's end) and from the first message to the last.
# PUSH -> PULL only: a PUB alone drops what its subscriber's queue cannot hold (prism's PUB with
# subscribers=N waits instead), so zmq_thr's subscriber would wait for ever for the messages lost.
zmq_line() {
  local name=$1 pattern=$2 address=$3 messages=$((samples / block)) start end
  GLIBC_TUNABLES=${tunables:-} "$zmq_thr" receive "$pattern" "$address" $((block * 8)) $messages > "$work/thr.txt" &
  local receiver=$!
  sleep 0.5
  start=$(date +%s.%N)
  GLIBC_TUNABLES=${tunables:-} "$zmq_thr" send "$([ "$pattern" = pull ] && echo push || echo pub)" "$address" \
    $((block * 8)) $messages ${send_file:-}
  wait "$receiver"
  end=$(date +%s.%N)
  /usr/bin/python3 -c 'import sys; name, size, start, end, thr = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
print(f"{name:40s} {size / (end - start) / 1e6:8.1f} MB/s  ({thr})")' "$name" $((messages * block * 8)) "$start" "$end" \
    "$(cat "$work/thr.txt")"
}
zmq_line "ZeroMQ alone push -> pull, tcp" pull "tcp://127.0.0.1:$port"
zmq_line "ZeroMQ alone push -> pull, ipc" pull "ipc://$work/thr"
# Again with the heap settings of prism's command line (apps/main.cpp) through glibc's tunables:
# ZeroMQ's message buffers then come from the heap instead of freshly mapped pages.
prism_heap=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864
tunables=$prism_heap zmq_line "ZeroMQ alone, heap as prism's, tcp" pull "tcp://127.0.0.1:$port"
tunables=$prism_heap zmq_line "ZeroMQ alone, heap as prism's, ipc" pull "ipc://$work/thr"
# And the sender reading each message from the input file first (read(2), then zmq_send, on one
# thread), as prism's sender reads its input: the same job.
tunables=$prism_heap send_file=$work/in.cf32 zmq_line "ZeroMQ alone, heap, file read, tcp" pull "tcp://127.0.0.1:$port"

# GNU Radio's file_source -> push_sink into prism's pull input (raw items: GNU Radio's tags are
# off by default); the clock starts when GNU Radio's flowgraph starts, its Python start-up aside.
rm -f "$work"/out.* "$work/s.json"
duration=$(/usr/bin/python3 -c "print($samples / 1e6)")
"$prism" run "zmq:pull:tcp://127.0.0.1:$port?tags=off,timeout=30" --format cf32 --rate 1e6 \
  --duration "$duration" --block-size "$block" -o "$work/out.sigmf-meta" -q --summary-json "$work/s.json" &
receiver=$!
/usr/bin/python3 "$here/../../tests/net/gr_peer.py" stream push "tcp://127.0.0.1:$port" "$work/in.cf32" \
  --wait 0.5 > "$work/gr.txt" &
sender=$!
wait "$receiver" || true
end=$(date +%s.%N)
wait "$sender" || true
start=$(awk '/^start/ {print $2}' "$work/gr.txt")
report_line "GNU Radio push -> prism pull, tcp" "$start" "$end"

for pattern in push pub; do
  printf '%-40s ' "GNU Radio $pattern -> $( [ $pattern = push ] && echo pull || echo sub ), tcp"
  /usr/bin/python3 "$here/../../tests/net/gr_peer.py" rate $pattern "tcp://127.0.0.1:$port" 3 | tail -1
done
