"""The viewer tests' private Xvfb servers (view_test_support.Xvfb) when several tests start at
once, as ctest runs them in parallel: each gets a display of its own, served by its own Xvfb (the
display's lock file names that server). Four start together in threads and hold their displays
while the others start.

Usage: test_xvfb_displays.py
"""
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_test_support import SKIP, Xvfb, lock_owner  # noqa: E402

STARTS = 4


def main():
    if shutil.which("Xvfb") is None:
        print("SKIP: Xvfb is not installed (scripts/install-deps installs xvfb)")
        sys.exit(SKIP)
    held = []
    errors = []
    lock = threading.Lock()
    all_started = threading.Barrier(STARTS)

    def start():
        try:
            with Xvfb() as xvfb:
                number = int(xvfb.display[1:])
                with lock:
                    held.append((xvfb.display, xvfb.proc.pid, lock_owner(number)))
                all_started.wait(timeout=30)
                time.sleep(0.5)  # every server still up while the others check theirs
                assert xvfb.proc.poll() is None, f"Xvfb of {xvfb.display} ended while in use"
        except Exception as e:  # noqa: BLE001 (reported below, with the thread's display)
            with lock:
                errors.append(repr(e))

    threads = [threading.Thread(target=start) for _ in range(STARTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("displays:", ", ".join(f"{d} (Xvfb {pid}, lock {owner})" for d, pid, owner in held))
    assert not errors, errors
    assert len(held) == STARTS, held
    assert len({d for d, _, _ in held}) == STARTS, f"two tests on one display: {held}"
    for display, pid, owner in held:
        assert owner == pid, f"{display}: its lock file names process {owner}, not its Xvfb {pid}"


if __name__ == "__main__":
    main()
