"""Two prism processes on two hosts, as far as the network is concerned: each in a network
namespace of its own (`ip netns`), joined by a veth pair (10.77.N.1 and 10.77.N.2), with nothing
else between them. A sender in the first pushes a recording (`zmq:push:tcp://*:PORT`, binding
there), a receiver in the second pulls it (`zmq:pull:tcp://10.77.N.1:PORT`) into SigMF: the
samples arrive bit for bit, with the rate and centre frequency from the tags, none dropped. A
receiver that cannot reach the sender's address (none routes there) fails after its stall
timeout, writing nothing.

Needs root and iproute2 (ip netns, veth); exits 77 (ctest SKIP) where they cannot run.

Usage: test_netns.py PRISM
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import prism_test_util as util  # noqa: E402

SKIP = 77
PORT = 5561


def ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


class Hosts:
    """Two namespaces joined by a veth pair; removed on exit (with the pair, which goes with them)."""

    def __init__(self):
        n = os.getpid() % 250 + 1
        self.names = (f"prism-a-{os.getpid()}", f"prism-b-{os.getpid()}")
        self.addresses = (f"10.77.{n}.1", f"10.77.{n}.2")

    def __enter__(self):
        a, b = self.names
        try:
            ip("netns", "add", a)
            ip("netns", "add", b)
            ip("link", "add", "veth-pa", "netns", a, "type", "veth", "peer", "name", "veth-pb", "netns", b)
            for name, device, address in ((a, "veth-pa", self.addresses[0]), (b, "veth-pb", self.addresses[1])):
                ip("-n", name, "addr", "add", f"{address}/24", "dev", device)
                ip("-n", name, "link", "set", device, "up")
                ip("-n", name, "link", "set", "lo", "up")
        except subprocess.CalledProcessError as e:
            self.__exit__()
            print(f"SKIP: cannot make two network namespaces here: {' '.join(e.cmd)}: {e.stderr.strip()}")
            sys.exit(SKIP)
        return self

    def __exit__(self, *exc):
        for name in self.names:
            ip("netns", "del", name, check=False)

    def command(self, host, *args):
        return ["ip", "netns", "exec", self.names[host], *map(str, args)]


class AcrossNamespaces(util.TempDirTestCase):
    def test_push_pull_between_two_namespaces_is_exact(self):
        rng = np.random.default_rng(11)
        data = (rng.normal(size=200000) + 1j * rng.normal(size=200000)).astype(np.complex64)
        util.write_sigmf(self.path("in"), 2e6, data, "cf32_le", center=433.92e6)
        with Hosts() as hosts:
            receiver = subprocess.Popen(hosts.command(1, util.PRISM, "run",
                                                      f"zmq:pull:tcp://{hosts.addresses[0]}:{PORT}",
                                                      "--stall-timeout", 30, "-o", self.path("out.sigmf-meta"),
                                                      "--summary-json", self.path("s.json"), "-q"),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            sender = subprocess.run(hosts.command(0, util.PRISM, "run", self.path("in.sigmf-meta"),
                                                  "--block-size", 8192, "-o", f"zmq:push:tcp://*:{PORT}", "-q"),
                                    capture_output=True, text=True, timeout=60)
            _, err = receiver.communicate(timeout=60)
            self.assertEqual(sender.returncode, 0, sender.stderr)
            self.assertEqual(receiver.returncode, 0, err)
        np.testing.assert_array_equal(np.fromfile(self.path("out.sigmf-data"), dtype=np.complex64), data)
        with open(self.path("out.sigmf-meta")) as f:
            meta = json.load(f)
        self.assertEqual(meta["global"]["core:sample_rate"], 2e6)
        self.assertEqual(meta["captures"][0]["core:frequency"], 433.92e6)
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["samples_dropped"], 0)
        self.assertEqual(summary["samples_read"], len(data))

    def test_a_sender_the_receiver_cannot_reach_fails_after_the_stall_timeout(self):
        with Hosts() as hosts:
            # The second namespace routes only to 10.77.N.0/24: the sender's address is nowhere.
            proc = subprocess.run(hosts.command(1, util.PRISM, "run", f"zmq:pull:tcp://10.78.0.1:{PORT}",
                                                "--format", "cf32", "--rate", 1000, "--stall-timeout", 1,
                                                "-o", self.path("out.sigmf-meta")),
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("delivered nothing for 1 s (the stall timeout, --stall-timeout)", proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    if shutil.which("ip") is None:
        print("SKIP: iproute2's ip is not installed")
        sys.exit(SKIP)
    if os.geteuid() != 0:
        print("SKIP: network namespaces (ip netns) need root")
        sys.exit(SKIP)
    util.main()
