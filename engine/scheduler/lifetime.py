"""Processes that must not outlive the process that started them.

Linux's PR_SET_PDEATHSIG sends a chosen signal to a process when its parent
dies, however it dies (kill -9 included). Workers and the MPI job ask for
SIGTERM, whose handlers end the apps they run. A subreaper
(PR_SET_CHILD_SUBREAPER) adopts its descendants' orphans, so it can reap and
kill them. Elsewhere than Linux these are no-ops. A process we started can
also be found again by a token in its environment, which its children
inherit even after they leave its session (`processes_with_env`).
"""

from __future__ import annotations

import ctypes
import signal

import psutil

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


def processes_with_env(variable: str, value: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment has `variable` = `value`.
    Other users' processes cannot be read, so only our own can match."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(variable) == value and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found
