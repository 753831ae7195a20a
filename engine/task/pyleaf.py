"""Python leaf tasks (spec §5.5): run code, then evaluate an expression to a string.

`python` gets a fresh namespace per call; `python_persist` shares one namespace,
which its caller keeps (the run's engine: one for the whole run). The code's own output goes
to program stdout, flushed after every call; an exception prints its traceback
(without our frames) on stderr.
"""

from __future__ import annotations

import linecache
import os
import sys
import traceback
from typing import Any

from engine.task.contract import LeafError, PythonSpec

EXCEPTION_RESULT = "__EXCEPTION__"


def new_namespace() -> dict[str, Any]:
    """A namespace for Python code, as a script's own."""
    return {"__name__": "__main__"}


def run_python(spec: PythonSpec, persistent: dict[str, Any]) -> str:
    """Run a `PythonSpec` (in `persistent` if it persists); see `run_code`."""
    return run_code(spec.code, spec.expr, persistent if spec.persist else new_namespace(),
                    spec.exceptions_are_errors)


def run_code(code: str, expr: str, namespace: dict[str, Any], exceptions_are_errors: bool = True) -> str:
    """exec `code`, eval `expr` (empty means `""`) in `namespace` and return its string value.

    Raises LeafError (not retriable) for an exception in the user's code (unless
    `exceptions_are_errors` is false: then the result is `__EXCEPTION__`) and
    for a result that is not a `str`.
    """
    call = os.urandom(6).hex()  # names the sources in tracebacks; unique without a counter
    sources = {f"<python code {call}>": code, f"<python expr {call}>": expr.strip() or '""'}
    code_name, expr_name = sources
    for name, text in sources.items():
        # Registered so that tracebacks can quote the user's source lines.
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    try:
        exec(compile(code, code_name, "exec"), namespace)
        result = eval(compile(sources[expr_name], expr_name, "eval"), namespace)
    except (Exception, SystemExit) as exc:
        _print_user_traceback(exc)
        if not exceptions_are_errors:
            return EXCEPTION_RESULT
        summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raise LeafError(f"python: exception in Python code: {summary}", retriable=False) from None
    finally:
        for name in sources:
            linecache.cache.pop(name, None)
        sys.stdout.flush()
        sys.stderr.flush()
    if not isinstance(result, str):
        raise LeafError(
            f"python: expression did not return a string (got {type(result).__name__})", retriable=False
        )
    return result


def _print_user_traceback(exc: BaseException) -> None:
    """Print the traceback on stderr, starting below our own `run_code` frame."""
    tb = exc.__traceback__
    if tb is not None and tb.tb_frame.f_code is run_code.__code__:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
