"""What the suite must not leave behind: processes, mounts, network namespaces, /dev/shm
segments and temporary files of ours.

`Snapshot.take()` at the start of the session records what already exists;
`Snapshot.left_behind()` at its end (after every fixture's teardown) lists what the
suite added and did not remove. Processes are ours by the marker every process the
suite starts inherits (`SUITE_MARK` in the environment) or by naming the suite's
temporary directory on their command line; so are mounts in that directory. The rest
(mounts elsewhere in the system's temporary directory, network namespaces, entries new
in that directory and in /dev/shm, less the few that tools keep there for good by design:
pytest's base directory, the JVM's per-user performance data directory) is unclaimed:
another session of the suite running beside this one (`other_sessions`: a quick tier run
while the whole suite runs) makes the same kinds of things.
"""

from __future__ import annotations

import glob
import os
import tempfile
import time
from dataclasses import dataclass
from fnmatch import fnmatch

import psutil

from hostkit.procfs import read_proc
from tests.marked import marked


SUITE_MARK = "SWIFTCLOUD_SUITE_MARK"
SESSION_PREFIX = "swiftcloud-suite-"  # a session's directory: SESSION_PREFIX, its mark, "-", random
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
class Leftovers:
    """What a session left, one line each: `ours` surely, and `unclaimed` what another
    session of the suite beside it may have made."""

    ours: list[str]
    unclaimed: list[str]


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

    def left_behind(self, mark: str, base_temp: str) -> Leftovers:
        """Everything the suite may have left that is still there."""
        ours = [f"process {p.pid}: {' '.join(_cmdline(p))[:200]}" for p in _ours(mark, base_temp)]
        # The suite mounts only under its temporary directory and /run/netns: a mount elsewhere
        # is another program's (a developer's session on the same host).
        mounts = sorted(_mounts() - self.mounts)
        own = base_temp.rstrip("/") + "/"
        ours += [f"mount {m}" for m in mounts if m.startswith(own)]
        places = (self.temp_dir.rstrip("/") + "/", NETNS_DIR + "/")
        unclaimed = [f"mount {m}" for m in mounts if m.startswith(places) and not m.startswith(own)]
        unclaimed += [f"network namespace {n}" for n in sorted(_entries(NETNS_DIR) - self.namespaces)]
        unclaimed += [f"{SHM_DIR}/{s}" for s in sorted(_entries(SHM_DIR) - self.shm)]
        unclaimed += [os.path.join(self.temp_dir, t) for t in sorted(_entries(self.temp_dir) - self.temporary)
                      if not any(fnmatch(t, pattern) for pattern in KEPT_FOR_GOOD)]
        return Leftovers(ours, unclaimed)


def session_directory(mark: str) -> str:
    """A new directory for the session marked `mark`, in the system's temporary directory
    (its state and caches); the session removes it as it ends, so it says the session runs."""
    return tempfile.mkdtemp(prefix=f"{SESSION_PREFIX}{mark}-")


def other_sessions(mark: str) -> list[int]:
    """Live processes of another session of the suite on this host that still runs: those
    whose environment carries a suite mark other than `mark` (a session's own process sets
    its mark after it started, but its xdist workers and everything its tests start inherit
    it) and whose session directory is still there (not a process an ended session leaked)."""
    prefix, ours = f"{SUITE_MARK}=".encode(), mark.encode()
    found: dict[str, list[int]] = {}  # another mark -> the processes that carry it
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            entries = read_proc(f"/proc/{name}/environ").split(b"\0")
        except OSError:  # ended meanwhile, or another user's
            continue
        for entry in entries:
            if entry.startswith(prefix) and entry[len(prefix):] != ours:
                found.setdefault(os.fsdecode(entry[len(prefix):]), []).append(int(name))
    temporary = glob.escape(tempfile.gettempdir())
    running = [other for other in found
               if glob.glob(os.path.join(temporary, f"{SESSION_PREFIX}{glob.escape(other)}-*"))]
    return [pid for other in running for pid in found[other]]


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
