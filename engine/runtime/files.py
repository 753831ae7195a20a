"""Where unmapped files live, and how file contents move between paths.

An unmapped file gets a unique new path in `$SWIFT_TMP`, else `$TMP`, else
`/tmp`, ending in `.turbine` (LANGUAGE.md §5.4); those paths are deleted at
exit unless `SWIFT_TMP_AUTODELETE=0`. Copies and moves into a mapped path are
atomic (temporary name in the destination directory, then rename), so a crash
never leaves a half-written file under the name a later run trusts.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import uuid

from engine.errors import SwiftRuntimeError
from hostkit.file_copy import copy_contents


class TempFiles:
    """Allocates and later removes the paths of unmapped files of one run."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.directory = env.get("SWIFT_TMP") or env.get("TMP") or "/tmp"
        self.autodelete = env.get("SWIFT_TMP_AUTODELETE", "1") != "0"
        self.prefix = f"swiftcloud-{os.getpid()}-{uuid.uuid4().hex[:8]}-"
        self.counter = itertools.count(1)
        self.allocated: list[str] = []

    def new_path(self) -> str:
        path = os.path.join(self.directory, f"{self.prefix}{next(self.counter)}.turbine")
        self.allocated.append(path)
        return path

    def cleanup(self) -> None:
        if not self.autodelete:
            return
        for path in self.allocated:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError:
                pass  # best effort: a temp file another process holds open stays
        self.allocated.clear()


def transfer(src: str, dest: str, move: bool = False) -> None:
    """Put the contents of `src` at `dest` atomically (copy, or move when allowed)."""
    directory = os.path.dirname(os.path.abspath(dest))
    try:
        os.makedirs(directory, exist_ok=True)
        if move:
            try:
                os.replace(src, dest)
                return
            except OSError:
                pass  # another file system: fall back to copy + rename
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(dest)}.", suffix=".part", dir=directory)
        try:
            with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
                copy_contents(inp, out)
            shutil.copymode(src, tmp)
            os.replace(tmp, dest)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except FileNotFoundError as e:
        raise SwiftRuntimeError(f"file '{src}' does not exist (needed to write '{dest}')") from e
    except OSError as e:
        raise SwiftRuntimeError(f"could not write file '{dest}': {e.strerror or e}") from e
