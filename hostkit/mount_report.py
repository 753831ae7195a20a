"""What a mount's client tells of the store's recent failures: an extended attribute of the mount.

A FUSE client can only give an app an errno (`Input/output error`); why it failed (the server
or node it could not reach, the chunk or block it could not read) stays in its log, on its
node. Our clients keep their last failures and answer them as the attribute
`user.swiftcloud.failures` of any path in the mount, so the worker whose app failed can put
them in the task's error (`engine.task.apps`).
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Callable

FAILURES_XATTR = "user.swiftcloud.failures"
KEPT = 16  # failures a client remembers
SHOWN = 4  # and reports, the most recent ones
RECENT_S = 300.0  # older ones are not reported


class FailureLog:
    """The last failures of one client, as lines 'HH:MM:SS operation: error'."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._entries: collections.deque[tuple[float, str]] = collections.deque(maxlen=KEPT)
        self._clock = clock

    def note(self, operation: str, error: BaseException) -> None:
        self._entries.append((self._clock(), f"{operation}: {error}"))

    def report(self) -> bytes:
        """The recent failures, newest last, each text once (its latest time)."""
        since = self._clock() - RECENT_S
        latest: dict[str, float] = {}
        for when, text in self._entries:
            if when >= since:
                latest.pop(text, None)
                latest[text] = when
        shown = list(latest.items())[-SHOWN:]
        return "\n".join(f"{time.strftime('%H:%M:%S', time.localtime(when))} {text}"
                         for text, when in shown).encode()


def read_failures(path: str) -> str:
    """What the client of the mount holding `path` reports: "" when nothing, when the mount is
    not one of ours, or when it cannot answer (its client gone)."""
    try:
        return os.getxattr(path, FAILURES_XATTR).decode(errors="replace")
    except OSError:
        return ""
