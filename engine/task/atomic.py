"""Atomic file creation: write to a hidden temporary name beside the target, then rename.

Readers never see a half-written file, and a failed writer leaves no partial
target behind. Temporary files get the normal permissions (0666 minus umask),
unlike `tempfile.mkstemp`'s 0600. A `Publisher` commits temporaries into place
and removes what interrupted writers of the same target left beside it; each
process that publishes (a worker, a run's engine) keeps one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import BinaryIO

from hostkit.private_names import PART_NAME, part_name, part_name_keeping_extension


def open_beside(target: str) -> tuple[str, BinaryIO]:
    """A fresh hidden path in the target's directory, created and open for writing; parents
    made. Writing through the file it was created with spares a mount a version of it: each
    close publishes the file to the store, the empty one too."""
    directory, name = os.path.split(os.path.abspath(target))
    while True:
        candidate = os.path.join(directory, part_name(name))
        try:
            return candidate, open(candidate, "xb")
        except FileExistsError:
            continue
        except FileNotFoundError:
            # Parents are made only when missing: one system call per file, not two.
            os.makedirs(directory, exist_ok=True)


def name_beside(target: str) -> str:
    """A fresh hidden path beside `target` that keeps its extension (`out.jpg` ->
    `.out.<hex>.part.jpg`), for a program that picks its format by the name. Not
    created: the program creates it; its directory is made."""
    directory, name = os.path.split(os.path.abspath(target))
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, part_name_keeping_extension(name))


class Publisher:
    """Moves finished temporaries onto their targets, cleaning up after interrupted writers.

    It remembers, per directory, the temporaries found there when it first published
    into it, by the target they were for: listed once per directory, so publishing n
    files costs n renames, not n listings; temporaries that appear later belong to
    writers running now and are left alone.
    """

    def __init__(self) -> None:
        self._stale_by_directory: dict[str, dict[str, list[str]]] = {}

    def commit(self, temp: str, target: str) -> None:
        """Move a finished temporary file onto its target (atomic on one filesystem), and
        remove what interrupted writers of the same target left beside it."""
        os.replace(temp, target)
        self.remove_stale_beside(target)

    def forget_listings(self) -> None:
        """List directories afresh at the next publish: temporaries that appeared since are
        stale too (an attempt lost with its worker left them; its retry publishes now)."""
        self._stale_by_directory.clear()

    def remove_stale_beside(self, target: str) -> None:
        """Remove the temporaries of `target` (both shapes above) that crashed or killed
        writers left behind before this publisher first published into its directory."""
        directory, name = os.path.split(os.path.abspath(target))
        stale = self._stale_by_directory.get(directory)
        if stale is None:
            stale = self._stale_by_directory[directory] = _temporaries_in(directory)
        for temp in stale.pop(name, ()):
            discard(os.path.join(directory, temp))

    def write(self, target: str, data: bytes) -> None:
        """Create or replace `target` with exactly `data`."""
        temp, out = open_beside(target)
        try:
            with out:
                out.write(data)
            self.commit(temp, target)
        except BaseException:
            discard(temp)
            raise


def _temporaries_in(directory: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    try:
        names = os.listdir(directory)
    except OSError:
        return found
    for entry in names:
        match = PART_NAME.fullmatch(entry)
        if match:
            head, ext = match.group("head"), match.group("ext") or ""
            found.setdefault(head, []).append(entry)       # `.NAME.<hex>.part`
            if ext:
                found.setdefault(head + ext, []).append(entry)  # `.STEM.<hex>.part.EXT`
    return found


def discard(temp: str) -> None:
    """Remove a temporary file if it is still there, as well as can be: it is cleanup after a
    failure, whose report must not be replaced by another (a store's mount that went away
    answers ENOTCONN); a temporary left behind is hidden, and removed by the next publisher
    into its directory."""
    with contextlib.suppress(OSError):
        if os.path.isdir(temp) and not os.path.islink(temp):
            shutil.rmtree(temp, ignore_errors=True)
        else:
            os.remove(temp)
