"""What a builtin may ask of the runtime that calls it.

`BuiltinContext` is the protocol the dataflow runtime implements; `SimpleContext`
is a small concrete version used on worker processes and in tests.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
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


@dataclass
class SimpleContext:
    """A self-contained `BuiltinContext`: stdout goes to `stdout` (default `sys.stdout`)."""

    script_args: list[str] = field(default_factory=list)
    script_path: str = ""
    rng: random.Random = field(default_factory=random.Random)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    temp_dir: str | None = None
    stdout: TextIO | None = None
    worker_count: int = 1
    python_namespace: dict[str, Any] = field(default_factory=new_namespace)
    publisher: Publisher = field(default_factory=Publisher)

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
