"""The record that describes one library function, and the table that collects them.

Each library module builds a `Table` and decorates its implementations with
`table.define(names, *overloads)`; the package `__init__` merges the tables
into the `BUILTINS` registry the type checker and the runtime read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

Impl = Callable[..., Any]
F = TypeVar("F", bound=Impl)


class Builtin(NamedTuple):
    """One callable library name.

    - `overloads`: signatures in `engine.lang.types.parse_signature` notation,
      tried in order (int versions before float ones).
    - `impl(ctx, *args)`: computes the single result (`None` for void).
    - `module`: `None` if always visible, else the standard module that exposes it.
    - `where`: `"engine"` runs inline on the engine; `"worker"` is shipped to a
      worker process as a `BuiltinCall` (slow or blocking calls).
    - `reads_content`: reads its file argument's bytes (a store file is fetched
      first; a `url` is refused at compile time, §13).
    """

    name: str
    overloads: tuple[str, ...]
    impl: Impl
    module: str | None = None
    where: str = "engine"
    reads_content: bool = False


class Table:
    """Builtins that share one visibility (`module`); a library file may keep several."""

    def __init__(self, module: str | None) -> None:
        self.module = module
        self.entries: list[Builtin] = []

    def define(
        self, names: str | tuple[str, ...], *overloads: str, where: str = "engine", reads_content: bool = False
    ) -> Callable[[F], F]:
        """Register the decorated function under every name in `names` (aliases share it)."""
        all_names = (names,) if isinstance(names, str) else names

        def register(impl: F) -> F:
            for name in all_names:
                self.entries.append(Builtin(name, tuple(overloads), impl, self.module, where, reads_content))
            return impl

        return register
