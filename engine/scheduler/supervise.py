"""Run an MPI job's `mpiexec` as a child, watch it, and clean up after it.

`swiftcloud run -n N` runs the job through `run_job`: the command's exit status
becomes ours, SIGTERM and SIGHUP are passed on, and a job that ends badly gets
a clear one-line reason instead of only the launcher's banner. SIGINT is not
passed on: a terminal's Ctrl-C reaches mpiexec directly (same process group),
and Hydra takes a second one as "force abort".

No orphans: an app runs in its own session, so when an MPI rank is killed
(by hand, by the OOM killer, or by mpiexec tearing the job down) its apps
survive it, and mpiexec would wait for them since they hold its output pipe.
We therefore become a child subreaper (Linux): orphaned descendants are
reparented to us instead of init. Once no MPI rank is left, whatever remains
under us is killed and reaped, so the job ends within a tick.

Rank 0 writes to the file named by `$SWIFTCLOUD_MPI_STATUS` as it begins its
orderly exit; if it never did, a process of the job died, whatever exit
status the launcher made of it. That file lives in memory only (a memfd, named
to rank 0 by its /proc path), so a supervisor killed outright leaves nothing on
disk; if the supervisor is gone, rank 0 finds no file and has no one to tell.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import signal
import subprocess
import sys
from typing import Mapping, Sequence

from engine.scheduler.lifetime import become_subreaper, die_with_parent
from hostkit import shm
from hostkit.errors import EXIT_COMPILE, EXIT_OK, EXIT_RUNTIME
from hostkit.process_start import is_zombie
from hostkit.procfs import read_proc

STATUS_ENV = "SWIFTCLOUD_MPI_STATUS"
TICK_S = 0.1
FORWARDED = (signal.SIGTERM, signal.SIGHUP)
OWN_STATUSES = (EXIT_OK, EXIT_RUNTIME, EXIT_COMPILE, 130)


def run_job(command: Sequence[str], env: Mapping[str, str], companion: int | None = None) -> int:
    """Run `command` (an mpiexec line) to its end; return the run's exit status. A child of
    ours that serves the job (`companion`, the zygote of its worker ranks) is no orphan: its
    starter ends it."""
    # An earlier job's rank killed within the grace period of that job's own sweep left its
    # segment; it is old enough now.
    shm.sweep()
    status_fd = os.memfd_create("swiftcloud-mpi-status")
    marker = f"/proc/{os.getpid()}/fd/{status_fd}"
    try:
        become_subreaper()
        # If we are killed (even by kill -9), mpiexec gets SIGTERM and ends the job's ranks.
        job = subprocess.Popen(list(command), env={**env, STATUS_ENV: marker},
                               preexec_fn=functools.partial(die_with_parent, signal.SIGTERM))
        received: list[int] = []
        with _forwarding_signals(job, received):
            _watch(job, companion)
            status = job.wait()
        _kill_orphans(job.pid, companion)
        orderly = os.fstat(status_fd).st_size > 0
        if not orderly:
            shm.sweep()  # killed ranks left their MPICH segments behind
    finally:
        os.close(status_fd)
    if received and not orderly:
        return 128 + received[0]  # we were told to stop, and passed it on: not a crash
    return verdict(status, orderly)


def mark_orderly_exit() -> None:
    """Called by rank 0 as its exit begins: the job did not die under it."""
    path = os.environ.get(STATUS_ENV)
    if path:
        with contextlib.suppress(OSError), open(path, "w") as status:
            status.write("orderly exit\n")


def verdict(status: int, orderly: bool) -> int:
    """Our exit status from the launcher's, saying why when a process of the job died."""
    if orderly:
        # Rank 0 stopped the job itself; a busy rank it had to end may have
        # coloured the launcher's status, but the run had failed already.
        return status if status in OWN_STATUSES else EXIT_RUNTIME
    if status in (EXIT_OK, EXIT_COMPILE):
        return status
    print(f"swiftcloud: the MPI run was stopped: one of its processes died ({_describe(status)}); "
          "under MPI a lost process ends the whole run (--transport local re-runs a lost "
          "worker's tasks elsewhere)", file=sys.stderr)
    return EXIT_RUNTIME


def _describe(status: int) -> str:
    if status in OWN_STATUSES:
        return f"mpiexec exit status {status}"  # a rank's own exit, not a signal's number
    signum = status - 128 if status > 128 else status
    try:
        name = signal.Signals(signum).name
    except ValueError:
        return f"mpiexec exit status {status}"
    return f"mpiexec exit status {status}, e.g. killed by {name}"


@contextlib.contextmanager
def _forwarding_signals(job: subprocess.Popen[bytes],  # type: ignore[no-untyped-def]
                        received: list[int]):
    def forward(signum: int, frame: object) -> None:
        received.append(signum)
        with contextlib.suppress(ProcessLookupError):
            job.send_signal(signum)

    previous = {signum: signal.signal(signum, forward) for signum in FORWARDED}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, _ignore)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _ignore(signum: int, frame: object) -> None:
    """Stay alive to report and clean up; the job handles the interrupt itself."""


def _watch(job: subprocess.Popen[bytes], companion: int | None) -> None:
    """Wait for the job to end; meanwhile reap orphans, and kill them once no rank is left."""
    pidfd = _pidfd(job.pid)
    try:
        while job.poll() is None:
            if pidfd is not None:
                select.select([pidfd], [], [], TICK_S)
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    job.wait(TICK_S)
            orphans = [pid for pid in _children(os.getpid()) if pid not in (job.pid, companion)]
            if orphans and not _ranks_alive(job.pid):
                _kill(orphans)
            else:
                _reap_exited(orphans)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _children(pid: int) -> list[int]:
    """Direct children of `pid`, from /proc (cheap: no scan of every process; psutil, which
    would scan, is imported only where the kernel does not list children, as it costs the
    start of every run about 10 ms)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(child) for child in read_proc(f"/proc/{pid}/task/{task}/children").split()]
    except OSError:
        import psutil

        with contextlib.suppress(psutil.Error):
            found = [child.pid for child in psutil.Process(pid).children()]
    return found


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, children first."""
    found, frontier = [], _children(pid)
    while frontier:
        found += frontier
        frontier = [grandchild for child in frontier for grandchild in _children(child)]
    return found


def _ranks_alive(launcher: int) -> bool:
    """Does any MPI process still run? (mpiexec -> one proxy per node -> ranks; a proxy
    reaps a dead rank only once its output pipes close, so zombies do not count.)"""
    return any(not is_zombie(rank) for proxy in _children(launcher) for rank in _children(proxy))


def _kill_orphans(launcher: int, companion: int | None) -> None:
    """After the launcher ended: kill and reap everything left under us but the companion."""
    for _ in range(50):
        orphans = [pid for pid in _children(os.getpid()) if pid not in (launcher, companion)]
        if not orphans:
            return
        _kill(orphans)


def _kill(orphans: list[int]) -> None:
    """SIGKILL these children of ours, their process groups and descendants; reap them."""
    for pid in orphans:
        for descendant in _descendants(pid):
            with contextlib.suppress(OSError):
                os.kill(descendant, signal.SIGKILL)
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in orphans:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _reap_exited(orphans: list[int]) -> None:
    """Reap orphans that ended by themselves (they are our children now)."""
    for pid in orphans:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
