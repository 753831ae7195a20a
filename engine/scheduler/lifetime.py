"""Processes that must not outlive the process that started them.

Linux's PR_SET_PDEATHSIG sends a chosen signal to a process when its parent
dies, however it dies (kill -9 included). Workers and the MPI job ask for
SIGTERM, whose handlers end the apps they run. A subreaper
(PR_SET_CHILD_SUBREAPER) adopts its descendants' orphans, so it can reap and
kill them. Elsewhere than Linux these are no-ops.
"""

from __future__ import annotations

import ctypes
import signal

_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def die_with_parent(signum: int) -> None:
    """Ask for `signum` when our parent dies (safe between fork and exec: one system call)."""
    _prctl(_PR_SET_PDEATHSIG, int(signum))


def become_subreaper() -> None:
    """Adopt the orphans of our descendants (instead of init)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _prctl(option: int, value: int) -> None:
    prctl = getattr(_LIBC, "prctl", None)
    if prctl is not None:
        prctl(option, value, 0, 0, 0)
