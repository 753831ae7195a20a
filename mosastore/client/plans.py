"""Placement plans as the manager last gave them, kept as long as a directory's attributes are.

A file's first upload needs a plan: which benefactors get its chunks. The manager derives it
from the file's own hint or its directory's nearest inherited one, from the writer's node and
from the live benefactors; asking for every file cost each file a manager round trip (a WAN
round trip on the study's cluster, for a writer a region away from the manager). Plans are
kept by (directory, the file's own hint, writer) for the mount's attribute timeout. A hint
this client sets or removes anywhere drops them all (an ancestor's hint is inherited);
other clients' hints show within the timeout, as their other changes to directories do
(`directories`). A benefactor that died meanwhile fails its upload, which goes to a spare
node, as with the manager's plan. A kept plan that stripes over several nodes starts each
file at a node of its own (`placement.for_another_file`), so that small files still spread.
"""

from __future__ import annotations

import time

from mosastore.placement import Plan, for_another_file

# Entries kept before the stale ones are dropped.
LIMIT = 1024

Key = tuple[int, str, str]  # (directory inode, the file's own hint, writer's node)


class Plans:
    """Fresh plans, by directory, hint and writer."""

    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._entries: dict[Key, tuple[float, Plan]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, directory: int, hint: str, writer: str) -> Plan | None:
        """A plan for another file of `directory`, if one is fresh."""
        entry = self._entries.get((directory, hint, writer))
        if entry is None or time.monotonic() - entry[0] >= self._timeout:
            return None
        return for_another_file(entry[1])

    def put(self, directory: int, hint: str, writer: str, plan: Plan) -> None:
        now = time.monotonic()
        if len(self._entries) >= LIMIT:
            self._entries = {key: entry for key, entry in self._entries.items() if now - entry[0] < self._timeout}
        self._entries[(directory, hint, writer)] = (now, plan)

    def clear(self) -> None:
        """A hint changed: any plan may have inherited it."""
        self._entries.clear()
