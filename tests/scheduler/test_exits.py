"""How a watched process ended (hostkit/exits.py): from its pidfd once its parent reaped it,
as the MPI engine rank learns it for a worker rank the launcher's proxy started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from hostkit.exits import describe_exit, pidfd_exit_code

# The kernel keeps a reaped process's exit for its pidfds from Linux 6.15.
NEW_KERNEL = tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2]) >= (6, 15)


def test_the_words_say_a_signal_or_an_exit_code() -> None:
    assert describe_exit(-9) == "was killed by SIGKILL"
    assert describe_exit(3) == "exited with code 3"
    assert describe_exit(-200) == "was killed by signal 200"


@pytest.mark.skipif(not NEW_KERNEL, reason="PIDFD_INFO_EXIT needs Linux 6.15")
@pytest.mark.parametrize("end, code", [(signal.SIGKILL, -9), (signal.SIGSEGV, -11), (None, 7)])
def test_a_pidfd_tells_how_its_process_ended_once_it_is_reaped(end: signal.Signals | None, code: int) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(7)"],
                             stdin=subprocess.PIPE)
    handle = os.pidfd_open(child.pid)
    try:
        if end is None:
            child.communicate(b"")
        else:
            assert pidfd_exit_code(handle) is None  # running: nothing to tell yet
            child.send_signal(end)
            child.wait()
        assert pidfd_exit_code(handle) == code == child.returncode
    finally:
        os.close(handle)


def test_an_unreaped_or_closed_pidfd_tells_nothing() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    handle = os.pidfd_open(child.pid)
    os.waitid(os.P_PIDFD, handle, os.WEXITED | os.WNOWAIT)  # ended, not reaped
    assert pidfd_exit_code(handle, wait_s=0.05) is None
    child.wait()
    os.close(handle)
    assert pidfd_exit_code(handle) is None
