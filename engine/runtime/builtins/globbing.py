"""Tcl-style glob patterns on top of Python's `glob`: braces and backslash escapes.

Tcl's `glob` understands `* ? [chars] {a,b} \\x`. Python's `glob` has the
first three; braces are expanded here first (nested ones too), and `\\x`
becomes a bracket escape that Python reads as a literal `x`. `tcl_glob`
matches the local file system; `store_glob` the logical paths of a store
(`--storage`), one path component at a time through the adapter's listing.
"""

from __future__ import annotations

import fnmatch
import glob as pyglob
import posixpath
from typing import TYPE_CHECKING

from engine.errors import SwiftRuntimeError

if TYPE_CHECKING:
    from storage_adapters.base import StorageAdapter

# The engine's own area in a store (temporary and imported files): not user data.
STORE_INTERNAL = "_swiftcloud"


def _matching_brace(pattern: str, open_at: int) -> int:
    """Index of the `}` closing the `{` at `open_at`, or -1."""
    depth, i = 0, open_at
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split_alternatives(body: str) -> list[str]:
    """Split a brace body at its top-level, unescaped commas."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return parts


def expand_braces(pattern: str) -> list[str]:
    """`a{b,c{d,e}}` -> `ab acd ace`; escapes are kept for `to_python_glob`."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "{":
            close = _matching_brace(pattern, i)
            if close < 0:
                raise SwiftRuntimeError(f"glob(): unmatched open-brace in pattern '{pattern}'")
            head, tail = pattern[:i], pattern[close + 1 :]
            return [
                expanded
                for alternative in _split_alternatives(pattern[i + 1 : close])
                for expanded in expand_braces(head + alternative + tail)
            ]
        i += 1
    return [pattern]


def to_python_glob(pattern: str) -> str:
    """Turn each `\\x` into a pattern that matches a literal `x` in Python's glob."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pyglob.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def tcl_glob(pattern: str) -> list[str]:
    """Paths matching `pattern`, sorted and without duplicates; none is not an error."""
    found: set[str] = set()
    for alternative in expand_braces(pattern):
        found.update(pyglob.glob(to_python_glob(alternative)))
    return sorted(found)


def store_glob(pattern: str, adapter: StorageAdapter) -> list[str]:
    """Logical paths in the store matching `pattern` (relative to the store root),
    sorted and without duplicates; like Python's glob, `*` skips dot-names."""
    found: set[str] = set()
    for alternative in expand_braces(pattern):
        logical = adapter.logical(to_python_glob(alternative))
        if logical:
            found.update(_match_components(adapter, logical.split("/")))
    return sorted(found)


def _match_components(adapter: StorageAdapter, parts: list[str]) -> list[str]:
    from storage_adapters.base import DIRECTORY

    current = [""]  # matched so far: the root
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        matched: list[str] = []
        for directory in current:
            if not pyglob.has_magic(part):  # type: ignore[attr-defined]
                path = posixpath.join(directory, part)
                try:
                    kind = adapter.info(path).type
                except (FileNotFoundError, NotADirectoryError):
                    continue
                if last or kind == DIRECTORY:
                    matched.append(path)
                continue
            try:
                entries = adapter.ls(directory)
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                name = posixpath.basename(entry.path)
                hidden = name.startswith(".") and not part.startswith(".")
                if hidden or (not directory and name == STORE_INTERNAL):
                    continue
                if fnmatch.fnmatchcase(name, part) and (last or entry.type == DIRECTORY):
                    matched.append(entry.path)
        current = matched
    return current

