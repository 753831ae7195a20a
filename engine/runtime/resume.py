"""`run --resume`: app tasks whose earlier run is still valid are not run again.

A task's key hashes its function, command line, redirections, and the
versions of its input files (`files.signature`: size and modification time,
or the store's size in staging mode). A resumed run reuses an earlier
success when the key matches and every output still has the version that run
left; otherwise the task runs, and so does everything downstream of it whose
inputs change as a result. With `--explain`, each task that runs says why.
Every success is recorded in the new run's restart log (reused ones too), so
a resumed run can itself be resumed; with it go its outputs' digests, which a reused
task hands on to the tasks that read its outputs (`engine.runtime.integrity`).
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any, Optional

from engine.observe.restart import RestartLog
from engine.task.contract import AppSpec
from hostkit.digests import sha256_hex


class TaskCache:
    """Keys app tasks, and finds the earlier successes a resumed run may reuse."""

    def __init__(self, files: Any, log: RestartLog, previous: Optional[dict[str, dict[str, Any]]] = None,
                 explain: bool = False) -> None:
        self.files = files
        self.log = log
        self.previous = previous
        self.explain = explain
        self.reused = 0
        self._keys_of_what = {record.get("what"): key for key, record in (previous or {}).items()}

    def key(self, label: str, spec: AppSpec, inputs: tuple[str, ...]) -> str:
        redirects = spec.staging.redirects if spec.staging is not None else ()
        text = json.dumps([label, spec.argv, spec.stdin, spec.stdout, spec.stderr, redirects, inputs,
                           [self.files.signature(path) for path in inputs]], separators=(",", ":"))
        return sha256_hex(text.encode("utf-8"))

    @staticmethod
    def describe(label: str, spec: AppSpec) -> str:
        return f"{label}: {shlex.join(spec.argv)}"

    def reusable(self, key: str, what: str, outputs: tuple[str, ...]) -> Optional[dict[str, str]]:
        """The output digests of an earlier success that may stand in for running this task,
        or None when it must run."""
        if self.previous is None:
            return None
        record = self.previous.get(key)
        if record is None:
            earlier = self._keys_of_what.get(what)
            self._why(what, "an input file changed" if earlier is not None else "no earlier run of it succeeded")
            return None
        recorded = record.get("outputs", {})
        changed = [path for path in outputs if self.files.signature(path) != recorded.get(path)]
        if changed:
            self._why(what, f"its output {changed[0]} changed or is gone")
            return None
        self.reused += 1
        digests = record.get("digests")
        return dict(digests) if isinstance(digests, dict) else {}

    def record(self, key: str, what: str, outputs: tuple[str, ...], digests: dict[str, str]) -> None:
        self.log.record(key, what, {path: self.files.signature(path) for path in outputs}, digests)

    def _why(self, what: str, reason: str) -> None:
        if self.explain:
            print(f"swiftcloud: runs {what} ({reason})", file=sys.stderr)
