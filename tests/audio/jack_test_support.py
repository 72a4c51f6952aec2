"""Helpers for the audio tests: a private JACK server with the dummy driver, its ports, stopping.

The server gets a name of its own (JACK_DEFAULT_SERVER), so that a JACK server of the machine's
user is left alone and tests running in parallel do not meet. Where jackd or one of the JACK
example clients cannot run, the test is skipped (exit 77, ctest SKIP) with the reason: it never
passes without having heard anything.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from view_test_support import SKIP  # noqa: E402

RATE = 48000


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def require_tools(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            skip(f"{tool} is not installed (scripts/install-deps installs jackd2, xvfb and xdotool)")


def stop(proc, signal_first=None):
    """Ends a process the test started: `signal_first` (e.g. SIGINT) or SIGTERM, then SIGKILL."""
    if proc is None or proc.poll() is not None:
        return
    if signal_first is not None:
        proc.send_signal(signal_first)
    else:
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def threads_of(proc):
    """The stacks of a process that hangs (gdb's backtrace of every thread), for the failure
    message; a line saying why where gdb cannot attach."""
    if shutil.which("gdb") is None:
        return "(gdb is not installed: no stacks)"
    try:
        out = subprocess.run(["gdb", "-p", str(proc.pid), "-batch", "-nx", "-ex", "thread apply all bt"],
                             capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "(gdb did not attach within 120 s)"
    stacks = [line for line in out.stdout.splitlines() if line.startswith(("Thread", "#"))]
    return "\n".join(stacks) if stacks else "(gdb found no stacks: " + out.stderr.strip()[-500:] + ")"


class JackServer:
    """`jackd --no-realtime -d dummy` at RATE under a private server name; stopped on exit.
    monitor=True adds the ports system:monitor_N, which carry what is played to system:playback_N
    (a recorder can listen there before the player exists). client_timeout_ms (jackd -t): how long
    the server waits for a client's cycle before it gives the client up; a client process that is
    starved of CPU (a busy machine) for longer than the default is dropped from the graph."""

    def __init__(self, period=1024, monitor=False, client_timeout_ms=None):
        self.period = period
        self.client_timeout_ms = client_timeout_ms
        self.monitor = monitor
        self.env = dict(os.environ)
        self.env["JACK_NO_AUDIO_RESERVATION"] = "1"  # no D-Bus device reservation in a container
        self.env["JACK_DEFAULT_SERVER"] = f"prism_test_{os.getpid()}"
        self.proc = None
        # The server's messages go to a file, never to a pipe: a pipe nobody drains fills with a
        # busy server's xrun messages (64 KiB) and then blocks the server, and every client
        # opening on it after that hangs.
        self.log_path = None

    def __enter__(self):
        require_tools("jackd", "jack_lsp", "jack_connect")
        driver = ["-d", "dummy", "-r", str(RATE), "-p", str(self.period)] + (["-m"] if self.monitor else [])
        timeout = ["-t", str(self.client_timeout_ms)] if self.client_timeout_ms else []
        # The server appends (O_APPEND, its own open file); log_text() reads by path.
        fd, self.log_path = tempfile.mkstemp(prefix="jackd-", suffix=".log")
        os.close(fd)
        with open(self.log_path, "a") as out:
            self.proc = subprocess.Popen(["jackd", "--no-realtime", *timeout, *driver], env=self.env,
                                         stdout=out, stderr=subprocess.STDOUT)
        for _ in range(100):
            if self.proc.poll() is not None or self.ports():
                break
            time.sleep(0.1)
        if self.proc.poll() is not None or not self.ports():
            last = (self.log_text().strip().splitlines() or ["no output"])[-1]
            self.__exit__()
            skip("jackd -d dummy did not start: " + last)
        return self

    def log_text(self, last_lines=None):
        """What the server printed so far (its last `last_lines` lines)."""
        with open(self.log_path, errors="replace") as f:
            lines = f.read().splitlines()
        return "\n".join(lines[-last_lines:] if last_lines else lines)

    def __exit__(self, *exc):
        stop(self.proc)
        if self.log_path is not None:
            os.unlink(self.log_path)
            self.log_path = None
        # A server that was killed (faults.jack_killed) leaves its shared-memory segments behind;
        # they are this server's alone (its private name), and the next test's server should not
        # meet them.
        name = self.env["JACK_DEFAULT_SERVER"]
        for leftover in glob.glob(f"/dev/shm/jack_{name}_*") + glob.glob(f"/dev/shm/jack_sem.*_{name}_*"):
            try:
                os.unlink(leftover)
            except OSError:
                pass

    def client_env(self, base=None):
        """`base` (default: this process's environment) with the variables that reach this server."""
        env = dict(os.environ if base is None else base)
        env.update({k: self.env[k] for k in ("JACK_NO_AUDIO_RESERVATION", "JACK_DEFAULT_SERVER")})
        return env

    def ports(self):
        out = subprocess.run(["jack_lsp"], env=self.env, capture_output=True, text=True, timeout=10)
        return out.stdout.split() if out.returncode == 0 else []

    def connections(self):
        """{port: [ports it is connected to]} for every port of the server (jack_lsp -c)."""
        out = subprocess.run(["jack_lsp", "-c"], env=self.env, capture_output=True, text=True, timeout=10)
        links = {}
        port = None
        for line in out.stdout.splitlines() if out.returncode == 0 else []:
            if line[:1].isspace():
                if port is not None:
                    links[port].append(line.strip())
            elif line.strip():
                port = line.strip()
                links[port] = []
        return links

    def wait_for_ports(self, predicate, timeout_s, while_running=None):
        """The ports `predicate` accepts, once there are any (an empty list after timeout_s, or
        when `while_running` has exited)."""
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            found = [p for p in self.ports() if predicate(p)]
            if found:
                return found
            if while_running is not None and while_running.poll() is not None:
                return []
            time.sleep(0.05)
        return []

    def connect(self, source, destination):
        return subprocess.run(["jack_connect", source, destination], env=self.env).returncode == 0
