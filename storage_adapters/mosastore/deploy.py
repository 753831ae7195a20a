"""Starting and stopping MosaStore processes: manager, benefactors and the FUSE client mount.

Each process runs `python -m storage_adapters.mosastore ROLE` in its own
session with its log appended to a file, and is tracked by PID plus start
time (so it is stopped by that PID, never by name). `mount` waits until the
kernel lists the mount; `unmount` releases it with `fusermount3 -u` (lazily
when busy) and then makes sure the client process is gone. The service
(`service.py`), the adapter's auto-mount and the tests all use these.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from storage_adapters.errors import MissingDependencyError, ServiceError
from storage_adapters.mosastore.rpc import Pool
from storage_adapters.services.common import is_running, port_open, spawn, stop_process, wait_until
from storage_adapters.services.s3fs_mount import mounted_fstype

FSTYPE = "fuse.mosastore"
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Process:
    """One started MosaStore process."""

    role: str
    pid: int
    create_time: float
    log: str
    port: int = 0
    node: str = ""

    def running(self) -> bool:
        return is_running(self.pid, self.create_time)

    def stop(self, timeout: float = 10.0) -> bool:
        """SIGTERM, then SIGKILL after `timeout`; False if it had already ended.

        Waits for the process to exit rather than to vanish: one started by an
        earlier command is not our child and stays a zombie until init reaps it."""
        if not self.running():
            stop_process(self.pid, self.create_time)  # reaps it if it is our child
            return False
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        stop_process(self.pid, self.create_time)
        return True


def _argv(role: str, *options: str) -> list[str]:
    return [sys.executable, "-m", "storage_adapters.mosastore", role, *options]


def _environment() -> dict[str, str]:
    """Our environment, with this checkout importable and without an emulated node name."""
    env = {key: value for key, value in os.environ.items() if key != "SWIFTCLOUD_NODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PROJECT_ROOT, env.get("PYTHONPATH")]))
    return env


def _started(role: str, process: subprocess.Popen[bytes], log: str, port: int = 0, node: str = "") -> Process:
    import psutil

    try:
        create_time = psutil.Process(process.pid).create_time()
    except psutil.Error:
        create_time = 0.0
    return Process(role, process.pid, create_time, log, port, node)


def start_manager(directory: str, port: int, secret_file: str, chunk_size: int, log: str) -> Process:
    """A manager on 127.0.0.1:`port` keeping its metadata in `directory`; returns once it answers."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)  # also when an earlier version made it open to others
    argv = _argv("manager", "--listen", f"127.0.0.1:{port}", "--db", os.path.join(directory, "meta.db"),
                 "--secret-file", secret_file, "--chunk-size", str(chunk_size))
    process = spawn(argv, log, _environment())
    wait_until(lambda: port_open(port), process, "the MosaStore manager", log, timeout=30)
    return _started("manager", process, log, port)


def start_benefactor(node: str, directory: str, port: int, manager: str, secret_file: str, log: str) -> Process:
    """A benefactor for emulated node `node` storing chunks in `directory`."""
    argv = _argv("benefactor", "--node", node, "--dir", directory, "--listen", f"127.0.0.1:{port}",
                 "--manager", manager, "--secret-file", secret_file)
    process = spawn(argv, log, _environment())
    wait_until(lambda: port_open(port), process, f"MosaStore benefactor {node}", log, timeout=30)
    return _started("benefactor", process, log, port, node)


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
    if shutil.which("fusermount3") is None and shutil.which("fusermount") is None and os.geteuid() != 0:
        raise ServiceError("fusermount3 is not installed: apt-get install fuse3")
    missing = [module for module in ("pyfuse3", "trio") if importlib.util.find_spec(module) is None]
    if missing:
        raise MissingDependencyError(
            f"the MosaStore client needs {' and '.join(missing)}: pip install pyfuse3 trio "
            "(with apt-get install fuse3 libfuse3-dev pkg-config; see setup.d/30-mosastore.sh)")
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        raise ServiceError("FUSE is unavailable: /dev/fuse is missing or not readable and writable")
    os.makedirs(mountpoint, exist_ok=True)
    os.makedirs(spool_dir, mode=0o700, exist_ok=True)
    mountpoint = os.path.realpath(mountpoint)
    if mounted_fstype(mountpoint) is not None:
        raise ServiceError(f"{mountpoint} is already a mount point")
    argv = _argv("mount", "--mount", mountpoint, "--manager", manager, "--secret-file", secret_file,
                 "--node", node, "--spool-dir", spool_dir, *extra)
    process = spawn(argv, log, _environment())
    wait_until(lambda: mounted_fstype(mountpoint) == FSTYPE, process, "the MosaStore client", log, timeout=30)
    return _started("client", process, log, node=node)


def unmount(mountpoint: str, client: Process | None, timeout: float = 20.0) -> None:
    """Release the mount (lazily if busy) and wait for its client process to end."""
    if mounted_fstype(mountpoint) == FSTYPE:
        tool = shutil.which("fusermount3") or shutil.which("fusermount")
        argv = [tool, "-u", mountpoint] if tool else ["umount", mountpoint]
        if subprocess.run(argv, capture_output=True, check=False).returncode != 0 and mounted_fstype(mountpoint):
            lazy = [tool, "-u", "-z", mountpoint] if tool else ["umount", "-l", mountpoint]
            subprocess.run(lazy, capture_output=True, check=False)
    if client is not None:
        deadline = time.monotonic() + timeout
        while client.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        client.stop()
    if mounted_fstype(mountpoint) == FSTYPE:
        raise ServiceError(f"could not unmount {mountpoint}")
