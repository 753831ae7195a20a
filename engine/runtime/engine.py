"""The engine: runs a compiled program to completion (Turbine's engine rank).

It creates the globals, starts the top-level statements and `main`, then
loops: run everything ready; when nothing is, hand buffered tasks to the
scheduler and wait for completions; when nothing is outstanding either, the
program is finished — or deadlocked, if statements still wait, which is
reported with the variables they wait for. A struct copy still to pass on a
field that never closed is no statement waiting: if nothing reads that field,
the run ends normally (§13). A run-time error stops the run:
nothing new starts, running tasks are killed, exit status 1.
"""

from __future__ import annotations

import resource
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence

from engine.errors import SwiftRuntimeError
from engine.lang.ir import Program
from engine.observe.runlog import RunLog
from engine.runtime.collection import RunCollection
from engine.runtime.env import Env
from engine.runtime.futures import Container, Dataflow, countdown
from engine.runtime.interp import Interpreter
from engine.runtime.run import Run
from engine.runtime.values import new_value
from engine.task.contract import Completion, Task

if TYPE_CHECKING:
    from engine.task.run import TaskRunner

# Evaluating a statement recurses once per level of its nesting (as the compiler
# does, see engine.lang.deep_stack); the engine runs on the main thread, whose
# stack grows on demand up to RLIMIT_STACK, so both are raised for deep programs.
RUN_RECURSION_LIMIT = 50_000
RUN_STACK_BYTES = 512 << 20


class Engine:
    """Executes one `Run`: its interpreter runs the statements, its scheduler the tasks."""

    def __init__(self, run: Run, scheduler_factory: Optional[Callable[[], Any]] = None) -> None:
        self.run = run
        self.interp = Interpreter(run, self)
        self.scheduler_factory = scheduler_factory
        self.scheduler: Any = None
        self.callbacks: dict[int, Callable[[Completion], None]] = {}
        self.next_task_id = 1
        self.parked: list[Any] = []  # foreach loops waiting for their iterations to drain
        self.finished = False
        self.tasks_submitted = 0
        self.tasks_done = 0
        self.collector = RunCollection()

    # ------------------------------------------------------------ services for the interpreter

    def submit(self, task: Task, callback: Callable[[Completion], None]) -> None:
        run = self.run
        task.id = self.next_task_id
        self.next_task_id += 1
        self.callbacks[task.id] = callback
        if self.scheduler is None:
            run.flush_output()
            self.scheduler = (self.scheduler_factory() if self.scheduler_factory
                              else _default_scheduler(run.workers, run.files.locations, run.nodes, run.mpi_world,
                                                      run.run_log, run.program.library_calls))
        self.scheduler.submit(task)
        self.tasks_submitted += 1
        if run.run_log is not None:
            run.run_log.task_submitted(task)
        if run.progress is not None:
            run.progress.total(self.tasks_submitted)

    def reuse(self, task: Task, callback: Callable[[Completion], None], digests: dict[str, str]) -> None:
        """Complete `task` from an earlier run's success (`--resume`) without running it; its
        outputs have the `digests` that run recorded."""
        run = self.run
        task.id = self.next_task_id
        self.next_task_id += 1
        self.tasks_submitted += 1
        if run.run_log is not None:
            run.run_log.task_reused(task, digests)
        if run.progress is not None:
            run.progress.total(self.tasks_submitted)
            run.progress.advance()
        self.tasks_done += 1
        extra = {"reused": True, "digests": digests}
        run.flow.ready.append(lambda: callback(Completion(task.id, ok=True, extra=extra)))

    def park(self, loop: Any) -> None:
        self.parked.append(loop)

    def unpark(self, loop: Any) -> None:
        if loop in self.parked:
            self.parked.remove(loop)

    # ------------------------------------------------------------ running

    def execute(self) -> None:
        """Run to completion; raises SwiftRuntimeError on a run-time error or deadlock."""
        _room_to_recurse()
        self.collector.start()
        try:
            self._start(self.run.program)
            self._loop()
        except RecursionError:
            raise SwiftRuntimeError("the program is nested too deeply to run: split its longest expression"
                                    " or its deepest nesting of blocks") from None
        finally:
            self.collector.stop()
            self.run.flush_output()
            if self.scheduler is not None:
                self.scheduler.close(kill=not self.finished)
            self.run.close_files()

    def _start(self, program: Program) -> None:
        main = program.main.body if program.main is not None else None
        parts = 2 if main is not None else 1
        finish = countdown(parts, self._finished)
        run, interp = self.run, self.interp
        bindings = run.globals_env.vars
        for sym in program.global_vars:
            bindings[sym] = new_value(sym.type, sym.name, mapped=sym.mapped)
        interp.start_statements(program.statements, run.globals_env, finish)
        if main is not None:
            run.flow.ready.append(lambda: interp.run_block(main, Env(run.globals_env), finish))
        for sym in program.global_vars:
            value = bindings[sym]
            if isinstance(value, Container):
                value.decr()

    def _finished(self) -> None:
        self.finished = True

    def _loop(self) -> None:
        run = self.run
        ready = run.flow.ready
        while True:
            while ready:
                ready.popleft()()
            if self.scheduler is not None and self.scheduler.outstanding():
                run.flush_output()
                if run.run_log is not None:
                    run.run_log.flush()  # what is logged survives a crash while we wait
                for completion in self.scheduler.poll(None):
                    self._complete(completion)
                continue
            if self.parked:
                for loop in list(self.parked):
                    loop.resume()
                continue
            break
        if not self.finished:
            flow = run.flow
            if flow.pending or not flow.forwards:
                raise SwiftRuntimeError(deadlock_report(flow))
            # Only struct copies are left unfinished, each still to pass on a field that
            # never closed, and no statement waits for those fields (§13): the run is over.
            self.finished = True

    def _complete(self, c: Completion) -> None:
        run = self.run
        self.tasks_done += 1
        if run.run_log is not None:
            run.run_log.task_finished(c)
        if run.progress is not None:
            run.progress.advance()
        self.callbacks.pop(c.task_id)(c)


def deadlock_report(flow: Dataflow, limit: int = 12) -> str:
    """Describe what still waits, for the deadlock error: statements waiting on
    named variables first (temporaries only when nothing named is waiting)."""
    named: list[str] = []
    anonymous: list[str] = []
    for join in list(flow.pending.values()):
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


def _default_scheduler(workers: int, locate: Callable[[str], list[str]], nodes: Optional[Sequence[str]],
                       mpi_world: Any, run_log: Optional[RunLog], library_calls: Iterable[str]) -> Any:
    from engine.scheduler.dispatch import Scheduler

    return Scheduler(workers, runner=task_runner(library_calls),
                     transport="mpi" if mpi_world is not None else "local", world=mpi_world,
                     locate=locate, nodes=nodes,
                     on_dispatch=run_log.tasks_dispatched if run_log is not None else None)


def task_runner(library_calls: Iterable[str]) -> TaskRunner:
    """The task runner that travels to a run's workers: with the implementations of the worker
    builtins among the program's `library_calls`, and their context only if there are some (it
    brings the whole library with it, which a worker rank of a program of apps alone spares)."""
    from engine.runtime.builtins import worker_builtins
    from engine.runtime.builtins.context import SimpleContext
    from engine.task.run import TaskRunner

    builtins = worker_builtins(library_calls)
    return TaskRunner(builtins, SimpleContext if builtins else None)
