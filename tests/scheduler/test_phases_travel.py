"""An app's phase record travels worker -> message -> events -> state -> Completion.extra.

The real worker loop runs a runner that returns `AppPhases` for an app,
raises a `LeafError` carrying phases for a failed app, and returns a plain
value for a Python leaf; the messages it sends go through `events_from` into
the state machine, whose reports must carry the phase record as `extra` for
the apps only (a Python leaf's result keeps its six fields and empty extra).
"""

from __future__ import annotations

import pickle
import random
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from engine.scheduler.events import Report, SendBatch, TaskSubmitted, WorkerJoined, events_from
from engine.scheduler.policy import Placement
from engine.scheduler.protocol import RUN, STOP_MESSAGE
from engine.scheduler.state import SchedulerState
from engine.scheduler.worker import serve
from engine.task.contract import AppPhases, Completion, LeafError, Task

PHASES = AppPhases(stage_in_s=0.1234567, run_s=2.0, stage_out_s=0.5, bytes_in=11, bytes_out=7)
FAILED_PHASES = {"stage_in_s": 0.0, "run_s": 0.25, "stage_out_s": 0.0, "bytes_in": 3, "bytes_out": 0}


def runner(payload: str) -> Any:
    if payload == "app":
        return PHASES
    if payload == "failing app":
        error = LeafError("exit 3", retriable=False)
        error.phases = FAILED_PHASES
        raise error
    return "leaf value"


@pytest.fixture(autouse=True)
def own_sigterm_handler() -> Iterator[None]:
    """`serve` installs its SIGTERM handler; give the test process its own back."""
    saved = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, saved)


def test_phases_reach_the_completion_of_apps_only() -> None:
    payloads = {0: "app", 1: "failing app", 2: "python"}
    state = SchedulerState(placement=Placement(), rng=random.Random(1))
    out = state.handle(WorkerJoined(0, "n"), *(TaskSubmitted(Task(i, "app", payload=p)) for i, p in payloads.items()))
    results: list[tuple] = []
    completions: dict[int, Completion] = {}
    while batches := [i for i in out if isinstance(i, SendBatch)]:
        inbox = [(RUN, [(t.id, t.payload, 1) for t in batch.tasks]) for batch in batches] + [STOP_MESSAGE]
        sent: list[tuple] = []
        serve(lambda: pickle.loads(pickle.dumps(inbox.pop(0))),
              lambda message: sent.append(pickle.loads(pickle.dumps(message))), 0, runner)
        results += [result for message in sent for result in message[2]]
        out = state.handle(*(event for message in sent for event in events_from(message)))
        completions.update((i.completion.task_id, i.completion) for i in out if isinstance(i, Report))
    assert sorted(len(result) for result in results) == [6, 7, 7]
    state.validate()
    assert completions[0].ok and completions[0].value is None
    assert completions[0].extra == {"stage_in_s": 0.123457, "run_s": 2.0, "stage_out_s": 0.5,
                                    "bytes_in": 11, "bytes_out": 7}
    assert not completions[1].ok and completions[1].extra == FAILED_PHASES
    assert completions[2].value == "leaf value" and completions[2].extra == {}
