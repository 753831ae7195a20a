"""Local copies of files this mount wrote: the spool of a file, once published, kept (within a
budget of bytes and of open descriptors, least recently used first out) so that the kernel
reads it straight from local disk, passed through, while the store still names the same
version."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

MAX_COPIES = 256  # each holds a descriptor open


@dataclass
class LocalCopy:
    version: Hashable  # the store's name for the version it holds
    spool: int  # descriptor of the local file
    backing: int  # its passthrough id
    size: int


class LocalCopies:
    """Copies by inode, within `budget` bytes; `forget_backing` releases a passthrough id, and
    `in_use` says whether the kernel has files passed through to a copy (those stay: the
    kernel lets no other file serve the inode meanwhile)."""

    def __init__(self, budget: int, forget_backing: Callable[[int], None],
                 in_use: Callable[[int, LocalCopy], bool]) -> None:
        self.budget = budget
        self._forget_backing = forget_backing
        self._in_use = in_use
        self._copies: OrderedDict[int, LocalCopy] = OrderedDict()
        self._bytes = 0

    def keep(self, inode: int, copy: LocalCopy) -> None:
        self.drop(inode)
        self._copies[inode] = copy
        self._bytes += copy.size
        if self._bytes <= self.budget and len(self._copies) <= MAX_COPIES:
            return
        for oldest in [inode for inode, copy in self._copies.items() if not self._in_use(inode, copy)]:
            if self._bytes <= self.budget and len(self._copies) <= MAX_COPIES:
                break
            self.drop(oldest)

    def resized(self, copy: LocalCopy, size: int) -> None:
        self._bytes += size - copy.size
        copy.size = size

    def take(self, inode: int) -> LocalCopy | None:
        """Remove a copy, its file and passthrough id now the caller's."""
        copy = self._copies.pop(inode, None)
        if copy is not None:
            self._bytes -= copy.size
        return copy

    def get(self, inode: int) -> LocalCopy | None:
        copy = self._copies.get(inode)
        if copy is not None:
            self._copies.move_to_end(inode)
        return copy

    def drop(self, inode: int) -> None:
        """Forget a copy (files the kernel has open on it keep reading it)."""
        copy = self.take(inode)
        if copy is not None:
            self._forget_backing(copy.backing)
            os.close(copy.spool)
