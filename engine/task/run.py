"""Running one task's payload on a worker: `TaskRunner`, what a worker process calls.

The runtime builds an `AppSpec`, `PythonSpec` or `BuiltinCall` (see
`contract.py`) as a Task's payload; the worker's `TaskRunner` runs it. Every
failure comes out as `LeafError` with a user-facing message: nothing else
escapes. The runner owns what its process keeps between tasks: the apps running
now (killed if the worker is terminated), the stale temporaries already looked
for, the open store adapters of staging-mode stores, and the one namespace of
`python_persist` when a builtin runs here. Library builtins are looked up in the
table the runner was made with (the runtime makes it, of the builtins its program
calls: this package does not know the library), and run with a context from the
factory it was given (none with an empty table).
An app task returns its `AppPhases` (on failure its `LeafError` carries their
record), which the worker sends back beside the result, with the digest of every
output the app wrote (`apps`, `staging`).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine.errors import SwiftRuntimeError
from engine.task.apps import AppProcesses
from engine.task.atomic import Publisher
from engine.task.contract import AppPhases, AppSpec, BuiltinCall, LeafError, PythonSpec, StagingPlan
from engine.task.pyleaf import new_namespace, run_python
from engine.task.staging import run_staged

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# A builtin's implementation: `impl(context, *args)`; a context factory takes the
# keyword arguments script_args, script_path, python_namespace, publisher and rng.
Builtin = Callable[..., Any]
ContextFactory = Callable[..., Any]

# A task with more inputs than this sizes them on threads, while its app runs: on a mount a
# region away each stat is a round trip to the store, and a merge of 320 files spent 98 s
# stating its inputs one by one before it started.
SIZE_ON_THREADS_ABOVE = 8
SIZE_THREADS = 16


class TaskRunner:
    """Runs task payloads in one worker process (picklable: it travels to MPI ranks)."""

    def __init__(self, builtins: Mapping[str, Builtin], make_context: ContextFactory | None) -> None:
        self._builtins = dict(builtins)
        self._make_context = make_context
        self.apps = AppProcesses()
        self.publisher = Publisher()
        self._stores: dict[tuple[str, str | None], Any] = {}
        self._namespace = new_namespace()
        # One generator for this process's tasks (seeding one from the OS per task cost 10 us),
        # made in the process that uses it: forked workers must not share one sequence.
        self._rng: tuple[int, random.Random] | None = None
        self._sizers: ThreadPoolExecutor | None = None

    def __getstate__(self) -> dict[str, Any]:
        # What travels is the recipe, not a process's running state.
        return {"builtins": self._builtins, "make_context": self._make_context}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["builtins"], state["make_context"])  # type: ignore[misc]

    def __call__(self, payload: AppSpec | PythonSpec | BuiltinCall) -> Any:
        """Run one task and return its value (an app's: its AppPhases); failures raise LeafError."""
        try:
            if isinstance(payload, AppSpec):
                self.apps.install_terminate_handler()
                return self._run_app_task(payload)
            if isinstance(payload, PythonSpec):
                return run_python(payload, self._namespace)
            if isinstance(payload, BuiltinCall):
                return self._run_builtin(payload)
            raise LeafError(f"internal error: unknown leaf payload {type(payload).__name__}", retriable=False)
        except LeafError:
            raise
        except SwiftRuntimeError as e:
            raise LeafError(e.message, retriable=False) from None
        except Exception as e:  # a task's exception must never escape the worker loop
            raise LeafError(
                f"internal error in a leaf task ({type(e).__name__}: {e}); please report it",
                retriable=False,
            ) from None

    def terminate(self) -> None:
        """The worker is being terminated: kill the apps running now (safe in a signal handler)."""
        self.apps.terminate_running()

    def before_retry(self) -> None:
        """A task's later attempt is about to run: an earlier one may have been lost with its
        worker, leaving temporaries that a fresh look must find."""
        self.publisher.forget_listings()

    def _run_app_task(self, spec: AppSpec) -> AppPhases:
        phases = AppPhases()
        try:
            if spec.staging is not None:
                run_staged(spec, spec.staging, self._store(spec.staging), self._run_app, phases)
            else:
                bytes_in = self._input_bytes(spec.inputs, spec.cwd)
                began = time.perf_counter()
                try:
                    phases.digests = self._run_app(spec)
                finally:
                    phases.run_s = time.perf_counter() - began
                    phases.bytes_in = bytes_in()
                phases.bytes_out = _file_bytes(spec.outputs, spec.cwd)
        except LeafError as e:
            e.phases = phases.record()
            raise
        return phases

    def _input_bytes(self, paths: Iterable[str], cwd: str | None) -> Callable[[], int]:
        """The total size of a task's inputs (as `_file_bytes`), to be read when its app has run:
        many inputs are sized on threads meanwhile."""
        distinct = list(dict.fromkeys(paths))
        if len(distinct) <= SIZE_ON_THREADS_ABOVE:
            total = _file_bytes(distinct, cwd)
            return lambda: total
        if self._sizers is None:
            # Imported here: with the logging it brings, 3.5 ms of every worker's start, for a
            # task with many inputs.
            from concurrent.futures import ThreadPoolExecutor

            self._sizers = ThreadPoolExecutor(SIZE_THREADS, thread_name_prefix="input-size")
        sizes = self._sizers.map(lambda path: _file_bytes((path,), cwd), distinct)  # submitted now
        return lambda: sum(sizes)

    def _run_app(self, spec: AppSpec) -> dict[str, str]:
        return self.apps.run(spec, self.publisher)

    def _store(self, plan: StagingPlan) -> Any:
        """The store adapter of a staging plan, opened once per process (the driver checked it)."""
        key = (plan.storage, plan.config_path)
        if key not in self._stores:
            from storage_adapters import StorageError, open_storage

            try:
                self._stores[key] = open_storage(plan.storage, plan.config_path, checked=True)
            except StorageError as e:
                raise LeafError(f"staging in failed: {e}", retriable=True) from None
        return self._stores[key]

    def _run_builtin(self, call: BuiltinCall) -> Any:
        builtin = self._builtins.get(call.name)
        if builtin is None or self._make_context is None:
            raise LeafError(f"internal error: unknown builtin '{call.name}'", retriable=False)
        context = self._make_context(script_args=list(call.script_args), script_path=call.script_path,
                                     python_namespace=self._namespace, publisher=self.publisher, rng=self._random())
        return builtin(context, *call.args)

    def _random(self) -> random.Random:
        if self._rng is None or self._rng[0] != os.getpid():
            self._rng = (os.getpid(), random.Random())
        return self._rng[1]


def _file_bytes(paths: Iterable[str], cwd: str | None) -> int:
    """Total size of the distinct files that exist among `paths` (relative ones under `cwd`;
    an app need not write every output)."""
    total = 0
    for path in dict.fromkeys(paths):
        try:
            total += os.stat(os.path.join(cwd or "", path)).st_size
        except OSError:
            pass
    return total
