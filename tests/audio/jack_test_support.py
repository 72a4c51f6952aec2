"""Helpers for the audio tests: a private JACK server with the dummy driver, its ports, stopping.

The server gets a name of its own (JACK_DEFAULT_SERVER: see JackServer), so that a JACK server
of the machine's user is left alone and tests running in parallel do not meet. Where jackd or one
of the JACK example clients cannot run, the test is skipped (exit 77, ctest SKIP) with the
reason: it never passes without having heard anything.

The test asks the server about ports and connects them through one JACK client that stays open
for the whole test (jack_observer.py, a child process), not through a jack_lsp or jack_connect
per question: libjack 1.9.21's jack_client_close can deadlock when a notification arrives as the
client closes (jack2 issue 395), and a client opened and closed many times a second beside prism
both hung itself that way and made the JACK clients that prism opens and closes (RtAudio's, as
SoapySDR's audio module enumerates) hang. The observer is killed at the end, never closed.
"""
import fcntl
import glob
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui"))
from view_test_support import SKIP  # noqa: E402

RATE = 48000
OBSERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jack_observer.py")
# How long the observer may take to answer (it answers in milliseconds).
OBSERVER_TIMEOUT_S = 10


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
    starved of CPU (a busy machine) for longer than the default is dropped from the graph.

    The name is one of SERVER_NAMES, held by a lock file for the test's life. A server that was
    killed (faults.jack_killed, or stop() giving up on SIGTERM) stays in libjack's registry of
    servers, which has 8 places and frees a place only when a server of the same name starts: a
    name of its own per test (its pid) would fill the registry after 8 kills, and every later
    server on the machine would fail ("Too many servers already active")."""

    SERVER_NAMES = [f"prism_test_{slot}" for slot in range(4)]

    def __init__(self, period=1024, monitor=False, client_timeout_ms=None):
        self.period = period
        self.client_timeout_ms = client_timeout_ms
        self.monitor = monitor
        self.env = dict(os.environ)
        self.env["JACK_NO_AUDIO_RESERVATION"] = "1"  # no D-Bus device reservation in a container
        self.proc = None
        self.observer = None
        self.name_lock = None
        # The server's messages go to a file, never to a pipe: a pipe nobody drains fills with a
        # busy server's xrun messages (64 KiB) and then blocks the server, and every client
        # opening on it after that hangs.
        self.log_path = None

    def __enter__(self):
        require_tools("jackd")
        try:
            import jack  # noqa: F401 (the observer's; imported here to skip with the reason)
        except ImportError:
            skip("python3-jack-client is not installed (scripts/install-deps installs it)")
        why_not = []
        for name in self.SERVER_NAMES:
            # A name another test holds is skipped. The lock dies with its holders however they
            # end: this process and its server (which inherits it, so that a server left running
            # by a killed test keeps its name). JACK's server names are the user's own: so are
            # the locks.
            lock = os.open(os.path.join(tempfile.gettempdir(), f"{name}-{os.getuid()}.lock"), os.O_RDONLY | os.O_CREAT,
                           0o644)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(lock)
                why_not.append(f"{name}: another test's")
                continue
            self.name_lock = lock
            self.env["JACK_DEFAULT_SERVER"] = name
            problem = self._start()
            if problem is None:
                return self
            why_not.append(f"{name}: {problem}")
            self.__exit__()
        skip("jackd -d dummy did not start under any of its names (" + "; ".join(why_not) + ")")

    def _start(self):
        """Starts the server and its observer; None, or why not."""
        driver = ["-d", "dummy", "-r", str(RATE), "-p", str(self.period)] + (["-m"] if self.monitor else [])
        timeout = ["-t", str(self.client_timeout_ms)] if self.client_timeout_ms else []
        # The server appends (O_APPEND, its own open file); log_text() reads by path.
        fd, self.log_path = tempfile.mkstemp(prefix="jackd-", suffix=".log")
        os.close(fd)
        with open(self.log_path, "a") as out:
            self.proc = subprocess.Popen(["jackd", "--no-realtime", *timeout, *driver], env=self.env,
                                         stdout=out, stderr=subprocess.STDOUT, pass_fds=(self.name_lock,))
        # Until the server answers, each try is an observer of its own: a libjack that failed to
        # reach a server does not reach it later in the same process.
        deadline = time.time() + 10
        while True:
            self.observer = subprocess.Popen([sys.executable, OBSERVER], env=self.env, stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, text=True)
            ready = self._reply()
            if "ready" in ready and self.proc.poll() is None:
                return None
            if self.proc.poll() is not None:
                lines = self.log_text().strip().splitlines()
                # jackd prints its reason before its banner.
                return "it exited: " + " / ".join(l for l in lines if "Copyright" not in l and l.strip())[:300]
            if time.time() > deadline:
                return "it did not answer within 10 s: " + ready.get("error", "")
            self.observer.wait()
            time.sleep(0.1)

    def log_text(self, last_lines=None):
        """What the server printed so far (its last `last_lines` lines)."""
        with open(self.log_path, errors="replace") as f:
            lines = f.read().splitlines()
        return "\n".join(lines[-last_lines:] if last_lines else lines)

    def __exit__(self, *exc):
        if self.observer is not None:
            self.observer.kill()  # never closed: see the top of this file
            self.observer.wait()
            self.observer = None
        stop(self.proc)
        self.proc = None
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
        if self.name_lock is not None:
            os.close(self.name_lock)  # the name is free for the next test
            self.name_lock = None

    def client_env(self, base=None):
        """`base` (default: this process's environment) with the variables that reach this server."""
        env = dict(os.environ if base is None else base)
        env.update({k: self.env[k] for k in ("JACK_NO_AUDIO_RESERVATION", "JACK_DEFAULT_SERVER")})
        return env

    def _reply(self):
        """The observer's next line as JSON; an AssertionError with its stacks and the server's
        last messages where it says nothing within OBSERVER_TIMEOUT_S or has exited."""
        ready, _, _ = select.select([self.observer.stdout], [], [], OBSERVER_TIMEOUT_S)
        line = self.observer.stdout.readline() if ready else None
        if not line:
            what = "exited" if line == "" else f"did not answer within {OBSERVER_TIMEOUT_S} s; its threads:\n" + \
                threads_of(self.observer)
            raise AssertionError(f"the JACK observer {what}\nthe server's last messages:\n{self.log_text(40)}")
        return json.loads(line)

    def _ask(self, **question):
        """The observer's answer to one question (see jack_observer.py)."""
        try:
            self.observer.stdin.write(json.dumps(question) + "\n")
            self.observer.stdin.flush()
        except OSError as e:
            raise AssertionError(f"the JACK observer is gone ({e}); the server's last messages:\n"
                                 f"{self.log_text(40)}") from e
        return self._reply()

    def ports(self):
        return self._ask(op="ports")["ports"]

    def connections(self):
        """{port: [ports it is connected to]} for every port of the server."""
        return self._ask(op="connections")["links"]

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
        """Whether `source` feeds `destination` now."""
        return self._ask(op="connect", source=source, destination=destination)["connected"]
