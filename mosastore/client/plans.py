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

from mosastore.client.fresh import FreshEntries
from mosastore.placement import Plan, for_another_file

# Entries kept before the stale ones are dropped.
LIMIT = 1024

Key = tuple[int, str, str]  # (directory inode, the file's own hint, writer's node)


class Plans:
    """Fresh plans, by directory, hint and writer."""

    def __init__(self, timeout: float) -> None:
        self._entries: FreshEntries[Key, Plan] = FreshEntries(timeout, LIMIT)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, directory: int, hint: str, writer: str) -> Plan | None:
        """A plan for another file of `directory`, if one is fresh."""
        plan = self._entries.get((directory, hint, writer))
        return None if plan is None else for_another_file(plan)

    def put(self, directory: int, hint: str, writer: str, plan: Plan) -> None:
        self._entries.put((directory, hint, writer), plan)

    def clear(self) -> None:
        """A hint changed: any plan may have inherited it."""
        self._entries.clear()
