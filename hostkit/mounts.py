"""Mounts on this host: which file system is mounted where, starting a FUSE client
process and releasing its mount, for any of our file systems.

A client runs as `python -m PACKAGE mount …` in its own session with its log
appended to a file, and is tracked by PID plus start time (`Process`), so it
is stopped by that PID, never by name. `mount_client` returns once the
kernel lists the mount with the expected file system type; `unmount`
releases it with `fusermount3 -u` (lazily when busy) and then makes sure the
client process is gone.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Collection

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import module_environment
from hostkit.records import ServiceRecord, forget_record, load_record


def mounted_fstype(path: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The file system type mounted exactly at `path` (the topmost one), or None; `mountinfo`
    names another process's table to look into its mount namespace."""
    target = os.path.realpath(path)
    fstype = None
    try:
        for mount_point, kind in _mounts(mountinfo):
            if mount_point == target:
                fstype = kind
    except OSError:
        return None
    return fstype


def mount_points(fstypes: Collection[str], mountinfo: str = "/proc/self/mountinfo") -> list[str]:
    """Where a file system of one of `fstypes` is mounted (in `mountinfo`'s namespace)."""
    return [mount_point for mount_point, kind in _mounts(mountinfo) if kind in fstypes]


def _mounts(mountinfo: str) -> list[tuple[str, str]]:
    """(mount point, file system type) of each line of a mountinfo table, in its order."""
    with open(mountinfo) as table:
        return [(_unescape(fields[4]), fields[fields.index("-") + 1]) for fields in map(str.split, table)]


def cgroup2_root(controller: str) -> str | None:
    """The mount point of the cgroup v2 hierarchy, when it offers `controller` (io, cpu, ...)."""
    with open("/proc/self/mounts", encoding="ascii") as table:
        for line in table:
            fields = line.split()
            if fields[2] == "cgroup2":
                try:
                    with open(os.path.join(fields[1], "cgroup.controllers"), encoding="ascii") as controllers:
                        if controller in controllers.read().split():
                            return fields[1]
                except OSError:
                    continue
    return None


def fusermount() -> str | None:
    """The FUSE unmount tool installed here, if any."""
    return shutil.which("fusermount3") or shutil.which("fusermount")


def check_fuse_client(what: str) -> None:
    """Fail with a message saying what to install when one of our FUSE clients cannot mount here."""
    if fusermount() is None and os.geteuid() != 0:
        raise ServiceError("fusermount3 is not installed: apt-get install fuse3")
    if importlib.util.find_spec("trio") is None:
        raise MissingDependencyError(
            f"the {what} needs trio: pip install trio (with apt-get install fuse3; see setup.d/30-mosastore.sh)")
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        raise ServiceError("FUSE is unavailable: /dev/fuse is missing or not readable and writable")


def mount_client(argv: list[str], mountpoint: str, fstype: str, what: str, log: str, node: str = "") -> Process:
    """Run the client `argv` that mounts `mountpoint` (a resolved path); return once it is mounted."""
    check_fuse_client(what)
    if mounted_fstype(mountpoint) is not None:
        raise ServiceError(f"{mountpoint} is already a mount point")
    process = spawn(argv, log, module_environment())
    wait_until(lambda: mounted_fstype(mountpoint) == fstype, process, what, log, timeout=30)
    return started("client", process, log, node=node)


def unmount(mountpoint: str, fstype: str, client: Process | None, timeout: float = 20.0) -> None:
    """Release the mount (lazily if busy) and wait for its client process to end."""
    if mounted_fstype(mountpoint) == fstype:
        tool = fusermount()
        argv = [tool, "-u", mountpoint] if tool else ["umount", mountpoint]
        if subprocess.run(argv, capture_output=True, check=False).returncode != 0 and mounted_fstype(mountpoint):
            detach(mountpoint)  # busy (a file still open): the kernel finishes once it is closed
    if client is not None:
        deadline = time.monotonic() + timeout
        while client.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        client.stop()
    if mounted_fstype(mountpoint) == fstype:
        raise ServiceError(f"could not unmount {mountpoint}")


def detach(mountpoint: str) -> None:
    """Take the mount out of the namespace at once (a lazy unmount), whatever its client is
    doing: for when the client may be killed before it could unmount (a batch job ending)."""
    subprocess.run(detach_argv(mountpoint), capture_output=True, check=False)


def detach_argv(mountpoint: str) -> list[str]:
    """The command line of `detach` (to run it in another mount namespace, for one)."""
    tool = fusermount()
    return [tool, "-u", "-z", mountpoint] if tool else ["umount", "-l", mountpoint]


def recorded_processes(record: ServiceRecord) -> list[Process]:
    """The processes a service recorded at start (`info["processes"]`), in start order."""
    return [Process(**entry) for entry in record.info["processes"]]


def stop_mounted_service(state_dir: str, name: str, fstype: str,
                         stop_servers: Callable[[list[Process]], None]) -> bool:
    """Unmount a service's mount, stop its servers (`stop_servers`, given every recorded
    process but the mount's client) and forget it; False if it was not running."""
    record = load_record(state_dir, name)
    if record is None:
        return False
    recorded = recorded_processes(record)
    running = any(process.running() for process in recorded)
    clients = [process for process in recorded if process.role == "client"]
    unmount(record.info["mountpoint"], fstype, clients[0] if clients else None)
    stop_servers([process for process in recorded if process.role != "client"])
    forget_record(state_dir, name)
    return running


def _unescape(field: str) -> str:
    """Undo the octal escapes (`\\040` for a space) of /proc/self/mountinfo."""
    return field.encode().decode("unicode_escape") if "\\" in field else field
