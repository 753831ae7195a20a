"""How a process ended, in words, and how to learn it for a process that is not our child.

A process we started tells us its exit through `wait`; one we only watch through a pidfd
(an MPI rank, whose parent is the launcher's proxy) tells us through the pidfd itself once
its parent has reaped it: `PIDFD_GET_INFO` with `PIDFD_INFO_EXIT`, Linux 6.15 and later.
"""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import time

PIDFD_GET_INFO = 0xC040FF0B  # _IOWR(PIDFS_IOCTL_MAGIC, 11, struct pidfd_info): 64 bytes, the first version
PIDFD_INFO_EXIT = 1 << 3
_INFO_SIZE = 64
_EXIT_CODE_OFFSET = 60  # after mask, cgroupid (8 bytes each) and eleven 32-bit ids
_POLL_S = 0.01


def describe_exit(code: int) -> str:
    """'exited with code 3' or 'was killed by SIGKILL', from an exit code in Popen's
    convention (minus the signal number when killed)."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def pidfd_exit_code(pidfd: int, wait_s: float = 0.0) -> int | None:
    """The exit code (Popen's convention) of the ended process behind `pidfd`, waiting up to
    `wait_s` for its parent to reap it; None if the kernel cannot tell (before 6.15) or the
    process is not reaped yet."""
    deadline = time.monotonic() + wait_s
    while True:
        info = bytearray(struct.pack("=Q", PIDFD_INFO_EXIT) + bytes(_INFO_SIZE - 8))
        try:
            fcntl.ioctl(pidfd, PIDFD_GET_INFO, info)
        except OSError:
            return None  # no such request here (ENOTTY, EINVAL), or the pidfd is gone
        if struct.unpack_from("=Q", info)[0] & PIDFD_INFO_EXIT:
            status = struct.unpack_from("=i", info, _EXIT_CODE_OFFSET)[0]
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(_POLL_S)
