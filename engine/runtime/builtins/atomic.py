"""Atomic file creation: write to a hidden temporary name beside the target, then rename.

Readers never see a half-written file, and a failed writer leaves no partial
target behind. Temporary files get the normal permissions (0666 minus umask),
unlike `tempfile.mkstemp`'s 0600.
"""

from __future__ import annotations

import contextlib
import os
import uuid


def temp_beside(target: str) -> str:
    """A fresh hidden path in the target's directory (created, empty); parents made."""
    directory, name = os.path.split(os.path.abspath(target))
    while True:
        candidate = os.path.join(directory, f".{name}.{uuid.uuid4().hex[:12]}.part")
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return candidate
        except FileExistsError:
            continue
        except FileNotFoundError:
            # Parents are made only when missing: one system call per file, not two.
            os.makedirs(directory, exist_ok=True)


def commit(temp: str, target: str) -> None:
    """Move a finished temporary file onto its target (atomic on one filesystem)."""
    os.replace(temp, target)


def discard(temp: str) -> None:
    """Remove a temporary file if it is still there."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(temp)


def write_atomic(target: str, data: bytes) -> None:
    """Create or replace `target` with exactly `data`."""
    temp = temp_beside(target)
    try:
        with open(temp, "wb") as out:
            out.write(data)
        commit(temp, target)
    except BaseException:
        discard(temp)
        raise
