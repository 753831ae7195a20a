"""Answers a client keeps while they are younger than a timeout (the mount's attribute timeout),
as the kernel keeps its own: what `directories` and `plans` answer without asking the manager.
At `limit` entries, a new one first drops the stale ones."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class FreshEntries(Generic[K, V]):
    """Values by key, each answered until it is `timeout` seconds old."""

    def __init__(self, timeout: float, limit: int) -> None:
        self._timeout = timeout
        self._limit = limit
        self._entries: dict[K, tuple[float, V]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        if entry is None or time.monotonic() - entry[0] >= self._timeout:
            return None
        return entry[1]

    def put(self, key: K, value: V) -> None:
        now = time.monotonic()
        if len(self._entries) >= self._limit:
            self._entries = {key: entry for key, entry in self._entries.items() if now - entry[0] < self._timeout}
        self._entries[key] = (now, value)

    def drop(self, *keys: K) -> None:
        for key in keys:
            self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()
