"""Compiled scripts kept between runs, as Swift/T keeps `.tic` files: a script is not
compiled again while its files and the compiler are unchanged.

An entry is named by a digest of the compiler (the size and modification time of each of
its source files, and the Python version, as Python's own `.pyc` files are checked), the
script's path as given, the include directories and the working directory (an import is
also searched for there). It holds the pickled program, which lists the files the
compilation looked at (`Program.sources`: the script, what it imports and includes, and
each place a search found nothing); it is used only if each of those files is still what
it was (and the places that had none still have none). Only a compilation that
succeeded is kept, written whole (a temporary file renamed into place).

Entries live in `$XDG_CACHE_HOME/swiftcloud/scripts` (else `~/.cache/swiftcloud/scripts`),
made private to the user; a directory that another user could write to is not used, since
loading a pickle runs code. At most `MAX_ENTRIES` are kept, the least recently used going
first. Anything unexpected (an unreadable or stale entry, a full disk) means compiling.
"""

from __future__ import annotations

import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Sequence

from engine.lang import sources
from engine.lang.ir import Program
from hostkit.digests import bytes_digest

MAX_ENTRIES = 256
# The compiler and the standard library it compiles against, under the `engine` package.
COMPILER_PARTS = ("lang", os.path.join("runtime", "builtins"))
COMPILER_FILES = ("errors.py", "script.py", "script_cache.py")
_ENGINE = os.path.dirname(os.path.abspath(__file__))


def directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "swiftcloud", "scripts")


def _private(path: str) -> bool:
    """Is `path` a directory of ours that no one else may write to?"""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()
            and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def compiler_fingerprint() -> str:
    """A digest of the compiler's source files' sizes and modification times."""
    entries: list[str] = [sys.version, str(pickle.HIGHEST_PROTOCOL)]
    paths = [os.path.join(_ENGINE, name) for name in COMPILER_FILES]
    for part in COMPILER_PARTS:
        folder = os.path.join(_ENGINE, part)
        paths += [os.path.join(folder, name) for name in sorted(os.listdir(folder))
                  if name.endswith((".py", ".lark"))]
    for path in paths:
        status = os.stat(path)
        entries.append(f"{path}\0{status.st_size}\0{status.st_mtime_ns}")
    return bytes_digest("\n".join(entries).encode())


def entry_for(path: str, include: Sequence[str]) -> str | None:
    """Where the program compiled from script `path` is kept (None if that cannot be said:
    a working directory that is gone, a compiler source that cannot be read)."""
    try:
        key = "\0".join([compiler_fingerprint(), path, os.getcwd(), *include])
    except OSError:
        return None
    return os.path.join(directory(), bytes_digest(key.encode()).partition(":")[2][:40])


def load(entry: str) -> Program | None:
    """The program kept at `entry` (see `entry_for`), if its files are unchanged; else None."""
    try:
        if not _private(os.path.dirname(entry)):
            return None
        with open(entry, "rb") as handle:
            program = pickle.load(handle)
        if not isinstance(program, Program) or not program.sources:
            return None
        if any(sources.digest_if_file(file) != expected for file, expected in program.sources.items()):
            return None
        os.utime(entry)  # recently used: kept longest
    except Exception:  # noqa: BLE001 - a cache that cannot answer is a cache miss
        return None
    return program


def save(entry: str, program: Program) -> None:
    """Keep `program` at `entry` (see `entry_for`) for the next run of the same script."""
    try:
        folder = os.path.dirname(entry)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not _private(folder):
            return
        blob = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-")
        try:
            with os.fdopen(handle, "wb") as output:
                output.write(blob)
            os.replace(temporary, entry)
        except BaseException:
            os.unlink(temporary)
            raise
        _prune(folder)
    except Exception:  # noqa: BLE001 - not caching never fails a run (deep programs, full disks)
        return


def _prune(folder: str) -> None:
    """Keep the `MAX_ENTRIES` most recently used entries."""
    entries: list[tuple[float, str]] = []
    with os.scandir(folder) as listing:
        for item in listing:
            if not item.name.startswith("."):
                entries.append((item.stat().st_mtime, item.path))
    for _, old in sorted(entries)[:-MAX_ENTRIES]:
        os.unlink(old)
