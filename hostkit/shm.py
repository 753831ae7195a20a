"""What MPICH leaves behind when its processes are killed: shared-memory segments in
/dev/shm and the topology files of its process managers in /tmp.

MPICH keeps a job's intra-node segment in `/dev/shm/mpich_shm_*` and unlinks it in
`MPI_Finalize`; a rank killed outright (a lost worker, a cancelled batch job, kill -9)
never does, and the file (about 1 MB) stays until reboot: 360 had piled up here over a
day of tests. `sweep()` deletes those of this user that no process maps or holds open
any more and that are older than a grace period (a starting job's first rank maps its
segment moments after creating it; the others attach to the mapped one).

A job run on libfabric's shm provider (`FI_PROVIDER=shm`, a user's setting) keeps a
segment per rank as `/dev/shm/PID:N:N`, unlinked at an orderly exit and left behind by a
killed rank in the same way: those are swept alike.

Hydra's proxy (`hydra_pmi_proxy`) writes the node's topology to
`/tmp/hydra_hwloc_xmlfile_*` when a rank asks for it during MPI_Init, and deletes it
when it exits in order; a proxy killed outright leaves it. Those files are swept when no
proxy of this user runs: then none can still be read.

`sweep()` does both. Called before and after a job supervised here (after: only if it did
not end in order; before: for a rank of an earlier job killed within that job's grace
period), when a job store's node ends, and when the trial Slurm stops.
"""

from __future__ import annotations

import glob
import os
import time

SEGMENTS = ("/dev/shm/mpich_shm_*", "/dev/shm/[0-9]*:[0-9]*:[0-9]*")  # MPICH's; libfabric shm's
TOPOLOGY_FILES = "/tmp/hydra_hwloc_xmlfile_*"
PROXY = "hydra_pmi_proxy"
GRACE_S = 5.0  # a job's first rank maps its segment within milliseconds of making it


def in_use() -> set[str]:
    """The files in /dev/shm some process maps or has open (as far as /proc lets us see)."""
    used: set[str] = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                used.update(line.split(None, 5)[5].strip() for line in maps if " /dev/shm/" in line)
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("/dev/shm/"):
                    used.add(target)
        except OSError:  # the process ended meanwhile, or is not ours to look at
            continue
    return used


def sweep(grace_s: float = GRACE_S) -> list[str]:
    """Delete this user's unused MPICH segments older than `grace_s`, and its proxies'
    topology files if no proxy runs; the paths deleted."""
    return _sweep_segments(grace_s) + _sweep_topology_files()


def _sweep_topology_files() -> list[str]:
    mine = [path for path in glob.glob(TOPOLOGY_FILES) if _owned(path)]
    if not mine or proxy_running():
        return []
    return _unlink(mine)


def _unlink(paths: list[str]) -> list[str]:
    """Delete `paths`; those that were deleted (others went meanwhile, or are not ours)."""
    removed = []
    for path in paths:
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            continue
    return removed


def _owned(path: str) -> bool:
    try:
        return os.stat(path).st_uid == os.geteuid()
    except OSError:
        return False


def proxy_running() -> bool:
    """Does a Hydra proxy of this user run (one that may still need its topology file)?"""
    # Deferred: every `run -n N` sweeps before it starts mpiexec, and psutil costs that
    # about 8 ms; it is needed only when a topology file is left.
    import psutil

    for process in psutil.process_iter(["name", "uids"]):
        uids = process.info["uids"]
        if process.info["name"] == PROXY and uids is not None and uids.real == os.getuid():
            return True
    return False


def _sweep_segments(grace_s: float) -> list[str]:
    candidates = []
    now = time.time()
    for path in (path for pattern in SEGMENTS for path in glob.glob(pattern)):
        try:
            status = os.stat(path)
        except OSError:
            continue
        if status.st_uid == os.geteuid() and now - status.st_mtime > grace_s:
            candidates.append(path)
    if not candidates:
        return []
    used = in_use()
    return _unlink([path for path in candidates if path not in used])
