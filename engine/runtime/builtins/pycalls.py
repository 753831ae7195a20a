"""The `python` module: `python` runs on a worker in a fresh namespace;
`python_persist` runs on the engine, so that its one namespace really is one
for the whole run (LANGUAGE.md §5.5) whatever the number of workers."""

from __future__ import annotations

from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.task.pyleaf import new_namespace, run_code

PYTHON = Table("python")
TABLES = (PYTHON,)

# The expression's default is the Python source `""` (an empty string).
_SIGNATURE = "(string code, string expr='\"\"', boolean exceptions_are_errors=True) -> string"


@PYTHON.define("python", _SIGNATURE, where="worker")
def python(ctx: BuiltinContext, code: str, expr: str = '""', exceptions_are_errors: bool = True) -> str:
    """Run in a fresh namespace."""
    return run_code(code, expr, new_namespace(), exceptions_are_errors=exceptions_are_errors)


@PYTHON.define("python_persist", _SIGNATURE, where="engine")
def python_persist(
    ctx: BuiltinContext, code: str, expr: str = '""', exceptions_are_errors: bool = True
) -> str:
    """Run in the engine's one shared namespace."""
    return run_code(code, expr, ctx.python_namespace, exceptions_are_errors=exceptions_are_errors)
