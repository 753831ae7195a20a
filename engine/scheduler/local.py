"""Local transport: worker processes on this machine, one duplex pipe each.

Workers are forked (fast start; they inherit the loaded modules, so a runner
defined in `__main__` or a test module works) when the `Scheduler` starts,
i.e. at the first submitted task, before the runtime starts threads. Each
worker exports its node name as `SWIFTCLOUD_NODE`, so one machine can emulate
several nodes, and leads its own process group, so that killing the group
also reaches the app processes it started and a terminal's Ctrl-C reaches
only the engine, which decides what to do.

A worker is lost when its pipe reports EOF or its process sentinel fires
(`multiprocessing.connection.wait` watches both); what it sent before dying
is delivered first. `close()` stops workers politely, or with `kill=True`
sends SIGTERM to each worker's group (the worker's handler also kills the
apps it registered), then after a grace period SIGKILL to the group and to
every process the worker had started, even those that left its group; it
reaps every worker and returns once none of those processes runs: no
orphans, no zombies.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import time
import uuid
from multiprocessing.connection import Connection, wait
from typing import Any, Sequence

import psutil

from engine.scheduler.lifetime import die_with_parent, guard_apps, kill_carriers
from engine.scheduler.protocol import STOP, STOP_MESSAGE, Incoming, WorkerGone
from engine.scheduler.worker import Runner, node_name, serve
from hostkit.exits import describe_exit


def _worker_main(conn: Connection, inherited: list[Connection], worker_id: int, runner: Runner,
                 node: str, token: str) -> None:
    """Entry point of a forked worker process."""
    # Engine-side ends of earlier workers' pipes came along with the fork;
    # holding them would hide the engine's death from those workers.
    for other in inherited:
        other.close()
    os.setpgrp()
    die_with_parent(signal.SIGTERM)  # the engine's death, even by kill -9, ends us and our apps
    os.environ["SWIFTCLOUD_NODE"] = node
    # Every app inherits the token: found again if we are lost, even by kill -9. The guard
    # starts before the first task (none is needed before).
    serve(conn.recv, conn.send, worker_id, runner, lambda: guard_apps(token))


class LocalTransport:
    """N forked worker processes speaking the wire protocol over pipes."""

    def __init__(self, workers: int, runner: Runner, nodes: Sequence[str] | None = None,
                 stop_wait_s: float = 30.0, grace_s: float = 2.0) -> None:
        if workers < 1:
            raise ValueError(f"need at least one worker, not {workers}")
        if nodes is not None and len(nodes) != workers:
            raise ValueError(f"{len(nodes)} node names given for {workers} workers")
        self._nodes = list(nodes) if nodes is not None else [node_name()] * workers
        self._runner = runner
        self._stop_wait_s = stop_wait_s
        self._grace_s = grace_s
        self._procs: list[Any] = []  # multiprocessing Process objects, by worker id
        self._conns: list[Connection] = []
        self._gone: set[int] = set()
        self._tokens = [uuid.uuid4().hex for _ in self._nodes]  # per worker, inherited by its apps
        self._stopped: set[int] = set()
        self._owner: dict[Any, int] = {}  # connection or sentinel -> worker id
        self._closed = False

    def start(self) -> list[tuple[int, str]]:
        """Fork the workers; return `(worker_id, node)` pairs."""
        context = multiprocessing.get_context("fork")
        for worker_id, node in enumerate(self._nodes):
            ours, theirs = context.Pipe(duplex=True)
            proc = context.Process(
                target=_worker_main, name=f"swiftcloud-worker-{worker_id}",
                args=(theirs, [*self._conns, ours], worker_id, self._runner, node, self._tokens[worker_id]))
            proc.start()
            theirs.close()
            self._procs.append(proc)
            self._conns.append(ours)
            self._owner[ours] = self._owner[proc.sentinel] = worker_id
        atexit.register(self.close, True)
        return list(enumerate(self._nodes))

    def send(self, worker: int, message: tuple) -> None:
        """Send a message; a worker that died meanwhile is reported by `recv`, not here."""
        if worker in self._gone:
            return
        try:
            self._conns[worker].send(message)
        except (OSError, ValueError):
            return  # broken pipe: the sentinel or EOF will surface in recv()
        if message[0] == STOP:
            self._stopped.add(worker)

    def recv(self, timeout: float | None) -> list[Incoming]:
        """Wait for messages or dead workers; return everything available."""
        watched = [handle for handle, worker in self._owner.items() if worker not in self._gone]
        if not watched:
            if timeout:
                time.sleep(timeout)
            return []
        items: list[Incoming] = []
        for handle in wait(watched, timeout):
            worker = self._owner[handle]
            if worker in self._gone:
                continue
            items += self._drain(worker)
            if worker not in self._gone and handle is not self._conns[worker]:
                items.append(self._lose(worker))  # sentinel: the process has exited
        return items

    def _drain(self, worker: int) -> list[Incoming]:
        conn = self._conns[worker]
        items: list[Incoming] = []
        try:
            while conn.poll():
                items.append(conn.recv())
        except (EOFError, OSError):
            items.append(self._lose(worker))
        except Exception as exc:
            # A message cut short by the worker's death may not unpickle.
            items.append(self._lose(worker, f"sent a broken message ({exc!r})"))
        return items

    def _lose(self, worker: int, why: str = "") -> WorkerGone:
        self._gone.add(worker)
        proc = self._procs[worker]
        lingering = not wait([proc.sentinel], 1.0)
        # Apps it left running in its group die with it (and one that broke its
        # pipe but lingers is no use to us). Unreaped, its pid (= group id)
        # cannot have been reused.
        _signal_group(proc.pid, signal.SIGKILL)
        # Apps run in sessions of their own and are orphaned now: find them by the
        # token the worker gave them, so a lost attempt does not run on beside its retry.
        kill_carriers(self._tokens[worker])
        proc.join()
        self._conns[worker].close()
        if lingering and not why:
            why = "closed its connection without exiting"
        return WorkerGone(worker, f"worker {worker} on node {self._nodes[worker]} "
                                  f"{why or describe_exit(proc.exitcode)}")

    def close(self, kill: bool = False) -> None:
        """Stop every worker and reap it; `kill` skips the polite stop."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        live = [worker for worker in range(len(self._procs)) if worker not in self._gone]
        if not kill:
            for worker in live:
                if worker not in self._stopped:
                    self.send(worker, STOP_MESSAGE)
            live = self._wait_exit(live, self._stop_wait_s)
        if live:
            self._kill(live)
        for proc in self._procs:
            proc.join()
        for conn in self._conns:
            conn.close()

    def _kill(self, workers: list[int]) -> None:
        """SIGTERM, then after a grace period SIGKILL, these workers and everything they started."""
        pids = [self._procs[worker].pid for worker in workers]
        # Taken before anything dies: once a worker is gone its children are
        # reparented and can no longer be found from it (apps may also have left
        # its process group for their own).
        descendants = _descendants(pids)
        for pid in pids:
            _signal_group(pid, signal.SIGTERM)
        self._wait_exit(workers, self._grace_s)
        for pid in pids:
            # Unreaped, the worker's pid (= its group id) cannot be reused, so
            # this reaches only its own leftover subprocesses.
            _signal_group(pid, signal.SIGKILL)
        for process in descendants:
            with contextlib.suppress(psutil.Error):
                process.kill()
        # Killing is asynchronous: return only once none of them runs any more.
        deadline = time.monotonic() + self._grace_s
        while any(_running(process) for process in descendants) and time.monotonic() < deadline:
            time.sleep(0.01)

    def _wait_exit(self, workers: list[int], timeout: float) -> list[int]:
        """Wait until these workers exit or `timeout` passes; return those still running."""
        deadline = time.monotonic() + timeout
        running = {self._procs[worker].sentinel: worker for worker in workers}
        while running:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for sentinel in wait(list(running), left):
                del running[sentinel]
        return sorted(running.values())


def _signal_group(pid: int, signum: int) -> None:
    """Signal a worker's process group, or the worker alone if it has no group yet."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def _descendants(pids: list[int]) -> list[psutil.Process]:
    found: list[psutil.Process] = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            found += psutil.Process(pid).children(recursive=True)
    return found


def _running(process: psutil.Process) -> bool:
    """Alive and not merely a zombie waiting to be reaped by its (new) parent."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
