"""GNU Radio 3.10 as prism's peer over ZeroMQ: headless flowgraphs of gr-zeromq's stream blocks,
started by test_gnuradio_interop.py (and bench/net/zmq_throughput.sh), run with Debian's python3.

  gr_peer.py send  PATTERN ADDRESS IN.cf32 [--tags RATE FREQ UNIX_SECONDS] [--wait S]
      pub_sink or push_sink (PATTERN pub|push) binds ADDRESS, waits S seconds (for prism's socket
      to connect and subscribe), then sends the cf32 samples of IN once; with --tags, pass_tags
      is on and rx_rate, rx_freq and rx_time are tagged on the first sample.
  gr_peer.py receive PATTERN ADDRESS COUNT OUT.cf32 OUT.json [--tags]
      sub_source or pull_source (PATTERN sub|pull) connects to ADDRESS and writes the first COUNT
      samples to OUT.cf32, and the tags GNU Radio saw (offset, key, value) to OUT.json.
  gr_peer.py stream PATTERN ADDRESS IN.cf32 [--wait S]
      as send, but streams the file through GNU Radio's file_source without tags (for
      throughput: send holds the samples in a Python list)
  gr_peer.py rate PATTERN ADDRESS SECONDS
      GNU Radio to GNU Radio over ADDRESS (a null source's cf32 into the sink, the source into a
      null sink) for SECONDS: prints the items per second that arrived (the peer figure of the
      throughput benchmark).
Prints "ready" once its socket is bound or connected.
"""
import json
import sys
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, zeromq

ITEM = 8  # bytes of a cf32 sample
TIMEOUT_MS = 100


def send(pattern, address, path, tags, wait):
    data = np.fromfile(path, dtype=np.complex64)
    tb = gr.top_block()
    stream_tags = []
    if tags:
        rate, freq, seconds = tags
        whole = int(seconds)
        for key, value in (("rx_rate", pmt.from_double(rate)), ("rx_freq", pmt.from_double(freq)),
                           ("rx_time", pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(seconds - whole)))):
            stream_tags.append(gr.tag_utils.python_to_tag((0, pmt.intern(key), value, pmt.intern("gr_peer"))))
    source = blocks.vector_source_c(data.tolist(), False, 1, stream_tags)
    make = zeromq.pub_sink if pattern == "pub" else zeromq.push_sink
    sink = make(ITEM, 1, address, TIMEOUT_MS, bool(tags), -1)
    tb.connect(source, sink)
    print("ready", flush=True)
    time.sleep(wait)
    tb.run()
    time.sleep(0.5)  # let the last messages leave before the socket closes


def stream(pattern, address, path, wait):
    tb = gr.top_block()
    make = zeromq.pub_sink if pattern == "pub" else zeromq.push_sink
    tb.connect(blocks.file_source(ITEM, path, False), make(ITEM, 1, address, TIMEOUT_MS, False, -1))
    print("ready", flush=True)
    time.sleep(wait)
    print(f"start {time.time():.6f}", flush=True)  # the benchmark's clock starts here
    tb.run()
    time.sleep(0.5)


def receive(pattern, address, count, out_path, tags_path, tags):
    tb = gr.top_block()
    make = zeromq.sub_source if pattern == "sub" else zeromq.pull_source
    source = make(ITEM, 1, address, TIMEOUT_MS, tags, -1)
    sink = blocks.vector_sink_c()
    tb.connect(source, sink)
    print("ready", flush=True)
    # The zeromq sources never end (gr-zeromq has no end of stream): stop once COUNT arrived.
    tb.start()
    deadline = time.monotonic() + 60
    while len(sink.data()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    np.asarray(sink.data(), dtype=np.complex64)[:count].tofile(out_path)
    seen = []
    for tag in sink.tags():
        if tag.offset < count:
                seen.append({"offset": tag.offset, "key": pmt.symbol_to_string(tag.key),
                         "value": pmt.write_string(tag.value)})
    with open(tags_path, "w") as f:
        json.dump(seen, f)


def rate(pattern, address, seconds):
    tb = gr.top_block()
    make_sink = zeromq.pub_sink if pattern == "pub" else zeromq.push_sink
    make_source = zeromq.sub_source if pattern == "pub" else zeromq.pull_source
    sink = make_sink(ITEM, 1, address, TIMEOUT_MS, False, -1)
    source = make_source(ITEM, 1, address.replace("*", "127.0.0.1"), TIMEOUT_MS, False, -1)
    counter = blocks.copy(ITEM)
    tb.connect(blocks.null_source(ITEM), sink)
    tb.connect(source, counter, blocks.null_sink(ITEM))
    print("ready", flush=True)
    tb.start()
    time.sleep(0.5)
    first = counter.nitems_written(0)
    start = time.monotonic()
    time.sleep(seconds)
    items = counter.nitems_written(0) - first
    elapsed = time.monotonic() - start
    tb.stop()
    tb.wait()
    print(f"{items / elapsed:.6g} items/s {items * ITEM / elapsed / 1e6:.1f} MB/s")


def main(argv):
    command = argv[1]
    if command == "send":
        tags, wait = None, 1.0
        rest = argv[5:]
        while rest:
            if rest[0] == "--tags":
                tags = (float(rest[1]), float(rest[2]), float(rest[3]))
                rest = rest[4:]
            elif rest[0] == "--wait":
                wait = float(rest[1])
                rest = rest[2:]
            else:
                sys.exit(f"gr_peer.py: unknown option {rest[0]}")
        send(argv[2], argv[3], argv[4], tags, wait)
    elif command == "stream":
        wait = float(argv[6]) if argv[5:6] == ["--wait"] else 1.0
        stream(argv[2], argv[3], argv[4], wait)
    elif command == "receive":
        receive(argv[2], argv[3], int(argv[4]), argv[5], argv[6], "--tags" in argv[7:])
    elif command == "rate":
        rate(argv[2], argv[3], float(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
