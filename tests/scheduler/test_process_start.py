"""A process's identity (PID and start) read from /proc, against psutil's reading of it."""

from __future__ import annotations

import os
import subprocess

import psutil
import pytest

from hostkit.process_start import is_zombie, start_ticks, start_time
from hostkit.processes import create_time, is_running
from hostkit.procfs import CHUNK_BYTES, read_proc


def test_a_start_time_is_the_one_psutil_reads() -> None:
    for pid in (os.getpid(), os.getppid()):
        assert abs(start_time(pid) - psutil.Process(pid).create_time()) < 0.01
        assert start_ticks(pid) is not None


def test_a_process_is_running_only_as_itself_and_until_it_ends() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        started = create_time(child.pid)
        assert is_running(child.pid, started)
        assert not is_running(child.pid, started + 1.0)  # another process given the same PID
        child.kill()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # ended, not yet reaped
        assert is_zombie(child.pid)
        assert not is_running(child.pid, started)
    finally:
        child.kill()
        child.wait()
    assert start_time(child.pid) is None
    assert create_time(child.pid) == 0.0
    assert not is_running(child.pid, started)


def test_a_proc_file_is_read_whole_however_long() -> None:
    """A process's environment can be far longer than one read (`procfs.CHUNK_BYTES`)."""
    long_values = {f"LONG_VALUE_{index}": str(index) * (CHUNK_BYTES // 2) for index in range(6)}
    # The child says when it runs: Popen returns once the child's exec has begun, while the
    # kernel may still be laying out its new environment (the file reads empty until then).
    child = subprocess.Popen(["sh", "-c", "echo ready; read line"], env={**os.environ, **long_values},
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        with open(f"/proc/{child.pid}/environ", "rb") as environ:
            expected = environ.read()
        assert len(expected) > 3 * CHUNK_BYTES
        assert read_proc(f"/proc/{child.pid}/environ") == expected
    finally:
        child.kill()
        child.communicate()
    with pytest.raises(FileNotFoundError):
        read_proc(f"/proc/{child.pid}/environ")
