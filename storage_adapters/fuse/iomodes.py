"""How the kernel lets a file of ours be opened, inode by inode, and what we answered so far.

Since Linux 6.9 an inode's open files are either all read through the page cache (cached), or
all passed through to one and the same local backing file; an open that breaks the rule fails
with EIO. Direct I/O (no page cache, every read and write a request to us) goes with cached
files only.
`IoModes` counts the open files of each mode per inode, so a file system answers every open
with a mode the kernel accepts.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Mode(enum.Enum):
    CACHED = "cached"
    PASSTHROUGH = "passthrough"
    DIRECT = "direct"


@dataclass
class _Opens:
    cached: int = 0
    passthrough: int = 0
    backing: int | None = None  # what the passed-through files use


class IoModes:
    """Open files per inode and mode (see the module docstring)."""

    def __init__(self) -> None:
        self._inodes: dict[int, _Opens] = {}

    def can_pass_through(self, inode: int, backing: int | None) -> bool:
        """May a file of `inode` be passed through to `backing` (None: a backing not yet used)?"""
        opens = self._inodes.get(inode)
        if opens is None:
            return True
        if opens.cached:
            return False
        if backing is None:
            return opens.passthrough == 0
        return opens.passthrough == 0 or opens.backing == backing

    def can_cache(self, inode: int) -> bool:
        opens = self._inodes.get(inode)
        return opens is None or opens.passthrough == 0

    def passed_through(self, inode: int, backing: int) -> bool:
        """Has the kernel files of `inode` open, passed through to `backing`?"""
        opens = self._inodes.get(inode)
        return opens is not None and opens.passthrough > 0 and opens.backing == backing

    def opened(self, inode: int, mode: Mode, backing: int | None = None) -> None:
        if mode is Mode.DIRECT:
            return
        opens = self._inodes.setdefault(inode, _Opens())
        if mode is Mode.CACHED:
            opens.cached += 1
        else:
            opens.passthrough += 1
            opens.backing = backing

    def closed(self, inode: int, mode: Mode) -> None:
        opens = self._inodes.get(inode)
        if opens is None or mode is Mode.DIRECT:
            return
        if mode is Mode.CACHED:
            opens.cached -= 1
        else:
            opens.passthrough -= 1
            if opens.passthrough == 0:
                opens.backing = None
        self._forget_if_idle(inode, opens)

    def _forget_if_idle(self, inode: int, opens: _Opens) -> None:
        if opens.cached <= 0 and opens.passthrough <= 0:
            del self._inodes[inode]
