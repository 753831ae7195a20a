"""Processes that must not outlive the process that started them.

Linux's PR_SET_PDEATHSIG sends a chosen signal to a process when its parent
dies, however it dies (kill -9 included). Workers and the MPI job ask for
SIGTERM, whose handlers end the apps they run. A subreaper
(PR_SET_CHILD_SUBREAPER) adopts its descendants' orphans, so it can reap and
kill them. Elsewhere than Linux these are no-ops. A process we started can
also be found again by a token in its environment, which its children
inherit even after they leave its session (`pids_with_env`).

Apps run in sessions of their own (so that a walltime or a cancel can end an
app's whole process group), and `PR_SET_PDEATHSIG` on each app would force a
full fork of the worker per app (measured 3x slower on short apps). So every
worker has one guard instead (`guard_apps`): a small process that gets
SIGTERM when the worker dies, however it dies, and then kills every process
still carrying the worker's token. A rank killed by the MPI launcher's
clean-up (SIGKILL) thus takes its apps along.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time

from hostkit.procfs import read_proc

WORKER_TOKEN_ENV = "SWIFTCLOUD_WORKER_TOKEN"
CARRIER_RESCAN_S = 0.02  # an exec takes well under this

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


def pids_with_env(variable: str, value: str) -> list[int]:
    """Processes whose environment has `variable` = `value`, read from /proc (every worker
    rank imports this module: psutil would add about 10 ms to its start). Zombies have no
    environment left, and other users' processes cannot be read, so only our own live ones
    can match."""
    needle = _environ_entry(variable, value)
    try:
        listing = os.listdir("/proc")
    except OSError:
        return []
    return [int(name) for name in listing if name.isdigit() and _environ_has(int(name), needle)]


def _environ_entry(variable: str, value: str) -> bytes:
    """`variable=value` as it stands in /proc/PID/environ."""
    return f"{variable}={value}".encode()


def _environ_has(pid: int, entry: bytes) -> bool:
    try:
        return entry in read_proc(f"/proc/{pid}/environ").split(b"\0")
    except OSError:
        return False


def guard_apps(token: str | None = None) -> str:
    """Mark this worker process with `token` (fresh if None), which the apps it starts
    inherit, and start its guard; returns the token."""
    token = token or os.urandom(16).hex()
    os.environ[WORKER_TOKEN_ENV] = token
    worker = os.getpid()
    # A fork, not a new interpreter: a millisecond instead of tens of them of CPU while the
    # run starts. The copy runs only `_guard` and never returns into our code.
    if os.fork() == 0:
        status = 0
        try:
            _detach()
            _guard(token, worker)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    return token


def _detach() -> None:
    """In the guard: leave the worker's session (a kill of its group spares us) and hold none
    of its files (an MPI launcher waits for its ranks' pipes to close)."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))


def kill_carriers(token: str) -> None:
    """SIGKILL every process carrying `token` (and its process group when it leads one),
    except this one. Each is held by a pidfd and checked again, so a number that went to
    another process between the scan and the kill is spared. A process in the middle of an
    exec can show an empty environment for that moment (the kill test's own scan, which
    reads environments the same way, once missed an app becoming `sleep`), hence a second
    scan a little later."""
    _kill_carriers_found(token)
    time.sleep(CARRIER_RESCAN_S)
    _kill_carriers_found(token)


def _kill_carriers_found(token: str) -> None:
    entry = _environ_entry(WORKER_TOKEN_ENV, token)
    for pid in pids_with_env(WORKER_TOKEN_ENV, token):
        if pid == os.getpid():
            continue
        try:
            handle = os.pidfd_open(pid)
        except OSError:
            continue  # gone meanwhile
        try:
            if not _environ_has(pid, entry):
                continue
            with contextlib.suppress(OSError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            signal.pidfd_send_signal(handle, signal.SIGKILL)
        except OSError:
            continue  # ended meanwhile
        finally:
            os.close(handle)


def _guard(token: str, worker: int) -> None:
    """The guard's life: wait for the worker's death, then end its apps."""
    for ignored in (signal.SIGINT, signal.SIGHUP):
        signal.signal(ignored, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # taken by sigtimedwait below
    die_with_parent(signal.SIGTERM)
    # Checked after asking for the signal: the worker may have died before.
    while os.getppid() == worker:
        signal.sigtimedwait({signal.SIGTERM}, 5.0)
    kill_carriers(token)
