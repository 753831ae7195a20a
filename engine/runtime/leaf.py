"""Leaf work as it travels to a worker, and the one entry point that runs it.

The runtime builds an `AppSpec`, `PythonSpec` or `BuiltinCall` (all picklable)
as a Task's payload; a worker calls `run_leaf(payload)`. Every failure comes
out as `LeafError` with a user-facing message: nothing else escapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import SwiftRuntimeError
from engine.runtime.apps import install_terminate_handler, run_app, terminate_running_apps
from engine.runtime.builtins import BUILTINS
from engine.runtime.builtins.atomic import forget_listings
from engine.runtime.builtins.context import SimpleContext
from engine.runtime.pyleaf import run_python
from engine.runtime.staging import StagingPlan, run_staged
from engine.scheduler.task import LeafError
from engine.scheduler.worker import before_retry, on_terminate


@dataclass(frozen=True)
class AppSpec:
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


@dataclass(frozen=True)
class PythonSpec:
    """A `python` / `python_persist` call: statements, then a `str` expression."""

    code: str
    expr: str
    persist: bool
    exceptions_are_errors: bool = True


@dataclass(frozen=True)
class BuiltinCall:
    """A library builtin with `where="worker"`, with what sys functions need."""

    name: str
    args: tuple[Any, ...]
    script_args: tuple[str, ...] = ()
    script_path: str = ""


def run_leaf(payload: AppSpec | PythonSpec | BuiltinCall) -> Any:
    """Run one leaf task and return its value (None for apps); failures raise LeafError."""
    try:
        if isinstance(payload, AppSpec):
            _ensure_app_cleanup()
            if payload.staging is not None:
                run_staged(payload, payload.staging, run_app)
            else:
                run_app(payload)
            return None
        if isinstance(payload, PythonSpec):
            return run_python(payload)
        if isinstance(payload, BuiltinCall):
            return _run_builtin(payload)
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


_app_cleanup_registered = False


def _ensure_app_cleanup() -> None:
    """Make sure a terminated worker takes its running apps down with it: inside
    a scheduler worker through the worker's own SIGTERM handler, elsewhere by
    installing ours (once per process)."""
    global _app_cleanup_registered
    if not _app_cleanup_registered:
        on_terminate(terminate_running_apps)
        before_retry(forget_listings)
        install_terminate_handler()
        _app_cleanup_registered = True


def _run_builtin(call: BuiltinCall) -> Any:
    builtin = BUILTINS.get(call.name)
    if builtin is None:
        raise LeafError(f"internal error: unknown builtin '{call.name}'", retriable=False)
    context = SimpleContext(script_args=list(call.script_args), script_path=call.script_path)
    return builtin.impl(context, *call.args)
