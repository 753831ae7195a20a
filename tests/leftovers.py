"""What the suite must not leave behind: processes, mounts, network namespaces, /dev/shm
segments and temporary files of ours.

`Snapshot.take()` at the start of the session records what already exists;
`Snapshot.left_behind()` at its end (after every fixture's teardown) lists what the
suite added and did not remove. Processes are ours by the marker every process the
suite starts inherits (`SUITE_MARK` in the environment) or by naming the suite's
temporary directory on their command line. Temporary entries are those new in the
system's temporary directory and /dev/shm, less the few that tools keep there for good
by design (pytest's base directory, the JVM's per-user performance data directory).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from fnmatch import fnmatch

import psutil

from tests.marked import marked


SUITE_MARK = "SWIFTCLOUD_SUITE_MARK"
NETNS_DIR = "/run/netns"
SHM_DIR = "/dev/shm"
# Entries that persist by design, created once and reused by every later run (lark's
# cache of the grammar's parse tables is rebuilt only when the grammar changes).
KEPT_FOR_GOOD = ("pytest-of-*", "hsperfdata_*", ".lark_cache_*")


def _entries(directory: str) -> frozenset[str]:
    try:
        return frozenset(os.listdir(directory))
    except FileNotFoundError:
        return frozenset()


def _mounts() -> frozenset[str]:
    """Mount points of this mount namespace (field 5 of /proc/self/mountinfo)."""
    with open("/proc/self/mountinfo", encoding="utf-8") as table:
        return frozenset(line.split()[4] for line in table)


@dataclass(frozen=True)
class Snapshot:
    """What existed when the suite started."""

    mounts: frozenset[str]
    namespaces: frozenset[str]
    shm: frozenset[str]
    temporary: frozenset[str]
    temp_dir: str

    @classmethod
    def take(cls) -> Snapshot:
        temp_dir = tempfile.gettempdir()
        return cls(_mounts(), _entries(NETNS_DIR), _entries(SHM_DIR), _entries(temp_dir), temp_dir)

    @staticmethod
    def wait_for_processes(mark: str, base_temp: str, wait_s: float = 10.0) -> None:
        """Wait up to `wait_s` for the suite's processes to end (killed orphans may take a
        moment for init to reap them)."""
        deadline = time.monotonic() + wait_s
        while _ours(mark, base_temp) and time.monotonic() < deadline:
            time.sleep(0.1)

    def left_behind(self, mark: str, base_temp: str) -> list[str]:
        """Everything of the suite's still there, one line each."""
        found = [f"process {p.pid}: {' '.join(_cmdline(p))[:200]}" for p in _ours(mark, base_temp)]
        # The suite mounts only under its temporary directory and /run/netns: a mount elsewhere
        # is another program's (a second suite or a developer's session on the same host).
        places = (self.temp_dir.rstrip("/") + "/", NETNS_DIR + "/")
        found += [f"mount {m}" for m in sorted(_mounts() - self.mounts) if m.startswith(places)]
        found += [f"network namespace {n}" for n in sorted(_entries(NETNS_DIR) - self.namespaces)]
        found += [f"{SHM_DIR}/{s}" for s in sorted(_entries(SHM_DIR) - self.shm)]
        found += [os.path.join(self.temp_dir, t) for t in sorted(_entries(self.temp_dir) - self.temporary)
                  if not any(fnmatch(t, pattern) for pattern in KEPT_FOR_GOOD)]
        return found


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def _ours(mark: str, base_temp: str) -> list[psutil.Process]:
    """Live processes the suite started, other than this one and its ancestors."""
    exclude = {os.getpid(), *(p.pid for p in psutil.Process().parents())}
    found = {p.pid: p for p in marked(SUITE_MARK, mark) if p.pid not in exclude}
    for process in psutil.process_iter():
        if process.pid in exclude or process.pid in found:
            continue
        try:
            if process.status() != psutil.STATUS_ZOMBIE and any(base_temp in word for word in process.cmdline()):
                found[process.pid] = process
        except psutil.Error:
            continue
    return list(found.values())
