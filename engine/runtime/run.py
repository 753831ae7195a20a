"""One run of one program: everything it owns, in one object (`Run`).

The program (IR), its dataflow (ready queue and pending waits), its file layer
(local disk or a store) and unmapped temporaries, the globals, the run log and
restart cache, the settings (workers, nodes, retries, walltime) and
the program's buffered output, and the MPI job it drives, if any. Nothing of a run lives anywhere else, so two runs
in one process share nothing. The `Engine` executes a Run; builtins on the
engine reach it through `EngineContext`.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any, Optional, Protocol

from engine.lang.ir import Program
from engine.observe.runlog import RunLog
from engine.runtime.env import Env
from engine.runtime.files import TempFiles
from engine.runtime.futures import Dataflow
from engine.runtime.resume import TaskCache
from engine.task.atomic import Publisher
from engine.task.contract import Completion, Task
from engine.task.pyleaf import new_namespace

OUTPUT_FLUSH_LINES = 512


class TaskSink(Protocol):
    """Where the interpreter hands leaf work (the engine, which owns the scheduler)."""

    def submit(self, task: Task, callback: Callable[[Completion], None]) -> None: ...

    def reuse(self, task: Task, callback: Callable[[Completion], None], digests: dict[str, str]) -> None: ...

    def park(self, loop: Any) -> None: ...

    def unpark(self, loop: Any) -> None: ...


class Run:
    """Everything one run of one program owns."""

    def __init__(self, program: Program, files: Any, temp: TempFiles, *, workers: int = 2,
                 script_args: Sequence[str] = (), run_log: Optional[RunLog] = None,
                 task_cache: Optional[TaskCache] = None, progress: Optional[Any] = None,
                 app_retries: Optional[int] = None, task_walltime: Optional[float] = None,
                 mpi_world: Optional[Any] = None, nodes: Optional[Sequence[str]] = None) -> None:
        self.program = program
        self.files = files  # engine.runtime.store: PosixFiles or StoreFiles
        self.temp = temp
        self.workers = workers
        self.run_log = run_log
        self.task_cache = task_cache  # keys app tasks for the restart log and --resume
        self.progress = progress
        self.mpi_world = mpi_world  # this process's MPI job when it runs under MPI (its workers are the ranks)
        self.nodes = nodes
        self.app_retries = app_retries if app_retries is not None else _env_int(
            "SWIFTCLOUD_APP_RETRIES", _env_int("TURBINE_APP_RETRIES_LOCAL", 0))
        self.task_walltime = task_walltime  # default limit of an app without @walltime
        self.flow = Dataflow()
        self.globals_env = Env()
        self.fresh_files: set[str] = set()  # local files builtins just wrote, to move into the store
        self.output: list[str] = []
        self.ctx = EngineContext(self, program.path, script_args)

    def write_output(self, text: str) -> None:
        self.output.append(text)
        if len(self.output) >= OUTPUT_FLUSH_LINES:
            self.flush_output()

    def flush_output(self) -> None:
        if self.output:
            sys.stdout.write("".join(self.output))
            self.output.clear()
        sys.stdout.flush()

    def close_files(self) -> None:
        """Close the run's store and remove its unmapped temporaries."""
        self.files.close()
        self.temp.cleanup()


class EngineContext:
    """What builtins running on the engine may use (`BuiltinContext`)."""

    def __init__(self, run: Run, script_path: str, script_args: Sequence[str]) -> None:
        self.run = run
        self.script_path = script_path
        self.script_args = list(script_args)
        self.rng = random.Random()
        self.environ = os.environ
        self.python_namespace = new_namespace()
        self.publisher = Publisher()

    @property
    def worker_count(self) -> int:
        return self.run.workers

    def write_stdout(self, text: str) -> None:
        self.run.write_output(text)

    def temp_path(self) -> str:
        path = self.run.temp.new_path()
        self.run.fresh_files.add(path)
        return path

    def glob(self, pattern: str) -> list[str]:
        return self.run.files.glob(pattern)


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default
