"""The worker loop, independent of the transport: receive a batch, run each task, send results.

`serve(recv, send, worker_id, runner)` runs in a worker process (a local
child or an MPI rank). A task's exception never escapes the loop: a
`LeafError` becomes a failure with its message and retriable flag, anything
else an "internal error in task" that is not retried. Results go back as
tasks finish; a result waits for batch-mates only while the oldest waiting
result is under `COALESCE_S` old, and a task that ran that long or longer is
always sent at once. Batches are sized to about that much work
(`policy.Batching.target_s`), so a batch of short tasks usually reports in
one message, and the last task of a batch never waits.

The runner is any callable taking a payload (the engine gives an
`engine.task.run.TaskRunner`); if it has a `terminate()` method, that is called
on SIGTERM (the task runner kills the apps it started) before the worker exits,
and a `before_retry()` method is called before a task's second or later
attempt. An app's `AppPhases` (the value it returns, or its `LeafError`'s
`phases`) travel as a result's seventh element; other results have six.
A transport may ask for a call before the first task runs (`before_first_task`: the worker's
guard, `lifetime.guard_apps`, which a worker that runs no task never needs).
`Worker.cancel()` (for a transport's signal handler) calls `terminate()` too but keeps the loop alive: the tasks it had not started yet
fail as cancelled, so the worker is soon free for its engine's next message.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from typing import Any, Callable

from engine.scheduler.policy import Batching
from engine.scheduler.protocol import RUN, STOP, Result, done_message
from engine.task.contract import AppPhases, LeafError

# A batch's worth of work (the engine's default batch target): a batch of short
# tasks reports in one message; results of longer work never wait.
COALESCE_S = Batching().target_s
CANCELLED = "cancelled: the run is stopping"
Runner = Callable[[Any], Any]


def node_name() -> str:
    """The node this process runs on: `$SWIFTCLOUD_NODE` (emulated nodes) or the host name."""
    return os.environ.get("SWIFTCLOUD_NODE") or os.uname().nodename


def _hook(runner: Runner, name: str) -> None:
    hook = getattr(runner, name, None)
    if hook is not None:
        try:
            hook()
        except Exception:
            pass  # a hook is housekeeping: one that fails must not skip the task or the exit


class Worker:
    """One worker process's loop over the batches its engine sends."""

    def __init__(self, runner: Runner, before_first_task: Callable[[], object] | None = None) -> None:
        self.runner = runner
        self.terminating = False
        self.cancelled = False
        self._before_first_task = before_first_task

    def cancel(self) -> None:
        """Abandon the work at hand (safe in a signal handler): kill what the running task
        started, and fail the batch's remaining tasks without running them."""
        self.cancelled = True
        _hook(self.runner, "terminate")

    def _terminate(self, signum: int, frame: object) -> None:
        self.terminating = True
        _hook(self.runner, "terminate")  # we are stopping anyway
        raise SystemExit(128 + signum)

    def serve(self, recv: Callable[[], Any], send: Callable[[Any], None], worker_id: int) -> None:
        """Serve batches until told to stop or the engine goes away."""
        self.cancelled = False
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._terminate)
        while True:
            try:
                message = recv()
            except (EOFError, OSError):
                return  # the engine is gone: nobody is left to serve
            if message[0] == STOP:
                return
            if message[0] != RUN:
                raise RuntimeError(f"worker {worker_id}: unexpected message {message!r:.200}")
            try:
                self._run_batch(message[1], send, worker_id)
            except (EOFError, OSError):
                return

    def _run_batch(self, batch: list[tuple[int, Any, int]], send: Callable[[Any], None], worker_id: int) -> None:
        if self._before_first_task is not None:
            self._before_first_task()
            self._before_first_task = None
        pending: list[Result] = []
        last = len(batch) - 1
        for index, (task_id, payload, attempt) in enumerate(batch):
            if attempt > 1:
                _hook(self.runner, "before_retry")
            result = self._run_one(task_id, payload)
            pending.append(result)
            start, end = result[4], result[5]
            if index == last or end - start >= COALESCE_S or end - pending[0][5] >= COALESCE_S:
                _send_results(send, worker_id, pending)
                pending = []

    def _run_one(self, task_id: int, payload: Any) -> Result:
        start = time.time()
        if self.cancelled:
            return (task_id, False, CANCELLED, False, start, start)
        try:
            value = self.runner(payload)
        except LeafError as exc:
            if exc.phases is not None:
                return (task_id, False, exc.message, exc.retriable, start, time.time(), exc.phases)
            return (task_id, False, exc.message, exc.retriable, start, time.time())
        except BaseException as exc:
            if self.terminating:
                raise
            return (task_id, False, f"internal error in task: {exc!r}", False, start, time.time())
        if type(value) is AppPhases:  # an app's phases travel beside its (empty) value
            return (task_id, True, None, False, start, time.time(), value.record())
        return (task_id, True, value, False, start, time.time())


def serve(recv: Callable[[], Any], send: Callable[[Any], None], worker_id: int, runner: Runner,
          before_first_task: Callable[[], object] | None = None) -> None:
    """Serve batches with `runner` until told to stop or the engine goes away, calling
    `before_first_task` once before the first task runs."""
    Worker(runner, before_first_task).serve(recv, send, worker_id)


def _send_results(send: Callable[[Any], None], worker_id: int, results: list[Result]) -> None:
    try:
        send(done_message(worker_id, results))
    except (EOFError, OSError):
        raise
    except Exception:
        # Some value could not be pickled; the message was never written, so
        # resend with those values replaced by errors.
        send(done_message(worker_id, [_sendable(result) for result in results]))


def _sendable(result: Result) -> Result:
    try:
        pickle.dumps(result)
    except Exception as exc:
        task_id, start, end = result[0], result[4], result[5]
        return (task_id, False, f"internal error in task: its result cannot be sent back: {exc!r}",
                False, start, end)
    return result
