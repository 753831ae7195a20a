"""Attributes of directories as the manager last gave them, kept as long as the kernel may cache them.

The kernel forgets a directory's attributes each time it creates or removes a name in it, and
asks again at the next path walk (its permission check needs them): one manager request per
file created. Those questions are answered here while the answer is younger than the mount's
attribute timeout, as the kernel would have answered them itself had it not changed the
directory. Every change this client makes to a directory replaces or drops its entry, so its
own changes show at once; other clients' show within the timeout, as through the kernel's cache.
"""

from __future__ import annotations

import stat
from typing import Any

from mosastore.client.fresh import FreshEntries

# Entries kept before the stale ones are dropped.
LIMIT = 4096


class DirectoryAttributes:
    """Fresh attributes of directories, by inode."""

    def __init__(self, timeout: float) -> None:
        self._entries: FreshEntries[int, dict[str, Any]] = FreshEntries(timeout, LIMIT)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, ino: int) -> dict[str, Any] | None:
        return self._entries.get(ino)

    def put(self, attrs: dict[str, Any]) -> None:
        """Keep `attrs` if they are a directory's."""
        if stat.S_ISDIR(attrs["mode"]):
            self._entries.put(attrs["ino"], attrs)

    def drop(self, *inodes: int) -> None:
        self._entries.drop(*inodes)
