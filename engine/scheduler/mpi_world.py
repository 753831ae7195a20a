"""This process's part of an MPI job: the `World`, which sends and receives without
ever blocking inside MPI, watches its peers, and releases every rank at exit.

Wire: the protocol.py tuples, pickled by mpi4py, on one tag (MPI keeps the
messages between two ranks in order), plus session messages of our own:
engine -> worker `("start", runner, node)` and `("exit",)`; worker -> engine
`("ready", worker, node)`, `("stopped", worker)` and `("bye", worker)`. A
session (one `Scheduler`) runs from START to STOP, and "stopped" fences it,
so a later session never sees an earlier one's results. EXIT ends a rank.

Nothing blocks inside MPI, because MPICH's blocking calls spin a core (this
machine has two): both sides probe and sleep with exponential backoff
(`Backoff`), and rank 0 only sends with `isend`, so it can never deadlock
against a worker sending it a large result.

A dead rank: launchers normally end the whole job at once (hydra does); for
those that do not, rank 0 checks every `LIVENESS_S` of waiting that the
worker ranks on its own host still run and fails fast (`RankLost`), and idle
workers check rank 0 the same way (`EngineGone`). At exit (`World.shutdown`)
rank 0 releases every rank and finalizes, or, if a rank is still busy after
a grace period, aborts the job.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import sys
import time
from typing import Any, Sequence

from engine.errors import SwiftRuntimeError
from engine.scheduler.protocol import STOP_MESSAGE
from hostkit.exits import describe_exit, pidfd_exit_code

TAG = 7
START, READY, STOPPED, EXIT, BYE = "start", "ready", "stopped", "exit", "bye"
LIVENESS_S = 0.5
REAPED_S = 0.5  # how long a dead rank's parent may take to reap it before we say how it ended
EXIT_GRACE_S = 2.0
CANCEL_SIGNAL = signal.SIGUSR1


class RankLost(SwiftRuntimeError):
    """An MPI rank died and the launcher did not end the job: the run cannot go on."""


class EngineGone(EOFError):
    """Raised on a worker rank waiting for a message when rank 0 has died."""


class Backoff:
    """Sleeps between polls: none at first, then `first_s` doubling up to `cap_s`; after
    `idle_s` of waiting, up to `idle_cap_s` (a rank idle that long can answer 10 ms later,
    and should not wake a thousand times a second meanwhile)."""

    def __init__(self, first_s: float = 2e-5, cap_s: float = 1e-3, idle_s: float = 1.0,
                 idle_cap_s: float = 0.01) -> None:
        self._first = first_s
        self._cap = cap_s
        self._idle_s = idle_s
        self._idle_cap = idle_cap_s
        self._next = 0.0
        self._slept = 0.0

    def pause(self, limit: float | None = None) -> None:
        """Sleep the next step (at most `limit` seconds), then lengthen the step."""
        delay = self._next if limit is None else min(self._next, limit)
        if delay > 0:
            time.sleep(delay)
            self._slept += delay
        cap = self._cap if self._slept < self._idle_s else self._idle_cap
        self._next = min(cap, max(self._first, self._next * 2))


class World:
    """This process's part of the MPI job: communicator, peers, sends in flight, and (on
    rank 0) which worker ranks are in a session."""

    def __init__(self, comm: Any, peers: Sequence[tuple[str, int]]) -> None:
        from mpi4py import MPI

        self._mpi = MPI
        self.comm = comm
        self.rank: int = comm.Get_rank()
        self.size: int = comm.Get_size()
        self.peers = list(peers)  # (host, pid) by rank
        self._status = MPI.Status()
        self._sends: list[Any] = []
        self._host = os.uname().nodename
        # Ranks we can check on: those running on this host (rank 0 watches its
        # workers, a worker watches rank 0).
        watched = range(1, self.size) if self.rank == 0 else (0,)
        self._local: dict[int, int] = {}  # rank -> pidfd (GONE: had ended when we looked)
        for rank in watched:
            host, pid = self.peers[rank]
            handle = _pidfd(pid) if host == self._host else None
            if handle is not None:
                self._local[rank] = handle
        self._next_check = time.monotonic() + LIVENESS_S
        self._typical_wait = 0.0  # moving average of how long a wait for messages lasts
        self.serving: set[int] = set()  # START sent, STOP not yet
        self.stopping: set[int] = set()  # STOP sent, "stopped" not yet back
        self.gone: set[int] = set()  # said "bye"

    @property
    def workers(self) -> range:
        """The worker ranks."""
        return range(1, self.size)

    # ------------------------------------------------------------ messages

    def send(self, rank: int, message: Any) -> None:
        """Send without blocking; a send still in flight completes in a later `receive_all`."""
        request = self.comm.isend(message, dest=rank, tag=TAG)
        if not request.Test():
            self._sends.append(request)

    def send_and_wait(self, rank: int, message: Any) -> None:
        """Send and wait (polling, not spinning) until the message has left."""
        request = self.comm.isend(message, dest=rank, tag=TAG)
        backoff = Backoff()
        while not request.Test():
            if time.monotonic() >= self._next_check:
                self._next_check = time.monotonic() + LIVENESS_S
                self._check_peers()
            backoff.pause()

    def receive_all(self, source: int) -> list[tuple[int, Any]]:
        """Every message waiting now from `source` (or any rank: `MPI.ANY_SOURCE`)."""
        received: list[tuple[int, Any]] = []
        status = self._status
        misses = 0
        # MPICH takes in one arrived message per progress step, and the probe
        # that took it in may still answer "none" (the next one returns it):
        # only two empty probes in a row mean that nothing is waiting.
        while misses < 2:
            message = self.comm.improbe(source=source, tag=TAG, status=status)
            if message is None:
                misses += 1
            else:
                misses = 0
                received.append((status.Get_source(), message.recv()))
        if self._sends:
            self._sends = [request for request in self._sends if not request.Test()]
        return received

    def wait(self, timeout: float | None, source: int | None = None) -> list[tuple[int, Any]]:
        """Messages from `source` (default: any rank), waiting up to `timeout` seconds
        (None: no limit) for the first. Session replies ("stopped", "bye") are
        booked here and not returned, so this may return early with none."""
        source = self._mpi.ANY_SOURCE if source is None else source
        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        # Results that usually take a while come no sooner for polling early:
        # rank 0 starts at half the usual wait, so that it wakes a core busy
        # with tasks a few times per message, not a dozen.
        first = min(1e-3, max(2e-5, self._typical_wait / 2)) if self.rank == 0 else 2e-5
        backoff = Backoff(first_s=first)
        while True:
            received = self.receive_all(source)
            if received:
                waited = time.monotonic() - started
                self._typical_wait += 0.2 * (waited - self._typical_wait)
                return [item for item in received if not self._booked(*item)]
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return []
            if now >= self._next_check:
                self._next_check = now + LIVENESS_S
                self._check_peers()
            backoff.pause(None if deadline is None else deadline - now)

    def _booked(self, source: int, message: Any) -> bool:
        kind = message[0]
        if kind == STOPPED:
            self.stopping.discard(source)
        elif kind == BYE:
            self.gone.add(source)
            handle = self._local.pop(source, GONE)
            if handle != GONE:
                os.close(handle)
        return kind in (STOPPED, BYE)

    def _check_peers(self) -> None:
        dead = [rank for rank, handle in self._local.items() if not _running(handle)]
        if not dead:
            return
        if self.rank != 0:
            raise EngineGone("rank 0 (the engine) has died")
        rank = dead[0]
        host, pid = self.peers[rank]
        # Its parent (the launcher's proxy) reaps it at once; then the kernel says how it ended.
        code = pidfd_exit_code(self._local[rank], wait_s=REAPED_S)
        how = "has died" if code is None else describe_exit(code)
        raise RankLost(f"MPI rank {rank} (worker {rank - 1}, pid {pid} on {host}) {how}; an MPI "
                       "run cannot go on without one of its ranks (the local transport re-runs a "
                       "lost worker's tasks elsewhere: --transport local)")

    # ------------------------------------------------------------ rank 0

    def settle(self, timeout: float) -> bool:
        """Wait until every STOP sent has been acknowledged; False on timeout."""
        deadline = time.monotonic() + timeout
        while self.stopping and time.monotonic() < deadline:
            self.wait(deadline - time.monotonic())  # results of a stopped session are dropped
        return not self.stopping

    def cancel_local(self, ranks: Sequence[int]) -> None:
        """Ask busy worker ranks on this host to drop their work and kill their apps."""
        for rank in ranks:
            handle = self._local.get(rank, GONE)
            if _running(handle):
                try:
                    signal.pidfd_send_signal(handle, CANCEL_SIGNAL)
                except OSError:
                    pass  # it has just ended: nothing left to cancel

    def shutdown(self, grace_s: float = EXIT_GRACE_S) -> None:
        """At rank 0's exit: stop every session, release every rank, then finalize; if a
        rank is still busy after `grace_s`, abort the job (ending every rank and app)."""
        for rank in sorted(self.serving):
            self.serving.discard(rank)
            self.stopping.add(rank)
            self.send(rank, STOP_MESSAGE)
        for rank in self.workers:
            self.send(rank, (EXIT,))
        deadline = time.monotonic() + grace_s
        next_cancel = time.monotonic() + 0.25
        try:
            while len(self.gone) < self.size - 1 and time.monotonic() < deadline:
                self.wait(min(0.05, max(0.0, deadline - time.monotonic())))
                if time.monotonic() >= next_cancel:
                    # A cancel that arrived between two tasks may have missed the next one.
                    self.cancel_local([r for r in self.workers if r not in self.gone])
                    next_cancel = time.monotonic() + 0.25
        except RankLost:
            pass  # a dead rank cannot say goodbye: the job must be aborted
        if len(self.gone) == self.size - 1:
            self._mpi.Finalize()
            return
        self.abort(1)

    def abort(self, status: int) -> None:
        """End every rank of the job now, without a word from MPI after ours."""
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # MPICH would print its own "application called MPI_Abort" line
        self.comm.Abort(status)


GONE = -1


def _pidfd(pid: int) -> int | None:
    """A pidfd watching process `pid` (psutil would add about 10 ms to every rank's start);
    GONE if it has ended already; None where the kernel has no pidfds (before Linux 5.3):
    then the peer is not watched."""
    try:
        return os.pidfd_open(pid)
    except ProcessLookupError:
        return GONE
    except OSError as error:
        if error.errno in (errno.ENOSYS, errno.EPERM, errno.EACCES):
            return None
        raise


def _running(handle: int) -> bool:
    """Alive and not a zombie: a pidfd turns readable once its process has ended, and a pid
    reused meanwhile cannot be mistaken for it."""
    if handle == GONE:
        return False
    readable, _, _ = select.select([handle], [], [], 0)
    return not readable
