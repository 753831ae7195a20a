"""Private temporary directories that name their owner, and the sweep of those whose owner died.

The engine keeps fetched copies of store files in one (`swiftcloud-engine-...`), and a
staged app task works in one (`swiftcloud-task-...`); each is removed by its owner when
done. A process killed outright (kill -9, the OOM killer, a lost node) cannot, so each
name carries its owner's PID and start time (`swiftcloud-KIND-PID.START-XXXX`, START in
clock ticks since boot, as /proc gives it), and `sweep()` removes the directories of this
user whose owner no longer runs: every run does so as it starts, as it sweeps MPICH's
leftovers.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile

from hostkit.process_start import start_ticks

NAME = re.compile(r"^swiftcloud-[a-z]+-(\d+)\.(\d+)-")


def make(kind: str) -> str:
    """A new private directory `swiftcloud-KIND-PID.START-XXXX` in the temporary directory."""
    pid = os.getpid()
    return tempfile.mkdtemp(prefix=f"swiftcloud-{kind}-{pid}.{start_ticks(pid) or 0}-")


def sweep() -> list[str]:
    """Remove this user's scratch directories whose owner process is gone; the paths removed."""
    base = tempfile.gettempdir()
    removed = []
    with contextlib.suppress(OSError), os.scandir(base) as entries:
        for entry in entries:
            match = NAME.match(entry.name)
            if match is None:
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid != os.geteuid() or not entry.is_dir(follow_symlinks=False):
                    continue
            pid, start = int(match.group(1)), int(match.group(2))
            if start_ticks(pid) == start:
                continue  # its owner still runs
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed
