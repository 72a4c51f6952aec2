"""prism and GNU Radio 3.10 exchanging streams over ZeroMQ (gr-zeromq's wire format), both ways,
with and without tags, samples compared bit for bit; and prism's own ZeroMQ inputs and outputs:
prism to prism, gaps in the senders' offsets counted as drops, bad specs and malformed messages.

Run: /usr/bin/python3 test_gnuradio_interop.py PATH_TO_PRISM (GNU Radio's peer flowgraphs are
gr_peer.py beside this file).
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import prism_test_util as util  # noqa: E402

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gr_peer.py")
PYTHON = "/usr/bin/python3"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ramp(n, seed=1):
    """cf32 samples that say where they are (the real part counts) and vary (the imaginary)."""
    rng = np.random.default_rng(seed)
    return (np.arange(n, dtype=np.float32) + 1j * rng.standard_normal(n).astype(np.float32)).astype(np.complex64)


def start_peer(*args):
    proc = subprocess.Popen([PYTHON, PEER, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(f"gr_peer.py {args} did not start: {line} {proc.stderr.read()}")
    return proc


def finish_peer(proc, timeout=30):
    out, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"gr_peer.py exited {proc.returncode}: {err}")
    return out


def pmt_symbol(text):
    return b"\x02" + struct.pack(">H", len(text)) + text.encode()


def tagged_message(offset, items, tags=()):
    """gr-zeromq's tag header (written here from the format, not by prism) and the items."""
    head = struct.pack("<HBQQ", 0x5FF0, 1, offset, len(tags))
    for tag_offset, key, value in tags:
        head += struct.pack("<Q", tag_offset) + pmt_symbol(key) + value + pmt_symbol("test")
    return head + items.tobytes()


def pmt_double(value):
    return b"\x04" + struct.pack(">d", value)


class GnuRadioInterop(util.TempDirTestCase):
    def sigmf_samples(self, base):
        return np.fromfile(self.path(base + ".sigmf-data"), dtype=np.complex64)

    def sigmf_meta(self, base):
        with open(self.path(base + ".sigmf-meta")) as f:
            return json.load(f)

    def test_gnuradio_pub_with_tags_into_prism_sub(self):
        data = ramp(48000)
        data.tofile(self.path("in.cf32"))
        port = free_port()
        start_time = 1700000000.25
        peer = start_peer("send", "pub", f"tcp://127.0.0.1:{port}", self.path("in.cf32"),
                          "--tags", 48000, 100e6, start_time, "--wait", 1.5)
        # GNU Radio's tags say the rate, centre frequency and time; prism_format is prism's own
        # tag, so the format comes from --format.
        proc = util.run_prism("run", f"zmq:sub:tcp://127.0.0.1:{port}?timeout=20", "--format", "cf32",
                              "--duration", 1, "-o", self.path("out.sigmf-meta"),
                              "--summary-json", self.path("s.json"), check=0, timeout=60)
        finish_peer(peer)
        out = self.sigmf_samples("out")
        np.testing.assert_array_equal(out, data)
        meta = self.sigmf_meta("out")
        self.assertEqual(meta["global"]["core:sample_rate"], 48000)
        self.assertEqual(meta["captures"][0]["core:frequency"], 100e6)
        self.assertEqual(meta["captures"][0]["core:datetime"], "2023-11-14T22:13:20.25Z")
        with open(self.path("s.json")) as f:
            self.assertEqual(json.load(f)["samples_dropped"], 0)
        self.assertIn("tagged", proc.stderr + proc.stdout)

    def test_gnuradio_push_without_tags_into_prism_pull(self):
        data = ramp(30000, seed=2)
        data.tofile(self.path("in.cf32"))
        port = free_port()
        peer = start_peer("send", "push", f"tcp://127.0.0.1:{port}", self.path("in.cf32"), "--wait", 0)
        util.run_prism("run", f"zmq:pull:tcp://127.0.0.1:{port}?timeout=20", "--format", "cf32", "--rate", 30000,
                       "--duration", 1, "-o", self.path("out.sigmf-meta"), "-q", check=0, timeout=60)
        finish_peer(peer)
        np.testing.assert_array_equal(self.sigmf_samples("out"), data)

    def test_a_byte_order_is_refused_before_any_message(self):
        # No sender and no stall timeout: the check cannot wait for a first message.
        port = free_port()
        proc = util.run_prism("run", f"zmq:pull:tcp://127.0.0.1:{port}", "--format", "cf32_be", "--rate", 1000,
                              "--stall-timeout", 0, "-o", self.path("out.sigmf-meta"), check=2, timeout=30)
        self.assertIn(f"--format cf32_be: zmq:pull:tcp://127.0.0.1:{port} (ZeroMQ) carries samples in the "
                      "machine's byte order", proc.stderr)

    def test_raw_items_need_the_format_and_the_rate(self):
        data = ramp(1000)
        data.tofile(self.path("in.cf32"))
        port = free_port()
        peer = start_peer("send", "push", f"tcp://127.0.0.1:{port}", self.path("in.cf32"), "--wait", 0)
        proc = util.run_prism("run", f"zmq:pull:tcp://127.0.0.1:{port}?timeout=20", "--format", "cf32",
                              "-o", self.path("out.sigmf-meta"), check=2, timeout=60)
        self.assertIn("give --rate", proc.stderr)
        peer.kill()
        peer.communicate()

    def test_prism_push_into_gnuradio_pull_with_tags(self):
        data = ramp(50000, seed=3)
        util.write_sigmf(self.path("in"), 50000, data, "cf32_le", center=433.92e6,
                         extra_global=None)
        with open(self.path("in.sigmf-meta")) as f:
            meta = json.load(f)
        meta["captures"][0]["core:datetime"] = "2024-03-01T12:00:00.5Z"
        with open(self.path("in.sigmf-meta"), "w") as f:
            json.dump(meta, f)
        port = free_port()
        prism = subprocess.Popen([util.PRISM, "run", self.path("in.sigmf-meta"), "--block-size", "4096",
                                  "-o", f"zmq:push:tcp://127.0.0.1:{port}", "-q"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        peer = start_peer("receive", "pull", f"tcp://127.0.0.1:{port}", len(data), self.path("out.cf32"),
                          self.path("tags.json"), "--tags")
        finish_peer(peer)
        _, err = prism.communicate(timeout=30)
        self.assertEqual(prism.returncode, 0, err)
        np.testing.assert_array_equal(np.fromfile(self.path("out.cf32"), dtype=np.complex64), data)
        with open(self.path("tags.json")) as f:
            tags = json.load(f)
        at_zero = {t["key"]: t["value"] for t in tags if t["offset"] == 0}
        self.assertEqual(float(at_zero["rx_rate"]), 50000)
        self.assertEqual(float(at_zero["rx_freq"]), 433.92e6)
        self.assertEqual(at_zero["rx_time"], "{1709294400 0.5}")
        self.assertEqual(at_zero["prism_format"], "cf32")
        # Every message is tagged at its first item, so a late subscriber learns the stream.
        self.assertIn(4096, {t["offset"] for t in tags if t["key"] == "rx_rate"})
        at_4096 = {t["key"]: t["value"] for t in tags if t["offset"] == 4096}
        self.assertEqual(at_4096["rx_time"], "{1709294400 0.58192}")

    def test_prism_pub_into_gnuradio_sub_without_tags(self):
        data = ramp(20000, seed=4)
        address = f"ipc://{self.path('sock')}"
        # prism binds when it opens its output and sends what stdin gives: the samples are
        # written once GNU Radio's subscriber had the time to connect and subscribe (a PUB
        # drops what it sends before a subscription arrives).
        sender = subprocess.Popen([util.PRISM, "run", "-", "--format", "cf32", "--rate", "20000",
                                   "-o", f"zmq:pub:{address}?tags=off", "-q"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        peer = start_peer("receive", "sub", address, len(data), self.path("out.cf32"), self.path("t.json"))
        time.sleep(1.0)
        _, err = sender.communicate(data.tobytes(), timeout=30)
        self.assertEqual(sender.returncode, 0, err)
        finish_peer(peer)
        np.testing.assert_array_equal(np.fromfile(self.path("out.cf32"), dtype=np.complex64), data)


    def test_a_pub_waiting_for_its_subscriber_gives_gnuradio_a_file_from_its_first_item(self):
        # subscribers=1: the PUB (an XPUB on the wire GNU Radio's SUB knows) holds the file back
        # until GNU Radio has subscribed, however late that is; nothing is lost to the slow joiner.
        data = ramp(50000, seed=6)
        util.write_sigmf(self.path("in"), 50000, data, "cf32_le")
        address = f"ipc://{self.path('sock')}"
        sender = subprocess.Popen([util.PRISM, "run", self.path("in.sigmf-meta"), "--block-size", "4096",
                                   "-o", f"zmq:pub:{address}?subscribers=1,timeout=60", "-q",
                                   "--summary-json", self.path("s.json")],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        peer = start_peer("receive", "sub", address, len(data), self.path("out.cf32"), self.path("t.json"), "--tags")
        _, err = sender.communicate(timeout=60)
        self.assertEqual(sender.returncode, 0, err)
        finish_peer(peer)
        np.testing.assert_array_equal(np.fromfile(self.path("out.cf32"), dtype=np.complex64), data)
        with open(self.path("s.json")) as f:
            self.assertEqual(json.load(f)["outputs"][0]["subscriptions"], 1)


class PrismToPrism(util.TempDirTestCase):
    def test_push_pull_over_ipc_is_exact_and_ends_with_the_stream(self):
        data = ramp(100000, seed=5)
        util.write_sigmf(self.path("in"), 1e6, data, "cf32_le", center=2.4e9)
        address = f"ipc://{self.path('sock')}"
        receiver = subprocess.Popen([util.PRISM, "run", f"zmq:pull:{address}?timeout=20",
                                     "-o", self.path("out.sigmf-meta"), "--summary-json", self.path("s.json"), "-q"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        util.run_prism("run", self.path("in.sigmf-meta"), "--block-size", "3000", "-o", f"zmq:push:{address}",
                       "-q", check=0, timeout=60)
        _, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 0, err)
        np.testing.assert_array_equal(np.fromfile(self.path("out.sigmf-data"), dtype=np.complex64), data)
        with open(self.path("out.sigmf-meta")) as f:
            meta = json.load(f)
        self.assertEqual(meta["global"]["core:sample_rate"], 1e6)
        self.assertEqual(meta["captures"][0]["core:frequency"], 2.4e9)
        with open(self.path("s.json")) as f:
            self.assertEqual(json.load(f)["samples_dropped"], 0)

    def test_a_pub_with_subscribers_gives_a_slower_subscriber_the_file_whole(self):
        # The receiver is slower than the file the sender reads (a long filter on a branch holds
        # its chunks), and both ends queue only 2 messages. The SUB input waits for a chunk
        # rather than dropping, the publisher (subscribers=1) waits at the subscriber's
        # high-water mark rather than dropping: every item arrives. And the receiver ends as soon
        # as the stream does, although its publisher is gone (nothing for it to linger on).
        data = ramp(1 << 21, seed=8)
        util.write_sigmf(self.path("in"), 1e6, data, "cf32_le")
        port = free_port()
        receiver = subprocess.Popen([util.PRISM, "run", f"zmq:sub:tcp://127.0.0.1:{port}?hwm=2,timeout=60",
                                     "-o", self.path("out.sigmf-meta"),
                                     "-o", f"fir:lowpass=1000,numtaps=4001 ! {self.path('slow.sigmf-meta')}",
                                     "--summary-json", self.path("s.json"), "-q"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        util.run_prism("run", self.path("in.sigmf-meta"), "--block-size", "4096", "-o",
                       f"zmq:pub:tcp://127.0.0.1:{port}?subscribers=1,hwm=2,timeout=60", "-q", check=0, timeout=120)
        sender_done = time.monotonic()
        _, err = receiver.communicate(timeout=120)
        self.assertEqual(receiver.returncode, 0, err)
        self.assertLess(time.monotonic() - sender_done, 8, "the receiver lingered after the stream ended")
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        self.assertEqual((summary["samples_read"], summary["samples_dropped"]), (len(data), 0))
        np.testing.assert_array_equal(np.fromfile(self.path("out.sigmf-data"), dtype=np.complex64), data)

    def test_rows_travel_with_their_layout(self):
        address = f"ipc://{self.path('rows')}"
        receiver = subprocess.Popen([util.PRISM, "run", f"zmq:pull:{address}?timeout=20", "-o", self.path("got.npy"),
                                     "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A float WAV: its full scale is ±1, so the rows carry a 0 dBFS reference across.
        wav = self.path("tone.wav")
        util.write_wav_float(wav, 8000, 0.5 * np.sin(2 * np.pi * 1000 / 8000 * np.arange(4000)))
        util.run_prism("spectrogram", wav, "--nperseg", "256", "--db", "-q",
                       "-o", f"zmq:push:{address}", "-o", self.path("ref.npy"), check=0, timeout=60)
        _, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 0, err)
        got, got_meta = util.load_npy_with_sidecar(self.path("got.npy"))
        ref, ref_meta = util.load_npy_with_sidecar(self.path("ref.npy"))
        np.testing.assert_array_equal(got, ref)
        self.assertIsNotNone(ref_meta["full_scale_power"])
        for key in ("frequencies", "times", "quantity", "unit", "parameters", "center_frequency", "full_scale_power"):
            self.assertEqual(got_meta[key], ref_meta[key], key)

    def test_samples_of_a_sound_file_keep_their_full_scale(self):
        # Float samples of a WAV are ±1 full scale; across ZeroMQ a spectrogram of them is still in dBFS.
        address = f"ipc://{self.path('samples')}"
        wav = self.path("tone.wav")
        util.write_wav_float(wav, 8000, 0.5 * np.sin(2 * np.pi * 1000 / 8000 * np.arange(4000)))
        receiver = subprocess.Popen([util.PRISM, "run", f"zmq:pull:{address}?timeout=20", "!",
                                     "spectrogram:nperseg=256,db", "-o", self.path("got.npy"), "-q"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        util.run_prism("run", wav, "-o", f"zmq:push:{address}", "-q", check=0, timeout=60)
        _, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 0, err)
        util.run_prism("spectrogram", wav, "--nperseg", "256", "--db", "-q", "-o", self.path("ref.npy"), check=0)
        got, got_meta = util.load_npy_with_sidecar(self.path("got.npy"))
        ref, ref_meta = util.load_npy_with_sidecar(self.path("ref.npy"))
        np.testing.assert_array_equal(got, ref)
        self.assertIsNotNone(ref_meta["full_scale_power"])
        self.assertEqual(got_meta["full_scale_power"], ref_meta["full_scale_power"])

    def test_a_sender_that_dies_mid_stream_ends_the_run_after_the_timeout_keeping_what_came(self):
        address = f"ipc://{self.path('sock')}"
        receiver = self.receive_run(address, timeout=2)
        data = ramp(5000)
        sender = subprocess.Popen([util.PRISM, "run", "-", "--format", "cf32", "--rate", "1000", "--block-size",
                                   "1000", "-o", f"zmq:push:{address}", "-q"], stdin=subprocess.PIPE)
        sender.stdin.write(data.tobytes())
        sender.stdin.flush()
        time.sleep(1.0)
        sender.kill()  # no end of stream is sent
        sender.communicate()
        _, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 1, err)
        self.assertIn("no message for 2 s (timeout=)", err)
        self.assertIn("marked incomplete", err)
        np.testing.assert_array_equal(np.fromfile(self.path("out.sigmf-data"), dtype=np.complex64), data)
        with open(self.path("out.sigmf-meta")) as f:
            self.assertIn("interrupted", json.load(f)["global"]["core:description"])

    def test_a_sender_that_never_comes_fails_after_the_stall_timeout_writing_nothing(self):
        # The wait for the first message is part of the run: --stall-timeout covers it.
        for pattern in ("sub", "pull"):
            with self.subTest(pattern=pattern):
                began = time.monotonic()
                proc = util.run_prism("run", f"zmq:{pattern}:ipc://{self.path('nobody')}", "--format", "cf32",
                                      "--rate", 1000, "--stall-timeout", 1, "-o", self.path("out.sigmf-meta"),
                                      check=1, timeout=30)
                self.assertLess(time.monotonic() - began, 15)
                self.assertIn(f"zmq:{pattern}:ipc://", proc.stderr)
                self.assertIn("delivered nothing for 1 s (the stall timeout, --stall-timeout)", proc.stderr)
                self.assertEqual(os.listdir(self.tmp), [])

    def test_ctrl_c_while_waiting_for_the_first_message_exits_130_writing_nothing(self):
        receiver = subprocess.Popen([util.PRISM, "spectrogram", f"zmq:pull:ipc://{self.path('nobody')}",
                                     "--format", "cf32", "--rate", "1000", "-o", self.path("out.npy")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        receiver.send_signal(signal.SIGINT)
        _, err = receiver.communicate(timeout=10)
        self.assertEqual(receiver.returncode, 130, err)
        self.assertIn("interrupted: zmq:pull:ipc://", err)
        self.assertEqual([f for f in os.listdir(self.tmp) if f != "nobody"], [])

    def send_messages(self, address, messages, pattern="PUSH"):
        import zmq
        context = zmq.Context()
        sock = context.socket(zmq.PUSH if pattern == "PUSH" else zmq.PUB)
        sock.setsockopt(zmq.LINGER, 5000)
        sock.bind(address)
        for m in messages:
            sock.send(m)
        sock.close()
        context.term()

    def receive_run(self, address, *options, timeout=10):
        return subprocess.Popen([util.PRISM, "run", f"zmq:pull:{address}?timeout={timeout}", *options,
                                 "-o", self.path("out.sigmf-meta"), "--summary-json", self.path("s.json")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_a_sub_inputs_timeout_is_not_cut_short_by_the_default_stall_timeout(self):
        # A live (SUB) input waits 10 s by default; its own timeout= replaces that, longer or not,
        # while the first message is awaited and after the stream has begun.
        import zmq
        address = f"ipc://{self.path('sub')}"
        context = zmq.Context()
        publisher = context.socket(zmq.PUB)
        publisher.bind(address)
        try:
            start = time.monotonic()
            proc = subprocess.run([util.PRISM, "run", f"zmq:sub:{address}?timeout=10.5,tags=off", "--format", "cf32",
                                   "--rate", "1000", "-o", self.path("first.sigmf-meta"), "-q"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn("no message for 10.5 s (timeout=) after 0 message(s)", proc.stderr)
            self.assertGreaterEqual(time.monotonic() - start, 10.5)
            receiver = subprocess.Popen([util.PRISM, "run", f"zmq:sub:{address}?timeout=10.5,tags=off", "--format",
                                         "cf32", "--rate", "1000", "-o", self.path("later.sigmf-meta"), "-q"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # Until the subscriber has joined and opened its outputs (its first message), then 1 s.
            joined = self.path("later.sigmf-data.partial")
            deadline, end = time.monotonic() + 60, None
            while time.monotonic() < (end or deadline):
                publisher.send(ramp(100).tobytes())
                time.sleep(0.05)
                if end is None and os.path.exists(joined):
                    end = time.monotonic() + 1.0
            self.assertIsNotNone(end, "the subscriber never received a message")
            stopped = time.monotonic()
            _, err = receiver.communicate(timeout=60)
            self.assertEqual(receiver.returncode, 1, err)
            self.assertIn("no message for 10.5 s (timeout=)", err)
            self.assertGreaterEqual(time.monotonic() - stopped, 10.4)
            self.assertGreater(os.path.getsize(self.path("later.sigmf-data")), 0, "what came is kept")
        finally:
            publisher.close(linger=0)
            context.term()

    def test_gaps_in_the_offsets_are_counted_as_drops(self):
        address = f"ipc://{self.path('sock')}"
        a, b = ramp(1000), ramp(500, seed=9)
        rate_tag = [(0, "rx_rate", pmt_double(8000.0))]
        eos = struct.pack("<HBQQ", 0x5FF0, 1, 3500, 1) + struct.pack("<Q", 3500) + pmt_symbol("prism_eos") + \
            b"\x00" + pmt_symbol("test")
        receiver = self.receive_run(address, "--format", "cf32")
        self.send_messages(address, [tagged_message(0, a, rate_tag), tagged_message(3000, b), eos])
        out, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 0, err)
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        # 2000 items missing between the two messages, none after the second (the end says 3500).
        self.assertEqual(summary["samples_dropped"], 2000)
        self.assertEqual(summary["samples_read"], 1500)
        self.assertIn("2000 dropped", out + err)
        np.testing.assert_array_equal(np.fromfile(self.path("out.sigmf-data"), dtype=np.complex64),
                                      np.concatenate([a, b]))

    def test_a_malformed_header_fails_the_input_naming_it(self):
        address = f"ipc://{self.path('sock')}"
        good = tagged_message(0, ramp(100), [(0, "rx_rate", pmt_double(8000.0))])
        bad = struct.pack("<HBQQ", 0x5FF0, 1, 100, 1) + struct.pack("<Q", 100) + b"\x02\xff\xff"
        receiver = self.receive_run(address, "--format", "cf32")
        self.send_messages(address, [good, bad])
        _, err = receiver.communicate(timeout=30)
        self.assertEqual(receiver.returncode, 1, err)
        self.assertIn("zmq:pull:", err)
        self.assertIn("message 2: truncated symbol", err)

    def test_a_pub_waiting_for_subscribers_that_do_not_come_fails_after_its_timeout(self):
        address = f"ipc://{self.path('sock')}"
        start = time.monotonic()
        proc = util.run_prism("run", "gen:duration=1", "-o", f"zmq:pub:{address}?subscribers=2,timeout=1.5",
                              "-o", self.path("also.sigmf-meta"), check=1, timeout=60)
        self.assertLess(time.monotonic() - start, 20)
        self.assertIn("0 of 2 subscriber(s) came within timeout=1.5 s", proc.stderr)
        self.assertIn("zmq:pub:", proc.stderr)
        self.assertFalse(os.path.exists(self.path("also.sigmf-data")), os.listdir(self.tmp))

    def wait_until_bound(self, proc, path):
        deadline = time.monotonic() + 30
        while not os.path.exists(path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(path), "the PUB never bound its socket")

    def test_only_subscriptions_present_to_the_topic_count(self):
        # subscribers=4, topic=ch1. Counted: a SUB to ch1 and one to its prefix "ch". Not counted:
        # a SUB to another topic, one to "ch12" (which ch1's messages do not match), and a second
        # SUB to ch1 that left again (its unsubscription arrives although ch1 keeps a subscriber).
        import zmq
        socket_path = self.path("sock")
        address = f"ipc://{socket_path}"
        proc = subprocess.Popen([util.PRISM, "run", "gen:duration=1", "-o",
                                 f"zmq:pub:{address}?topic=ch1,subscribers=4,timeout=5"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        context = zmq.Context()
        subs = []

        def subscribe(topic):
            sub = context.socket(zmq.SUB)
            sub.setsockopt(zmq.LINGER, 0)
            sub.connect(address)
            sub.setsockopt(zmq.SUBSCRIBE, topic)
            subs.append(sub)
            return sub

        try:
            self.wait_until_bound(proc, socket_path)
            subscribe(b"ch1")
            leaving = subscribe(b"ch1")
            time.sleep(0.5)
            leaving.close()
            for topic in (b"ch", b"other", b"ch12"):
                subscribe(topic)
            _, err = proc.communicate(timeout=60)
        finally:
            for sub in subs:
                sub.close()
            context.term()
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("2 of 4 subscriber(s) came within timeout=5 s", err)

    def test_ctrl_c_while_a_pub_waits_ends_the_run_keeping_the_other_outputs(self):
        socket_path = self.path("sock")
        proc = subprocess.Popen([util.PRISM, "run", "gen:duration=1", "-o", f"zmq:pub:ipc://{socket_path}?subscribers=1",
                                 "-o", self.path("also.sigmf-meta")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.wait_until_bound(proc, socket_path)
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 130, err)
        with open(self.path("also.sigmf-meta")) as f:
            self.assertIn("interrupted", json.load(f)["global"]["core:description"])

    def test_bad_specs_are_usage_errors(self):
        for spec, words in ((f"zmq:pub:tcp://127.0.0.1:1", "is an output pattern"),
                            ("zmq:sub:udp://x:1", "tcp://HOST:PORT or ipc://PATH"),
                            ("zmq:sub:tcp://host", "needs a port"),
                            ("zmq:sub:tcp://h:1?hwm=0", "hwm='0'"),
                            ("zmq:sub:tcp://h:1?colour=red", "unknown key 'colour'")):
            with self.subTest(spec=spec):
                proc = util.run_prism("run", spec, "-o", self.path("o.sigmf-meta"), check=2)
                self.assertIn(words, proc.stderr)
        proc = util.run_prism("run", "gen", "-o", "zmq:sub:tcp://127.0.0.1:5", check=2)
        self.assertIn("is an input pattern", proc.stderr)
        for spec, words in (("zmq:push:tcp://127.0.0.1:5?subscribers=1", "push outputs take"),
                            ("zmq:pub:tcp://127.0.0.1:5?subscribers=-1", "subscribers='-1'")):
            with self.subTest(spec=spec):
                proc = util.run_prism("run", "gen", "-o", spec, check=2)
                self.assertIn(words, proc.stderr)

    def test_an_address_in_use_is_reported_before_the_run(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            port = s.getsockname()[1]
            proc = util.run_prism("run", "gen:duration=1", "-o", f"zmq:push:tcp://127.0.0.1:{port}", check=1)
        self.assertIn("cannot bind", proc.stderr)
        self.assertIn("Address already in use", proc.stderr)

if __name__ == "__main__":
    util.main()
