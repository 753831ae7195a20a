"""The `files` module and the always-visible file builtins (`input`, `filename`).

A file value is its path. Builtins that produce a file (`write`, `mktemp`)
create a new one at `ctx.temp_path()` and return that path; the runtime moves
it to wherever the program maps it. Text is UTF-8; undecodable bytes read as
U+FFFD rather than failing.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins import paths
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table

FILES = Table("files")
ALWAYS = Table(None)
TABLES = (FILES, ALWAYS)


def read_text(path: str, caller: str) -> str:
    """The whole file as text, line endings untouched."""
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as stream:
            return stream.read()
    except OSError as e:
        raise SwiftRuntimeError(f"{caller}(): could not read file '{path}': {e.strerror}") from e


@FILES.define("read", "(file) -> string", reads_content=True)
def read(ctx: BuiltinContext, path: str) -> str:
    return read_text(path, "read")


@FILES.define("write", "(string) -> file")
def write(ctx: BuiltinContext, text: str) -> str:
    """A new file holding exactly the UTF-8 bytes of `text`."""
    path = ctx.temp_path()
    try:
        ctx.publisher.write(path, text.encode("utf-8"))
    except OSError as e:
        raise SwiftRuntimeError(f"write(): could not write file '{path}': {e.strerror}") from e
    return path


@FILES.define("glob", "(string) -> file[]")
def glob(ctx: BuiltinContext, pattern: str) -> list[str]:
    return ctx.glob(pattern)


@FILES.define("file_lines", '(file f, string comment="#") -> string[]', reads_content=True)
def file_lines(ctx: BuiltinContext, path: str, comment: str = "#") -> dict[int, str]:
    """Non-empty trimmed lines (comments cut), keyed by 0-based line number in the file."""
    lines: dict[int, str] = {}
    for number, line in enumerate(read_text(path, "file_lines").split("\n")):
        if comment:
            line = line.split(comment, 1)[0]
        line = line.strip()
        if line:
            lines[number] = line
    return lines


@FILES.define("file_exists", "(string) -> boolean")
def file_exists(ctx: BuiltinContext, path: str) -> bool:
    return os.path.exists(path)


@FILES.define("file_size", "(file) -> int", "(string) -> int")
def file_size(ctx: BuiltinContext, path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError as e:
        raise SwiftRuntimeError(f"file_size(): could not read the size of '{path}': {e.strerror}") from e


def _path_piece_builtin(piece: Callable[[str], str]) -> Callable[[BuiltinContext, str], str]:
    def impl(ctx: BuiltinContext, path: str) -> str:
        return piece(path)

    impl.__name__, impl.__doc__ = piece.__name__, piece.__doc__
    return impl


for _piece in (paths.basename, paths.dirname, paths.rootname, paths.extension):
    _impl = _path_piece_builtin(_piece)
    FILES.define(_piece.__name__, "(file) -> string")(_impl)
    FILES.define(_piece.__name__ + "_string", "(string) -> string")(_impl)


def _new_empty_file(ctx: BuiltinContext) -> str:
    path = ctx.temp_path()
    try:
        ctx.publisher.write(path, b"")
    except OSError as e:
        raise SwiftRuntimeError(f"mktemp(): could not create '{path}': {e.strerror}") from e
    return path


@FILES.define("mktemp", "() -> file")
def mktemp(ctx: BuiltinContext) -> str:
    """A new empty temporary file."""
    return _new_empty_file(ctx)


@FILES.define("mktemp_string", "() -> string")
def mktemp_string(ctx: BuiltinContext) -> str:
    """The path of a new empty temporary file."""
    return _new_empty_file(ctx)


@ALWAYS.define(("input", "input_file"), "(string) -> file")
def input_file(ctx: BuiltinContext, path: str) -> str:
    """An existing file, used where it is (not a new file: the runtime must not move it)."""
    if not os.path.exists(path):
        raise SwiftRuntimeError(f"input_file: file '{path}' does not exist")
    return path


@ALWAYS.define("input_url", "(string) -> url")
def input_url(ctx: BuiltinContext, url: str) -> str:
    """A URL as a file-like value: never checked, fetched or staged here (§12)."""
    return url


@ALWAYS.define("filename", "(file) -> string")
def filename(ctx: BuiltinContext, path: str) -> str:
    return path
