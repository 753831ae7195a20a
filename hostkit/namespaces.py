"""Joining another process's host: its cgroups, and its network, host name and mount namespaces.

What a write to each `cgroup.procs` and `nsenter --net --uts --mount` do for a new process,
done by a process that has already started (the engine's zygote forks each rank of a job on
the emulated cluster, then the rank joins the node its stub runs on). A node's mount namespace
(`ip netns exec`'s) has a sysfs of its own, without the host's cgroup mounts, so the cgroups'
`cgroup.procs` files are opened first (`cgroup_doors`), and a process goes through them
(`enter`) when it chooses, from its node's namespaces too. Only what differs from this process's own
is joined, so joining a process of the same host costs two small reads of /proc and a few stats.
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Sequence

from hostkit.procfs import read_proc

# Mounts last: entering a mount namespace moves the root and the working directory.
NAMESPACES = ("net", "uts", "mnt")
# Python 3.11 has no os.setns; the C library's is called directly.
_LIBC = ctypes.CDLL(None, use_errno=True)


def cgroup_doors(pid: int) -> list[int]:
    """The `cgroup.procs` files of the cgroups of process `pid` that differ from this process's
    own, open for writing (closed on exec): `enter` goes through them, from any namespace."""
    theirs = cgroups_of(_read(f"/proc/{pid}/cgroup"))
    ours = cgroups_of(_read("/proc/self/cgroup"))
    moves = {hierarchy: path for hierarchy, path in theirs.items() if ours.get(hierarchy) != path}
    if not moves:
        return []
    mountinfo = _read("/proc/self/mountinfo")
    doors: list[int] = []
    try:
        for hierarchy, path in moves.items():
            root = cgroup_mount(mountinfo, hierarchy)
            if root is None:
                raise OSError(errno.ENOENT, f"the cgroup hierarchy {hierarchy or 'v2'} of process {pid} is not mounted")
            doors.append(os.open(os.path.join(root, path.lstrip("/"), "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
    except BaseException:
        for door in doors:
            os.close(door)
        raise
    return doors


def enter(doors: Sequence[int]) -> None:
    """Move this whole process (every thread of it) into the cgroups whose `cgroup.procs` files
    `doors` are (`cgroup_doors`), and close them."""
    try:
        for door in doors:
            os.write(door, str(os.getpid()).encode("ascii"))
    finally:
        for door in doors:
            os.close(door)


def join_namespaces(pid: int) -> None:
    """Move this process (single-threaded) into the namespaces of process `pid` that differ from
    its own. OSError when one cannot be joined."""
    for kind in NAMESPACES:
        theirs = f"/proc/{pid}/ns/{kind}"
        if os.stat(theirs).st_ino == os.stat(f"/proc/self/ns/{kind}").st_ino:
            continue
        handle = os.open(theirs, os.O_RDONLY | os.O_CLOEXEC)
        try:
            if _LIBC.setns(handle, 0) != 0:
                code = ctypes.get_errno()
                raise OSError(code, f"cannot enter the {kind} namespace of process {pid}: {os.strerror(code)}")
        finally:
            os.close(handle)


def cgroups_of(table: str) -> dict[str, str]:
    """A /proc/PID/cgroup table: each hierarchy (its controllers as listed, '' for cgroup v2)
    to the process's cgroup in it."""
    hierarchies = {}
    for line in table.splitlines():
        _, controllers, path = line.split(":", 2)
        hierarchies[controllers] = path
    return hierarchies


def cgroup_mount(mountinfo: str, hierarchy: str) -> str | None:
    """Where a cgroup hierarchy is mounted, from a /proc/PID/mountinfo table: `hierarchy` as
    /proc/PID/cgroup lists it (its controllers, or name=NAME; '' for cgroup v2). None if not."""
    wanted = set(hierarchy.split(","))
    for line in mountinfo.splitlines():
        fields = line.split()
        dash = fields.index("-")
        fstype, options = fields[dash + 1], set(fields[dash + 3].split(","))
        if (fstype == "cgroup2" and not hierarchy) or (fstype == "cgroup" and hierarchy and wanted <= options):
            return fields[4]
    return None


def _read(path: str) -> str:
    return read_proc(path).decode("utf-8", "surrogateescape")
