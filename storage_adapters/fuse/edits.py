"""Counting a file's changes while it is being written, so that publishing it marks as
published only the changes it carried.

A FUSE client publishes a file when a descriptor of it is closed, but an app may still be
writing through another descriptor (its worker closed the file first), and the upload runs
while further writes arrive. A flag cleared after the upload would lose those writes; a
count compared with the count the upload started from does not.

Writes the kernel makes to the spool itself (passthrough) never reach the client: they show
as a change of the spool's size or times, which `notice_direct_writes` counts as an edit. The
times are exact enough for that: since Linux 6.13 a change that follows a stat() of a file
gets a fine-grained time, whatever the clock's tick.
"""

from __future__ import annotations

import os


class Edits:
    """Mixin for a pending file with `edits` (changes so far) and `published` (how many of
    them the store has) attributes, and its local `spool` (closed once, by `close`)."""

    edits: int
    published: int
    spool: int  # descriptor of the local spool (negative once closed)
    backing: int | None = None  # passthrough id of the spool, when the kernel writes it itself
    _spool_stamp: tuple[int, int, int] | None = None

    @property
    def changed(self) -> bool:
        """Has the file changed since it was last published?"""
        return self.edits != self.published

    @changed.setter
    def changed(self, value: bool) -> None:
        if value:
            self.edits += 1
        else:
            self.published = self.edits

    @property
    def size(self) -> int:
        """The spool's size: it holds the file's bytes, whoever wrote them (we, or the kernel)."""
        return os.fstat(self.spool).st_size if self.spool >= 0 else 0

    def close(self) -> None:
        """Drop the local spool (after the last handle is released); once only, since a second
        close would close whatever reused the descriptor's number."""
        if self.spool >= 0:
            os.close(self.spool)
            self.spool = -1

    def notice_direct_writes(self) -> None:
        """Count a change if the kernel wrote the spool since it was last looked at."""
        if self.backing is None or self.spool < 0:
            return
        status = os.fstat(self.spool)
        stamp = (status.st_size, status.st_mtime_ns, status.st_ctime_ns)
        if stamp != self._spool_stamp:
            if self._spool_stamp is not None:
                self.changed = True
            self._spool_stamp = stamp
