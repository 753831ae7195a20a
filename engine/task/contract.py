"""The task contract: what the runtime hands to the scheduler, what a worker runs, what comes back.

A `Task` is one unit of leaf work (an app command line, a Python leaf, or a
builtin that must not run on the engine, such as `sleep`). Its `payload` is one
of the picklable specs below (`AppSpec`, `PythonSpec`, `BuiltinCall`, with a
`StagingPlan` for staging-mode stores) that a worker runs with
`engine.task.run.TaskRunner`; the scheduler never looks inside it. A
`Completion` reports the outcome; a failure inside a task is a `LeafError`.
An app task also reports `AppPhases` (its staging and run times, bytes moved),
which the run log writes into the task's `end` record.

No class here is a dataclass: every process of a run imports this module (a worker rank
that runs apps imports little else), and a dataclass's methods are compiled one by one
when its class is made (about a millisecond a class), after `dataclasses` itself and the
`inspect` it brings are imported. The payloads are named tuples: each is built by the engine,
pickled and unpickled on a worker once per task, and a named tuple of an `AppSpec`'s fields
does the three in about half a frozen dataclass's time. The classes the scheduler fills
in (`Task`, `Completion`, `AppPhases`) are plain slotted classes.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional


class Task:
    """One unit of leaf work.

    - `id`: unique, increasing in submission order.
    - `kind`: `"app"`, `"python"` or `"builtin"` (for logs and policy).
    - `payload`: opaque to the scheduler; executed by a worker's `TaskRunner`.
    - `priority`: from `@prio`; higher runs first, ties in submission order.
    - `inputs`: paths of the task's input files, for data-aware placement.
    - `label`: short human name (function name) for logs and errors.
    - `retries`: how many times a failure may be retried before it is final.
    - `attempt`: which try this is (set by the scheduler at each dispatch; 1 first).
    """

    __slots__ = ("id", "kind", "payload", "priority", "inputs", "label", "retries", "attempt")

    def __init__(self, id: int, kind: str, payload: Any, priority: int = 0, inputs: tuple[str, ...] = (),
                 label: str = "", retries: int = 0, attempt: int = 1) -> None:
        self.id = id
        self.kind = kind
        self.payload = payload
        self.priority = priority
        self.inputs = inputs
        self.label = label
        self.retries = retries
        self.attempt = attempt


class Completion:
    """The final outcome of a task (after any retries).

    `ok` tells success; then `value` is what the task returned. On failure
    `error` is the message to report (it already names the task and its
    command line where there is one). `worker`/`node` say where the last
    attempt ran, `start`/`end` are epoch seconds of that attempt, `attempts`
    counts every try.
    """

    __slots__ = ("task_id", "ok", "value", "error", "worker", "node", "start", "end", "attempts", "extra")

    def __init__(self, task_id: int, ok: bool, value: Any = None, error: str = "", worker: int = -1,
                 node: str = "", start: float = 0.0, end: float = 0.0, attempts: int = 1,
                 extra: dict[str, Any] | None = None) -> None:
        self.task_id = task_id
        self.ok = ok
        self.value = value
        self.error = error
        self.worker = worker
        self.node = node
        self.start = start
        self.end = end
        self.attempts = attempts
        self.extra = {} if extra is None else extra


class LeafError(Exception):
    """Raised by a task that failed; the message is user-facing.

    `retriable` is False for failures that a retry cannot fix (e.g. a Python
    expression that returned a non-string).
    """

    def __init__(self, message: str, retriable: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.retriable = retriable
        # A failed app's phase record (AppPhases.record()), set by the task runner.
        self.phases: dict[str, Any] | None = None


class AppPhases:
    """Where one app attempt's time went on its worker, and how many bytes it moved.

    Seconds of staging in, running the app (launch to exit, outputs renamed into
    place; with stream staging the downloads happen inside it), and staging out;
    `bytes_in`/`bytes_out` are the bytes of the declared input/output files
    (downloaded/uploaded ones for staging stores). `digests` maps each output the app
    wrote, by the run's name for it (the logical path in a store, else the path as the
    script gives it), to its content digest (`hostkit.digests`), taken on this worker.
    """

    __slots__ = ("stage_in_s", "run_s", "stage_out_s", "bytes_in", "bytes_out", "digests")

    def __init__(self, stage_in_s: float = 0.0, run_s: float = 0.0, stage_out_s: float = 0.0, bytes_in: int = 0,
                 bytes_out: int = 0, digests: dict[str, str] | None = None) -> None:
        self.stage_in_s = stage_in_s
        self.run_s = run_s
        self.stage_out_s = stage_out_s
        self.bytes_in = bytes_in
        self.bytes_out = bytes_out
        self.digests = {} if digests is None else digests

    def record(self) -> dict[str, Any]:
        """The fields as the run log's `end` record carries them (digests only when there are some)."""
        record: dict[str, Any] = {"stage_in_s": round(self.stage_in_s, 6), "run_s": round(self.run_s, 6),
                                  "stage_out_s": round(self.stage_out_s, 6), "bytes_in": self.bytes_in,
                                  "bytes_out": self.bytes_out}
        if self.digests:
            record["digests"] = self.digests
        return record


class StagingPlan(NamedTuple):
    """What to move for one app task: logical paths in the store.

    `argv_files` are the indexes of command-line words that name store files;
    `redirects` maps "stdin"/"stdout"/"stderr" to a logical path; `digests` pairs
    inputs with the digest their producer recorded, which what the worker fetches must
    match before the task's outputs may be published.
    """

    storage: str
    config_path: Optional[str]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    argv_files: tuple[int, ...] = ()
    redirects: tuple[tuple[str, str], ...] = ()
    digests: tuple[tuple[str, str], ...] = ()


class AppSpec(NamedTuple):
    """One app command line.

    - `argv`: program then arguments, already in text form (no shell).
    - `stdin`/`stdout`/`stderr`: redirection paths, or None to inherit
      (relative paths are relative to `cwd` when it is set).
    - `outputs`: paths of declared output files, deleted if the app fails.
    - `label`: the app function's name, for logs.
    - `cwd`: working directory (None: the worker's).
    - `env`: the child's complete environment (None: the worker's).
    - `walltime`: seconds the app may run; past that its process group is killed
      and the attempt fails (retried like any failure). None: no limit.
    - `hidden_env`: variables removed from that environment (they hold the store's
      secrets; well-known secret variables are always removed, see `apps.py`).
    - `staging`: a `StagingPlan` when the files live in a staging-mode store
      (the worker fetches inputs and pushes outputs around the run).
    - `inputs`: paths of the declared input files, whose sizes the worker reports
      as the task's `bytes_in` (a staged task's inputs are in its plan instead).
    - `store_root`, `store_paths`: for a task on a mounted store, the mount and every
      path of the task on it (file words, redirections, inputs, outputs). The worker
      refuses the task if one leads out of the store through a symbolic link, checked just
      before the app starts, and makes the outputs' directories: on a mount each lookup is
      a round trip to the store's server, which the engine's one thread would otherwise
      pay for every task in turn.
    """

    argv: tuple[str, ...]
    stdin: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    outputs: tuple[str, ...] = ()
    label: str = ""
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] | None = None
    staging: StagingPlan | None = None
    hidden_env: tuple[str, ...] = ()
    walltime: float | None = None
    inputs: tuple[str, ...] = ()
    store_root: str | None = None
    store_paths: tuple[str, ...] = ()


class PythonSpec(NamedTuple):
    """A `python` / `python_persist` call: statements, then a `str` expression."""

    code: str
    expr: str
    persist: bool
    exceptions_are_errors: bool = True


class BuiltinCall(NamedTuple):
    """A library builtin with `where="worker"`, with what sys functions need (built and pickled
    once per call of `python()` and the like)."""

    name: str
    args: tuple[Any, ...]
    script_args: tuple[str, ...] = ()
    script_path: str = ""
