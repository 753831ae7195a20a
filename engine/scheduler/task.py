"""What the runtime hands to the scheduler, and what comes back.

A `Task` is one unit of leaf work (an app command line, a Python leaf, or a
builtin that must not run on the engine, such as `sleep`). Its `payload` is a
picklable object that a worker passes to `engine.runtime.leaf.run_leaf`; the
scheduler never looks inside it. A `Completion` reports the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Task:
    """One unit of leaf work.

    - `id`: unique, increasing in submission order.
    - `kind`: `"app"`, `"python"` or `"builtin"` (for logs and policy).
    - `payload`: opaque to the scheduler; executed by `run_leaf(payload)`.
    - `priority`: from `@prio`; higher runs first, ties in submission order.
    - `inputs`: paths of the task's input files, for data-aware placement.
    - `label`: short human name (function name) for logs and errors.
    - `retries`: how many times a failure may be retried before it is final.
    - `attempt`: which try this is (set by the scheduler at each dispatch; 1 first).
    """

    id: int
    kind: str
    payload: Any
    priority: int = 0
    inputs: tuple[str, ...] = ()
    label: str = ""
    retries: int = 0
    attempt: int = 1


@dataclass(slots=True)
class Completion:
    """The final outcome of a task (after any retries).

    `ok` tells success; then `value` is what `run_leaf` returned. On failure
    `error` is the message to report (it already names the task and its
    command line where there is one). `worker`/`node` say where the last
    attempt ran, `start`/`end` are epoch seconds of that attempt, `attempts`
    counts every try.
    """

    task_id: int
    ok: bool
    value: Any = None
    error: str = ""
    worker: int = -1
    node: str = ""
    start: float = 0.0
    end: float = 0.0
    attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


class LeafError(Exception):
    """Raised by `run_leaf` for a task failure; the message is user-facing.

    `retriable` is False for failures that a retry cannot fix (e.g. a Python
    expression that returned a non-string).
    """

    def __init__(self, message: str, retriable: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.retriable = retriable

