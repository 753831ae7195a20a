"""Counting a file's changes while it is being written, so that publishing it marks as
published only the changes it carried.

A FUSE client publishes a file when a descriptor of it is closed, but an app may still be
writing through another descriptor (its worker closed the file first), and the upload runs
while further writes arrive. A flag cleared after the upload would lose those writes; a
count compared with the count the upload started from does not.
"""

from __future__ import annotations


class Edits:
    """Mixin for a pending file with `edits` (changes so far) and `published` (how many of
    them the store has) attributes."""

    edits: int
    published: int

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
