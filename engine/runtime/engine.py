"""The engine: runs a compiled program to completion (Turbine's engine rank).

It creates the globals, starts the top-level statements and `main`, then
loops: run everything ready; when nothing is, hand buffered tasks to the
scheduler and wait for completions; when nothing is outstanding either, the
program is finished — or deadlocked, if statements still wait, which is
reported with the variables they wait for. A run-time error stops the run:
nothing new starts, running tasks are killed, exit status 1.
"""

from __future__ import annotations

import os
import random
import resource
import sys
from typing import Any, Callable, Optional, Sequence

from engine.errors import SwiftRuntimeError
from engine.lang.ir import Program
from engine.observe.runlog import RunLog
from engine.runtime import futures, values
from engine.runtime.env import Env
from engine.runtime.files import TempFiles
from engine.runtime.futures import PENDING, READY
from engine.runtime.interp import Interpreter, countdown
from engine.runtime.store import open_files
from engine.runtime.loops import ForeachRun
from engine.runtime.resume import TaskCache
from engine.runtime.values import new_value
from engine.scheduler.task import Completion, Task

OUTPUT_FLUSH_LINES = 512
# Evaluating a statement recurses once per level of its nesting (as the compiler
# does, see engine.lang.deep_stack); the engine runs on the main thread, whose
# stack grows on demand up to RLIMIT_STACK, so both are raised for deep programs.
RUN_RECURSION_LIMIT = 50_000
RUN_STACK_BYTES = 512 << 20


class EngineContext:
    """What builtins running on the engine may use (`BuiltinContext`)."""

    def __init__(self, engine: "Engine", script_path: str, script_args: Sequence[str]) -> None:
        self.engine = engine
        self.script_path = script_path
        self.script_args = list(script_args)
        self.rng = random.Random()
        self.environ = os.environ

    @property
    def worker_count(self) -> int:
        return self.engine.workers

    def write_stdout(self, text: str) -> None:
        self.engine.write_output(text)

    def temp_path(self) -> str:
        path = self.engine.temp.new_path()
        self.engine.fresh_files.add(path)
        return path

    def glob(self, pattern: str) -> list[str]:
        return self.engine.files.glob(pattern)


class Engine(Interpreter):
    """One run of one program."""

    def __init__(self, program: Program, *, workers: int = 2, script_args: Sequence[str] = (),
                 run_log: Optional[RunLog] = None, progress: Optional[Any] = None,
                 scheduler_factory: Optional[Callable[[], Any]] = None,
                 app_retries: Optional[int] = None, storage: Optional[str] = None,
                 storage_config: Optional[str] = None, nodes: Optional[Sequence[str]] = None,
                 task_walltime: Optional[float] = None) -> None:
        futures.reset()
        self.program = program
        self.workers = workers
        self.nodes = nodes
        self.temp = TempFiles()
        self.files = open_files(storage, storage_config, self.temp)
        values.FILES = self.files
        self.fresh_files: set[str] = set()
        self.ctx = EngineContext(self, program.path, script_args)
        self.run_log = run_log
        self.progress = progress
        self.scheduler_factory = scheduler_factory
        self.scheduler: Any = None
        self.callbacks: dict[int, Callable[[Completion], None]] = {}
        self.next_task_id = 1
        self.parked: list[ForeachRun] = []
        self.output: list[str] = []
        self.app_retries = app_retries if app_retries is not None else _env_int(
            "SWIFTCLOUD_APP_RETRIES", _env_int("TURBINE_APP_RETRIES_LOCAL", 0))
        self.task_walltime = task_walltime  # default limit of an app without @walltime
        self.task_cache: Optional[TaskCache] = None  # keys app tasks for the restart log and --resume
        self.globals_env = Env()
        self.finished = False
        self.tasks_submitted = 0
        self.tasks_done = 0

    # ------------------------------------------------------------ services for the interpreter

    def write_output(self, text: str) -> None:
        self.output.append(text)
        if len(self.output) >= OUTPUT_FLUSH_LINES:
            self.flush_output()

    def flush_output(self) -> None:
        if self.output:
            sys.stdout.write("".join(self.output))
            self.output.clear()
        sys.stdout.flush()

    def submit(self, task: Task, callback: Callable[[Completion], None]) -> None:
        task.id = self.next_task_id
        self.next_task_id += 1
        self.callbacks[task.id] = callback
        if self.scheduler is None:
            self.flush_output()
            self.scheduler = (self.scheduler_factory() if self.scheduler_factory
                              else _default_scheduler(self.workers, self.files.locations, self.nodes,
                                                      self.run_log))
        self.scheduler.submit(task)
        self.tasks_submitted += 1
        if self.run_log is not None:
            self.run_log.task_submitted(task)
        if self.progress is not None:
            self.progress.total(self.tasks_submitted)

    def reuse(self, task: Task, callback: Callable[[Completion], None]) -> None:
        """Complete `task` from an earlier run's success (`--resume`) without running it."""
        task.id = self.next_task_id
        self.next_task_id += 1
        self.tasks_submitted += 1
        if self.run_log is not None:
            self.run_log.task_reused(task)
        if self.progress is not None:
            self.progress.total(self.tasks_submitted)
            self.progress.advance()
        self.tasks_done += 1
        READY.append(lambda: callback(Completion(task.id, ok=True, extra={"reused": True})))

    def park(self, loop: ForeachRun) -> None:
        self.parked.append(loop)

    def unpark(self, loop: ForeachRun) -> None:
        if loop in self.parked:
            self.parked.remove(loop)

    # ------------------------------------------------------------ running

    def run(self) -> None:
        """Run to completion; raises SwiftRuntimeError on a run-time error or deadlock."""
        checked = self.program.checked
        _room_to_recurse()
        try:
            self._start(checked)
            self._loop()
        except RecursionError:
            raise SwiftRuntimeError("the program is nested too deeply to run: split its longest expression"
                                    " or its deepest nesting of blocks") from None
        finally:
            self.flush_output()
            if self.scheduler is not None:
                self.scheduler.close(kill=not self.finished)
            self.close_files()

    def close_files(self) -> None:
        """Close the run's store and remove its unmapped temporaries."""
        self.files.close()
        self.temp.cleanup()

    def _start(self, checked: Any) -> None:
        main = checked.main
        parts = 2 if main is not None else 1
        finish = countdown(parts, self._finished)
        bindings = self.globals_env.vars
        for sym in checked.global_vars:
            bindings[sym] = new_value(sym.type, sym.name, mapped=sym.mapped)
        self.start_statements(checked.statements, self.globals_env, finish)
        if main is not None:
            READY.append(lambda: self.run_block(main.node.body, Env(self.globals_env), finish))
        for sym in checked.global_vars:
            value = bindings[sym]
            if isinstance(value, futures.Container):
                value.decr()

    def _finished(self) -> None:
        self.finished = True

    def _loop(self) -> None:
        ready = READY
        while True:
            while ready:
                ready.popleft()()
            if self.scheduler is not None and self.scheduler.outstanding():
                self.flush_output()
                if self.run_log is not None:
                    self.run_log.flush()  # what is logged survives a crash while we wait
                for completion in self.scheduler.poll(None):
                    self._complete(completion)
                continue
            if self.parked:
                for loop in list(self.parked):
                    loop.resume()
                continue
            break
        if not self.finished:
            raise SwiftRuntimeError(deadlock_report())

    def _complete(self, c: Completion) -> None:
        self.tasks_done += 1
        if self.run_log is not None:
            self.run_log.task_finished(c)
        if self.progress is not None:
            self.progress.advance()
        self.callbacks.pop(c.task_id)(c)


def deadlock_report(limit: int = 12) -> str:
    """Describe what still waits, for the deadlock error: statements waiting on
    named variables first (temporaries only when nothing named is waiting)."""
    named: list[str] = []
    anonymous: list[str] = []
    for join in list(PENDING.values()):
        node = join.node
        where = f"{node.file}:{node.line}" if node is not None and node.line else "(unknown place)"
        open_values = [x for x in join.awaited if not x.closed]
        names = sorted({x.name for x in open_values if getattr(x, "name", "")})
        if names:
            named.append(f"  {where}: waiting for {', '.join(names)}")
        elif open_values:
            anonymous.append(f"  {where}: waiting for a value computed elsewhere")
    entries = list(dict.fromkeys(named or anonymous))
    lines = ["deadlock: nothing can run while statements still wait"] + entries[:limit]
    if len(entries) > limit:
        lines.append(f"  ... and {len(entries) - limit} more")
    return "\n".join(lines)


def _room_to_recurse() -> None:
    """Raise the recursion limit, and the stack limit it needs, for this process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    wanted = RUN_STACK_BYTES if hard == resource.RLIM_INFINITY else min(hard, RUN_STACK_BYTES)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_STACK, (wanted, hard))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RUN_RECURSION_LIMIT))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _default_scheduler(workers: int, locate: Callable[[str], list[str]],
                       nodes: Optional[Sequence[str]], run_log: Optional[RunLog]) -> Any:
    from engine.scheduler.dispatch import Scheduler
    return Scheduler(workers, locate=locate, nodes=nodes,
                     on_dispatch=run_log.tasks_dispatched if run_log is not None else None)

