"""The worker loop, driven in-process through plain recv/send callables."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from engine.scheduler.protocol import DONE, STOP_MESSAGE
from engine.task.contract import LeafError
from engine.scheduler.worker import node_name, serve

from . import runners


@pytest.fixture(autouse=True)
def keep_sigterm_handler() -> Iterator[None]:
    """`serve` installs its SIGTERM handler; give the test process its own back."""
    saved = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, saved)


def run_batches(*batches: list[tuple[int, Any]], runner: Any = runners.call,
                attempt: int = 1) -> list[list[tuple]]:
    """Serve these batches (every task at `attempt`) then a stop; return the result list of
    each message sent."""
    inbox = [("run", [(*task, attempt) for task in batch]) for batch in batches] + [STOP_MESSAGE]
    sent: list[tuple] = []
    # Pickle both ways, as a pipe would.
    serve(lambda: pickle.loads(pickle.dumps(inbox.pop(0))),
          lambda message: sent.append(pickle.loads(pickle.dumps(message))), 7, runner)
    assert all(message[0] == DONE and message[1] == 7 for message in sent)
    return [message[2] for message in sent]


def results_of(messages: list[list[tuple]]) -> list[tuple]:
    return [result for message in messages for result in message]


def test_tiny_results_travel_together_in_order() -> None:
    messages = run_batches([(i, ("noop", i * 10)) for i in range(50)])
    # Usually one message; a busy machine may preempt the worker past the 1 ms window.
    assert len(messages) <= 5
    results = results_of(messages)
    assert [(r[0], r[1], r[2]) for r in results] == [(i, True, i * 10) for i in range(50)]
    assert all(r[4] <= r[5] for r in results)


def test_a_longer_task_is_sent_at_once_not_held_for_batch_mates() -> None:
    messages = run_batches([(0, ("sleep", 0.02)), (1, ("sleep", 0.3))])
    assert [[r[0] for r in m] for m in messages] == [[0], [1]]


def test_failures_never_escape_the_loop() -> None:
    def runner(payload: Any) -> Any:
        kind = payload
        if kind == "leaf":
            raise LeafError("app exited with code 1", retriable=True)
        if kind == "exit":
            sys.exit(4)
        if kind == "interrupt":
            raise KeyboardInterrupt
        raise ZeroDivisionError("division by zero")

    batch = [(0, "leaf"), (1, "exit"), (2, "interrupt"), (3, "bug")]
    results = results_of(run_batches(batch, runner=runner))
    assert [r[1:4] for r in results] == [
        (False, "app exited with code 1", True),
        (False, "internal error in task: SystemExit(4)", False),
        (False, "internal error in task: KeyboardInterrupt()", False),
        (False, "internal error in task: ZeroDivisionError('division by zero')", False),
    ]


def test_an_unpicklable_result_becomes_an_error_and_spares_its_batch_mates() -> None:
    results = results_of(run_batches([(0, ("noop", 1)), (1, ("unpicklable", 2)), (2, ("noop", 3))]))
    assert [r[1] for r in results] == [True, False, True]
    assert "its result cannot be sent back" in results[1][2]


def test_a_runner_that_breaks_fails_each_task() -> None:
    def broken_runner(payload: Any) -> None:
        raise ImportError("no module named 'no.such.module'")

    results = results_of(run_batches([(0, None), (1, None)], runner=broken_runner))
    assert [r[0] for r in results] == [0, 1]
    assert all(not r[1] and "internal error in task" in r[2] and "no.such.module" in r[2] for r in results)


def test_the_loop_ends_when_the_engine_goes_away() -> None:
    def recv() -> Any:
        raise EOFError

    serve(recv, lambda message: None, 0, runners.call)


def test_sigterm_runs_registered_cleanups_then_exits(tmp_path: Path) -> None:
    flag = tmp_path / "cleaned"
    started = tmp_path / "started"

    class Hang:
        def __call__(self, payload: Any) -> None:
            started.write_text("")
            time.sleep(30)

        def terminate(self) -> None:
            flag.write_text("yes")

    def child(conn: Any) -> None:
        serve(conn.recv, conn.send, 0, Hang())

    ours, theirs = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(target=child, args=(theirs,))
    process.start()
    ours.send(("run", [(0, None, 1)]))
    deadline = time.monotonic() + 10
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGTERM)
    process.join(10)
    assert process.exitcode == 128 + signal.SIGTERM
    assert flag.read_text() == "yes"


def test_node_name_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWIFTCLOUD_NODE", "emulated-3")
    assert node_name() == "emulated-3"
    monkeypatch.delenv("SWIFTCLOUD_NODE")
    assert node_name()


def test_a_retry_attempt_runs_the_retry_hooks_first() -> None:
    calls: list[str] = []

    class Retrying(runners.Calls):
        def before_retry(self) -> None:
            calls.append("hook")

    run_batches([(1, ("noop", 1))], runner=Retrying())
    assert calls == []
    run_batches([(2, ("noop", 2)), (3, ("noop", 3))], runner=Retrying(), attempt=2)
    assert calls == ["hook", "hook"]


def test_the_call_before_the_first_task_comes_once_before_it_and_never_without_tasks() -> None:
    calls: list[str] = []

    class Noting(runners.Calls):
        def __call__(self, payload: tuple[str, Any]) -> Any:
            calls.append("task")
            return super().__call__(payload)

    inbox = [("run", [(1, ("noop", 1), 1)]), ("run", [(2, ("noop", 2), 1)]), STOP_MESSAGE]
    serve(lambda: inbox.pop(0), lambda message: None, 7, Noting(), lambda: calls.append("guard"))
    assert calls == ["guard", "task", "task"]
    calls.clear()
    serve(lambda: STOP_MESSAGE, lambda message: None, 7, Noting(), lambda: calls.append("guard"))
    assert calls == []
