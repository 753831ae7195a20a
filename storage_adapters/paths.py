"""Logical paths: the names files have inside a store, independent of the backend.

A logical path is relative to the store root, uses `/` separators and never
contains `.` or `..` components; the root itself is `""`. `to_logical` is the
one gate every public adapter method passes its paths through, so a path that
escapes the root is refused in one place for every backend.
"""

from __future__ import annotations

import os
import posixpath
import stat
import uuid

from hostkit.private_names import STORE_MARKER, is_private
from storage_adapters.errors import StoragePathError


def to_logical(path: str, root: str | None = None) -> str:
    """Normalize `path` to a logical path, refusing anything outside the store.

    Relative paths are taken from the store root. An absolute path is accepted
    only when it lies under `root` (the directory a shared store is mounted at).
    `..` components are resolved lexically and refused once they climb above
    the root.
    """
    if not isinstance(path, str):
        raise StoragePathError(f"a store path must be a string, not {type(path).__name__}")
    if "\x00" in path:
        raise StoragePathError(f"path {path!r} contains a NUL character")
    relative = path
    if path.startswith("/"):
        if root is None:
            raise StoragePathError(
                f"path {path!r} is absolute; store paths are relative to the store root"
            )
        base = posixpath.normpath(root)
        normalized = posixpath.normpath(path)
        if normalized != base and not normalized.startswith(base.rstrip("/") + "/"):
            raise StoragePathError(f"path {path!r} is outside the store root {root!r}")
        relative = normalized[len(base):]
    parts: list[str] = []
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise StoragePathError(f"path {path!r} escapes the store root")
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def parent(logical: str) -> str:
    """The logical parent directory (`""` for a top-level entry)."""
    return posixpath.dirname(logical)


def temp_sibling(logical: str) -> str:
    """A unique temporary name beside `logical`, hidden from listings."""
    directory, base = posixpath.split(logical)
    return posixpath.join(directory, f".{base}{STORE_MARKER}{uuid.uuid4().hex[:12]}")


def written_as(target: str) -> str:
    """Where a whole new content of `target` is written before it is renamed over `target`:
    a fresh temporary beside it, or `target` itself when it is a temporary already, a store's
    or an app output's (`hostkit.private_names`: only its writer uses that name, and renames
    it once written: one request instead of two)."""
    return target if is_private(target) else temp_sibling(target)


def leads_out(full: str, root: str) -> bool:
    """Whether the file system takes `full`, a path lexically under the directory `root`,
    out of `root` through a symbolic link.

    The components below the root are examined from the top, and the walk stops at the first
    one missing: nothing below it exists, so nothing below can be a link. (On a mounted store
    each lookup is a round trip to its server, and a missing name the dearest: `realpath`
    would look up every component, missing or not.) Only a link met on the way makes the
    whole path resolved and compared with the root's real path.
    """
    relative = os.path.relpath(full, root)
    if relative == os.curdir:
        return False
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return True
    current = root
    for part in relative.split(os.sep):
        current = os.path.join(current, part)
        try:
            mode = os.lstat(current).st_mode
        except OSError:  # missing (or not searchable): nothing can be reached through it
            return False
        if stat.S_ISLNK(mode):
            real_root = os.path.realpath(root)
            real = os.path.realpath(full)
            return real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep)
    return False
