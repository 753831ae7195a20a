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

On SIGTERM the worker runs the cleanup callbacks registered with
`on_terminate` (the app runner registers one per child process it starts, to
kill it) and exits. `cancel()` (for a transport's signal handler) runs the
same callbacks but keeps the loop alive: the tasks it had not started yet fail
as cancelled, so the worker is soon free for its engine's next message.
"""

from __future__ import annotations

import importlib
import itertools
import os
import pickle
import signal
import socket
import threading
import time
from typing import Any, Callable

from engine.scheduler.policy import Batching
from engine.scheduler.protocol import RUN, STOP, Result, done_message
from engine.scheduler.task import LeafError

DEFAULT_RUNNER = "engine.runtime.leaf:run_leaf"
# A batch's worth of work (the engine's default batch target): a batch of short
# tasks reports in one message; results of longer work never wait.
COALESCE_S = Batching().target_s

_cleanups: dict[int, Callable[[], None]] = {}
_before_retry: dict[int, Callable[[], None]] = {}
_tokens = itertools.count()
_terminating = False
_cancelled = False
CANCELLED = "cancelled: the run is stopping"


def node_name() -> str:
    """The node this process runs on: `$SWIFTCLOUD_NODE` (emulated nodes) or the host name."""
    return os.environ.get("SWIFTCLOUD_NODE") or socket.gethostname()


def on_terminate(callback: Callable[[], None]) -> Callable[[], None]:
    """Run `callback` if this worker is terminated; returns a function that unregisters it."""
    token = next(_tokens)
    _cleanups[token] = callback
    return lambda: _cleanups.pop(token, None)


def before_retry(callback: Callable[[], None]) -> Callable[[], None]:
    """Run `callback` before this worker runs a task's second or later attempt (an earlier
    attempt may have been lost with its worker, leaving things a fresh look must find);
    returns a function that unregisters it."""
    token = next(_tokens)
    _before_retry[token] = callback
    return lambda: _before_retry.pop(token, None)


def _run_hooks(hooks: dict[int, Callable[[], None]]) -> None:
    for hook in list(hooks.values()):
        try:
            hook()
        except Exception:
            pass  # a hook is housekeeping: one that fails must not skip the others or the task


def _run_cleanups() -> None:
    _run_hooks(_cleanups)  # we are stopping anyway


def _terminate(signum: int, frame: object) -> None:
    global _terminating
    _terminating = True
    _run_cleanups()
    raise SystemExit(128 + signum)


def cancel() -> None:
    """Abandon the work at hand (safe in a signal handler): kill what the running task
    started, and fail the batch's remaining tasks without running them."""
    global _cancelled
    _cancelled = True
    _run_cleanups()


class _Runner:
    """The task runner named by "module:function", loaded on first use in the worker."""

    def __init__(self, spec: str | Callable[[Any], Any]) -> None:
        self._spec = spec
        self._function: Callable[[Any], Any] | None = spec if callable(spec) else None

    def __call__(self, payload: Any) -> Any:
        if self._function is None:
            module_name, _, attribute = str(self._spec).partition(":")
            try:
                self._function = getattr(importlib.import_module(module_name), attribute)
            except (ImportError, AttributeError, ValueError) as exc:
                raise RuntimeError(f"cannot load the task runner {self._spec!r}: {exc}") from exc
        return self._function(payload)


def serve(
    recv: Callable[[], Any],
    send: Callable[[Any], None],
    worker_id: int,
    runner: str | Callable[[Any], Any] = DEFAULT_RUNNER,
) -> None:
    """Serve batches until told to stop or the engine goes away."""
    global _cancelled
    _cancelled = False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    run = _Runner(runner)
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
            _run_batch(message[1], run, send, worker_id)
        except (EOFError, OSError):
            return


def _run_batch(batch: list[tuple[int, Any, int]], run: _Runner, send: Callable[[Any], None],
               worker_id: int) -> None:
    pending: list[Result] = []
    last = len(batch) - 1
    for index, (task_id, payload, attempt) in enumerate(batch):
        if attempt > 1:
            _run_hooks(_before_retry)
        result = _run_one(task_id, payload, run)
        pending.append(result)
        start, end = result[4], result[5]
        if index == last or end - start >= COALESCE_S or end - pending[0][5] >= COALESCE_S:
            _send_results(send, worker_id, pending)
            pending = []


def _run_one(task_id: int, payload: Any, run: _Runner) -> Result:
    start = time.time()
    if _cancelled:
        return (task_id, False, CANCELLED, False, start, start)
    try:
        value = run(payload)
    except LeafError as exc:
        return (task_id, False, exc.message, exc.retriable, start, time.time())
    except BaseException as exc:
        if _terminating:
            raise
        return (task_id, False, f"internal error in task: {exc!r}", False, start, time.time())
    return (task_id, True, value, False, start, time.time())


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
        task_id, _, _, _, start, end = result
        return (task_id, False, f"internal error in task: its result cannot be sent back: {exc!r}",
                False, start, end)
    return result
