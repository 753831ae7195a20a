"""MPI transport (mpi4py): rank 0 runs the engine and the state machine, ranks 1..N-1 serve.

Rank 0 drives the `Transport` protocol (`MPITransport`); every other rank runs
`serve_rank`, which waits for a session and then runs the ordinary
`worker.serve` loop over MPI, so results and task exceptions come back as
values exactly as with the local transport. Worker id = rank - 1. Both sit
on this process's `mpi_world.World` (messages, liveness, release at exit).

Stopping a run that failed: rank 0 sends SIGUSR1 to its busy local workers
(`worker.cancel`: their apps are killed, queued tasks dropped).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any, Sequence

from engine.errors import SwiftRuntimeError, UsageError
from engine.scheduler import worker as worker_loop
from engine.scheduler.lifetime import guard_apps
from engine.scheduler.mpi_world import (
    BYE, CANCEL_SIGNAL, EXIT, READY, START, STOPPED, EngineGone, World,
)
from engine.scheduler.protocol import DONE, STOP, STOP_MESSAGE, Incoming
from hostkit.startup import resume_collection


class MPITransport:
    """The worker ranks 1..N-1 as the scheduler's workers (worker id = rank - 1)."""

    def __init__(self, world: World, workers: int, runner: worker_loop.Runner, nodes: Sequence[str] | None = None,
                 stop_wait_s: float = 30.0, start_wait_s: float = 120.0) -> None:
        if world.rank != 0:
            raise UsageError("the MPI transport is driven from rank 0 only")
        if workers != world.size - 1:
            raise UsageError(f"this MPI run has {world.size - 1} worker ranks, not {workers}")
        if nodes is not None and len(nodes) != workers:
            raise ValueError(f"{len(nodes)} node names given for {workers} workers")
        self._world = world
        self._runner = runner
        self._nodes = list(nodes) if nodes is not None else None
        self._stop_wait_s = stop_wait_s
        self._start_wait_s = start_wait_s
        self._closed = False

    def start(self) -> list[tuple[int, str]]:
        """Open a session on every worker rank; return `(worker_id, node)` pairs."""
        world = self._world
        if not world.settle(self._stop_wait_s):
            raise SwiftRuntimeError(f"MPI ranks {sorted(world.stopping)} are still busy with an "
                                    "earlier run")
        for rank in world.workers:
            node = self._nodes[rank - 1] if self._nodes else None
            world.send(rank, (START, self._runner, node))
            world.serving.add(rank)
        joined: dict[int, str] = {}
        deadline = time.monotonic() + self._start_wait_s
        while len(joined) < len(world.workers):
            left = deadline - time.monotonic()
            if left <= 0:
                missing = [rank for rank in world.workers if rank - 1 not in joined]
                raise SwiftRuntimeError(f"MPI ranks {missing} did not answer within "
                                        f"{self._start_wait_s:.0f} s")
            for _, message in world.wait(left):
                if message[0] == READY:
                    joined[message[1]] = message[2]
        return sorted(joined.items())

    def send(self, worker: int, message: tuple) -> None:
        """Send a message to worker `worker` (rank worker + 1) without blocking."""
        rank = worker + 1
        if message[0] == STOP:
            if rank not in self._world.serving:
                return
            self._world.serving.discard(rank)
            self._world.stopping.add(rank)
        self._world.send(rank, message)

    def recv(self, timeout: float | None) -> list[Incoming]:
        """Results that arrived, waiting up to `timeout` (None: no limit) for some."""
        return [message for _, message in self._world.wait(timeout) if message[0] == DONE]

    def close(self, kill: bool = False) -> None:
        """End the session: stop every worker rank; `kill` also cancels their work at once."""
        if self._closed:
            return
        self._closed = True
        world = self._world
        busy = sorted(world.serving | world.stopping)
        for rank in sorted(world.serving):
            self.send(rank - 1, STOP_MESSAGE)
        if kill:
            world.cancel_local(busy)
        else:
            world.settle(self._stop_wait_s)


def serve_rank(world: World) -> bool:
    """A worker rank's life: sessions until EXIT. False if rank 0 died meanwhile."""
    me = world.rank - 1
    # On a cluster every host has a name of its own, which is the node's name.
    home_node = os.environ.get("SWIFTCLOUD_NODE") or (
        os.uname().nodename if os.environ.get("SWIFTCLOUD_NODE_FROM_HOST") else None)
    active: list[worker_loop.Worker] = []  # this session's worker loop, for the cancel signal
    signal.signal(CANCEL_SIGNAL, lambda signum, frame: [session.cancel() for session in active])
    # Ctrl-C reaches every rank; rank 0 decides what stops (a handler, not SIG_IGN,
    # which apps would inherit).
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    backlog: list[Any] = []  # messages that arrived together, handed out one at a time
    lost: list[EngineGone] = []
    guards: list[str] = []  # the token of this rank's guard, once it has one

    def guard_once() -> None:
        if not guards:
            guards.append(guard_apps())

    def receive() -> Any:
        if not backlog:
            try:
                while not backlog:
                    backlog.extend(message for _, message in world.wait(None, source=0))
            except EngineGone as gone:
                lost.append(gone)
                raise
        return backlog.pop(0)

    def send(message: Any) -> None:
        try:
            world.send_and_wait(0, message)
        except EngineGone as gone:
            lost.append(gone)
            raise

    try:
        while True:
            message = receive()
            kind = message[0]
            if kind == EXIT:
                send((BYE, me))
                return True
            if kind == START:
                _, runner, node = message  # the runner's modules are imported by now
                resume_collection()  # the rank's start is over (hostkit.startup)
                _set_node(node or home_node)
                send((READY, me, worker_loop.node_name()))
                # Its guard (if the launcher kills this rank outright, its apps go too) is
                # forked before its first task: a rank that runs none needs none, and a fork
                # while the job starts takes CPU from every rank's start.
                active[:] = [worker_loop.Worker(runner, guard_once)]
                active[0].serve(receive, send, me)
                if lost:  # serve() returns quietly when its engine is gone
                    return False
                send((STOPPED, me))
    except EngineGone:
        return False


def _set_node(node: str | None) -> None:
    if node:
        os.environ["SWIFTCLOUD_NODE"] = node
    else:
        os.environ.pop("SWIFTCLOUD_NODE", None)
