"""Starting and stopping MosaStore processes: manager, benefactors and the FUSE client mount.

Each process runs `python -m mosastore ROLE` in its own
session with its log appended to a file, and is tracked by PID plus start
time (so it is stopped by that PID, never by name). `mount` waits until the
kernel lists the mount; `unmount` releases it with `fusermount3 -u` (lazily
when busy) and then makes sure the client process is gone. The service
(`service.py`), the adapter's auto-mount and the tests all use these.
"""

from __future__ import annotations

import os
import sys
import time

from hostkit.errors import ServiceError
from hostkit.mounts import check_fuse_client, mount_client, mounted_fstype
from hostkit.mounts import unmount as release
from hostkit.ports import LOOPBACK, port_open
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import module_environment
from mosastore.rpc import Pool

__all__ = ["FSTYPE", "Process", "mount", "mounted_fstype", "unmount"]

FSTYPE = "fuse.mosastore"


def _argv(role: str, *options: str) -> list[str]:
    return [sys.executable, "-m", "mosastore", role, *options]


def start_manager(directory: str, port: int, secret_file: str, chunk_size: int, log: str,
                  host: str = LOOPBACK, repair_after: float | None = None) -> Process:
    """A manager on `host`:`port` keeping its metadata in `directory`; returns once it answers.
    `repair_after`: seconds before a silent benefactor's chunks are copied elsewhere (None: the
    manager's default)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)  # also when an earlier version made it open to others
    argv = _argv("manager", "--listen", f"{host}:{port}", "--db", os.path.join(directory, "meta.db"),
                 "--secret-file", secret_file, "--chunk-size", str(chunk_size))
    if repair_after is not None:
        argv += ["--repair-after", str(repair_after)]
    process = spawn(argv, log, module_environment())
    wait_until(lambda: port_open(port, host), process, "the MosaStore manager", log, timeout=30)
    return started("manager", process, log, port)


def start_benefactor(node: str, directory: str, port: int, manager: str, secret_file: str, log: str,
                     host: str = LOOPBACK) -> Process:
    """A benefactor for node `node` on `host`:`port` storing chunks in `directory`."""
    argv = _argv("benefactor", "--node", node, "--dir", directory, "--listen", f"{host}:{port}",
                 "--manager", manager, "--secret-file", secret_file)
    process = spawn(argv, log, module_environment())
    wait_until(lambda: port_open(port, host), process, f"MosaStore benefactor {node}", log, timeout=30)
    return started("benefactor", process, log, port, node)


def wait_for_benefactors(manager: str, secret: bytes, nodes: list[str], timeout: float = 30.0) -> None:
    """Block until the manager sees every node in `nodes` alive."""
    pool = Pool(manager, secret, retry_for=5.0)
    deadline = time.monotonic() + timeout
    try:
        while True:
            known = pool.call("benefactors")[0]["nodes"]
            if all(known.get(node, {}).get("alive") for node in nodes):
                return
            if time.monotonic() > deadline:
                raise ServiceError(
                    f"benefactors {', '.join(nodes)} did not register with the manager in {timeout:.0f} s")
            time.sleep(0.1)
    finally:
        pool.close()


def mount(mountpoint: str, manager: str, secret_file: str, node: str, spool_dir: str, log: str,
          extra: tuple[str, ...] = ()) -> Process:
    """Mount the store at `mountpoint` with a FUSE client process; returns once mounted."""
    check_fuse_client("MosaStore client")
    os.makedirs(mountpoint, exist_ok=True)
    os.makedirs(spool_dir, mode=0o700, exist_ok=True)
    mountpoint = os.path.realpath(mountpoint)
    argv = _argv("mount", "--mount", mountpoint, "--manager", manager, "--secret-file", secret_file,
                 "--node", node, "--spool-dir", spool_dir, *extra)
    return mount_client(argv, mountpoint, FSTYPE, "the MosaStore client", log, node)


def unmount(mountpoint: str, client: Process | None, timeout: float = 20.0) -> None:
    """Release the mount (lazily if busy) and wait for its client process to end."""
    release(mountpoint, FSTYPE, client, timeout)
