"""What a builtin may ask of the runtime that calls it.

`BuiltinContext` is the protocol the dataflow runtime implements; `SimpleContext`
is a small concrete version used on worker processes and in tests.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Mapping
from typing import Any, Protocol, TextIO

from engine.runtime.builtins.globbing import tcl_glob
from engine.task.atomic import Publisher
from engine.task.pyleaf import new_namespace


class BuiltinContext(Protocol):
    """The run-time services a builtin implementation uses."""

    script_args: list[str]
    script_path: str
    rng: random.Random
    environ: Mapping[str, str]
    worker_count: int  # worker processes (ranks) of the run
    python_namespace: dict[str, Any]  # python_persist's one namespace
    publisher: Publisher  # puts files written here in place

    def write_stdout(self, text: str) -> None:
        """Write whole line(s) of program output, `text` ending in a newline."""

    def temp_path(self) -> str:
        """Return a fresh unique path (not yet created) for an unmapped file."""

    def glob(self, pattern: str) -> list[str]:
        """Paths matching a Tcl glob pattern where the run's files live (local disk, or
        the store chosen with `--storage`)."""


def default_temp_dir(environ: Mapping[str, str]) -> str:
    """Where unmapped files live: `$SWIFT_TMP`, else `$TMP`, else `/tmp` (spec §5.4)."""
    return environ.get("SWIFT_TMP") or environ.get("TMP") or "/tmp"


class SimpleContext:
    """A self-contained `BuiltinContext`: stdout goes to `stdout` (default `sys.stdout`). (Not a
    dataclass: a worker that runs builtins imports this module, and `dataclasses` with the
    `inspect` it brings would cost it about 10 ms.)"""

    def __init__(self, script_args: list[str] | None = None, script_path: str = "",
                 rng: random.Random | None = None, environ: Mapping[str, str] | None = None,
                 temp_dir: str | None = None, stdout: TextIO | None = None, worker_count: int = 1,
                 python_namespace: dict[str, Any] | None = None, publisher: Publisher | None = None) -> None:
        self.script_args = [] if script_args is None else script_args
        self.script_path = script_path
        self.rng = random.Random() if rng is None else rng
        self.environ = os.environ if environ is None else environ
        self.temp_dir = temp_dir
        self.stdout = stdout
        self.worker_count = worker_count
        self.python_namespace = new_namespace() if python_namespace is None else python_namespace
        self.publisher = Publisher() if publisher is None else publisher

    def write_stdout(self, text: str) -> None:
        """Write `text` in one call and flush, so that lines from workers stay whole."""
        stream = self.stdout if self.stdout is not None else sys.stdout
        stream.write(text)
        stream.flush()

    def temp_path(self) -> str:
        """A unique `.turbine` path in `temp_dir` (or the spec's default directory)."""
        directory = self.temp_dir or default_temp_dir(self.environ)
        return os.path.join(directory, f"swiftcloud-{os.urandom(16).hex()}.turbine")

    def glob(self, pattern: str) -> list[str]:
        """Matches on the local file system."""
        return tcl_glob(pattern)
