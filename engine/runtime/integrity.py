"""What every file of one run holds, as its writer digested it (`FileDigests`).

A worker digests each output of an app as it publishes it (`engine.task.apps`)
and sends the digests back with the task's result; the run log's `end` record
keeps them, the restart log too, and a resumed run takes them back for the tasks it
reuses. The engine digests the files it writes itself (`write()`, a mapped copy, an
input it loads into a store) and logs each in a `published` record. A staged input
whose digest is known must match it when it is fetched: the worker checks the plan's
digests (`StagingPlan.digests`), the engine its own fetches (`check`).
`swiftcloud verify` reads them all back from the run log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from engine.errors import SwiftRuntimeError
from engine.observe.runlog import RunLog
from hostkit.digests import mismatch_message


class FileDigests:
    """The known digest of each file of a run, by the run's name for it (the logical path in
    a store, else the path as the script gives it)."""

    def __init__(self) -> None:
        self.known: dict[str, str] = {}
        self.run_log: Optional[RunLog] = None  # where the engine's own files are recorded

    def learn(self, digests: Mapping[str, str]) -> None:
        """Digests a worker took (or an earlier run recorded) of files it published."""
        self.known.update(digests)

    def published(self, name: str, digest: str) -> None:
        """The engine published file `name`, digested (`file_digest`) before it left."""
        self.known[name] = digest
        if self.run_log is not None:
            self.run_log.file_published(name, digest)

    def of(self, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        """(name, digest) of each of `names` whose digest is known, for a staging plan."""
        known = self.known
        return tuple((name, known[name]) for name in names if name in known)

    def check(self, name: str, found: str, where: str) -> None:
        """A fetched copy of `name`, digested `found` as it landed, must hold what its producer wrote."""
        recorded = self.known.get(name)
        if recorded is not None and found != recorded:
            raise SwiftRuntimeError(mismatch_message(name, where, recorded, found))
